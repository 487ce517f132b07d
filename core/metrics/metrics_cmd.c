/* metrics_cmd.c - `metrics show` (one series of a node over a window) and
 * `metrics fleet` (the fleet's totals now; with --by, metrics_fleet.c's
 * roll-up per region or account), spec/operations.md.  Both cover only the
 * nodes the actor sees (access_view.h). */
#include "metrics_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "access_view.h"
#include "doc.h"
#include "fleet.h"
#include "keyspace.h"
#include "node.h"
#include "node_health.h"

enum { MINUTE_KEEP = 48 * 3600, HOUR_KEEP = 90 * 86400 };

static rd_code parse_time_opt(const cmd_args *a, const char *name, rd_time dflt, rd_time *out, rd_err *err)
{
    const char *text = cmd_opt(a, name);
    char field[32];
    *out = dflt;
    snprintf(field, sizeof field, "--%s", name);
    return text ? rdtime_parse(field, text, out, err) : RD_OK;
}

/* Which series of the node: the stat, and for a GPU stat the GPU. */
static rd_code pick_series(const json_t *node, const cmd_args *a, const metrics_stat **stat, int *gpu, rd_err *err)
{
    const char *metric = cmd_opt(a, "metric") ? cmd_opt(a, "metric") : "cpu_util";
    const char *gpu_text = cmd_opt(a, "gpu");
    rd_code rc = metrics_check_stat("--metric", metric, err);
    if (rc != RD_OK)
        return rc;
    *stat = metrics_stat_find(metric);
    *gpu = -1;
    if (!(*stat)->per_gpu)
        return gpu_text ? rd_fail(err, RD_EINVAL, "--gpu: %s is a stat of the node, not of a GPU", metric) : RD_OK;
    int64_t g = 0;
    if (node_health_gpu_count(node) <= 0)
        return rd_fail(err, RD_EINVAL, "--metric: node '%s' has no GPUs to read %s from", doc_str(node, "name"), metric);
    rc = node_health_parse_gpu(node, "--gpu", gpu_text ? gpu_text : "0", &g, err);
    *gpu = (int)g;
    return rc;
}

static rd_code metrics_show_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *name = cmd_arg(a, 0);
    const char *step_text = cmd_opt(a, "step") ? cmd_opt(a, "step") : "1m";
    int step = strcmp(step_text, "1h") == 0 ? 3600 : 60;
    json_t *node = NULL;
    const metrics_stat *stat = NULL;
    int gpu = -1;
    rd_time until = 0, since = 0;
    access_view view;
    access_view_open(ctx, &view);
    rd_code rc = node_get(ctx, name, &node, err);
    if (rc == RD_OK && !access_view_node(&view, node))
        rc = access_view_missing(err, "node", name);
    access_view_close(&view);
    if (rc == RD_OK)
        rc = pick_series(node, a, &stat, &gpu, err);
    json_decref(node);
    /* until is exclusive; by default the minute or hour in progress shows */
    if (rc == RD_OK)
        rc = parse_time_opt(a, "until", ctx->now + 1, &until, err);
    if (rc == RD_OK)
        rc = parse_time_opt(a, "since", until - (step == 60 ? 3600 : 86400), &since, err);
    if (rc == RD_OK && since >= until)
        rc = rd_fail(err, RD_EINVAL, "--since: must be before --until");
    if (rc == RD_OK && step == 60 && since < ctx->now - MINUTE_KEEP)
        rc = rd_fail(err, RD_EINVAL, "--since: minute points are kept for 48 hours; use --step 1h for older ones");
    if (rc == RD_OK && step == 3600 && since < ctx->now - HOUR_KEEP)
        rc = rd_fail(err, RD_EINVAL, "--since: hour points are kept for 90 days");
    if (rc != RD_OK)
        return rc;
    char series[METRICS_SERIES_MAX], ts[RDTIME_BUFLEN];
    metrics_point *pts = NULL;
    size_t n = 0;
    rc = metrics_read_points(ctx->tx, name, metrics_series_key(series, stat, gpu), step, since, until, &pts, &n, err);
    if (rc != RD_OK)
        return rc;
    json_t *points = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(points, json_pack("{s:s, s:f, s:f, s:f}", "t", rdtime_format(pts[i].t, ts), "min",
                                                pts[i].min, "avg", pts[i].avg, "max", pts[i].max));
    free(pts);
    *result = json_pack("{s:s, s:s, s:s, s:s, s:o}", "node", name, "metric", stat->name, "step", step_text, "unit",
                        stat->unit, "points", points);
    if (*result)
        json_object_set_new(*result, "gpu", gpu >= 0 ? json_integer(gpu) : json_null());
    return *result ? RD_OK : rd_fail(err, RD_ENOMEM, "out of memory");
}

/* The fleet's totals ------------------------------------------------------ */

typedef struct {
    int64_t nodes, reporting, gpus, gpus_healthy, gpus_unhealthy, alloc_x100;
    double cpu_sum, gpu_sum;
    int64_t cpu_n, gpu_n;
} fleet_totals;

static void add_node(fleet_totals *t, const json_t *node, const json_t *last_doc, rd_time now)
{
    t->nodes++;
    int64_t count = node_health_gpu_count(node);
    size_t i;
    json_t *slot;
    t->gpus += count;
    for (int64_t g = 0; g < count; g++) {
        if (node_health_gpu_unhealthy(node, g))
            t->gpus_unhealthy++;
        else
            t->gpus_healthy++;
    }
    json_array_foreach(json_object_get(node, "gpu_alloc"), i, slot)
        t->alloc_x100 += json_integer_value(slot);
    rd_time sampled = doc_time(last_doc, "sampled_at");
    if (!sampled || now - sampled > METRICS_STALE_S)
        return;   /* no reading, or one too old to count as now */
    t->reporting++;
    const char *series;
    json_t *v;
    json_object_foreach(json_object_get(last_doc, "last"), series, v) {
        if (strcmp(series, "cpu_util") == 0) {
            t->cpu_sum += (double)json_integer_value(v) / 100.0;
            t->cpu_n++;
        } else if (strncmp(series, "gpu_util:", 9) == 0) {
            t->gpu_sum += (double)json_integer_value(v) / 100.0;
            t->gpu_n++;
        }
    }
}

/* A mean percentage to one decimal, or null when nothing reported. */
static json_t *mean_of(double sum, int64_t n)
{
    return n > 0 ? json_real(round(sum / (double)n * 10.0) / 10.0) : json_null();
}

rd_code metrics_fleet_totals(rd_tx *tx, const json_t *nodes, const char *region, rd_time now, json_t **result,
                             rd_err *err)
{
    json_t *lasts = NULL, *by_node = json_object(), *doc;
    fleet_totals t = { 0 };
    size_t i;
    rd_code rc = tx ? tx_list(tx, KEY_METRICS "last/", &lasts, err) : RD_OK;
    json_array_foreach(lasts, i, doc)
        json_object_set(by_node, doc_str(doc, "node"), doc);
    json_array_foreach(nodes, i, doc) {
        if (strcmp(doc_str(doc, "role"), "compute") != 0 || strcmp(doc_str(doc, "state"), "removed") == 0 ||
            (region && strcmp(doc_str(doc, "region"), region) != 0))
            continue;
        add_node(&t, doc, json_object_get(by_node, doc_str(doc, "name")), now);
    }
    json_decref(lasts);
    json_decref(by_node);
    if (rc != RD_OK)
        return rc;
    *result = json_pack("{s:s?, s:I, s:I, s:I, s:f, s:I, s:I, s:o, s:o}", "region", region, "nodes",
                        (json_int_t)t.nodes, "nodes_reporting", (json_int_t)t.reporting, "gpus", (json_int_t)t.gpus,
                        "gpus_allocated", (double)t.alloc_x100 / 100.0, "gpus_healthy", (json_int_t)t.gpus_healthy,
                        "gpus_unhealthy", (json_int_t)t.gpus_unhealthy, "gpu_util_mean", mean_of(t.gpu_sum, t.gpu_n),
                        "cpu_util_mean", mean_of(t.cpu_sum, t.cpu_n));
    return *result ? RD_OK : rd_fail(err, RD_ENOMEM, "out of memory");
}

static rd_code metrics_fleet_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *region = cmd_opt(a, "region");
    json_t *nodes = NULL, *rdoc = NULL;
    if (cmd_opt(a, "by"))
        return metrics_fleet_rollup_cmd(ctx, cmd_opt(a, "by"), region, result, err);
    access_view view;
    access_view_open(ctx, &view);
    rd_code rc = region ? fleet_region_get(ctx, region, &rdoc, err) : RD_OK;
    if (rc == RD_OK && rdoc && !access_view_region(&view, rdoc))
        rc = access_view_missing(err, "region", region);
    json_decref(rdoc);
    if (rc == RD_OK)
        rc = tx_list(ctx->tx, KEY_NODES, &nodes, err);
    if (rc == RD_OK)
        access_view_filter(&view, nodes, access_view_sees_node);
    access_view_close(&view);
    if (rc == RD_OK)
        rc = metrics_fleet_totals(ctx->tx, nodes, region, ctx->now, result, err);
    json_decref(nodes);
    return rc;
}

static const cmd_flag show_flags[] = {
    { "metric", "STAT", CMD_FLAG_VALUE, "the stat (default cpu_util): cpu_util mem_used_gb disk_used_gb "
                                        "disk_read_bps disk_write_bps net_rx_bps net_tx_bps gpu_util "
                                        "gpu_mem_used_gb gpu_temp_c gpu_power_w gpu_ecc_errors" },
    { "gpu", "N", CMD_FLAG_VALUE, "the GPU of a gpu_* stat (default 0)" },
    { "since", "TIME", CMD_FLAG_VALUE, "from (default: an hour ago, a day ago with --step 1h)" },
    { "until", "TIME", CMD_FLAG_VALUE, "up to, exclusive (default: now, the period in progress included)" },
    { "step", "1m|1h", CMD_FLAG_VALUE, "minute points (kept 48 h, the default) or hour points (kept 90 days)" },
    { 0 }
};

static const cmd_flag fleet_flags[] = {
    { "region", "REGION", CMD_FLAG_VALUE, "only this region's nodes" },
    { "by", "region|account", CMD_FLAG_VALUE, "one row per region or per account (tenant), then (total): "
                                               "GPUs, CPU cores, memory and disk in use" },
    { 0 }
};

const cmd_def metrics_cmd_table[] = {
    { .words = "metrics show", .args = "NODE", .flags = show_flags,
      .help = "a node's vital stat over time: min, avg and max per minute or hour", .run = metrics_show_cmd },
    { .words = "metrics fleet", .args = "", .flags = fleet_flags,
      .help = "the fleet now: GPUs allocated and healthy, mean GPU and CPU use; --by: CPU, GPU, memory and disk "
              "use per region or account", .run = metrics_fleet_cmd },
    { 0 }
};
