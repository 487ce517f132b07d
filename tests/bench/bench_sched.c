/* bench_sched.c - one full scheduling pass over a synthetic fleet.
 *
 * Builds, directly in a temp SQLite store, N compute nodes of 8 GPUs of
 * mixed types in public regions and M queued single-worker jobs (1, 2 or 4
 * GPUs, or half a GPU on sharing nodes), then times `sched run` through the
 * command language: placements per second end to end, then a second pass in
 * which nothing more fits (the idle pass), and the peak resident memory.
 * Scale: RIGDECK_BENCH_NODES (default 1000) and RIGDECK_BENCH_JOBS (default
 * 10000); the target scale is 10000 x 100000.
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

int main(void)
{
    static const char *const types[] = { "a100", "v100", "t4", "rtx3090", "rtx-a6000" };
    long nodes = env_long("RIGDECK_BENCH_NODES", 1000), jobs = env_long("RIGDECK_BENCH_JOBS", 10000);
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
    json_decref(res);

    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("bench: sched_nodes %ld count\n", nodes);
    printf("bench: sched_queued_jobs %ld count\n", jobs);
    printf("bench: sched_placements_per_s %.0f 1/s\n", full > 0 ? (double)placed / full : 0.0);
    printf("bench: sched_full_pass_s %.3f s\n", full);
    printf("bench: sched_idle_pass_ms %.1f ms\n", idle * 1000.0);
    printf("bench: sched_peak_rss_mb %.1f MB\n", (double)ru.ru_maxrss / 1024.0);
    cmd_ctx_close(&ctx);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_sched: could not remove %s\n", dir);
    return 0;
}
