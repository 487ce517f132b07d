/* bench_sched.c - one full scheduling pass over a synthetic fleet.
 *
 * Builds, directly in a temp SQLite store (through the tx API: building it
 * through commands would take longer than the pass), N compute nodes of 8
 * GPUs of mixed types in ten public regions and M queued single-worker jobs
 * (1, 2 or 4 GPUs, or half a GPU on sharing nodes), then times `sched run`
 * through the command language: placements per second end to end, then a
 * second pass in which nothing more fits (the idle pass, answered from the
 * idle record), an idle pass after writes no pass reads (an edge device
 * reporting, with its audit record: answered from the record and the
 * history since), an idle pass after a write the pass must look at (a key
 * it does not know), which scans the queue again, and the peak resident
 * memory.  For scale, two floors for the writes the pass made: the same
 * documents rewritten through the store layer in the same batches with
 * nothing else (read beforehand; decoding, guards, history timed), and
 * the same bytes
 * written raw: plain SQLite UPDATEs of (key, value) rows, in transactions
 * of the same size, into a table holding every job and node, with the
 * store's pragmas (sched_vs_store_floor = pass time over that).  Then a
 * fleet with a long history (bench_sched_history: 100,000 ended jobs,
 * RIGDECK_BENCH_HISTORY_JOBS): a pass that reads the queue from what its
 * process remembers against one that scans every job.
 *
 * Scale: 10000 nodes x 8 GPUs and 100000 jobs (the issue's); RIGDECK_BENCH_SMALL=1
 * for 1000 x 10000, or RIGDECK_BENCH_NODES / RIGDECK_BENCH_JOBS.
 * RIGDECK_BENCH_KEEP=1 keeps the store and prints where it is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "bench_util.h"
#include "bench_etcd_raw.h"
#include "cmd.h"
#include "jsonin.h"
#include "ledger.h"
#include "sched_memo.h"
#include "sched_run.h"
#include "store_sqlite_int.h"
#include "tx.h"

static void die(const char *what, const rd_err *err)
{
    fprintf(stderr, "bench_sched: %s: %s\n", what, err ? err->msg : "failed");
    exit(1);
}

static void commit(rd_tx *tx)
{
    rd_err err;
    if (tx_commit(tx, NULL, &err) != RD_OK)
        die("commit", &err);
    tx_reset(tx);
}

/* The documents the pass changed, as (key, value) pairs, and every job and
 * node for the raw table's initial contents. */
typedef struct {
    char **keys, **vals;
    size_t *lens, n, cap;
    int64_t *revs;        /* each value's mod_revision */
    int changed_only, nodes;
} raw_docs;

static int raw_collect(store_kv *kv, void *data)
{
    raw_docs *d = data;
    if (d->changed_only && (d->nodes ? memmem(kv->value, kv->value_len, "\"workers\":[]", 12) != NULL
                                      : !memmem(kv->value, kv->value_len, "\"running\"", 9)))
        return 0;
    if (d->n == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 1024;
        d->keys = realloc(d->keys, d->cap * sizeof *d->keys);
        d->vals = realloc(d->vals, d->cap * sizeof *d->vals);
        d->lens = realloc(d->lens, d->cap * sizeof *d->lens);
        d->revs = realloc(d->revs, d->cap * sizeof *d->revs);
        if (!d->keys || !d->vals || !d->lens || !d->revs)
            die("realloc", NULL);
    }
    d->keys[d->n] = strdup(kv->key);
    d->vals[d->n] = malloc(kv->value_len ? kv->value_len : 1);
    if (!d->keys[d->n] || !d->vals[d->n])
        die("malloc", NULL);
    memcpy(d->vals[d->n], kv->value, kv->value_len);
    d->revs[d->n] = kv->mod_revision;
    d->lens[d->n++] = kv->value_len;
    return 0;
}

static void raw_scan(store_t *st, raw_docs *d, int changed_only)
{
    rd_err err;
    int64_t rev = 0;
    d->changed_only = changed_only;
    d->nodes = 0;
    if (store_scan(st, "/rigdeck/jobs/", &rev, raw_collect, d, &err) != RD_OK)
        die("raw scan", &err);
    d->nodes = 1;
    rev = 0;
    if (store_scan(st, "/rigdeck/nodes/", &rev, raw_collect, d, &err) != RD_OK)
        die("raw scan", &err);
}

static void raw_free(raw_docs *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->keys[i]);
        free(d->vals[i]);
    }
    free(d->keys);
    free(d->vals);
    free(d->lens);
    free(d->revs);
}

static void raw_sql(sqlite3 *db, const char *sql)
{
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
        fprintf(stderr, "bench_sched: raw floor: %s: %s\n", sql, sqlite3_errmsg(db));
        exit(1);
    }
}

/* Writes rows [0, d->n) with stmt in transactions of `batch`. */
static void raw_write(sqlite3 *db, sqlite3_stmt *q, const raw_docs *d, size_t batch)
{
    for (size_t i = 0; i < d->n;) {
        raw_sql(db, "BEGIN IMMEDIATE");
        for (size_t m = 0; m < batch && i < d->n; m++, i++) {
            sqlite3_bind_blob(q, 1, d->keys[i], (int)strlen(d->keys[i]), SQLITE_STATIC);
            sqlite3_bind_blob(q, 2, d->vals[i], (int)d->lens[i], SQLITE_STATIC);
            if (sqlite3_step(q) != SQLITE_DONE) {
                fprintf(stderr, "bench_sched: raw floor: %s\n", sqlite3_errmsg(db));
                exit(1);
            }
            sqlite3_reset(q);
        }
        raw_sql(db, "COMMIT");
    }
}

/* The raw floor: every job and node inserted (not timed), then the changed
 * documents written again as UPDATEs in batches of 512 (timed). */
static double raw_floor(store_t *st, const char *dir, size_t *nchanged)
{
    raw_docs all = { 0 }, changed = { 0 };
    char path[600];
    sqlite3 *db;
    sqlite3_stmt *ins, *upd;
    raw_scan(st, &all, 0);
    raw_scan(st, &changed, 1);
    snprintf(path, sizeof path, "%s/raw-floor.db", dir);
    if (sqlite3_open(path, &db) != SQLITE_OK)
        die("raw floor open", NULL);
    raw_sql(db, RD_SQLITE_PRAGMAS "CREATE TABLE kv (key BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;");
    if (sqlite3_prepare_v2(db, "INSERT INTO kv (key, value) VALUES (?1, ?2)", -1, &ins, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "UPDATE kv SET value = ?2 WHERE key = ?1", -1, &upd, NULL) != SQLITE_OK)
        die("raw floor prepare", NULL);
    raw_write(db, ins, &all, 4096);
    double t0 = now_s();
    raw_write(db, upd, &changed, 512);
    double t = now_s() - t0;
    *nchanged = changed.n;
    sqlite3_finalize(ins);
    sqlite3_finalize(upd);
    sqlite3_close(db);
    raw_free(&all);
    raw_free(&changed);
    return t;
}

/* The store's share of a pass: the documents the pass changed (read
 * first, not timed) rewritten through tx, each decoded and guarded by the
 * revision it was read at, 512 a transaction, no scheduling. */
static double store_floor(cmd_ctx *ctx)
{
    raw_docs changed = { 0 };
    rd_err err;
    json_error_t jerr;
    rd_tx *tx = tx_new(ctx->store);
    raw_scan(ctx->store, &changed, 1);
    double t0 = now_s();
    for (size_t i = 0; i < changed.n; i++) {
        json_t *doc = jsonin_loadb_any(changed.vals[i], changed.lens[i], &jerr);   /* as the pass decodes */
        if (tx_guard(tx, changed.keys[i], doc, changed.revs[i], &err) != RD_OK ||
            tx_put(tx, changed.keys[i], doc, &err) != RD_OK)
            die("floor", &err);
        if ((i + 1) % 512 == 0)
            commit(tx);
    }
    commit(tx);
    double t = now_s() - t0;
    tx_free(tx);
    raw_free(&changed);
    return t;
}

/* Builds the fleet through the tx API: an account with credit, ten public
 * regions, prices, `nodes` compute nodes of 8 GPUs and `jobs` queued
 * single-worker jobs, per_commit nodes or jobs a transaction. */
static void build_fleet(cmd_ctx *ctx, long nodes, long jobs, long per_commit)
{
    static const char *const types[] = { "a100", "v100", "t4", "rtx3090", "rtx-a6000" };
    char key[RD_KEY_MAX];
    rd_err err;
    rd_tx *tx = tx_new(ctx->store);
    tx_put(tx, "/rigdeck/accounts/bench", json_pack("{s:s, s:s, s:b}", "name", "bench", "plan", "team", "admin", 0), &err);
    for (int r = 0; r < 10; r++)
        tx_put(tx, tx_key(key, "/rigdeck/regions/r%d", r),
               json_pack("{s:s, s:s, s:s, s:b, s:s, s:s}", "name", key + 17, "owner", "default", "provider", "physical",
                         "public", 1, "storage", "local", "state", "active"), &err);
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        tx_put(tx, tx_key(key, "/rigdeck/prices/%s", types[t]),
               json_pack("{s:s, s:I}", "name", types[t], "price_ucr", (json_int_t)1000000), &err);
    ledger_transfer dep = { "deposit/bench/seed", "external", "wallet:bench", 1000000000000LL, "deposit", ctx->now, "bench" };
    if (ledger_stage(tx, &dep, NULL, &err) != RD_OK)
        die("deposit", &err);
    commit(tx);
    for (long i = 0; i < nodes; i++) {
        char name[32];
        snprintf(name, sizeof name, "n%05ld", i);
        json_t *node = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:[], s:b, s:n}", "name", name, "region",
                                 "r0", "owner", "default", "provider", "physical", "role", "compute", "state", "active",
                                 "gpu_count", 8, "gpus_used", 0, "disk_gb", 4000, "workers", "gpu_sharing", i % 10 == 0,
                                 "last_used_at");
        json_object_set_new(node, "region", json_sprintf("r%ld", i % 10));
        json_object_set_new(node, "gpu_type", json_string(types[i % 5]));
        json_object_set_new(node, "agent_mode", json_string("none"));   /* no agents: placement is the start */
        tx_put(tx, tx_key(key, "/rigdeck/nodes/%s", name), node, &err);
        if (i % per_commit == per_commit - 1)
            commit(tx);
    }
    commit(tx);
    static const int sizes[] = { 100, 200, 100, 400, 50 };
    for (long i = 0; i < jobs; i++) {
        char id[32], ts[RDTIME_BUFLEN];
        int gpus = sizes[i % 5];
        snprintf(id, sizeof id, "job-%08lx", (unsigned long)i);
        json_t *job = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:s, s:n, s:{s:[s], s:i, s:i, s:n}, s:[{s:i, s:s, s:n, s:[]}]}",
                                "id", id, "name", id, "type", "training", "project", "default", "project_owner", "bench",
                                "creator", "bench", "priority", 0, "submitted_at", rdtime_format(ctx->now - jobs + i, ts),
                                "region_pin", "resources", "gpu_types", types[(i / 5) % 5], "gpus_x100", gpus,
                                "disk_size", 50, "max_price_ucr", "workers", "index", 0, "state", "waiting_gpus",
                                "started_at", "alloc");
        tx_put(tx, tx_key(key, "/rigdeck/jobs/%s", id), job, &err);
        if (i % per_commit == per_commit - 1)
            commit(tx);
    }
    commit(tx);
    tx_free(tx);
}

/* ---- on etcd ---------------------------------------------------------------- */

/* When the pass's batches commit: the first and last flush (the pass's
 * read phase ends at the first). */
static long g_flushes;
static double g_flush_first, g_flush_last, g_flush_first_cpu, g_flush_last_cpu;

/* This process's CPU time (user + system), in seconds. */
static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static void etcd_flush_hook(void *data)
{
    double t = now_s(), c = cpu_s();
    (void)data;
    if (!g_flushes++) {
        g_flush_first = t;
        g_flush_first_cpu = c;
    }
    g_flush_last = t;
    g_flush_last_cpu = c;
}

static void die_msg(const char *what, const char *msg)
{
    fprintf(stderr, "bench_sched: %s: %s\n", what, msg);
    exit(1);
}

/* Deletes every rigdeck key (the etcd is the bench run's own, used by the
 * benchmarks one after another). */
static void etcd_wipe(store_t *st)
{
    rd_err err;
    store_txn_result res;
    store_op del = { STORE_OP_DELETE_PREFIX, "/rigdeck/", NULL, 0, 0 };
    if (store_txn(st, NULL, 0, &del, 1, NULL, 0, &res, &err) != RD_OK)
        die("etcd wipe", &err);
}

/* The writes of the pass, read back from the store's history of revisions
 * (rev0, rev1]: every put of a /rigdeck/ key (not the store layer's retry
 * marker), in revision order.  One revision is one commit of the pass, so
 * grouping by mod_revision gives exactly the pass's transactions. */
typedef struct {
    store_event *ev;
    size_t nev;
    size_t *idx, n;     /* the puts of /rigdeck/ keys among ev */
    size_t commits, max_puts;
} pass_writes;

static void pass_writes_read(store_t *st, int64_t rev0, int64_t rev1, pass_writes *w)
{
    rd_err err;
    int more = 0;
    memset(w, 0, sizeof *w);
    if (store_history(st, rev0, rev1, 10000000, 60000, &w->ev, &w->nev, &more, &err) != RD_OK)
        die("history of the pass", &err);
    if (more)
        die_msg("history of the pass", "too many events");
    w->idx = calloc(w->nev + 1, sizeof *w->idx);
    if (!w->idx)
        die_msg("calloc", "out of memory");
    for (size_t i = 0, run = 0; i < w->nev; i++) {
        const store_kv *kv = &w->ev[i].kv;
        if (w->ev[i].type != STORE_EVENT_PUT || strncmp(kv->key, "/rigdeck/", 9) != 0)
            continue;
        if (w->n == 0 || w->ev[w->idx[w->n - 1]].kv.mod_revision != kv->mod_revision) {
            w->commits++;
            run = 0;
        }
        if (++run > w->max_puts)
            w->max_puts = run;
        w->idx[w->n++] = i;
    }
}

static void pass_writes_free(pass_writes *w)
{
    store_events_free(w->ev, w->nev);
    free(w->idx);
}

/* The pass's writes posted raw: one /v3/kv/txn of plain puts per commit
 * of the pass, the same keys and values; seconds.  guarded: in the shape
 * the store layer sends (a compare on every key, and the retry marker),
 * to tell etcd's share of the layer's commits from the client's. */
static double etcd_raw_floor(raw_etcd *r, const pass_writes *w, int guarded)
{
    const char *marker = guarded ? "~bench/marker" : NULL;
    double t0 = now_s();
    for (size_t i = 0; i < w->n;) {
        int64_t rev = w->ev[w->idx[i]].kv.mod_revision;
        raw_etcd_txn_begin(r, marker);
        for (size_t j = i; guarded && j < w->n && w->ev[w->idx[j]].kv.mod_revision == rev; j++)
            raw_etcd_txn_compare(r, w->ev[w->idx[j]].kv.key);
        for (; i < w->n && w->ev[w->idx[i]].kv.mod_revision == rev; i++) {
            const store_kv *kv = &w->ev[w->idx[i]].kv;
            raw_etcd_txn_put(r, kv->key, kv->value, kv->value_len);
        }
        raw_etcd_txn_end(r, marker);
        const char *msg = raw_etcd_post(r, r->txn_url);
        if (msg)
            die_msg("raw etcd", msg);
    }
    return now_s() - t0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A smaller fleet on etcd: one full pass through the command language,
 * then its writes posted raw in the same transactions. */
static void bench_sched_etcd(const char *url)
{
    long nodes = env_long("RIGDECK_BENCH_ETCD_NODES", 500);
    long jobs = env_long("RIGDECK_BENCH_ETCD_JOBS", 5000);
    rd_err err;
    cmd_ctx ctx = { 0 };
    ctx.store_url = url;
    ctx.actor = "default";
    ctx.now = 1793491200;   /* 2026-11-01T00:00:00Z */
    store_t *st = NULL;   /* wiped before the command context opens it (and sets the store up) */
    if (store_open(url, NULL, &st, &err) != RD_OK)
        die("open etcd", &err);
    etcd_wipe(st);
    store_close(st);
    if (cmd_ctx_open_store(&ctx, &err) != RD_OK)
        die("open etcd", &err);
    double t0 = now_s();
    build_fleet(&ctx, nodes, jobs, 100);   /* etcd takes at most 128 operations a transaction */
    printf("etcd: built %ld nodes x 8 GPUs and %ld queued jobs in %.1f s\n", nodes, jobs, now_s() - t0);

    int64_t rev0 = 0, rev1 = 0;
    json_t *res = NULL;
    raw_etcd r;
    long ranges0, txns0, ranges1, txns1;
    if (raw_etcd_open(&r, url) != 0)
        die_msg("raw etcd", "cannot open a connection");
    if (store_revision(ctx.store, &rev0, &err) != RD_OK)
        die("revision", &err);
    ctx.now += 60;
    raw_etcd_served(&r, &ranges0, &txns0);
    sched_run_set_flush_hook(etcd_flush_hook, NULL);
    double c0 = cpu_s();
    t0 = now_s();
    if (cmd_exec_line(&ctx, "sched run", &res, NULL, &err) != RD_OK)
        die("sched run on etcd", &err);
    double t1 = now_s(), c1 = cpu_s(), full = t1 - t0, cpu = c1 - c0;
    sched_run_set_flush_hook(NULL, NULL);
    raw_etcd_served(&r, &ranges1, &txns1);
    long placed = (long)json_integer_value(json_object_get(res, "placed"));
    long waiting = (long)json_integer_value(json_object_get(res, "waiting"));
    json_decref(res);
    if (store_revision(ctx.store, &rev1, &err) != RD_OK)
        die("revision", &err);

    pass_writes w;
    pass_writes_read(ctx.store, rev0, rev1, &w);
    double raw[3], guarded[3];
    for (int i = 0; i < 3; i++) {   /* the same keys and values again each time */
        raw[i] = etcd_raw_floor(&r, &w, 0);
        guarded[i] = etcd_raw_floor(&r, &w, 1);
    }
    qsort(raw, 3, sizeof raw[0], cmp_double);
    qsort(guarded, 3, sizeof guarded[0], cmp_double);
    double raw_s = raw[1], guarded_s = guarded[1], rate = full > 0 ? (double)placed / full : 0.0;
    double per_commit = w.commits ? (double)w.n / (double)w.commits : 0.0, read_s = g_flushes ? g_flush_first - t0 : full;
    raw_etcd_close(&r);

    printf("etcd full pass: %ld placed, %ld waiting in %.2f s (%.0f placements/s); it wrote %zu documents in %zu "
           "commits (%.1f a commit on average, at most %zu)\n", placed, waiting, full, rate, w.n, w.commits,
           per_commit, w.max_puts);
    printf("etcd pass phases: %.2f s until the first batch commits (reading the queue and the fleet; %.2f s of "
           "it the client's CPU), %.2f s from there to the last batch's commit (%ld batches; %.2f s CPU), %.2f s "
           "after (%.2f s CPU)\n", read_s, g_flushes ? g_flush_first_cpu - c0 : cpu,
           g_flushes ? g_flush_last - g_flush_first : 0.0, g_flushes, g_flush_last_cpu - g_flush_first_cpu,
           g_flushes ? t1 - g_flush_last : 0.0, g_flushes ? c1 - g_flush_last_cpu : 0.0);
    printf("etcd raw floor: the same %zu documents posted as %zu plain /v3/kv/txn requests, one per commit of the "
           "pass (same keys, values and grouping; median of 3), take %.3f s: the pass runs at %.2f of that speed\n",
           w.n, w.commits, raw_s, full > 0 ? raw_s / full : 0.0);
    printf("etcd raw floor in the layer's shape (a compare on every key and the retry marker, as the store layer "
           "sends a commit): %.3f s\n", guarded_s);
    if (ranges0 >= 0 && ranges1 >= 0)
        printf("etcd requests the pass made (the member's /metrics): %ld reads (kv/range), %ld txns\n",
               ranges1 - ranges0, txns1 - txns0);
    printf("bench: sched_etcd_nodes %ld count\n", nodes);
    printf("bench: sched_etcd_queued_jobs %ld count\n", jobs);
    printf("bench: sched_etcd_placed %ld count\n", placed);
    printf("bench: sched_etcd_commits %zu count\n", w.commits);
    printf("bench: sched_etcd_puts_per_commit %.1f count\n", per_commit);
    printf("bench: sched_etcd_placements_per_s %.0f 1/s\n", rate);
    printf("bench: sched_etcd_pass_s %.3f s\n", full);
    printf("bench: sched_etcd_read_phase_s %.3f s\n", read_s);
    printf("bench: sched_etcd_client_cpu_s %.3f s\n", cpu);
    printf("bench: sched_etcd_raw_floor_s %.3f s\n", raw_s);
    printf("bench: sched_etcd_raw_guarded_floor_s %.3f s\n", guarded_s);
    printf("bench: sched_etcd_vs_raw %.2f ratio\n", full > 0 ? raw_s / full : 0.0);
    pass_writes_free(&w);
    etcd_wipe(ctx.store);
    cmd_ctx_close(&ctx);
}

/* A fleet with a long history: 1,000 nodes, 6,000 submitted jobs and
 * 100,000 that ended long ago.  In one process (as `rigdeck serve` runs
 * its passes) a first pass places what fits; then ten jobs are submitted
 * and the next pass reads only the jobs it remembered plus those written
 * since (sched_memo.c); then ten more, and a pass in a fresh process
 * context scans every job, as the first pass of any process does. */
static void bench_sched_history(const char *dir)
{
    char url[600], key[RD_KEY_MAX];
    rd_err err;
    json_t *res = NULL;
    long ended = env_long("RIGDECK_BENCH_HISTORY_JOBS", 100000);
    snprintf(url, sizeof url, "sqlite:%s/history.db", dir);
    cmd_ctx ctx = { 0 }, fresh = { 0 };
    ctx.store_url = fresh.store_url = url;
    ctx.actor = fresh.actor = "default";
    ctx.now = fresh.now = 1793491200;
    if (cmd_ctx_open_store(&ctx, &err) != RD_OK)
        die("open", &err);
    build_fleet(&ctx, 1000, 6000, 1000);
    rd_tx *tx = tx_new(ctx.store);
    for (long i = 0; i < ended; i++) {
        char id[32];
        snprintf(id, sizeof id, "old-%08lx", (unsigned long)i);
        tx_put(tx, tx_key(key, "/rigdeck/jobs/%s", id),
               json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:s, s:n, s:{s:[s], s:i, s:i, s:n}, s:s, s:[{s:i, s:s, "
                         "s:s, s:s, s:s}]}",
                         "id", id, "name", id, "type", "training", "project", "default", "project_owner", "bench",
                         "creator", "bench", "priority", 0, "submitted_at", "2026-01-01T00:00:00Z", "region_pin",
                         "resources", "gpu_types", "a100", "gpus_x100", 100, "disk_size", 50, "max_price_ucr", "state",
                         "finished", "workers", "index", 0, "state", "finished", "node", "n00000", "started_at",
                         "2026-01-01T00:00:00Z", "ended_at", "2026-01-01T01:00:00Z"), &err);
        if (i % 1000 == 999)
            commit(tx);
    }
    commit(tx);
    ctx.now += 60;
    if (cmd_exec_line(&ctx, "sched run", &res, NULL, &err) != RD_OK)
        die("history: first pass", &err);
    long placed0 = (long)json_integer_value(json_object_get(res, "placed"));
    json_decref(res);
    double t[2];
    long placed[2];
    for (int k = 0; k < 2; k++) {
        cmd_ctx *c = k == 0 ? &ctx : &fresh;
        for (int j = 0; j < 10; j++) {
            char id[32];
            snprintf(id, sizeof id, "new-%d-%02d", k, j);
            tx_put(tx, tx_key(key, "/rigdeck/jobs/%s", id),
                   json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:s, s:n, s:{s:[s], s:i, s:i, s:n}, s:[{s:i, s:s, "
                             "s:n, s:[]}]}",
                             "id", id, "name", id, "type", "training", "project", "default", "project_owner", "bench",
                             "creator", "bench", "priority", 0, "submitted_at", "2026-11-01T00:01:00Z", "region_pin",
                             "resources", "gpu_types", "t4", "gpus_x100", 100, "disk_size", 50, "max_price_ucr",
                             "workers", "index", 0, "state", "waiting_gpus", "started_at", "alloc"), &err);
        }
        commit(tx);
        c->now = ctx.now + 60 * (k + 1);
        double t0 = now_s();
        if (cmd_exec_line(c, "sched run", &res, NULL, &err) != RD_OK)
            die("history: pass", &err);
        t[k] = now_s() - t0;
        placed[k] = (long)json_integer_value(json_object_get(res, "placed"));
        json_decref(res);
    }
    size_t kept = 0;
    int memo_used = sched_memo_last_incremental(&ctx, &kept);
    printf("history: %ld ended jobs beside 6000 submitted on 1000 nodes; the first pass placed %ld; ten new jobs, "
           "the next pass in the same process (%s, %zu jobs remembered): %ld placed in %.1f ms; ten more, a pass in a "
           "fresh context (a scan of every job): %ld placed in %.1f ms\n",
           ended, placed0, memo_used ? "read from its memo" : "NOT from its memo", kept, placed[0], t[0] * 1000.0,
           placed[1], t[1] * 1000.0);
    printf("bench: sched_history_ended_jobs %ld count\n", ended);
    printf("bench: sched_history_pass_memo_ms %.1f ms\n", t[0] * 1000.0);
    printf("bench: sched_history_pass_scan_ms %.1f ms\n", t[1] * 1000.0);
    tx_free(tx);
    cmd_ctx_close(&fresh);
    cmd_ctx_close(&ctx);
}

int main(void)
{
    int small = getenv("RIGDECK_BENCH_SMALL") && strcmp(getenv("RIGDECK_BENCH_SMALL"), "1") == 0;
    long nodes = env_long("RIGDECK_BENCH_NODES", small ? 1000 : 10000);
    long jobs = env_long("RIGDECK_BENCH_JOBS", small ? 10000 : 100000);
    char dir[] = "/tmp/rdbench-sched.XXXXXX", url[256];
    rd_err err;
    if (!mkdtemp(dir))
        return 1;
    snprintf(url, sizeof url, "sqlite:%s/s.db", dir);

    cmd_ctx ctx = { 0 };
    ctx.store_url = url;
    ctx.actor = "default";
    ctx.now = 1793491200;   /* 2026-11-01T00:00:00Z */
    if (cmd_ctx_open_store(&ctx, &err) != RD_OK)
        die("open", &err);

    double t0 = now_s();
    build_fleet(&ctx, nodes, jobs, 1000);
    printf("built %ld nodes x 8 GPUs and %ld queued jobs in %.1f s\n", nodes, jobs, now_s() - t0);

    json_t *res = NULL;
    ctx.now += 60;
    t0 = now_s();
    if (cmd_exec_line(&ctx, "sched run", &res, NULL, &err) != RD_OK)
        die("sched run", &err);
    double full = now_s() - t0;
    long placed = (long)json_integer_value(json_object_get(res, "placed"));
    long waiting = (long)json_integer_value(json_object_get(res, "waiting"));
    json_decref(res);
    printf("full pass: %ld placed, %ld waiting in %.2f s\n", placed, waiting, full);

    t0 = now_s();
    if (cmd_exec_line(&ctx, "sched run", &res, NULL, &err) != RD_OK)
        die("idle sched run", &err);
    double idle = now_s() - t0;
    printf("idle pass: %lld placed, %lld waiting in %.1f ms\n", json_integer_value(json_object_get(res, "placed")),
           json_integer_value(json_object_get(res, "waiting")), idle * 1000.0);
    json_decref(res);

    /* An edge device reports: no pass reads devices or audit records. */
    static const char dev[] = "{\"name\":\"cam-01\",\"status\":\"ready\"}";
    if (store_put(ctx.store, "/rigdeck/devices/cam-01", dev, strlen(dev), 0, &err) != RD_OK ||
        store_put(ctx.store, "/rigdeck/audit/bench-0001", "{}", 2, 0, &err) != RD_OK)
        die("device write", &err);
    t0 = now_s();
    if (cmd_exec_line(&ctx, "sched run", &res, NULL, &err) != RD_OK)
        die("idle sched run after a device write", &err);
    double idle_dev = now_s() - t0;
    printf("idle pass after writes no pass reads (a device report): %lld placed in %.1f ms\n",
           json_integer_value(json_object_get(res, "placed")), idle_dev * 1000.0);
    json_decref(res);

    /* A key the pass does not know might matter: it scans again. */
    if (store_put(ctx.store, "/rigdeck/bench/touch", "{}", 2, 0, &err) != RD_OK)
        die("touch", &err);
    t0 = now_s();
    if (cmd_exec_line(&ctx, "sched run", &res, NULL, &err) != RD_OK)
        die("rescan sched run", &err);
    double rescan = now_s() - t0;
    printf("idle pass after a write it must look at: %lld placed in %.1f ms\n",
           json_integer_value(json_object_get(res, "placed")), rescan * 1000.0);
    json_decref(res);

    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);   /* before the floors, which hold copies */

    size_t nraw = 0;
    double raw_s = raw_floor(ctx.store, dir, &nraw);
    printf("raw floor: the same %zu documents written as plain SQLite UPDATEs in batches of 512 take %.3f s "
           "(the pass takes %.1f times that)\n", nraw, raw_s, raw_s > 0 ? full / raw_s : 0.0);
    double floor_s = store_floor(&ctx);
    printf("store floor: rewriting them through the store layer in batches of 512 takes %.2f s\n", floor_s);
    printf("bench: sched_nodes %ld count\n", nodes);
    printf("bench: sched_gpus %ld count\n", nodes * 8);
    printf("bench: sched_queued_jobs %ld count\n", jobs);
    printf("bench: sched_placed %ld count\n", placed);
    printf("bench: sched_placements_per_s %.0f 1/s\n", full > 0 ? (double)placed / full : 0.0);
    printf("bench: sched_full_pass_s %.3f s\n", full);
    printf("bench: sched_idle_pass_ms %.1f ms\n", idle * 1000.0);
    printf("bench: sched_idle_after_device_write_ms %.1f ms\n", idle_dev * 1000.0);
    printf("bench: sched_idle_rescan_ms %.1f ms\n", rescan * 1000.0);
    printf("bench: sched_store_floor_s %.3f s\n", floor_s);
    printf("bench: sched_raw_floor_s %.3f s\n", raw_s);
    printf("bench: sched_vs_store_floor %.1f ratio\n", raw_s > 0 ? full / raw_s : 0.0);
    printf("bench: sched_peak_rss_mb %.1f MB\n", (double)ru.ru_maxrss / 1024.0);
    cmd_ctx_close(&ctx);
    if (!small)
        bench_sched_history(dir);

    const char *etcd = getenv("RIGDECK_BENCH_ETCD");
    if (etcd && strncmp(etcd, "etcd://", 7) == 0)
        bench_sched_etcd(etcd);
    else
        printf("etcd: skipped (set RIGDECK_BENCH_ETCD=etcd://HOST:PORT; tests/bench/run.sh does)\n");
    char cmd[512];
    if (getenv("RIGDECK_BENCH_KEEP")) {
        printf("store kept: %s\n", url);
        return 0;
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_sched: could not remove %s\n", dir);
    return 0;
}
