/* Unit tests of the key layout: every prefix maps back to its kind. */
#include "testutil.h"

#include <string.h>

#include "keyspace.h"

static void test_kinds_round_trip(void **state)
{
    (void)state;
    for (int k = 0; k < KEYSPACE_OTHER; k++) {
        char key[128];
        const char *p = keyspace_prefix((keyspace_kind)k);
        assert_true(strncmp(p, KEY_ROOT, strlen(KEY_ROOT)) == 0);
        snprintf(key, sizeof key, "%sname", p);
        assert_int_equal(keyspace_kind_of(key), k);
    }
}

static void test_kinds_by_example(void **state)
{
    (void)state;
    assert_int_equal(keyspace_kind_of(KEY_NODES "gpu-01"), KEYSPACE_NODES);
    assert_int_equal(keyspace_kind_of(KEY_DEVICE_CONFIGS "dc/cfg"), KEYSPACE_DEVICE_CONFIGS);
    assert_int_equal(keyspace_kind_of(KEY_DEVICES "jetson-1"), KEYSPACE_DEVICES);   /* not device-configs */
    assert_int_equal(keyspace_kind_of(KEY_LEDGER_ACCOUNTS "wallet:alice"), KEYSPACE_LEDGER_ACCOUNTS);
    assert_int_equal(keyspace_kind_of(KEY_BILLING_CURSOR), KEYSPACE_BILLING);
    assert_int_equal(keyspace_kind_of(KEY_META_STORE), KEYSPACE_META);
    assert_int_equal(keyspace_kind_of(KEY_WORK "n1/job-1/0"), KEYSPACE_WORK);
    assert_int_equal(keyspace_kind_of("/rigdeck/unknown/x"), KEYSPACE_OTHER);
    assert_int_equal(keyspace_kind_of("~rigdeck/retry/1"), KEYSPACE_OTHER);
    assert_int_equal(keyspace_kind_of("/rigdeck/nodesx"), KEYSPACE_OTHER);
    assert_string_equal(keyspace_prefix(KEYSPACE_OTHER), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds_round_trip),
        cmocka_unit_test(test_kinds_by_example),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
