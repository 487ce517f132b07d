/* The batch tables say when a cell could not be made: table_print and
 * table_print_csv answer -1 when a strdup of theirs fails (linked with
 * -Wl,--wrap=strdup), so that batch reports the answer as incomplete
 * (out of memory, exit 3) instead of printing a blank cell as a value. */
#include "testutil.h"

#include "table.h"

static int strdup_fail_at;   /* the strdup to fail (1-based); 0: none */
static int strdup_count;

char *__real_strdup(const char *s);
char *__wrap_strdup(const char *s);

char *__wrap_strdup(const char *s)
{
    return ++strdup_count == strdup_fail_at ? NULL : __real_strdup(s);
}

/* What table_print or table_print_csv answers with the nth strdup failing. */
static int print_failing(int csv, const json_t *res, int n)
{
    FILE *out = fopen("/dev/null", "w");
    assert_non_null(out);
    strdup_count = 0;
    strdup_fail_at = n;
    int rc = csv ? table_print_csv(out, res, NULL) : table_print(out, res, NULL);
    strdup_fail_at = 0;
    fclose(out);
    return rc;
}

static void test_a_lost_cell_is_reported(void **state)
{
    (void)state;
    json_t *list = json_pack("{s:[{s:s, s:i}, {s:s, s:i}]}", "items", "name", "a", "gpus", 1, "name", "b", "gpus", 2);
    json_t *obj = json_pack("{s:s, s:i, s:[{s:s}]}", "name", "n1", "gpus", 4, "workers", "state", "running");
    assert_non_null(list);
    assert_non_null(obj);
    const json_t *results[] = { list, obj };
    for (int csv = 0; csv < 2; csv++)
        for (size_t r = 0; r < 2; r++) {
            assert_int_equal(print_failing(csv, results[r], 0), 0);
            int calls = strdup_count;
            assert_true(calls > 0);
            for (int n = 1; n <= calls; n++)
                if (print_failing(csv, results[r], n) != -1)
                    fail_msg("%s of result %zu: strdup %d of %d failed, yet it answered 0", csv ? "csv" : "table",
                             r, n, calls);
        }
    json_decref(list);
    json_decref(obj);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_lost_cell_is_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
