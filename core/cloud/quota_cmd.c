/* quota_cmd.c - the `quota` commands: set, show, refresh.
 *
 * A GCP region's quota metrics (limits and usage) are set by hand or
 * fetched from the Compute API (cloud.c); the number of runnable jobs per
 * GPU type follows from them (quota.c).
 */
#include <stdint.h>
#include <string.h>

#include "access_view.h"
#include "cloud.h"
#include "cmd.h"
#include "doc.h"
#include "fleet.h"
#include "keyspace.h"
#include "num.h"
#include "quota.h"

static rd_code quota_region(cmd_ctx *ctx, const char *name, const char *what, json_t **region, rd_err *err)
{
    rd_code rc = fleet_region_get(ctx, name, region, err);
    if (rc == RD_OK && fleet_region_is_physical(*region)) {
        json_decref(*region);
        *region = NULL;
        rc = rd_fail(err, RD_EINVAL, "%s: region '%s' is a physical region; quotas belong to GCP regions", what, name);
    }
    return rc;
}

static json_t *quota_view(const json_t *region, const json_t *quota)
{
    json_t *metrics = quota ? json_object_get(quota, "metrics") : NULL;
    json_t *list = json_array();
    const char *k;
    json_t *m;
    json_object_foreach((json_t *)metrics, k, m)
        json_array_append_new(list, json_pack("{s:s, s:O, s:O, s:I}", "metric", k, "limit",
                                              json_object_get(m, "limit"), "usage", json_object_get(m, "usage"),
                                              "available", (json_int_t)quota_available(metrics, k)));
    return json_pack("{s:s, s:s, s:s, s:o, s:o}", "name", doc_str(region, "name"), "region",
                     doc_str(region, "name"), "gcp_region", doc_str(region, "gcp_region"), "metrics", list,
                     "runnable", quota_runnable_map(doc_str(region, "gcp_region"), metrics));
}

static rd_code quota_set_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *name = cmd_arg(a, 0), *metric = cmd_arg(a, 1);
    char key[RD_KEY_MAX];
    json_t *region = NULL, *quota = NULL;
    int64_t limit = 0, usage = 0;
    rd_code rc = quota_region(ctx, name, "quota set", &region, err);
    if (rc == RD_OK)
        rc = fleet_require_owner(ctx, region, "quota set", err);
    if (rc == RD_OK)
        rc = quota_check_metric(metric, err);
    if (rc == RD_OK)
        rc = num_parse_int("LIMIT", cmd_arg(a, 2), 0, INT32_MAX, &limit, err);
    if (rc == RD_OK && cmd_opt(a, "usage"))
        rc = num_parse_int("--usage", cmd_opt(a, "usage"), 0, INT32_MAX, &usage, err);
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, tx_key(key, KEY_QUOTAS "%s", name), &quota, err);
    if (rc == RD_OK && !quota)
        quota = json_pack("{s:s, s:{}}", "name", name, "metrics");
    if (rc == RD_OK && !cmd_opt(a, "usage"))   /* keep the usage last reported */
        usage = json_integer_value(json_object_get(json_object_get(json_object_get(quota, "metrics"), metric), "usage"));
    if (rc == RD_OK) {
        char ts[RDTIME_BUFLEN];
        json_object_set_new(json_object_get(quota, "metrics"), metric,
                            json_pack("{s:I, s:I}", "limit", (json_int_t)limit, "usage", (json_int_t)usage));
        json_object_set_new(quota, "updated_at", json_string(rdtime_format(ctx->now, ts)));
        *result = quota_view(region, quota);
        rc = tx_put(ctx->tx, key, quota, err);
        quota = NULL;
    }
    json_decref(quota);
    json_decref(region);
    return rc;
}

static rd_code quota_show_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    char key[RD_KEY_MAX];
    json_t *region = NULL, *quota = NULL;
    access_view view;
    access_view_open(ctx, &view);
    /* a private region the actor may not see is not there at all; a public
     * one is, but its quotas are its owner's business */
    rd_code rc = fleet_region_get(ctx, cmd_arg(a, 0), &region, err);
    if (rc == RD_OK && !access_view_region(&view, region))
        rc = access_view_missing(err, "region", cmd_arg(a, 0));
    access_view_close(&view);
    json_decref(region);
    region = NULL;
    if (rc == RD_OK)
        rc = quota_region(ctx, cmd_arg(a, 0), "quota show", &region, err);
    if (rc == RD_OK)
        rc = fleet_require_owner(ctx, region, "quota show", err);
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, tx_key(key, KEY_QUOTAS "%s", cmd_arg(a, 0)), &quota, err);
    if (rc == RD_OK)
        *result = quota_view(region, quota);
    json_decref(quota);
    json_decref(region);
    return rc;
}

static rd_code quota_refresh_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *region = NULL, *quota = NULL;
    rd_code rc = cloud_quota_refresh(ctx, cmd_arg(a, 0), &region, &quota, err);
    if (rc == RD_OK) {
        *result = quota_view(region, quota);
        json_object_set_new(*result, "source", json_string("gcp"));
        json_object_set_new(*result, "refreshed_at", json_string(doc_str(quota, "refreshed_at")));
    }
    json_decref(region);
    json_decref(quota);
    return rc;
}

static const cmd_flag quota_set_flags[] = {
    { "usage", "N", CMD_FLAG_VALUE, "the amount of the limit in use (default: unchanged, else 0)" },
    { 0 }
};

const cmd_def quota_cmd_table[] = {
    { .words = "quota set", .args = "REGION METRIC LIMIT", .flags = quota_set_flags, .options = CMD_MUTATES,
      .help = "set a GCP quota metric's limit (and usage)", .run = quota_set_cmd, .access = CMD_ACCESS_FLEET },
    { .words = "quota show", .args = "REGION", .help = "GCP quota limits, usage and runnable jobs per GPU type",
      .run = quota_show_cmd },
    { .words = "quota refresh", .args = "REGION", .options = CMD_MUTATES,
      .help = "fetch a GCP region's quota limits and usage from the Compute API", .run = quota_refresh_cmd,
      .access = CMD_ACCESS_FLEET },
    { 0 }
};
