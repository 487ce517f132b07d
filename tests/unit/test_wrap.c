/* Unit tests of wrap.c (word wrapping) and cmd_help_text (help as text
 * wrapped to a width): no line past the width, no word split unless it is
 * longer than a line, continuation lines under the description column,
 * and the real command table's help at every width from 20 to 200. */
#include "testutil.h"

#include "cmd.h"
#include "wrap.h"

/* Wraps text from column col with indent at width; returns the malloc'd result. */
static char *wrapped(const char *text, size_t col, size_t indent, size_t width, int groups)
{
    strbuf b = { 0 };
    wrap_pad(&b, col);
    wrap_text(&b, text, &col, indent, width, groups);
    return b.text ? b.text : strdup("");
}

static void test_fits_unchanged(void **state)
{
    (void)state;
    char *s = wrapped("list every node", 0, 4, 80, 0);
    assert_string_equal(s, "list every node");
    free(s);
    /* blanks between words collapse to one space */
    s = wrapped("  a \t b\n c ", 0, 0, 80, 0);
    assert_string_equal(s, "a b c");
    free(s);
}

static void test_breaks_at_blanks(void **state)
{
    (void)state;
    char *s = wrapped("one two three four five", 0, 2, 10, 0);
    assert_string_equal(s, "one two\n  three\n  four\n  five");
    free(s);
    /* the first line goes on from the caller's column */
    s = wrapped("alpha beta gamma", 6, 6, 16, 0);
    assert_string_equal(s, "      alpha beta\n      gamma");
    free(s);
    /* exactly the width fits */
    s = wrapped("abcd efgh", 0, 0, 9, 0);
    assert_string_equal(s, "abcd efgh");
    free(s);
}

static void test_long_word_split(void **state)
{
    (void)state;
    /* only a word longer than a whole line is cut */
    char *s = wrapped("a abcdefghijkl b", 0, 2, 8, 0);
    assert_string_equal(s, "a\n  abcdef\n  ghijkl\n  b");
    free(s);
    /* a first line already past its indent moves to a fresh line first */
    s = wrapped("abcdefghij", 6, 0, 8, 0);
    assert_string_equal(s, "      \nabcdefgh\nij");
    free(s);
}

static void test_groups(void **state)
{
    (void)state;
    /* [...] moves to the next line whole */
    char *s = wrapped("node add NAME [--role compute|storage] [--all]", 0, 4, 30, 1);
    assert_string_equal(s, "node add NAME\n    [--role compute|storage]\n    [--all]");
    free(s);
    /* without groups the same text breaks inside the brackets */
    s = wrapped("node add NAME [--role compute|storage] [--all]", 0, 4, 30, 0);
    assert_string_equal(s, "node add NAME [--role\n    compute|storage] [--all]");
    free(s);
    /* a group no line can hold breaks at its blanks, nowhere else */
    s = wrapped("x [--storage-class micro|small|medium]", 0, 2, 24, 1);
    assert_string_equal(s, "x\n  [--storage-class\n  micro|small|medium]");
    free(s);
    /* an unbalanced bracket is an ordinary word */
    s = wrapped("a [b c", 0, 0, 4, 1);
    assert_string_equal(s, "a [b\nc");
    free(s);
}

static void test_utf8_columns(void **state)
{
    (void)state;
    assert_int_equal(wrap_cols("caf\xc3\xa9"), 4);
    /* "café café" is 9 columns, 11 bytes: it fits in 9 */
    char *s = wrapped("caf\xc3\xa9 caf\xc3\xa9", 0, 0, 9, 0);
    assert_string_equal(s, "caf\xc3\xa9 caf\xc3\xa9");
    free(s);
    /* a cut never lands inside a character */
    s = wrapped("\xc3\xa9\xc3\xa9\xc3\xa9", 0, 0, 2, 0);
    assert_string_equal(s, "\xc3\xa9\xc3\xa9\n\xc3\xa9");
    free(s);
}

/* ---- help as text ---------------------------------------------------- */

static json_t *sample_list(void)
{
    return json_pack("{s:[{s:s, s:s, s:s}, {s:s, s:s, s:s}]}", "items",
                     "name", "node list", "command", "node list [--region R] [--state provisioning|active]",
                     "help", "list nodes of every region you can see, with their GPUs in use",
                     "name", "gpu list", "command", "gpu list", "help", "the GPU catalog");
}

static void test_help_wide_is_a_table(void **state)
{
    (void)state;
    json_t *r = sample_list();
    char *s = cmd_help_text(r, 200);
    assert_non_null(s);
    assert_string_equal(s,
        "COMMAND                                               HELP\n"
        "node list [--region R] [--state provisioning|active]  list nodes of every region you can see, with their GPUs in use\n"
        "gpu list                                              the GPU catalog\n");
    free(s);
    json_decref(r);
}

static void test_help_narrow(void **state)
{
    (void)state;
    json_t *r = sample_list();
    char *s = cmd_help_text(r, 40);
    assert_non_null(s);
    /* the description column is 2/5 of 40; a long usage puts its
     * description on the next line there, continuation lines under it */
    assert_string_equal(s,
        "COMMAND         HELP\n"
        "node list [--region R]\n"
        "    [--state provisioning|active]\n"
        "                list nodes of every\n"
        "                region you can see, with\n"
        "                their GPUs in use\n"
        "gpu list        the GPU catalog\n");
    free(s);
    json_decref(r);
}

static void test_help_detail(void **state)
{
    (void)state;
    json_t *r = json_pack("{s:s, s:s, s:s, s:[{s:s, s:s}], s:b}", "name", "job submit", "usage",
                          "job submit FILE [--project P] [--priority N]", "help",
                          "submit a job spec (YAML); answers with the job", "flags", "flag",
                          "--project", "help", "the project (NAME or OWNER/NAME); default: the spec's",
                          "mutates", 1);
    char *s = cmd_help_text(r, 40);
    assert_non_null(s);
    assert_string_equal(s,
        "name     job submit\n"
        "usage    job submit FILE [--project P]\n"
        "         [--priority N]\n"
        "help     submit a job spec (YAML);\n"
        "         answers with the job\n"
        "mutates  yes\n"
        "flags:\n"
        "  FLAG       HELP\n"
        "  --project  the project (NAME or\n"
        "             OWNER/NAME); default: the\n"
        "             spec's\n");
    free(s);
    json_decref(r);
    /* anything else is not help's */
    r = json_pack("{s:i}", "count", 3);
    assert_null(cmd_help_text(r, 80));
    json_decref(r);
}

/* The words of s, blanks squeezed (or with squeeze 0, dropped): wrapping
 * must keep them all, in order. */
static char *words_of(const char *s, int squeeze)
{
    char *out = malloc(strlen(s) + 1), *p = out;
    int blank = 1;
    for (; *s; s++) {
        int b = *s == ' ' || *s == '\n';
        if (!b)
            *p++ = *s;
        else if (!blank && squeeze)
            *p++ = ' ';
        blank = b;
    }
    if (p > out && p[-1] == ' ')
        p--;
    *p = '\0';
    return out;
}

static void test_help_real_table_every_width(void **state)
{
    (void)state;
    cmd_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    json_t *list = NULL, *detail = NULL;
    rd_err err;
    assert_int_equal(cmd_exec_line(&ctx, "help", &list, NULL, &err), RD_OK);
    assert_int_equal(cmd_exec_line(&ctx, "help region create", &detail, NULL, &err), RD_OK);
    char *wide = cmd_help_text(list, 100000);
    char *want = words_of(wide, 1), *want_chars = words_of(wide, 0);
    /* No word is cut once a continued usage line (indent 4) holds the
     * longest one; below that only such words are, and no character is lost. */
    size_t longest = 0;
    for (const char *w = want; *w;) {
        size_t n = strcspn(w, " ");
        longest = n > longest ? n : longest;
        w += n + (w[n] == ' ');
    }
    for (size_t width = 20; width <= 200; width++) {
        char *s = cmd_help_text(list, width);
        assert_non_null(s);
        for (char *line = s; *line;) {
            size_t n = strcspn(line, "\n");
            if (n > width)
                fail_msg("width %zu: line of %zu columns: %.*s", width, n, (int)n, line);
            line += n + (line[n] == '\n');
        }
        char *got = words_of(s, width >= longest + 4);
        assert_string_equal(got, width >= longest + 4 ? want : want_chars);
        free(got);
        free(s);
        s = cmd_help_text(detail, width);
        assert_non_null(s);
        assert_non_null(strstr(s, "usage    region"));
        free(s);
    }
    free(want);
    free(want_chars);
    free(wide);
    json_decref(list);
    json_decref(detail);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fits_unchanged),
        cmocka_unit_test(test_breaks_at_blanks),
        cmocka_unit_test(test_long_word_split),
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_utf8_columns),
        cmocka_unit_test(test_help_wide_is_a_table),
        cmocka_unit_test(test_help_narrow),
        cmocka_unit_test(test_help_detail),
        cmocka_unit_test(test_help_real_table_every_width),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
