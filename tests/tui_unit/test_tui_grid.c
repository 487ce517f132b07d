/* Unit tests of the table model: filter, negation, sort, cursor, marks. */
#include "testutil.h"

#include "grid.h"

static void add(grid *g, const char *name, const char *state, const char *gpus)
{
    const char *cells[] = { name, state, gpus };
    assert_non_null(grid_add_row(g, name, cells));
}

static void fill(grid *g)
{
    grid_init(g, 3);
    add(g, "gpu-01", "active", "4");
    add(g, "gpu-02", "maintenance", "10");
    add(g, "ws-01", "active", "9");
    add(g, "GPU-03", "rejected", "2.5");
    grid_apply(g);
}

static const char *at(const grid *g, size_t i)
{
    return g->rows[g->view[i]].key;
}

static void test_filter(void **state)
{
    grid g;
    (void)state;
    fill(&g);
    assert_int_equal(g.nview, 4);
    grid_set_filter(&g, "gpu");
    assert_int_equal(g.nview, 3);          /* case-insensitive: GPU-03 too */
    grid_set_filter(&g, "!gpu");
    assert_int_equal(g.nview, 1);
    assert_string_equal(at(&g, 0), "ws-01");
    grid_set_filter(&g, "ACTIVE");         /* any cell matches */
    assert_int_equal(g.nview, 2);
    grid_set_filter(&g, "!");              /* a bare '!' negates nothing */
    assert_int_equal(g.nview, 4);
    grid_set_filter(&g, "nothing-like-this");
    assert_int_equal(g.nview, 0);
    assert_null(grid_current(&g));
    grid_set_filter(&g, "");
    assert_int_equal(g.nview, 4);
    grid_free(&g);
}

static void test_sort(void **state)
{
    grid g;
    (void)state;
    fill(&g);
    g.sort_col = 2;                         /* numbers sort as numbers */
    grid_apply(&g);
    assert_string_equal(at(&g, 0), "GPU-03");
    assert_string_equal(at(&g, 1), "gpu-01");
    assert_string_equal(at(&g, 2), "ws-01");
    assert_string_equal(at(&g, 3), "gpu-02");
    g.sort_desc = 1;
    grid_apply(&g);
    assert_string_equal(at(&g, 0), "gpu-02");
    g.sort_col = 1;                         /* stable: equal states keep load order */
    g.sort_desc = 0;
    grid_apply(&g);
    assert_string_equal(at(&g, 0), "gpu-01");
    assert_string_equal(at(&g, 1), "ws-01");
    /* cycling: col 0 asc, col 0 desc, col 1 asc, ... then load order */
    g.sort_col = -1;
    grid_cycle_sort(&g);
    assert_int_equal(g.sort_col, 0);
    assert_int_equal(g.sort_desc, 0);
    grid_cycle_sort(&g);
    assert_int_equal(g.sort_desc, 1);
    for (int i = 0; i < 5; i++)
        grid_cycle_sort(&g);
    assert_int_equal(g.sort_col, -1);
    assert_string_equal(at(&g, 0), "gpu-01");
    grid_free(&g);
}

static void test_cursor_survives_reload(void **state)
{
    grid g;
    (void)state;
    fill(&g);
    grid_move(&g, 2, 10);
    assert_string_equal(grid_current(&g)->key, "ws-01");
    /* A reload in a different order keeps the cursor on the same object. */
    grid_clear_rows(&g);
    add(&g, "ws-01", "active", "9");
    add(&g, "gpu-01", "active", "4");
    grid_apply(&g);
    assert_string_equal(grid_current(&g)->key, "ws-01");
    /* The object vanishes: the cursor stays in range. */
    grid_clear_rows(&g);
    add(&g, "gpu-01", "active", "4");
    grid_apply(&g);
    assert_non_null(grid_current(&g));
    grid_free(&g);
}

static void test_moves(void **state)
{
    grid g;
    (void)state;
    grid_init(&g, 1);
    for (int i = 0; i < 100; i++) {
        char name[16];
        const char *cells[] = { name };
        snprintf(name, sizeof name, "n%03d", i);
        grid_add_row(&g, name, cells);
    }
    grid_apply(&g);
    grid_move(&g, 15, 10);
    assert_int_equal(g.cursor, 15);
    assert_int_equal(g.top, 6);             /* the cursor stays on the page */
    grid_move(&g, -1000, 10);
    assert_int_equal(g.cursor, 0);
    assert_int_equal(g.top, 0);
    grid_move_edge(&g, 1, 10);
    assert_int_equal(g.cursor, 99);
    assert_int_equal(g.top, 90);
    grid_move(&g, 1000, 10);
    assert_int_equal(g.cursor, 99);
    grid_free(&g);
}

static void test_marks(void **state)
{
    grid g;
    (void)state;
    fill(&g);
    grid_toggle_mark(&g);
    grid_move(&g, 1, 10);
    grid_toggle_mark(&g);
    assert_int_equal(g.nmarks, 2);
    assert_true(grid_is_marked(&g, "gpu-01"));
    assert_true(grid_is_marked(&g, "gpu-02"));
    grid_toggle_mark(&g);
    assert_false(grid_is_marked(&g, "gpu-02"));
    /* Marks follow keys through a reload. */
    grid_clear_rows(&g);
    add(&g, "gpu-01", "active", "4");
    grid_apply(&g);
    assert_true(grid_is_marked(&g, "gpu-01"));
    grid_clear_marks(&g);
    assert_int_equal(g.nmarks, 0);
    grid_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filter),
        cmocka_unit_test(test_sort),
        cmocka_unit_test(test_cursor_survives_reload),
        cmocka_unit_test(test_moves),
        cmocka_unit_test(test_marks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
