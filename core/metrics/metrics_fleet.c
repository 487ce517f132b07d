/* metrics_fleet.c - `metrics fleet --by region|account`: the fleet's use
 * now, rolled up per region or per tenant (seed 004: "both collectively
 * and individually"), over the nodes the actor sees (access_view.h).
 *
 * Every figure is summed in integers (readings are stored in hundredths,
 * metrics.h), so the groups of one roll-up add up exactly to its (total)
 * row.  By account, a node's use is given to the accounts whose workers
 * hold its GPUs (docs/operations.md, "Fleet roll-ups"):
 *   - a GPU's gpu_util to the holders of that GPU, weighted by the share
 *     each holds (x100); a GPU nobody holds to the node's idle party;
 *   - the node's CPU, memory and disk use split among the holders in
 *     proportion to the GPUs each holds on the node (equally among them
 *     when they hold only CPUs), the hundredths left by the division one
 *     each to the holders in name order, so nothing is lost or made up;
 *     a node nobody holds: all of it to the idle party;
 *   - the idle party is the region's owner for a private region (nobody
 *     else can run there), "(unallocated)" for a public one.
 * A tenant (member, viewer) sees only its own account's row; staff see
 * every account. */
#include "metrics_int.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "access_view.h"
#include "doc.h"
#include "fleet.h"
#include "grow.h"
#include "keyspace.h"
#include "node_health.h"

#define ROLLUP_UNALLOCATED "(unallocated)"
#define ROLLUP_TOTAL "(total)"
#define ROLLUP_MAX_GPUS 1024   /* a GPU index beyond this is not a reading (metrics import's bound) */

typedef struct {
    char *name;
    int64_t nodes, reporting;
    int64_t gpus, alloc_x100;           /* by region only: gpus */
    int64_t gpu_num, gpu_den;           /* sum of gpu_util (hundredths) x weight (x100), sum of weights */
    int64_t cpu_sum, cpu_n;             /* by region: node cpu_util hundredths, their count */
    int64_t cpu_cores;                  /* by region */
    int64_t cpu_used;                   /* cores busy, in 1/10000 of a core */
    int64_t mem_used, disk_used;        /* hundredths of a GB */
    int64_t mem_total, disk_total;      /* GB, by region */
} rollup_acc;

typedef struct {
    int by_account;
    const char *only;                   /* a tenant: its own account; NULL: every one */
    rollup_acc *acc;
    size_t n, cap;
    json_t *index;                      /* name -> index into acc */
    int64_t nodes, reporting;           /* distinct nodes counted (by account, one node may have several rows) */
} rollup;

static rollup_acc *group(rollup *r, const char *name)
{
    json_t *i = json_object_get(r->index, name);
    if (i)
        return &r->acc[json_integer_value(i)];
    if (grow_array(&r->acc, &r->cap, r->n + 1, sizeof *r->acc) != 0)
        return NULL;
    rollup_acc *a = &r->acc[r->n];
    memset(a, 0, sizeof *a);
    if (!(a->name = strdup(name)) || json_object_set_new(r->index, name, json_integer((json_int_t)r->n)) != 0) {
        free(a->name);
        return NULL;
    }
    r->n++;
    return a;
}

/* One account's hold on a node: its share of each GPU (x100). */
typedef struct {
    const char *account;
    int64_t total_x100;
    int64_t gpu_x100[ROLLUP_MAX_GPUS];
} holder;

/* The accounts whose workers hold the node, in name order (the order the
 * left-over hundredths go in). */
static size_t node_holders(const json_t *node, const json_t *jobs, holder *h, size_t max)
{
    size_t n = 0, i, k;
    json_t *wid, *a;
    json_array_foreach(json_object_get(node, "workers"), i, wid) {
        const char *id = json_string_value(wid), *slash = id ? strrchr(id, '/') : NULL;
        if (!slash)
            continue;
        char job_id[256];
        snprintf(job_id, sizeof job_id, "%.*s", (int)(slash - id), id);
        const json_t *job = json_object_get(jobs, job_id);
        const json_t *w = json_array_get(json_object_get(job, "workers"), (size_t)atoll(slash + 1));
        const char *account = doc_str(job, "project_owner");
        if (!w || !*account)
            continue;
        size_t at = 0;
        while (at < n && strcmp(h[at].account, account) < 0)
            at++;
        if (at == n || strcmp(h[at].account, account) != 0) {
            if (n == max)
                continue;
            memmove(&h[at + 1], &h[at], (n - at) * sizeof *h);
            memset(&h[at], 0, sizeof *h);
            h[at].account = account;
            n++;
        }
        json_array_foreach(json_object_get(w, "alloc"), k, a) {
            int64_t g = doc_int_or(a, "gpu", -1), x = doc_int(a, "x100");
            if (g >= 0 && g < ROLLUP_MAX_GPUS && x > 0) {
                h[at].gpu_x100[g] += x;
                h[at].total_x100 += x;
            }
        }
    }
    return n;
}

/* value split among the holders by weight, exactly: floors, then the
 * hundredths left one each in name order. */
static void split(rollup *r, const holder *h, size_t n, const int64_t *weight, int64_t wsum, int64_t value,
                  size_t field)
{
    int64_t given = 0;
    int64_t share[64];
    for (size_t i = 0; i < n; i++) {
        share[i] = wsum > 0 ? value / wsum * weight[i] + value % wsum * weight[i] / wsum : 0;
        given += share[i];
    }
    for (size_t i = 0; given < value && i < n; i++, given++)
        share[i]++;
    for (size_t i = 0; i < n; i++) {
        rollup_acc *a = group(r, h[i].account);
        if (a)
            *(int64_t *)((char *)a + field) += share[i];
    }
}

/* The node's latest readings: cpu_util, mem_used_gb, disk_used_gb and each
 * GPU's gpu_util (-1 when absent), or 0 when there is none fresh. */
typedef struct {
    int64_t cpu, mem, disk;
    int64_t gpu[ROLLUP_MAX_GPUS];
    int ngpu;
} reading;

static int read_last(const json_t *last_doc, rd_time now, reading *rd)
{
    rd_time sampled = doc_time(last_doc, "sampled_at");
    if (!sampled || now - sampled > METRICS_STALE_S)
        return 0;   /* no reading, or one too old to count as now */
    const json_t *last = json_object_get(last_doc, "last");
    rd->cpu = doc_int(last, "cpu_util");
    rd->mem = doc_int(last, "mem_used_gb");
    rd->disk = doc_int(last, "disk_used_gb");
    rd->ngpu = 0;
    const char *series;
    json_t *v;
    json_object_foreach((json_t *)last, series, v) {
        if (strncmp(series, "gpu_util:", 9) != 0)
            continue;
        int g = atoi(series + 9);
        if (g < 0 || g >= ROLLUP_MAX_GPUS)
            continue;
        while (rd->ngpu <= g)
            rd->gpu[rd->ngpu++] = -1;
        rd->gpu[g] = json_integer_value(v);
    }
    return 1;
}

static void add_by_region(rollup *r, const json_t *node, const reading *rd, int fresh)
{
    rollup_acc *a = group(r, doc_str(node, "region"));
    size_t i;
    json_t *slot;
    if (!a)
        return;
    int64_t cores = doc_int(node, "cpu_cores");
    a->nodes++;
    a->gpus += node_health_gpu_count(node);
    json_array_foreach(json_object_get(node, "gpu_alloc"), i, slot)
        a->alloc_x100 += json_integer_value(slot);
    a->cpu_cores += cores;
    a->mem_total += doc_int(node, "memory_gb");
    a->disk_total += doc_int(node, "disk_gb");
    if (!fresh)
        return;
    a->reporting++;
    a->cpu_sum += rd->cpu;
    a->cpu_n++;
    a->cpu_used += rd->cpu * cores;
    a->mem_used += rd->mem;
    a->disk_used += rd->disk;
    for (int g = 0; g < rd->ngpu; g++)
        if (rd->gpu[g] >= 0) {
            a->gpu_num += rd->gpu[g] * 100;
            a->gpu_den += 100;
        }
}

static void add_by_account(rollup *r, const json_t *node, const char *idle, const json_t *jobs, const reading *rd,
                           int fresh, holder *h, size_t max)
{
    size_t n = node_holders(node, jobs, h, max);
    int64_t weight[64], wsum = 0;
    int64_t cores = doc_int(node, "cpu_cores");
    if (n == 0) {
        /* nobody holds the node: its idle party has it all */
        h[0].account = idle;
        h[0].total_x100 = 0;
        memset(h[0].gpu_x100, 0, sizeof h[0].gpu_x100);
        n = 1;
    }
    for (size_t i = 0; i < n; i++) {
        rollup_acc *a = group(r, h[i].account);
        if (!a)
            return;
        a->nodes++;
        a->reporting += fresh;
        a->alloc_x100 += h[i].total_x100;
        weight[i] = h[i].total_x100;
        wsum += weight[i];
    }
    if (wsum == 0)   /* holders of CPUs alone (or the idle party): equal shares */
        for (size_t i = 0; i < n; i++)
            wsum += weight[i] = 1;
    /* the idle party has a part in a node where a GPU is held by nobody */
    int64_t count = node_health_gpu_count(node);
    int idle_holds = 0;
    for (size_t i = 0; i < n; i++)
        idle_holds |= strcmp(h[i].account, idle) == 0;   /* its node is counted already */
    for (int64_t g = 0; !idle_holds && g < count && g < ROLLUP_MAX_GPUS; g++) {
        int64_t held = 0;
        for (size_t i = 0; i < n; i++)
            held += h[i].gpu_x100[g];
        rollup_acc *a = held ? NULL : group(r, idle);
        if (a) {
            a->nodes++;
            a->reporting += fresh;
            break;
        }
    }
    if (!fresh)
        return;
    split(r, h, n, weight, wsum, rd->cpu * cores, offsetof(rollup_acc, cpu_used));
    split(r, h, n, weight, wsum, rd->mem, offsetof(rollup_acc, mem_used));
    split(r, h, n, weight, wsum, rd->disk, offsetof(rollup_acc, disk_used));
    for (int g = 0; g < rd->ngpu; g++) {
        if (rd->gpu[g] < 0)
            continue;
        int64_t held = 0;
        for (size_t i = 0; i < n; i++)
            held += h[i].gpu_x100[g];
        rollup_acc *a = held ? NULL : group(r, idle);
        if (a) {
            a->gpu_num += rd->gpu[g] * 100;
            a->gpu_den += 100;
        }
        for (size_t i = 0; held && i < n; i++) {
            if (h[i].gpu_x100[g] <= 0 || !(a = group(r, h[i].account)))
                continue;
            a->gpu_num += rd->gpu[g] * h[i].gpu_x100[g];
            a->gpu_den += h[i].gpu_x100[g];
        }
    }
}

/* A mean of hundredths to one decimal (integer rounding), or null. */
static json_t *mean_x10(int64_t num, int64_t den)
{
    if (den <= 0)
        return json_null();
    int64_t x10 = (num * 10 + den * 50) / (den * 100);
    return json_real((double)x10 / 10.0);
}

static json_t *hundredths(int64_t v)
{
    return json_real((double)v / 100.0);
}

static json_t *acc_json(const rollup *r, const rollup_acc *a)
{
    int reg = !r->by_account;
    json_t *o = json_object();
    json_object_set_new(o, reg ? "region" : "account", json_string(a->name));
    json_object_set_new(o, "nodes", json_integer(a->nodes));
    json_object_set_new(o, "nodes_reporting", json_integer(a->reporting));
    json_object_set_new(o, "gpus", reg ? json_integer(a->gpus) : json_null());
    json_object_set_new(o, "gpus_allocated", hundredths(a->alloc_x100));
    json_object_set_new(o, "gpu_util_mean", mean_x10(a->gpu_num, a->gpu_den));
    json_object_set_new(o, "cpu_cores", reg ? json_integer(a->cpu_cores) : json_null());
    json_object_set_new(o, "cpu_util_mean", reg ? mean_x10(a->cpu_sum * 100, a->cpu_n * 100) : json_null());
    /* 1/10000 of a core to hundredths, rounded */
    json_object_set_new(o, "cpu_used_cores", hundredths((a->cpu_used + 50) / 100));
    json_object_set_new(o, "mem_used_gb", hundredths(a->mem_used));
    json_object_set_new(o, "mem_total_gb", reg ? json_integer(a->mem_total) : json_null());
    json_object_set_new(o, "disk_used_gb", hundredths(a->disk_used));
    json_object_set_new(o, "disk_total_gb", reg ? json_integer(a->disk_total) : json_null());
    return o;
}

static int by_name(const void *x, const void *y)
{
    return strcmp(((const rollup_acc *)x)->name, ((const rollup_acc *)y)->name);
}

/* The rows in name order, a tenant's own alone by account, then (total):
 * the sum of the rows shown. */
static json_t *rollup_json(rollup *r)
{
    json_t *items = json_array();
    rollup_acc total = { 0 };
    total.name = ROLLUP_TOTAL;
    if (r->n)
        qsort(r->acc, r->n, sizeof *r->acc, by_name);
    for (size_t i = 0; i < r->n; i++) {
        const rollup_acc *a = &r->acc[i];
        if (r->only && strcmp(a->name, r->only) != 0)
            continue;
        json_array_append_new(items, acc_json(r, a));
        total.nodes += a->nodes;
        total.reporting += a->reporting;
        total.gpus += a->gpus;
        total.alloc_x100 += a->alloc_x100;
        total.gpu_num += a->gpu_num;
        total.gpu_den += a->gpu_den;
        total.cpu_sum += a->cpu_sum;
        total.cpu_n += a->cpu_n;
        total.cpu_cores += a->cpu_cores;
        total.cpu_used += a->cpu_used;
        total.mem_used += a->mem_used;
        total.disk_used += a->disk_used;
        total.mem_total += a->mem_total;
        total.disk_total += a->disk_total;
    }
    if (!r->only) {
        total.nodes = r->nodes;
        total.reporting = r->reporting;
    }
    json_array_append_new(items, acc_json(r, &total));
    return json_pack("{s:o}", "items", items);
}

/* Every job a worker on these nodes belongs to, read once: id -> doc. */
static rd_code read_jobs(rd_tx *tx, const json_t *nodes, json_t **jobs, rd_err *err)
{
    json_t *keys = json_object(), *node, *wid;
    size_t i, k;
    *jobs = json_object();
    json_array_foreach(nodes, i, node)
        json_array_foreach(json_object_get(node, "workers"), k, wid) {
            const char *id = json_string_value(wid), *slash = id ? strrchr(id, '/') : NULL;
            char key[320];
            if (slash && slash - id < 256) {
                snprintf(key, sizeof key, KEY_JOBS "%.*s", (int)(slash - id), id);
                json_object_set_new(keys, key, json_true());
            }
        }
    const char **list = calloc(json_object_size(keys) + 1, sizeof *list);
    size_t n = 0;
    const char *key;
    json_t *v;
    rd_code rc = list ? RD_OK : rd_fail(err, RD_ENOMEM, "out of memory");
    json_object_foreach(keys, key, v)
        if (list)
            list[n++] = key;
    if (rc == RD_OK && n)
        rc = tx_prefetch(tx, list, n, err);
    for (size_t j = 0; rc == RD_OK && j < n; j++) {
        json_t *job = NULL;
        rc = tx_get(tx, list[j], &job, err);
        if (rc == RD_OK && job)
            json_object_set_new(*jobs, list[j] + strlen(KEY_JOBS), job);
    }
    free(list);
    json_decref(keys);
    return rc;
}

rd_code metrics_fleet_rollup(rd_tx *tx, const json_t *nodes, const json_t *regions, const char *by,
                             const char *region, const char *only, rd_time now, json_t **result, rd_err *err)
{
    rollup r = { .by_account = strcmp(by, "account") == 0, .only = strcmp(by, "account") == 0 ? only : NULL, .index = json_object() };
    json_t *lasts = NULL, *last_of = json_object(), *owner_of = json_object(), *jobs = NULL, *doc;
    holder *h = calloc(64, sizeof *h);
    reading *rd = malloc(sizeof *rd);
    size_t i;
    rd_code rc = h && rd && r.index && last_of && owner_of ? RD_OK : rd_fail(err, RD_ENOMEM, "out of memory");
    if (rc == RD_OK)
        rc = tx_list(tx, KEY_METRICS "last/", &lasts, err);
    if (rc == RD_OK && r.by_account)
        rc = read_jobs(tx, nodes, &jobs, err);
    json_array_foreach(lasts, i, doc)
        json_object_set(last_of, doc_str(doc, "node"), doc);
    /* the idle party of each region; by region every region seen has a row */
    json_array_foreach(regions, i, doc) {
        if (region && strcmp(doc_str(doc, "name"), region) != 0)
            continue;
        json_object_set_new(owner_of, doc_str(doc, "name"),
                            json_string(json_is_true(json_object_get(doc, "public")) || !*doc_str(doc, "owner")
                                            ? ROLLUP_UNALLOCATED : doc_str(doc, "owner")));
        if (rc == RD_OK && !r.by_account && !group(&r, doc_str(doc, "name")))
            rc = rd_fail(err, RD_ENOMEM, "out of memory");
    }
    json_array_foreach(nodes, i, doc) {
        if (rc != RD_OK)
            break;
        if (strcmp(doc_str(doc, "role"), "compute") != 0 || strcmp(doc_str(doc, "state"), "removed") == 0 ||
            (region && strcmp(doc_str(doc, "region"), region) != 0))
            continue;
        int fresh = read_last(json_object_get(last_of, doc_str(doc, "name")), now, rd);
        r.nodes++;
        r.reporting += fresh;
        if (!r.by_account) {
            add_by_region(&r, doc, rd, fresh);
            continue;
        }
        const char *idle = json_string_value(json_object_get(owner_of, doc_str(doc, "region")));
        add_by_account(&r, doc, idle ? idle : ROLLUP_UNALLOCATED, jobs, rd, fresh, h, 64);
    }
    if (rc == RD_OK && !(*result = rollup_json(&r)))
        rc = rd_fail(err, RD_ENOMEM, "out of memory");
    for (i = 0; i < r.n; i++)
        free(r.acc[i].name);
    free(r.acc);
    free(h);
    free(rd);
    json_decref(r.index);
    json_decref(lasts);
    json_decref(last_of);
    json_decref(owner_of);
    json_decref(jobs);
    return rc;
}

rd_code metrics_fleet_rollup_cmd(cmd_ctx *ctx, const char *by, const char *region, json_t **result, rd_err *err)
{
    json_t *nodes = NULL, *regions = NULL;
    access_view view;
    if (strcmp(by, "region") != 0 && strcmp(by, "account") != 0)
        return rd_fail(err, RD_EINVAL, "--by must be one of region, account, got '%s'", by);
    access_view_open(ctx, &view);
    rd_code rc = tx_list(ctx->tx, KEY_REGIONS, &regions, err);
    if (rc == RD_OK)
        access_view_filter(&view, regions, access_view_sees_region);
    int seen = 0;
    size_t i;
    json_t *doc;
    json_array_foreach(regions, i, doc)
        seen |= region && strcmp(doc_str(doc, "name"), region) == 0;
    if (rc == RD_OK && region && !seen)
        rc = access_view_missing(err, "region", region);
    if (rc == RD_OK)
        rc = tx_list(ctx->tx, KEY_NODES, &nodes, err);
    if (rc == RD_OK)
        access_view_filter(&view, nodes, access_view_sees_node);
    int staff = access_view_staff(&view);
    access_view_close(&view);
    if (rc == RD_OK)
        rc = metrics_fleet_rollup(ctx->tx, nodes, regions, by, region, staff ? NULL : ctx->actor, ctx->now, result,
                                  err);
    json_decref(nodes);
    json_decref(regions);
    return rc;
}
