/* Unit tests of the double-entry ledger (ledger.c) on a real SQLite store:
 * posting, idempotent ids, conflicting duplicates, linked groups, pending
 * holds, concurrent writers, balance-as-of, and ledger_verify catching
 * tampered documents. */
#include "testutil.h"

#include "ledger.h"

static char dir[256];

static store_t *open_store(const char *name)
{
    char url[512];
    store_t *st = NULL;
    rd_err err;
    snprintf(url, sizeof url, "sqlite:%s/%s.db", dir, name);
    assert_int_equal(store_open(url, NULL, &st, &err), RD_OK);
    /* the tenants whose wallets the tests use */
    assert_int_equal(store_put(st, "/rigdeck/accounts/alice", "{\"name\":\"alice\"}", 16, 0, &err), RD_OK);
    assert_int_equal(store_put(st, "/rigdeck/accounts/bob", "{\"name\":\"bob\"}", 14, 0, &err), RD_OK);
    return st;
}

static ledger_transfer xfer(const char *id, const char *debit, const char *credit, int64_t amount, const char *kind)
{
    return (ledger_transfer){ id, debit, credit, amount, kind, 1793491200, "test" };
}

static void commit(rd_tx *tx)
{
    rd_err err;
    assert_int_equal(tx_commit(tx, NULL, &err), RD_OK);
    tx_reset(tx);
}

static int64_t balance_of(rd_tx *tx, const char *account, int64_t *pending)
{
    int64_t b = 0;
    rd_err err;
    assert_int_equal(ledger_balance(tx, account, &b, pending, &err), RD_OK);
    return b;
}

/* Runs ledger_verify and returns the violation count (first one in msg). */
static long verify(store_t *st, char *msg, size_t len)
{
    rd_tx *tx = tx_new(st);
    json_t *report = NULL;
    rd_err err;
    assert_int_equal(ledger_verify(tx, &report, &err), RD_OK);
    long n = (long)json_integer_value(json_object_get(report, "violation_count"));
    json_t *first = json_array_get(json_object_get(report, "violations"), 0);
    if (msg)
        snprintf(msg, len, "%s: %s", first ? json_string_value(json_object_get(first, "object")) : "",
                 first ? json_string_value(json_object_get(first, "problem")) : "");
    json_decref(report);
    tx_free(tx);
    return n;
}

static void test_post_and_balance(void **state)
{
    store_t *st = open_store("post");
    rd_tx *tx = tx_new(st);
    rd_err err;
    int dup = -1;
    (void)state;
    ledger_transfer d = xfer("deposit/alice/1", "external", "wallet:alice", 100000000, "deposit");
    ledger_transfer u = xfer("usage/j1/0/2026-11-01T00:00:00Z", "wallet:alice", "platform", 250000, "usage_fee");
    assert_int_equal(ledger_stage(tx, &d, &dup, &err), RD_OK);
    assert_int_equal(dup, 0);
    assert_int_equal(ledger_stage(tx, &u, &dup, &err), RD_OK);
    assert_int_equal(balance_of(tx, "wallet:alice", NULL), 99750000);   /* reads see the staged writes */
    commit(tx);
    assert_int_equal(balance_of(tx, "wallet:alice", NULL), 99750000);
    assert_int_equal(balance_of(tx, "platform", NULL), 250000);
    assert_int_equal(balance_of(tx, "external", NULL), -100000000);
    assert_int_equal(balance_of(tx, "wallet:bob", NULL), 0);   /* never used: zero */
    assert_int_equal(verify(st, NULL, 0), 0);
    tx_free(tx);
    store_close(st);
}

static void test_idempotent_and_conflicting_ids(void **state)
{
    store_t *st = open_store("idem");
    rd_tx *tx = tx_new(st);
    rd_err err;
    int dup = 0;
    int64_t rev1 = 0, rev2 = 0;
    (void)state;
    ledger_transfer d = xfer("deposit/alice/inv-7", "external", "wallet:alice", 5000000, "deposit");
    assert_int_equal(ledger_stage(tx, &d, &dup, &err), RD_OK);
    commit(tx);
    assert_int_equal(store_revision(st, &rev1, &err), RD_OK);

    d.at += 3600;   /* a retry later on: the time is not part of the identity */
    assert_int_equal(ledger_stage(tx, &d, &dup, &err), RD_OK);
    assert_int_equal(dup, 1);
    assert_int_equal(tx_write_count(tx), 0);
    assert_int_equal(tx_commit(tx, NULL, &err), RD_OK);
    tx_reset(tx);
    assert_int_equal(store_revision(st, &rev2, &err), RD_OK);
    assert_int_equal(rev1, rev2);
    assert_int_equal(balance_of(tx, "wallet:alice", NULL), 5000000);

    ledger_transfer other = d;
    other.amount_ucr = 5000001;
    assert_int_equal(ledger_stage(tx, &other, &dup, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "transfer deposit/alice/inv-7 exists with different fields"));
    assert_non_null(strstr(err.msg, "amount_ucr"));
    other = d;
    other.credit = "wallet:bob";
    assert_int_equal(ledger_stage(tx, &other, &dup, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "credit"));
    other = d;
    other.ref = "another";
    assert_int_equal(ledger_stage(tx, &other, &dup, &err), RD_EINVAL);
    /* a posted transfer is not the same as a hold of the same id */
    assert_int_equal(ledger_stage_pending(tx, &d, &dup, &err), RD_EINVAL);
    tx_free(tx);
    store_close(st);
}

static void test_refusals(void **state)
{
    store_t *st = open_store("refuse");
    rd_tx *tx = tx_new(st);
    rd_err err;
    (void)state;
    ledger_transfer t = xfer("x/1", "external", "wallet:alice", 0, "deposit");
    assert_int_equal(ledger_stage(tx, &t, NULL, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "amount_ucr must be above zero"));
    t.amount_ucr = -5;
    assert_int_equal(ledger_stage(tx, &t, NULL, &err), RD_EINVAL);
    t.amount_ucr = LEDGER_AMOUNT_MAX + 1;
    assert_int_equal(ledger_stage(tx, &t, NULL, &err), RD_EINVAL);
    t = xfer("x/1", "wallet:alice", "wallet:alice", 1, "deposit");
    assert_int_equal(ledger_stage(tx, &t, NULL, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "different accounts"));
    t = xfer("x/1", "external", "wallet:alice", 1, "gift");
    assert_int_equal(ledger_stage(tx, &t, NULL, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "kind must be one of"));
    t = xfer("x/1", "external", "purse:alice", 1, "deposit");
    assert_int_equal(ledger_stage(tx, &t, NULL, &err), RD_EINVAL);
    t = xfer("x//1", "external", "wallet:alice", 1, "deposit");
    assert_int_equal(ledger_stage(tx, &t, NULL, &err), RD_EINVAL);
    t = xfer("x/1 2", "external", "wallet:alice", 1, "deposit");
    assert_int_equal(ledger_stage(tx, &t, NULL, &err), RD_EINVAL);
    t = xfer("x/1", "external", "wallet:ghost", 1, "deposit");
    assert_int_equal(ledger_stage(tx, &t, NULL, &err), RD_ENOTFOUND);
    assert_non_null(strstr(err.msg, "account 'ghost' does not exist"));
    tx_reset(tx);
    assert_int_equal(tx_write_count(tx), 0);
    tx_free(tx);
    store_close(st);
}

static void test_linked_all_or_none(void **state)
{
    store_t *st = open_store("linked");
    rd_tx *tx = tx_new(st);
    rd_err err;
    size_t dups = 9;
    (void)state;
    ledger_transfer seed = xfer("deposit/alice/1", "external", "wallet:alice", 10000000, "deposit");
    assert_int_equal(ledger_stage(tx, &seed, NULL, &err), RD_OK);
    commit(tx);
    /* a GPU rental: customer to host earnings and to the platform, together */
    ledger_transfer group[2] = {
        xfer("gpu_rental/j1/0/h0/host", "wallet:alice", "earnings:bob", 1265000, "gpu_rental"),
        xfer("gpu_rental/j1/0/h0/platform", "wallet:alice", "platform", 1515000, "gpu_rental"),
    };
    assert_int_equal(ledger_stage_linked(tx, group, 2, &dups, &err), RD_OK);
    assert_int_equal(dups, 0);
    commit(tx);
    assert_int_equal(balance_of(tx, "wallet:alice", NULL), 10000000 - 2780000);
    assert_int_equal(balance_of(tx, "earnings:bob", NULL), 1265000);
    assert_int_equal(ledger_stage_linked(tx, group, 2, &dups, &err), RD_OK);
    assert_int_equal(dups, 2);
    assert_int_equal(tx_write_count(tx), 0);
    tx_reset(tx);

    /* a group of which only part exists was posted differently: refused,
     * and nothing of it is staged */
    ledger_transfer mixed[2] = { group[0], xfer("gpu_rental/j1/0/h0/extra", "wallet:alice", "platform", 1, "gpu_rental") };
    assert_int_equal(ledger_stage_linked(tx, mixed, 2, &dups, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "1 of the 2 transfers"));
    assert_int_equal(tx_write_count(tx), 0);
    tx_reset(tx);
    /* one bad member: nothing of the group is staged */
    ledger_transfer bad[2] = { xfer("a/1", "wallet:alice", "platform", 5, "usage_fee"),
                               xfer("a/2", "wallet:alice", "platform", -5, "usage_fee") };
    assert_int_equal(ledger_stage_linked(tx, bad, 2, &dups, &err), RD_EINVAL);
    assert_int_equal(tx_write_count(tx), 0);
    tx_free(tx);
    assert_int_equal(verify(st, NULL, 0), 0);
    store_close(st);
}

static void test_pending_post_and_void(void **state)
{
    store_t *st = open_store("pending");
    rd_tx *tx = tx_new(st);
    rd_err err;
    int dup = 0;
    int64_t pending = 0;
    (void)state;
    ledger_transfer seed = xfer("deposit/alice/1", "external", "wallet:alice", 10000000, "deposit");
    ledger_transfer hold = xfer("hold/j1", "wallet:alice", "platform", 3000000, "usage_fee");
    ledger_transfer hold2 = xfer("hold/j2", "wallet:alice", "platform", 1000000, "usage_fee");
    assert_int_equal(ledger_stage(tx, &seed, NULL, &err), RD_OK);
    assert_int_equal(ledger_stage_pending(tx, &hold, &dup, &err), RD_OK);
    assert_int_equal(ledger_stage_pending(tx, &hold2, &dup, &err), RD_OK);
    commit(tx);
    assert_int_equal(balance_of(tx, "wallet:alice", &pending), 10000000);   /* a hold does not move the balance */
    assert_int_equal(pending, -4000000);
    assert_int_equal(balance_of(tx, "platform", &pending), 0);
    assert_int_equal(pending, 4000000);
    assert_int_equal(verify(st, NULL, 0), 0);
    tx_reset(tx);

    assert_int_equal(ledger_post_pending(tx, "hold/j1", 1793494800, &dup, &err), RD_OK);
    assert_int_equal(dup, 0);
    assert_int_equal(ledger_void_pending(tx, "hold/j2", 1793494800, &dup, &err), RD_OK);
    commit(tx);
    assert_int_equal(balance_of(tx, "wallet:alice", &pending), 7000000);
    assert_int_equal(pending, 0);
    assert_int_equal(balance_of(tx, "platform", &pending), 3000000);
    tx_reset(tx);

    assert_int_equal(ledger_post_pending(tx, "hold/j1", 1793498400, &dup, &err), RD_OK);
    assert_int_equal(dup, 1);   /* posting twice is a no-op */
    assert_int_equal(ledger_void_pending(tx, "hold/j2", 1793498400, &dup, &err), RD_OK);
    assert_int_equal(dup, 1);
    assert_int_equal(tx_write_count(tx), 0);
    assert_int_equal(ledger_void_pending(tx, "hold/j1", 1793498400, &dup, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "posted already"));
    assert_int_equal(ledger_post_pending(tx, "hold/j2", 1793498400, &dup, &err), RD_EINVAL);
    assert_int_equal(ledger_post_pending(tx, "deposit/alice/1", 1793498400, &dup, &err), RD_EINVAL);
    assert_int_equal(ledger_post_pending(tx, "hold/none", 1793498400, &dup, &err), RD_ENOTFOUND);
    tx_free(tx);
    assert_int_equal(verify(st, NULL, 0), 0);
    store_close(st);
}

static void test_concurrent_same_id(void **state)
{
    store_t *st = open_store("race");
    rd_tx *a = tx_new(st), *b = tx_new(st);
    rd_err err;
    int dup = 0;
    (void)state;
    ledger_transfer fee = xfer("device_fee/alice/2026-11-01", "wallet:alice", "platform", 5000000, "device_fee");
    assert_int_equal(ledger_stage(a, &fee, &dup, &err), RD_OK);
    assert_int_equal(ledger_stage(b, &fee, &dup, &err), RD_OK);
    assert_int_equal(tx_commit(a, NULL, &err), RD_OK);
    assert_int_equal(tx_commit(b, NULL, &err), RD_ECONFLICT);
    tx_reset(b);   /* the loser's retry finds the transfer: nothing twice */
    assert_int_equal(ledger_stage(b, &fee, &dup, &err), RD_OK);
    assert_int_equal(dup, 1);
    assert_int_equal(tx_write_count(b), 0);
    assert_int_equal(balance_of(b, "wallet:alice", NULL), -5000000);
    tx_free(a);
    tx_free(b);
    assert_int_equal(verify(st, NULL, 0), 0);
    store_close(st);
}

static void test_balance_before(void **state)
{
    store_t *st = open_store("asof");
    rd_tx *tx = tx_new(st);
    rd_err err;
    int64_t b = 0;
    (void)state;
    ledger_transfer t1 = xfer("r/1", "wallet:alice", "earnings:bob", 100, "gpu_rental");
    ledger_transfer t2 = xfer("r/2", "wallet:alice", "earnings:bob", 200, "gpu_rental");
    t2.at += 86400;
    assert_int_equal(ledger_stage(tx, &t1, NULL, &err), RD_OK);
    commit(tx);
    assert_int_equal(ledger_stage(tx, &t2, NULL, &err), RD_OK);   /* staged, not committed: still seen */
    assert_int_equal(ledger_balance_before(tx, "earnings:bob", t1.at, &b, &err), RD_OK);
    assert_int_equal(b, 0);
    assert_int_equal(ledger_balance_before(tx, "earnings:bob", t1.at + 1, &b, &err), RD_OK);
    assert_int_equal(b, 100);
    assert_int_equal(ledger_balance_before(tx, "earnings:bob", t2.at + 1, &b, &err), RD_OK);
    assert_int_equal(b, 300);
    assert_int_equal(ledger_balance_before(tx, "wallet:alice", t2.at + 1, &b, &err), RD_OK);
    assert_int_equal(b, -300);
    assert_int_equal(ledger_balance_before(tx, "platform", t2.at, &b, &err), RD_EINVAL);
    tx_free(tx);
    store_close(st);
}

/* Thousands of transfers in one transaction: reads see every staged
 * write (tx.c finds entries by hash) and the commit verifies. */
static void test_large_transaction(void **state)
{
    store_t *st = open_store("large");
    rd_tx *tx = tx_new(st);
    rd_err err;
    int dup = 0;
    (void)state;
    for (int i = 0; i < 3000; i++) {
        char id[64];
        snprintf(id, sizeof id, "usage/job-%d/0/h%d", i % 37, i);
        ledger_transfer t = xfer(id, i % 2 ? "wallet:alice" : "wallet:bob", "platform", 1000 + i, "usage_fee");
        assert_int_equal(ledger_stage(tx, &t, &dup, &err), RD_OK);
        assert_int_equal(dup, 0);
    }
    ledger_transfer again = xfer("usage/job-5/0/h42", "wallet:bob", "platform", 1042, "usage_fee");
    assert_int_equal(ledger_stage(tx, &again, &dup, &err), RD_OK);   /* staged in this very transaction */
    assert_int_equal(dup, 1);
    /* 3000 transfers, their 3000 index copies, 3 accounts */
    assert_int_equal(tx_write_count(tx), 6003);
    commit(tx);
    int64_t alice = 0, bob = 0;
    for (int i = 0; i < 3000; i++)
        *(i % 2 ? &alice : &bob) -= 1000 + i;
    assert_int_equal(balance_of(tx, "wallet:alice", NULL), alice);
    assert_int_equal(balance_of(tx, "wallet:bob", NULL), bob);
    assert_int_equal(balance_of(tx, "platform", NULL), -(alice + bob));
    tx_free(tx);
    assert_int_equal(verify(st, NULL, 0), 0);
    store_close(st);
}

/* Rewrites one stored document by a text substitution. */
static void tamper(store_t *st, const char *key, const char *from, const char *to)
{
    store_kv kv;
    int found = 0;
    rd_err err;
    assert_int_equal(store_get(st, key, &kv, &found, NULL, &err), RD_OK);
    assert_true(found);
    char *p = strstr(kv.value, from);
    assert_non_null(p);
    char buf[2048];
    snprintf(buf, sizeof buf, "%.*s%s%s", (int)(p - kv.value), kv.value, to, p + strlen(from));
    assert_int_equal(store_put(st, key, buf, strlen(buf), 0, &err), RD_OK);
    store_kv_free(&kv);
}

static void test_verify_catches_tampering(void **state)
{
    store_t *st = open_store("tamper");
    rd_tx *tx = tx_new(st);
    rd_err err;
    char msg[600];
    (void)state;
    ledger_transfer d = xfer("deposit/alice/1", "external", "wallet:alice", 100000000, "deposit");
    ledger_transfer u = xfer("usage/j1/0/h0", "wallet:alice", "earnings:bob", 2500000, "gpu_rental");
    assert_int_equal(ledger_stage(tx, &d, NULL, &err), RD_OK);
    assert_int_equal(ledger_stage(tx, &u, NULL, &err), RD_OK);
    commit(tx);
    tx_free(tx);
    assert_int_equal(verify(st, NULL, 0), 0);

    /* someone edits a wallet: its sum no longer matches its transfers, and
     * the balances no longer total zero */
    tamper(st, LEDGER_ACCOUNTS_PREFIX "wallet:alice", "\"credits_posted_ucr\":100000000", "\"credits_posted_ucr\":900000000");
    rd_tx *v = tx_new(st);
    json_t *report = NULL;
    assert_int_equal(ledger_verify(v, &report, &err), RD_OK);
    assert_false(json_is_true(json_object_get(report, "ok")));
    assert_int_equal(json_integer_value(json_object_get(report, "total_balance_ucr")), 800000000);
    char *dump = json_dumps(report, 0);
    assert_non_null(strstr(dump, "credits_posted_ucr is 900000000 but its transfers sum to 100000000"));
    assert_non_null(strstr(dump, "sum to 800000000, not zero"));
    free(dump);
    json_decref(report);
    tx_free(v);
    tamper(st, LEDGER_ACCOUNTS_PREFIX "wallet:alice", "\"credits_posted_ucr\":900000000", "\"credits_posted_ucr\":100000000");
    assert_int_equal(verify(st, NULL, 0), 0);

    /* a transfer's amount edited (both accounts and its index now disagree) */
    tamper(st, LEDGER_TRANSFERS_PREFIX "usage/j1/0/h0", "\"amount_ucr\":2500000", "\"amount_ucr\":2400000");
    assert_true(verify(st, msg, sizeof msg) >= 3);
    assert_non_null(strstr(msg, "account"));
    tamper(st, LEDGER_TRANSFERS_PREFIX "usage/j1/0/h0", "\"amount_ucr\":2400000", "\"amount_ucr\":-1");
    assert_true(verify(st, msg, sizeof msg) >= 1);
    tamper(st, LEDGER_TRANSFERS_PREFIX "usage/j1/0/h0", "\"amount_ucr\":-1", "\"amount_ucr\":2500000");
    assert_int_equal(verify(st, NULL, 0), 0);

    /* an index copy removed, and a transfer whose account vanished */
    assert_int_equal(store_delete(st, LEDGER_INDEX_PREFIX "earnings:bob/2026-11-01T00:00:00Z/usage/j1/0/h0", &err), RD_OK);
    assert_int_equal(verify(st, msg, sizeof msg), 1);
    assert_non_null(strstr(msg, "account earnings:bob: the entry index holds 0 copies but its transfers need 1"));
    assert_int_equal(store_delete(st, LEDGER_ACCOUNTS_PREFIX "earnings:bob", &err), RD_OK);
    assert_true(verify(st, msg, sizeof msg) >= 2);
    assert_non_null(strstr(msg, "does not exist"));
    store_close(st);
}

int main(void)
{
    testutil_tmpdir(dir, sizeof dir);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_post_and_balance),
        cmocka_unit_test(test_idempotent_and_conflicting_ids),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_linked_all_or_none),
        cmocka_unit_test(test_pending_post_and_void),
        cmocka_unit_test(test_concurrent_same_id),
        cmocka_unit_test(test_balance_before),
        cmocka_unit_test(test_large_transaction),
        cmocka_unit_test(test_verify_catches_tampering),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
