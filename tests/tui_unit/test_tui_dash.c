/* Unit tests of the Dashboard's pure helpers: a series from metric points
 * (a slot a minute, gaps, the hour's extremes), readings with their units,
 * the fleet line, an alert line, and the newest firing alerts first. */
#include "testutil.h"

#include <math.h>

#include "dash.h"

static void test_fill_series(void **state)
{
    (void)state;
    rd_time until = 1800000000 - 1800000000 % 60 + 60;
    metrics_point pts[4] = {
        { until - 3660, 1, 1, 1 },        /* before the window: left out */
        { until - 3600, 5, 10, 20 },      /* the first slot */
        { until - 120, 2, 3, 4 },
        { until - 60, 30, 40, 50 },       /* the minute in progress: the last slot */
    };
    dash_series s;
    dash_fill_series(&s, pts, 4, until);
    assert_int_equal(s.count, 3);
    assert_true(s.avg[0] == 10 && s.avg[58] == 3 && s.avg[59] == 40);
    assert_true(isnan(s.avg[1]) && isnan(s.avg[57]));
    assert_true(s.lo == 2 && s.hi == 50);
    dash_fill_series(&s, NULL, 0, until);
    assert_int_equal(s.count, 0);
    assert_true(isnan(s.avg[0]) && isnan(s.avg[59]));
}

static void test_format_value(void **state)
{
    (void)state;
    char out[32];
    dash_format_value(34.4, "%", out, sizeof out);
    assert_string_equal(out, "34%");
    dash_format_value(12.34, "GB", out, sizeof out);
    assert_string_equal(out, "12.3 GB");
    dash_format_value(1.5e6, "B/s", out, sizeof out);
    assert_string_equal(out, "1.5 MB/s");
    dash_format_value(999, "B/s", out, sizeof out);
    assert_string_equal(out, "999 B/s");
    dash_format_value(71.2, "C", out, sizeof out);
    assert_string_equal(out, "71 C");
    dash_format_value(3, "", out, sizeof out);
    assert_string_equal(out, "3");
    dash_format_value(NAN, "W", out, sizeof out);
    assert_string_equal(out, "-");
}

static void test_fleet_and_alert_text(void **state)
{
    (void)state;
    char out[512];
    json_t *f = json_pack("{s:i, s:f, s:i, s:i, s:f, s:f}", "gpus", 16, "gpus_allocated", 12.5, "gpus_healthy",
                          15, "gpus_unhealthy", 1, "gpu_util_mean", 47.4, "cpu_util_mean", 31.0);
    dash_fleet_text(f, out, sizeof out);
    assert_string_equal(out, "GPUs 12.5/16 allocated  15 healthy  1 unhealthy  GPU use 47%  CPU use 31%");
    json_decref(f);
    f = json_pack("{s:i, s:i}", "gpus", 8, "gpus_allocated", 2);   /* no use figures: none shown */
    dash_fleet_text(f, out, sizeof out);
    assert_string_equal(out, "GPUs 2/8 allocated  8 healthy  0 unhealthy");
    json_decref(f);

    json_t *a = json_pack("{s:s, s:s, s:s, s:s, s:i, s:f, s:s, s:s}", "id", "a12", "rule", "gpu-hot", "severity",
                          "critical", "node", "n3", "gpu", 1, "value", 97.0, "fired_at", "2026-11-24T13:14:21Z",
                          "acked_by", "bob");
    dash_alert_text(a, out, sizeof out);
    assert_string_equal(out, "#a12 critical gpu-hot n3 GPU 1 value 97 since 11-24 13:14:21 (acked by bob)");
    json_decref(a);
}

/* The roll-up rows: used/total by region, used alone by account. */
static void test_rollup_text(void **state)
{
    (void)state;
    char out[512];
    dash_rollup_head(0, out, sizeof out);
    assert_string_equal(out, "REGION           NODES  GPUS ALLOC GPU USE     CPU CORES              MEMORY"
                             "                DISK");
    json_t *r = json_pack("{s:s, s:i, s:i, s:f, s:f, s:i, s:f, s:f, s:i, s:f, s:i}", "region", "pub", "nodes", 1,
                          "gpus", 4, "gpus_allocated", 3.0, "gpu_util_mean", 40.0, "cpu_cores", 64, "cpu_used_cores",
                          19.2, "mem_used_gb", 200.0, "mem_total_gb", 512, "disk_used_gb", 40.01, "disk_total_gb", 2000);
    dash_rollup_text(r, 0, out, sizeof out);
    assert_string_equal(out, "pub                  1         3/4     40%       19.2/64          200/512 GB"
                             "       40.01/2000 GB");
    json_decref(r);
    r = json_pack("{s:s, s:i, s:n, s:f, s:n, s:n, s:f, s:f, s:n, s:f, s:n}", "account", "alice", "nodes", 2, "gpus",
                  "gpus_allocated", 2.5, "gpu_util_mean", "cpu_cores", "cpu_used_cores", 38.4, "mem_used_gb", 167.17,
                  "mem_total_gb", "disk_used_gb", 23.59, "disk_total_gb");
    dash_rollup_text(r, 1, out, sizeof out);
    assert_string_equal(out, "alice                2         2.5       -          38.4           167.17 GB"
                             "            23.59 GB");
    json_decref(r);
}

static void test_recent_alerts(void **state)
{
    (void)state;
    json_t *items = json_pack("[{s:s, s:s}, {s:s, s:s}, {s:s, s:s}]", "id", "old", "fired_at", "2026-11-24T10:00:00Z",
                              "id", "new", "fired_at", "2026-11-24T12:00:00Z", "id", "mid", "fired_at",
                              "2026-11-24T11:00:00Z");
    json_t *r = dash_recent_alerts(items, 2);
    assert_int_equal(json_array_size(r), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(r, 0), "id")), "new");
    assert_string_equal(json_string_value(json_object_get(json_array_get(r, 1), "id")), "mid");
    json_decref(r);
    r = dash_recent_alerts(NULL, 5);
    assert_int_equal(json_array_size(r), 0);
    json_decref(r);
    json_decref(items);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fill_series),
        cmocka_unit_test(test_format_value),
        cmocka_unit_test(test_fleet_and_alert_text),
        cmocka_unit_test(test_rollup_text),
        cmocka_unit_test(test_recent_alerts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
