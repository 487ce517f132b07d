/* Unit tests of store_opts.cache_kib: the SQLite connection store_open
 * opens gets the page cache asked for, and the default when none is (the
 * console asks for a small one; everyone else keeps the default). */
#include "testutil.h"

#include "store_sqlite_int.h"

/* store_sqlite.c's handle: the base, then its one connection.  Declared
 * again here so the test can ask the connection itself. */
typedef struct {
    store_t base;
    sqlite_conn c;
} test_sqlite_store;

static char dir[256];

/* The cache_size PRAGMA of the connection a store opened with cache_kib has. */
static int64_t cache_size_of(const char *name, int cache_kib)
{
    char url[512];
    store_t *st = NULL;
    rd_err err;
    store_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.cache_kib = cache_kib;
    snprintf(url, sizeof url, "sqlite:%s/%s.db", dir, name);
    assert_int_equal(store_open(url, &opts, &st, &err), RD_OK);
    int64_t v = 0;
    int found = 0;
    assert_int_equal(sqlite_conn_query_int(&((test_sqlite_store *)st)->c, "PRAGMA cache_size", &v, &found, &err, ""),
                     RD_OK);
    assert_true(found);
    store_close(st);
    return v;
}

static void test_cache_asked_for(void **state)
{
    (void)state;
    /* negative: KiB, as SQLite's PRAGMA takes it */
    assert_int_equal(cache_size_of("small", 8192), -8192);
}

static void test_cache_default(void **state)
{
    (void)state;
    assert_int_equal(cache_size_of("default", 0), -131072);
    /* asking once does not change the next open's default */
    assert_int_equal(cache_size_of("again", 4096), -4096);
    assert_int_equal(cache_size_of("again", 0), -131072);
}

int main(void)
{
    testutil_tmpdir(dir, sizeof dir);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cache_asked_for),
        cmocka_unit_test(test_cache_default),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
