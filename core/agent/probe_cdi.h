/* probe_cdi.h - does this node's CDI specification name its GPUs?
 * (probe_cdi.c; spec/execution.md §4).
 *
 * The podman runtime asks for a worker's GPUs as CDI devices,
 * `--device nvidia.com/gpu=N`; podman resolves those names from the CDI
 * specs under /etc/cdi and /var/run/cdi, which `nvidia-ctk cdi generate`
 * writes.  A node without them fails every GPU job at its start, so the
 * agent checks at start (and at each inventory report) and says so. */
#ifndef RD_PROBE_CDI_H
#define RD_PROBE_CDI_H

#include <stddef.h>

#include <jansson.h>

#include "err.h"

/* Where podman looks by default; RIGDECK_CDI_DIRS (a ':' list) overrides it. */
#define PROBE_CDI_DIRS "/etc/cdi:/var/run/cdi"
#define PROBE_CDI_GENERATE "sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml"

/* Adds to names (an array) the device names of one CDI spec (YAML or JSON
 * text) whose kind is nvidia.com/gpu.  RD_EINVAL for text that is no such
 * document ("SOURCE: ..."); a spec of another kind adds nothing. */
rd_code probe_cdi_spec_names(const char *text, size_t len, const char *source, json_t *names, rd_err *err);

/* Reads every *.yaml, *.yml and *.json file of dirs (NULL: $RIGDECK_CDI_DIRS,
 * else PROBE_CDI_DIRS) into a new array of names; a missing directory is
 * none, an unreadable or unparsable file is skipped and named in *bad
 * (a new array of "FILE: why" strings). */
json_t *probe_cdi_names(const char *dirs, json_t **bad);

/* "" in detail when names holds "N" for every GPU index 0..ngpus-1;
 * otherwise one line saying which are missing, where it looked and the
 * command that generates the spec.  Returns 1 when something is missing. */
int probe_cdi_check(const json_t *names, int ngpus, const char *dirs, char *detail, size_t len);

/* The GPUs an inventory file (YAML or JSON, the agent's --inventory or its
 * discovery) lists: the sum of gpus[].count; 0 when it cannot be read. */
int probe_cdi_inventory_gpus(const char *path);

#endif
