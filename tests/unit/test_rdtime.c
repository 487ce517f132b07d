/* Unit tests of time parsing/formatting and of the naming rules. */
#include "testutil.h"

#include "names.h"
#include "rdtime.h"

static void test_parse_format(void **state)
{
    rd_time t;
    rd_err err;
    char buf[RDTIME_BUFLEN];
    (void)state;
    assert_int_equal(rdtime_parse("t", "2026-11-01T00:00:00Z", &t, &err), RD_OK);
    assert_int_equal(t, 1793491200);
    assert_string_equal(rdtime_format(t, buf), "2026-11-01T00:00:00Z");
    assert_int_equal(rdtime_parse("t", "2026-11-01T02:30:00+02:30", &t, &err), RD_OK);
    assert_string_equal(rdtime_format(t, buf), "2026-11-01T00:00:00Z");
    assert_int_equal(rdtime_parse("t", "2026-11-01T00:00:00.999Z", &t, &err), RD_OK);
    assert_string_equal(rdtime_format(t, buf), "2026-11-01T00:00:00Z");
    assert_int_equal(rdtime_parse("t", "2024-02-29T12:00:00Z", &t, &err), RD_OK);
}

static void test_parse_refusals(void **state)
{
    rd_time t;
    rd_err err;
    (void)state;
    const char *bad[] = { "", "yesterday", "2026-11-01", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z",
                          "2026-11-01T24:00:00Z", "2026-11-01T00:00:00", "2026-11-01T00:00:00Zjunk" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(rdtime_parse("--now", bad[i], &t, &err), RD_EINVAL);
        assert_non_null(strstr(err.msg, "--now must be an RFC 3339 time"));
    }
}

static void test_durations_ms(void **state)
{
    int64_t ms = 0;
    rd_err err;
    (void)state;
    assert_int_equal(rdtime_parse_duration_ms("d", "500ms", &ms, &err), RD_OK);
    assert_int_equal(ms, 500);
    assert_int_equal(rdtime_parse_duration_ms("d", "10s", &ms, &err), RD_OK);
    assert_int_equal(ms, 10000);
    assert_int_equal(rdtime_parse_duration_ms("d", "1m30s", &ms, &err), RD_OK);
    assert_int_equal(ms, 90000);
    assert_int_equal(rdtime_parse_duration_ms("--heartbeat", "0ms", &ms, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "--heartbeat must be a positive duration such as 500ms"));
    assert_int_equal(rdtime_parse_duration_ms("d", "0s", &ms, &err), RD_EINVAL);
    assert_int_equal(rdtime_parse_duration_ms("d", "5xs", &ms, &err), RD_EINVAL);
    assert_int_equal(rdtime_parse_duration_ms("d", "ms", &ms, &err), RD_EINVAL);
    assert_int_equal(rdtime_parse_duration_ms("d", "1.5s", &ms, &err), RD_EINVAL);
}

static void test_durations(void **state)
{
    int64_t s;
    rd_err err;
    (void)state;
    assert_int_equal(rdtime_parse_duration("d", "10m", &s, &err), RD_OK);
    assert_int_equal(s, 600);
    assert_int_equal(rdtime_parse_duration("d", "2h", &s, &err), RD_OK);
    assert_int_equal(s, 7200);
    assert_int_equal(rdtime_parse_duration("d", "45", &s, &err), RD_OK);
    assert_int_equal(s, 45);
    assert_int_equal(rdtime_parse_duration("d", "0m", &s, &err), RD_EINVAL);
    assert_int_equal(rdtime_parse_duration("d", "-5m", &s, &err), RD_EINVAL);
    assert_int_equal(rdtime_parse_duration("d", "5y", &s, &err), RD_EINVAL);
    assert_int_equal(rdtime_parse_duration("d", "99999999999999999999s", &s, &err), RD_EINVAL);
    /* compound durations, units descending, as Go and systemd write them */
    assert_int_equal(rdtime_parse_duration("d", "2h30m", &s, &err), RD_OK);
    assert_int_equal(s, 9000);
    assert_int_equal(rdtime_parse_duration("d", "1d12h", &s, &err), RD_OK);
    assert_int_equal(s, 129600);
    assert_int_equal(rdtime_parse_duration("d", "1m30s", &s, &err), RD_OK);
    assert_int_equal(s, 90);
    assert_int_equal(rdtime_parse_duration("d", "30m2h", &s, &err), RD_EINVAL);
    assert_int_equal(rdtime_parse_duration("d", "1h1h", &s, &err), RD_EINVAL);
    assert_int_equal(rdtime_parse_duration("d", "1h30", &s, &err), RD_EINVAL);
    assert_int_equal(rdtime_parse_duration("d", "1h-30m", &s, &err), RD_EINVAL);
    assert_int_equal(rdtime_parse_duration("d", "0h0m", &s, &err), RD_EINVAL);
    assert_int_equal(rdtime_parse_duration("d", "", &s, &err), RD_EINVAL);
    assert_int_equal(rdtime_parse_duration("d", "h", &s, &err), RD_EINVAL);
}

static void test_names(void **state)
{
    rd_err err;
    (void)state;
    assert_int_equal(names_check("n", "gpu-07", &err), RD_OK);
    assert_int_equal(names_check("n", "a.b_c", &err), RD_OK);
    assert_int_equal(names_check("n", "Upper", &err), RD_EINVAL);
    assert_int_equal(names_check("n", "-lead", &err), RD_EINVAL);
    assert_int_equal(names_check("n", "", &err), RD_EINVAL);
    assert_int_equal(names_check("n", "has space", &err), RD_EINVAL);
    assert_int_equal(names_check("n", "0123456789012345678901234567890123456789012345678901234567890123", &err), RD_EINVAL);
    assert_int_equal(names_check_dns_label("region", "lab-east", &err), RD_OK);
    assert_int_equal(names_check_dns_label("region", "lab_east", &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "region must be a DNS label"));
    assert_int_equal(names_check_dns_label("region", "east-", &err), RD_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_format),
        cmocka_unit_test(test_parse_refusals),
        cmocka_unit_test(test_durations),
        cmocka_unit_test(test_durations_ms),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
