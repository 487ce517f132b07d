/* Unit tests of jsonscan.c, the one skipper of JSON text, and of the two
 * readers built on it (docpick.c, sched_queue.c's sched_raw_*): on the
 * edge cases where their former private copies differed (nesting depth,
 * escapes, strings holding brackets, \u escapes, raw control bytes, text
 * cut short) each gives the rule jsonscan.h documents, and both readers
 * agree: what one skips the other skips, what one refuses the other does. */
#include "testutil.h"

#include "docpick.h"
#include "jsonscan.h"
#include "sched_queue.h"

/* The end of the value at the start of s (strlen(s) long), as an offset;
 * -1 when jsonscan refuses it. */
static long value_end(const char *s)
{
    const char *e = jsonscan_value(s, s + strlen(s));
    return e ? (long)(e - s) : -1;
}

/* n nested arrays around 1, in a fresh buffer. */
static char *nested(int n)
{
    char *s = malloc((size_t)n * 2 + 2);
    assert_non_null(s);
    memset(s, '[', (size_t)n);
    s[n] = '1';
    memset(s + n + 1, ']', (size_t)n);
    s[2 * n + 1] = '\0';
    return s;
}

static void test_scan_values(void **state)
{
    (void)state;
    assert_int_equal(value_end("  true,"), 6);
    assert_int_equal(value_end("-12.5e3}"), 7);
    assert_int_equal(value_end("{\"a\": [1, {\"b\": null}]} x"), 23);
    /* a stray delimiter where a value starts */
    assert_int_equal(value_end(","), -1);
    assert_int_equal(value_end(":1"), -1);
    assert_int_equal(value_end("]"), -1);
    assert_int_equal(value_end("   "), -1);
    /* a NUL byte is no scalar */
    const char nul[] = "\0001";
    assert_null(jsonscan_value(nul, nul + 2));
}

/* Escapes are stepped over whole; brackets in a string are text. */
static void test_scan_strings(void **state)
{
    (void)state;
    int plain = -1;
    const char *s = "\"a\\\"b\" tail";   /* "a\"b" */
    assert_ptr_equal(jsonscan_string(s, s + strlen(s), &plain), s + 6);
    assert_int_equal(plain, 0);
    s = "\"a\\\\\"b";   /* "a\\" then b: the quote after two backslashes ends it */
    assert_ptr_equal(jsonscan_string(s, s + strlen(s), &plain), s + 5);
    s = "\"}]{[,:\" ";
    assert_ptr_equal(jsonscan_string(s, s + strlen(s), &plain), s + 8);
    assert_int_equal(plain, 1);
    assert_int_equal(value_end("[\"]\", \"[\", \"{\\\"}\"]"), 18);
    /* \u escapes: \u0022 is a quote's value, not the string's end */
    assert_int_equal(value_end("\"\\u0022\\u007b\\ud83d\\ude00\"]"), 26);
    /* a raw control byte is not JSON */
    assert_int_equal(value_end("\"a\nb\""), -1);
    assert_int_equal(value_end("\"a\tb\""), -1);
    assert_int_equal(value_end("[\"\x01\"]"), -1);
}

static void test_scan_truncated(void **state)
{
    (void)state;
    static const char *const cut[] = { "\"abc", "\"abc\\", "\"abc\\\"", "[1,2", "{\"a\":", "{\"a\":[{}", "[\"]\"", "{" };
    for (size_t i = 0; i < sizeof cut / sizeof *cut; i++)
        assert_int_equal(value_end(cut[i]), -1);
    /* the end bound is respected even where the buffer goes on */
    const char *s = "\"abc\"";
    assert_null(jsonscan_string(s, s + 3, NULL));
    assert_null(jsonscan_value("[1]", (const char *)"[1]" + 2));
}

static void test_scan_depth(void **state)
{
    (void)state;
    char *ok = nested(JSONSCAN_MAX_DEPTH), *deep = nested(JSONSCAN_MAX_DEPTH + 1);
    assert_int_equal(value_end(ok), (long)strlen(ok));
    assert_int_equal(value_end(deep), -1);
    free(ok);
    free(deep);
}

/* A document with member "v" set to value, then "id":"x". */
static char *doc_with(const char *value)
{
    size_t n = strlen(value) + 32;
    char *d = malloc(n);
    assert_non_null(d);
    snprintf(d, n, "{\"v\":%s,\"id\":\"x\"}", value);
    return d;
}

/* docpick and sched_queue read the same documents the same way: both find
 * the member after the value, or both refuse the text. */
static void readers_agree(const char *value, int readable)
{
    char *d = doc_with(value);
    static const char *const names[] = { "id" };
    json_t *picked = docpick_fields(d, strlen(d), names, 1);
    char id[8] = "";
    int raw = sched_raw_string(d, d + strlen(d), "id", id, sizeof id);
    if (readable) {
        assert_non_null(picked);
        assert_string_equal(json_string_value(json_object_get(picked, "id")), "x");
        assert_int_equal(raw, 1);
        assert_string_equal(id, "x");
        const char *vs, *ve;
        assert_int_equal(sched_raw_member(d, d + strlen(d), "v", &vs, &ve), 1);
        assert_int_equal((size_t)(ve - vs), strlen(value));
    } else {
        assert_null(picked);
        assert_int_equal(raw, 0);
    }
    json_decref(picked);
    free(d);
}

static void test_readers_agree(void **state)
{
    (void)state;
    readers_agree("\"}\\\"]{[\"", 1);
    readers_agree("\"\\\\\"", 1);
    readers_agree("\"\\u007d\\u0022\\ud83d\\ude00\"", 1);
    readers_agree("[\"]\",{\"id\":\"inner\"},\"{\"]", 1);
    readers_agree("\"raw\nnewline\"", 0);   /* jansson refuses it too: the callers' decode reports it */
    readers_agree("\"raw\x1f\"", 0);
    /* the cap counts a member's value's own nesting */
    char *ok = nested(JSONSCAN_MAX_DEPTH), *deep = nested(JSONSCAN_MAX_DEPTH + 1);
    readers_agree(ok, 1);
    readers_agree(deep, 0);
    free(ok);
    free(deep);
    /* cut short anywhere: refused, never read past the end */
    const char *full = "{\"v\":[\"a\\\"\",{\"b\":1}],\"id\":\"x\"}";
    static const char *const names[] = { "id" };
    for (size_t n = 0; n < strlen(full); n++) {
        char id[8];
        assert_null(docpick_fields(full, n, names, 1));
        assert_int_equal(sched_raw_string(full, full + n, "id", id, sizeof id), 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_values),
        cmocka_unit_test(test_scan_strings),
        cmocka_unit_test(test_scan_truncated),
        cmocka_unit_test(test_scan_depth),
        cmocka_unit_test(test_readers_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
