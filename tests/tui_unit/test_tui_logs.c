/* Unit tests of the logs view: a worker's output made fit for the screen
 * (escape sequences, carriage returns, tabs, control characters), split
 * into lines that follow the end as output grows, or stay put when the
 * reader scrolled up. */
#include "testutil.h"

#include "logview.h"

static const char *clean(const char *in)
{
    static char out[256];
    logview_clean_line(in, strlen(in), out, sizeof out);
    return out;
}

static void test_clean_line(void **state)
{
    (void)state;
    assert_string_equal(clean("hello-from-worker"), "hello-from-worker");
    assert_string_equal(clean("\033[1;31mred\033[0m plain"), "red plain");
    assert_string_equal(clean("\033]0;title\007after"), "after");
    assert_string_equal(clean("\033]0;title\033\\after"), "after");
    assert_string_equal(clean("10%\r50%\r100%"), "100%");
    assert_string_equal(clean("crlf\r"), "crlf");
    assert_string_equal(clean("a\tb"), "a       b");
    assert_string_equal(clean("12345678\tx"), "12345678        x");
    assert_string_equal(clean("bell\007 bs\b"), "bell? bs?");
    assert_string_equal(clean("\303\251t\303\251\tx"), "\303\251t\303\251     x");   /* été: 3 columns */
    assert_string_equal(clean("cut\033["), "cut");
    assert_string_equal(clean(""), "");
    char tiny[4];
    logview_clean_line("abcdef", 6, tiny, sizeof tiny);
    assert_string_equal(tiny, "abc");
}

static void test_follow_and_stay(void **state)
{
    (void)state;
    logview lv;
    memset(&lv, 0, sizeof lv);
    lv.follow = 1;
    logview_set_text(&lv, "", 5);
    assert_int_equal(lv.tv.count, 1);
    assert_string_equal(lv.tv.lines[0], LOGVIEW_EMPTY);

    char text[4096] = "";
    for (int i = 0; i < 20; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "line-%d\n", i);
    logview_set_text(&lv, text, 5);
    assert_int_equal(lv.tv.count, 20);          /* the final newline adds no line */
    assert_string_equal(lv.tv.lines[19], "line-19");
    assert_int_equal(lv.tv.top, 15);            /* following: the last page */

    /* Scrolled up (not following): more output keeps the place. */
    lv.follow = 0;
    lv.tv.top = 3;
    snprintf(text + strlen(text), sizeof text - strlen(text), "line-20\nline-21\n");
    logview_set_text(&lv, text, 5);
    assert_int_equal(lv.tv.count, 22);
    assert_int_equal(lv.tv.top, 3);
    lv.follow = 1;
    logview_set_text(&lv, text, 5);
    assert_int_equal(lv.tv.top, 17);
    textview_clear(&lv.tv);
}

static void test_live_states_and_title(void **state)
{
    (void)state;
    assert_true(logview_live_state("running"));
    assert_true(logview_live_state("starting"));
    assert_true(logview_live_state("stopping"));
    assert_true(logview_live_state("waiting_gpus"));
    assert_false(logview_live_state("finished"));
    assert_false(logview_live_state("failed"));
    assert_false(logview_live_state(NULL));
    logview lv;
    memset(&lv, 0, sizeof lv);
    snprintf(lv.job, sizeof lv.job, "job-7");
    lv.worker = 1;
    lv.nworkers = 3;
    char t[128];
    logview_title(&lv, t, sizeof t);
    assert_string_equal(t, "job job-7  worker 1 of 3");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_line),
        cmocka_unit_test(test_follow_and_stay),
        cmocka_unit_test(test_live_states_and_title),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
