/* store_conformance.c - the store contract (core/store/store.h) checked against a live store.
 *
 * Usage: store_conformance [URL]   (else $RIGDECK_TEST_STORE, else a temporary
 * sqlite file).  Every backend must pass this unchanged, so each test works
 * under its own key prefix and only asserts relations between revisions
 * (equal, greater, +1), never absolute numbers.  The suite assumes nobody
 * else writes to the store while it runs, since it checks revision steps.
 */
#include "testutil.h"

#include <errno.h>
#include <sys/wait.h>
#include <time.h>

#include "store.h"

static const char *g_url;
static int g_is_sqlite;
static unsigned g_nonce, g_counter;

typedef struct {
    store_t *st;
    char pfx[160];
} fx;

#define OK(call)                                                          \
    do {                                                                  \
        rd_code rc_ = (call);                                             \
        if (rc_ != RD_OK)                                                 \
            fail_msg("%s -> %s: %s", #call, rd_code_name(rc_), e.msg);    \
    } while (0)

#define FAILS(code, call)                                                 \
    do {                                                                  \
        rd_code rc_ = (call);                                             \
        if (rc_ != (code))                                                \
            fail_msg("%s -> %s (want %s): %s", #call, rd_code_name(rc_),  \
                     rd_code_name(code), e.msg);                          \
    } while (0)

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    rd_err e = { 0 };
    assert_non_null(f);
    if (store_open(g_url, NULL, &f->st, &e) != RD_OK) {
        free(f);
        fail_msg("store_open %s: %s", g_url, e.msg);
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    store_close(f->st);
    free(f);
    return 0;
}

/* A key prefix no other test, process or earlier run uses. */
static fx *begin(void **state, const char *name)
{
    fx *f = *state;
    snprintf(f->pfx, sizeof f->pfx, "/conf/%s-%ld-%u-%u/", name, (long)getpid(), g_nonce,
             ++g_counter);
    return f;
}

static const char *K(fx *f, const char *suffix)
{
    static char bufs[16][256];
    static unsigned next;
    char *b = bufs[next++ % 16];
    snprintf(b, sizeof bufs[0], "%s%s", f->pfx, suffix);
    return b;
}

static int64_t rev_of(store_t *st)
{
    rd_err e = { 0 };
    int64_t r = 0;
    OK(store_revision(st, &r, &e));
    return r;
}

static void put_s(store_t *st, const char *key, const char *val)
{
    rd_err e = { 0 };
    OK(store_put(st, key, val, strlen(val), 0, &e));
}

/* Gets key, asserting found == want; returns the kv (caller frees). */
static store_kv get_kv(store_t *st, const char *key, int want)
{
    rd_err e = { 0 };
    store_kv kv;
    int found = -1;
    OK(store_get(st, key, &kv, &found, NULL, &e));
    if (found != want)
        fail_msg("get %s: found=%d, want %d", key, found, want);
    return kv;
}

static void assert_value(store_t *st, const char *key, const char *want)
{
    store_kv kv = get_kv(st, key, 1);
    assert_int_equal(kv.value_len, strlen(want));
    assert_string_equal(kv.value, want);
    store_kv_free(&kv);
}

static int cmp_holds(store_t *st, store_cmp c)
{
    rd_err e = { 0 };
    store_txn_result res;
    OK(store_txn(st, &c, 1, NULL, 0, NULL, 0, &res, &e));
    return res.succeeded;
}

static store_cmp cmp_num(const char *key, store_cmp_target t, store_cmp_op op, int64_t n)
{
    store_cmp c = { key, t, op, n, NULL, 0 };
    return c;
}

static store_cmp cmp_val(const char *key, store_cmp_op op, const char *v)
{
    store_cmp c = { key, STORE_CMP_VALUE, op, 0, v, strlen(v) };
    return c;
}

static store_op op_put(const char *key, const char *v, int64_t lease)
{
    store_op o = { STORE_OP_PUT, key, v, strlen(v), lease };
    return o;
}

static store_op op_del(store_op_kind kind, const char *key)
{
    store_op o = { kind, key, NULL, 0, 0 };
    return o;
}

/* ---- keys and revisions ---------------------------------------------------- */

static void test_get_missing_present(void **state)
{
    fx *f = begin(state, "get");
    rd_err e = { 0 };
    store_kv kv;
    int found = -1;
    int64_t r = 0;

    OK(store_get(f->st, K(f, "missing"), &kv, &found, &r, &e));
    assert_int_equal(found, 0);
    assert_null(kv.key);
    assert_null(kv.value);
    assert_true(r > 0);

    OK(store_put(f->st, K(f, "a"), "hello", 5, 0, &e));
    OK(store_get(f->st, K(f, "a"), &kv, &found, &r, &e));
    assert_int_equal(found, 1);
    assert_string_equal(kv.key, K(f, "a"));
    assert_int_equal(kv.value_len, 5);
    assert_memory_equal(kv.value, "hello", 6);
    assert_int_equal(kv.lease, 0);
    assert_true(r >= kv.mod_revision);
    assert_int_equal(r, rev_of(f->st));
    store_kv_free(&kv);

    /* values are bytes: NULs inside, and empty */
    OK(store_put(f->st, K(f, "bin"), "x\0y", 3, 0, &e));
    kv = get_kv(f->st, K(f, "bin"), 1);
    assert_int_equal(kv.value_len, 3);
    assert_memory_equal(kv.value, "x\0y", 4);
    store_kv_free(&kv);
    OK(store_put(f->st, K(f, "empty"), "", 0, 0, &e));
    kv = get_kv(f->st, K(f, "empty"), 1);
    assert_int_equal(kv.value_len, 0);
    assert_non_null(kv.value);
    assert_string_equal(kv.value, "");
    store_kv_free(&kv);
}

/* store_get_many answers each key as store_get would, in order, missing
 * ones too, across more keys than one etcd request holds. */
static void test_get_many(void **state)
{
    fx *f = begin(state, "many");
    rd_err e = { 0 };
    enum { N = 300 };
    static char names[N][256];
    const char *keys[N];
    store_kv kv[N];
    int found[N];
    int64_t r = 0;
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "%sk%03d", f->pfx, i);
        keys[i] = names[i];
        if (i % 3 != 1) {   /* every third key stays missing */
            char v[16];
            int n = snprintf(v, sizeof v, "v%d", i);
            OK(store_put(f->st, keys[i], v, (size_t)n, 0, &e));
        }
    }
    keys[N - 1] = keys[0];   /* a key named twice is answered twice */
    OK(store_get_many(f->st, keys, N, kv, found, &r, &e));
    assert_int_equal(r, rev_of(f->st));
    for (int i = 0; i < N; i++) {
        int want = (i == N - 1 ? 0 : i) % 3 != 1;
        if (found[i] != want)
            fail_msg("get_many %s: found=%d, want %d", keys[i], found[i], want);
        if (!found[i]) {
            assert_null(kv[i].value);
            continue;
        }
        store_kv one = get_kv(f->st, keys[i], 1);
        assert_string_equal(kv[i].key, one.key);
        assert_int_equal(kv[i].value_len, one.value_len);
        assert_memory_equal(kv[i].value, one.value, one.value_len);
        assert_int_equal(kv[i].mod_revision, one.mod_revision);
        assert_int_equal(kv[i].create_revision, one.create_revision);
        assert_int_equal(kv[i].version, one.version);
        store_kv_free(&one);
        store_kv_free(&kv[i]);
    }
    OK(store_get_many(f->st, keys, 0, kv, found, NULL, &e));
}

static void test_put_metadata(void **state)
{
    fx *f = begin(state, "meta");
    int64_t r0 = rev_of(f->st);
    put_s(f->st, K(f, "k"), "v1");
    store_kv a = get_kv(f->st, K(f, "k"), 1);
    assert_int_equal(a.version, 1);
    assert_int_equal(a.create_revision, a.mod_revision);
    assert_int_equal(a.mod_revision, r0 + 1);
    assert_int_equal(rev_of(f->st), r0 + 1);

    put_s(f->st, K(f, "k"), "v2");
    store_kv b = get_kv(f->st, K(f, "k"), 1);
    assert_int_equal(b.version, 2);
    assert_int_equal(b.create_revision, a.create_revision);
    assert_int_equal(b.mod_revision, a.mod_revision + 1);
    assert_string_equal(b.value, "v2");
    store_kv_free(&a);
    store_kv_free(&b);
}

static void test_delete_resets(void **state)
{
    fx *f = begin(state, "delete");
    rd_err e = { 0 };
    put_s(f->st, K(f, "k"), "1");
    put_s(f->st, K(f, "k"), "2");
    store_kv a = get_kv(f->st, K(f, "k"), 1);
    assert_int_equal(a.version, 2);

    int64_t r0 = rev_of(f->st);
    OK(store_delete(f->st, K(f, "k"), &e));
    assert_int_equal(rev_of(f->st), r0 + 1);
    store_kv gone = get_kv(f->st, K(f, "k"), 0);
    assert_null(gone.key);

    put_s(f->st, K(f, "k"), "3");
    store_kv b = get_kv(f->st, K(f, "k"), 1);
    assert_int_equal(b.version, 1);
    assert_true(b.create_revision > a.create_revision);
    assert_int_equal(b.create_revision, b.mod_revision);
    assert_int_equal(b.create_revision, r0 + 2);
    store_kv_free(&a);
    store_kv_free(&b);
}

static void test_txn_one_revision(void **state)
{
    fx *f = begin(state, "onerev");
    rd_err e = { 0 };
    store_txn_result res;
    put_s(f->st, K(f, "old"), "x");
    int64_t r0 = rev_of(f->st);
    store_op ops[] = {
        op_put(K(f, "a"), "1", 0), op_put(K(f, "b"), "2", 0), op_put(K(f, "c"), "3", 0),
        op_del(STORE_OP_DELETE, K(f, "old")), op_del(STORE_OP_DELETE, K(f, "never")),
    };
    OK(store_txn(f->st, NULL, 0, ops, 5, NULL, 0, &res, &e));
    assert_int_equal(res.succeeded, 1);
    assert_int_equal(res.revision, r0 + 1);
    assert_int_equal(rev_of(f->st), r0 + 1);
    const char *names[] = { "a", "b", "c" };
    for (int i = 0; i < 3; i++) {
        store_kv kv = get_kv(f->st, K(f, names[i]), 1);
        assert_int_equal(kv.mod_revision, res.revision);
        assert_int_equal(kv.create_revision, res.revision);
        store_kv_free(&kv);
    }
    get_kv(f->st, K(f, "old"), 0);
}

static void test_txn_noop(void **state)
{
    fx *f = begin(state, "noop");
    rd_err e = { 0 };
    store_txn_result res;
    put_s(f->st, K(f, "k"), "v");
    int64_t r0 = rev_of(f->st);

    OK(store_txn(f->st, NULL, 0, NULL, 0, NULL, 0, &res, &e));
    assert_int_equal(res.succeeded, 1);
    assert_int_equal(res.revision, r0);

    store_cmp c = cmp_val(K(f, "k"), STORE_CMP_EQUAL, "other");
    store_op p = op_put(K(f, "k"), "new", 0);
    OK(store_txn(f->st, &c, 1, &p, 1, NULL, 0, &res, &e));
    assert_int_equal(res.succeeded, 0);
    assert_int_equal(res.revision, r0);

    OK(store_delete(f->st, K(f, "missing"), &e));
    store_op dp = op_del(STORE_OP_DELETE_PREFIX, K(f, "nothing/"));
    OK(store_txn(f->st, NULL, 0, &dp, 1, NULL, 0, &res, &e));
    assert_int_equal(res.revision, r0);
    assert_int_equal(rev_of(f->st), r0);
    assert_value(f->st, K(f, "k"), "v");
}

/* ---- compares ------------------------------------------------------------ */

static void test_cmp_value(void **state)
{
    fx *f = begin(state, "cmpval");
    const char *k = K(f, "k");
    put_s(f->st, k, "m");
    struct { const char *v; store_cmp_op op; int want; } cases[] = {
        { "m", STORE_CMP_EQUAL, 1 },     { "m", STORE_CMP_NOT_EQUAL, 0 },
        { "n", STORE_CMP_EQUAL, 0 },     { "n", STORE_CMP_NOT_EQUAL, 1 },
        { "n", STORE_CMP_LESS, 1 },      { "n", STORE_CMP_GREATER, 0 },
        { "l", STORE_CMP_GREATER, 1 },   { "l", STORE_CMP_LESS, 0 },
        { "m", STORE_CMP_LESS, 0 },      { "m", STORE_CMP_GREATER, 0 },
        { "ma", STORE_CMP_LESS, 1 },     { "", STORE_CMP_GREATER, 1 },
        { "\xff", STORE_CMP_LESS, 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (cmp_holds(f->st, cmp_val(k, cases[i].op, cases[i].v)) != cases[i].want)
            fail_msg("value(\"m\") op %d \"%s\": want %d", cases[i].op, cases[i].v, cases[i].want);

    /* a value compare on a missing key is false for every op */
    for (int op = STORE_CMP_EQUAL; op <= STORE_CMP_GREATER; op++) {
        assert_false(cmp_holds(f->st, cmp_val(K(f, "missing"), (store_cmp_op)op, "")));
        assert_false(cmp_holds(f->st, cmp_val(K(f, "missing"), (store_cmp_op)op, "x")));
    }
}

static void test_cmp_version(void **state)
{
    fx *f = begin(state, "cmpver");
    const char *k = K(f, "k");
    assert_true(cmp_holds(f->st, cmp_num(k, STORE_CMP_VERSION, STORE_CMP_EQUAL, 0)));
    put_s(f->st, k, "a");
    put_s(f->st, k, "b");
    assert_true(cmp_holds(f->st, cmp_num(k, STORE_CMP_VERSION, STORE_CMP_EQUAL, 2)));
    assert_false(cmp_holds(f->st, cmp_num(k, STORE_CMP_VERSION, STORE_CMP_NOT_EQUAL, 2)));
    assert_true(cmp_holds(f->st, cmp_num(k, STORE_CMP_VERSION, STORE_CMP_GREATER, 1)));
    assert_false(cmp_holds(f->st, cmp_num(k, STORE_CMP_VERSION, STORE_CMP_GREATER, 2)));
    assert_true(cmp_holds(f->st, cmp_num(k, STORE_CMP_VERSION, STORE_CMP_LESS, 3)));
    assert_false(cmp_holds(f->st, cmp_num(k, STORE_CMP_VERSION, STORE_CMP_LESS, 2)));
}

static void test_cmp_mod_revision(void **state)
{
    fx *f = begin(state, "cmpmod");
    const char *k = K(f, "k");
    assert_true(cmp_holds(f->st, cmp_num(k, STORE_CMP_MOD_REVISION, STORE_CMP_EQUAL, 0)));
    put_s(f->st, k, "a");
    store_kv kv = get_kv(f->st, k, 1);
    int64_t m = kv.mod_revision;
    store_kv_free(&kv);
    assert_true(cmp_holds(f->st, cmp_num(k, STORE_CMP_MOD_REVISION, STORE_CMP_EQUAL, m)));
    assert_false(cmp_holds(f->st, cmp_num(k, STORE_CMP_MOD_REVISION, STORE_CMP_NOT_EQUAL, m)));
    assert_true(cmp_holds(f->st, cmp_num(k, STORE_CMP_MOD_REVISION, STORE_CMP_LESS, m + 1)));
    assert_true(cmp_holds(f->st, cmp_num(k, STORE_CMP_MOD_REVISION, STORE_CMP_GREATER, m - 1)));
    put_s(f->st, k, "b");
    assert_false(cmp_holds(f->st, cmp_num(k, STORE_CMP_MOD_REVISION, STORE_CMP_EQUAL, m)));
    assert_true(cmp_holds(f->st, cmp_num(k, STORE_CMP_MOD_REVISION, STORE_CMP_GREATER, m)));
}

static void test_cmp_create_revision(void **state)
{
    fx *f = begin(state, "cmpcreate");
    rd_err e = { 0 };
    store_txn_result res;
    const char *k = K(f, "k");
    /* create-if-absent: create_revision == 0 means the key does not exist */
    store_cmp absent = cmp_num(k, STORE_CMP_CREATE_REVISION, STORE_CMP_EQUAL, 0);
    store_op first = op_put(k, "first", 0), second = op_put(k, "second", 0);
    OK(store_txn(f->st, &absent, 1, &first, 1, NULL, 0, &res, &e));
    assert_int_equal(res.succeeded, 1);
    OK(store_txn(f->st, &absent, 1, &second, 1, NULL, 0, &res, &e));
    assert_int_equal(res.succeeded, 0);
    assert_value(f->st, k, "first");

    store_kv kv = get_kv(f->st, k, 1);
    int64_t c = kv.create_revision;
    store_kv_free(&kv);
    put_s(f->st, k, "again");
    assert_true(cmp_holds(f->st, cmp_num(k, STORE_CMP_CREATE_REVISION, STORE_CMP_EQUAL, c)));
    assert_true(cmp_holds(f->st, cmp_num(k, STORE_CMP_CREATE_REVISION, STORE_CMP_GREATER, 0)));
    assert_false(cmp_holds(f->st, cmp_num(k, STORE_CMP_CREATE_REVISION, STORE_CMP_LESS, c)));
    assert_true(cmp_holds(f->st, cmp_num(k, STORE_CMP_CREATE_REVISION, STORE_CMP_NOT_EQUAL, c + 1)));
}

static void test_txn_failure_branch(void **state)
{
    fx *f = begin(state, "failure");
    rd_err e = { 0 };
    store_txn_result res;
    put_s(f->st, K(f, "k"), "1");
    put_s(f->st, K(f, "gone"), "x");
    int64_t r0 = rev_of(f->st);
    store_cmp cmps[] = {
        cmp_num(K(f, "k"), STORE_CMP_VERSION, STORE_CMP_EQUAL, 1),  /* holds */
        cmp_val(K(f, "k"), STORE_CMP_EQUAL, "2"),                   /* fails */
    };
    store_op ok_ops[] = { op_put(K(f, "k"), "success", 0) };
    store_op fail_ops[] = { op_put(K(f, "k"), "failure", 0), op_put(K(f, "other"), "f", 0),
                            op_del(STORE_OP_DELETE, K(f, "gone")) };
    OK(store_txn(f->st, cmps, 2, ok_ops, 1, fail_ops, 3, &res, &e));
    assert_int_equal(res.succeeded, 0);
    assert_int_equal(res.revision, r0 + 1);
    assert_value(f->st, K(f, "k"), "failure");
    assert_value(f->st, K(f, "other"), "f");
    get_kv(f->st, K(f, "gone"), 0);
    store_kv kv = get_kv(f->st, K(f, "other"), 1);
    assert_int_equal(kv.mod_revision, res.revision);
    store_kv_free(&kv);
}

/* ---- ranges -------------------------------------------------------------- */

static void test_delete_prefix(void **state)
{
    fx *f = begin(state, "delprefix");
    rd_err e = { 0 };
    store_txn_result res;
    store_range_result rr;
    const char *keys[] = { "p/a", "p/b", "p/c/d", "pa", "p" };
    for (int i = 0; i < 5; i++)
        put_s(f->st, K(f, keys[i]), "v");
    int64_t r0 = rev_of(f->st);
    store_op dp = op_del(STORE_OP_DELETE_PREFIX, K(f, "p/"));
    OK(store_txn(f->st, NULL, 0, &dp, 1, NULL, 0, &res, &e));
    assert_int_equal(res.revision, r0 + 1);
    OK(store_range(f->st, f->pfx, NULL, 0, 0, &rr, &e));
    assert_int_equal(rr.count, 2);
    assert_string_equal(rr.kvs[0].key, K(f, "p"));
    assert_string_equal(rr.kvs[1].key, K(f, "pa"));
    store_range_free(&rr);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void test_range_order_prefix(void **state)
{
    fx *f = begin(state, "order");
    rd_err e = { 0 };
    store_range_result rr;
    const char *in[] = { "p/b", "p/a", "p/B", "p/a0", "p/a/", "p/\xc3\xa9", "p/~", "pa", "p", "o" };
    const char *want[] = { "p/B", "p/a", "p/a/", "p/a0", "p/b", "p/~", "p/\xc3\xa9" };
    for (size_t i = 0; i < 10; i++)
        put_s(f->st, K(f, in[i]), in[i]);

    OK(store_range(f->st, K(f, "p/"), NULL, 0, 0, &rr, &e));
    assert_int_equal(rr.count, 7);
    assert_int_equal(rr.more, 0);
    assert_int_equal(rr.revision, rev_of(f->st));
    for (size_t i = 0; i < 7; i++) {
        assert_string_equal(rr.kvs[i].key, K(f, want[i]));
        assert_string_equal(rr.kvs[i].value, want[i]);
    }
    store_range_free(&rr);

    /* the whole test prefix comes back in bytewise (strcmp) order */
    OK(store_range(f->st, f->pfx, NULL, 0, 0, &rr, &e));
    assert_int_equal(rr.count, 10);
    const char *sorted[10];
    memcpy(sorted, in, sizeof sorted);
    qsort(sorted, 10, sizeof sorted[0], cmp_str);
    for (size_t i = 0; i < 10; i++)
        assert_string_equal(rr.kvs[i].key, K(f, sorted[i]));
    store_range_free(&rr);

    OK(store_range(f->st, K(f, "p"), NULL, 0, 0, &rr, &e));
    assert_int_equal(rr.count, 9);
    store_range_free(&rr);
    OK(store_range(f->st, K(f, "q"), NULL, 0, 0, &rr, &e));
    assert_int_equal(rr.count, 0);
    assert_null(rr.kvs);
    store_range_free(&rr);
}

static void test_range_paging(void **state)
{
    fx *f = begin(state, "paging");
    rd_err e = { 0 };
    store_range_result rr;
    char name[16];
    for (int i = 0; i < 10; i++) {
        snprintf(name, sizeof name, "k%02d", i);
        put_s(f->st, K(f, name), name);
    }
    int64_t at = 0;
    char after[256] = "";
    int seen = 0, pages = 0;
    for (;;) {
        OK(store_range(f->st, f->pfx, *after ? after : NULL, 3, at, &rr, &e));
        if (at == 0) {
            at = rr.revision;
            /* changes after the first page must not show in later pages */
            put_s(f->st, K(f, "k05"), "changed");
            OK(store_delete(f->st, K(f, "k07"), &e));
            put_s(f->st, K(f, "k99"), "new");
        }
        assert_int_equal(rr.revision, at);
        assert_true(rr.count <= 3);
        for (size_t i = 0; i < rr.count; i++, seen++) {
            snprintf(name, sizeof name, "k%02d", seen);
            assert_string_equal(rr.kvs[i].key, K(f, name));
            assert_string_equal(rr.kvs[i].value, name);
        }
        pages++;
        int more = rr.more;
        if (rr.count)
            snprintf(after, sizeof after, "%s", rr.kvs[rr.count - 1].key);
        store_range_free(&rr);
        if (!more)
            break;
        assert_true(pages < 10);
    }
    assert_int_equal(seen, 10);
    assert_int_equal(pages, 4);

    /* a limit that exactly fits leaves more == 0; limit 0 means all */
    OK(store_range(f->st, f->pfx, NULL, 10, 0, &rr, &e));
    assert_int_equal(rr.count, 10);
    assert_int_equal(rr.more, 0);
    store_range_free(&rr);
    OK(store_range(f->st, f->pfx, NULL, 9, 0, &rr, &e));
    assert_int_equal(rr.count, 9);
    assert_int_equal(rr.more, 1);
    store_range_free(&rr);
    OK(store_range(f->st, f->pfx, K(f, "k99"), 0, 0, &rr, &e));
    assert_int_equal(rr.count, 0);
    assert_int_equal(rr.more, 0);
    store_range_free(&rr);
    OK(store_range(f->st, f->pfx, K(f, "k0"), 2, 0, &rr, &e));
    assert_int_equal(rr.count, 2);
    assert_string_equal(rr.kvs[0].key, K(f, "k00"));
    store_range_free(&rr);
}

static void test_range_old_revision(void **state)
{
    fx *f = begin(state, "oldrev");
    rd_err e = { 0 };
    store_range_result rr;
    put_s(f->st, K(f, "a"), "a1");
    put_s(f->st, K(f, "b"), "b1");
    int64_t r1 = rev_of(f->st);
    put_s(f->st, K(f, "a"), "a2");
    OK(store_delete(f->st, K(f, "b"), &e));
    put_s(f->st, K(f, "c"), "c1");

    OK(store_range(f->st, f->pfx, NULL, 0, r1, &rr, &e));
    assert_int_equal(rr.revision, r1);
    assert_int_equal(rr.count, 2);
    assert_string_equal(rr.kvs[0].key, K(f, "a"));
    assert_string_equal(rr.kvs[0].value, "a1");
    assert_int_equal(rr.kvs[0].version, 1);
    assert_true(rr.kvs[0].mod_revision <= r1);
    assert_string_equal(rr.kvs[1].key, K(f, "b"));
    assert_string_equal(rr.kvs[1].value, "b1");
    store_range_free(&rr);

    OK(store_range(f->st, f->pfx, NULL, 1, r1, &rr, &e));
    assert_int_equal(rr.count, 1);
    assert_int_equal(rr.more, 1);
    store_range_free(&rr);

    OK(store_range(f->st, f->pfx, NULL, 0, 0, &rr, &e));
    assert_int_equal(rr.count, 2);
    assert_string_equal(rr.kvs[0].value, "a2");
    assert_int_equal(rr.kvs[0].version, 2);
    assert_string_equal(rr.kvs[1].key, K(f, "c"));
    store_range_free(&rr);

    FAILS(RD_EINVAL, store_range(f->st, f->pfx, NULL, 0, rev_of(f->st) + 100, &rr, &e));
}

static void test_compacted_revision(void **state)
{
    fx *f = begin(state, "compact");
    rd_err e = { 0 };
    store_range_result rr;
    store_watch *w = NULL;
    put_s(f->st, K(f, "a"), "1");
    int64_t r1 = rev_of(f->st);
    put_s(f->st, K(f, "a"), "2");
    int64_t r2 = rev_of(f->st);
    put_s(f->st, K(f, "b"), "1");
    int64_t r3 = rev_of(f->st);
    OK(store_delete(f->st, K(f, "b"), &e));

    FAILS(RD_EINVAL, store_compact(f->st, rev_of(f->st) + 100, &e));
    OK(store_compact(f->st, r3, &e));
    FAILS(RD_EINVAL, store_range(f->st, f->pfx, NULL, 0, r1, &rr, &e));
    FAILS(RD_EINVAL, store_range(f->st, f->pfx, NULL, 0, r2, &rr, &e));

    /* the compacted revision itself is still readable */
    OK(store_range(f->st, f->pfx, NULL, 0, r3, &rr, &e));
    assert_int_equal(rr.count, 2);
    assert_string_equal(rr.kvs[0].value, "2");
    assert_string_equal(rr.kvs[1].key, K(f, "b"));
    store_range_free(&rr);
    OK(store_range(f->st, f->pfx, NULL, 0, 0, &rr, &e));
    assert_int_equal(rr.count, 1);
    assert_string_equal(rr.kvs[0].value, "2");
    store_range_free(&rr);

    /* a watch that would start below it is refused (at open or first poll) */
    rd_code rc = store_watch_open(f->st, f->pfx, r1, &w, &e);
    if (rc == RD_OK) {
        store_event *ev = NULL;
        size_t n = 0;
        rc = store_watch_next(w, 1000, &ev, &n, &e);
        store_events_free(ev, n);
        store_watch_close(w);
    }
    assert_int_equal(rc, RD_EINVAL);
}

/* ---- leases -------------------------------------------------------------- */

static void test_lease_grant_keepalive(void **state)
{
    fx *f = begin(state, "lease");
    rd_err e = { 0 };
    int64_t id = 0, id2 = 0, ttl = 0;
    OK(store_lease_grant(f->st, 30, &id, &e));
    OK(store_lease_grant(f->st, 30, &id2, &e));
    assert_true(id != 0);
    assert_true(id2 != 0 && id2 != id);
    OK(store_put(f->st, K(f, "k"), "v", 1, id, &e));
    store_kv kv = get_kv(f->st, K(f, "k"), 1);
    assert_int_equal(kv.lease, id);
    store_kv_free(&kv);
    OK(store_lease_keepalive(f->st, id, &ttl, &e));
    assert_int_equal(ttl, 30);
    OK(store_lease_keepalive(f->st, id, NULL, &e));
    /* a heartbeat (keepalive) and asking the time left make no revision */
    int64_t rev0 = 0, rev1 = 0, left = 0, granted = 0;
    OK(store_revision(f->st, &rev0, &e));
    OK(store_lease_keepalive(f->st, id, NULL, &e));
    OK(store_lease_ttl(f->st, id, &left, &granted, &e));
    OK(store_revision(f->st, &rev1, &e));
    assert_int_equal(rev0, rev1);
    assert_int_equal(granted, 30);
    assert_true(left >= 1 && left <= 30);
    /* a put without a lease detaches the key */
    put_s(f->st, K(f, "k"), "v2");
    kv = get_kv(f->st, K(f, "k"), 1);
    assert_int_equal(kv.lease, 0);
    store_kv_free(&kv);
    OK(store_lease_revoke(f->st, id, &e));
    assert_value(f->st, K(f, "k"), "v2");
    OK(store_lease_revoke(f->st, id2, &e));
}

static void test_lease_revoke(void **state)
{
    fx *f = begin(state, "revoke");
    rd_err e = { 0 };
    int64_t id = 0;
    OK(store_lease_grant(f->st, 60, &id, &e));
    OK(store_put(f->st, K(f, "a"), "1", 1, id, &e));
    OK(store_put(f->st, K(f, "b"), "2", 1, id, &e));
    put_s(f->st, K(f, "free"), "3");
    int64_t r0 = rev_of(f->st);
    OK(store_lease_revoke(f->st, id, &e));
    assert_int_equal(rev_of(f->st), r0 + 1);
    get_kv(f->st, K(f, "a"), 0);
    get_kv(f->st, K(f, "b"), 0);
    assert_value(f->st, K(f, "free"), "3");
    FAILS(RD_ENOTFOUND, store_lease_keepalive(f->st, id, NULL, &e));
    FAILS(RD_ENOTFOUND, store_lease_revoke(f->st, id, &e));
    int64_t left = 0;
    FAILS(RD_ENOTFOUND, store_lease_ttl(f->st, id, &left, NULL, &e));
    FAILS(RD_ENOTFOUND, store_lease_keepalive(f->st, 0x5eed1e55c0ffeeLL, NULL, &e));
    FAILS(RD_ENOTFOUND, store_lease_revoke(f->st, 0x5eed1e55c0ffeeLL, &e));
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
        ;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Appends events to *all until it holds want of them or timeout_ms passes. */
static size_t collect(store_watch *w, store_event **all, size_t have, size_t want, int timeout_ms)
{
    rd_err e = { 0 };
    int64_t deadline = now_ms() + timeout_ms;
    while (have < want && now_ms() < deadline) {
        store_event *ev = NULL;
        size_t n = 0;
        OK(store_watch_next(w, 100, &ev, &n, &e));
        if (n) {
            store_event *grown = realloc(*all, (have + n) * sizeof *grown);
            assert_non_null(grown);
            *all = grown;
            memcpy(grown + have, ev, n * sizeof *ev);
            have += n;
        }
        free(ev);   /* its kvs now belong to *all */
    }
    return have;
}

static void test_lease_expiry(void **state)
{
    fx *f = begin(state, "expiry");
    rd_err e = { 0 };
    int64_t id = 0;
    store_watch *w = NULL;
    store_event *ev = NULL;
    OK(store_lease_grant(f->st, 1, &id, &e));
    OK(store_put(f->st, K(f, "k"), "v", 1, id, &e));
    OK(store_watch_open(f->st, f->pfx, 0, &w, &e));
    store_kv kv = get_kv(f->st, K(f, "k"), 1);
    int64_t put_rev = kv.mod_revision;
    store_kv_free(&kv);

    sleep_ms(2500);
    /* backends may expire a little late (etcd rounds small TTLs up): allow 5 s more */
    int64_t deadline = now_ms() + 5000;
    for (;;) {
        int found = 0;
        OK(store_get(f->st, K(f, "k"), &kv, &found, NULL, &e));
        store_kv_free(&kv);
        if (!found)
            break;
        if (now_ms() > deadline)
            fail_msg("key with an expired lease is still there");
        sleep_ms(100);
    }
    FAILS(RD_ENOTFOUND, store_lease_keepalive(f->st, id, NULL, &e));

    size_t n = collect(w, &ev, 0, 1, 3000);
    assert_int_equal(n, 1);
    assert_int_equal(ev[0].type, STORE_EVENT_DELETE);
    assert_string_equal(ev[0].kv.key, K(f, "k"));
    assert_true(ev[0].kv.mod_revision > put_rev);
    store_events_free(ev, n);
    store_watch_close(w);
}

static void test_lease_unknown_put(void **state)
{
    fx *f = begin(state, "badlease");
    rd_err e = { 0 };
    store_txn_result res;
    int64_t id = 0;
    /* a real lease, revoked, is as unknown as one never granted */
    OK(store_lease_grant(f->st, 30, &id, &e));
    OK(store_lease_revoke(f->st, id, &e));
    int64_t r0 = rev_of(f->st);
    FAILS(RD_EINVAL, store_put(f->st, K(f, "k"), "v", 1, id, &e));
    FAILS(RD_EINVAL, store_put(f->st, K(f, "k"), "v", 1, 0x5eed1e55c0ffeeLL, &e));
    store_op ops[] = { op_put(K(f, "a"), "1", 0), op_put(K(f, "b"), "2", id),
                       op_del(STORE_OP_DELETE_PREFIX, f->pfx) };
    put_s(f->st, K(f, "keep"), "x");
    r0 = rev_of(f->st);
    FAILS(RD_EINVAL, store_txn(f->st, NULL, 0, ops, 3, NULL, 0, &res, &e));
    assert_int_equal(rev_of(f->st), r0);
    get_kv(f->st, K(f, "a"), 0);
    get_kv(f->st, K(f, "b"), 0);
    get_kv(f->st, K(f, "k"), 0);
    assert_value(f->st, K(f, "keep"), "x");
}

/* ---- watch --------------------------------------------------------------- */

static void test_watch_events(void **state)
{
    fx *f = begin(state, "watch");
    rd_err e = { 0 };
    store_watch *w = NULL;
    store_event *ev = NULL;
    OK(store_watch_open(f->st, K(f, "w/"), 0, &w, &e));
    put_s(f->st, K(f, "w/a"), "1");
    put_s(f->st, K(f, "wx"), "not watched");
    put_s(f->st, K(f, "w/b"), "2");
    OK(store_delete(f->st, K(f, "w/a"), &e));
    put_s(f->st, K(f, "w/b"), "3");

    size_t n = collect(w, &ev, 0, 4, 5000);
    assert_int_equal(n, 4);
    assert_int_equal(ev[0].type, STORE_EVENT_PUT);
    assert_string_equal(ev[0].kv.key, K(f, "w/a"));
    assert_string_equal(ev[0].kv.value, "1");
    assert_int_equal(ev[0].kv.version, 1);
    assert_int_equal(ev[1].type, STORE_EVENT_PUT);
    assert_string_equal(ev[1].kv.key, K(f, "w/b"));
    assert_int_equal(ev[1].kv.mod_revision, ev[0].kv.mod_revision + 2);
    assert_int_equal(ev[2].type, STORE_EVENT_DELETE);
    assert_string_equal(ev[2].kv.key, K(f, "w/a"));
    assert_int_equal(ev[2].kv.mod_revision, ev[1].kv.mod_revision + 1);
    assert_int_equal(ev[3].type, STORE_EVENT_PUT);
    assert_string_equal(ev[3].kv.value, "3");
    assert_int_equal(ev[3].kv.version, 2);
    assert_int_equal(ev[3].kv.create_revision, ev[1].kv.mod_revision);
    store_events_free(ev, n);

    /* each event exactly once: nothing more is pending */
    ev = NULL;
    n = collect(w, &ev, 0, 1, 300);
    assert_int_equal(n, 0);
    free(ev);

    /* one txn's events share a revision */
    store_op ops[] = { op_put(K(f, "w/c"), "c", 0), op_del(STORE_OP_DELETE, K(f, "w/b")) };
    OK(store_txn(f->st, NULL, 0, ops, 2, NULL, 0, NULL, &e));
    ev = NULL;
    n = collect(w, &ev, 0, 2, 5000);
    assert_int_equal(n, 2);
    assert_int_equal(ev[0].kv.mod_revision, ev[1].kv.mod_revision);
    store_events_free(ev, n);
    store_watch_close(w);
}

static void test_watch_prefix_filter(void **state)
{
    fx *f = begin(state, "wfilter");
    rd_err e = { 0 };
    store_watch *w = NULL;
    store_event *ev = NULL;
    OK(store_watch_open(f->st, K(f, "x/"), 0, &w, &e));
    put_s(f->st, K(f, "x"), "no");
    put_s(f->st, K(f, "xy"), "no");
    put_s(f->st, K(f, "y/1"), "no");
    put_s(f->st, K(f, "x/1"), "yes");
    size_t n = collect(w, &ev, 0, 2, 1000);
    assert_int_equal(n, 1);
    assert_string_equal(ev[0].kv.key, K(f, "x/1"));
    store_events_free(ev, n);
    store_watch_close(w);
}

static void test_watch_timeout(void **state)
{
    fx *f = begin(state, "wtimeout");
    rd_err e = { 0 };
    store_watch *w = NULL;
    store_event *ev = NULL;
    size_t n = 99;
    OK(store_watch_open(f->st, f->pfx, 0, &w, &e));
    int64_t t0 = now_ms();
    OK(store_watch_next(w, 200, &ev, &n, &e));
    int64_t took = now_ms() - t0;
    assert_int_equal(n, 0);
    assert_null(ev);
    assert_true(took >= 150);
    assert_true(took < 3000);
    store_watch_close(w);
}

static void test_watch_replay(void **state)
{
    fx *f = begin(state, "wreplay");
    rd_err e = { 0 };
    store_watch *w = NULL;
    store_event *ev = NULL;
    int64_t r0 = rev_of(f->st);
    put_s(f->st, K(f, "a"), "1");
    put_s(f->st, K(f, "b"), "1");
    OK(store_delete(f->st, K(f, "a"), &e));
    int64_t r3 = rev_of(f->st);

    OK(store_watch_open(f->st, f->pfx, r0, &w, &e));
    size_t n = collect(w, &ev, 0, 3, 5000);
    assert_int_equal(n, 3);
    assert_int_equal(ev[0].kv.mod_revision, r0 + 1);
    assert_int_equal(ev[2].type, STORE_EVENT_DELETE);
    assert_int_equal(ev[2].kv.mod_revision, r3);
    store_events_free(ev, n);
    store_watch_close(w);

    /* from the middle of history */
    ev = NULL;
    OK(store_watch_open(f->st, f->pfx, r0 + 1, &w, &e));
    n = collect(w, &ev, 0, 2, 5000);
    assert_int_equal(n, 2);
    assert_string_equal(ev[0].kv.key, K(f, "b"));
    store_events_free(ev, n);
    store_watch_close(w);

    /* after_rev 0 means from now on: no replay */
    ev = NULL;
    OK(store_watch_open(f->st, f->pfx, 0, &w, &e));
    n = collect(w, &ev, 0, 1, 300);
    assert_int_equal(n, 0);
    put_s(f->st, K(f, "c"), "1");
    n = collect(w, &ev, 0, 1, 5000);
    assert_int_equal(n, 1);
    assert_string_equal(ev[0].kv.key, K(f, "c"));
    store_events_free(ev, n);
    store_watch_close(w);
}


/* The events of the fixture's keys among a history read, checked to lie in
 * (after, upto] and in revision order. */
static size_t own_events(fx *f, store_event *ev, size_t n, int64_t after, int64_t upto, store_event **own)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        assert_true(ev[i].kv.mod_revision > after && ev[i].kv.mod_revision <= upto);
        if (i)
            assert_true(ev[i].kv.mod_revision >= ev[i - 1].kv.mod_revision);
        if (strncmp(ev[i].kv.key, f->pfx, strlen(f->pfx)) == 0)
            own[k++] = &ev[i];
    }
    return k;
}

/* A one-off read of the history between two revisions: exactly those
 * events, a cap that tells the caller to give up, and compacted history
 * refused. */
static void test_history(void **state)
{
    fx *f = begin(state, "history");
    rd_err e = { 0 };
    store_event *ev = NULL, *own[16];
    size_t n = 0;
    int more = 0;
    int64_t r0 = rev_of(f->st);
    put_s(f->st, K(f, "a"), "1");
    put_s(f->st, K(f, "b"), "2");
    OK(store_delete(f->st, K(f, "a"), &e));
    int64_t r3 = rev_of(f->st);
    put_s(f->st, K(f, "c"), "3");   /* after the window: not read */

    OK(store_history(f->st, r0, r3, 100, 5000, &ev, &n, &more, &e));
    assert_int_equal(more, 0);
    assert_int_equal(own_events(f, ev, n, r0, r3, own), 3);
    assert_string_equal(own[0]->kv.key, K(f, "a"));
    assert_int_equal(own[0]->type, STORE_EVENT_PUT);
    assert_string_equal(own[1]->kv.key, K(f, "b"));
    assert_int_equal(own[2]->type, STORE_EVENT_DELETE);
    assert_int_equal(own[2]->kv.mod_revision, r3);
    store_events_free(ev, n);

    OK(store_history(f->st, r0 + 1, r0 + 2, 100, 5000, &ev, &n, &more, &e));
    assert_int_equal(own_events(f, ev, n, r0 + 1, r0 + 2, own), 1);
    assert_string_equal(own[0]->kv.value, "2");
    store_events_free(ev, n);

    OK(store_history(f->st, r3, r3, 100, 5000, &ev, &n, &more, &e));
    assert_int_equal(n, 0);
    OK(store_history(f->st, r0, r3, 1, 5000, &ev, &n, &more, &e));
    assert_int_equal(more, 1);
    assert_int_equal(n, 0);
    assert_null(ev);

    OK(store_compact(f->st, r3, &e));
    FAILS(RD_EINVAL, store_history(f->st, r0, r3, 100, 5000, &ev, &n, &more, &e));
    assert_int_equal(n, 0);
}

/* ---- history against a model ---------------------------------------------- */

enum { MODEL_KEYS = 6, MODEL_STEPS = 160, MODEL_MAX = 400 };

static const char *const model_names[MODEL_KEYS] = { "a0", "a1", "b0", "b1", "b2", "c0" };

typedef struct {
    int live;
    char value[32];
    int64_t create_rev, mod_rev, version;
} model_key;

typedef struct {
    int64_t rev;
    model_key k[MODEL_KEYS];
} model_snap;

/* Reads the prefix at rev in pages of `page` (0: at once) and checks each
 * key against the model's state at that revision. */
static void model_check_at(fx *f, const model_snap *s, size_t page)
{
    rd_err e = { 0 };
    store_range_result rr;
    char after[256] = "";
    int seen = 0, i = 0;
    for (;;) {
        OK(store_range(f->st, f->pfx, *after ? after : NULL, page, s->rev, &rr, &e));
        assert_int_equal(rr.revision, s->rev);
        for (size_t j = 0; j < rr.count; j++, seen++) {
            while (i < MODEL_KEYS && !s->k[i].live)
                i++;
            if (i == MODEL_KEYS)
                fail_msg("rev %lld: %s is not in the model", (long long)s->rev, rr.kvs[j].key);
            if (strcmp(rr.kvs[j].key, K(f, model_names[i])) != 0 || strcmp(rr.kvs[j].value, s->k[i].value) != 0 ||
                rr.kvs[j].create_revision != s->k[i].create_rev || rr.kvs[j].mod_revision != s->k[i].mod_rev ||
                rr.kvs[j].version != s->k[i].version)
                fail_msg("rev %lld: got %s=%s (%lld/%lld/v%lld), model %s=%s (%lld/%lld/v%lld)", (long long)s->rev,
                         rr.kvs[j].key, rr.kvs[j].value, (long long)rr.kvs[j].create_revision,
                         (long long)rr.kvs[j].mod_revision, (long long)rr.kvs[j].version, model_names[i],
                         s->k[i].value, (long long)s->k[i].create_rev, (long long)s->k[i].mod_rev,
                         (long long)s->k[i].version);
            snprintf(after, sizeof after, "%s", rr.kvs[j].key);
            i++;
        }
        int more = rr.more;
        store_range_free(&rr);
        if (!more)
            break;
    }
    while (i < MODEL_KEYS && !s->k[i].live)
        i++;
    if (i != MODEL_KEYS)
        fail_msg("rev %lld: %s is missing (%d keys read)", (long long)s->rev, model_names[i], seen);
}

/* One random write (a put, two puts in one txn, a delete, a prefix delete)
 * applied to the store and to the model. */
static void model_step(fx *f, model_key *m, unsigned *seed, int step)
{
    rd_err e = { 0 };
    store_txn_result res;
    char v1[32], v2[32];
    int a = rand_r(seed) % MODEL_KEYS, b = (a + 1 + rand_r(seed) % (MODEL_KEYS - 1)) % MODEL_KEYS;
    int kind = rand_r(seed) % 10;
    snprintf(v1, sizeof v1, "v%d", step);
    snprintf(v2, sizeof v2, "w%d", step);
    int64_t before = rev_of(f->st);
    if (kind < 5) {
        put_s(f->st, K(f, model_names[a]), v1);
    } else if (kind < 7) {
        store_op ops[2] = { op_put(K(f, model_names[a]), v1, 0), op_put(K(f, model_names[b]), v2, 0) };
        OK(store_txn(f->st, NULL, 0, ops, 2, NULL, 0, &res, &e));
    } else if (kind < 9) {
        OK(store_delete(f->st, K(f, model_names[a]), &e));
    } else {
        char p[8];
        snprintf(p, sizeof p, "%c", model_names[a][0]);
        store_op dp = op_del(STORE_OP_DELETE_PREFIX, K(f, p));
        OK(store_txn(f->st, NULL, 0, &dp, 1, NULL, 0, &res, &e));
    }
    int64_t rev = rev_of(f->st);
    if (rev == before)
        return;   /* a delete of nothing */
    for (int i = 0; i < MODEL_KEYS; i++) {
        int put = (kind < 7 && i == a) || (kind >= 5 && kind < 7 && i == b);
        int del = (kind == 7 || kind == 8) ? i == a : kind == 9 && model_names[i][0] == model_names[a][0];
        if (put) {
            snprintf(m[i].value, sizeof m[i].value, "%s", i == a ? v1 : v2);
            if (!m[i].live)
                m[i].create_rev = rev, m[i].version = 0;
            m[i].live = 1;
            m[i].mod_rev = rev;
            m[i].version++;
        } else if (del) {
            m[i].live = 0;
        }
    }
}

/* Random writes to six keys (puts, two-key txns, deletes, prefix deletes,
 * re-creation); a read at every revision since, whole and in pages of 2,
 * must give the model's state at that revision, before and after two
 * compactions, with writes between them. */
static void test_range_history_model(void **state)
{
    fx *f = begin(state, "model");
    rd_err e = { 0 };
    store_range_result rr;
    static model_snap snaps[MODEL_MAX];
    model_key m[MODEL_KEYS] = { 0 };
    unsigned seed = 20261125;
    int n = 0;
    snaps[n].rev = rev_of(f->st);
    memcpy(snaps[n++].k, m, sizeof m);
    for (int round = 0; round < 3; round++) {
        for (int step = 0; step < MODEL_STEPS / 2 && n < MODEL_MAX; step++) {
            model_step(f, m, &seed, round * 1000 + step);
            snaps[n].rev = rev_of(f->st);
            memcpy(snaps[n++].k, m, sizeof m);
        }
        int64_t compact = snaps[n / 2 + n / 4].rev;   /* somewhere in the later part */
        for (int i = 0; i < n; i++) {
            model_check_at(f, &snaps[i], 0);
            model_check_at(f, &snaps[i], 2);
        }
        if (round == 2)
            break;
        OK(store_compact(f->st, compact, &e));
        int keep = 0;
        for (int i = 0; i < n; i++)
            if (snaps[i].rev >= compact)
                snaps[keep++] = snaps[i];
            else if (i + 1 < n && snaps[i + 1].rev < compact)
                FAILS(RD_EINVAL, store_range(f->st, f->pfx, NULL, 0, snaps[i].rev, &rr, &e));
        n = keep;
    }
}

/* Whether some watch registration names exactly revision need. */
static int registered(store_t *st, int64_t need)
{
    rd_err e = { 0 };
    store_range_result rr;
    char want[64];
    int hit = 0;
    snprintf(want, sizeof want, "\"revision\":%lld,", (long long)need);
    OK(store_range(st, STORE_WATCHERS_PREFIX, NULL, 0, 0, &rr, &e));
    for (size_t i = 0; i < rr.count; i++)
        hit |= strstr(rr.kvs[i].value, want) != NULL;
    store_range_free(&rr);
    return hit;
}

/* A live watch registers the revision it needs; the compaction policy stops
 * there, the watch still gets every event; once closed, nothing holds it. */
static void test_watch_holds_compaction(void **state)
{
    fx *f = begin(state, "wreg");
    rd_err e = { 0 };
    store_watch *w = NULL;
    store_event *ev = NULL;
    store_compact_report rep;
    store_retention keep = { 1, 0, 0 };
    put_s(f->st, K(f, "a"), "0");
    int64_t r0 = rev_of(f->st);
    OK(store_watch_open(f->st, f->pfx, r0, &w, &e));
    assert_true(registered(f->st, r0 + 1));
    put_s(f->st, K(f, "a"), "1");
    put_s(f->st, K(f, "b"), "2");
    OK(store_compact_run(f->st, &keep, 0, &rep, &e));
    assert_true(rep.watchers >= 1);
    assert_true(rep.oldest_watch >= 1 && rep.oldest_watch <= r0 + 1);
    assert_true(rep.compacted <= r0 + 1);
    assert_true(rep.by_count > r0 + 1);
    size_t n = collect(w, &ev, 0, 2, 5000);
    assert_int_equal(n, 2);
    assert_string_equal(ev[0].kv.value, "1");
    assert_true(ev[0].kv.mod_revision > r0);
    assert_string_equal(ev[1].kv.value, "2");
    store_events_free(ev, n);
    store_watch_close(w);
    assert_false(registered(f->st, r0 + 1));

    OK(store_compact_run(f->st, &keep, 0, &rep, &e));
    assert_true(rep.compacted > r0 + 1);
    rd_code rc = store_watch_open(f->st, f->pfx, r0, &w, &e);
    if (rc == RD_OK) {
        ev = NULL;
        n = 0;
        rc = store_watch_next(w, 1000, &ev, &n, &e);
        store_events_free(ev, n);
        store_watch_close(w);
    }
    assert_int_equal(rc, RD_EINVAL);
    assert_non_null(strstr(e.msg, "compacted"));
    assert_false(registered(f->st, r0 + 1));   /* a refused watch leaves no registration */
    OK(store_delete(f->st, STORE_COMPACTION_KEY, &e));
}

/* ---- several processes --------------------------------------------------- */

typedef int (*child_fn)(store_t *st, int idx, const char *key, rd_err *e);

enum { CAS_N = 200, DISTINCT_N = 100 };

static int child_cas(store_t *st, int idx, const char *key, rd_err *e)
{
    (void)idx;
    for (int i = 0; i < CAS_N; i++) {
        for (int tries = 0;; tries++) {
            store_kv kv;
            store_txn_result res;
            int found = 0;
            char buf[32];
            if (tries > 100000)
                return rd_fail(e, RD_ECONFLICT, "CAS on %s never succeeded", key);
            if (store_get(st, key, &kv, &found, NULL, e) != RD_OK)
                return e->code;
            long v = found ? strtol(kv.value, NULL, 10) : 0;
            int64_t mod = found ? kv.mod_revision : 0;
            store_kv_free(&kv);
            int len = snprintf(buf, sizeof buf, "%ld", v + 1);
            store_cmp c = cmp_num(key, STORE_CMP_MOD_REVISION, STORE_CMP_EQUAL, mod);
            store_op op = { STORE_OP_PUT, key, buf, (size_t)len, 0 };
            if (store_txn(st, &c, 1, &op, 1, NULL, 0, &res, e) != RD_OK)
                return e->code;
            if (res.succeeded)
                break;
        }
    }
    return 0;
}

static int child_distinct(store_t *st, int idx, const char *prefix, rd_err *e)
{
    char key[300];
    for (int i = 0; i < DISTINCT_N; i++) {
        snprintf(key, sizeof key, "%sw%d/%03d", prefix, idx, i);
        if (store_put(st, key, key, strlen(key), 0, e) != RD_OK)
            return e->code;
    }
    return 0;
}

/* Forks n children that each open their own store handle and run fn;
 * asserts every one exited 0, reporting a child's error message if not. */
static void run_children(int n, child_fn fn, const char *key)
{
    pid_t pids[8];
    int fds[8];
    fflush(NULL);   /* children must not repeat buffered output */
    for (int i = 0; i < n; i++) {
        int p[2];
        assert_int_equal(pipe(p), 0);
        pids[i] = fork();
        assert_true(pids[i] >= 0);
        if (pids[i] == 0) {
            rd_err e = { 0 };
            store_t *st = NULL;
            close(p[0]);
            int rc = store_open(g_url, NULL, &st, &e);
            if (rc == RD_OK)
                rc = fn(st, i, key, &e);
            store_close(st);
            if (rc != 0 && write(p[1], e.msg, strlen(e.msg)) < 0)
                rc = 100;
            _exit(rc == 0 ? 0 : 10 + rc);
        }
        close(p[1]);
        fds[i] = p[0];
    }
    char msg[600] = "";
    int bad = -1, bad_status = 0;
    for (int i = 0; i < n; i++) {
        int status = 0;
        if (waitpid(pids[i], &status, 0) != pids[i])
            status = -1;
        if (bad < 0 && (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
            ssize_t got = read(fds[i], msg, sizeof msg - 1);
            msg[got > 0 ? got : 0] = '\0';
            bad = i;
            bad_status = status;
        }
        close(fds[i]);
    }
    if (bad >= 0)
        fail_msg("child %d: wait status %d: %s", bad, bad_status, msg);
}

static void cas_test(void **state, const char *name, int n)
{
    fx *f = begin(state, name);
    const char *key = K(f, "counter");
    run_children(n, child_cas, key);
    store_kv kv = get_kv(f->st, key, 1);
    char want[32];
    snprintf(want, sizeof want, "%d", n * CAS_N);
    assert_string_equal(kv.value, want);
    assert_int_equal(kv.version, n * CAS_N);
    store_kv_free(&kv);
}

static void test_multiprocess_cas_2(void **state)
{
    cas_test(state, "cas2", 2);
}

static void test_multiprocess_cas_4(void **state)
{
    cas_test(state, "cas4", 4);
}

static void test_multiprocess_distinct_keys(void **state)
{
    fx *f = begin(state, "distinct");
    rd_err e = { 0 };
    store_range_result rr;
    int64_t r0 = rev_of(f->st);
    run_children(4, child_distinct, f->pfx);
    OK(store_range(f->st, f->pfx, NULL, 0, 0, &rr, &e));
    assert_int_equal(rr.count, 4 * DISTINCT_N);
    for (size_t i = 0; i < rr.count; i++)
        assert_string_equal(rr.kvs[i].key, rr.kvs[i].value);
    assert_true(rr.revision >= r0 + 4 * DISTINCT_N);
    store_range_free(&rr);
}

/* ---- errors -------------------------------------------------------------- */

static void test_open_errors(void **state)
{
    fx *f = begin(state, "errors");
    rd_err e = { 0 };
    store_t *st = (store_t *)&e;
    assert_string_equal(store_url(f->st), g_url);
    FAILS(RD_EINVAL, store_compact(f->st, rev_of(f->st) + 1, &e));
    if (!g_is_sqlite)
        return;
    char url[128];
    snprintf(url, sizeof url, "sqlite:/nonexistent-dir-%ld/x.db", (long)getpid());
    FAILS(RD_ESTORE, store_open(url, NULL, &st, &e));
    assert_null(st);
    assert_non_null(strstr(e.msg, "cannot open"));
}

/* The URL grammar of store_open (store.c's registry of backends). */
static void test_url_grammar(void **state)
{
    (void)begin(state, "url");
    rd_err e = { 0 };
    store_t *st = (store_t *)&e;
    FAILS(RD_EUSAGE, store_open("", NULL, &st, &e));
    assert_null(st);
    assert_string_equal(e.msg, "store: the store URL is empty");
    FAILS(RD_EUSAGE, store_open("redis://127.0.0.1:1", NULL, &st, &e));
    assert_string_equal(e.msg,
                        "store redis://127.0.0.1:1: unknown scheme (use sqlite:PATH, a path, etcd:// or etcds://)");
    FAILS(RD_EUSAGE, store_open("sqlite:", NULL, &st, &e));
    assert_string_equal(e.msg, "store sqlite:: the path is empty");
    assert_null(st);
}

/* Stale reads are only ever served without a quorum, so on a healthy store
 * allowing them changes nothing and no read is stale (SQLite: a no-op). */
static void test_stale_reads_flag(void **state)
{
    fx *f = begin(state, "stale");
    rd_err e = { 0 };
    OK(store_put(f->st, K(f, "a"), "1", 1, 0, &e));
    store_allow_stale_reads(f->st, 1);
    store_kv kv = get_kv(f->st, K(f, "a"), 1);
    assert_memory_equal(kv.value, "1", 2);
    store_kv_free(&kv);
    assert_int_equal(store_last_read_stale(f->st), 0);
    store_allow_stale_reads(f->st, 0);
    assert_int_equal(store_last_read_stale(f->st), 0);
    store_allow_stale_reads(NULL, 1);   /* no handle: nothing to do */
    assert_int_equal(store_last_read_stale(NULL), 0);
}

/* The capabilities a backend declares are the ones it has: its txn limit
 * refuses one op more (and nothing lands) while half of it commits; a store
 * without users refuses user administration.  SQLite declares none of
 * them, etcd all three. */
static void test_caps_declared(void **state)
{
    fx *f = begin(state, "caps");
    rd_err e = { 0 };
    const store_caps *c = store_caps_get(f->st);
    assert_non_null(c);
    assert_int_equal(c->txn_ops_max, g_is_sqlite ? 0 : 128);
    assert_int_equal(c->authenticates, !g_is_sqlite);
    assert_int_equal(c->shared, !g_is_sqlite);

    size_t big = c->txn_ops_max ? c->txn_ops_max + 1 : 1000, fits = c->txn_ops_max ? c->txn_ops_max / 2 : big;
    store_op *ops = calloc(big, sizeof *ops);
    char (*keys)[192] = calloc(big, sizeof *keys);
    assert_true(ops && keys);
    for (size_t i = 0; i < big; i++) {
        snprintf(keys[i], sizeof keys[i], "%sk%04zu", f->pfx, i);
        ops[i] = (store_op){ STORE_OP_PUT, keys[i], "v", 1, 0 };
    }
    store_txn_result res;
    int64_t before = rev_of(f->st);
    if (c->txn_ops_max) {
        FAILS(RD_EINVAL, store_txn(f->st, NULL, 0, ops, big, NULL, 0, &res, &e));
        assert_int_equal(rev_of(f->st), before);
    }
    OK(store_txn(f->st, NULL, 0, ops, fits, NULL, 0, &res, &e));
    assert_true(res.succeeded);
    assert_int_equal(res.revision, before + 1);
    free(ops);
    free(keys);

    if (!c->authenticates) {
        json_t *req = json_object();
        FAILS(RD_EINVAL, store_auth(f->st, "user/list", req, NULL, &e));
        json_decref(req);
        assert_null(store_identity(f->st));
    }
}

int main(int argc, char **argv)
{
    char dir[256] = "", url[512];
    g_url = argc > 1 ? argv[1] : getenv("RIGDECK_TEST_STORE");
    if (!g_url || !*g_url) {
        testutil_tmpdir(dir, sizeof dir);
        snprintf(url, sizeof url, "sqlite:%s/conf.db", dir);
        g_url = url;
    }
    g_is_sqlite = strncmp(g_url, "sqlite:", 7) == 0 || !strstr(g_url, "://");
    g_nonce = (unsigned)time(NULL) ^ ((unsigned)getpid() << 16);

    const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
        T(test_get_missing_present),
        T(test_get_many),
        T(test_put_metadata),
        T(test_delete_resets),
        T(test_txn_one_revision),
        T(test_txn_noop),
        T(test_cmp_value),
        T(test_cmp_version),
        T(test_cmp_mod_revision),
        T(test_cmp_create_revision),
        T(test_txn_failure_branch),
        T(test_delete_prefix),
        T(test_range_order_prefix),
        T(test_range_paging),
        T(test_range_old_revision),
        T(test_compacted_revision),
        T(test_range_history_model),
        T(test_lease_grant_keepalive),
        T(test_lease_revoke),
        T(test_lease_expiry),
        T(test_lease_unknown_put),
        T(test_watch_events),
        T(test_watch_prefix_filter),
        T(test_watch_timeout),
        T(test_watch_replay),
        T(test_watch_holds_compaction),
        T(test_history),
        T(test_multiprocess_cas_2),
        T(test_multiprocess_cas_4),
        T(test_multiprocess_distinct_keys),
        T(test_open_errors),
        T(test_url_grammar),
        T(test_stale_reads_flag),
        T(test_caps_declared),
#undef T
    };
    int failed = cmocka_run_group_tests_name("store_conformance", tests, NULL, NULL);
    if (*dir) {
        const char *sfx[] = { "", "-wal", "-shm" };
        for (int i = 0; i < 3; i++) {
            snprintf(url, sizeof url, "%s/conf.db%s", dir, sfx[i]);
            unlink(url);
        }
        rmdir(dir);
    }
    return failed ? 1 : 0;
}
