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

/* A provisioning compute node: its instance created and the node activated,
 * or the node released when nobody waits for it any more. */
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

#endif
