/* Unit tests of the mouse's pure mapping (tui/console/mouse.c): a position
 * on the drawn layout to an action (tab, column header, row, wheel), and
 * the tabs' placement both the drawing and the mouse read (layout_tabs). */
#include "testutil.h"

#include "layout.h"
#include "mouse.h"

/* Every pane's labels 5, 4 and 3 columns wide. */
static void tab_cols(int (*cols)[3])
{
    for (int p = 0; p < PANE_COUNT; p++) {
        cols[p][0] = 5;
        cols[p][1] = 4;
        cols[p][2] = 3;
    }
}

static void test_tabs_levels(void **state)
{
    (void)state;
    int cols[PANE_COUNT][3], x[PANE_COUNT], w[PANE_COUNT];
    tab_cols(cols);
    /* full labels fit: " K label " is label + 4 wide, end to end */
    assert_int_equal(layout_tabs((const int (*)[3])cols, PANE_COUNT, 9 * PANE_COUNT, x, w), 0);
    for (int p = 0; p < PANE_COUNT; p++) {
        assert_int_equal(x[p], 9 * p);
        assert_int_equal(w[p], 9);
    }
    /* one cell short: the shorter labels */
    assert_int_equal(layout_tabs((const int (*)[3])cols, PANE_COUNT, 9 * PANE_COUNT - 1, x, w), 1);
    assert_int_equal(w[0], 8);
    /* far too narrow: the shortest without the leading blank, clipped */
    assert_int_equal(layout_tabs((const int (*)[3])cols, PANE_COUNT, 20, x, w), 3);
    assert_int_equal(x[1], 6);
    assert_int_equal(w[0], 6);
    assert_int_equal(w[3], 2);
    assert_int_equal(w[PANE_COUNT - 1], 0);
}

static mouse_geom geom(int rows, int cols, int detail, int table)
{
    int tc[PANE_COUNT][3];
    int width[3] = { 10, 0, 6 };   /* the middle place is hidden */
    int ord[3] = { 0, 2, 1 };       /* shown in another order (a column chooser) */
    tab_cols(tc);
    lay_screen s = layout_compute(rows, cols, 0, detail);
    mouse_geom g;
    mouse_geom_make(&g, &s, (const int (*)[3])tc, ord, width, 3, table);
    return g;
}

static void test_map_tabs(void **state)
{
    (void)state;
    mouse_geom g = geom(40, 120, 0, 1);
    mouse_action a = mouse_map(&g, g.s.tabs.y, 0, MOUSE_PRESS);
    assert_int_equal(a.kind, MOUSE_TAB);
    assert_int_equal(a.arg, 0);
    a = mouse_map(&g, g.s.tabs.y, g.tab_x[5] + g.tab_w[5] - 1, MOUSE_PRESS);
    assert_int_equal(a.kind, MOUSE_TAB);
    assert_int_equal(a.arg, 5);
    /* right of the last tab: nothing */
    a = mouse_map(&g, g.s.tabs.y, 119, MOUSE_PRESS);
    assert_int_equal(a.kind, MOUSE_NONE);
}

static void test_map_header_and_rows(void **state)
{
    (void)state;
    mouse_geom g = geom(40, 120, 0, 1);
    int y = g.s.table.y, x0 = g.s.table.x;
    /* the mark's gutter is no column */
    assert_int_equal(mouse_map(&g, y, x0, MOUSE_PRESS).kind, MOUSE_NONE);
    mouse_action a = mouse_map(&g, y, x0 + 2, MOUSE_PRESS);
    assert_int_equal(a.kind, MOUSE_HEADER);
    assert_int_equal(a.arg, 0);
    /* the blank after a column still names it; the hidden one is skipped */
    assert_int_equal(mouse_map(&g, y, x0 + 12, MOUSE_PRESS).arg, 0);
    a = mouse_map(&g, y, x0 + 13, MOUSE_PRESS);
    assert_int_equal(a.kind, MOUSE_HEADER);
    assert_int_equal(a.arg, 1);   /* the third place shows column 1 */
    assert_int_equal(mouse_map(&g, y, x0 + 20, MOUSE_PRESS).kind, MOUSE_NONE);
    /* rows: 0 is the first under the header */
    a = mouse_map(&g, y + 1, 50, MOUSE_PRESS);
    assert_int_equal(a.kind, MOUSE_ROW);
    assert_int_equal(a.arg, 0);
    a = mouse_map(&g, y + g.s.table.h - 1, 50, MOUSE_PRESS);
    assert_int_equal(a.kind, MOUSE_ROW);
    assert_int_equal(a.arg, g.s.table.h - 2);
    /* the status line and footer, the header line: nothing */
    assert_int_equal(mouse_map(&g, g.s.status.y, 5, MOUSE_PRESS).kind, MOUSE_NONE);
    assert_int_equal(mouse_map(&g, g.s.header.y, 5, MOUSE_PRESS).kind, MOUSE_NONE);
}

static void test_map_wheel_and_others(void **state)
{
    (void)state;
    mouse_geom g = geom(40, 120, 0, 1);
    mouse_action a = mouse_map(&g, 10, 10, MOUSE_WHEEL_DOWN);
    assert_int_equal(a.kind, MOUSE_WHEEL);
    assert_int_equal(a.arg, MOUSE_WHEEL_ROWS);
    assert_int_equal(mouse_map(&g, 10, 10, MOUSE_WHEEL_UP).arg, -MOUSE_WHEEL_ROWS);
    assert_int_equal(mouse_map(&g, 10, 10, MOUSE_OTHER).kind, MOUSE_NONE);
    /* the Dashboard's body is no table */
    mouse_geom d = geom(40, 120, 0, 0);
    assert_int_equal(mouse_map(&d, d.s.table.y + 2, 10, MOUSE_PRESS).kind, MOUSE_NONE);
    assert_int_equal(mouse_map(&d, d.s.tabs.y, 1, MOUSE_PRESS).kind, MOUSE_TAB);
    /* details beside the table: a click there is no row */
    mouse_geom side = geom(40, 160, 1, 1);
    assert_int_equal(mouse_map(&side, side.s.table.y + 2, side.s.detail.x + 1, MOUSE_PRESS).kind, MOUSE_NONE);
    assert_int_equal(mouse_map(&side, side.s.table.y + 2, 1, MOUSE_PRESS).kind, MOUSE_ROW);
    /* details over the table (narrow): no row either */
    mouse_geom over = geom(40, 100, 1, 1);
    assert_int_equal(mouse_map(&over, over.s.detail.y + 2, 10, MOUSE_PRESS).kind, MOUSE_NONE);
    /* too small: nothing at all */
    mouse_geom small = geom(10, 40, 0, 1);
    assert_int_equal(mouse_map(&small, 1, 1, MOUSE_PRESS).kind, MOUSE_NONE);
    assert_int_equal(mouse_map(&small, 1, 1, MOUSE_WHEEL_UP).kind, MOUSE_NONE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tabs_levels),
        cmocka_unit_test(test_map_tabs),
        cmocka_unit_test(test_map_header_and_rows),
        cmocka_unit_test(test_map_wheel_and_others),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
