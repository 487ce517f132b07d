/* cloud_node.c - the per-node half of a cloud round (see cloud.h): the
 * storage node, provisioning and releasing ephemeral nodes, reconciling node
 * states with the instances GCP lists, and the round's report.
 *
 * Every node change is one guarded step (node_step): re-read the node,
 * apply, commit; a concurrent change makes it read and decide again.
 * Releasing first takes the node out of service (maintenance, with
 * release_started_at) so the scheduler cannot place work on an instance about
 * to be deleted; an interrupted release finishes in the next round.
 */
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "cloud_int.h"
#include "doc.h"
#include "fleet.h"
#include "job.h"
#include "keyspace.h"
#include "node.h"
#include "quota.h"

/* ---- the report -------------------------------------------------------- */

json_t *cloud_report_new(void)
{
    return json_pack("{s:s, s:[], s:[], s:[], s:[], s:[], s:[], s:[], s:[], s:[], s:[]}", "name", "cloud sync", "regions",
                     "created", "activated", "released", "offline", "orphaned", "pending", "quotas", "removed_regions",
                     "errors");
}

void cloud_report_add(cloud_round *r, const char *list, json_t *entry)
{
    if (!entry)
        return;
    json_t *e = json_pack("{s:s}", "region", r->name);
    json_object_update(e, entry);
    json_decref(entry);
    json_array_append_new(json_object_get(r->report, list), e);
}

/* An error entry: what failed (err's message), its class, whether the next
 * round may succeed without anyone changing anything. */
void cloud_report_error(cloud_round *r, const char *node, const gcp_fault *f, const rd_err *err)
{
    const char *code = f && f->status != GCP_OK ? gcp_status_name(f->status) : rd_code_name(err->code);
    cloud_report_add(r, "errors", json_pack("{s:s?, s:s, s:s, s:b}", "node", node, "code", code, "message", err->msg,
                                      "retry", f && f->status != GCP_OK ? gcp_status_transient(f->status) : 1));
}

/* ---- instances as listed ----------------------------------------------- */

const char *cloud_last_part(const char *s)
{
    const char *slash = s ? strrchr(s, '/') : NULL;
    return slash ? slash + 1 : s ? s : "";
}

const char *cloud_inst_status(cloud_round *r, const char *inst)
{
    return doc_str(json_object_get(r->instances, inst), "status");
}

const char *cloud_inst_zone(cloud_round *r, const char *inst)
{
    return doc_str(json_object_get(r->instances, inst), "zone");
}

void cloud_inst_set(cloud_round *r, const char *inst, const char *zone, const char *status, const char *node)
{
    if (!*status)
        json_object_del(r->instances, inst);
    else
        json_object_set_new(r->instances, inst, json_pack("{s:s, s:s, s:s}", "zone", zone, "status", status, "node", node));
}

static int status_stopped(const char *s)
{
    return strcmp(s, "TERMINATED") == 0 || strcmp(s, "STOPPED") == 0 || strcmp(s, "SUSPENDED") == 0;
}

static int status_transitional(const char *s)
{
    return *s && strcmp(s, "RUNNING") != 0 && !status_stopped(s);
}

/* ---- node steps -------------------------------------------------------- */

typedef rd_code (*node_step_fn)(cloud_round *r, json_t *node, void *arg, int *put, rd_err *err);

/* Re-reads node (guarded), lets fn change it and stage more, commits as one
 * step; a concurrent change makes it read and decide again. */
static rd_code node_step(cloud_round *r, const char *name, node_step_fn fn, void *arg, rd_err *err)
{
    cmd_ctx *ctx = r->ctx;
    for (int attempt = 0; attempt < CLOUD_STEP_RETRIES; attempt++) {
        json_t *node = NULL;
        int put = 0;
        tx_reset(ctx->tx);
        json_t *before = NULL;
        rd_code rc = node_get_any(ctx, name, &node, err);
        if (rc == RD_OK && !(before = json_deep_copy(node)))
            rc = rd_fail(err, RD_ENOMEM, "out of memory");
        if (rc == RD_OK)
            rc = fn(r, node, arg, &put, err);
        if (rc == RD_OK && put && !json_equal(before, node))   /* unchanged documents are not rewritten */
            rc = node_put(ctx, node, err);
        else
            json_decref(node);
        json_decref(before);
        if (rc == RD_OK)
            rc = cmd_commit_step(ctx, err);
        tx_reset(ctx->tx);
        if (rc != RD_ECONFLICT)
            return rc;
    }
    return rd_fail(err, RD_ECONFLICT, "cloud sync: node '%s' kept changing under the round; the next cloud sync tries again",
                   name);
}

static int node_removed(const json_t *node)
{
    return strcmp(doc_str(node, "state"), "removed") == 0;
}

static void note_instance(json_t *node, const char *inst, const char *zone, const char *status)
{
    json_object_set_new(node, "gcp_instance", json_string(inst));
    if (zone && *zone)
        json_object_set_new(node, "gcp_zone", json_string(zone));
    if (status)
        json_object_set_new(node, "gcp_status", json_string(status));
}

typedef struct {
    const char *inst, *zone, *status;
    int changed;           /* out: the node's state changed */
    int awaiting_agent;    /* out: RUNNING, the node waits for its agent to register */
} inst_arg;

/* RUNNING: active, exactly as `node report --instance running`; a node
 * whose agent is required stays provisioning until the agent registers
 * (agent.c), and the time its wait began is noted (cloud_agent_overdue). */
static rd_code step_running(cloud_round *r, json_t *node, void *arg, int *put, rd_err *err)
{
    inst_arg *a = arg;
    if (node_removed(node))
        return RD_OK;
    if (cloud_node_runs_agent(node) && strcmp(doc_str(node, "state"), "provisioning") == 0) {
        char ts[RDTIME_BUFLEN];
        note_instance(node, a->inst, a->zone, "RUNNING");
        json_object_del(node, "gcp_error");
        if (!*doc_str(node, "agent_wait_since"))
            json_object_set_new(node, "agent_wait_since", json_string(rdtime_format(r->ctx->now, ts)));
        a->awaiting_agent = 1;
        *put = 1;
        return RD_OK;
    }
    char before[32];
    snprintf(before, sizeof before, "%s", doc_str(node, "state"));
    rd_code rc = node_apply_instance(r->ctx, node, "running", err);
    if (rc != RD_OK)
        return rc;
    note_instance(node, a->inst, a->zone, "RUNNING");
    json_object_del(node, "gcp_error");
    a->changed = strcmp(before, doc_str(node, "state")) != 0;
    *put = 1;
    if (strcmp(doc_str(node, "role"), "storage") == 0 && strcmp(doc_str(node, "state"), "active") == 0) {
        json_t *region = NULL;
        char key[RD_KEY_MAX];
        rc = tx_get(r->ctx->tx, tx_key(key, KEY_REGIONS "%s", doc_str(node, "region")), &region, err);
        if (rc == RD_OK && region && strcmp(doc_str(region, "state"), "active") != 0) {
            json_object_set_new(region, "state", json_string("active"));
            return tx_put(r->ctx->tx, key, region, err);
        }
        json_decref(region);
    }
    return rc;
}

/* Gone or stopped: offline, as `node report --instance terminated`. */
static rd_code step_offline(cloud_round *r, json_t *node, void *arg, int *put, rd_err *err)
{
    inst_arg *a = arg;
    if (node_removed(node) || strcmp(doc_str(node, "state"), "offline") == 0)
        return RD_OK;
    rd_code rc = node_apply_instance(r->ctx, node, "terminated", err);
    if (rc != RD_OK)
        return rc;
    note_instance(node, a->inst, a->zone, *a->status ? a->status : "MISSING");
    a->changed = 1;
    *put = 1;
    return RD_OK;
}

/* Records facts about the instance (zone, status, last error) on the node. */
static rd_code step_note(cloud_round *r, json_t *node, void *arg, int *put, rd_err *err)
{
    (void)r;
    (void)err;
    if (node_removed(node))
        return RD_OK;
    json_object_update(node, (json_t *)arg);
    *put = 1;
    return RD_OK;
}

static void note(cloud_round *r, const char *name, json_t *fields)
{
    rd_err e;
    if (fields && node_step(r, name, step_note, fields, &e) != RD_OK)
        cloud_report_error(r, name, NULL, &e);
    json_decref(fields);
}

/* Gives back what an ephemeral node counted against the region's quotas
 * (sched_burst.c counted it when the node was recorded). */
static rd_code quota_give_back(cloud_round *r, const json_t *node, rd_err *err)
{
    const gpu_type *g = catalog_gpu(doc_str(node, "gpu_type"));
    int64_t gpus = doc_int(node, "gpu_count");
    char key[RD_KEY_MAX];
    json_t *quota = NULL;
    if (!json_is_true(json_object_get(node, "ephemeral")) || !g || !g->gcp_quota_metric || gpus <= 0)
        return RD_OK;
    rd_code rc = tx_get(r->ctx->tx, tx_key(key, KEY_QUOTAS "%s", doc_str(node, "region")), &quota, err);
    if (rc != RD_OK || !quota)
        return rc;
    struct { const char *metric; int64_t amount; } use[] = {
        { g->gcp_quota_metric, gpus },
        { QUOTA_CPUS, gpus * g->gcp_cpus_per_job },
        { QUOTA_LOCAL_SSD, gpus * QUOTA_SSD_PER_JOB_GB },
    };
    for (size_t i = 0; i < sizeof use / sizeof use[0]; i++) {
        json_t *m = json_object_get(json_object_get(quota, "metrics"), use[i].metric);
        if (m) {
            int64_t left = doc_int(m, "usage") - use[i].amount;
            json_object_set_new(m, "usage", json_integer(left > 0 ? left : 0));
        }
    }
    return tx_put(r->ctx->tx, key, quota, err);
}

/* Workers still pointing at the node wait for the scheduler again. */
static rd_code job_forget_node(cloud_round *r, const json_t *node, const char *why, rd_err *err)
{
    const char *id = doc_str(node, "for_job");
    json_t *job = NULL, *w;
    size_t i;
    int changed = 0;
    if (!*id)
        return RD_OK;
    rd_code rc = job_get(r->ctx, id, &job, err);
    if (rc == RD_ENOTFOUND) {
        rd_err_clear(err);
        return RD_OK;
    }
    if (rc != RD_OK)
        return rc;
    json_array_foreach(json_object_get(job, "workers"), i, w)
        if (strcmp(doc_str(w, "pending_node"), doc_str(node, "name")) == 0) {
            json_object_del(w, "pending_node");
            if (strcmp(doc_str(w, "state"), "waiting_gpus") == 0)
                json_object_set_new(job, "reason", json_string(why));
            changed = 1;
        }
    if (changed)
        return job_put(r->ctx, job, err);
    json_decref(job);
    return RD_OK;
}

typedef struct {
    const char *reason;    /* idle, not_needed, quota_exceeded */
    const char *why;       /* the job's reason for a worker sent back */
    int force;             /* release even when not idle (still: never with workers) */
    int go;                /* out: proceed */
} release_arg;

/* 1 when an ephemeral node has been idle for longer than idle_release_s. */
int cloud_node_idle(cloud_round *r, const json_t *node)
{
    const char *s = doc_str(node, "state");
    if (!json_is_true(json_object_get(node, "ephemeral")) || strcmp(doc_str(node, "role"), "compute") != 0 ||
        json_array_size(json_object_get(node, "workers")) > 0 ||
        (strcmp(s, "active") != 0 && strcmp(s, "maintenance") != 0 && strcmp(s, "offline") != 0))
        return 0;
    if (*doc_str(node, "release_started_at"))
        return 1;
    const char *last = doc_str(node, "last_used_at");
    if (!*last)
        last = doc_str(node, "state_changed_at");
    if (!*last)
        last = doc_str(node, "created_at");
    rd_time t = 0;
    if (rdtime_parse("last_used_at", last, &t, NULL) != RD_OK)
        return 0;
    json_t *idle = json_object_get(r->region, "idle_release_s");
    int64_t limit = json_is_integer(idle) && json_integer_value(idle) > 0 ? json_integer_value(idle)
                                                                         : CLOUD_DEFAULT_IDLE_RELEASE_S;
    return r->ctx->now - t >= limit;
}

/* Phase 1 of a release: out of service, so nothing is placed on it. */
static rd_code step_release_begin(cloud_round *r, json_t *node, void *arg, int *put, rd_err *err)
{
    release_arg *a = arg;
    (void)err;
    a->go = 0;
    if (node_removed(node) || json_array_size(json_object_get(node, "workers")) > 0 ||
        (!a->force && !cloud_node_idle(r, node)))
        return RD_OK;
    a->go = 1;
    if (*doc_str(node, "release_started_at") && strcmp(doc_str(node, "state"), "active") != 0)
        return RD_OK;
    char ts[RDTIME_BUFLEN];
    rdtime_format(r->ctx->now, ts);
    if (strcmp(doc_str(node, "state"), "active") == 0) {
        json_object_set_new(node, "state", json_string("maintenance"));
        json_object_set_new(node, "state_changed_at", json_string(ts));
    }
    json_object_set_new(node, "release_started_at", json_string(ts));
    json_object_set_new(node, "release_reason", json_string(a->reason));
    *put = 1;
    return RD_OK;
}

/* Phase 3: the node is removed, its quota given back, its worker freed. */
static rd_code step_release_end(cloud_round *r, json_t *node, void *arg, int *put, rd_err *err)
{
    release_arg *a = arg;
    (void)put;
    a->go = 0;
    if (node_removed(node) || json_array_size(json_object_get(node, "workers")) > 0)
        return RD_OK;
    a->go = 1;
    rd_code rc = node_stage_removed(r->ctx, doc_str(node, "name"), err);
    cloud_forget_credentials(r->ctx, node, err, &rc);   /* the instance's agent may no longer log in */
    if (rc == RD_OK)
        rc = quota_give_back(r, node, err);
    if (rc == RD_OK)
        rc = job_forget_node(r, node, a->why, err);
    return rc;
}

/* Deletes the node's instance (when it has one) and removes the node. */
static void release_node(cloud_round *r, const json_t *snap, const char *reason, const char *why)
{
    const char *name = doc_str(snap, "name");
    char inst[GCP_INSTANCE_NAME_MAX + 1], zone[64];
    release_arg a = { reason, why, strcmp(reason, "idle") != 0, 0 };
    gcp_fault f;
    rd_err e;
    gcp_instance_name(name, inst);
    if (strcmp(doc_str(snap, "state"), "provisioning") != 0) {
        if (node_step(r, name, step_release_begin, &a, &e) != RD_OK) {
            cloud_report_error(r, name, NULL, &e);
            return;
        }
        if (!a.go)
            return;
    }
    snprintf(zone, sizeof zone, "%s", cloud_inst_zone(r, inst));
    if (*cloud_inst_status(r, inst)) {
        json_t *op = NULL;
        rd_code rc = gcp_delete_instance(r->gcp, zone, inst, &op, &f, &e);
        if (rc == RD_OK) {
            char what[200];
            snprintf(what, sizeof what, "instances.delete %s in %s", inst, zone);
            rc = gcp_wait_operation(r->gcp, op, what, CLOUD_OP_DEADLINE_MS, &f, &e);
        }
        json_decref(op);
        if (rc != RD_OK && f.status != GCP_NOT_FOUND) {
            cloud_report_error(r, name, &f, &e);
            note(r, name, json_pack("{s:s}", "gcp_error", e.msg));
            return;
        }
        cloud_inst_set(r, inst, zone, "", name);
    }
    if (node_step(r, name, step_release_end, &a, &e) != RD_OK)
        cloud_report_error(r, name, NULL, &e);
    else if (a.go)
        cloud_report_add(r, "released", json_pack("{s:s, s:s, s:s}", "node", name, "instance", inst, "reason", reason));
}

/* 1 while a worker of the node's job still waits for this node. */
static int node_needed(cloud_round *r, const json_t *node)
{
    json_t *job = NULL, *w;
    size_t i;
    int needed = 0;
    if (!json_is_true(json_object_get(node, "ephemeral")))
        return 1;
    rd_code rc = job_get(r->ctx, doc_str(node, "for_job"), &job, NULL);
    tx_reset(r->ctx->tx);
    if (rc != RD_OK)
        return rc != RD_ENOTFOUND;
    json_array_foreach(json_object_get(job, "workers"), i, w)
        if (strcmp(doc_str(w, "pending_node"), doc_str(node, "name")) == 0 &&
            strcmp(doc_str(w, "state"), "waiting_gpus") == 0)
            needed = 1;
    json_decref(job);
    return needed;
}

/* ---- creating instances ------------------------------------------------ */

typedef struct {
    const json_t *node;
    const char *role;
    char machine[64];
    const char *accelerator;
    int accel_count;
    int local_ssd;
    int data_disk_gb;
    int agent;             /* the instance runs the node's agent (cloud_agent.c) */
} want_spec;

/* Zones to try: the preferred one (the storage node's), then the region's. */
static size_t zone_order(cloud_round *r, const char *preferred, const char *out[16])
{
    size_t n = 0;
    if (preferred && *preferred)
        out[n++] = preferred;
    for (size_t z = 0; r->info->zones[z] && n < 16; z++)
        if (!preferred || strcmp(r->info->zones[z], preferred) != 0)
            out[n++] = r->info->zones[z];
    return n;
}

/* Tries the zones in order: create_instance's loop. */
static rd_code create_in_zones(cloud_round *r, const want_spec *w, const char **zones, size_t nz, const char *inst,
                               const char *script, char zone_out[64], char status[32], char *tried, size_t tried_len,
                               gcp_fault *f, rd_err *e)
{
    const char *name = doc_str(w->node, "name");
    char what[160];
    for (size_t z = 0; z < nz; z++) {
        char key[160];
        snprintf(key, sizeof key, "%s %s", zones[z], w->machine);
        snprintf(tried + strlen(tried), tried_len - strlen(tried), "%s%s", *tried ? ", " : "", zones[z]);
        if (json_object_get(r->exhausted, key))
            continue;
        gcp_instance_spec spec = { inst, zones[z], name, r->name, w->role, w->machine, w->accelerator,
                                   w->accel_count, w->local_ssd, w->data_disk_gb,
                                   w->agent ? doc_str(r->region, "image") : NULL, script };
        json_t *body = gcp_instance_body(&spec), *op = NULL;
        if (!body)
            return rd_fail(e, RD_ENOMEM, "out of memory");
        rd_code rc = gcp_insert_instance(r->gcp, zones[z], body, &op, f, e);
        json_decref(body);
        snprintf(zone_out, 64, "%s", zones[z]);
        int existed = rc != RD_OK && f->status == GCP_ALREADY_EXISTS;
        if (rc == RD_OK) {
            cloud_inst_set(r, inst, zones[z], "PROVISIONING", name);
            snprintf(what, sizeof what, "instances.insert %s in %s", inst, zones[z]);
            rc = gcp_wait_operation(r->gcp, op, what, CLOUD_OP_DEADLINE_MS, f, e);
            json_decref(op);
            if (rc != RD_OK && f->status != GCP_TIMEOUT)
                cloud_inst_set(r, inst, zones[z], "", name);
            if (rc != RD_OK && f->status == GCP_ALREADY_EXISTS)
                existed = 1;
        }
        if (rc == RD_OK || existed) {
            /* An insert repeated after a lost answer finds its own instance. */
            rc = gcp_wait_instance(r->gcp, zones[z], inst, CLOUD_OP_DEADLINE_MS, status, f, e);
            if (rc != RD_OK)
                return rc;
            cloud_inst_set(r, inst, zones[z], status, name);
            cloud_report_add(r, "created", json_pack("{s:s, s:s, s:s, s:s, s:b}", "node", name, "instance", inst, "zone",
                                               zones[z], "machine_type", w->machine, "existed", existed));
            return RD_OK;
        }
        if (f->status != GCP_ZONE_EXHAUSTED)
            return rc;
        json_object_set_new(r->exhausted, key, json_true());
    }
    f->status = GCP_ZONE_EXHAUSTED;
    snprintf(f->reason, sizeof f->reason, "ZONE_RESOURCE_POOL_EXHAUSTED");
    return rd_fail(e, RD_EINVAL, "gcp %s: instances.insert %s failed: ZONE_RESOURCE_POOL_EXHAUSTED in every zone tried "
                   "(%s); the next cloud sync tries again", r->gcp_region, inst, tried);
}

/* Creates the instance of w->node in the first zone with capacity and waits
 * for it; *status is its status afterwards ("" when unknown).  A failure is
 * classified in *f and described in *e. */
static rd_code create_instance(cloud_round *r, const want_spec *w, const char *preferred, char zone_out[64],
                               char status[32], gcp_fault *f, rd_err *e)
{
    const char *name = doc_str(w->node, "name"), *zones[16];
    char inst[GCP_INSTANCE_NAME_MAX + 1], tried[256] = "";
    size_t nz = zone_order(r, preferred, zones);
    char *script = NULL;
    gcp_instance_name(name, inst);
    status[0] = zone_out[0] = '\0';
    memset(f, 0, sizeof *f);
    if (w->agent) {
        rd_code rc = cloud_agent_script(r, w->node, &script, e);
        if (rc != RD_OK)
            return rc;
    }
    rd_code rc = create_in_zones(r, w, zones, nz, inst, script, zone_out, status, tried, sizeof tried, f, e);
    if (script)
        explicit_bzero(script, strlen(script));   /* it may hold the node's password */
    free(script);
    return rc;
}


/* Brings the node's instance to RUNNING when it can: waits out transitions,
 * starts a stopped one, creates a missing one.  *status afterwards. */
static rd_code drive_instance(cloud_round *r, const want_spec *w, const char *preferred, char zone[64],
                              char status[32], gcp_fault *f, rd_err *e)
{
    char inst[GCP_INSTANCE_NAME_MAX + 1];
    const char *name = doc_str(w->node, "name");
    rd_code rc = RD_OK;
    gcp_instance_name(name, inst);
    snprintf(zone, 64, "%s", cloud_inst_zone(r, inst));
    snprintf(status, 32, "%s", cloud_inst_status(r, inst));
    memset(f, 0, sizeof *f);
    if (status_transitional(status))
        rc = gcp_wait_instance(r->gcp, zone, inst, CLOUD_OP_DEADLINE_MS, status, f, e);
    if (rc == RD_OK && status_stopped(status)) {
        json_t *op = NULL;
        char what[160];
        snprintf(what, sizeof what, "instances.start %s in %s", inst, zone);
        rc = gcp_start_instance(r->gcp, zone, inst, &op, f, e);
        if (rc == RD_OK)
            rc = gcp_wait_operation(r->gcp, op, what, CLOUD_OP_DEADLINE_MS, f, e);
        json_decref(op);
        if (rc == RD_OK)
            rc = gcp_wait_instance(r->gcp, zone, inst, CLOUD_OP_DEADLINE_MS, status, f, e);
    }
    if (rc == RD_OK && !*status)
        rc = create_instance(r, w, preferred, zone, status, f, e);
    if (rc == RD_OK)
        cloud_inst_set(r, inst, zone, status, name);
    return rc;
}

/* After drive_instance: active when RUNNING, else noted as pending. */
static void settle(cloud_round *r, const char *name, const char *zone, const char *status)
{
    char inst[GCP_INSTANCE_NAME_MAX + 1];
    rd_err e;
    gcp_instance_name(name, inst);
    if (strcmp(status, "RUNNING") == 0) {
        inst_arg a = { inst, zone, status, 0, 0 };
        if (node_step(r, name, step_running, &a, &e) != RD_OK)
            cloud_report_error(r, name, NULL, &e);
        else if (a.changed)
            cloud_report_add(r, "activated", json_pack("{s:s, s:s, s:s}", "node", name, "instance", inst, "zone", zone));
        else if (a.awaiting_agent)
            cloud_report_add(r, "pending", json_pack("{s:s, s:s, s:s, s:s, s:s}", "node", name, "instance", inst, "zone",
                                                     zone, "status", status, "waiting_for", "agent"));
        return;
    }
    cloud_report_add(r, "pending", json_pack("{s:s, s:s, s:s, s:s}", "node", name, "instance", inst, "zone", zone, "status",
                                       *status ? status : "UNKNOWN"));
    note(r, name, json_pack("{s:s, s:s, s:s}", "gcp_instance", inst, "gcp_zone", zone, "gcp_status",
                            *status ? status : "UNKNOWN"));
}

static void mark_offline(cloud_round *r, const char *name, const char *inst, const char *zone, const char *status)
{
    inst_arg a = { inst, zone, status, 0, 0 };
    rd_err e;
    if (node_step(r, name, step_offline, &a, &e) != RD_OK)
        cloud_report_error(r, name, NULL, &e);
    else if (a.changed)
        cloud_report_add(r, "offline", json_pack("{s:s, s:s, s:s}", "node", name, "instance", inst, "reason",
                                           *status ? status : "instance missing"));
}

/* ---- the storage node and compute nodes -------------------------------- */

/* No instance is created, for a reason only a person can change: said once
 * per round (a named region's cloud sync fails with it). */
static void refused(cloud_round *r, const char *code, const char *why)
{
    if (!r->refused)
        cloud_report_add(r, "errors", json_pack("{s:s, s:s, s:b}", "code", code, "message", why, "retry", 0));
    r->refused = 1;
}

void cloud_ensure_storage(cloud_round *r, const json_t *node)
{
    const char *name = doc_str(node, "name");
    const storage_class *sc = catalog_storage_class(doc_str(r->region, "storage_class"));
    char inst[GCP_INSTANCE_NAME_MAX + 1], zone[64], status[32];
    gcp_fault f;
    rd_err e;
    want_spec w = { node, "storage", "", NULL, 0, 0, sc ? sc->disk_gb : 1000, 0 };
    snprintf(w.machine, sizeof w.machine, "%s", sc ? sc->machine_type : "n2-standard-2");
    gcp_instance_name(name, inst);
    const char *listed = cloud_inst_status(r, inst), *state = doc_str(node, "state");
    if ((!*listed || status_stopped(listed)) && strcmp(state, "provisioning") != 0)
        mark_offline(r, name, inst, cloud_inst_zone(r, inst), listed);
    /* A region whose nodes need agents is no use on a store they cannot reach. */
    const char *code = "";
    char why[600];
    if (!*listed && !cloud_may_create(r, cloud_region_runs_agents(r->region), &code, why, sizeof why)) {
        refused(r, code, why);
        return;
    }
    if (drive_instance(r, &w, NULL, zone, status, &f, &e) != RD_OK) {
        cloud_report_error(r, name, &f, &e);
        note(r, name, json_pack("{s:s}", "gcp_error", e.msg));
        return;
    }
    settle(r, name, zone, status);
}

/* A quota refusal: the node is dropped and its worker goes back to the
 * scheduler, which applies the project's choice once quotas are refreshed. */
static void drop_for_quota(cloud_round *r, const json_t *node, const rd_err *cause)
{
    char why[600];
    snprintf(why, sizeof why, "GCP refused the burst node: %s", cause->msg);
    release_node(r, node, "quota_exceeded", why);
}

/* Takes a node whose agent never registered out of service (guarded: it
 * may have registered meanwhile), so nothing is placed there while its
 * instance is deleted. */
static rd_code step_agent_timeout(cloud_round *r, json_t *node, void *arg, int *put, rd_err *err)
{
    int *go = arg;
    char ts[RDTIME_BUFLEN];
    (void)err;
    *go = !node_removed(node) && json_array_size(json_object_get(node, "workers")) == 0 &&
          strcmp(doc_str(node, "state"), "provisioning") == 0;
    if (!*go)
        return RD_OK;
    rdtime_format(r->ctx->now, ts);
    json_object_set_new(node, "state", json_string("maintenance"));
    json_object_set_new(node, "state_changed_at", json_string(ts));
    json_object_set_new(node, "release_started_at", json_string(ts));
    json_object_set_new(node, "release_reason", json_string("agent_timeout"));
    *put = 1;
    return RD_OK;
}

/* The instance ran for the region's idle_release_s and its agent never
 * registered (a broken image, a store it cannot reach): it is deleted and
 * the node removed, and the worker waiting on it goes back to the
 * scheduler, which may burst again.  Its release finishes in a later round
 * if this one is cut short (cloud_node_idle: release_started_at). */
static void release_agent_timeout(cloud_round *r, const json_t *node)
{
    const char *name = doc_str(node, "name");
    char why[400];
    int go = 0;
    rd_err e;
    if (node_step(r, name, step_agent_timeout, &go, &e) != RD_OK) {
        cloud_report_error(r, name, NULL, &e);
        return;
    }
    if (!go)
        return;
    snprintf(why, sizeof why, "the agent of GCP node %s never registered; waiting for the next scheduling pass", name);
    json_t *snap = json_deep_copy(node);
    json_object_set_new(snap, "state", json_string("maintenance"));
    release_node(r, snap, "agent_timeout", why);
    json_decref(snap);
}

void cloud_provision_node(cloud_round *r, const json_t *node, const char *storage_zone)
{
    const char *name = doc_str(node, "name");
    const gpu_type *g = catalog_gpu(doc_str(node, "gpu_type"));
    char zone[64], status[32];
    gcp_fault f;
    rd_err e;
    if (!node_needed(r, node)) {
        release_node(r, node, "not_needed", "");
        return;
    }
    if (cloud_agent_overdue(r, node)) {
        release_agent_timeout(r, node);
        return;
    }
    char inst[GCP_INSTANCE_NAME_MAX + 1];
    gcp_instance_name(name, inst);
    const char *code = "";
    char why[600];
    if (!*cloud_inst_status(r, inst) && !cloud_may_create_compute(r, node, &code, why, sizeof why)) {
        refused(r, code, why);
        return;
    }
    int gpus = (int)doc_int(node, "gpu_count");
    want_spec w = { node, "compute", "", NULL, 0, gpus, 0, cloud_node_runs_agent(node) };
    if (g && g->gcp_accelerator && gpus > 0) {
        w.accelerator = g->gcp_accelerator;
        gcp_machine_type(g->gcp_accelerator, gpus, g->gcp_cpus_per_job, w.machine, &w.accel_count);
    } else {
        snprintf(w.machine, sizeof w.machine, "n2-standard-%d", doc_int(node, "cpu_cores") > 1 ? (int)doc_int(node, "cpu_cores") * 2 : 2);
    }
    if (drive_instance(r, &w, storage_zone, zone, status, &f, &e) != RD_OK) {
        cloud_report_error(r, name, &f, &e);
        if (f.status == GCP_QUOTA_EXCEEDED && json_is_true(json_object_get(node, "ephemeral"))) {
            drop_for_quota(r, node, &e);
        } else if (f.status == GCP_TIMEOUT) {
            settle(r, name, zone, "PROVISIONING");
        } else {
            note(r, name, json_pack("{s:s}", "gcp_error", e.msg));
        }
        return;
    }
    settle(r, name, zone, status);
}

/* A live node past provisioning: offline when its instance is gone or
 * stopped, active again when it runs. */
void cloud_reconcile_node(cloud_round *r, const json_t *node)
{
    const char *name = doc_str(node, "name"), *state = doc_str(node, "state");
    char inst[GCP_INSTANCE_NAME_MAX + 1];
    gcp_instance_name(name, inst);
    const char *status = cloud_inst_status(r, inst);
    if (!*status || status_stopped(status))
        mark_offline(r, name, inst, cloud_inst_zone(r, inst), status);
    else if (strcmp(status, "RUNNING") == 0 && strcmp(state, "offline") == 0)
        settle(r, name, cloud_inst_zone(r, inst), status);
}

void cloud_release_idle(cloud_round *r, const json_t *node)
{
    release_node(r, node, "idle", "its GCP node was released idle before the worker started; waiting for the next scheduling pass");
}

int cloud_release_storage(cloud_round *r, const json_t *node)
{
    size_t before = json_array_size(json_object_get(r->report, "released"));
    release_node(r, node, "region_removed", "");
    return json_array_size(json_object_get(r->report, "released")) > before;
}
