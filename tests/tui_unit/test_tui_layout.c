/* Unit tests of the console layout: a pure function of the terminal size,
 * checked across every size from the 80x24 minimum to very large. */
#include "testutil.h"

#include "layout.h"

static int inside(lay_rect r, int rows, int cols)
{
    return r.h == 0 || (r.y >= 0 && r.x >= 0 && r.y + r.h <= rows && r.x + r.w <= cols);
}

static int overlap(lay_rect a, lay_rect b)
{
    if (a.h == 0 || a.w == 0 || b.h == 0 || b.w == 0)
        return 0;
    return a.y < b.y + b.h && b.y < a.y + a.h && a.x < b.x + b.w && b.x < a.x + a.w;
}

static void check_screen(int rows, int cols, int banner, int detail)
{
    lay_screen s = layout_compute(rows, cols, banner, detail);
    lay_rect parts[] = { s.header, s.tabs, s.banner, s.summary, s.table, s.detail, s.status, s.footer };
    size_t n = sizeof parts / sizeof parts[0];
    assert_false(s.too_small);
    for (size_t i = 0; i < n; i++) {
        if (!inside(parts[i], rows, cols))
            fail_msg("%dx%d banner=%d detail=%d: part %zu outside the screen", cols, rows, banner, detail, i);
        for (size_t j = i + 1; j < n; j++)
            if (overlap(parts[i], parts[j]))
                fail_msg("%dx%d banner=%d detail=%d: parts %zu and %zu overlap", cols, rows, banner, detail, i, j);
    }
    assert_int_equal(s.header.y, 0);
    assert_int_equal(s.footer.y, rows - 1);
    assert_int_equal(s.status.y, rows - 2);
    assert_int_equal(s.banner.h, banner ? 1 : 0);
    /* Every row is used: header, tabs, banner, summary, body, status, footer. */
    int body = detail && cols < LAYOUT_SIDE_DETAIL_COLS ? s.detail.h : s.table.h;
    assert_int_equal(2 + s.banner.h + 1 + body + 2, rows);
    if (!detail) {
        assert_int_equal(s.table.w, cols);
        /* 80x24 still shows a useful number of rows. */
        assert_true(layout_table_data_rows(&s) >= 24 - 7 - (banner ? 1 : 0));
    } else if (cols >= LAYOUT_SIDE_DETAIL_COLS) {
        assert_int_equal(s.table.w + s.detail.w, cols);
        assert_true(s.table.w >= 80);
    } else {
        assert_int_equal(s.table.h, 0);
        assert_int_equal(s.detail.w, cols);
    }
}

static void test_all_sizes(void **state)
{
    (void)state;
    for (int rows = LAYOUT_MIN_ROWS; rows <= 120; rows += 3)
        for (int cols = LAYOUT_MIN_COLS; cols <= 320; cols += 7)
            for (int banner = 0; banner < 2; banner++)
                for (int detail = 0; detail < 2; detail++)
                    check_screen(rows, cols, banner, detail);
    check_screen(24, 80, 0, 0);
    check_screen(60, 200, 1, 1);
}

static void test_too_small(void **state)
{
    (void)state;
    assert_true(layout_compute(23, 80, 0, 0).too_small);
    assert_true(layout_compute(24, 79, 0, 0).too_small);
    assert_true(layout_compute(0, 0, 0, 0).too_small);
    assert_false(layout_compute(24, 80, 0, 0).too_small);
}

static void test_columns_fit(void **state)
{
    int want[] = { 16, 12, 8, 12, 9, 9, 16, 5 };
    int min[] = { 12, 6, 7, 12, 5, 5, 10, 4 };
    int drop[] = { 0, 0, 2, 0, 0, 0, 1, 0 };
    int out[8];
    (void)state;
    /* Plenty of room: every column as wanted. */
    assert_int_equal(layout_columns(want, min, drop, 8, 200, out), 8);
    for (int i = 0; i < 8; i++)
        assert_int_equal(out[i], want[i]);
    /* Every width from tight to wide: never wider than avail, never below a
     * minimum, essential columns kept. */
    for (int avail = 40; avail <= 200; avail++) {
        size_t shown = layout_columns(want, min, drop, 8, avail, out);
        int total = 0, n = 0;
        for (int i = 0; i < 8; i++) {
            if (out[i]) {
                assert_true(out[i] >= min[i]);
                assert_true(out[i] <= want[i]);
                total += out[i];
                n++;
            }
        }
        assert_int_equal((int)shown, n);
        assert_true(total + n - 1 <= avail);
        if (avail >= 78)
            for (int i = 0; i < 8; i++)
                if (!drop[i])
                    assert_true(out[i] > 0);
    }
    /* 80 columns: the role (drop 2) goes before the utilisation bar (1). */
    layout_columns(want, min, drop, 8, 78, out);
    assert_int_equal(out[2], 0);
    assert_true(out[6] > 0);
}

static void test_columns_hopeless(void **state)
{
    int want[] = { 10, 10 }, min[] = { 10, 10 }, drop[] = { 0, 0 }, out[2];
    (void)state;
    assert_int_equal(layout_columns(want, min, drop, 2, 15, out), 1);
    assert_int_equal(out[0], 10);
    assert_int_equal(out[1], 0);
    assert_int_equal(layout_columns(want, min, drop, 2, 5, out), 0);
}

static void test_center(void **state)
{
    (void)state;
    lay_rect r = layout_center(24, 80, 10, 40);
    assert_int_equal(r.h, 10);
    assert_int_equal(r.w, 40);
    assert_int_equal(r.y, 7);
    assert_int_equal(r.x, 20);
    r = layout_center(24, 80, 100, 200);
    assert_true(r.y >= 0 && r.y + r.h <= 24 && r.x >= 0 && r.x + r.w <= 80);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_sizes),
        cmocka_unit_test(test_too_small),
        cmocka_unit_test(test_columns_fit),
        cmocka_unit_test(test_columns_hopeless),
        cmocka_unit_test(test_center),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
