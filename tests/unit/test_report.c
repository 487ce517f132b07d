/* Unit tests of report_math.c and report_jobs.c: spans clipped to the
 * window, GPU time with fractions, the rent-vs-buy costs of docs/reports.md's
 * worked example, break-even, one rounding half away from zero, busy time
 * from gpu_util points, and what a job document says a worker ran and
 * waited. */
#include "testutil.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overlap_clips_to_window),
        cmocka_unit_test(test_gpu_cgs_with_fractions),
        cmocka_unit_test(test_round_product_once),
        cmocka_unit_test(test_gpus_needed_is_a_ceiling),
        cmocka_unit_test(test_worked_example),
        cmocka_unit_test(test_costs_round_half_away),
        cmocka_unit_test(test_busy_seconds_from_points),
        cmocka_unit_test(test_worker_run_and_wait),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
