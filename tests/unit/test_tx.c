/* Unit tests of optimistic transactions (tx.c) on a real SQLite store. */
#include "testutil.h"

#include "tx.h"

static char dir[256];

static store_t *open_store(const char *name)
{
    char url[512];
    store_t *st = NULL;
    rd_err err;
    snprintf(url, sizeof url, "sqlite:%s/%s.db", dir, name);
    assert_int_equal(store_open(url, NULL, &st, &err), RD_OK);
    return st;
}

static void test_read_your_writes(void **state)
{
    store_t *st = open_store("ryw");
    rd_tx *tx = tx_new(st);
    json_t *doc = NULL;
    rd_err err;
    (void)state;
    assert_int_equal(tx_get(tx, "/rigdeck/x/a", &doc, &err), RD_OK);
    assert_null(doc);
    assert_int_equal(tx_put(tx, "/rigdeck/x/a", json_pack("{s:i}", "n", 1), &err), RD_OK);
    assert_int_equal(tx_get(tx, "/rigdeck/x/a", &doc, &err), RD_OK);
    assert_int_equal(json_integer_value(json_object_get(doc, "n")), 1);
    json_decref(doc);
    json_t *items = NULL;
    assert_int_equal(tx_list(tx, "/rigdeck/x/", &items, &err), RD_OK);
    assert_int_equal(json_array_size(items), 1);
    json_decref(items);
    assert_int_equal(tx_commit(tx, NULL, &err), RD_OK);

    json_t *changes = tx_changes(tx);
    assert_string_equal(json_string_value(json_object_get(json_array_get(changes, 0), "object")), "x/a");
    assert_string_equal(json_string_value(json_object_get(json_array_get(changes, 0), "action")), "created");
    json_decref(changes);
    tx_free(tx);
    store_close(st);
}

static void test_conflict(void **state)
{
    store_t *st = open_store("conflict");
    rd_tx *a = tx_new(st), *b = tx_new(st);
    json_t *doc = NULL;
    rd_err err;
    (void)state;
    assert_int_equal(store_put(st, "/rigdeck/x/k", "{\"n\":0}", 7, 0, &err), RD_OK);
    assert_int_equal(tx_get(a, "/rigdeck/x/k", &doc, &err), RD_OK);
    json_decref(doc);
    assert_int_equal(tx_get(b, "/rigdeck/x/k", &doc, &err), RD_OK);
    json_decref(doc);
    assert_int_equal(tx_put(a, "/rigdeck/x/k", json_pack("{s:i}", "n", 1), &err), RD_OK);
    assert_int_equal(tx_put(b, "/rigdeck/x/k", json_pack("{s:i}", "n", 2), &err), RD_OK);
    assert_int_equal(tx_commit(a, NULL, &err), RD_OK);
    assert_int_equal(tx_commit(b, NULL, &err), RD_ECONFLICT);

    store_kv kv;
    int found;
    assert_int_equal(store_get(st, "/rigdeck/x/k", &kv, &found, NULL, &err), RD_OK);
    assert_string_equal(kv.value, "{\"n\":1}");
    store_kv_free(&kv);

    /* A guarded absence conflicts with a concurrent create. */
    tx_reset(a);
    assert_int_equal(tx_get(a, "/rigdeck/x/new", &doc, &err), RD_OK);
    assert_null(doc);
    assert_int_equal(store_put(st, "/rigdeck/x/new", "{}", 2, 0, &err), RD_OK);
    assert_int_equal(tx_put(a, "/rigdeck/x/new", json_object(), &err), RD_OK);
    assert_int_equal(tx_commit(a, NULL, &err), RD_ECONFLICT);
    tx_free(a);
    tx_free(b);
    store_close(st);
}

static void test_corrupt(void **state)
{
    store_t *st = open_store("corrupt");
    rd_tx *tx = tx_new(st);
    json_t *doc = NULL;
    rd_err err;
    (void)state;
    assert_int_equal(store_put(st, "/rigdeck/x/bad", "not json", 8, 0, &err), RD_OK);
    assert_int_equal(tx_get(tx, "/rigdeck/x/bad", &doc, &err), RD_ECORRUPT);
    assert_non_null(strstr(err.msg, "/rigdeck/x/bad"));
    tx_free(tx);
    store_close(st);
}

static void test_changes_fields(void **state)
{
    store_t *st = open_store("fields");
    rd_tx *tx = tx_new(st);
    json_t *doc = NULL;
    rd_err err;
    (void)state;
    assert_int_equal(store_put(st, "/rigdeck/nodes/n1", "{\"state\":\"active\",\"secret_key\":\"a\",\"x\":1}", 41, 0, &err), RD_OK);
    assert_int_equal(tx_get(tx, "/rigdeck/nodes/n1", &doc, &err), RD_OK);
    json_object_set_new(doc, "state", json_string("maintenance"));
    json_object_set_new(doc, "secret_key", json_string("b"));
    assert_int_equal(tx_put(tx, "/rigdeck/nodes/n1", doc, &err), RD_OK);
    json_t *changes = tx_changes(tx);
    json_t *c = json_array_get(changes, 0);
    assert_string_equal(json_string_value(json_object_get(c, "object")), "node/n1");
    assert_string_equal(json_string_value(json_object_get(c, "action")), "updated");
    assert_int_equal(json_array_size(json_object_get(c, "fields")), 1);
    assert_string_equal(json_string_value(json_array_get(json_object_get(c, "fields"), 0)), "state");
    json_decref(changes);
    tx_free(tx);
    store_close(st);
}

typedef struct {
    size_t seen;
    int64_t last_rev;
} scan_seen;

static int count_until_b(store_kv *kv, void *data)
{
    scan_seen *s = data;
    s->seen++;
    s->last_rev = kv->mod_revision;
    return strcmp(kv->key, "/rigdeck/s/b") == 0 ? RD_EINVAL : 0;
}

static int count_all(store_kv *kv, void *data)
{
    (void)kv;
    ((scan_seen *)data)->seen++;
    return 0;
}

/* tx_scan walks every key in order and stops with the callback's code;
 * tx_guard makes a commit hold only on the revision given; the handle
 * counts its commits that wrote and keeps the last revision across resets. */
static void test_scan_guard_counts(void **state)
{
    store_t *st = open_store("scan");
    rd_tx *tx = tx_new(st);
    rd_err err;
    int64_t rev = 0;
    (void)state;
    for (int i = 0; i < 1500; i++) {   /* more than one page */
        char key[64];
        snprintf(key, sizeof key, "/rigdeck/s/k%04d", i);
        assert_int_equal(store_put(st, key, "{}", 2, 0, &err), RD_OK);
    }
    assert_int_equal(store_put(st, "/rigdeck/s/b", "{\"n\":1}", 7, 0, &err), RD_OK);
    scan_seen seen = { 0, 0 };
    assert_int_equal(tx_scan(tx, "/rigdeck/s/", count_all, &seen, &rev, &err), RD_OK);
    assert_int_equal(seen.seen, 1501);
    assert_true(rev > 0);
    seen.seen = 0;
    assert_int_equal(tx_scan(tx, "/rigdeck/s/", count_until_b, &seen, NULL, &err), RD_EINVAL);
    assert_int_equal(seen.seen, 1);   /* "b" sorts before "k0000" */

    assert_int_equal(tx_commit_count(tx), 0);
    json_t *doc = json_pack("{s:i}", "n", 1);
    assert_int_equal(tx_guard(tx, "/rigdeck/s/b", doc, seen.last_rev, &err), RD_OK);
    assert_int_equal(tx_put(tx, "/rigdeck/s/b", json_pack("{s:i}", "n", 2), &err), RD_OK);
    json_t *changes = tx_changes(tx);   /* the guarded doc is the audit's before */
    assert_string_equal(json_string_value(json_object_get(json_array_get(changes, 0), "action")), "updated");
    json_decref(changes);
    assert_int_equal(tx_commit(tx, &rev, &err), RD_OK);
    assert_int_equal(tx_commit_count(tx), 1);
    assert_int_equal(tx_last_revision(tx), rev);
    tx_reset(tx);
    assert_int_equal(tx_last_revision(tx), rev);

    /* Guarded on a revision that is no longer the key's: the commit fails. */
    assert_int_equal(tx_guard(tx, "/rigdeck/s/b", doc, seen.last_rev, &err), RD_OK);
    assert_int_equal(tx_put(tx, "/rigdeck/s/b", json_pack("{s:i}", "n", 3), &err), RD_OK);
    assert_int_equal(tx_commit(tx, NULL, &err), RD_ECONFLICT);
    assert_int_equal(tx_commit_count(tx), 1);
    json_decref(doc);
    tx_free(tx);
    store_close(st);
}

/* tx_prefetch reads and guards as tx_get does: the values it read answer
 * later tx_gets, a key it found missing is guarded as missing, a key the
 * transaction wrote is not read again, and a change by another writer to
 * any prefetched key fails the commit. */
static void test_prefetch(void **state)
{
    store_t *st = open_store("prefetch");
    rd_tx *tx = tx_new(st), *other = tx_new(st);
    json_t *doc = NULL;
    rd_err err;
    (void)state;
    assert_int_equal(store_put(st, "/rigdeck/p/a", "{\"n\":1}", 7, 0, &err), RD_OK);
    assert_int_equal(store_put(st, "/rigdeck/p/b", "{\"n\":2}", 7, 0, &err), RD_OK);
    assert_int_equal(store_put(st, "/rigdeck/p/bad", "not json", 8, 0, &err), RD_OK);
    assert_int_equal(tx_put(tx, "/rigdeck/p/w", json_pack("{s:i}", "n", 9), &err), RD_OK);
    const char *keys[] = { "/rigdeck/p/a", "/rigdeck/p/b", "/rigdeck/p/none", "/rigdeck/p/a", "/rigdeck/p/w" };
    assert_int_equal(tx_prefetch(tx, keys, 5, &err), RD_OK);

    /* answered from the transaction, even after the store moved on */
    assert_int_equal(store_put(st, "/rigdeck/p/a", "{\"n\":5}", 7, 0, &err), RD_OK);
    assert_int_equal(tx_get(tx, "/rigdeck/p/a", &doc, &err), RD_OK);
    assert_int_equal(json_integer_value(json_object_get(doc, "n")), 1);
    json_decref(doc);
    assert_int_equal(tx_get(tx, "/rigdeck/p/w", &doc, &err), RD_OK);
    assert_int_equal(json_integer_value(json_object_get(doc, "n")), 9);   /* its own write, not a read */
    json_decref(doc);
    assert_int_equal(tx_get(tx, "/rigdeck/p/none", &doc, &err), RD_OK);
    assert_null(doc);
    /* a's change since the prefetch fails the commit */
    assert_int_equal(tx_commit(tx, NULL, &err), RD_ECONFLICT);

    /* a missing key guarded as missing: someone else creating it wins */
    tx_reset(tx);
    const char *none[] = { "/rigdeck/p/new" };
    assert_int_equal(tx_prefetch(tx, none, 1, &err), RD_OK);
    assert_int_equal(tx_put(tx, "/rigdeck/p/new", json_pack("{s:i}", "n", 1), &err), RD_OK);
    assert_int_equal(tx_put(other, "/rigdeck/p/new", json_pack("{s:i}", "n", 2), &err), RD_OK);
    assert_int_equal(tx_commit(other, NULL, &err), RD_OK);
    assert_int_equal(tx_commit(tx, NULL, &err), RD_ECONFLICT);

    /* nothing changed since: the commit holds */
    tx_reset(tx);
    assert_int_equal(tx_prefetch(tx, keys, 2, &err), RD_OK);
    assert_int_equal(tx_put(tx, "/rigdeck/p/b", json_pack("{s:i}", "n", 3), &err), RD_OK);
    assert_int_equal(tx_commit(tx, NULL, &err), RD_OK);

    /* a stored value that is not JSON: RD_ECORRUPT, as from tx_get */
    tx_reset(tx);
    const char *bad[] = { "/rigdeck/p/b", "/rigdeck/p/bad" };
    assert_int_equal(tx_prefetch(tx, bad, 2, &err), RD_ECORRUPT);
    assert_int_equal(tx_get(tx, "/rigdeck/p/bad", &doc, &err), RD_ECORRUPT);
    tx_free(tx);
    tx_free(other);
    store_close(st);
}

/* A put given as text: read back through the transaction (get and list),
 * written as given, recorded in the audit changes with the caller's fields
 * (secret ones left out), guarded like any put, replaced by a later put. */
static void test_put_text(void **state)
{
    store_t *st = open_store("text");
    rd_tx *tx = tx_new(st);
    json_t *doc = NULL, *items = NULL;
    rd_err err;
    store_kv kv;
    int found = 0;
    (void)state;
    assert_int_equal(store_put(st, "/rigdeck/x/k", "{\"n\":0,\"s\":\"a\"}", 15, 0, &err), RD_OK);
    assert_int_equal(tx_get(tx, "/rigdeck/x/k", &doc, &err), RD_OK);
    json_decref(doc);
    const char *text = "{\"n\":1,\"s\":\"a\"}";
    assert_int_equal(tx_put_text(tx, "/rigdeck/x/k", strdup(text), strlen(text), json_pack("[s,s]", "n", "secret_x"),
                                 &err),
                     RD_OK);
    assert_int_equal(tx_get(tx, "/rigdeck/x/k", &doc, &err), RD_OK);
    assert_int_equal(json_integer_value(json_object_get(doc, "n")), 1);
    json_decref(doc);
    assert_int_equal(tx_list(tx, "/rigdeck/x/", &items, &err), RD_OK);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(items, 0), "n")), 1);
    json_decref(items);
    json_t *changes = tx_changes(tx);
    json_t *want = json_pack("[{s:s, s:s, s:[s]}]", "object", "x/k", "action", "updated", "fields", "n");
    assert_true(json_equal(changes, want));
    json_decref(changes);
    json_decref(want);
    assert_int_equal(tx_commit(tx, NULL, &err), RD_OK);
    assert_int_equal(store_get(st, "/rigdeck/x/k", &kv, &found, NULL, &err), RD_OK);
    assert_int_equal(found, 1);
    assert_memory_equal(kv.value, text, strlen(text));
    store_kv_free(&kv);

    /* guarded: a change in between makes it conflict and writes nothing */
    tx_reset(tx);
    assert_int_equal(tx_get(tx, "/rigdeck/x/k", &doc, &err), RD_OK);
    json_decref(doc);
    assert_int_equal(store_put(st, "/rigdeck/x/k", "{\"n\":5}", 7, 0, &err), RD_OK);
    assert_int_equal(tx_put_text(tx, "/rigdeck/x/k", strdup("{\"n\":6}"), 7, json_pack("[s]", "n"), &err), RD_OK);
    assert_int_equal(tx_commit(tx, NULL, &err), RD_ECONFLICT);

    /* a later tx_put replaces the text */
    tx_reset(tx);
    assert_int_equal(tx_get(tx, "/rigdeck/x/k", &doc, &err), RD_OK);
    json_decref(doc);
    assert_int_equal(tx_put_text(tx, "/rigdeck/x/k", strdup("{\"n\":6}"), 7, json_pack("[s]", "n"), &err), RD_OK);
    assert_int_equal(tx_put(tx, "/rigdeck/x/k", json_pack("{s:i}", "n", 7), &err), RD_OK);
    assert_int_equal(tx_commit(tx, NULL, &err), RD_OK);
    assert_int_equal(store_get(st, "/rigdeck/x/k", &kv, &found, NULL, &err), RD_OK);
    assert_memory_equal(kv.value, "{\"n\":7}", 7);
    store_kv_free(&kv);

    /* missing text or fields: refused, nothing leaks */
    assert_int_equal(tx_put_text(tx, "/rigdeck/x/k", NULL, 0, json_array(), &err), RD_ENOMEM);
    assert_int_equal(tx_put_text(tx, "/rigdeck/x/k", strdup("{}"), 2, NULL, &err), RD_ENOMEM);
    tx_free(tx);
    store_close(st);
}

/* One document put at several keys is encoded once and stored at each;
 * a different document between or after is its own. */
static void test_put_shared(void **state)
{
    store_t *st = open_store("shared");
    rd_tx *tx = tx_new(st);
    rd_err err;
    (void)state;
    json_t *a = json_pack("{s:s, s:i}", "id", "t1", "amount_ucr", 5), *b = json_pack("{s:s}", "id", "t2");
    assert_int_equal(tx_put(tx, "/rigdeck/x/a1", json_incref(a), &err), RD_OK);
    assert_int_equal(tx_put(tx, "/rigdeck/x/a2", json_incref(a), &err), RD_OK);
    assert_int_equal(tx_put(tx, "/rigdeck/x/b", b, &err), RD_OK);
    assert_int_equal(tx_put(tx, "/rigdeck/x/a3", json_incref(a), &err), RD_OK);
    assert_int_equal(tx_delete(tx, "/rigdeck/x/gone", &err), RD_OK);
    assert_int_equal(tx_put(tx, "/rigdeck/x/a4", a, &err), RD_OK);
    assert_int_equal(tx_commit(tx, NULL, &err), RD_OK);
    static const char *const keys[] = { "/rigdeck/x/a1", "/rigdeck/x/a2", "/rigdeck/x/b", "/rigdeck/x/a3",
                                        "/rigdeck/x/a4" };
    static const char *const want[] = { "{\"id\":\"t1\",\"amount_ucr\":5}", "{\"id\":\"t1\",\"amount_ucr\":5}",
                                        "{\"id\":\"t2\"}", "{\"id\":\"t1\",\"amount_ucr\":5}",
                                        "{\"id\":\"t1\",\"amount_ucr\":5}" };
    for (size_t i = 0; i < 5; i++) {
        store_kv kv;
        int found = 0;
        assert_int_equal(store_get(st, keys[i], &kv, &found, NULL, &err), RD_OK);
        assert_int_equal(found, 1);
        assert_string_equal(kv.value, want[i]);
        store_kv_free(&kv);
    }
    tx_free(tx);
    store_close(st);
}

int main(void)
{
    testutil_tmpdir(dir, sizeof dir);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_your_writes),
        cmocka_unit_test(test_conflict),
        cmocka_unit_test(test_corrupt),
        cmocka_unit_test(test_changes_fields),
        cmocka_unit_test(test_scan_guard_counts),
        cmocka_unit_test(test_prefetch),
        cmocka_unit_test(test_put_text),
        cmocka_unit_test(test_put_shared),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
