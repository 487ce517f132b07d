/* sched_burst.c - cloud bursting: a worker that fits nowhere on existing nodes may
 * get an ephemeral compute node in one of its project owner's GCP regions.
 *
 * "Own the base, rent the burst" (seed 003): the scheduler records the node
 * (state provisioning, ephemeral) and counts its GPUs, CPUs and local SSD
 * against the region's quotas, so the runnable-jobs formula of seed 000 keeps
 * holding across passes; the cloud driver creates the instance and turns the
 * node active, and the next pass starts the worker there.  Until then the
 * worker waits visibly on it (its "pending_node").  When the owner's GCP
 * regions offer the GPU type but their quota is exhausted, the project's
 * setting decides (seed 000): the job fails, or it keeps waiting for another
 * location (the default).
 */
#include "sched_burst.h"

#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "doc.h"
#include "fleet.h"
#include "job.h"
#include "keyspace.h"
#include "node.h"
#include "quota.h"

/* 1 when the GCP region can take jobs: its storage node is active. */
static int region_ready(cmd_ctx *ctx, const json_t *region)
{
    json_t *n = NULL;
    if (strcmp(doc_str(region, "provider"), "gcp") != 0 ||
        node_get(ctx, doc_str(region, "storage_node"), &n, NULL) != RD_OK)
        return 0;
    int ready = strcmp(doc_str(n, "state"), "active") == 0;
    json_decref(n);
    return ready;
}

/* Adds amount to a quota metric's usage. */
static void quota_use(json_t *metrics, const char *metric, int64_t amount)
{
    json_t *m = json_object_get(metrics, metric);
    if (!m) {
        m = json_pack("{s:I, s:I}", "limit", (json_int_t)0, "usage", (json_int_t)0);
        json_object_set_new(metrics, metric, m);
        m = json_object_get(metrics, metric);   /* NULL when that failed (and freed it) */
    }
    json_object_set_new(m, "usage", json_integer(doc_int(m, "usage") + amount));
}

static rd_code stage_burst(cmd_ctx *ctx, json_t *job, size_t w, const json_t *region, const gpu_type *g,
                           int64_t gpus, json_t *quota, rd_err *err)
{
    char name[RD_KEY_MAX], key[RD_KEY_MAX], ts[RDTIME_BUFLEN];
    const char *rname = doc_str(region, "name");
    snprintf(name, sizeof name, "%s-%s-%s-%zu", rname, g->id, doc_str(job, "id") + 4, w);
    rdtime_format(ctx->now, ts);
    json_t *node = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:b, s:b, s:s, s:s, s:I, s:i, s:I, s:[], s:n, s:[], s:b, "
                             "s:s, s:s, s:n, s:s, s:s, s:I}",
                             "name", name, "region", rname, "owner", doc_str(region, "owner"), "provider", "gcp",
                             "role", "compute", "minion_id", "", "upnp", 0, "mining", 0, "state", "provisioning",
                             "gpu_type", g->id, "gpu_count", (json_int_t)gpus, "gpus_used", 0, "disk_gb",
                             (json_int_t)(gpus * QUOTA_SSD_PER_JOB_GB), "unmet", "inventory", "workers", "ephemeral", 1,
                             "created_at", ts, "state_changed_at", ts, "last_used_at", "for_job", doc_str(job, "id"),
                             "accelerator", g->gcp_accelerator, "cpu_cores", (json_int_t)(gpus * g->gcp_cpus_per_job / 2));
    if (!node)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    /* The region's choice when the node is made (spec/execution.md §3): an
     * agent starts the worker, or (none, and regions made before agents
     * ran on cloud nodes) the node is manual and placement is running. */
    const char *mode = doc_str(region, "agent_mode");
    json_object_set_new(node, "agent_mode", json_string(strcmp(mode, "required") == 0 ? "required" : "none"));
    json_t *metrics = json_object_get(quota, "metrics");
    quota_use(metrics, g->gcp_quota_metric, gpus);
    quota_use(metrics, QUOTA_CPUS, gpus * g->gcp_cpus_per_job);
    quota_use(metrics, QUOTA_LOCAL_SSD, gpus * QUOTA_SSD_PER_JOB_GB);
    json_t *worker = json_array_get(json_object_get(job, "workers"), w);
    json_object_set_new(worker, "pending_node", json_string(name));
    json_object_set_new(job, "reason", json_sprintf("waiting for GCP node %s (provisioning)", name));
    rd_code rc = node_put(ctx, node, err);
    if (rc == RD_OK)
        rc = tx_put(ctx->tx, tx_key(key, KEY_QUOTAS "%s", rname), json_incref(quota), err);
    if (rc == RD_OK)
        rc = job_put(ctx, json_incref(job), err);
    return rc;
}

/* The project's choice when GCP quota runs out: "fail" or "move". */
static rd_code exhausted_policy(cmd_ctx *ctx, const json_t *job, int *fail_job, rd_err *err)
{
    char key[RD_KEY_MAX];
    json_t *project = NULL;
    rd_code rc = tx_get(ctx->tx, tx_key(key, KEY_PROJECTS "%s/%s", doc_str(job, "project_owner"),
                                        doc_str(job, "project")), &project, err);
    *fail_job = rc == RD_OK && strcmp(doc_str(project, "on_quota_exhausted"), "fail") == 0;
    json_decref(project);
    return rc;
}

static rd_code fail_job(cmd_ctx *ctx, json_t *job, rd_err *err)
{
    size_t i;
    json_t *wk;
    json_array_foreach(json_object_get(job, "workers"), i, wk)
        if (strcmp(doc_str(wk, "state"), "waiting_gpus") == 0)
            json_object_set_new(wk, "state", json_string("failed"));
    json_object_set_new(job, "reason", json_string("quota_exhausted"));
    job_update_state(job);
    return job_put(ctx, json_incref(job), err);
}

/* What GCP region rname offers a worker of gpus GPUs of job: *offered when
 * it is the project owner's, ready, not ruled out by the job's pin, and has
 * a type the job accepts at or under its max_price; then *fit is the first
 * such type whose quota still has room (NULL: all used up) and *quota the
 * region's quota document (read guarded; a new one when there is none). */
static rd_code region_offer(cmd_ctx *ctx, const char *rname, const json_t *region, const json_t *job, int64_t gpus,
                            int *offered, const gpu_type **fit, json_t **quota, rd_err *err)
{
    const json_t *res = json_object_get(job, "resources");
    const char *pin = doc_str(job, "region_pin");
    *offered = 0;
    *fit = NULL;
    *quota = NULL;
    if (strcmp(doc_str(region, "owner"), doc_str(job, "project_owner")) != 0 || !region_ready(ctx, region) ||
        (*pin && strcmp(pin, rname) != 0))
        return RD_OK;
    const gcp_region_info *info = catalog_gcp_region(doc_str(region, "gcp_region"));
    size_t k;
    json_t *t;
    json_array_foreach(json_object_get(res, "gpu_types"), k, t) {
        const gpu_type *g = catalog_gpu(json_string_value(t));
        if (!g || !g->gcp_quota_metric || !info || !catalog_gcp_region_has_gpu(info, g->id))
            continue;
        json_t *max = json_object_get(res, "max_price_ucr");
        if (json_is_integer(max) && g->usage_fee_ucr > json_integer_value(max))
            continue;
        *offered = 1;
        if (!*quota) {
            char key[RD_KEY_MAX];
            rd_code rc = tx_get(ctx->tx, tx_key(key, KEY_QUOTAS "%s", rname), quota, err);
            if (rc != RD_OK)
                return rc;
            if (!*quota)
                *quota = json_pack("{s:s, s:{}}", "name", rname, "metrics");
        }
        /* A worker of n GPUs is n runnable single-GPU jobs' worth of quota. */
        if (quota_runnable_jobs(g, json_object_get(*quota, "metrics")) >= gpus) {
            *fit = g;
            return RD_OK;
        }
    }
    return RD_OK;
}

rd_code sched_burst_quota_blocked(cmd_ctx *ctx, const sched_snapshot *s, const json_t *job, size_t *regions,
                                  json_t *names, rd_err *err)
{
    int64_t gpus = (doc_int(json_object_get(job, "resources"), "gpus_x100") + 99) / 100;
    const char *rname;
    json_t *region;
    *regions = 0;
    if (gpus == 0)
        return RD_OK;
    json_object_foreach(s->regions, rname, region) {
        int offered = 0;
        const gpu_type *fit = NULL;
        json_t *quota = NULL;
        rd_code rc = region_offer(ctx, rname, region, job, gpus, &offered, &fit, &quota, err);
        json_decref(quota);
        if (rc != RD_OK)
            return rc;
        if (offered && !fit) {
            (*regions)++;
            if (names)
                json_array_append_new(names, json_string(rname));
        }
    }
    return RD_OK;
}

rd_code sched_burst_worker(cmd_ctx *ctx, sched_snapshot *s, const char *id, size_t w, int dry_run, sched_burst_outcome *out,
                     rd_err *err)
{
    json_t *job = NULL;
    *out = SCHED_BURST_NONE;
    rd_code rc = job_get(ctx, id, &job, err);
    if (rc != RD_OK)
        return rc;
    const json_t *res = json_object_get(job, "resources");
    json_t *worker = json_array_get(json_object_get(job, "workers"), w);
    int64_t gpus = (doc_int(res, "gpus_x100") + 99) / 100;
    int offered = 0;
    if (*doc_str(worker, "pending_node")) {
        *out = SCHED_BURST_PENDING;
        goto done;
    }
    if (strcmp(doc_str(worker, "state"), "waiting_gpus") != 0 || gpus == 0)
        goto done;
    const char *rname;
    json_t *region;
    json_object_foreach(s->regions, rname, region) {
        int here = 0;
        const gpu_type *g = NULL;
        json_t *quota = NULL;
        rc = region_offer(ctx, rname, region, job, gpus, &here, &g, &quota, err);
        offered |= here;
        if (rc == RD_OK && g && !dry_run) {
            rc = stage_burst(ctx, job, w, region, g, gpus, quota, err);
            if (rc == RD_OK)
                rc = cmd_commit_step(ctx, err);
        }
        json_decref(quota);
        if (rc != RD_OK)
            goto done;
        if (g) {
            *out = SCHED_BURST_STARTED;
            goto done;
        }
    }
    if (offered) {
        int fail = 0;
        *out = SCHED_BURST_EXHAUSTED;
        rc = exhausted_policy(ctx, job, &fail, err);
        if (rc == RD_OK && fail && !dry_run) {
            rc = fail_job(ctx, job, err);
            if (rc == RD_OK)
                rc = cmd_commit_step(ctx, err);
            *out = SCHED_BURST_FAILED;
        }
    }
done:
    json_decref(job);
    tx_reset(ctx->tx);
    if (rc == RD_ECONFLICT) {   /* a concurrent pass decided for this worker: leave it to the next one */
        *out = SCHED_BURST_NONE;
        rc = RD_OK;
    }
    return rc;
}
