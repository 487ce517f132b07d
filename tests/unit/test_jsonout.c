/* test_jsonout.c - jsonout_dumps writes exactly what json_dumps(JSON_COMPACT)
 * writes: fixed documents with every escape, UTF-8, embedded NULs, deep
 * nesting and a job document, then 20,000 random documents; reals are left
 * to jansson (NULL, and the _any form falls back). */
#include "testutil.h"

#include <jansson.h>

#include "jsonout.h"

static void same_as_jansson(const json_t *doc)
{
    char *want = json_dumps(doc, JSON_COMPACT);
    size_t len = 0;
    char *got = jsonout_dumps(doc, &len);
    assert_non_null(want);
    assert_non_null(got);
    assert_int_equal(len, strlen(want));
    if (strcmp(want, got) != 0)
        fail_msg("jsonout: %s\njansson: %s", got, want);
    free(want);
    free(got);
}

static void test_fixed(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "{}",
        "[]",
        "{\"a\":[],\"b\":{},\"c\":[{}],\"d\":null,\"e\":true,\"f\":false}",
        "{\"esc\":\"q\\\" b\\\\ s/ \\b\\f\\n\\r\\t \\u0001\\u001f \\u007f end\"}",
        "{\"utf8\":\"h\\u00e9llo \\u4e16\\u754c \\ud83d\\ude00 \\u2028\"}",
        "{\"k\\\"ey\\n\":1,\"\\u00e9\":-9223372036854775807,\"z\":0,\"big\":9223372036854775807,\"min\":-9223372036854775808}",
        "{\"id\":\"job-00000000\",\"name\":\"job-00000000\",\"type\":\"training\",\"priority\":0,"
        "\"region_pin\":null,\"resources\":{\"gpu_types\":[\"a100\"],\"gpus_x100\":100},"
        "\"workers\":[{\"index\":0,\"state\":\"running\",\"alloc\":[{\"gpu\":0,\"x100\":100}],"
        "\"node\":\"n00000\",\"own\":false}],\"state\":\"running\",\"reason\":null}",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        json_error_t jerr;
        json_t *doc = json_loads(texts[i], JSON_ALLOW_NUL, &jerr);
        if (!doc)
            fail_msg("fixture %zu: %s", i, jerr.text);
        same_as_jansson(doc);
        json_decref(doc);
    }
    /* NUL inside a string and inside a key */
    json_t *doc = json_object();
    json_object_set_new(doc, "s", json_stringn("a\0b", 3));
    json_object_setn_new(doc, "k\0ey", 4, json_integer(7));
    same_as_jansson(doc);
    json_decref(doc);
    /* deep nesting */
    json_t *deep = json_array();
    for (int i = 0; i < 500; i++) {
        json_t *outer = json_array();
        json_array_append_new(outer, deep);
        deep = outer;
    }
    same_as_jansson(deep);
    json_decref(deep);
}

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;
static uint64_t rng(void)
{
    return testutil_rng(&rng_state);
}

/* Random bytes that are valid UTF-8: ASCII (controls included), two-,
 * three- and four-byte sequences. */
static json_t *random_string(void)
{
    char buf[64];
    size_t n = 0, want = rng() % 12;
    for (size_t i = 0; i < want; i++) {
        switch (rng() % 6) {
        case 0: buf[n++] = (char)(rng() % 0x20); break;
        case 1: buf[n++] = "\"\\/"[rng() % 3]; break;
        case 2: memcpy(buf + n, "\xc3\xa9", 2); n += 2; break;
        case 3: memcpy(buf + n, "\xe4\xb8\x96", 3); n += 3; break;
        case 4: memcpy(buf + n, "\xf0\x9f\x98\x80", 4); n += 4; break;
        default: buf[n++] = (char)(0x20 + rng() % 0x60); break;
        }
    }
    return json_stringn(buf, n);
}

static json_t *random_value(int depth)
{
    switch (rng() % (depth > 4 ? 5 : 7)) {
    case 0: return json_integer((json_int_t)(rng() % 2000000) - 1000000);
    case 1: return random_string();
    case 2: return json_null();
    case 3: return json_true();
    case 4: return json_false();
    case 5: {
        json_t *a = json_array();
        for (uint64_t i = rng() % 5; i > 0; i--)
            json_array_append_new(a, random_value(depth + 1));
        return a;
    }
    default: {
        json_t *o = json_object();
        for (uint64_t i = rng() % 6; i > 0; i--) {
            json_t *k = random_string();
            json_object_setn_new(o, json_string_value(k), json_string_length(k), random_value(depth + 1));
            json_decref(k);
        }
        return o;
    }
    }
}

static void test_random(void **state)
{
    (void)state;
    for (int i = 0; i < 20000; i++) {
        json_t *doc = json_object();
        json_object_set_new(doc, "v", random_value(0));
        same_as_jansson(doc);
        json_decref(doc);
    }
}

static void test_reals_fall_back(void **state)
{
    (void)state;
    json_t *doc = json_pack("{s:[i, {s:f}]}", "a", 1, "r", 0.5);
    assert_null(jsonout_dumps(doc, NULL));
    size_t len = 0;
    char *got = jsonout_dumps_any(doc, &len), *want = json_dumps(doc, JSON_COMPACT);
    assert_string_equal(got, want);
    assert_int_equal(len, strlen(want));
    free(got);
    free(want);
    json_decref(doc);
    assert_null(jsonout_dumps(NULL, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_reals_fall_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
