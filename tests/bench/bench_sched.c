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
 * memory.  For scale, the store
 * floor: rewriting the same documents the pass wrote, in the same batches,
 * with nothing else.
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

#include "cmd.h"
#include "ledger.h"
#include "tx.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long env_long(const char *name, long dflt)
{
    const char *v = getenv(name);
    return v && atol(v) > 0 ? atol(v) : dflt;
}

static void die(const char *what, const rd_err *err)
{
    fprintf(stderr, "bench_sched: %s: %s\n", what, err->msg);
    exit(1);
}

static void commit(rd_tx *tx)
{
    rd_err err;
    if (tx_commit(tx, NULL, &err) != RD_OK)
        die("commit", &err);
    tx_reset(tx);
}

typedef struct {
    rd_tx *tx;
    size_t n;
    int nodes;
} floor_state;

static int floor_put(const store_kv *kv, void *data)
{
    floor_state *fs = data;
    rd_err err;
    json_error_t jerr;
    if (fs->nodes ? memmem(kv->value, kv->value_len, "\"workers\":[]", 12) != NULL
                  : !memmem(kv->value, kv->value_len, "\"running\"", 9))
        return 0;
    json_t *doc = json_loadb(kv->value, kv->value_len, 0, &jerr);
    tx_guard(fs->tx, kv->key, doc, kv->mod_revision, &err);
    tx_put(fs->tx, kv->key, doc, &err);
    if (++fs->n % 512 == 0)
        commit(fs->tx);
    return 0;
}

/* The store's share of a pass: guarded rewrites of every running job and
 * every used node, 512 jobs (and their nodes) a transaction, no scheduling.
 * Decoding is included, as the pass decodes what it writes too. */
static double store_floor(cmd_ctx *ctx)
{
    rd_err err;
    floor_state fs = { tx_new(ctx->store), 0, 0 };
    double t0 = now_s();
    if (tx_scan(fs.tx, "/rigdeck/jobs/", floor_put, &fs, NULL, &err) != RD_OK)
        die("floor", &err);
    fs.nodes = 1;
    if (tx_scan(fs.tx, "/rigdeck/nodes/", floor_put, &fs, NULL, &err) != RD_OK)
        die("floor", &err);
    commit(fs.tx);
    double t = now_s() - t0;
    tx_free(fs.tx);
    return t;
}

int main(void)
{
    static const char *const types[] = { "a100", "v100", "t4", "rtx3090", "rtx-a6000" };
    int small = getenv("RIGDECK_BENCH_SMALL") && strcmp(getenv("RIGDECK_BENCH_SMALL"), "1") == 0;
    long nodes = env_long("RIGDECK_BENCH_NODES", small ? 1000 : 10000);
    long jobs = env_long("RIGDECK_BENCH_JOBS", small ? 10000 : 100000);
    char dir[] = "/tmp/rdbench-sched.XXXXXX", url[256], key[RD_KEY_MAX];
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
    rd_tx *tx = tx_new(ctx.store);
    tx_put(tx, "/rigdeck/accounts/bench", json_pack("{s:s, s:s, s:b}", "name", "bench", "plan", "team", "admin", 0), &err);
    for (int r = 0; r < 10; r++)
        tx_put(tx, tx_key(key, "/rigdeck/regions/r%d", r),
               json_pack("{s:s, s:s, s:s, s:b, s:s, s:s}", "name", key + 17, "owner", "default", "provider", "physical",
                         "public", 1, "storage", "local", "state", "active"), &err);
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        tx_put(tx, tx_key(key, "/rigdeck/prices/%s", types[t]),
               json_pack("{s:s, s:I}", "name", types[t], "price_ucr", (json_int_t)1000000), &err);
    ledger_transfer dep = { "deposit/bench/seed", "external", "wallet:bench", 1000000000000LL, "deposit", ctx.now, "bench" };
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
        tx_put(tx, tx_key(key, "/rigdeck/nodes/%s", name), node, &err);
        if (i % 1000 == 999)
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
                                "creator", "bench", "priority", 0, "submitted_at", rdtime_format(ctx.now - jobs + i, ts),
                                "region_pin", "resources", "gpu_types", types[(i / 5) % 5], "gpus_x100", gpus,
                                "disk_size", 50, "max_price_ucr", "workers", "index", 0, "state", "waiting_gpus",
                                "started_at", "alloc");
        tx_put(tx, tx_key(key, "/rigdeck/jobs/%s", id), job, &err);
        if (i % 1000 == 999)
            commit(tx);
    }
    commit(tx);
    tx_free(tx);
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

    double floor_s = store_floor(&ctx);
    printf("store floor: rewriting the placed jobs and their nodes in batches of 512 takes %.2f s\n", floor_s);

    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
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
    printf("bench: sched_peak_rss_mb %.1f MB\n", (double)ru.ru_maxrss / 1024.0);
    cmd_ctx_close(&ctx);
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
