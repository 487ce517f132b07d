/* Unit tests of the Dashboard's layout: across terminal sizes from the
 * console's 80x24 minimum (and below, for a layout that must not break)
 * to very wide and tall, every part stays inside the body and apart, the
 * node's sparklines come first when rows run short, and wide terminals
 * put the GPU beside the node; the roll-up block only fills rows left. */
#include "testutil.h"

#include "layout.h"

static int inside(lay_rect r, lay_rect body)
{
    return r.h == 0 || (r.y >= body.y && r.x >= body.x && r.y + r.h <= body.y + body.h && r.x + r.w <= body.x + body.w);
}

static int overlap(lay_rect a, lay_rect b)
{
    if (a.h == 0 || a.w == 0 || b.h == 0 || b.w == 0)
        return 0;
    return a.y < b.y + b.h && b.y < a.y + a.h && a.x < b.x + b.w && b.x < a.x + a.w;
}

static void check(int rows, int cols, int banner, int nalerts, int nnode, int ngpu)
{
    lay_screen s = layout_compute(rows < LAYOUT_MIN_ROWS ? LAYOUT_MIN_ROWS : rows,
                                  cols < LAYOUT_MIN_COLS ? LAYOUT_MIN_COLS : cols, banner, 0);
    lay_rect body = s.table;
    body.h -= LAYOUT_MIN_ROWS - (rows < LAYOUT_MIN_ROWS ? rows : LAYOUT_MIN_ROWS);
    if (body.h < 0)
        body.h = 0;
    body.w = cols;
    lay_dash d = layout_dashboard(body, nalerts, nnode, ngpu, 60);
    /* the roll-up takes only rows the others leave */
    lay_rect parts[] = { d.fleet, d.alerts, d.node, d.gpu, layout_dash_rollup(&d, body, 6) };
    for (size_t i = 0; i < 5; i++) {
        if (!inside(parts[i], body))
            fail_msg("%dx%d: part %zu outside the body", cols, rows, i);
        for (size_t j = i + 1; j < 5; j++)
            if (overlap(parts[i], parts[j]))
                fail_msg("%dx%d: parts %zu and %zu overlap", cols, rows, i, j);
    }
    assert_true(d.alert_rows <= nalerts && d.alert_rows <= DASH_ALERTS_MAX);
    assert_true(d.node_rows <= nnode && d.gpu_rows <= ngpu);
    if (d.alerts.h)
        assert_int_equal(d.alerts.h, 1 + d.alert_rows);
    if (d.node.h)
        assert_true(d.node.h >= 1 + d.node_rows);
    /* A stat row fits its rect. */
    if (d.node.h) {
        assert_true(1 + d.label_w + 1 + d.spark_w + d.nvalues * d.value_w <= d.node.w);
        assert_true(d.spark_w <= 60);
        assert_true(d.nvalues >= 1 && d.nvalues <= 3);
    }
    /* Node stats never lose rows while anything of lower rank has some. */
    if (d.node_rows < nnode)
        assert_true(d.gpu_rows == 0 && d.alert_rows == 0);
}

static void test_sizes(void **state)
{
    (void)state;
    for (int rows = 24; rows <= 100; rows += 1)
        for (int cols = 80; cols <= 300; cols += 11)
            for (int banner = 0; banner < 2; banner++) {
                check(rows, cols, banner, 0, 7, 0);
                check(rows, cols, banner, 2, 7, 5);
                check(rows, cols, banner, 40, 7, 5);
            }
}

static void test_smaller_than_minimum(void **state)
{
    (void)state;
    for (int rows = 0; rows < 24; rows++)
        for (int cols = 20; cols < 80; cols += 5)
            check(rows, cols, 0, 5, 7, 5);
}

static void test_80x24(void **state)
{
    (void)state;
    lay_screen s = layout_compute(24, 80, 0, 0);
    lay_dash d = layout_dashboard(s.table, 5, 7, 5, 60);
    /* Every stat of the node and of its GPU, the totals and some alerts. */
    assert_int_equal(d.node_rows, 7);
    assert_int_equal(d.gpu_rows, 5);
    assert_int_equal(d.fleet.h, 1);
    assert_true(d.alert_rows >= 2);
    assert_int_equal(d.nvalues, 3);
    assert_true(d.spark_w >= 12);
    /* With the store-lost banner one row less, still every stat. */
    s = layout_compute(24, 80, 1, 0);
    d = layout_dashboard(s.table, 5, 7, 5, 60);
    assert_int_equal(d.node_rows, 7);
    assert_int_equal(d.gpu_rows, 5);
}

static void test_wide_and_tall(void **state)
{
    (void)state;
    lay_screen s = layout_compute(60, 260, 0, 0);
    lay_dash d = layout_dashboard(s.table, 40, 7, 5, 60);
    assert_int_equal(d.alert_rows, DASH_ALERTS_MAX);
    assert_int_equal(d.node.y, d.gpu.y);    /* side by side */
    assert_true(d.gpu.x >= d.node.x + d.node.w);
    assert_int_equal(d.spark_w, 60);        /* one cell a minute, no more */
    /* Narrower than DASH_SIDE_COLS: stacked. */
    s = layout_compute(60, DASH_SIDE_COLS - 1, 0, 0);
    d = layout_dashboard(s.table, 1, 7, 5, 60);
    assert_true(d.gpu.y > d.node.y);
    assert_int_equal(d.alert_rows, 1);
    /* No GPU: nothing for it. */
    d = layout_dashboard(s.table, 1, 7, 0, 60);
    assert_int_equal(d.gpu.h, 0);
}

static void test_narrow_drops_figures(void **state)
{
    (void)state;
    lay_rect body = { 0, 0, 30, 50 };
    lay_dash d = layout_dashboard(body, 0, 7, 0, 60);
    assert_true(d.nvalues < 3);
    assert_true(d.spark_w >= 4);
    body.w = 0;
    d = layout_dashboard(body, 0, 7, 0, 60);
    assert_int_equal(d.spark_w, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_smaller_than_minimum),
        cmocka_unit_test(test_80x24),
        cmocka_unit_test(test_wide_and_tall),
        cmocka_unit_test(test_narrow_drops_figures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
