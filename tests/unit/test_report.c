/* Unit tests of report_math.c and report_jobs.c: spans clipped to the
 * window, GPU time with fractions, the rent-vs-buy costs of docs/reports.md's
 * worked example, break-even, one rounding half away from zero, busy time
 * from gpu_util points, and what a job document says a worker ran and
 * waited; and report usage's busy time on a real store, from gpu_util
 * history the metrics module wrote, by node and shared by account. */
#include "testutil.h"

#include <math.h>

#include "keyspace.h"
#include "report.h"
#include "report_math.h"

#define NOV_1 1793491200LL   /* 2026-11-01T00:00:00Z */
#define HOUR 3600LL
#define DAY 86400LL
#define MONTH (30 * DAY)

static void test_overlap_clips_to_window(void **state)
{
    (void)state;
    assert_int_equal(report_overlap(100, 200, 0, 1000), 100);    /* inside */
    assert_int_equal(report_overlap(-50, 200, 0, 1000), 200);    /* straddles the start */
    assert_int_equal(report_overlap(900, 1500, 0, 1000), 100);   /* straddles the end */
    assert_int_equal(report_overlap(-5, 5000, 0, 1000), 1000);   /* covers it */
    assert_int_equal(report_overlap(1000, 2000, 0, 1000), 0);    /* the end is excluded */
    assert_int_equal(report_overlap(-10, 0, 0, 1000), 0);
    assert_int_equal(report_overlap(300, 200, 0, 1000), 0);      /* ended before it started */
}

static void test_gpu_cgs_with_fractions(void **state)
{
    (void)state;
    /* a quarter GPU for an hour is a quarter GPU-hour: 90000 cgs */
    assert_int_equal(report_gpu_cgs(25, NOV_1, NOV_1 + HOUR, NOV_1, NOV_1 + DAY), 90000);
    assert_int_equal(report_cgs_hours_x100(90000), 25);
    /* 4 GPUs, half of their run inside the window */
    assert_int_equal(report_gpu_cgs(400, NOV_1 - HOUR, NOV_1 + HOUR, NOV_1, NOV_1 + DAY), 400 * HOUR);
    assert_int_equal(report_gpu_cgs(0, NOV_1, NOV_1 + HOUR, NOV_1, NOV_1 + DAY), 0);   /* CPU-only */
    /* hours in hundredths round once, half away from zero: 18 s of a GPU is 0.005 h */
    assert_int_equal(report_cgs_hours_x100(1800), 1);
    assert_int_equal(report_cgs_hours_x100(1799), 0);
}

static void test_round_product_once(void **state)
{
    (void)state;
    const int64_t half[] = { 1, 5 };
    assert_int_equal(report_round_product(half, 2, 10), 1);   /* 0.5 -> 1 */
    const int64_t neg[] = { -1, 5 };
    assert_int_equal(report_round_product(neg, 2, 10), -1);   /* -0.5 -> -1 */
    const int64_t under[] = { 4, 1 };
    assert_int_equal(report_round_product(under, 2, 10), 0);  /* 0.4 -> 0 */
    /* a product past 2^63 inside, an int64 result */
    const int64_t big[] = { 1000, 1000000000000000LL, 31536000 };
    assert_int_equal(report_round_product(big, 3, 31536000 * 1000LL), 1000000000000000LL);
    assert_int_equal(report_ratio_bp(1, 3), 3333);
    assert_int_equal(report_ratio_bp(2, 3), 6667);
    assert_int_equal(report_ratio_bp(5, 0), -1);
}

static void test_gpus_needed_is_a_ceiling(void **state)
{
    (void)state;
    int64_t gpu_month = 100 * MONTH;   /* one GPU busy all month */
    assert_int_equal(report_gpus_needed(0, MONTH), 0);
    assert_int_equal(report_gpus_needed(1, MONTH), 1);
    assert_int_equal(report_gpus_needed(gpu_month, MONTH), 1);
    assert_int_equal(report_gpus_needed(gpu_month + 1, MONTH), 2);
    assert_int_equal(report_gpus_needed(2064 * REPORT_CGS_PER_GPU_HOUR, MONTH), 3);   /* 2064 / 720 = 2.87 */
}

/* docs/reports.md's worked example: 2064 A100 GPU-hours in a 720-hour
 * month, GPUs at 10000 credits for 1095 days, 400 W at 0.20 per kWh, the
 * cloud at 2.78 per GPU-hour. */
static void test_worked_example(void **state)
{
    (void)state;
    int64_t demand = 2064 * REPORT_CGS_PER_GPU_HOUR, n = report_gpus_needed(demand, MONTH);
    assert_int_equal(n, 3);
    assert_int_equal(report_own_purchase_ucr(n, 10000000000LL, MONTH, 1095 * DAY), 821917808);   /* 821.9178082 */
    assert_int_equal(report_own_power_ucr(n, 400, MONTH, 200000), 172800000);
    assert_int_equal(report_cloud_cost_ucr(demand, 2780000), 5737920000LL);
    assert_int_equal(report_break_even_bp(10000000000LL, 1095 * DAY, 400, 200000, 2780000), 1657);   /* 16.565% */
    assert_int_equal(report_ratio_bp(demand, n * 100 * MONTH), 9556);                            /* 95.56% busy */
    /* without power the break-even is the purchase alone: 0.3805175 / 2.78 */
    assert_int_equal(report_break_even_bp(10000000000LL, 1095 * DAY, 0, 0, 2780000), 1369);
    assert_int_equal(report_break_even_bp(10000000000LL, 1095 * DAY, 0, 0, 0), -1);
}

static void test_costs_round_half_away(void **state)
{
    (void)state;
    /* 1 µcr per GPU-hour for half a GPU-hour: 0.5 -> 1 */
    assert_int_equal(report_cloud_cost_ucr(REPORT_CGS_PER_GPU_HOUR / 2, 1), 1);
    assert_int_equal(report_cloud_cost_ucr(REPORT_CGS_PER_GPU_HOUR / 2 - 1, 1), 0);
    /* 1 GPU at 1 µcr over a lifetime twice the window: 0.5 -> 1 */
    assert_int_equal(report_own_purchase_ucr(1, 1, DAY, 2 * DAY), 1);
    assert_int_equal(report_own_purchase_ucr(1, 1, DAY, 3 * DAY), 0);
    /* 1 W for 1800 s at 1 µcr per kWh is 0.0005 µcr */
    assert_int_equal(report_own_power_ucr(1, 1, 1800, 1), 0);
    /* 1 W for 1800 h at 1 µcr per kWh is 1.8 µcr: rounded once, not per hour */
    assert_int_equal(report_own_power_ucr(1, 1, 1800 * HOUR, 1), 2);
}

static void test_busy_seconds_from_points(void **state)
{
    (void)state;
    metrics_point pts[] = {
        { NOV_1 - 60, 0, 100, 100 },   /* before the window */
        { NOV_1, 0, 50, 100 },         /* half busy for a minute: 30 s */
        { NOV_1 + 60, 0, 100, 100 },   /* the minute in progress: 20 s of it so far */
    };
    double busy = report_busy_seconds(pts, 3, 60, NOV_1, NOV_1 + HOUR, NOV_1 + 80);
    assert_true(busy > 49.999 && busy < 50.001);
    /* the window ends inside a point: only its part counts */
    busy = report_busy_seconds(pts, 3, 60, NOV_1, NOV_1 + 30, NOV_1 + DAY);
    assert_true(busy > 14.999 && busy < 15.001);
    /* an hour point starting before the window counts from the window's start */
    metrics_point h = { NOV_1 - 1800, 0, 40, 90 };
    busy = report_busy_seconds(&h, 1, 3600, NOV_1, NOV_1 + DAY, NOV_1 + DAY);
    assert_true(busy > 719.999 && busy < 720.001);
}

static json_t *job_doc(const char *workers)
{
    char text[2048];
    snprintf(text, sizeof text,
             "{\"id\": \"job-1\", \"project_owner\": \"alice\", \"submitted_at\": \"2026-11-01T00:00:00Z\","
             " \"state\": \"running\", \"resources\": {\"gpu_types\": [\"t4\", \"a100\"], \"gpus_x100\": 50},"
             " \"workers\": %s}",
             workers);
    json_t *doc = json_loads(text, 0, NULL);
    assert_non_null(doc);
    return doc;
}

static void test_worker_run_and_wait(void **state)
{
    (void)state;
    report_worker w;
    json_t *job = job_doc("[{\"index\": 0, \"state\": \"running\", \"node\": \"n1\", \"region\": \"dc\","
                          " \"gpu_type\": \"a100\", \"placed_at\": \"2026-11-01T02:00:00Z\","
                          " \"started_at\": \"2026-11-01T02:00:10Z\", \"ended_at\": null, \"alloc\": []},"
                          " {\"index\": 1, \"state\": \"waiting_gpus\", \"node\": null, \"gpu_type\": null},"
                          " {\"index\": 2, \"state\": \"canceled\", \"node\": null, \"gpu_type\": null,"
                          " \"canceled_at\": \"2026-11-01T05:00:00Z\"},"
                          " {\"index\": 3, \"state\": \"finished\", \"node\": \"n1\", \"gpu_type\": \"a100\","
                          " \"started_at\": \"2026-11-01T01:00:00Z\", \"ended_at\": \"2026-11-01T03:00:00Z\"}]");
    rd_time now = NOV_1 + 10 * HOUR;
    assert_int_equal(report_worker_read(job, 0, now, &w), 1);
    assert_string_equal(w.gpu_type, "a100");
    assert_string_equal(w.account, "alice");
    assert_int_equal(w.gpus_x100, 50);
    assert_int_equal(w.run_from, NOV_1 + 2 * HOUR + 10);
    assert_int_equal(w.run_to, now);                       /* running: up to now */
    assert_int_equal(w.wait_to, NOV_1 + 2 * HOUR);         /* placement ends the wait */
    assert_int_equal(report_worker_read(job, 1, now, &w), 1);
    assert_string_equal(w.gpu_type, "t4");                  /* never placed: the first type asked for */
    assert_true(w.run_to <= w.run_from);
    assert_int_equal(w.wait_to, now);                       /* still waiting */
    assert_int_equal(report_worker_read(job, 2, now, &w), 1);
    assert_int_equal(w.wait_to, NOV_1 + 5 * HOUR);         /* waited until it was canceled */
    assert_int_equal(report_worker_read(job, 3, now, &w), 1);
    assert_int_equal(w.run_to - w.run_from, 2 * HOUR);
    assert_int_equal(w.wait_to, NOV_1 + HOUR);             /* no placed_at: placed when it started */
    assert_int_equal(report_worker_read(job, 4, now, &w), 0);
    json_decref(job);
}


/* ---- busy time on a real store ------------------------------------------- */

static char dir[256];

static void put(rd_tx *tx, const char *key, const char *text)
{
    rd_err err;
    json_t *doc = json_loads(text, 0, NULL);
    assert_non_null(doc);
    assert_int_equal(tx_put(tx, key, doc, &err), RD_OK);   /* takes the reference */
}

/* n1 has two A100s: GPU 0 runs at 50 %, GPU 1 at 100 %, sampled every 30 s
 * for two hours from NOV_1.  alice's worker held all of GPU 0 for the
 * first hour; bob's holds half of GPU 1 throughout. */
static store_t *busy_store(void)
{
    char url[512];
    store_t *st = NULL;
    rd_err err;
    snprintf(url, sizeof url, "sqlite:%s/busy.db", dir);
    assert_int_equal(store_open(url, NULL, &st, &err), RD_OK);
    rd_tx *tx = tx_new(st);
    put(tx, KEY_NODES "n1", "{\"name\": \"n1\", \"region\": \"dc\", \"gpu_type\": \"a100\", \"gpu_count\": 2}");
    put(tx, KEY_JOBS "job-a",
        "{\"id\": \"job-a\", \"project_owner\": \"alice\", \"submitted_at\": \"2026-11-01T00:00:00Z\","
        " \"state\": \"finished\", \"resources\": {\"gpu_types\": [\"a100\"], \"gpus_x100\": 100},"
        " \"workers\": [{\"index\": 0, \"state\": \"finished\", \"node\": \"n1\", \"region\": \"dc\", \"gpu_type\": \"a100\","
        " \"started_at\": \"2026-11-01T00:00:00Z\", \"ended_at\": \"2026-11-01T01:00:00Z\","
        " \"alloc\": [{\"gpu\": 0, \"x100\": 100}]}]}");
    put(tx, KEY_JOBS "job-b",
        "{\"id\": \"job-b\", \"project_owner\": \"bob\", \"submitted_at\": \"2026-11-01T00:00:00Z\","
        " \"state\": \"running\", \"resources\": {\"gpu_types\": [\"a100\"], \"gpus_x100\": 50},"
        " \"workers\": [{\"index\": 0, \"state\": \"running\", \"node\": \"n1\", \"region\": \"dc\", \"gpu_type\": \"a100\","
        " \"started_at\": \"2026-11-01T00:00:00Z\", \"ended_at\": null, \"alloc\": [{\"gpu\": 1, \"x100\": 50}]}]}");
    assert_int_equal(tx_commit(tx, NULL, &err), RD_OK);
    tx_free(tx);
    metrics_agg *m = metrics_agg_new("n1");
    for (rd_time t = NOV_1; t < NOV_1 + 2 * HOUR; t += 30) {
        json_t *s = json_pack("{s:[{s:i, s:f}, {s:i, s:f}]}", "gpus", "index", 0, "gpu_util", 50.0, "index", 1,
                              "gpu_util", 100.0);
        metrics_agg_add(m, s, t);
        json_decref(s);
        if (metrics_agg_due(m)) {
            tx = tx_new(st);
            assert_int_equal(metrics_agg_stage(m, tx, &err), RD_OK);
            assert_int_equal(tx_commit(tx, NULL, &err), RD_OK);
            tx_free(tx);
            metrics_agg_written(m);
        }
    }
    metrics_agg_free(m);
    return st;
}

/* The row whose group is name in a usage result. */
static const json_t *row_of(const json_t *result, const char *key, const char *name)
{
    size_t i;
    const json_t *r;
    json_array_foreach(json_object_get(result, "items"), i, r)
        if (strcmp(json_string_value(json_object_get(r, key)), name) == 0)
            return r;
    fail_msg("no row %s", name);
    return NULL;
}

static void expect_hours(const json_t *row, const char *field, double want)
{
    double got = json_real_value(json_object_get(row, field));
    if (fabs(got - want) > 0.005)
        fail_msg("%s: expected %.2f, got %.2f", field, want, got);
}

static void usage_on(store_t *st, rd_time since, const char *by, json_t **result)
{
    cmd_ctx ctx;
    rd_err err;
    memset(&ctx, 0, sizeof ctx);
    ctx.store = st;
    ctx.actor = "default";
    ctx.now = NOV_1 + 2 * HOUR;
    ctx.tx = tx_new(st);
    report_window win = { since, NOV_1 + 2 * HOUR, ctx.now, NULL };
    assert_int_equal(report_usage_build(&ctx, &win, by, result, &err), RD_OK);
    tx_free(ctx.tx);
}

static void test_busy_by_node_and_account(void **state)
{
    (void)state;
    store_t *st = busy_store();
    json_t *r = NULL;
    /* the last two hours: minute points */
    usage_on(st, NOV_1, "node", &r);
    const json_t *n1 = row_of(r, "node", "n1");
    expect_hours(n1, "allocated_gpu_h", 2.0);          /* 1 GPU × 1 h + 0.5 GPU × 2 h */
    /* busy while held: GPU 0's first hour at 50 %, half of GPU 1 at 100 % for 2 h */
    expect_hours(n1, "busy_gpu_h", 1.5);
    expect_hours(n1, "util_pct", 75.0);                /* never above 100: busy while held / held */
    /* GPU 0's second hour at 50 %, GPU 1's other half: work outside the books */
    expect_hours(n1, "unallocated_busy_gpu_h", 1.5);
    expect_hours(row_of(r, "node", "(total)"), "util_pct", 75.0);
    json_decref(r);
    /* a window reaching three days back: hour points, the same answer */
    usage_on(st, NOV_1 - 3 * DAY, "gpu-type", &r);
    expect_hours(row_of(r, "gpu_type", "a100"), "busy_gpu_h", 1.5);
    expect_hours(row_of(r, "gpu_type", "a100"), "unallocated_busy_gpu_h", 1.5);
    json_decref(r);
    usage_on(st, NOV_1, "region", &r);
    expect_hours(row_of(r, "region", "dc"), "util_pct", 75.0);
    json_decref(r);
    /* by account: each holder gets its share of the GPU it held while it
     * held it; the rest is unallocated */
    usage_on(st, NOV_1, "account", &r);
    expect_hours(row_of(r, "account", "alice"), "busy_gpu_h", 0.5);           /* GPU 0, first hour, 50 % */
    expect_hours(row_of(r, "account", "alice"), "util_pct", 50.0);
    expect_hours(row_of(r, "account", "bob"), "busy_gpu_h", 1.0);             /* half of GPU 1 at 100 % */
    /* GPU 0's second hour, GPU 1's other half: busy, but nobody's */
    expect_hours(row_of(r, "account", "(unallocated)"), "busy_gpu_h", 0.0);
    expect_hours(row_of(r, "account", "(unallocated)"), "unallocated_busy_gpu_h", 1.5);
    expect_hours(row_of(r, "account", "(total)"), "busy_gpu_h", 1.5);            /* the same total by any grouping */
    expect_hours(row_of(r, "account", "(total)"), "unallocated_busy_gpu_h", 1.5);
    expect_hours(row_of(r, "account", "(total)"), "util_pct", 75.0);
    json_decref(r);
    store_close(st);
}

int main(void)
{
    testutil_tmpdir(dir, sizeof dir);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overlap_clips_to_window),
        cmocka_unit_test(test_gpu_cgs_with_fractions),
        cmocka_unit_test(test_round_product_once),
        cmocka_unit_test(test_gpus_needed_is_a_ceiling),
        cmocka_unit_test(test_worked_example),
        cmocka_unit_test(test_costs_round_half_away),
        cmocka_unit_test(test_busy_seconds_from_points),
        cmocka_unit_test(test_worker_run_and_wait),
        cmocka_unit_test(test_busy_by_node_and_account),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
