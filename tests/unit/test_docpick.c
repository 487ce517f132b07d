/* Unit tests of docpick.c: the fields it picks from a document's text are
 * what decoding the whole document and taking those fields gives, for
 * every kind of value, escapes, nesting and parts ("workers.state"), and
 * text it cannot read is left to the caller (NULL). */
#include "testutil.h"

#include "docpick.h"

static const char *const docs[] = {
    "{}",
    "{\"id\":\"job-1\",\"state\":\"running\",\"n\":-42,\"r\":2.5,\"e\":1e3,\"t\":true,\"f\":false,\"z\":null}",
    " { \"id\" : \"a\\\"b\\\\c\\u00e9\" , \"list\" : [1, \"x\", {\"y\": [2, {\"z\": \"}\"}]}], \"big\": 1234567890123456789 } ",
    "{\"workers\":[{\"state\":\"running\",\"node\":\"n1\",\"price_ucr\":5,\"alloc\":[0,1]},{\"state\":\"waiting\",\"node\":null}],"
    "\"resources\":{\"gpu_types\":[\"a100\"],\"gpus_x100\":200},\"id\":\"j\",\"id\":\"dup\"}",
    "{\"workers\":[1,\"two\",{\"state\":\"x\"},[3]],\"name\":\"caf\\u00e9 \\ud83d\\ude00\",\"zero\":0,\"neg0\":-0}",
    "{\"workers\":{\"state\":\"an object\",\"other\":1},\"resources\":\"plain\",\"n\":12345678901234567}",
};

static const char *const field_sets[][6] = {
    { "id", NULL },
    { "state", "n", "r", "e", "t", NULL },
    { "f", "z", "missing", NULL },
    { "list", "big", "id", NULL },
    { "workers", NULL },
    { "workers.state", "workers.node", NULL },
    { "workers.price_ucr", "resources.gpus_x100", "id", NULL },
    { "workers", "workers.state", NULL },
    { "name", "zero", "neg0", "resources", NULL },
};

static size_t count_of(const char *const *set)
{
    size_t n = 0;
    while (set[n])
        n++;
    return n;
}

/* Picking from the text equals picking from the decoded document. */
static void test_pick_equals_decode(void **state)
{
    (void)state;
    for (size_t d = 0; d < sizeof docs / sizeof docs[0]; d++) {
        json_error_t jerr;
        json_t *whole = json_loads(docs[d], 0, &jerr);
        assert_non_null(whole);
        for (size_t f = 0; f < sizeof field_sets / sizeof field_sets[0]; f++) {
            size_t n = count_of(field_sets[f]);
            json_t *picked = docpick_fields(docs[d], strlen(docs[d]), field_sets[f], n);
            json_t *expect = docpick_copy(whole, field_sets[f], n);
            assert_non_null(picked);
            if (!json_equal(picked, expect)) {
                char *a = json_dumps(picked, JSON_SORT_KEYS), *b = json_dumps(expect, JSON_SORT_KEYS);
                fail_msg("doc %zu fields %zu: picked %s, decoded %s", d, f, a, b);
            }
            json_decref(picked);
            json_decref(expect);
        }
        json_decref(whole);
    }
}

/* The parts asked for, and nothing else, by hand. */
static void test_parts(void **state)
{
    (void)state;
    const char *names[] = { "workers.state", "id" };
    json_t *p = docpick_fields(docs[3], strlen(docs[3]), names, 2);
    assert_non_null(p);
    assert_string_equal(json_string_value(json_object_get(p, "id")), "dup");   /* the last, as jansson */
    json_t *w = json_object_get(p, "workers");
    assert_int_equal(json_array_size(w), 2);
    assert_int_equal(json_object_size(json_array_get(w, 0)), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(w, 1), "state")), "waiting");
    assert_null(json_object_get(p, "resources"));
    json_decref(p);
}

/* What is not a readable object is the caller's to decode (and report). */
static void test_unreadable(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "", "[]", "{", "{\"a\":1", "{\"a\" 1}", "{\"a\":1,}", "{\"a\":[1,2}", "{\"a\":1} x", "{\"a\":01}",
        "{\"a\\u0062\":1}", "\"text\"", "{\"a\":\"\x01\"}", "{\"a\":}",
    };
    const char *names[] = { "a", "ab" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *p = docpick_fields(bad[i], strlen(bad[i]), names, 2);
        if (p)
            fail_msg("'%s' was read", bad[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pick_equals_decode),
        cmocka_unit_test(test_parts),
        cmocka_unit_test(test_unreadable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
