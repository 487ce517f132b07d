/* Unit tests of the vital stats history (core/metrics/): folding samples
 * into minutes, blocks, hours and days on a real SQLite store, reading them
 * back, the write policy, restarts and the bound on documents per node. */
#include "testutil.h"

#include <math.h>

#include "keyspace.h"
#include "metrics.h"

static char dir[256];
static const rd_time T0 = 1795996800;   /* 2026-11-30T00:00:00Z, a UTC midnight */

static store_t *open_store(const char *name)
{
    char url[512];
    store_t *st = NULL;
    rd_err err;
    snprintf(url, sizeof url, "sqlite:%s/%s.db", dir, name);
    assert_int_equal(store_open(url, NULL, &st, &err), RD_OK);
    return st;
}

/* A sample: cpu at cpu %, one GPU at temp C. */
static json_t *sample(double cpu, double temp)
{
    return json_pack("{s:f, s:f, s:n, s:[{s:i, s:f, s:i}]}", "cpu_util", cpu, "mem_used_gb", 10.0, "net_rx_bps",
                     "gpus", "index", 0, "gpu_temp_c", temp, "gpu_ecc_errors", 0);
}

/* Feeds one sample and writes when the aggregation asks; returns 1 if it wrote. */
static int feed(store_t *st, metrics_agg *m, rd_time t, double cpu, double temp)
{
    rd_err err;
    json_t *s = sample(cpu, temp);
    metrics_agg_add(m, s, t);
    json_decref(s);
    if (!metrics_agg_due(m))
        return 0;
    rd_tx *tx = tx_new(st);
    assert_int_equal(metrics_agg_stage(m, tx, &err), RD_OK);
    assert_int_equal(tx_commit(tx, NULL, &err), RD_OK);
    tx_free(tx);
    metrics_agg_written(m);
    return 1;
}

static size_t read_points(store_t *st, const char *series, int step, rd_time since, rd_time until,
                          metrics_point **pts)
{
    rd_tx *tx = tx_new(st);
    size_t n = 0;
    rd_err err;
    assert_int_equal(metrics_read_points(tx, "n1", series, step, since, until, pts, &n, &err), RD_OK);
    tx_free(tx);
    return n;
}

static size_t count_keys(store_t *st, const char *prefix)
{
    rd_tx *tx = tx_new(st);
    json_t *items = NULL;
    rd_err err;
    assert_int_equal(tx_list(tx, prefix, &items, &err), RD_OK);
    size_t n = json_array_size(items);
    json_decref(items);
    tx_free(tx);
    return n;
}

static void test_stats_table(void **state)
{
    char buf[METRICS_SERIES_MAX];
    rd_err err;
    (void)state;
    assert_int_equal(metrics_stat_count(), 12);
    assert_string_equal(metrics_series_key(buf, metrics_stat_find("gpu_temp_c"), 3), "gpu_temp_c:3");
    assert_string_equal(metrics_series_key(buf, metrics_stat_find("cpu_util"), 3), "cpu_util");
    assert_int_equal(metrics_check_stat("--metric", "cpu_util", &err), RD_OK);
    assert_int_equal(metrics_check_stat("--metric", "cpu", &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "--metric: unknown stat 'cpu'"));
}

/* Minutes: min/avg/max of each, the minute in progress included, and one
 * write a minute for a steady machine. */
static void test_minutes(void **state)
{
    store_t *st = open_store("minutes");
    metrics_agg *m = metrics_agg_new("n1");
    int writes = 0;
    (void)state;
    /* 25 minutes of samples every 10 s; minute k has cpu 4k .. 4k+2.5 */
    for (int k = 0; k < 25; k++)
        for (int s = 0; s < 6; s++)
            writes += feed(st, m, T0 + k * 60 + s * 10, 4.0 * k + 0.5 * s, 50.0);
    assert_true(writes <= 26);   /* the first sample, then each closed minute */
    assert_true(writes >= 25);
    metrics_point *p = NULL;
    size_t n = read_points(st, "cpu_util", 60, T0, T0 + 3600, &p);
    assert_int_equal(n, 25);
    assert_int_equal(p[3].t, T0 + 180);
    assert_true(fabs(p[3].min - 12.0) < 1e-9);
    assert_true(fabs(p[3].max - 14.5) < 1e-9);
    assert_true(fabs(p[3].avg - 13.25) < 1e-9);
    assert_int_equal(p[24].t, T0 + 24 * 60);   /* the minute in progress, as last written: */
    assert_true(fabs(p[24].max - 96.0) < 1e-9);   /* 96.5..98.5 stayed inside cpu_util's dead band */
    free(p);
    /* a window inside: half-open, by the minute's start */
    n = read_points(st, "cpu_util", 60, T0 + 600, T0 + 660, &p);
    assert_int_equal(n, 1);
    assert_int_equal(p[0].t, T0 + 600);
    free(p);
    n = read_points(st, "gpu_temp_c:0", 60, T0, T0 + 3600, &p);
    assert_int_equal(n, 25);
    assert_true(fabs(p[0].avg - 50.0) < 1e-9);
    free(p);
    metrics_agg_free(m);
    store_close(st);
}

/* A reading that leaves its dead band is written within the sample. */
static void test_dead_band(void **state)
{
    store_t *st = open_store("band");
    metrics_agg *m = metrics_agg_new("n1");
    (void)state;
    assert_int_equal(feed(st, m, T0 + 1, 5.0, 50.0), 1);    /* the first sample */
    assert_int_equal(feed(st, m, T0 + 11, 9.0, 51.0), 0);   /* jitter */
    assert_int_equal(feed(st, m, T0 + 21, 9.0, 58.0), 1);   /* the GPU heats by 8 C: at once */
    assert_int_equal(feed(st, m, T0 + 31, 90.0, 58.0), 0);  /* a busy CPU is news, but waits ... */
    assert_int_equal(feed(st, m, T0 + 41, 20.0, 58.0), 0);
    assert_int_equal(feed(st, m, T0 + 81, 95.0, 58.0), 1);  /* ... for a minute after the last write */
    assert_int_equal(feed(st, m, T0 + 91, 5.0, 58.0), 0);   /* once a minute however busy */
    rd_tx *tx = tx_new(st);
    json_t *latest = NULL;
    rd_err err;
    assert_int_equal(metrics_read_latest(tx, "n1", &latest, &err), RD_OK);
    assert_true(fabs(json_real_value(json_object_get(json_object_get(latest, "values"), "gpu_temp_c:0")) - 58.0) < 1e-9);
    assert_true(fabs(json_real_value(json_object_get(json_object_get(latest, "values"), "cpu_util")) - 95.0) < 1e-9);
    assert_null(json_object_get(json_object_get(latest, "values"), "net_rx_bps"));   /* null: left out */
    json_decref(latest);
    assert_int_equal(metrics_read_latest(tx, "nobody", &latest, &err), RD_OK);
    assert_null(latest);
    tx_free(tx);
    /* a GPU that vanishes is news too */
    json_t *s = json_pack("{s:f, s:f, s:[]}", "cpu_util", 9.0, "mem_used_gb", 10.0, "gpus");
    metrics_agg_add(m, s, T0 + 101);
    json_decref(s);
    assert_true(metrics_agg_due(m));
    metrics_agg_free(m);
    store_close(st);
}

/* Hours: a finished hour is the min of its minutes' minimums, the mean of
 * their averages and the max of their maximums; the hour in progress shows. */
static void test_hours(void **state)
{
    store_t *st = open_store("hours");
    metrics_agg *m = metrics_agg_new("n1");
    (void)state;
    for (int k = 0; k < 150; k++) {   /* 2.5 hours, a sample a minute: cpu = minute of the hour */
        feed(st, m, T0 + k * 60, (double)(k % 60), 40.0);
        feed(st, m, T0 + k * 60 + 30, (double)(k % 60) + 1.0, 40.0);
    }
    metrics_point *p = NULL;
    size_t n = read_points(st, "cpu_util", 3600, T0, T0 + 86400, &p);
    assert_int_equal(n, 3);
    assert_int_equal(p[0].t, T0);
    assert_true(fabs(p[0].min - 0.0) < 1e-9);
    assert_true(fabs(p[0].max - 60.0) < 1e-9);
    assert_true(fabs(p[0].avg - 30.0) < 1e-9);   /* mean of 0.5 .. 59.5 */
    assert_int_equal(p[2].t, T0 + 7200);
    assert_true(fabs(p[2].max - 29.0) < 1e-9);   /* minutes 0..28, and 29's first sample */
    free(p);
    metrics_agg_free(m);
    store_close(st);
}

/* A restarted agent continues the minute, the block and the hour. */
static void test_restore(void **state)
{
    store_t *st = open_store("restore");
    metrics_agg *m = metrics_agg_new("n1");
    rd_err err;
    (void)state;
    for (int k = 0; k < 5; k++)
        feed(st, m, T0 + 3600 + k * 20, 10.0, 40.0);   /* 0:00, 0:20, 0:40, 1:00, 1:20 into the hour */
    metrics_agg_free(m);
    rd_tx *tx = tx_new(st);
    json_t *now = NULL, *day = NULL;
    char key[RD_KEY_MAX];
    assert_int_equal(tx_get(tx, KEY_METRICS "now/n1", &now, &err), RD_OK);
    assert_non_null(now);
    tx_free(tx);
    m = metrics_agg_new("n1");
    metrics_agg_restore(m, now, day, T0 + 3600 + 100);
    json_decref(now);
    feed(st, m, T0 + 3600 + 110, 70.0, 40.0);   /* same minute as 1:20 */
    feed(st, m, T0 + 3600 + 180, 10.0, 40.0);
    metrics_point *p = NULL;
    size_t n = read_points(st, "cpu_util", 60, T0 + 3600, T0 + 3900, &p);
    assert_int_equal(n, 3);   /* minutes 0, 1 and 3 of the hour */
    assert_true(fabs(p[1].max - 70.0) < 1e-9);
    /* 10 and 70: the sample at 1:20 stayed in the dead band, so the
     * stopped agent never wrote it */
    assert_true(fabs(p[1].avg - 40.0) < 1e-9);
    free(p);
    (void)key;
    metrics_agg_free(m);
    store_close(st);
}

/* Two days and more of minutes never make more than 288 block documents,
 * and a window older than what is kept is empty. */
static void test_bounded(void **state)
{
    store_t *st = open_store("bounded");
    metrics_agg *m = metrics_agg_new("n1");
    (void)state;
    for (rd_time t = T0; t < T0 + 50 * 3600; t += 60)
        feed(st, m, t, 20.0, 40.0);
    assert_int_equal(count_keys(st, KEY_METRICS "min/n1/"), METRICS_MINUTE_SLOTS);
    assert_int_equal(count_keys(st, KEY_METRICS "hour/n1/"), 3);
    assert_int_equal(count_keys(st, KEY_METRICS "now/"), 1);
    assert_int_equal(count_keys(st, KEY_METRICS "last/"), 1);
    metrics_point *p = NULL;
    size_t n = read_points(st, "cpu_util", 60, T0, T0 + 3600, &p);
    assert_int_equal(n, 0);   /* overwritten slots */
    free(p);
    n = read_points(st, "cpu_util", 60, T0 + 49 * 3600, T0 + 50 * 3600, &p);
    assert_int_equal(n, 60);
    free(p);
    n = read_points(st, "cpu_util", 3600, T0, T0 + 50 * 3600, &p);
    assert_int_equal(n, 50);
    free(p);
    metrics_agg_free(m);
    store_close(st);
}

/* A store that was away for a day: the closed blocks reach it in
 * transactions of at most METRICS_STAGE_MAX + 2 writes, nothing lost. */
static void test_catch_up(void **state)
{
    store_t *st = open_store("catchup");
    metrics_agg *m = metrics_agg_new("n1");
    rd_err err;
    (void)state;
    for (rd_time t = T0; t < T0 + 24 * 3600; t += 60) {
        json_t *s = sample(20.0, 40.0);
        metrics_agg_add(m, s, t);
        json_decref(s);
    }
    assert_int_equal(metrics_agg_pending(m), 144 + 0);   /* 143 blocks and the day so far */
    int commits = 0;
    while (metrics_agg_pending(m) > 0) {
        rd_tx *tx = tx_new(st);
        assert_int_equal(metrics_agg_stage(m, tx, &err), RD_OK);
        assert_true(tx_write_count(tx) <= METRICS_STAGE_MAX + 2);   /* and now, last */
        assert_int_equal(tx_commit(tx, NULL, &err), RD_OK);
        tx_free(tx);
        metrics_agg_written(m);
        commits++;
    }
    assert_int_equal(commits, 3);
    metrics_point *p = NULL;
    size_t n = read_points(st, "cpu_util", 60, T0 + 22 * 3600, T0 + 24 * 3600, &p);
    assert_int_equal(n, 120);
    free(p);
    metrics_agg_free(m);
    store_close(st);
}

/* Stages and commits what m has (pending blocks and days, then now). */
static void write_all(store_t *st, metrics_agg *m)
{
    rd_err err;
    while (metrics_agg_pending(m) > 0 || metrics_agg_due(m)) {
        rd_tx *tx = tx_new(st);
        assert_int_equal(metrics_agg_stage(m, tx, &err), RD_OK);
        assert_int_equal(tx_commit(tx, NULL, &err), RD_OK);
        tx_free(tx);
        metrics_agg_written(m);
    }
}

/* Issue 28, the fuzzer's values: cpu_util 9e16 twice in a minute and an
 * ECC count of 2^63-1 overflowed the minute's sum (UBSan stopped the
 * agent; a release build stored an average below the minimum and a
 * negative count).  Readings are bounded to their stat's range. */
static void test_readings_bounded(void **state)
{
    store_t *st = open_store("huge");
    metrics_agg *m = metrics_agg_new("n1");
    (void)state;
    for (int k = 0; k < 3; k++) {   /* 0:10, 0:30, 0:50: one minute */
        json_t *s = json_pack("{s:f, s:f, s:[{s:i, s:I, s:f}]}", "cpu_util", 9e16, "net_rx_bps", -5.0, "gpus", "index",
                              0, "gpu_ecc_errors", (json_int_t)INT64_MAX, "gpu_temp_c", 1e300);
        metrics_agg_add(m, s, T0 + 10 + k * 20);
        json_decref(s);
    }
    json_t *s = sample(50.0, 40.0);
    metrics_agg_add(m, s, T0 + 70);   /* closes the minute */
    json_decref(s);
    write_all(st, m);
    static const struct {
        const char *series;
        double value;   /* the bound, for min, avg and max alike */
    } want[] = { { "cpu_util", 100.0 }, { "gpu_ecc_errors:0", 1e12 }, { "gpu_temp_c:0", 250.0 }, { "net_rx_bps", 0.0 } };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        metrics_point *p = NULL;
        size_t n = read_points(st, want[i].series, 60, T0, T0 + 60, &p);
        assert_int_equal(n, 1);
        assert_true(fabs(p[0].min - want[i].value) < 1e-6);
        assert_true(fabs(p[0].avg - want[i].value) < 1e-6);
        assert_true(fabs(p[0].max - want[i].value) < 1e-6);
        free(p);
    }
    metrics_agg_free(m);
    store_close(st);
}

/* An accumulator such as an unbounded agent stored (9e18 hundredths, its
 * sum wrapped negative) is not continued by the next agent: that minute
 * starts afresh, and its average lies within its minimum and maximum. */
static void test_restore_refuses_overflowed(void **state)
{
    (void)state;
    store_t *st = open_store("overflowed");
    metrics_agg *m = metrics_agg_new("n1");
    json_t *s = sample(50.0, 40.0);
    metrics_agg_add(m, s, T0 + 10);
    json_t *now = metrics_agg_now(m);
    metrics_agg_free(m);
    json_t *minute = json_object_get(json_object_get(now, "minute"), "series");
    json_object_set_new(minute, "cpu_util", json_pack("[I, I, I, i]", (json_int_t)9000000000000000000,
                                                      (json_int_t)INT64_MIN + 5, (json_int_t)9000000000000000000, 2));
    json_object_set_new(json_object_get(now, "last"), "cpu_util", json_integer(INT64_MAX));
    m = metrics_agg_new("n1");
    metrics_agg_restore(m, now, NULL, T0 + 20);
    json_decref(now);
    metrics_agg_add(m, s, T0 + 30);
    metrics_agg_add(m, s, T0 + 70);
    json_decref(s);
    write_all(st, m);
    metrics_point *p = NULL;
    size_t n = read_points(st, "cpu_util", 60, T0, T0 + 60, &p);
    assert_int_equal(n, 1);
    assert_true(fabs(p[0].min - 50.0) < 1e-9);   /* the stored accumulator was dropped */
    assert_true(fabs(p[0].avg - 50.0) < 1e-9);
    assert_true(fabs(p[0].max - 50.0) < 1e-9);
    free(p);
    metrics_agg_free(m);
    store_close(st);
}

int main(void)
{
    testutil_tmpdir(dir, sizeof dir);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_table), cmocka_unit_test(test_minutes), cmocka_unit_test(test_dead_band),
        cmocka_unit_test(test_hours),       cmocka_unit_test(test_restore), cmocka_unit_test(test_bounded),
        cmocka_unit_test(test_catch_up),    cmocka_unit_test(test_readings_bounded),
        cmocka_unit_test(test_restore_refuses_overflowed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
