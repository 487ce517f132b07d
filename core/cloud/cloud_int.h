/* cloud_int.h - what cloud.c (the round) and cloud_node.c (the nodes)
 * share; not an API. */
#ifndef RD_CLOUD_INT_H
#define RD_CLOUD_INT_H

#include <jansson.h>

#include "catalog.h"
#include "cloud.h"
#include "gcp.h"

#define CLOUD_OP_DEADLINE_MS 180000L
#define CLOUD_STEP_RETRIES 10
#define CLOUD_DEFAULT_IDLE_RELEASE_S 600

typedef struct {
    cmd_ctx *ctx;
    json_t *region;        /* the region document */
    const char *name;      /* rigdeck region name */
    const char *gcp_region;
    const gcp_region_info *info;
    gcp_client *gcp;
    json_t *instances;     /* instance name -> {"zone", "status", "node"} as listed (and changed since) */
    json_t *exhausted;     /* "zone machine-type" -> true: out of capacity this round */
    json_t *report;        /* the result under construction */
    int refused;           /* an instance was not created for a reason only a person can change */
} cloud_round;

/* The result object with its empty lists. */
json_t *cloud_report_new(void);

/* Appends entry (taken) to a list of the report, tagged with the region. */
void cloud_report_add(cloud_round *r, const char *list, json_t *entry);

/* Appends an error entry: err's message, f's class (NULL: a store error). */
void cloud_report_error(cloud_round *r, const char *node, const gcp_fault *f, const rd_err *err);

/* The last path element of a URL ("https://.../zones/us-central1-a"). */
const char *cloud_last_part(const char *s);

/* Status and zone of a listed instance ("" when not listed). */
const char *cloud_inst_status(cloud_round *r, const char *inst);
const char *cloud_inst_zone(cloud_round *r, const char *inst);

/* Records an instance as listed; status "" forgets it. */
void cloud_inst_set(cloud_round *r, const char *inst, const char *zone, const char *status, const char *node);

/* The region's storage node: created, started, activated as needed. */
void cloud_ensure_storage(cloud_round *r, const json_t *node);

/* A provisioning compute node: its instance created (with its agent's
 * startup script when the agent is required) and a manual node activated,
 * or the node released when nobody waits for it any more or its agent
 * never registered. */
void cloud_provision_node(cloud_round *r, const json_t *node, const char *storage_zone);

/* 1 when an ephemeral node is idle past the region's idle_release_s (or its
 * release has begun). */
int cloud_node_idle(cloud_round *r, const json_t *node);

/* Deletes the idle node's instance and removes the node. */
void cloud_release_idle(cloud_round *r, const json_t *node);

/* Deletes the storage node's VM of a region being removed and removes the
 * node; returns 1 once the node is removed. */
int cloud_release_storage(cloud_round *r, const json_t *node);

/* A live node past provisioning: offline when its instance is gone or
 * stopped, active again when it runs. */
void cloud_reconcile_node(cloud_round *r, const json_t *node);

/* ---- the agent of a cloud node (cloud_agent.c) ---------------------- */

/* 1 when the node is a compute node whose agent is required. */
int cloud_node_runs_agent(const json_t *node);

/* 1 when the region makes its cloud nodes run an agent. */
int cloud_region_runs_agents(const json_t *region);

/* 1 when an instance that runs an agent (agent: 1) may be created in this
 * round: not on an SQLite store.  Else 0, with the error's code and why. */
int cloud_may_create(cloud_round *r, int agent, const char **code, char *why, size_t len);

/* The same for a compute node: also, one with an agent needs the region's
 * image. */
int cloud_may_create_compute(cloud_round *r, const json_t *node, const char **code, char *why, size_t len);

/* The startup script of node's instance (a new string in *script): makes
 * or renews node:NAME's credentials on a secured store (committed as a
 * step) and runs `rigdeck agent --node NAME` with them. */
rd_code cloud_agent_script(cloud_round *r, const json_t *node, char **script, rd_err *err);

/* 1 when node's instance has run for the region's idle_release_s without
 * its agent registering (the node still provisioning). */
int cloud_agent_overdue(cloud_round *r, const json_t *node);

/* Stages deleting node:NAME's etcd user of a cloud node being removed
 * (nothing when it has none or *rc is already a failure). */
void cloud_forget_credentials(cmd_ctx *ctx, const json_t *node, rd_err *err, rd_code *rc);

#endif
