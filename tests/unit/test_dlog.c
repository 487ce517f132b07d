/* Unit tests of the daemons' log lines (core/base/dlog.c): the text and
 * JSON forms, and a long array in a command's answer cut so that one
 * action stays one readable line. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "dlog.h"

static char last[1 << 20];

static void capture(void *data, const char *line)
{
    (void)data;
    snprintf(last, sizeof last, "%s", line);
}

static rd_time fixed_now(void)
{
    return 1793491200;   /* 2026-11-01T00:00:00Z */
}

/* The last line, decoded (JSON form). */
static json_t *last_json(void)
{
    json_error_t jerr;
    json_t *o = json_loads(last, 0, &jerr);
    assert_non_null(o);
    return o;
}

static void test_text_line(void **state)
{
    (void)state;
    dlog_sink log = { "serve", 0, capture, NULL, fixed_now };
    json_t *fields = json_pack("{s:[i,i]}", "placements", 1, 2);
    dlog(&log, "sched", fields, "placed %d worker(s)", 2);
    assert_non_null(strstr(last, "2026-11-01T00:00:00Z serve["));
    assert_non_null(strstr(last, "] sched: placed 2 worker(s)"));
    assert_null(strstr(last, "placements"));   /* fields are for the JSON form */
    json_decref(fields);
}

static void test_json_line_keeps_short_arrays(void **state)
{
    (void)state;
    dlog_sink log = { "serve", 1, capture, NULL, fixed_now };
    json_t *fields = json_pack("{s:I, s:[]}", "placed", (json_int_t)20, "placements");
    for (int i = 0; i < 20; i++)
        json_array_append_new(json_object_get(fields, "placements"), json_pack("{s:i}", "worker", i));
    dlog(&log, "sched", fields, "placed %d worker(s)", 20);
    json_t *o = last_json();
    assert_string_equal(json_string_value(json_object_get(o, "action")), "sched");
    assert_string_equal(json_string_value(json_object_get(o, "time")), "2026-11-01T00:00:00Z");
    assert_int_equal(json_integer_value(json_object_get(o, "placed")), 20);
    assert_int_equal(json_array_size(json_object_get(o, "placements")), 20);
    assert_null(json_object_get(o, "placements_omitted"));
    json_decref(o);
    json_decref(fields);
}

static void test_json_line_cuts_long_arrays(void **state)
{
    (void)state;
    dlog_sink log = { "serve", 1, capture, NULL, fixed_now };
    json_t *fields = json_pack("{s:I, s:[], s:[i]}", "placed", (json_int_t)37412, "placements", "other", 7);
    for (int i = 0; i < 37412; i++)
        json_array_append_new(json_object_get(fields, "placements"), json_pack("{s:s, s:i}", "job", "job-x", "worker", i));
    dlog(&log, "sched", fields, "placed %d worker(s)", 37412);
    assert_true(strlen(last) < 4096);
    json_t *o = last_json();
    json_t *pl = json_object_get(o, "placements");
    assert_int_equal(json_array_size(pl), 20);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(pl, 19), "worker")), 19);   /* the first 20 */
    assert_int_equal(json_integer_value(json_object_get(o, "placements_omitted")), 37412 - 20);
    assert_int_equal(json_array_size(json_object_get(o, "other")), 1);
    assert_null(json_object_get(o, "other_omitted"));
    /* the caller's answer is left whole */
    assert_int_equal(json_array_size(json_object_get(fields, "placements")), 37412);
    json_decref(o);
    json_decref(fields);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_line),
        cmocka_unit_test(test_json_line_keeps_short_arrays),
        cmocka_unit_test(test_json_line_cuts_long_arrays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
