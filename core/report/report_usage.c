/* report_usage.c - `report usage`: per node, region, account or GPU type,
 * the GPU-hours workers held, the GPU-hours those GPUs were measured busy
 * while held, the utilisation (the one over the other, so never above
 * 100 %), the GPU-hours GPUs were busy while nobody held them, and the
 * credits customers spent and hosts earned in the window (docs/reports.md).
 *
 * Allocated time is exact (integer cgs, report_math.h).  Busy time comes
 * from each node's gpu_util history: minute points while the window lies
 * within the last 48 h, hour points when it reaches further back (minutes
 * are kept for 48 h only).  A point counts as uniform over its minute or
 * hour.  A GPU's busy time goes to the workers that held it, in
 * proportion to the share they held and the part of the point they held
 * it, and so to their group; busy time while nobody held it (work outside
 * rigdeck) is the node's group's unallocated busy time, by account a row
 * "(unallocated)" of its own.
 *
 * Money is the ledger's: the posted usage_fee, gpu_rental and
 * federated_fee transfers whose time falls in the window (a span's charge
 * is posted at the span's end), corrections netted.  Spent is what left
 * the payers' wallets, earned what reached the hosts' provider earnings;
 * by node, region and GPU type both go to the node of the worker the
 * transfer pays for (its id names the job and worker).  Device fees,
 * deposits and payouts are not GPU usage and are not counted.
 *
 * A tenant's report (report_window.account) counts only its own workers:
 * their allocated time, the busy time of the GPU shares they held (never
 * the rest of a node it shares with others), and of the money only what
 * left its wallet and reached its earnings.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "account.h"
#include "doc.h"
#include "grow.h"
#include "keyspace.h"
#include "ledger.h"
#include "metrics.h"
#include "report.h"
#include "report_math.h"

#define GROUP_TOTAL "(total)"
#define GROUP_UNALLOCATED "(unallocated)"
#define GROUP_UNKNOWN "(unknown)"

typedef struct {
    int64_t alloc_cgs;
    double busy_s;           /* while a worker of the group held the GPU */
    double unalloc_s;        /* while nobody held it */
    int measured;            /* some gpu_util reading covered this group */
    int64_t spent_ucr, earned_ucr;
} usage_acc;

typedef struct {
    const report_window *win;
    const char *by;          /* node|region|account|gpu-type */
    json_t *index;           /* group name -> index into acc */
    usage_acc *acc;
    size_t n, cap;
    report_worker *ws;       /* every worker of every job */
    size_t nw, wcap;
    json_t *by_job;          /* job id -> index of its worker 0 in ws */
    json_t *by_node;         /* node -> [indices into ws of the workers that ran there] */
} usage_state;

static usage_acc *group(usage_state *u, const char *name)
{
    if (!name || !*name)
        name = GROUP_UNKNOWN;
    json_t *i = json_object_get(u->index, name);
    if (i)
        return &u->acc[json_integer_value(i)];
    if (grow_array(&u->acc, &u->cap, u->n + 1, sizeof *u->acc) != 0 ||
        json_object_set_new(u->index, name, json_integer((json_int_t)u->n)) != 0)
        return NULL;
    memset(&u->acc[u->n], 0, sizeof *u->acc);
    return &u->acc[u->n++];
}

/* The group a worker's usage belongs to. */
static const char *worker_group(const usage_state *u, const report_worker *w)
{
    if (strcmp(u->by, "region") == 0)
        return w->region;
    if (strcmp(u->by, "account") == 0)
        return w->account;
    if (strcmp(u->by, "gpu-type") == 0)
        return w->gpu_type;
    return w->node;
}

/* 1 when the report counts this worker: every worker for fleet staff, a
 * tenant's own (the jobs it pays for) otherwise. */
static int counted(const usage_state *u, const report_worker *w)
{
    return !u->win->account || strcmp(w->account, u->win->account) == 0;
}

/* ---- allocated ------------------------------------------------------------ */

static rd_code read_workers(cmd_ctx *ctx, usage_state *u, json_t *jobs, rd_err *err)
{
    size_t j;
    json_t *job;
    json_array_foreach(jobs, j, job) {
        size_t nworkers = json_array_size(json_object_get(job, "workers"));
        json_object_set_new(u->by_job, doc_str(job, "id"), json_integer((json_int_t)u->nw));
        for (size_t w = 0; w < nworkers; w++) {
            if (grow_array(&u->ws, &u->wcap, u->nw + 1, sizeof *u->ws) != 0)
                return rd_fail(err, RD_ENOMEM, "out of memory");
            report_worker *rw = &u->ws[u->nw];
            if (!report_worker_read(job, w, ctx->now, rw))
                memset(rw, 0, sizeof *rw);   /* keeps worker w at its index */
            u->nw++;
            if (rw->job && !counted(u, rw))
                continue;   /* kept in ws only to tell whose a transfer is */
            if (rw->job && *rw->node && rw->run_to > rw->run_from) {
                json_t *list = json_object_get(u->by_node, rw->node);
                if (!list && json_object_set_new(u->by_node, rw->node, list = json_array()) != 0)
                    return rd_fail(err, RD_ENOMEM, "out of memory");
                json_array_append_new(list, json_integer((json_int_t)(u->nw - 1)));
            }
            int64_t cgs = report_gpu_cgs(rw->gpus_x100, rw->run_from, rw->run_to, u->win->since, u->win->until);
            if (cgs > 0) {
                usage_acc *a = group(u, worker_group(u, rw));
                if (!a)
                    return rd_fail(err, RD_ENOMEM, "out of memory");
                a->alloc_cgs += cgs;
            }
        }
    }
    return RD_OK;
}

/* ---- busy ----------------------------------------------------------------- */

/* The share (hundredths) of GPU gpu that worker w held. */
static int64_t held_x100(const report_worker *w, int64_t gpu)
{
    size_t i;
    const json_t *a;
    int64_t x = 0;
    json_array_foreach(w->alloc, i, a)
        if (doc_int_or(a, "gpu", -1) == gpu)
            x += doc_int(a, "x100");
    return x;
}

/* Gives each point's busy time of one GPU to the groups of the workers
 * that held it, and what nobody held to `idle_group` (by account
 * "(unallocated)"; NULL in a tenant's report, which counts only its own). */
static rd_code busy_by_worker(usage_state *u, const char *node, const char *idle_group, int64_t gpu,
                              const metrics_point *pts, size_t n, int step, rd_err *err)
{
    const report_window *win = u->win;
    rd_time end = win->now < win->until ? win->now : win->until;
    for (size_t p = 0; p < n; p++) {
        rd_time from = pts[p].t > win->since ? pts[p].t : win->since;
        rd_time to = pts[p].t + step < end ? pts[p].t + step : end;
        if (to <= from)
            continue;
        /* a reading above 100 % (an imported series) cannot make a share
         * busier than the time it was held */
        double util = pts[p].avg > 100.0 ? 1.0 : pts[p].avg > 0 ? pts[p].avg / 100.0 : 0.0;
        double busy = util * (double)(to - from), given = 0;
        size_t i;
        json_t *k;
        json_array_foreach(json_object_get(u->by_node, node), i, k) {
            const report_worker *w = &u->ws[json_integer_value(k)];
            int64_t x = held_x100(w, gpu), s = report_overlap(w->run_from, w->run_to, from, to);
            if (x <= 0 || s <= 0)
                continue;
            usage_acc *a = group(u, worker_group(u, w));
            if (!a)
                return rd_fail(err, RD_ENOMEM, "out of memory");
            double part = util * (double)x / 100.0 * (double)s;
            a->busy_s += part;
            a->measured = 1;
            given += part;
        }
        if (!idle_group)
            continue;
        int by_account = strcmp(idle_group, GROUP_UNALLOCATED) == 0;
        if (by_account && !(busy - given > 1e-6))
            continue;   /* no row of its own for idle GPUs nobody held */
        usage_acc *a = group(u, idle_group);
        if (!a)
            return rd_fail(err, RD_ENOMEM, "out of memory");
        a->measured = 1;   /* the node's GPUs were read: idle is known */
        if (busy - given > 1e-6)
            a->unalloc_s += busy - given;
    }
    return RD_OK;
}

static rd_code read_busy(cmd_ctx *ctx, usage_state *u, rd_err *err)
{
    const report_window *win = u->win;
    /* minutes are kept for 48 h: a window reaching further back reads hours */
    int step = win->since >= win->now - 48 * 3600 ? 60 : 3600;
    rd_time from = win->since - ((win->since % step) + step) % step;   /* the point that holds `since` */
    json_t *nodes = NULL, *node;
    size_t i;
    rd_code rc = tx_list(ctx->tx, KEY_NODES, &nodes, err);
    json_array_foreach(nodes, i, node) {
        const char *name = doc_str(node, "name"), *type = doc_str(node, "gpu_type");
        int64_t gpus = doc_int(node, "gpu_count");
        if (rc != RD_OK)
            break;
        if (!*type || strcmp(type, "cpu") == 0 || (u->win->account && !json_object_get(u->by_node, name)))
            continue;   /* a tenant's report reads only the nodes its workers ran on */
        for (int64_t g = 0; g < gpus && rc == RD_OK; g++) {
            char series[METRICS_SERIES_MAX];
            metrics_point *pts = NULL;
            size_t n = 0;
            snprintf(series, sizeof series, "gpu_util:%lld", (long long)g);
            rc = metrics_read_points(ctx->tx, name, series, step, from, win->until, &pts, &n, err);
            /* the group of the node itself, where its GPUs' idle time and
             * the time nobody held them go */
            const char *idle = u->win->account                      ? NULL
                               : strcmp(u->by, "account") == 0      ? GROUP_UNALLOCATED
                               : strcmp(u->by, "region") == 0       ? doc_str(node, "region")
                               : strcmp(u->by, "gpu-type") == 0     ? type
                                                                    : name;
            if (rc == RD_OK && n)
                rc = busy_by_worker(u, name, idle, g, pts, n, step, err);
            free(pts);
        }
    }
    json_decref(nodes);
    return rc;
}

/* ---- money ---------------------------------------------------------------- */

/* The worker a usage transfer pays for: ids are KIND/JOB/WORKER/... */
static const report_worker *transfer_worker(const usage_state *u, const char *id)
{
    char job[LEDGER_ID_MAX];
    const char *p = strchr(id, '/');
    if (!p)
        return NULL;
    const char *q = strchr(p + 1, '/');
    if (!q || (size_t)(q - p - 1) >= sizeof job)
        return NULL;
    snprintf(job, sizeof job, "%.*s", (int)(q - p - 1), p + 1);
    json_t *first = json_object_get(u->by_job, job);
    char *end;
    long w = strtol(q + 1, &end, 10);
    if (!first || end == q + 1 || (*end && *end != '/') || w < 0)
        return NULL;
    size_t k = (size_t)json_integer_value(first) + (size_t)w;
    if (k >= u->nw || !u->ws[k].job || strcmp(doc_str(u->ws[k].job, "id"), job) != 0)
        return NULL;
    return &u->ws[k];
}

typedef struct {
    usage_state *u;
    char since[RDTIME_BUFLEN], until[RDTIME_BUFLEN];
} money_scan;

/* Adds amount to the spent (or earned) of the group the transfer belongs
 * to: the tenant of ledger account `acct` by account, else the worker's. */
static int money_add(money_scan *m, const char *acct, const report_worker *w, int64_t spent, int64_t earned,
                     rd_err *err)
{
    usage_state *u = m->u;
    const char *owner = ledger_account_owner(acct);
    if (u->win->account && (!owner || strcmp(owner, u->win->account) != 0))
        return 0;   /* another tenant's wallet or earnings */
    const char *name = strcmp(u->by, "account") == 0 ? owner
                       : w                            ? worker_group(u, w)
                                                      : GROUP_UNKNOWN;
    usage_acc *a = group(u, name);
    if (!a)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    a->spent_ucr += spent;
    a->earned_ucr += earned;
    return 0;
}

static int money_of(const char *key, json_t *t, void *data, rd_err *err)
{
    money_scan *m = data;
    const char *kind = doc_str(t, "kind"), *at = doc_str(t, "at");
    const char *debit = doc_str(t, "debit"), *credit = doc_str(t, "credit");
    int64_t amount = doc_int(t, "amount_ucr");
    (void)key;
    if (strcmp(doc_str(t, "state"), "posted") != 0 || strcmp(at, m->since) < 0 || strcmp(at, m->until) >= 0)
        return 0;
    if (strcmp(kind, "usage_fee") != 0 && strcmp(kind, "gpu_rental") != 0 && strcmp(kind, "federated_fee") != 0)
        return 0;
    const report_worker *w = transfer_worker(m->u, doc_str(t, "id"));
    int r = 0;
    /* a charge leaves a wallet; its correction comes back to it */
    if (strncmp(debit, "wallet:", 7) == 0)
        r = money_add(m, debit, w, amount, 0, err);
    else if (strncmp(credit, "wallet:", 7) == 0)
        r = money_add(m, credit, w, -amount, 0, err);
    if (r == 0 && strncmp(credit, "earnings:", 9) == 0)
        r = money_add(m, credit, w, 0, amount, err);
    else if (r == 0 && strncmp(debit, "earnings:", 9) == 0)
        r = money_add(m, debit, w, 0, -amount, err);
    return r;
}

static rd_code read_money(cmd_ctx *ctx, usage_state *u, rd_err *err)
{
    money_scan m = { u, "", "" };
    int64_t rev = 0;
    /* "at" is always formatted the same way, so text order is time order */
    rdtime_format(u->win->since, m.since);
    rdtime_format(u->win->until, m.until);
    return ledger_scan(ctx->store, LEDGER_TRANSFERS_PREFIX, NULL, &rev, money_of, &m, err);
}

/* ---- the result ----------------------------------------------------------- */

static json_t *hours_json(int64_t cgs)
{
    return json_real((double)report_cgs_hours_x100(cgs) / 100.0);
}

static json_t *row_json(const char *key, const char *name, const usage_acc *a)
{
    /* no reading at all is unknown, not idle */
    int64_t busy_cgs = llround(a->busy_s * 100.0), unalloc_cgs = llround(a->unalloc_s * 100.0);
    if (busy_cgs > a->alloc_cgs)
        busy_cgs = a->alloc_cgs;   /* a share is busy at most while held: only rounding gets past it */
    int64_t util = a->measured ? report_ratio_bp(busy_cgs, a->alloc_cgs) : -1;
    return json_pack("{s:s, s:o, s:o, s:o, s:o, s:I, s:I}", key, name, "allocated_gpu_h", hours_json(a->alloc_cgs),
                     "busy_gpu_h", a->measured ? hours_json(busy_cgs) : json_null(), "util_pct",
                     util < 0 ? json_null() : json_real((double)util / 100.0), "unallocated_busy_gpu_h",
                     a->measured ? hours_json(unalloc_cgs) : json_null(), "spent_ucr", (json_int_t)a->spent_ucr,
                     "earned_ucr", (json_int_t)a->earned_ucr);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static rd_code usage_result(usage_state *u, json_t **result, rd_err *err)
{
    const char *key = strcmp(u->by, "gpu-type") == 0 ? "gpu_type" : u->by;
    size_t n = json_object_size(u->index), k = 0;
    const char **names = malloc((n ? n : 1) * sizeof *names);
    json_t *items = json_array(), *v;
    const char *name;
    usage_acc total = { 0, 0, 0, 0, 0, 0 };
    if (!names || !items) {
        free(names);
        json_decref(items);
        return rd_fail(err, RD_ENOMEM, "out of memory");
    }
    json_object_foreach(u->index, name, v)
        names[k++] = name;
    qsort(names, n, sizeof *names, by_name);
    for (k = 0; k < n; k++) {
        const usage_acc *a = &u->acc[json_integer_value(json_object_get(u->index, names[k]))];
        json_array_append_new(items, row_json(key, names[k], a));
        total.alloc_cgs += a->alloc_cgs;
        total.busy_s += a->busy_s;
        total.unalloc_s += a->unalloc_s;
        total.measured |= a->measured;
        total.spent_ucr += a->spent_ucr;
        total.earned_ucr += a->earned_ucr;
    }
    json_array_append_new(items, row_json(key, GROUP_TOTAL, &total));
    free(names);
    *result = json_pack("{s:o}", "items", items);
    return *result ? RD_OK : rd_fail(err, RD_ENOMEM, "out of memory");
}

rd_code report_usage_build(cmd_ctx *ctx, const report_window *win, const char *by, json_t **result, rd_err *err)
{
    usage_state u = { win, by, json_object(), NULL, 0, 0, NULL, 0, 0, json_object(), json_object() };
    json_t *jobs = NULL;
    rd_code rc = u.index && u.by_job && u.by_node ? RD_OK : rd_fail(err, RD_ENOMEM, "out of memory");
    if (rc == RD_OK)
        rc = tx_list(ctx->tx, KEY_JOBS, &jobs, err);
    if (rc == RD_OK)
        rc = read_workers(ctx, &u, jobs, err);
    if (rc == RD_OK)
        rc = read_busy(ctx, &u, err);
    if (rc == RD_OK)
        rc = read_money(ctx, &u, err);
    if (rc == RD_OK)
        rc = usage_result(&u, result, err);
    json_decref(jobs);
    json_decref(u.index);
    json_decref(u.by_job);
    json_decref(u.by_node);
    free(u.acc);
    free(u.ws);
    return rc;
}
