/* Unit tests of the YAML/JSON loader: value resolution and every refusal. */
#include "testutil.h"

#include <locale.h>

#include "yamljson.h"

/* Parses text (as a C string) and returns the value, failing the test on error. */
static json_t *parse_ok(const char *text)
{
    json_t *v = NULL;
    rd_err err;
    rd_code rc = yamljson_parse(text, strlen(text), "t.yaml", &v, &err);
    if (rc != RD_OK)
        fail_msg("parse of <%s> failed: %s", text, err.msg);
    assert_non_null(v);
    return v;
}

/* Expects a refusal whose message contains want. */
static void parse_bad(const char *text, rd_code code, const char *want)
{
    json_t *v = (json_t *)1;
    rd_err err;
    rd_code rc = yamljson_parse(text, strlen(text), "t.yaml", &v, &err);
    if (rc != code)
        fail_msg("<%s>: expected code %d, got %d (%s)", text, code, rc, rc ? err.msg : "ok");
    assert_null(v);
    if (!strstr(err.msg, want))
        fail_msg("<%s>: message '%s' lacks '%s'", text, err.msg, want);
    assert_non_null(strstr(err.msg, "t.yaml"));
}

/* Expects a refusal that does not quote secret, a piece of the text: a
 * file may be anyone's (docs/security.md), so only line and column say
 * where. */
static void parse_bad_hides(const char *text, const char *secret)
{
    json_t *v = NULL;
    rd_err err;
    assert_int_equal(yamljson_parse(text, strlen(text), "t.yaml", &v, &err), RD_EINVAL);
    if (strstr(err.msg, secret))
        fail_msg("<%s>: message '%s' quotes '%s'", text, err.msg, secret);
}

static void test_refusals_never_quote_the_text(void **state)
{
    char buf[64];
    (void)state;
    parse_bad_hides("a: 99999999999999999999999\n", "99999999999999999999999");
    parse_bad_hides("a: 1e99999\n", "99999");
    parse_bad_hides("a: &s3cr3t 1\n", "s3cr3t");
    parse_bad_hides("a: !s3cr3t x\n", "s3cr3t");
    parse_bad_hides("s3cr3t: 1\ns3cr3t: 2\n", "s3cr3t");
    parse_bad_hides("a: [s3cr3t\n", "s3cr3t");
    parse_bad_hides("s3cr3t: \"open\n", "s3cr3t");
    /* what a refusal may say of a value instead */
    json_t *v = json_string("s3cr3t");
    assert_string_equal(yamljson_describe(v, buf, sizeof buf), "a string");
    json_decref(v);
    v = json_integer(6);
    assert_string_equal(yamljson_describe(v, buf, sizeof buf), "6");
    json_decref(v);
    v = json_real(2.0);
    assert_string_equal(yamljson_describe(v, buf, sizeof buf), "2.0");
    json_decref(v);
    v = json_pack("[s]", "s3cr3t");
    assert_string_equal(yamljson_describe(v, buf, sizeof buf), "a list");
    json_decref(v);
}

static void test_mappings_sequences_scalars(void **state)
{
    (void)state;
    json_t *v = parse_ok("name: gpu-07\ncount: 4\nratio: 2.5\nok: true\nnone: null\nlist: [1, two, 3.0]\n"
                         "nested:\n  - {a: 1}\n  - b: [x]\n");
    assert_string_equal(json_string_value(json_object_get(v, "name")), "gpu-07");
    assert_true(json_is_integer(json_object_get(v, "count")));
    assert_int_equal(json_integer_value(json_object_get(v, "count")), 4);
    assert_true(json_is_real(json_object_get(v, "ratio")));
    assert_true(json_real_value(json_object_get(v, "ratio")) == 2.5);
    assert_true(json_is_true(json_object_get(v, "ok")));
    assert_true(json_is_null(json_object_get(v, "none")));
    json_t *list = json_object_get(v, "list");
    assert_int_equal(json_array_size(list), 3);
    assert_true(json_is_integer(json_array_get(list, 0)));
    assert_string_equal(json_string_value(json_array_get(list, 1)), "two");
    assert_true(json_is_real(json_array_get(list, 2)));
    json_t *nested = json_object_get(v, "nested");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(nested, 0), "a")), 1);
    assert_string_equal(json_string_value(json_array_get(json_object_get(json_array_get(nested, 1), "b"), 0)), "x");
    /* insertion order is kept: messages and round trips stay in file order */
    const char *first = json_object_iter_key(json_object_iter(v));
    assert_string_equal(first, "name");
    json_decref(v);
}

static void test_plain_scalar_resolution(void **state)
{
    (void)state;
    json_t *v = parse_ok("[true, True, TRUE, false, False, FALSE, null, Null, NULL, ~, yes, no, on, off, y, "
                         "0x1F, 0o17, +5, -0, 007, 1e5, .5, 1., -2.25e-1, 1_000, 0x, 12abc, 2.0.1]");
    json_t *empty = parse_ok("a:\nb: x\n");
    assert_true(json_is_null(json_object_get(empty, "a")));
    json_decref(empty);
    /* shift the indices below by one: the empty plain scalar is tested above */
    json_array_insert_new(v, 10, json_null());
    for (int i = 0; i < 3; i++)
        assert_true(json_is_true(json_array_get(v, (size_t)i)));
    for (int i = 3; i < 6; i++)
        assert_true(json_is_false(json_array_get(v, (size_t)i)));
    for (int i = 6; i < 11; i++)
        assert_true(json_is_null(json_array_get(v, (size_t)i)));
    /* YAML 1.1 booleans are strings here (the "Norway problem") */
    const char *words[] = { "yes", "no", "on", "off", "y" };
    for (int i = 0; i < 5; i++)
        assert_string_equal(json_string_value(json_array_get(v, (size_t)(11 + i))), words[i]);
    assert_int_equal(json_integer_value(json_array_get(v, 16)), 31);
    assert_int_equal(json_integer_value(json_array_get(v, 17)), 15);
    assert_int_equal(json_integer_value(json_array_get(v, 18)), 5);
    assert_int_equal(json_integer_value(json_array_get(v, 19)), 0);
    assert_int_equal(json_integer_value(json_array_get(v, 20)), 7);
    assert_true(json_is_real(json_array_get(v, 21)) && json_real_value(json_array_get(v, 21)) == 100000.0);
    assert_true(json_real_value(json_array_get(v, 22)) == 0.5);
    assert_true(json_real_value(json_array_get(v, 23)) == 1.0);
    assert_true(json_real_value(json_array_get(v, 24)) == -0.225);
    for (int i = 25; i < 29; i++)
        assert_true(json_is_string(json_array_get(v, (size_t)i)));
    json_decref(v);
}

static void test_quoted_and_block_scalars_are_strings(void **state)
{
    (void)state;
    json_t *v = parse_ok("a: \"1\"\nb: 'true'\nc: \"null\"\nd: ''\ne: |\n  123\nf: >-\n  4.5\ng: !!str 42\n");
    assert_string_equal(json_string_value(json_object_get(v, "a")), "1");
    assert_string_equal(json_string_value(json_object_get(v, "b")), "true");
    assert_string_equal(json_string_value(json_object_get(v, "c")), "null");
    assert_string_equal(json_string_value(json_object_get(v, "d")), "");
    assert_string_equal(json_string_value(json_object_get(v, "e")), "123\n");
    assert_string_equal(json_string_value(json_object_get(v, "f")), "4.5");
    assert_string_equal(json_string_value(json_object_get(v, "g")), "42");
    json_decref(v);
}

static void test_keys_are_strings(void **state)
{
    (void)state;
    json_t *v = parse_ok("1: one\ntrue: yes\nnull: x\n");
    assert_string_equal(json_string_value(json_object_get(v, "1")), "one");
    assert_string_equal(json_string_value(json_object_get(v, "true")), "yes");
    assert_string_equal(json_string_value(json_object_get(v, "null")), "x");
    json_decref(v);
}

static void test_json_is_yaml(void **state)
{
    (void)state;
    json_t *v = parse_ok("{\"gpus\": [{\"model\": \"a100\", \"count\": 4}], \"tpm\": \"2.0\", \"x\": null, "
                         "\"f\": 1.25, \"neg\": -3, \"t\": true}");
    json_t *want = json_pack("{s:[{s:s, s:i}], s:s, s:n, s:f, s:i, s:b}", "gpus", "model", "a100", "count", 4,
                             "tpm", "2.0", "x", "f", 1.25, "neg", -3, "t", 1);
    assert_true(json_equal(v, want));
    json_decref(v);
    json_decref(want);
}

static void test_int64_range(void **state)
{
    (void)state;
    json_t *v = parse_ok("[9223372036854775807, -9223372036854775808]");
    assert_true(json_integer_value(json_array_get(v, 0)) == INT64_MAX);
    assert_true(json_integer_value(json_array_get(v, 1)) == INT64_MIN);
    json_decref(v);
    parse_bad("a: 9223372036854775808\n", RD_EINVAL, "t.yaml:1:4: integer out of range");
    parse_bad("a: -9223372036854775809\n", RD_EINVAL, "integer out of range");
    parse_bad("a: 0x10000000000000000\n", RD_EINVAL, "integer out of range");
    parse_bad("a: 1e999\n", RD_EINVAL, "number out of range");
    parse_bad("a: .inf\n", RD_EINVAL, "infinity and NaN");
    parse_bad("a: -.Inf\n", RD_EINVAL, "infinity and NaN");
    parse_bad("a: .nan\n", RD_EINVAL, "infinity and NaN");
}

static void test_syntax_error_has_line_and_column(void **state)
{
    (void)state;
    parse_bad("a: 1\nb: 2\nc: d: e\n", RD_EINVAL, "t.yaml:3:5: mapping values are not allowed");
    parse_bad("a: [1, 2\n", RD_EINVAL, "t.yaml:2:1:");
    parse_bad("a: \"open\n", RD_EINVAL, "t.yaml:");
    parse_bad("{\"a\": 1,, }", RD_EINVAL, "t.yaml:1:");
}

static void test_duplicate_keys_refused(void **state)
{
    (void)state;
    parse_bad("a: 1\nb: 2\na: 3\n", RD_EINVAL, "t.yaml:3:1: duplicate key: each key");
    parse_bad("x:\n  k: 1\n  k: 1\n", RD_EINVAL, "t.yaml:3:3: duplicate key: each key");
    parse_bad("{\"a\": 1, \"a\": 2}", RD_EINVAL, "duplicate key: each key");
    /* the same key in two different mappings is fine */
    json_t *v = parse_ok("- a: 1\n- a: 2\n");
    json_decref(v);
}

static void test_anchors_and_aliases_refused(void **state)
{
    (void)state;
    parse_bad("a: &x 1\nb: *x\n", RD_EINVAL, "t.yaml:1:4: anchors (&name) are not supported");
    parse_bad("base: &b {x: 1}\n", RD_EINVAL, "anchors");
    parse_bad("list: &l [1]\n", RD_EINVAL, "anchors");
    parse_bad("a: *x\n", RD_EINVAL, "t.yaml:1:4:");
    parse_bad("[*x]", RD_EINVAL, "");
}

static void test_tags_refused(void **state)
{
    (void)state;
    parse_bad("a: !!int 12\n", RD_EINVAL, "t.yaml:1:4: tags are not supported");
    parse_bad("a: !custom x\n", RD_EINVAL, "tags are not supported");
    parse_bad("a: !!python/object:os.system x\n", RD_EINVAL, "tags are not supported");
    parse_bad("a: !!set {x: 1}\n", RD_EINVAL, "tags are not supported");
}

static void test_multiple_documents_refused(void **state)
{
    (void)state;
    parse_bad("a: 1\n---\nb: 2\n", RD_EINVAL, "t.yaml:2:1: more than one document");
    parse_bad("--- 1\n--- 2\n", RD_EINVAL, "more than one document");
    /* one explicit document with its end marker is fine */
    json_t *v = parse_ok("---\na: 1\n...\n");
    assert_int_equal(json_integer_value(json_object_get(v, "a")), 1);
    json_decref(v);
}

static void test_non_scalar_keys_refused(void **state)
{
    (void)state;
    parse_bad("? [a, b]\n: 1\n", RD_EINVAL, "t.yaml:1:3: mapping keys must be scalars");
    parse_bad("{{a: 1}: 2}", RD_EINVAL, "mapping keys must be scalars");
    parse_bad("\"a\\0b\": 1\n", RD_EINVAL, "must not contain NUL");
}

static void test_empty_document_refused(void **state)
{
    (void)state;
    parse_bad("", RD_EINVAL, "t.yaml: the document is empty");
    parse_bad("# only a comment\n\n", RD_EINVAL, "the document is empty");
    parse_bad("---\n", RD_EINVAL, "the document is empty");
    parse_bad("   \n", RD_EINVAL, "the document is empty");
    /* an explicit null is a value, not an empty document */
    json_t *v = parse_ok("null\n");
    assert_true(json_is_null(v));
    json_decref(v);
}

static void test_length_not_nul_terminated(void **state)
{
    json_t *v = NULL;
    rd_err err;
    (void)state;
    assert_int_equal(yamljson_parse("a: 1GARBAGE: [", 4, "t.yaml", &v, &err), RD_OK);
    assert_int_equal(json_integer_value(json_object_get(v, "a")), 1);
    json_decref(v);
    assert_int_equal(yamljson_parse(NULL, 0, "t.yaml", &v, &err), RD_EINVAL);
    assert_null(v);
}

static void test_nesting_limit(void **state)
{
    char deep[512];
    (void)state;
    memset(deep, '[', 200);
    memset(deep + 200, ']', 200);
    deep[400] = '\0';
    parse_bad(deep, RD_EINVAL, "nesting is deeper than 100 levels");
    memset(deep, '[', 50);
    memset(deep + 50, ']', 50);
    deep[100] = '\0';
    json_decref(parse_ok(deep));
}

static void test_invalid_utf8_refused(void **state)
{
    (void)state;
    parse_bad("a: \xff\xfe bad\n", RD_EINVAL, "t.yaml:");
    /* escapes producing a lone surrogate cannot become a JSON string */
    json_t *v = NULL;
    rd_err err;
    rd_code rc = yamljson_parse("a: \"\\ud800\"\n", 11, "t.yaml", &v, &err);
    if (rc == RD_OK)
        json_decref(v);
    else
        assert_null(v);
    /* and valid UTF-8 passes through untouched */
    v = parse_ok("name: \"caf\xc3\xa9\"\n");
    assert_string_equal(json_string_value(json_object_get(v, "name")), "caf\xc3\xa9");
    json_decref(v);
}

static void test_decimals_ignore_locale(void **state)
{
    (void)state;
    const char *locales[] = { "de_DE.UTF-8", "fr_FR.UTF-8", "C.UTF-8" };
    char *saved = strdup(setlocale(LC_NUMERIC, NULL));
    for (size_t i = 0; i < 3; i++) {
        if (!setlocale(LC_NUMERIC, locales[i]))
            continue;
        json_t *v = parse_ok("x: 1.5\n");
        assert_true(json_real_value(json_object_get(v, "x")) == 1.5);
        json_decref(v);
    }
    setlocale(LC_NUMERIC, saved);
    free(saved);
}

static void test_source_prefix_defaults(void **state)
{
    json_t *v = NULL;
    rd_err err;
    (void)state;
    assert_int_equal(yamljson_parse("a: [", 4, NULL, &v, &err), RD_EINVAL);
    assert_true(strncmp(err.msg, "input:", 6) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mappings_sequences_scalars),
        cmocka_unit_test(test_plain_scalar_resolution),
        cmocka_unit_test(test_quoted_and_block_scalars_are_strings),
        cmocka_unit_test(test_keys_are_strings),
        cmocka_unit_test(test_json_is_yaml),
        cmocka_unit_test(test_int64_range),
        cmocka_unit_test(test_syntax_error_has_line_and_column),
        cmocka_unit_test(test_duplicate_keys_refused),
        cmocka_unit_test(test_anchors_and_aliases_refused),
        cmocka_unit_test(test_refusals_never_quote_the_text),
        cmocka_unit_test(test_tags_refused),
        cmocka_unit_test(test_multiple_documents_refused),
        cmocka_unit_test(test_non_scalar_keys_refused),
        cmocka_unit_test(test_empty_document_refused),
        cmocka_unit_test(test_length_not_nul_terminated),
        cmocka_unit_test(test_nesting_limit),
        cmocka_unit_test(test_invalid_utf8_refused),
        cmocka_unit_test(test_decimals_ignore_locale),
        cmocka_unit_test(test_source_prefix_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
