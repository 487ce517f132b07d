/* Unit tests of the sparklines: resampling (max per cell, right-aligned
 * when short), gaps as blanks, scaling (fixed and auto, flat series), the
 * ASCII ramp, and that no input makes a NaN or an out-of-range bar. */
#include "testutil.h"

#include <locale.h>
#include <math.h>

#include "spark.h"
#include "text.h"

static const char *const B[8] = { "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588" };

static void test_one_per_cell(void **state)
{
    (void)state;
    double v[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    char out[128], want[128] = "";
    assert_int_equal(spark_render(v, 8, 8, NULL, 0, out, sizeof out), 8);
    for (int i = 0; i < 8; i++)
        strcat(want, B[i]);
    assert_string_equal(out, want);
    assert_int_equal(text_cols(out), 8);
    assert_int_equal(spark_render(v, 8, 8, NULL, 1, out, sizeof out), 8);
    assert_string_equal(out, "_.-==+*#");
}

static void test_fixed_range(void **state)
{
    (void)state;
    spark_range pct = { 0, 100 };
    double v[4] = { 0, 50, 100, 150 };
    char out[64];
    spark_render(v, 4, 4, &pct, 1, out, sizeof out);
    /* 50 % is the middle of seven levels; above the range clamps to the top. */
    assert_string_equal(out, "_=##");
    double low[3] = { 1, 2, 3 };
    spark_render(low, 3, 3, &pct, 1, out, sizeof out);
    assert_string_equal(out, "___");   /* small against 0..100, unlike auto */
    spark_render(low, 3, 3, NULL, 1, out, sizeof out);
    assert_string_equal(out, "_=#");
}

static void test_flat_series(void **state)
{
    (void)state;
    double v[5] = { 42, 42, 42, 42, 42 };
    char out[64];
    spark_render(v, 5, 5, NULL, 1, out, sizeof out);
    assert_string_equal(out, "=====");   /* steady: the middle, not the floor */
    spark_range r = { 7, 7 };
    assert_int_equal(spark_level(7, r, 8), 4);
    double zeros[4] = { 0, 0, 0, 0 };
    spark_render(zeros, 4, 4, NULL, 1, out, sizeof out);
    assert_string_equal(out, "____");    /* none is not "some" */
}

static void test_gaps(void **state)
{
    (void)state;
    double v[6] = { 0, NAN, 10, NAN, NAN, 5 };
    char out[64];
    spark_render(v, 6, 6, NULL, 1, out, sizeof out);
    assert_string_equal(out, "_ #  =");
    double none[3] = { NAN, INFINITY, -INFINITY };
    spark_render(none, 3, 3, NULL, 0, out, sizeof out);
    assert_string_equal(out, "   ");
    spark_summary s = spark_summarise(none, 3);
    assert_int_equal(s.count, 0);
    assert_true(s.min == 0 && s.max == 0 && s.last == 0);
}

static void test_fewer_points_right_aligned(void **state)
{
    (void)state;
    double one[1] = { 3 };
    char out[64];
    assert_int_equal(spark_render(one, 1, 5, NULL, 1, out, sizeof out), 5);
    assert_string_equal(out, "    =");
    double two[2] = { 0, 9 };
    spark_render(two, 2, 6, NULL, 1, out, sizeof out);
    assert_string_equal(out, "    _#");
    spark_render(two, 0, 4, NULL, 1, out, sizeof out);
    assert_string_equal(out, "    ");
}

static void test_resample_takes_max(void **state)
{
    (void)state;
    /* 60 minutes in 20 cells: 3 a cell; one spike survives. */
    double v[60], cells[20];
    for (int i = 0; i < 60; i++)
        v[i] = 10;
    v[31] = 90;
    v[0] = NAN;
    v[1] = NAN;
    v[2] = NAN;
    assert_int_equal(spark_resample(v, 60, 20, cells), 19);
    assert_true(isnan(cells[0]));
    assert_true(cells[10] == 90);
    assert_true(cells[9] == 10 && cells[11] == 10);
    /* Uneven shares cover every value exactly once. */
    double w[7] = { 1, 2, 3, 4, 5, 6, 7 }, c3[3];
    spark_resample(w, 7, 3, c3);
    assert_true(c3[0] == 2 && c3[1] == 4 && c3[2] == 7);
}

static void test_no_nan_out_of_range(void **state)
{
    (void)state;
    spark_range r = { 0, 1 };
    for (int levels = 1; levels <= 8; levels++) {
        int l = spark_level(NAN, r, levels);
        assert_true(l >= 0 && l < (levels > 1 ? levels : 1));
        assert_int_equal(spark_level(-5, r, levels), 0);
        assert_int_equal(spark_level(1e300, r, levels), levels > 1 ? levels - 1 : 0);
    }
    spark_range inverted = { 5, 1 };
    assert_int_equal(spark_level(3, inverted, 8), 4);
    assert_int_equal(spark_level(-3, inverted, 8), 0);
    /* Huge and tiny values together stay finite. */
    double v[3] = { -1e308, 0, 1e308 };
    char out[64];
    spark_render(v, 3, 3, NULL, 1, out, sizeof out);
    assert_int_equal(strlen(out), 3);
    assert_null(strchr(out, ' '));
}

static void test_buffer_and_width(void **state)
{
    (void)state;
    double v[4] = { 1, 2, 3, 4 };
    char small[8], out[64];
    assert_int_equal(spark_render(v, 4, 4, NULL, 0, small, sizeof small), 0);   /* 4 blocks need 13 bytes */
    assert_string_equal(small, "");
    assert_int_equal(spark_render(v, 4, 0, NULL, 0, out, sizeof out), 0);
    assert_int_equal(spark_render(v, 4, -3, NULL, 0, out, sizeof out), 0);
    assert_int_equal(spark_render(v, 4, 4, NULL, 0, out, 13), 4);
    assert_int_equal(text_cols(out), 4);
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_per_cell),
        cmocka_unit_test(test_fixed_range),
        cmocka_unit_test(test_flat_series),
        cmocka_unit_test(test_gaps),
        cmocka_unit_test(test_fewer_points_right_aligned),
        cmocka_unit_test(test_resample_takes_max),
        cmocka_unit_test(test_no_nan_out_of_range),
        cmocka_unit_test(test_buffer_and_width),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
