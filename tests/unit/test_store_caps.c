/* Unit tests of the store backends' declared capabilities (store_caps in
 * core/store/store.h): what SQLite and etcd report, that an open SQLite
 * handle reports its backend's record, and the scheduler's batch size
 * derived from a txn limit (the numbers it used when it read the URL:
 * 512 on SQLite, 30 on etcd).  tests/conformance checks, on a live store
 * of each kind, that the record matches what the store enforces. */
#include "testutil.h"

#include "sched_run.h"
#include "store_backend.h"

static char dir[256];

static void test_sqlite_caps(void **state)
{
    (void)state;
    char url[512];
    store_t *st = NULL;
    rd_err err;
    snprintf(url, sizeof url, "sqlite:%s/caps.db", dir);
    assert_int_equal(store_open(url, NULL, &st, &err), RD_OK);
    const store_caps *c = store_caps_get(st);
    assert_non_null(c);
    assert_int_equal(c->txn_ops_max, 0);     /* a txn of any size */
    assert_int_equal(c->authenticates, 0);   /* no users: store secure refuses */
    assert_int_equal(c->shared, 0);          /* a file on this host */
    assert_ptr_equal(c, &store_sqlite_backend.caps);
    store_close(st);

    /* A bare path is SQLite too. */
    snprintf(url, sizeof url, "%s/bare.db", dir);
    assert_int_equal(store_open(url, NULL, &st, &err), RD_OK);
    assert_ptr_equal(store_caps_get(st), &store_sqlite_backend.caps);
    store_close(st);
}

static void test_etcd_caps(void **state)
{
    (void)state;
    /* Declared in the table: no server is needed to read them. */
    const store_caps *c = &store_etcd_backend.caps;
    assert_int_equal(c->txn_ops_max, 128);   /* etcd's --max-txn-ops default */
    assert_int_equal(c->authenticates, 1);
    assert_int_equal(c->shared, 1);
}

static void test_sched_batch_max(void **state)
{
    (void)state;
    assert_int_equal(sched_run_batch_max(&store_sqlite_backend.caps), 512);
    assert_int_equal(sched_run_batch_max(&store_etcd_backend.caps), 30);
    /* Any limit gives a batch that fits it, never an empty one. */
    store_caps c = { 0 };
    for (size_t ops = 1; ops <= 4096; ops++) {
        c.txn_ops_max = ops;
        size_t n = sched_run_batch_max(&c);
        assert_true(n >= 1 && n <= 512);
        if (ops >= 12)
            assert_true(n * 4 + 8 <= ops);
    }
}

int main(void)
{
    testutil_tmpdir(dir, sizeof dir);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sqlite_caps),
        cmocka_unit_test(test_etcd_caps),
        cmocka_unit_test(test_sched_batch_max),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
