/* Unit tests of strbuf.c, the one growing string: appends keep the text
 * NUL-terminated through growth, a reserve is exact, free leaves a
 * buffer that can be used again, clear empties one for reuse (keeping its
 * memory, forgetting a failure) and drop takes bytes off the front. */
#include "testutil.h"

#include "strbuf.h"

static void test_append_grows(void **state)
{
    (void)state;
    strbuf b = { 0 };
    assert_null(b.text);
    strbuf_append(&b, "", 0);
    assert_non_null(b.text);
    assert_string_equal(b.text, "");
    for (int i = 0; i < 1000; i++)
        strbuf_puts(&b, "abc");
    assert_int_equal(b.len, 3000);
    assert_true(b.cap > b.len);
    assert_int_equal(strlen(b.text), 3000);
    assert_memory_equal(b.text + 2997, "abc", 4);
    assert_int_equal(b.failed, 0);
    strbuf_free(&b);
    assert_null(b.text);
    assert_int_equal(b.len, 0);
    strbuf_append(&b, "x\0y", 3);   /* bytes, not a C string */
    assert_int_equal(b.len, 3);
    assert_memory_equal(b.text, "x\0y", 4);
    strbuf_free(&b);
}

static void test_reserve_exact(void **state)
{
    (void)state;
    strbuf b = { 0 };
    assert_int_equal(strbuf_reserve(&b, 1), 0);
    assert_int_equal(b.cap, 1);
    assert_string_equal(b.text, "");   /* reserved: an empty string */
    assert_int_equal(strbuf_reserve(&b, 1000), 0);
    assert_int_equal(b.cap, 1000);
    assert_int_equal(strbuf_reserve(&b, 10), 0);   /* never shrinks */
    assert_int_equal(b.cap, 1000);
    strbuf_puts(&b, "hello");
    assert_int_equal(b.cap, 1000);
    assert_string_equal(b.text, "hello");
    strbuf_free(&b);
}

static void test_failed_stays_failed(void **state)
{
    (void)state;
    strbuf b = { 0 };
    assert_int_equal(strbuf_reserve(&b, (size_t)-1), -1);
    assert_int_equal(b.failed, 1);
    assert_null(b.text);
    strbuf_puts(&b, "ignored");
    assert_null(b.text);
    assert_int_equal(b.len, 0);
    strbuf_free(&b);
}

static void test_clear_reuses(void **state)
{
    (void)state;
    strbuf b = { 0 };
    strbuf_clear(&b);   /* nothing yet: still nothing */
    assert_null(b.text);
    strbuf_puts(&b, "first answer");
    char *text = b.text;
    size_t cap = b.cap;
    strbuf_clear(&b);
    assert_ptr_equal(b.text, text);   /* kept for the next request */
    assert_int_equal(b.cap, cap);
    assert_int_equal(b.len, 0);
    assert_string_equal(b.text, "");
    strbuf_puts(&b, "second");
    assert_string_equal(b.text, "second");
    assert_int_equal(strbuf_reserve(&b, (size_t)-1), -1);
    assert_int_equal(b.failed, 1);
    strbuf_clear(&b);   /* a failed one is usable again */
    assert_int_equal(b.failed, 0);
    strbuf_puts(&b, "third");
    assert_string_equal(b.text, "third");
    strbuf_free(&b);
}

static void test_drop_front(void **state)
{
    (void)state;
    strbuf b = { 0 };
    strbuf_drop(&b, 3);   /* empty: nothing to drop */
    assert_null(b.text);
    strbuf_puts(&b, "line one\npart");
    strbuf_drop(&b, 9);
    assert_int_equal(b.len, 4);
    assert_string_equal(b.text, "part");
    strbuf_puts(&b, "ial\n");
    assert_string_equal(b.text, "partial\n");
    strbuf_drop(&b, b.len);
    assert_int_equal(b.len, 0);
    assert_string_equal(b.text, "");
    strbuf_puts(&b, "x");
    strbuf_drop(&b, 5);   /* more than held: all of it */
    assert_int_equal(b.len, 0);
    assert_string_equal(b.text, "");
    strbuf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_append_grows),
        cmocka_unit_test(test_reserve_exact),
        cmocka_unit_test(test_failed_stays_failed),
        cmocka_unit_test(test_clear_reuses),
        cmocka_unit_test(test_drop_front),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
