/* Unit tests of the command-language word splitter. */
#include "testutil.h"

#include "cmd.h"

static void expect_words(const char *line, size_t n, const char *const *want)
{
    cmd_words w;
    rd_err err;
    assert_int_equal(cmd_split(line, &w, &err), RD_OK);
    assert_int_equal(w.count, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(w.words[i], want[i]);
    cmd_words_free(&w);
}

static void expect_usage(const char *line, const char *msg_part)
{
    cmd_words w;
    rd_err err;
    assert_int_equal(cmd_split(line, &w, &err), RD_EUSAGE);
    assert_non_null(strstr(err.msg, msg_part));
    assert_int_equal(w.count, 0);
}

static void test_blanks(void **state)
{
    (void)state;
    expect_words("  node   list\t--region  r1 ", 4, (const char *[]){ "node", "list", "--region", "r1" });
    expect_words("", 0, NULL);
    expect_words("   \t ", 0, NULL);
}

static void test_quotes(void **state)
{
    (void)state;
    expect_words("a 'b c' \"d e\"", 3, (const char *[]){ "a", "b c", "d e" });
    expect_words("x'y'\"z\"w", 1, (const char *[]){ "xyzw" });
    expect_words("'' \"\"", 2, (const char *[]){ "", "" });
    expect_words("'it''s' \"say \\\"hi\\\"\"", 2, (const char *[]){ "its", "say \"hi\"" });
    expect_words("'a\\b' \"a\\b\"", 2, (const char *[]){ "a\\b", "a\\b" });
    expect_words("'#no comment'", 1, (const char *[]){ "#no comment" });
}

static void test_escapes(void **state)
{
    (void)state;
    expect_words("a\\ b c\\'d", 2, (const char *[]){ "a b", "c'd" });
    expect_words("\\#x", 1, (const char *[]){ "#x" });
}

static void test_comments(void **state)
{
    (void)state;
    expect_words("# whole line", 0, NULL);
    expect_words("account list # trailing", 2, (const char *[]){ "account", "list" });
    expect_words("a#b", 1, (const char *[]){ "a#b" });
}

static void test_errors(void **state)
{
    (void)state;
    expect_usage("a 'b", "single quote");
    expect_usage("a \"b", "double quote");
    expect_usage("a \\", "backslash");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blanks),
        cmocka_unit_test(test_quotes),
        cmocka_unit_test(test_escapes),
        cmocka_unit_test(test_comments),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
