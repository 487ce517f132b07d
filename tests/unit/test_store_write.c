/* Unit tests of the SQLite store's write path (store_sqlite_write.c): a put
 * of a key that a compare of the same txn has read reuses what the compare
 * found (no INSERT attempt, no second read of kv), and that knowledge moves
 * on with every op of the txn that touches the key.  Each case checks what
 * a reader sees: values, versions and revisions now, the value at older
 * revisions, and the events (with their values) that history replays.
 * Putting one key twice, or deleting and putting it, in one txn is allowed
 * on SQLite only (etcd refuses "duplicate key"), so those cases are here
 * and not in the conformance suite.  Also: the connection's own locking. */
#include "testutil.h"

#include "store_sqlite_int.h"

/* store_sqlite.c's handle, declared again to reach its connection. */
typedef struct {
    store_t base;
    sqlite_conn c;
} test_sqlite_store;

static char dir[256];
static int nstores;

static store_t *open_fresh(void)
{
    char url[512];
    store_t *st = NULL;
    rd_err err;
    snprintf(url, sizeof url, "sqlite:%s/w%d.db", dir, ++nstores);
    assert_int_equal(store_open(url, NULL, &st, &err), RD_OK);
    return st;
}

static int64_t put(store_t *st, const char *key, const char *val)
{
    rd_err err;
    int64_t rev = 0;
    assert_int_equal(store_put(st, key, val, strlen(val), 0, &err), RD_OK);
    assert_int_equal(store_revision(st, &rev, &err), RD_OK);
    return rev;
}

static store_cmp mod_is(const char *key, int64_t rev)
{
    return (store_cmp){ key, STORE_CMP_MOD_REVISION, STORE_CMP_EQUAL, rev, NULL, 0 };
}

static store_op put_op(const char *key, const char *val)
{
    return (store_op){ STORE_OP_PUT, key, val, strlen(val), 0 };
}

static store_op del_op(store_op_kind kind, const char *key)
{
    return (store_op){ kind, key, NULL, 0, 0 };
}

/* Runs the txn; returns the new revision, asserting whether it succeeded. */
static int64_t txn(store_t *st, const store_cmp *cmps, size_t ncmps, const store_op *ok, size_t nok,
                   const store_op *bad, size_t nbad, int want_ok)
{
    rd_err err;
    store_txn_result res;
    assert_int_equal(store_txn(st, cmps, ncmps, ok, nok, bad, nbad, &res, &err), RD_OK);
    assert_int_equal(res.succeeded, want_ok);
    return res.revision;
}

/* "value v<version> c<create_revision> m<mod_revision>" of key now, or "-". */
static const char *now_of(store_t *st, const char *key)
{
    static char buf[256];
    store_kv kv;
    int found = 0;
    rd_err err;
    assert_int_equal(store_get(st, key, &kv, &found, NULL, &err), RD_OK);
    if (!found)
        return "-";
    snprintf(buf, sizeof buf, "%s v%lld c%lld m%lld", kv.value, (long long)kv.version,
             (long long)kv.create_revision, (long long)kv.mod_revision);
    store_kv_free(&kv);
    return buf;
}

/* key's value as of revision rev, or "-". */
static const char *value_at(store_t *st, const char *key, int64_t rev)
{
    static char buf[256];
    store_range_result rr;
    rd_err err;
    assert_int_equal(store_range(st, key, NULL, 0, rev, &rr, &err), RD_OK);
    snprintf(buf, sizeof buf, "%s", "-");
    for (size_t i = 0; i < rr.count; i++)
        if (strcmp(rr.kvs[i].key, key) == 0)
            snprintf(buf, sizeof buf, "%s", rr.kvs[i].value);
    store_range_free(&rr);
    return buf;
}

/* The events of revisions (after, upto], as "P key=value v<version>" or
 * "D key", joined by "; ". */
static const char *events(store_t *st, int64_t after, int64_t upto)
{
    static char buf[1024];
    store_event *ev = NULL;
    size_t n = 0, len = 0;
    int more = 0;
    rd_err err;
    assert_int_equal(store_history(st, after, upto, 100, 1000, &ev, &n, &more, &err), RD_OK);
    assert_int_equal(more, 0);
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (ev[i].type == STORE_EVENT_PUT)
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%sP %s=%s v%lld", i ? "; " : "",
                                    ev[i].kv.key, ev[i].kv.value, (long long)ev[i].kv.version);
        else
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%sD %s", i ? "; " : "", ev[i].kv.key);
        assert_true(len < sizeof buf);
    }
    store_events_free(ev, n);
    return buf;
}

/* How many times the connection has run its INSERT INTO kv (a put of a key
 * whose state the txn did not know). */
static int kv_inserts(store_t *st)
{
    sqlite_conn *c = &((test_sqlite_store *)st)->c;
    int runs = 0;
    for (int i = 0; i < RD_SQLITE_NCACHE && c->sql[i]; i++)
        if (strncmp(sqlite3_sql(c->st[i]), "INSERT INTO kv (", 16) == 0)
            runs += sqlite3_stmt_status(c->st[i], SQLITE_STMTSTATUS_RUN, 0);
    return runs;
}

/* Guarded rewrites (mod_revision, version and value compares) overwrite in
 * place without trying to insert, and keep every old value as history. */
static void test_guarded_rewrite(void **state)
{
    (void)state;
    store_t *st = open_fresh();
    int64_t r1 = put(st, "/a", "a1");
    put(st, "/b", "b1");
    int64_t r3 = put(st, "/c", "c1");
    int inserts = kv_inserts(st);
    store_cmp cmps[] = {
        mod_is("/a", r1),
        { "/b", STORE_CMP_VERSION, STORE_CMP_EQUAL, 1, NULL, 0 },
        { "/c", STORE_CMP_VALUE, STORE_CMP_EQUAL, 0, "c1", 2 },
    };
    store_op ops[] = { put_op("/c", "c2"), put_op("/a", "a2"), put_op("/b", "b2") };
    int64_t r4 = txn(st, cmps, 3, ops, 3, NULL, 0, 1);
    assert_int_equal(r4, r3 + 1);
    assert_int_equal(kv_inserts(st), inserts);
    assert_string_equal(now_of(st, "/a"), "a2 v2 c2 m5");
    assert_string_equal(value_at(st, "/a", r3), "a1");
    assert_string_equal(value_at(st, "/c", r3), "c1");
    assert_string_equal(events(st, r3, r4), "P /c=c2 v2; P /a=a2 v2; P /b=b2 v2");

    /* again: the history row the first rewrite made is the one kept now */
    store_cmp again = mod_is("/a", r4);
    int64_t r5 = txn(st, &again, 1, ops + 1, 1, NULL, 0, 1);
    assert_string_equal(value_at(st, "/a", r4), "a2");
    assert_string_equal(value_at(st, "/a", r3), "a1");
    assert_string_equal(now_of(st, "/a"), "a2 v3 c2 m6");
    assert_string_equal(events(st, r4, r5), "P /a=a2 v3");

    /* unguarded, the put tries the insert and still overwrites right */
    int64_t r6 = txn(st, NULL, 0, ops, 1, NULL, 0, 1);
    assert_int_equal(kv_inserts(st), inserts + 1);
    assert_string_equal(now_of(st, "/c"), "c2 v3 c4 m7");
    assert_string_equal(value_at(st, "/c", r5), "c2");
    assert_string_equal(events(st, r5, r6), "P /c=c2 v3");
    store_close(st);
}

/* A compare that fails: the failure branch's put of the compared key. */
static void test_failure_branch_put(void **state)
{
    (void)state;
    store_t *st = open_fresh();
    int64_t r1 = put(st, "/a", "a1");
    int64_t r2 = put(st, "/a", "a2");
    store_cmp stale = mod_is("/a", r1);
    store_op bad = put_op("/a", "a3");
    int64_t r3 = txn(st, &stale, 1, NULL, 0, &bad, 1, 0);
    assert_string_equal(now_of(st, "/a"), "a3 v3 c2 m4");
    assert_string_equal(value_at(st, "/a", r2), "a2");
    assert_string_equal(value_at(st, "/a", r1), "a1");
    assert_string_equal(events(st, r1, r3), "P /a=a2 v2; P /a=a3 v3");

    /* a compare after the one that fails is never read: the failure
     * branch's put of its key finds the key's state itself */
    int64_t rb = put(st, "/b", "b1");
    store_cmp two[] = { mod_is("/a", r1), mod_is("/b", rb) };
    store_op bput = put_op("/b", "b2");
    int64_t r5 = txn(st, two, 2, NULL, 0, &bput, 1, 0);
    assert_string_equal(now_of(st, "/b"), "b2 v2 c5 m6");
    assert_string_equal(value_at(st, "/b", rb), "b1");
    assert_string_equal(events(st, rb, r5), "P /b=b2 v2");
    store_close(st);
}

/* An empty value is a value: the history row of a guarded rewrite keeps
 * it (empty, not missing), as the unguarded one does. */
static void test_empty_value_kept(void **state)
{
    (void)state;
    store_t *st = open_fresh();
    int64_t r1 = put(st, "/e", "");
    int64_t r2 = put(st, "/f", "");
    store_cmp guards[] = { mod_is("/e", r1), mod_is("/f", r2) };
    store_op ops[] = { put_op("/e", "e2"), put_op("/f", "f2") };
    int64_t r3 = txn(st, guards, 2, ops, 2, NULL, 0, 1);
    txn(st, NULL, 0, ops, 2, NULL, 0, 1);
    assert_string_equal(value_at(st, "/e", r2), "");
    assert_string_equal(value_at(st, "/f", r2), "");
    assert_string_equal(value_at(st, "/e", r3), "e2");
    assert_string_equal(events(st, r1, r3), "P /f= v1; P /e=e2 v2; P /f=f2 v2");
    store_close(st);
}

/* A compared key put twice in one txn: the second put overwrites the
 * first's row (its value becomes the first event's), version + 2. */
static void test_compared_key_put_twice(void **state)
{
    (void)state;
    store_t *st = open_fresh();
    int64_t r1 = put(st, "/a", "a1");
    store_cmp guard = mod_is("/a", r1);
    store_op ops[] = { put_op("/a", "x"), put_op("/a", "y") };
    int64_t r2 = txn(st, &guard, 1, ops, 2, NULL, 0, 1);
    assert_string_equal(now_of(st, "/a"), "y v3 c2 m3");
    assert_string_equal(value_at(st, "/a", r1), "a1");
    assert_string_equal(events(st, r1, r2), "P /a=x v2; P /a=y v3");

    /* a compare that found the key missing, then two puts: a create, then
     * an overwrite of it */
    store_cmp missing = mod_is("/m", 0);
    store_op mops[] = { put_op("/m", "1"), put_op("/m", "2") };
    int64_t r3 = txn(st, &missing, 1, mops, 2, NULL, 0, 1);
    assert_string_equal(now_of(st, "/m"), "2 v2 c4 m4");
    assert_string_equal(value_at(st, "/m", r2), "-");
    assert_string_equal(events(st, r2, r3), "P /m=1 v1; P /m=2 v2");
    store_close(st);
}

/* A compared key deleted, then put, in one txn: a new key (version 1,
 * created now), the old one's value still readable before. */
static void test_compared_key_deleted_then_put(void **state)
{
    (void)state;
    store_t *st = open_fresh();
    put(st, "/p/a", "a1");
    int64_t r2 = put(st, "/p/a", "a2");
    store_cmp guard = mod_is("/p/a", r2);
    store_op ops[] = { del_op(STORE_OP_DELETE, "/p/a"), put_op("/p/a", "a3") };
    int64_t r3 = txn(st, &guard, 1, ops, 2, NULL, 0, 1);
    assert_string_equal(now_of(st, "/p/a"), "a3 v1 c4 m4");
    assert_string_equal(value_at(st, "/p/a", r2), "a2");
    assert_string_equal(events(st, r2, r3), "D /p/a; P /p/a=a3 v1");

    /* the same through a delete of a prefix above it */
    store_cmp guard2 = mod_is("/p/a", r3);
    store_op ops2[] = { del_op(STORE_OP_DELETE_PREFIX, "/p/"), put_op("/p/a", "a4"), put_op("/p/a", "a5") };
    int64_t r4 = txn(st, &guard2, 1, ops2, 3, NULL, 0, 1);
    assert_string_equal(now_of(st, "/p/a"), "a5 v2 c5 m5");
    assert_string_equal(value_at(st, "/p/a", r3), "a3");
    assert_string_equal(events(st, r3, r4), "D /p/a; P /p/a=a4 v1; P /p/a=a5 v2");

    /* a delete of another key (or a prefix not above it) leaves it known */
    put(st, "/q", "q1");
    int64_t r6 = put(st, "/p/b", "b1");
    store_cmp guard3 = mod_is("/p/a", r4);
    store_op ops3[] = { del_op(STORE_OP_DELETE, "/p/b"), del_op(STORE_OP_DELETE_PREFIX, "/q"),
                        put_op("/p/a", "a6") };
    int inserts = kv_inserts(st);
    int64_t r7 = txn(st, &guard3, 1, ops3, 3, NULL, 0, 1);
    assert_int_equal(kv_inserts(st), inserts);
    assert_string_equal(now_of(st, "/p/a"), "a6 v3 c5 m8");
    assert_string_equal(now_of(st, "/p/b"), "-");
    assert_string_equal(events(st, r6, r7), "D /p/b; D /q; P /p/a=a6 v3");
    store_close(st);
}

/* Many compared keys (the table grows past its first size; keys share
 * hash slots), every put still lands on its own key's history. */
static void test_many_compared_keys(void **state)
{
    (void)state;
    enum { N = 300 };
    static char keys[N][32], vals[N][32];
    store_cmp cmps[N];
    store_op ops[N];
    store_t *st = open_fresh();
    for (int i = 0; i < N; i++) {
        snprintf(keys[i], sizeof keys[i], "/k/%d", i);
        snprintf(vals[i], sizeof vals[i], "old%d", i);
        ops[i] = put_op(keys[i], vals[i]);
    }
    int64_t r1 = txn(st, NULL, 0, ops, N, NULL, 0, 1);
    for (int i = 0; i < N; i++) {
        cmps[i] = mod_is(keys[N - 1 - i], r1);
        snprintf(vals[i], sizeof vals[i], "new%d", i);
        ops[i] = put_op(keys[i], vals[i]);
    }
    int inserts = kv_inserts(st);
    txn(st, cmps, N, ops, N, NULL, 0, 1);
    assert_int_equal(kv_inserts(st), inserts);
    for (int i = 0; i < N; i += 37) {
        char want[64];
        snprintf(want, sizeof want, "new%d v2 c%lld m%lld", i, (long long)r1, (long long)r1 + 1);
        assert_string_equal(now_of(st, keys[i]), want);
        snprintf(want, sizeof want, "old%d", i);
        assert_string_equal(value_at(st, keys[i], r1), want);
    }
    store_close(st);
}

/* The connection takes no lock of its own in every call (a handle is
 * used by one thread at a time). */
static void test_connection_unlocked(void **state)
{
    (void)state;
    store_t *st = open_fresh();
    assert_null(sqlite3_db_mutex(((test_sqlite_store *)st)->c.db));
    store_close(st);
}

int main(void)
{
    testutil_tmpdir(dir, sizeof dir);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_guarded_rewrite),
        cmocka_unit_test(test_failure_branch_put),
        cmocka_unit_test(test_empty_value_kept),
        cmocka_unit_test(test_compared_key_put_twice),
        cmocka_unit_test(test_compared_key_deleted_then_put),
        cmocka_unit_test(test_many_compared_keys),
        cmocka_unit_test(test_connection_unlocked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
