/* Unit tests of the header's controller indicator: `serve status` read
 * into the session's record, and the text across widths (80 columns keeps
 * only "leading", wider ones name the leader, the widest count standbys). */
#include "testutil.h"

#include "header.h"
#include "text.h"

static header_ctl parsed(const char *json)
{
    header_ctl ctl;
    memset(&ctl, 0, sizeof ctl);
    json_t *v = json_loads(json, 0, NULL);
    assert_non_null(v);
    header_parse_ctl(v, &ctl);
    json_decref(v);
    return ctl;
}

static void test_parse(void **state)
{
    (void)state;
    header_ctl none = parsed("{\"name\":\"serve\",\"leader\":null,\"standby\":0}");
    assert_int_equal(none.known, 1);
    assert_int_equal(none.leading, 0);
    header_ctl lead = parsed("{\"name\":\"serve\",\"leader\":{\"host\":\"ctl-a\",\"pid\":4242,"
                             "\"since\":\"2026-01-01T00:00:00Z\",\"version\":\"0.1.0\"},\"standby\":2}");
    assert_int_equal(lead.known, 1);
    assert_int_equal(lead.leading, 1);
    assert_string_equal(lead.host, "ctl-a");
    assert_int_equal(lead.pid, 4242);
    assert_int_equal(lead.standby, 2);
    assert_false(header_same_ctl(&none, &lead));
    header_ctl again = lead;
    again.asked_ms = 99;    /* when it was asked is not what it shows */
    assert_true(header_same_ctl(&lead, &again));
    again.pid = 1;
    assert_false(header_same_ctl(&lead, &again));
}

static void test_widths(void **state)
{
    (void)state;
    char out[256];
    header_ctl lead = parsed("{\"leader\":{\"host\":\"ctl-a\",\"pid\":4242},\"standby\":2}");
    header_ctl none = parsed("{\"leader\":null,\"standby\":0}");
    header_ctl unknown;
    memset(&unknown, 0, sizeof unknown);

    /* 80 columns: no detail, so clock, indicator and alerts leave the
     * left half to the account and store. */
    assert_int_equal(header_format_ctl(&lead, 80, out, sizeof out), TH_HEADER);
    assert_string_equal(out, "ctl: leading");
    assert_true(text_cols(out) + 2 + 9 < 40);
    assert_int_equal(header_format_ctl(&none, 80, out, sizeof out), TH_HEADER_WARN);
    assert_string_equal(out, "ctl: none");

    /* 120: the leader's host and pid. */
    assert_int_equal(header_format_ctl(&lead, 120, out, sizeof out), TH_HEADER);
    assert_string_equal(out, "ctl: leading ctl-a:4242");
    assert_int_equal(header_format_ctl(&none, 120, out, sizeof out), TH_HEADER_WARN);
    assert_string_equal(out, "ctl: none");

    /* 200: and how many stand by (none: not said). */
    header_format_ctl(&lead, 200, out, sizeof out);
    assert_string_equal(out, "ctl: leading ctl-a:4242, 2 standby");
    lead.standby = 0;
    header_format_ctl(&lead, 200, out, sizeof out);
    assert_string_equal(out, "ctl: leading ctl-a:4242");

    /* A long host name is cut, so the indicator stays a third of 120. */
    snprintf(lead.host, sizeof lead.host, "%s", "a-very-long-controller-host-name.example.internal");
    header_format_ctl(&lead, 120, out, sizeof out);
    assert_true(text_cols(out) <= 40);
    assert_non_null(strstr(out, ":4242"));

    /* Never asked, or the core has no `serve status`: nothing at all. */
    for (int cols = 80; cols <= 200; cols += 40) {
        header_format_ctl(&unknown, cols, out, sizeof out);
        assert_string_equal(out, "");
    }
}

static void test_alert_count(void **state)
{
    (void)state;
    char out[64];
    assert_int_equal(header_format_alerts(2, out, sizeof out), TH_HEADER_ALERT);
    assert_string_equal(out, "alerts: 2");
    assert_int_equal(header_format_alerts(0, out, sizeof out), TH_HEADER_DIM);
    assert_string_equal(out, "alerts: 0");
    assert_int_equal(header_format_alerts(-1, out, sizeof out), TH_HEADER);
    assert_string_equal(out, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_widths),
        cmocka_unit_test(test_alert_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
