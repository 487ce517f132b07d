/* metrics_import.c - `metrics import NODE FILE`: vital stats of a node that
 * has no agent, from another monitoring system (or the demo fleet), folded
 * into the same history an agent writes (metrics.h).
 *
 * FILE holds one JSON object per line, a sample as the agent takes it:
 *   {"t": "2026-11-24T10:00:00Z", "cpu_util": 12.5, "mem_used_gb": 40,
 *    "gpus": [{"index": 0, "gpu_util": 97, "gpu_temp_c": 71}]}
 * in time order, after the node's latest reading and within the last 48
 * hours (an older sample would land in a slot that now holds newer
 * minutes).  Closed blocks are written in steps a store transaction can
 * hold and the `now` document last, so an import cut short changed only
 * whole blocks and can be run again.
 */
#include "metrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "fleet.h"
#include "keyspace.h"
#include "node.h"
#include "yamljson.h"

/* GPU indices as nvidia-smi's parser takes them (core/agent/probe_gpu.c). */
enum { IMPORT_MAX_LINES = 200000, IMPORT_MAX_BYTES = 256 * 1024 * 1024, IMPORT_WINDOW_S = 48 * 3600, GPU_INDEX_MAX = 1023 };

/* An unknown key for a message: 'name' when it reads like a field name,
 * else "a key", never a file's text (yamljson_describe_key). */
static const char *key_shown(const char *k, char *buf, size_t len)
{
    char name[40];
    if (strcmp(yamljson_describe_key(k, name, sizeof name), k) == 0)
        snprintf(buf, len, "'%s'", k);
    else
        snprintf(buf, len, "a key");
    return buf;
}

/* A reading within its stat's range (metrics_stat_bound), or null: a sample
 * from another system that is out of range is refused rather than folded. */
static rd_code check_value(const metrics_stat *st, const json_t *v, size_t line, rd_err *err)
{
    if (json_is_null(v))
        return RD_OK;
    if (!json_is_number(v))
        return rd_fail(err, RD_EINVAL, "FILE: line %zu: %s must be a number", line, st->name);
    double x = json_number_value(v);
    if (!(x >= st->min && x <= st->max))
        return rd_fail(err, RD_EINVAL, "FILE: line %zu: %s must be between %.15g and %.15g%s%s, got %.15g", line,
                       st->name, st->min, st->max, *st->unit ? " " : "", st->unit, x);
    return RD_OK;
}

/* A stats object a line may carry: known stats with numbers (or null). */
static rd_code check_sample(const json_t *s, size_t line, rd_err *err)
{
    char shown[48];
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)s, k, v) {
        if (strcmp(k, "t") == 0)
            continue;
        if (strcmp(k, "gpus") == 0) {
            size_t i;
            json_t *g;
            if (!json_is_array(v))
                return rd_fail(err, RD_EINVAL, "FILE: line %zu: gpus must be a list", line);
            json_array_foreach(v, i, g) {
                const char *gk;
                json_t *gv;
                json_int_t idx = json_integer_value(json_object_get(g, "index"));
                if (!json_is_integer(json_object_get(g, "index")) || idx < 0 || idx > GPU_INDEX_MAX)
                    return rd_fail(err, RD_EINVAL, "FILE: line %zu: every GPU needs an index 0..%d", line,
                                   GPU_INDEX_MAX);
                json_object_foreach(g, gk, gv) {
                    if (strcmp(gk, "index") == 0)
                        continue;
                    const metrics_stat *st = metrics_stat_find(gk);
                    if (!st || !st->per_gpu)
                        return rd_fail(err, RD_EINVAL, "FILE: line %zu: %s is not a GPU stat", line,
                                       key_shown(gk, shown, sizeof shown));
                    if (check_value(st, gv, line, err) != RD_OK)
                        return RD_EINVAL;
                }
            }
            continue;
        }
        const metrics_stat *st = metrics_stat_find(k);
        if (!st || st->per_gpu)
            return rd_fail(err, RD_EINVAL, "FILE: line %zu: %s is not a node stat", line,
                           key_shown(k, shown, sizeof shown));
        if (check_value(st, v, line, err) != RD_OK)
            return RD_EINVAL;
    }
    return RD_OK;
}

rd_code metrics_import_read(const char *text, size_t len, rd_time not_before, rd_time now, json_t *samples,
                            rd_err *err)
{
    size_t line = 0;
    rd_time prev = not_before;
    rd_code rc = RD_OK;
    for (const char *p = text, *end = text + len; rc == RD_OK && p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        const char *at = p;
        p += n + (nl != NULL);
        line++;
        if (memchr(at, '\0', n)) {
            rc = rd_fail(err, RD_EINVAL, "FILE: line %zu holds a NUL byte", line);
            break;
        }
        if (at + strspn(at, " \t\r") >= at + n)
            continue;
        if (line > IMPORT_MAX_LINES) {
            rc = rd_fail(err, RD_EINVAL, "FILE: more than %d lines; import it in parts", IMPORT_MAX_LINES);
            break;
        }
        json_error_t jerr;
        json_t *s = json_loadb(at, n, 0, &jerr);
        rd_time t = 0;
        if (!json_is_object(s)) {
            /* jansson's text may quote a token ("near 'x'"): keep what precedes it */
            char *near = strstr(jerr.text, " near ");
            if (near)
                *near = '\0';
            rc = rd_fail(err, RD_EINVAL, "FILE: line %zu: not a JSON object (%s)", line,
                         s ? "another JSON value" : jerr.text);
        } else if (rdtime_parse("t", doc_str(s, "t"), &t, err) != RD_OK)
            rc = rd_fail(err, RD_EINVAL, "FILE: line %zu: t must be an RFC 3339 time", line);
        else if (check_sample(s, line, err) != RD_OK)
            rc = RD_EINVAL;
        else if (t <= prev)
            rc = rd_fail(err, RD_EINVAL, "FILE: line %zu: %s is not after the %s before it", line, doc_str(s, "t"),
                         line == 1 || prev == not_before ? "node's latest reading" : "sample");
        else if (t > now)
            rc = rd_fail(err, RD_EINVAL, "FILE: line %zu: %s is in the future", line, doc_str(s, "t"));
        else if (t < now - IMPORT_WINDOW_S)
            rc = rd_fail(err, RD_EINVAL, "FILE: line %zu: %s is more than 48 hours old", line, doc_str(s, "t"));
        if (rc == RD_OK) {
            json_object_set_new(s, "t", json_integer(t));
            json_array_append(samples, s);
            prev = t;
        }
        json_decref(s);
    }
    return rc;
}

/* Reads FILE (through cmd_file_read: on a relayed request only the text
 * its sender sent) into samples, checked and in time order after
 * not_before.  No refusal quotes the file's text: a line is named by its
 * number, a key by its name. */
static rd_code read_samples(const cmd_ctx *ctx, const char *path, rd_time not_before, rd_time now, json_t *samples,
                            rd_err *err)
{
    char *text = NULL;
    size_t len = 0;
    rd_code rc = cmd_file_read(ctx, "FILE", path, IMPORT_MAX_BYTES, &text, &len, err);
    if (rc == RD_OK)
        rc = metrics_import_read(text, len, not_before, now, samples, err);
    free(text);
    return rc;
}

static rd_code metrics_import_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *name = cmd_arg(a, 0);
    char key[RD_KEY_MAX];
    json_t *node = NULL, *region = NULL, *now_doc = NULL, *day_doc = NULL, *samples = json_array();
    rd_time latest = 0;
    metrics_agg *m = NULL;
    rd_code rc = node_get(ctx, name, &node, err);
    if (rc == RD_OK)
        rc = fleet_region_get(ctx, doc_str(node, "region"), &region, err);
    if (rc == RD_OK)
        rc = fleet_require_owner(ctx, region, "metrics import", err);
    if (rc == RD_OK && json_is_true(json_object_get(node, "agent_managed")))
        rc = rd_fail(err, RD_EINVAL, "metrics import: node '%s' has an agent; its readings come from it", name);
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, tx_key(key, KEY_METRICS "now/%s", name), &now_doc, err);
    if (rc == RD_OK)
        latest = doc_time(now_doc, "sampled_at");
    if (rc == RD_OK)
        rc = read_samples(ctx, cmd_arg(a, 1), latest, ctx->now, samples, err);
    if (rc == RD_OK && json_array_size(samples) == 0)
        rc = rd_fail(err, RD_EINVAL, "FILE: no samples in %s", cmd_arg(a, 1));
    if (rc == RD_OK && !(m = metrics_agg_new(name)))
        rc = rd_fail(err, RD_ENOMEM, "out of memory");
    if (rc == RD_OK) {
        rd_time first = json_integer_value(json_object_get(json_array_get(samples, 0), "t"));
        rc = tx_get(ctx->tx, tx_key(key, KEY_METRICS "hour/%s/%02ld", name, (long)((first / 86400) % METRICS_DAY_SLOTS)),
                    &day_doc, err);
        if (rc == RD_OK)
            metrics_agg_restore(m, now_doc, day_doc, first);
    }
    size_t i;
    json_t *s;
    json_array_foreach(samples, i, s)
        if (rc == RD_OK)
            metrics_agg_add(m, s, json_integer_value(json_object_get(s, "t")));
    /* Closed blocks in steps a store transaction can hold, `now` last: a
     * run cut short wrote whole blocks only, and the same import run again
     * writes them again. */
    while (rc == RD_OK && metrics_agg_pending(m) > METRICS_STAGE_MAX) {
        rc = metrics_agg_stage_closed(m, ctx->tx, err);
        if (rc == RD_OK)
            rc = cmd_commit_step(ctx, err);
        if (rc == RD_OK)
            metrics_agg_written(m);
    }
    if (rc == RD_OK)
        rc = metrics_agg_stage(m, ctx->tx, err);
    if (rc == RD_OK) {
        json_t *last = json_array_get(samples, json_array_size(samples) - 1);
        char ts[RDTIME_BUFLEN];
        *result = json_pack("{s:s, s:I, s:s}", "node", name, "samples", (json_int_t)json_array_size(samples),
                            "sampled_at", rdtime_format(json_integer_value(json_object_get(last, "t")), ts));
    }
    metrics_agg_free(m);
    json_decref(node);
    json_decref(region);
    json_decref(now_doc);
    json_decref(day_doc);
    json_decref(samples);
    return rc;
}

const cmd_def metrics_import_cmd_table[] = {
    { .words = "metrics import", .args = "NODE FILE", .options = CMD_MUTATES,
      .help = "vital stats of a node without an agent, one JSON sample a line ({\"t\", \"cpu_util\", ..., \"gpus\": [...]})",
      .run = metrics_import_cmd, .access = CMD_ACCESS_STAFF },
    { 0 }
};
