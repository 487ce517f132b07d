/* Unit tests of grow_array: growth by doubling, the old block kept on a
 * refusal, and the JSON getters of doc.c. */
#include "testutil.h"

#include <stdint.h>

#include "doc.h"
#include "grow.h"

static void test_grow_doubles_and_keeps(void **state)
{
    int *a = NULL;
    size_t cap = 0;
    (void)state;
    assert_int_equal(grow_array(&a, &cap, 1, sizeof *a), 0);
    assert_non_null(a);
    assert_int_equal(cap, 8);
    for (int i = 0; i < 8; i++)
        a[i] = i * 3;
    assert_int_equal(grow_array(&a, &cap, 8, sizeof *a), 0);   /* fits: no change */
    assert_int_equal(cap, 8);
    assert_int_equal(grow_array(&a, &cap, 9, sizeof *a), 0);
    assert_int_equal(cap, 16);
    assert_int_equal(grow_array(&a, &cap, 100, sizeof *a), 0);
    assert_int_equal(cap, 128);
    for (int i = 0; i < 8; i++)
        assert_int_equal(a[i], i * 3);
    free(a);
}

static void test_grow_refuses_overflow(void **state)
{
    char *a = NULL;
    size_t cap = 0;
    (void)state;
    assert_int_equal(grow_array(&a, &cap, 4, 1), 0);
    memcpy(a, "abc", 4);
    char *before = a;
    /* more elements than size_t can count in bytes: refused, nothing lost */
    assert_int_equal(grow_array(&a, &cap, SIZE_MAX / 2 + 2, 4), -1);
    assert_ptr_equal(a, before);
    assert_int_equal(cap, 8);
    assert_int_equal(grow_array(&a, &cap, SIZE_MAX, 1), -1);
    assert_string_equal(a, "abc");
    free(a);
}

static void test_doc_getters(void **state)
{
    json_t *doc = json_pack("{s:s, s:i, s:s, s:n, s:f}", "name", "n1", "count", 4, "num", "4", "none", "real", 1.5);
    (void)state;
    assert_string_equal(doc_str(doc, "name"), "n1");
    assert_string_equal(doc_str(doc, "count"), "");   /* not a string */
    assert_string_equal(doc_str(doc, "missing"), "");
    assert_string_equal(doc_str(NULL, "name"), "");
    assert_int_equal(doc_int(doc, "count"), 4);
    assert_int_equal(doc_int(doc, "num"), 0);          /* a string is not an integer */
    assert_int_equal(doc_int(doc, "real"), 0);
    assert_int_equal(doc_int_or(doc, "none", -1), -1);
    assert_int_equal(doc_int_or(doc, "count", -1), 4);
    json_decref(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grow_doubles_and_keeps),
        cmocka_unit_test(test_grow_refuses_overflow),
        cmocka_unit_test(test_doc_getters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
