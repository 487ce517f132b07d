/* Unit tests of issue 35's find and order parts that need no terminal:
 * column:value filter terms, the wrapping step, the sort picker's sort,
 * searching a text view, the widths a wide terminal gives truncated
 * columns, the column chooser's file, and details as sections. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "colprefs.h"
#include "grid.h"
#include "layout.h"
#include "textview.h"

static const char *const headers[] = { "NAME", "STATE", "WAITING REASON" };

static void fill(grid *g)
{
    static const char *const rows[][3] = {
        { "gpu-01", "active", "-" }, { "gpu-02", "maintenance", "quota" },
        { "ws-01", "active", "no GPU free" }, { "ws-02", "offline", "quota of gpu" },
    };
    grid_init(g, 3);
    for (size_t i = 0; i < 4; i++)
        assert_non_null(grid_add_row(g, rows[i][0], rows[i]));
    grid_apply(g);
}

static void test_filter_terms_parse(void **state)
{
    char plain[GRID_FILTER_MAX], err[512];
    grid_term t[GRID_TERMS_MAX];
    size_t n = 99;
    (void)state;
    assert_true(grid_filter_parse("gpu  x", headers, 3, plain, sizeof plain, t, &n, err, sizeof err));
    assert_string_equal(plain, "gpu  x");     /* no term: kept as typed */
    assert_int_equal(n, 0);
    assert_true(grid_filter_parse("ws State:ACT waiting_reason:!quota 10:30", headers, 3, plain, sizeof plain, t, &n,
                                  err, sizeof err));
    assert_string_equal(plain, "ws 10:30");
    assert_int_equal(n, 2);
    assert_int_equal(t[0].col, 1);
    assert_string_equal(t[0].value, "ACT");
    assert_int_equal(t[0].negate, 0);
    assert_int_equal(t[1].col, 2);
    assert_int_equal(t[1].negate, 1);
    assert_string_equal(t[1].value, "quota");
    assert_true(grid_filter_parse("waitingreason:q", headers, 3, plain, sizeof plain, t, &n, err, sizeof err));
    assert_int_equal(t[0].col, 2);
    /* A column the table lacks: an error naming it and the valid ones. */
    assert_false(grid_filter_parse("colour:red", headers, 3, plain, sizeof plain, t, &n, err, sizeof err));
    assert_non_null(strstr(err, "'colour'"));
    assert_non_null(strstr(err, "name, state, waiting_reason"));
}

static void test_filter_terms_apply(void **state)
{
    grid g;
    char err[512];
    (void)state;
    fill(&g);
    assert_true(grid_set_query(&g, "state:active", headers, 3, err, sizeof err));
    assert_int_equal(g.nview, 2);
    assert_true(grid_set_query(&g, "state:active ws", headers, 3, err, sizeof err));
    assert_int_equal(g.nview, 1);
    assert_string_equal(g.rows[g.view[0]].key, "ws-01");
    assert_true(grid_set_query(&g, "waiting_reason:quota", headers, 3, err, sizeof err));
    assert_int_equal(g.nview, 2);
    assert_true(grid_set_query(&g, "waiting_reason:quota state:!offline", headers, 3, err, sizeof err));
    assert_int_equal(g.nview, 1);
    assert_string_equal(g.rows[g.view[0]].key, "gpu-02");
    /* An unknown column changes nothing. */
    assert_false(grid_set_query(&g, "nope:x", headers, 3, err, sizeof err));
    assert_int_equal(g.nview, 1);
    assert_string_equal(g.query, "waiting_reason:quota state:!offline");
    /* Same plain text, other terms: searched again, not narrowed. */
    assert_true(grid_set_query(&g, "state:active", headers, 3, err, sizeof err));
    assert_int_equal(g.nview, 2);
    assert_true(grid_set_query(&g, "", headers, 3, err, sizeof err));
    assert_int_equal(g.nview, 4);
    grid_free(&g);
}

static void test_step_wraps_and_sort_by(void **state)
{
    grid g;
    (void)state;
    fill(&g);
    grid_move_edge(&g, 1, 10);
    assert_int_equal(grid_step_wrap(&g, 1, 10), 1);
    assert_int_equal(g.cursor, 0);
    assert_int_equal(grid_step_wrap(&g, -1, 10), 1);
    assert_int_equal(g.cursor, 3);
    assert_int_equal(grid_step_wrap(&g, -1, 10), 0);
    assert_int_equal(g.cursor, 2);
    grid_sort_by(&g, 1);
    assert_int_equal(g.sort_col, 1);
    assert_int_equal(g.sort_desc, 0);
    assert_string_equal(g.rows[g.view[0]].cells[1], "active");
    grid_sort_by(&g, 1);                    /* again: the other way */
    assert_int_equal(g.sort_desc, 1);
    assert_string_equal(g.rows[g.view[0]].cells[1], "offline");
    grid_sort_by(&g, 0);                    /* another column: ascending */
    assert_int_equal(g.sort_desc, 0);
    assert_string_equal(g.rows[g.view[0]].key, "gpu-01");
    grid_free(&g);
}

static void test_textview_find(void **state)
{
    textview tv = { 0 };
    int wrapped;
    (void)state;
    textview_add_text(&tv, "alpha\nbeta\nGamma\nalphabet\n");
    assert_int_equal(textview_find(&tv, "ALPHA", 0, 1, 1, &wrapped), 0);
    assert_int_equal(wrapped, 0);
    assert_int_equal(textview_find(&tv, "alpha", 0, 1, 0, &wrapped), 3);
    assert_int_equal(textview_find(&tv, "alpha", 3, 1, 0, &wrapped), 0);
    assert_int_equal(wrapped, 1);
    assert_int_equal(textview_find(&tv, "alpha", 0, -1, 0, &wrapped), 3);
    assert_int_equal(wrapped, 1);
    assert_int_equal(textview_find(&tv, "gamma", 3, -1, 0, &wrapped), 2);
    assert_int_equal(textview_find(&tv, "delta", 0, 1, 1, &wrapped), -1);
    textview_show_line(&tv, 3, 2);
    assert_true(tv.has_found);
    assert_true(tv.top <= 3 && tv.top + 2 > 3);
    textview_clear(&tv);
    assert_false(tv.has_found);
}

static void test_widths_grow_for_truncated(void **state)
{
    int want[] = { 6, 10, 20 }, min[] = { 3, 5, 10 }, drop[] = { 0, 0, 0 }, out[3];
    int need[] = { 4, 30, 80 };
    (void)state;
    /* Narrow: nothing to give. */
    layout_columns(want, min, drop, 3, 30, out);
    assert_int_equal(layout_columns_grow(need, 3, 30, out), 0);
    /* Wide: the room goes to the columns cut, the one cut most first;
     * the column that fits keeps its width. */
    layout_columns(want, min, drop, 3, 200, out);
    assert_int_equal(out[2], 20);
    layout_columns_grow(need, 3, 200, out);
    assert_int_equal(out[0], 6);
    assert_int_equal(out[1], 30);
    assert_int_equal(out[2], 80);
    /* Some room: shared, the most truncated first. */
    layout_columns(want, min, drop, 3, 60, out);
    layout_columns_grow(need, 3, 60, out);
    assert_int_equal(out[0] + out[1] + out[2] + 2, 60);
    assert_int_equal(out[0], 6);
    assert_true(out[2] > 20 && out[1] >= 10);
    /* A hidden column (0) gets nothing. */
    int hidden[] = { 6, 0, 20 };
    layout_columns_grow(need, 3, 200, hidden);
    assert_int_equal(hidden[1], 0);
}

static void test_colprefs_file(void **state)
{
    char dir[] = "/tmp/rdcolsXXXXXX", path[256], spec[COLPREFS_LINE_MAX], err[512];
    const char *const hs[] = { "NAME", "STATE", "WAITING REASON", "NODE" };
    colset s;
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/sub/rigdeck/columns", dir);
    /* Missing file: the default. */
    assert_false(colprefs_load(path, "jobs/jobs", spec, sizeof spec));
    colset_parse(&s, "", hs, 4);
    assert_int_equal(s.n, 4);
    assert_int_equal(s.order[2], 2);
    /* Order and hidden columns; unknown names skipped, others follow. */
    colset_parse(&s, "state,-waiting_reason,bogus,name", hs, 4);
    assert_int_equal(s.n, 4);
    assert_int_equal(s.order[0], 1);
    assert_int_equal(s.order[1], 2);
    assert_int_equal(s.hidden[1], 1);
    assert_int_equal(s.order[2], 0);
    assert_int_equal(s.order[3], 3);
    colset_format(&s, hs, spec, sizeof spec);
    assert_string_equal(spec, "state,-waiting_reason,name,node");
    /* Written, with the folder made, and read back; other lines kept. */
    assert_true(colprefs_save(path, "jobs/jobs", spec, err, sizeof err));
    assert_true(colprefs_save(path, "nodes/nodes", "-name", err, sizeof err));
    assert_true(colprefs_save(path, "jobs/jobs", "node,name", err, sizeof err));
    assert_true(colprefs_load(path, "jobs/jobs", spec, sizeof spec));
    assert_string_equal(spec, "node,name");
    assert_true(colprefs_load(path, "nodes/nodes", spec, sizeof spec));
    assert_string_equal(spec, "-name");
    /* Every column hidden: the first stays. */
    colset_parse(&s, "-name,-state,-waiting_reason,-node", hs, 4);
    assert_int_equal(s.hidden[0], 0);
    /* A bad file (binary junk) is no crash: the key is just not found. */
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("\x01\x02 = = ,,,\n=\njobs/jobs\n", f);
    fclose(f);
    assert_false(colprefs_load(path, "jobs/jobs", spec, sizeof spec));
    /* XDG_CONFIG_HOME wins over HOME. */
    setenv("XDG_CONFIG_HOME", dir, 1);
    assert_true(colprefs_path(path, sizeof path));
    assert_non_null(strstr(path, "/rigdeck/columns"));
    assert_int_equal(strncmp(path, dir, strlen(dir)), 0);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_details_as_sections(void **state)
{
    textview tv = { 0 };
    json_error_t je;
    json_t *doc = json_loads("{\"name\":\"gpu-01\",\"inventory\":{\"gpus\":[{\"model\":\"a100\",\"count\":4}],"
                             "\"cpu_cores\":64,\"nvme\":[{\"size_gb\":1000}],\"tags\":[\"a\",\"b\"]},"
                             "\"health\":[{\"index\":0,\"state\":\"ok\"}]}", 0, &je);
    (void)state;
    assert_non_null(doc);
    textview_add_doc(&tv, doc);
    const char *want[] = { "name  gpu-01", "inventory:", "  gpus:", "    - model: a100", "      count: 4",
                           "  cpu_cores: 64", "  nvme:", "    - size_gb: 1000", "  tags:", "    - a", "    - b" };
    size_t found = 0;
    for (size_t i = 0; i < tv.count; i++) {
        assert_null(strchr(tv.lines[i], '{'));    /* no JSON */
        for (size_t w = 0; w < sizeof want / sizeof *want; w++)
            found += strcmp(tv.lines[i], want[w]) == 0;
    }
    assert_int_equal(found, sizeof want / sizeof *want);
    json_decref(doc);
    textview_clear(&tv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filter_terms_parse),
        cmocka_unit_test(test_filter_terms_apply),
        cmocka_unit_test(test_step_wraps_and_sort_by),
        cmocka_unit_test(test_textview_find),
        cmocka_unit_test(test_widths_grow_for_truncated),
        cmocka_unit_test(test_colprefs_file),
        cmocka_unit_test(test_details_as_sections),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
