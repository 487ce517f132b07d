/* agent_device.h - the agent of an edge device: `rigdeck agent --device
 * NAME` (agent_device.c). */
#ifndef RD_AGENT_DEVICE_H
#define RD_AGENT_DEVICE_H

#include <jansson.h>

#include "agent_loop.h"
#include "agent_stage.h"
#include "agent_work.h"

/* Runs the device's agent until *o->stop (or one round with o->once):
 * registers (the device turns active), renews its lease, and runs the
 * deployed configuration (spec/execution.md §7).  RD_OK on a clean stop. */
rd_code agent_device_run(const agent_opts *o, rd_err *err);

/* What a container on this device is given with `--device`, appended to
 * out (an array of strings), sorted: the accelerator - `nvidia.com/gpu=all`
 * when the runtime is podman and a CDI spec names it (cdi_names, from
 * probe_cdi_names: JetPack 6 generates one), else the Jetson's own device
 * nodes found in dev_dir (nvhost-*, nvmap, and those under nvgpu/) - and
 * every video* node of dev_dir (cameras, encoders).  dev_dir: NULL reads
 * $RIGDECK_DEV_DIR, else /dev.  The process runtime passes nothing (its
 * command sees /dev as it is): 0 added then.  Returns how many it added. */
size_t agent_device_passthrough(const char *dev_dir, runner_kind kind, const json_t *cdi_names, json_t *out);

/* The datastores of a run (agent_mount.c, as a job worker's): the
 * configuration's at the output path (like a job's regional data.output)
 * and those its model or checkpoints are read from (datastore:NAME/PATH
 * sources, which staging leaves to mounts).  agent_device.c calls it at
 * each round after staging until it is READY, then starts the command.
 * cfg: the configuration ("datastore", "datastore_path"); refs: the
 * deployment's data_refs, whose "datastores" holds the copies made at
 * deploy (address, user, sealed password); dir: the run's folder, whose
 * opt/ml/output is the output path (ML_OUTPUT_PATH; inside a container
 * /opt/ml/output, the tree being bind-mounted recursively).  READY when
 * there is nothing to mount or all is mounted, BUSY while a mount comes up
 * (MOUNT_WAIT_S at most), FAILED with msg when one cannot be (the run then
 * fails staging_failed with msg, never writing elsewhere). */
stage_state agent_device_mount_output(agent_state *a, const json_t *cfg, const json_t *refs, const char *dir,
                                      char *msg, size_t len);

#endif
