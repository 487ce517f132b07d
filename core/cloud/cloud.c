/* cloud.c - `cloud sync` and `quota refresh`: one provisioning round per
 * GCP region (see cloud.h for what a round does).  This file opens the
 * round (the owner's sealed key, the instance listing), walks the region's
 * nodes through cloud_node.c, reports orphaned instances and refreshes the
 * quota document; GCP failures are listed in the result, store failures end
 * the command.
 */
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "cloud_int.h"
#include "doc.h"
#include "fleet.h"
#include "keyspace.h"
#include "quota.h"

/* ---- instances as listed ----------------------------------------------- */

static rd_code round_list(cloud_round *r, gcp_fault *f, rd_err *err)
{
    for (size_t z = 0; r->info->zones[z]; z++) {
        json_t *items = NULL, *inst;
        size_t i;
        rd_code rc = gcp_list_instances(r->gcp, r->info->zones[z], &items, f, err);
        if (rc != RD_OK)
            return rc;
        json_array_foreach(items, i, inst) {
            const char *node = "";
            size_t k;
            json_t *m;
            json_array_foreach(json_object_get(json_object_get(inst, "metadata"), "items"), k, m)
                if (strcmp(doc_str(m, "key"), "rigdeck-node") == 0)
                    node = doc_str(m, "value");
            const char *zone = cloud_last_part(json_string_value(json_object_get(inst, "zone")));
            cloud_inst_set(r, doc_str(inst, "name"), *zone ? zone : r->info->zones[z],
                     *doc_str(inst, "status") ? doc_str(inst, "status") : "UNKNOWN", node);
        }
        json_decref(items);
    }
    return RD_OK;
}

/* ---- quotas ------------------------------------------------------------ */

static int metric_kept(const char *m, const json_t *old)
{
    static const char *const fixed[] = { "CPUS", "N2_CPUS", "LOCAL_SSD_TOTAL_GB", "SSD_TOTAL_GB", "DISKS_TOTAL_GB",
                                         "INSTANCES", NULL };
    for (size_t i = 0; fixed[i]; i++)
        if (strcmp(m, fixed[i]) == 0)
            return 1;
    for (size_t i = 0; i < catalog_gpu_count(); i++)
        if (catalog_gpu_at(i)->gcp_quota_metric && strcmp(m, catalog_gpu_at(i)->gcp_quota_metric) == 0)
            return 1;
    return json_object_get(old, m) != NULL;
}

/* What nodes recorded but not yet created in GCP will use (sched_burst.c's
 * accounting), so the scheduler's arithmetic keeps holding. */
static void add_pending_usage(cloud_round *r, const json_t *nodes, json_t *metrics)
{
    size_t i;
    json_t *n;
    json_array_foreach(nodes, i, n) {
        char inst[GCP_INSTANCE_NAME_MAX + 1];
        const gpu_type *g = catalog_gpu(doc_str(n, "gpu_type"));
        int64_t gpus = doc_int(n, "gpu_count");
        gcp_instance_name(doc_str(n, "name"), inst);
        if (strcmp(doc_str(n, "state"), "provisioning") != 0 || !json_is_true(json_object_get(n, "ephemeral")) ||
            *cloud_inst_status(r, inst) || !g || !g->gcp_quota_metric || gpus <= 0)
            continue;
        const char *names[] = { g->gcp_quota_metric, QUOTA_CPUS, QUOTA_LOCAL_SSD };
        int64_t amounts[] = { gpus, gpus * g->gcp_cpus_per_job, gpus * QUOTA_SSD_PER_JOB_GB };
        for (size_t k = 0; k < 3; k++) {
            json_t *m = json_object_get(metrics, names[k]);
            if (m)
                json_object_set_new(m, "usage", json_integer(doc_int(m, "usage") + amounts[k]));
        }
    }
}

static rd_code refresh_quotas(cloud_round *r, json_t **doc_out, gcp_fault *f, rd_err *err)
{
    json_t *fetched = NULL;
    cmd_ctx *ctx = r->ctx;
    rd_code rc = gcp_region_quotas(r->gcp, r->gcp_region, &fetched, f, err);
    if (rc != RD_OK)
        return rc;
    for (int attempt = 0; attempt < CLOUD_STEP_RETRIES; attempt++) {
        char key[RD_KEY_MAX], ts[RDTIME_BUFLEN];
        json_t *quota = NULL, *nodes = NULL, *metrics = json_object(), *m;
        const char *k;
        tx_reset(ctx->tx);
        rc = tx_get(ctx->tx, tx_key(key, KEY_QUOTAS "%s", r->name), &quota, err);
        if (rc == RD_OK)
            rc = fleet_region_nodes(ctx, r->name, "compute", &nodes, err);
        if (rc != RD_OK) {
            json_decref(quota);
            json_decref(metrics);
            break;
        }
        if (!quota)
            quota = json_pack("{s:s, s:{}}", "name", r->name, "metrics");
        json_t *orig = json_deep_copy(quota);
        json_t *old = json_object_get(quota, "metrics"), *fresh = json_object();
        json_object_update(metrics, old);
        json_object_foreach(fetched, k, m)
            if (metric_kept(k, old))
                json_object_set_new(fresh, k, json_deep_copy(m));
        add_pending_usage(r, nodes, fresh);   /* only on numbers GCP gave: the others count it already */
        json_object_update(metrics, fresh);
        json_decref(fresh);
        json_object_set_new(quota, "metrics", metrics);
        json_object_set_new(quota, "source", json_string("gcp"));
        json_object_set_new(quota, "refreshed_at", json_string(rdtime_format(ctx->now, ts)));
        json_decref(nodes);
        if (doc_out) {
            json_decref(*doc_out);
            *doc_out = json_incref(quota);
        }
        int same = json_equal(orig, quota);
        json_decref(orig);
        if (same)   /* nothing new: no write */
            json_decref(quota);
        else
            rc = tx_put(ctx->tx, key, quota, err);
        if (rc == RD_OK)
            rc = cmd_commit_step(ctx, err);
        tx_reset(ctx->tx);
        if (rc != RD_ECONFLICT)
            break;
    }
    json_decref(fetched);
    return rc;
}

/* ---- one round --------------------------------------------------------- */

static rd_code round_open(cloud_round *r, gcp_fault *f, rd_err *err)
{
    char key[RD_KEY_MAX], label[96];
    json_t *prov = NULL;
    char *plain = NULL;
    size_t len = 0;
    const char *owner = doc_str(r->region, "owner");
    r->info = catalog_gcp_region(r->gcp_region);
    if (!r->info)
        return rd_fail(err, RD_ECORRUPT, "region '%s': gcp_region '%s' is not a supported GCP region", r->name,
                       r->gcp_region);
    rd_code rc = tx_get(r->ctx->tx, tx_key(key, KEY_PROVIDERS "%s/gcp", owner), &prov, err);
    if (rc == RD_OK && !prov)
        rc = rd_fail(err, RD_EINVAL, "gcp %s: region '%s': the gcp provider of account '%s' is not enabled (provider enable gcp)",
                     r->gcp_region, r->name, owner);
    if (rc == RD_OK)
        rc = fleet_unseal(r->ctx, doc_str(prov, "secret_key"), &plain, &len, err);
    snprintf(label, sizeof label, "gcp %s", r->gcp_region);
    if (rc == RD_OK)
        rc = gcp_client_new(plain, len, label, &r->gcp, err);
    if (plain)
        memset(plain, 0, len);
    free(plain);
    json_decref(prov);
    tx_reset(r->ctx->tx);
    if (rc == RD_OK)
        rc = round_list(r, f, err);
    return rc;
}

static void round_close(cloud_round *r)
{
    gcp_client_free(r->gcp);
    json_decref(r->instances);
    json_decref(r->exhausted);
    tx_reset(r->ctx->tx);
}

static void round_init(cloud_round *r, cmd_ctx *ctx, json_t *region, json_t *report)
{
    memset(r, 0, sizeof *r);
    r->ctx = ctx;
    r->region = region;
    r->name = doc_str(region, "name");
    r->gcp_region = doc_str(region, "gcp_region");
    r->instances = json_object();
    r->exhausted = json_object();
    r->report = report;
}

/* A region marked removing (region remove): its storage VM is deleted and,
 * once the node is removed, the region's records go in one step.  Until the
 * VM is gone the region stays, so a later round still sees it. */
static rd_code round_finish_removal(cloud_round *r, json_t *nodes, rd_err *err)
{
    json_t *n;
    size_t i;
    int left = 0;
    json_array_foreach(nodes, i, n)
        if (!cloud_release_storage(r, n))
            left++;
    if (left)
        return RD_OK;
    char key[RD_KEY_MAX];
    json_t *region = NULL;
    rd_code rc = fleet_region_get(r->ctx, r->name, &region, err);
    if (rc == RD_OK && strcmp(doc_str(region, "state"), "removing") != 0)
        rc = rd_fail(err, RD_ECONFLICT, "region '%s' is no longer being removed", r->name);
    json_decref(region);
    if (rc == RD_OK)
        rc = tx_delete(r->ctx->tx, tx_key(key, KEY_QUOTAS "%s", r->name), err);
    if (rc == RD_OK)
        rc = tx_delete(r->ctx->tx, tx_key(key, KEY_REGIONS "%s", r->name), err);
    if (rc == RD_OK)
        rc = cmd_commit_step(r->ctx, err);
    tx_reset(r->ctx->tx);
    if (rc == RD_OK)
        cloud_report_add(r, "removed_regions", json_object());
    else if (rc != RD_ESTORE && rc != RD_ENOMEM) {
        cloud_report_error(r, NULL, NULL, err);
        rc = RD_OK;
    }
    return rc;
}

/* Store failures end the command; GCP failures are listed.  *fatal is set
 * when the round could not run at all. */
static rd_code round_run(cmd_ctx *ctx, json_t *region, json_t *report, int *fatal, rd_err *err)
{
    cloud_round r;
    json_t *nodes = NULL, *n;
    gcp_fault f = { 0 };
    size_t i;
    *fatal = 0;
    round_init(&r, ctx, region, report);
    json_array_append_new(json_object_get(report, "regions"), json_string(r.name));
    rd_code rc = round_open(&r, &f, err);
    if (rc == RD_OK)
        rc = fleet_region_nodes(ctx, r.name, NULL, &nodes, err);
    tx_reset(ctx->tx);
    if (rc != RD_OK) {
        *fatal = 1;
        cloud_report_error(&r, NULL, f.status ? &f : NULL, err);
        round_close(&r);
        return rc == RD_ESTORE || rc == RD_ENOMEM ? rc : RD_OK;
    }
    if (strcmp(doc_str(region, "state"), "removing") == 0) {
        rc = round_finish_removal(&r, nodes, err);
        json_decref(nodes);
        round_close(&r);
        return rc;
    }
    json_t *claimed = json_object();
    char storage_zone[64] = "";
    json_array_foreach(nodes, i, n) {
        char inst[GCP_INSTANCE_NAME_MAX + 1];
        gcp_instance_name(doc_str(n, "name"), inst);
        json_object_set_new(claimed, inst, json_string(doc_str(n, "name")));
        if (strcmp(doc_str(n, "name"), doc_str(region, "storage_node")) == 0) {
            cloud_ensure_storage(&r, n);
            snprintf(storage_zone, sizeof storage_zone, "%s", cloud_inst_zone(&r, inst));
        }
    }
    json_array_foreach(nodes, i, n) {
        if (strcmp(doc_str(n, "role"), "compute") != 0 || strcmp(doc_str(n, "provider"), "gcp") != 0)
            continue;
        if (strcmp(doc_str(n, "state"), "provisioning") == 0)
            cloud_provision_node(&r, n, storage_zone);
        else if (cloud_node_idle(&r, n))
            cloud_release_idle(&r, n);
        else
            cloud_reconcile_node(&r, n);
    }
    const char *inst;
    json_t *seen;
    json_object_foreach(r.instances, inst, seen)
        if (!json_object_get(claimed, inst))
            cloud_report_add(&r, "orphaned", json_pack("{s:s, s:s, s:s, s:s}", "instance", inst, "zone", doc_str(seen, "zone"),
                                                 "status", doc_str(seen, "status"), "rigdeck_node", doc_str(seen, "node")));
    json_decref(claimed);
    json_decref(nodes);
    json_t *quota = NULL;
    rd_err qerr;
    memset(&f, 0, sizeof f);
    if (refresh_quotas(&r, &quota, &f, &qerr) == RD_OK)
        cloud_report_add(&r, "quotas", json_pack("{s:I, s:s, s:o}", "metrics", (json_int_t)json_object_size(json_object_get(quota, "metrics")),
                                           "refreshed_at", doc_str(quota, "refreshed_at"), "runnable",
                                           quota_runnable_map(r.gcp_region, json_object_get(quota, "metrics"))));
    else
        cloud_report_error(&r, NULL, f.status ? &f : NULL, &qerr);
    json_decref(quota);
    *fatal = r.refused;   /* a named region says why nothing was created (cloud_agent.c) */
    round_close(&r);
    return RD_OK;
}

/* The GCP regions a command acts on: one named, or all the actor may. */
static rd_code gcp_regions(cmd_ctx *ctx, const char *name, const char *what, json_t **out, rd_err *err)
{
    json_t *region = NULL;
    rd_code rc;
    *out = NULL;
    if (name) {
        rc = fleet_region_get(ctx, name, &region, err);
        if (rc == RD_OK && fleet_region_is_physical(region))
            rc = rd_fail(err, RD_EINVAL, "%s: region '%s' is a physical region; only GCP regions are provisioned", what, name);
        if (rc == RD_OK)
            rc = fleet_require_owner(ctx, region, what, err);
        if (rc == RD_OK)
            *out = json_pack("[O]", region);
        json_decref(region);
        return rc;
    }
    if ((rc = tx_list(ctx->tx, KEY_REGIONS, out, err)) != RD_OK)
        return rc;
    fleet_filter(*out, "provider", "gcp");
    if (!access_actor_is_staff(ctx))
        fleet_filter(*out, "owner", ctx->actor);
    return RD_OK;
}

rd_code cloud_sync(cmd_ctx *ctx, const char *name, json_t **result, rd_err *err)
{
    json_t *regions = NULL, *region, *report = cloud_report_new();
    size_t i;
    int fatal = 0;
    rd_code rc = report ? gcp_regions(ctx, name, "cloud sync", &regions, err) : rd_fail(err, RD_ENOMEM, "out of memory");
    tx_reset(ctx->tx);
    json_array_foreach(regions, i, region) {
        if (rc != RD_OK)
            break;
        rc = round_run(ctx, region, report, &fatal, err);
    }
    json_decref(regions);
    if (rc == RD_OK && name && fatal) {
        /* The one region asked for could not be reached: say so plainly. */
        json_t *e = json_array_get(json_object_get(report, "errors"), 0);
        rc = rd_fail(err, strcmp(doc_str(e, "code"), "unauthenticated") == 0 ||
                          strcmp(doc_str(e, "code"), "permission_denied") == 0 ? RD_EPERM : RD_EINVAL,
                     "cloud sync: %s", doc_str(e, "message"));
    }
    if (rc == RD_ECONFLICT)
        rc = RD_OK;
    if (rc != RD_OK) {
        json_decref(report);
        return rc;
    }
    *result = report;
    return RD_OK;
}

/* ---- commands ---------------------------------------------------------- */

static rd_code cloud_sync_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    return cloud_sync(ctx, cmd_arg(a, 0), result, err);
}

rd_code cloud_quota_refresh(cmd_ctx *ctx, const char *name, json_t **region_out, json_t **quota_out, rd_err *err)
{
    json_t *regions = NULL, *quota = NULL, *report = cloud_report_new();
    cloud_round r;
    gcp_fault f = { 0 };
    *region_out = *quota_out = NULL;
    rd_code rc = gcp_regions(ctx, name, "quota refresh", &regions, err);
    tx_reset(ctx->tx);
    if (rc != RD_OK) {
        json_decref(report);
        return rc;
    }
    round_init(&r, ctx, json_array_get(regions, 0), report);
    rc = round_open(&r, &f, err);
    if (rc == RD_OK)
        rc = refresh_quotas(&r, &quota, &f, err);
    if (rc == RD_OK) {
        *region_out = json_incref(json_array_get(regions, 0));
        *quota_out = quota;
        quota = NULL;
    }
    json_decref(quota);
    round_close(&r);
    json_decref(regions);
    json_decref(report);
    return rc == RD_ECONFLICT ? rd_fail(err, RD_ECONFLICT, "quota refresh: the quota document kept changing; run it again")
                              : rc;
}

const cmd_def cloud_cmd_table[] = {
    { .words = "cloud sync", .args = "[REGION]", .options = CMD_MUTATES,
      .help = "one round of GCP provisioning: create and activate nodes, release idle ones, reconcile, refresh quotas",
      .run = cloud_sync_cmd, .access = CMD_ACCESS_FLEET },
    { 0 }
};
