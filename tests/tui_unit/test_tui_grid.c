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

/* The order of old: cell_number on both cells in every comparison, numbers
 * by value when both are numbers, else strcmp, negated when descending,
 * ties in load order; run by the same qsort over the rows passing filter in
 * load order, so even a column whose comparison goes round agrees. */
static int old_number(const char *s, double *out)
{
    char *end;
    if (!*s)
        return 0;
    *out = strtod(s, &end);
    return end != s && (*end == '\0' || *end == '/' || *end == ' ' || *end == '%');
}

static const grid *old_g;

static int old_compare(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    const char *ca = old_g->rows[a].cells[old_g->sort_col], *cb = old_g->rows[b].cells[old_g->sort_col];
    double na, nb;
    int c;
    if (old_number(ca, &na) && old_number(cb, &nb))
        c = na < nb ? -1 : na > nb ? 1 : 0;
    else
        c = strcmp(ca, cb);
    if (old_g->sort_desc)
        c = -c;
    return c ? c : a < b ? -1 : a > b;
}

static void assert_old_order(const grid *g)
{
    size_t *want = malloc((g->nrows + 1) * sizeof *want), n = 0;
    assert_non_null(want);
    for (size_t i = 0; i < g->nrows; i++)
        if (grid_row_matches(&g->rows[i], g->ncols, g->filter))
            want[n++] = i;
    if (g->sort_col >= 0 && n > 1) {
        old_g = g;
        qsort(want, n, sizeof *want, old_compare);
    }
    assert_int_equal(g->nview, n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(g->view[i], want[i]);
    free(want);
}

static unsigned lcg_next(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (*seed >> 16) & 0x7fff;
}

/* Columns: numbers only, text only, numbers with "-" and empty cells (text
 * before every number: a total order), numbers with text that sorts among
 * them ("1x", "nan": the comparison goes round), long texts sharing their
 * first 8 or 16 bytes or all of them (and bytes over 127). */
static void fill_mixed(grid *g, size_t nrows)
{
    static const char *odd[] = { "-", "", "1x", "9", "10", "2.5/4", "nan", "abc", " 3", "3 GiB", "-4", "ABd", "50%" };
    static const char *longs[] = { "waiting for gpus in eu-west-%u", "waiting for gpus", "waiting for gpus ",
                                   "waiting for gpu", "train-%u", "finished", "finishedX", "finishe",
                                   "abcdefghijklmnop%u", "abcdefghijklmnop", "\xc3\xa9t\xc3\xa9-long-text-%u",
                                   "\xc3\xa9t\xc3\xa9-long-text-" };
    unsigned seed = 7;
    grid_init(g, 5);
    for (size_t i = 0; i < nrows; i++) {
        char key[32], num[32], text[32], dash[32], lng[64];
        snprintf(key, sizeof key, "r%zu", i);
        snprintf(num, sizeof num, "%u.%u", lcg_next(&seed) % 50, lcg_next(&seed) % 3);
        snprintf(text, sizeof text, "%cb%c", 'a' + lcg_next(&seed) % 5, 'a' + lcg_next(&seed) % 4);
        unsigned d = lcg_next(&seed) % 4;
        snprintf(dash, sizeof dash, "%s", d == 0 ? "-" : d == 1 ? "" : num);
        const char *fmt = longs[lcg_next(&seed) % (sizeof longs / sizeof *longs)];
        if (strstr(fmt, "%u"))
            snprintf(lng, sizeof lng, fmt, lcg_next(&seed) % 40);
        else
            snprintf(lng, sizeof lng, "%s", fmt);
        const char *cells[] = { num, text, dash, odd[lcg_next(&seed) % (sizeof odd / sizeof *odd)], lng };
        assert_non_null(grid_add_row(g, key, cells));
    }
}

/* A fresh grid of rows [0, n) of from, with its filter and sort, applied. */
static void copy_rows(grid *to, const grid *from, size_t lo, size_t hi)
{
    for (size_t i = lo; i < hi; i++)
        assert_non_null(grid_add_row(to, from->rows[i].key, (const char *const *)from->rows[i].cells));
}

static void assert_same_view(const grid *a, const grid *b)
{
    assert_int_equal(a->nview, b->nview);
    for (size_t i = 0; i < a->nview; i++)
        assert_string_equal(a->rows[a->view[i]].key, b->rows[b->view[i]].key);
}

/* A table read page by page: rows joining a filtered, sorted table (moved
 * in, or added) show in the view exactly as if the table had been read
 * whole, whatever the filter and sort were when they joined. */
static void test_rows_appended_join_the_view(void **state)
{
    (void)state;
    static const struct { const char *filter; int col, desc; } steps[] = {
        { "", -1, 0 }, { "b", -1, 0 }, { "ab", 0, 0 }, { "ab", 0, 0 }, { "!ab", 4, 1 },
        { "", 2, 0 }, { "wait", 4, 0 }, { "wait", -1, 0 }, { "1", 3, 1 },
    };
    grid whole, part, stage;
    fill_mixed(&whole, 450);
    grid_init(&part, whole.ncols);
    grid_init(&stage, whole.ncols);
    size_t at = 0;
    for (size_t s = 0; s < sizeof steps / sizeof *steps; s++) {
        size_t next = at + 50;
        if (s % 2) {
            copy_rows(&part, &whole, at, next);     /* added in place */
        } else {
            copy_rows(&stage, &whole, at, next);    /* moved in from a page */
            grid_append_rows(&part, &stage);
            assert_int_equal(stage.nrows, 0);
        }
        at = next;
        snprintf(part.filter, sizeof part.filter, "%s", steps[s].filter);
        part.sort_col = steps[s].col;
        part.sort_desc = steps[s].desc;
        grid_apply(&part);
        grid ref;
        grid_init(&ref, whole.ncols);
        copy_rows(&ref, &whole, 0, at);
        snprintf(ref.filter, sizeof ref.filter, "%s", steps[s].filter);
        ref.sort_col = steps[s].col;
        ref.sort_desc = steps[s].desc;
        grid_apply(&ref);
        assert_int_equal(part.nrows, at);
        assert_same_view(&part, &ref);
        /* and the same rows once more, with nothing new: nothing changes */
        grid_apply(&part);
        assert_same_view(&part, &ref);
        grid_free(&ref);
    }
    grid_free(&whole);
    grid_free(&part);
    grid_free(&stage);
}

/* Rows moved into an empty table take their array with them: no copy of
 * 100,000 rows beside the rows themselves; a later page is copied in. */
static void test_rows_appended_to_empty_table_change_hands(void **state)
{
    (void)state;
    grid g, stage;
    grid_init(&g, 3);
    grid_init(&stage, 3);
    add(&stage, "gpu-01", "active", "4");
    add(&stage, "gpu-02", "maintenance", "10");
    const grid_row *array = stage.rows;
    g.sort_col = 2;
    grid_apply(&g);
    grid_append_rows(&g, &stage);
    assert_ptr_equal(g.rows, array);
    assert_int_equal(g.nrows, 2);
    assert_int_equal(stage.nrows, 0);
    assert_true(stage.rows != array);
    add(&stage, "ws-01", "active", "9");
    grid_append_rows(&g, &stage);
    assert_int_equal(stage.nrows, 0);
    grid_apply(&g);
    assert_int_equal(g.nview, 3);
    assert_string_equal(at(&g, 0), "gpu-01");
    assert_string_equal(at(&g, 1), "ws-01");
    assert_string_equal(at(&g, 2), "gpu-02");
    grid_free(&g);
    grid_free(&stage);
}

static void test_sort_keys_keep_old_order(void **state)
{
    grid g;
    (void)state;
    fill_mixed(&g, 400);
    for (int col = 0; col < 5; col++) {
        for (int desc = 0; desc < 2; desc++) {
            g.sort_col = col;
            g.sort_desc = desc;
            grid_apply(&g);
            assert_old_order(&g);
        }
    }
    g.sort_col = 3;
    grid_apply(&g);
    assert_int_equal(g.kcol, 3);
    assert_false(g.ktotal);                 /* "1x" among the numbers */
    g.sort_col = 2;
    grid_apply(&g);
    assert_true(g.ktotal);                  /* "-" and "" before every number */
    grid_free(&g);
}

static void test_sort_keys_parsed_once(void **state)
{
    grid g;
    (void)state;
    grid_init(&g, 1);
    const char *c1[] = { "5" }, *c2[] = { "7" }, *c3[] = { "6" };
    grid_add_row(&g, "a", c1);
    grid_add_row(&g, "b", c2);
    g.sort_col = 0;
    grid_apply(&g);
    assert_string_equal(at(&g, 0), "a");
    /* Text changed behind the grid's back is not parsed again: the keys
     * made when the column was first sorted decide. */
    g.rows[0].cells[0][0] = '8';
    g.sort_desc = 1;
    grid_apply(&g);
    assert_string_equal(at(&g, 0), "b");
    /* A row put in through the grid is keyed afresh. */
    grid one;
    grid_init(&one, 1);
    grid_add_row(&one, "b", c3);
    grid_swap_row(&g, 1, &one);
    grid_apply(&g);
    assert_string_equal(at(&g, 0), "a");    /* "8" now beats "6" */
    grid_free(&one);
    grid_free(&g);
}

static void test_filter_typed_keeps_old_results(void **state)
{
    static const char *typed[] = { "", "a", "ab", "abc", "ab", "b", "bA", "!", "!a", "!ab", "!a", "3", "3.", "",
                                   "-", "x", "", "W", "wai", "waiting for gpus ", "\xc3\xa9", "T\xc3", "" };
    grid g;
    (void)state;
    fill_mixed(&g, 400);
    for (int col = -1; col < 5; col++) {
        for (int desc = 0; desc < 2; desc++) {
            g.sort_col = col;
            g.sort_desc = desc;
            for (size_t i = 0; i < sizeof typed / sizeof *typed; i++) {
                grid_set_filter(&g, typed[i]);
                assert_old_order(&g);
            }
        }
    }
    /* A reload between two keys: the kept match set is of the old rows. */
    grid_set_filter(&g, "a");
    grid_clear_rows(&g);
    const char *c1[] = { "gpu-01", "active", "4", "", "" }, *c2[] = { "gpu-02", "idle", "4", "", "" };
    grid_add_row(&g, "gpu-01", c1);
    grid_add_row(&g, "gpu-02", c2);
    grid_set_filter(&g, "ac");
    assert_int_equal(g.nview, 1);
    grid_free(&g);
}

static void test_filter_grown_searches_old_matches(void **state)
{
    grid g;
    (void)state;
    fill(&g);
    grid_set_filter(&g, "act");
    assert_int_equal(g.nview, 2);           /* gpu-01, ws-01 */
    /* Text changed behind the grid's back in a row that failed "act": a
     * longer filter searches only the rows that passed, so it stays out. */
    memcpy(g.rows[1].cells[1], "active", 6);    /* gpu-02's "maintenance" */
    grid_set_filter(&g, "acti");
    assert_int_equal(g.nview, 2);
    /* Shorter or different text searches every row again. */
    grid_set_filter(&g, "act");
    assert_int_equal(g.nview, 3);
    grid_free(&g);
}

static void test_swap_row_keeps_what_stays_true(void **state)
{
    grid g, one;
    (void)state;
    fill(&g);
    g.sort_col = 2;
    grid_set_filter(&g, "act");
    assert_int_equal(g.nview, 2);           /* gpu-01 (4), ws-01 (9) */
    /* Another column changes, the sort cell and the filter's answer not:
     * keys and matches are kept. */
    grid_init(&one, 3);
    add(&one, "ws-01", "active now", "9");
    assert_true(grid_replace_row(&g, &one));
    assert_int_equal(g.kcol, 2);
    assert_true(g.mvalid);
    grid_apply(&g);
    assert_string_equal(g.rows[g.view[1]].cells[1], "active now");
    grid_clear_rows(&one);
    /* The filter's answer changes: the row leaves the view. */
    add(&one, "ws-01", "idle", "9");
    grid_replace_row(&g, &one);
    grid_apply(&g);
    assert_int_equal(g.nview, 1);
    assert_old_order(&g);
    grid_clear_rows(&one);
    /* The sort cell changes: the order follows. */
    grid_set_filter(&g, "");
    add(&one, "gpu-02", "maintenance", "1");
    grid_replace_row(&g, &one);
    grid_apply(&g);
    assert_string_equal(at(&g, 0), "gpu-02");
    assert_old_order(&g);
    grid_free(&one);
    grid_free(&g);
}

static void test_prepare_sort_ranks_first_column(void **state)
{
    grid g;
    (void)state;
    fill(&g);
    grid_prepare_sort(&g);                  /* in load order: column 0 */
    assert_int_equal(g.kcol, 0);
    assert_int_equal(g.nrank, 4);
    assert_string_equal(at(&g, 0), "gpu-01");   /* the view is untouched */
    grid_cycle_sort(&g);
    assert_int_equal(g.kcol, 0);
    assert_old_order(&g);
    g.sort_col = 2;                         /* sorted: nothing to prepare */
    grid_apply(&g);
    grid_prepare_sort(&g);
    assert_int_equal(g.kcol, 2);
    grid_free(&g);
}

/* Ranks count distinct cells as the comparison sees them: -0 and 0 are
 * one number, 1000 and 1e3 too, and texts apart only beyond their first 8,
 * 16 or 24 bytes are apart; equal cells keep load order both ways. */
static void test_rank_counts_distinct_cells(void **state)
{
    grid g;
    (void)state;
    grid_init(&g, 1);
    static const char *cells[] = { "0", "-0", "0.0", "1000", "1e3", "-5", "-5.0", "x",
                                   "job-00000001", "job-00000002", "job-00000001",
                                   "abcdefghijklmnopqrstuvwxyz-1", "abcdefghijklmnopqrstuvwxyz-2",
                                   "abcdefghijklmnopqrstuvwxyz-1", "abcdefghijklmnopqrstuvwxyz" };
    for (size_t i = 0; i < sizeof cells / sizeof *cells; i++) {
        char key[16];
        snprintf(key, sizeof key, "r%zu", i);
        const char *row[] = { cells[i] };
        assert_non_null(grid_add_row(&g, key, row));
    }
    /* numbers: 0, 1000, -5; then (as text after every number) texts: x,
     * two ids, three long ones */
    grid_prepare_sort(&g);
    assert_true(g.ktotal);
    assert_false(g.ktext_first);
    assert_int_equal(g.nrank, 9);
    assert_int_equal(g.krank[0], g.krank[1]);
    assert_int_equal(g.krank[0], g.krank[2]);
    assert_int_equal(g.krank[3], g.krank[4]);
    assert_int_equal(g.krank[8], g.krank[10]);
    assert_int_equal(g.krank[11], g.krank[13]);
    assert_true(g.krank[5] < g.krank[0] && g.krank[0] < g.krank[3] && g.krank[3] < g.krank[7]);
    for (int desc = 0; desc < 2; desc++) {
        g.sort_col = 0;
        g.sort_desc = desc;
        grid_apply(&g);
        assert_old_order(&g);
    }
    grid_free(&g);
}

/* Many rows sharing their first 8 bytes (ids), or their first 24 (long
 * texts), in no particular order: the runs long enough to be radix sorted
 * again, 8 bytes at a time, still come out in the old order. */
static void test_sort_long_runs_of_shared_prefixes(void **state)
{
    grid g;
    (void)state;
    grid_init(&g, 2);
    unsigned seed = 11;
    for (size_t i = 0; i < 600; i++) {
        char key[16], id[32], text[64];
        snprintf(key, sizeof key, "r%zu", i);
        snprintf(id, sizeof id, "job-%08x", lcg_next(&seed) % 300);
        snprintf(text, sizeof text, "waiting for gpus in region %u-%c", lcg_next(&seed) % 90,
                 'a' + lcg_next(&seed) % 3);
        const char *row[] = { id, text };
        assert_non_null(grid_add_row(&g, key, row));
    }
    for (int col = 0; col < 2; col++) {
        for (int desc = 0; desc < 2; desc++) {
            g.sort_col = col;
            g.sort_desc = desc;
            grid_apply(&g);
            assert_true(g.nrank > 0);
            assert_old_order(&g);
        }
    }
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
        cmocka_unit_test(test_sort_keys_keep_old_order),
        cmocka_unit_test(test_sort_keys_parsed_once),
        cmocka_unit_test(test_filter_typed_keeps_old_results),
        cmocka_unit_test(test_filter_grown_searches_old_matches),
        cmocka_unit_test(test_swap_row_keeps_what_stays_true),
        cmocka_unit_test(test_prepare_sort_ranks_first_column),
        cmocka_unit_test(test_rank_counts_distinct_cells),
        cmocka_unit_test(test_sort_long_runs_of_shared_prefixes),
        cmocka_unit_test(test_cursor_survives_reload),
        cmocka_unit_test(test_moves),
        cmocka_unit_test(test_marks),
        cmocka_unit_test(test_rows_appended_join_the_view),
        cmocka_unit_test(test_rows_appended_to_empty_table_change_hands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
