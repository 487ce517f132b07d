/* agent_loop.h - the node agent of `rigdeck agent --node NAME` (agent_loop.c). */
#ifndef RD_AGENT_LOOP_H
#define RD_AGENT_LOOP_H

#include <signal.h>
#include <stdint.h>

#include "dlog.h"
#include "store.h"

typedef struct {
    const char *store_url;
    const store_opts *store_opts;
    const char *actor;
    const char *master_key_path;
    const char *node;                  /* --node */
    const char *device;                /* --device: the agent of an edge device instead (agent_device.c) */
    const char *work_dir;              /* --work-dir (created) */
    int64_t heartbeat_ms;              /* --heartbeat */
    int64_t sample_ms;                 /* --sample */
    int gpu_temp_max;                  /* --gpu-temp-max, degrees C */
    const char *runtime;               /* auto|process|podman|docker */
    const char *inventory_file;        /* --inventory, or NULL: discover */
    const char *nvidia_smi;            /* NULL: $RIGDECK_NVIDIA_SMI, else nvidia-smi on PATH */
    int once;
    const char *host, *version;
    long pid;
    dlog_sink log;
    volatile sig_atomic_t *stop;
    const char *metrics_listen;        /* --metrics-listen HOST:PORT, or NULL: no /metrics */
    const char *mdns_address;          /* --mdns-address IP: what reservations' hostnames resolve to; NULL: the
                                        * first non-loopback IPv4 address (agent_mdns.c) */
    const char *address;               /* --address: where serving workers listen (agent_serve.h); NULL: every
                                        * interface, named by host */
} agent_opts;

/* Runs the agent until *stop (or one round with once): reports the
 * inventory, registers, renews its lease, starts the workers placed on its
 * node, reports their ends, pushes their output.  RD_OK on a clean stop. */
rd_code agent_run(const agent_opts *o, rd_err *err);

#endif
