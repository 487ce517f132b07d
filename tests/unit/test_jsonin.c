/* test_jsonin.c - jsonin_loadb never disagrees with json_loadb(text, len, 0):
 * when it answers, the document is equal to jansson's with its keys in the
 * same order; when jansson refuses a text, jsonin never accepts it.
 * Fixed texts (every escape, integer limits, duplicates, whitespace, deep
 * nesting, what it leaves to jansson), 20,000 random documents, and each of
 * those cut short and with a byte changed. */
#include "testutil.h"

#include <jansson.h>

#include "jsonin.h"

/* Equal values, and objects' keys in the same order (json_equal ignores order). */
static int same_doc(const json_t *a, const json_t *b)
{
    char *da = json_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY), *db = json_dumps(b, JSON_COMPACT | JSON_ENCODE_ANY);
    int same = da && db && strcmp(da, db) == 0 && json_equal((json_t *)a, (json_t *)b);
    free(da);
    free(db);
    return same;
}

/* 1 when jsonin answered (and agreed with jansson). */
static int check_text(const char *text, size_t len)
{
    json_error_t jerr;
    json_t *want = json_loadb(text, len, 0, &jerr);
    json_t *got = jsonin_loadb(text, len);
    if (got && !want)
        fail_msg("jsonin accepted what jansson refuses (%s): %.*s", jerr.text, (int)len, text);
    if (got && !same_doc(got, want))
        fail_msg("jsonin and jansson differ on: %.*s", (int)len, text);
    json_t *any = jsonin_loadb_any(text, len, &jerr);
    if ((any == NULL) != (want == NULL) || (any && !same_doc(any, want)))
        fail_msg("jsonin_loadb_any is not jansson's answer on: %.*s", (int)len, text);
    int answered = got != NULL;
    json_decref(got);
    json_decref(want);
    json_decref(any);
    return answered;
}

static void test_fixed(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int fast;   /* 1: jsonin must answer; 0: it must leave it to jansson */
    } cases[] = {
        { "{}", 1 },
        { "[]", 1 },
        { " \t\r\n{ \"a\" : [ 1 , -2 , 0 , -0 ] , \"b\" : { } } \n", 1 },
        { "{\"e\":\"q\\\" b\\\\ s\\/ \\b\\f\\n\\r\\t end\"}", 1 },
        { "{\"max\":9223372036854775807,\"min\":-9223372036854775808}", 1 },
        { "{\"a\":1,\"b\":2,\"a\":3}", 1 },
        { "{\"t\":true,\"f\":false,\"n\":null,\"s\":\"\"}", 1 },
        { "[[[[[[[[[[\"deep\"]]]]]]]]]]", 1 },
        { "{\"big\":9223372036854775808}", 0 },
        { "{\"small\":-9223372036854775809}", 0 },
        { "{\"r\":0.5}", 0 },
        { "{\"r\":1e3}", 0 },
        { "{\"u\":\"\\u00e9\"}", 0 },
        { "{\"u\":\"\\u0000\"}", 0 },
        { "{\"utf8\":\"h\xc3\xa9\"}", 0 },
        { "{\"bad\":\"\xc3\"}", 0 },
        { "{\"ctl\":\"a\x01\"}", 0 },
        { "{\"lead\":01}", 0 },
        { "{\"neg\":-}", 0 },
        { "{\"a\":1,}", 0 },
        { "{\"a\":1} x", 0 },
        { "{\"a\" 1}", 0 },
        { "\"top\"", 0 },
        { "42", 0 },
        { "", 0 },
        { "   ", 0 },
        { "{\"t\":tru}", 0 },
        { "{\"t\":truex}", 0 },
        { "[1 2]", 0 },
        { "{\"a\":1", 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int answered = check_text(cases[i].text, strlen(cases[i].text));
        if (answered != cases[i].fast)
            fail_msg("case %zu (%s): jsonin %s", i, cases[i].text, answered ? "answered" : "left it to jansson");
    }
    /* NUL inside the text */
    assert_int_equal(check_text("{\"a\":1}\0", 8), 0);
    assert_int_equal(check_text("{\"a\":\"x\0y\"}", 11), 0);
    /* jansson's depth limit: 2048 nested containers decode, 2049 do not */
    for (int depth = 2047; depth <= 2050; depth++) {
        char *t = malloc((size_t)depth * 2 + 1);
        memset(t, '[', (size_t)depth);
        memset(t + depth, ']', (size_t)depth);
        t[depth * 2] = '\0';
        check_text(t, (size_t)depth * 2);
        free(t);
    }
}

static uint64_t rng_state = 0x853c49e6748fea9bULL;
static uint64_t rng(void)
{
    return testutil_rng(&rng_state);
}

static json_t *random_string(void)
{
    char buf[64];
    size_t n = 0, want = rng() % 10;
    for (size_t i = 0; i < want; i++) {
        switch (rng() % 8) {
        case 0: buf[n++] = "\"\\/\b\f\n\r\t"[rng() % 8]; break;
        case 1: buf[n++] = (char)(1 + rng() % 0x1f); break;
        case 2: memcpy(buf + n, "\xc3\xa9", 2); n += 2; break;
        default: buf[n++] = (char)(0x20 + rng() % 0x5f); break;
        }
    }
    return json_stringn(buf, n);
}

static json_t *random_value(int depth)
{
    switch (rng() % (depth > 4 ? 6 : 8)) {
    case 0: return json_integer((json_int_t)(rng() % 4000000) - 2000000);
    case 1: return json_integer(rng() % 50 ? (json_int_t)(rng() >> 1) : INT64_MIN);
    case 2: return random_string();
    case 3: return json_null();
    case 4: return json_boolean(rng() % 2);
    case 5: return rng() % 20 ? json_integer(0) : json_real((double)(rng() % 1000) / 8.0);
    case 6: {
        json_t *a = json_array();
        for (uint64_t i = rng() % 5; i > 0; i--)
            json_array_append_new(a, random_value(depth + 1));
        return a;
    }
    default: {
        json_t *o = json_object();
        for (uint64_t i = rng() % 6; i > 0; i--) {
            json_t *k = random_string();
            if (!memchr(json_string_value(k), '\0', json_string_length(k)))
                json_object_set_new(o, json_string_value(k), random_value(depth + 1));
            json_decref(k);
        }
        return o;
    }
    }
}

static void test_random(void **state)
{
    (void)state;
    size_t answered = 0;
    for (int i = 0; i < 20000; i++) {
        json_t *doc = json_object();
        json_object_set_new(doc, "v", random_value(0));
        char *text = json_dumps(doc, i % 3 ? JSON_COMPACT : JSON_INDENT(2));
        size_t len = strlen(text);
        answered += (size_t)check_text(text, len);
        check_text(text, rng() % (len + 1));              /* cut short */
        char saved = text[rng() % len];
        size_t at = rng() % len;
        saved = text[at];
        text[at] = (char)(rng() % 128);                   /* one byte changed */
        check_text(text, len);
        text[at] = saved;
        free(text);
        json_decref(doc);
    }
    /* most documents are the common case: the fast path must not be idle */
    assert_true(answered > 5000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed),
        cmocka_unit_test(test_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
