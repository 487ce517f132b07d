/* node.h - compute and storage nodes (see node.c for the lifecycle). */
#ifndef RD_NODE_H
#define RD_NODE_H

#include <jansson.h>

#include "cmd.h"

/* Reads a live (not removed) node, guarded; RD_ENOTFOUND otherwise. */
rd_code node_get(cmd_ctx *ctx, const char *name, json_t **node, rd_err *err);

/* Reads a node in any state, removed included. */
rd_code node_get_any(cmd_ctx *ctx, const char *name, json_t **node, rd_err *err);

/* Stages a node document (takes the reference). */
rd_code node_put(cmd_ctx *ctx, json_t *node, rd_err *err);

/* Stages the storage node a new GCP region gets (state provisioning). */
rd_code node_stage_gcp_storage(cmd_ctx *ctx, const json_t *region, const char *name, rd_err *err);

/* Stages a node's removal: state removed, minion id released. */
rd_code node_stage_removed(cmd_ctx *ctx, const char *name, rd_err *err);

/* Applies a cloud node's instance state to the document (not staged), as
 * `node report --instance` does: "running" turns a provisioning or offline
 * node active, anything else makes it offline.  Refuses non-cloud nodes. */
rd_code node_apply_instance(cmd_ctx *ctx, json_t *node, const char *instance, rd_err *err);

/* Sets a node's state and state_changed_at (no change when it has it). */
void node_set_state(json_t *node, const char *state, rd_time now);

/* Takes an active node out of service for a fault its agent found (not
 * staged): maintenance, or draining while workers remain, with
 * maintenance_reason `reason` and maintenance_detail `detail` (may be
 * NULL).  A node already out of service keeps its state and reason.
 * `node maintenance NAME off` brings it back. */
void node_take_out(json_t *node, const char *reason, const char *detail, rd_time now);

#endif
