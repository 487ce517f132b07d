/* Unit tests of billing.c: exact rounding, the A100 host-earning example,
 * seed 000's four device-fee examples, and billing_run's device fees and
 * payouts (idempotent by id, cursor or not; concurrent runs post once). */
#include "testutil.h"

#include "billing.h"
#include "ledger.h"

#define NOV_1 1793491200LL   /* 2026-11-01T00:00:00Z; November has 30 days */
#define DAY 86400LL
#define HOUR 3600LL

static char dir[256];

/* ---- arithmetic -------------------------------------------------------- */

static void test_span_charge_rounding(void **state)
{
    (void)state;
    assert_int_equal(billing_span_charge(250000, 100, 3600), 250000);     /* 0.25/GPU-hour, 1 GPU, 1 h */
    assert_int_equal(billing_span_charge(1, 100, 1800), 1);               /* 0.5 -> 1: half away from zero */
    assert_int_equal(billing_span_charge(1, 100, 1799), 0);               /* 0.4997 -> 0 */
    assert_int_equal(billing_span_charge(1, 50, 3600), 1);                /* half a GPU: 0.5 -> 1 */
    assert_int_equal(billing_span_charge(1, 100, 5400), 2);               /* 1.5 -> 2 */
    assert_int_equal(billing_span_charge(3, 100, 1200), 1);               /* exactly 1 */
    assert_int_equal(billing_span_charge(-1, 100, 1800), -1);             /* away from zero on both sides */
    assert_int_equal(billing_span_charge(2780000, 25, 60), 11583);        /* 11583.33 */
    assert_int_equal(billing_span_charge(0, 800, 3600), 0);
    /* large spans stay exact (no 64-bit overflow inside) */
    assert_int_equal(billing_span_charge(1000000000000LL, 80000, 31536000), 7008000000000000000LL);
    assert_int_equal(billing_span_charge(INT64_MAX, 80000, 31536000), INT64_MAX);   /* saturates */

    /* against an independent reference over many inputs: never negative,
     * and round-half-up of the exact quotient for non-negative inputs */
    uint64_t s = 12345;
    for (int i = 0; i < 200000; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        int64_t rate = (int64_t)(s >> 40) % 5000000, gpus = (int64_t)((s >> 20) % 801), secs = (int64_t)(s % 7201);
        unsigned long long n = (unsigned long long)rate * (unsigned long long)gpus * (unsigned long long)secs;
        int64_t want = (int64_t)((2 * n + 360000) / 720000);
        int64_t got = billing_span_charge(rate, gpus, secs);
        assert_true(got >= 0);
        assert_int_equal(got, want);
    }
}

static void test_a100_host_share(void **state)
{
    (void)state;
    /* seed 000: A100 at 2.78, usage fee 0.25: the host earns 1.265 per GPU-hour */
    int64_t paid = billing_span_charge(2780000, 100, 3600);
    int64_t host = billing_host_share(2780000, 250000, 100, 3600);
    assert_int_equal(paid, 2780000);
    assert_int_equal(host, 1265000);
    assert_int_equal(paid - host, 1515000);   /* platform: usage fee + its half */
    /* 4 GPUs for 2 hours */
    assert_int_equal(billing_host_share(2780000, 250000, 400, 7200), 4 * 2 * 1265000);
    /* half a GPU for half an hour; odd seconds: the parts always add up */
    assert_int_equal(billing_host_share(2780000, 250000, 50, 1800), 316250);
    assert_int_equal(billing_span_charge(2780000, 50, 1800), 695000);
    assert_int_equal(billing_span_charge(2780000, 100, 7), 5406);
    assert_int_equal(billing_host_share(2780000, 250000, 100, 7), 2460);
    assert_true(billing_host_share(2780000, 250000, 100, 7) < billing_span_charge(2780000, 100, 7));
    /* a price at or below the fee leaves nothing to share */
    assert_int_equal(billing_host_share(250000, 250000, 100, 3600), 0);
    assert_int_equal(billing_host_share(100000, 250000, 100, 3600), 0);
}

static void test_calendar(void **state)
{
    char buf[11];
    (void)state;
    assert_int_equal(billing_days_in_month(NOV_1 + 5 * DAY), 30);
    assert_int_equal(billing_days_in_month(NOV_1 + 30 * DAY), 31);            /* December */
    rd_time feb;
    assert_int_equal(rdtime_parse("t", "2028-02-10T05:00:00Z", &feb, NULL), RD_OK);
    assert_int_equal(billing_days_in_month(feb), 29);                         /* leap year */
    assert_int_equal(rdtime_parse("t", "2027-02-28T23:59:59Z", &feb, NULL), RD_OK);
    assert_int_equal(billing_days_in_month(feb), 28);
    assert_int_equal(rdtime_parse("t", "2100-02-01T00:00:00Z", &feb, NULL), RD_OK);
    assert_int_equal(billing_days_in_month(feb), 28);                         /* not a leap year */
    assert_int_equal(billing_day_start(NOV_1 + 5 * DAY + 3 * HOUR + 7), NOV_1 + 5 * DAY);
    assert_int_equal(billing_day_start(NOV_1), NOV_1);
    assert_string_equal(billing_day_name(NOV_1 + 29 * DAY + 86399, buf), "2026-11-30");
    assert_int_equal(billing_device_fee(10, 30), 5000000);
    assert_int_equal(billing_device_fee(1, 31), 483871);                    /* 483870.97 */
    assert_int_equal(billing_device_fee(1, 28), 535714);                    /* 535714.29 */
    assert_int_equal(billing_device_fee(0, 30), 0);
}

/* ---- seed 000's device-fee examples ------------------------------------ */

static json_t *tenure(rd_time added, rd_time removed)
{
    char a[RDTIME_BUFLEN], r[RDTIME_BUFLEN];
    return json_pack("{s:s, s:o}", "added_at", rdtime_format(added, a), "removed_at",
                     removed ? json_string(rdtime_format(removed, r)) : json_null());
}

/* Ten devices configured since October, on 2026-11-10 (a 30-day month). */
static json_t *ten_devices(void)
{
    json_t *t = json_array();
    for (int i = 0; i < 10; i++)
        json_array_append_new(t, tenure(NOV_1 - 31 * DAY + i * HOUR, 0));
    return t;
}

static int64_t fee_on(const json_t *tenures, rd_time day)
{
    return billing_device_fee(billing_devices_on_day(tenures, day), billing_days_in_month(day));
}

static void test_device_fee_examples(void **state)
{
    rd_time day = NOV_1 + 9 * DAY, next = day + DAY;
    (void)state;

    /* 10 devices: 5 credits per day in a month with 30 days */
    json_t *t = ten_devices();
    assert_int_equal(billing_devices_on_day(t, day), 10);
    assert_int_equal(fee_on(t, day), 5000000);
    json_decref(t);

    /* start with 10, add 5 during the day: 7.5, whatever the time of day */
    t = ten_devices();
    for (int i = 0; i < 5; i++)
        json_array_append_new(t, tenure(day + 23 * HOUR + i * 60, 0));
    assert_int_equal(fee_on(t, day), 7500000);
    assert_int_equal(fee_on(t, next), 7500000);
    json_decref(t);

    /* start with 10, remove 5 during the day: 5 that day, 2.5 afterwards */
    t = ten_devices();
    for (int i = 0; i < 5; i++)
        json_object_set_new(json_array_get(t, (size_t)i), "removed_at", json_string("2026-11-10T12:00:00Z"));
    assert_int_equal(fee_on(t, day), 5000000);
    assert_int_equal(fee_on(t, next), 2500000);
    json_decref(t);

    /* start with 10, add and remove a device 5 times: 7.5 (each addition
     * is a distinct device), then 5 (all of them were gone by the end) */
    t = ten_devices();
    for (int i = 0; i < 5; i++)
        json_array_append_new(t, tenure(day + (2 * i + 1) * HOUR, day + (2 * i + 2) * HOUR));
    assert_int_equal(fee_on(t, day), 7500000);
    assert_int_equal(fee_on(t, next), 5000000);
    json_decref(t);

    /* edges: added at 00:00 counts for that day; removed at 00:00 does not */
    t = json_array();
    json_array_append_new(t, tenure(day, 0));
    json_array_append_new(t, tenure(day - DAY, day));
    json_array_append_new(t, tenure(next, 0));
    assert_int_equal(billing_devices_on_day(t, day), 1);
    json_decref(t);
}

/* ---- bill run ---------------------------------------------------------- */

static store_t *open_store(const char *name)
{
    char url[512];
    store_t *st = NULL;
    rd_err err;
    snprintf(url, sizeof url, "sqlite:%s/%s.db", dir, name);
    assert_int_equal(store_open(url, NULL, &st, &err), RD_OK);
    assert_int_equal(store_put(st, "/rigdeck/accounts/alice", "{\"name\":\"alice\"}", 16, 0, &err), RD_OK);
    assert_int_equal(store_put(st, "/rigdeck/accounts/bob", "{\"name\":\"bob\"}", 14, 0, &err), RD_OK);
    return st;
}

static void put_tenure(store_t *st, const char *owner, const char *name, rd_time added, rd_time removed)
{
    char key[RD_KEY_MAX], a[RDTIME_BUFLEN];
    rd_err err;
    json_t *t = tenure(added, removed);
    json_object_set_new(t, "owner", json_string(owner));
    json_object_set_new(t, "name", json_string(name));
    char *s = json_dumps(t, JSON_COMPACT);
    tx_key(key, "/rigdeck/device-tenures/%s/%s-%s", owner, rdtime_format(added, a), name);
    assert_int_equal(store_put(st, key, s, strlen(s), 0, &err), RD_OK);
    free(s);
    json_decref(t);
}

/* One bill run committed; returns its result. */
static json_t *bill(store_t *st, rd_time until)
{
    rd_tx *tx = tx_new(st);
    json_t *res = NULL;
    rd_err err;
    assert_int_equal(billing_run(tx, until, NULL, NULL, &res, &err), RD_OK);
    assert_int_equal(tx_commit(tx, NULL, &err), RD_OK);
    tx_free(tx);
    return res;
}

static int64_t field(const json_t *doc, const char *f)
{
    return json_integer_value(json_object_get(doc, f));
}

static int64_t amount_of(store_t *st, const char *id)
{
    rd_tx *tx = tx_new(st);
    json_t *t = NULL;
    rd_err err;
    assert_int_equal(ledger_transfer_get(tx, id, &t, &err), RD_OK);
    int64_t a = t ? field(t, "amount_ucr") : -1;
    json_decref(t);
    tx_free(tx);
    return a;
}

static int64_t balance(store_t *st, const char *account)
{
    rd_tx *tx = tx_new(st);
    int64_t b = 0;
    rd_err err;
    assert_int_equal(ledger_balance(tx, account, &b, NULL, &err), RD_OK);
    tx_free(tx);
    return b;
}

static void assert_verified(store_t *st)
{
    rd_tx *tx = tx_new(st);
    json_t *report = NULL;
    rd_err err;
    assert_int_equal(ledger_verify(tx, &report, &err), RD_OK);
    assert_int_equal(field(report, "violation_count"), 0);
    json_decref(report);
    tx_free(tx);
}

static void test_bill_run_device_fees(void **state)
{
    store_t *st = open_store("fees");
    rd_err err;
    (void)state;
    for (int i = 0; i < 10; i++) {
        char name[16];
        snprintf(name, sizeof name, "cam-%02d", i);
        put_tenure(st, "alice", name, NOV_1, i < 5 ? NOV_1 + DAY + 12 * HOUR : 0);   /* 5 removed on Nov 2 */
    }
    put_tenure(st, "bob", "edge-1", NOV_1 + 2 * DAY + 8 * HOUR, 0);

    json_t *r = bill(st, NOV_1 + 3 * DAY + 6 * HOUR);   /* Nov 1, 2 and 3 are due */
    assert_int_equal(field(r, "device_fees"), 4);
    assert_int_equal(field(r, "device_fees_ucr"), 5000000 + 5000000 + 2500000 + 500000);
    json_decref(r);
    assert_int_equal(amount_of(st, "device_fee/alice/2026-11-01"), 5000000);
    assert_int_equal(amount_of(st, "device_fee/alice/2026-11-02"), 5000000);
    assert_int_equal(amount_of(st, "device_fee/alice/2026-11-03"), 2500000);
    assert_int_equal(amount_of(st, "device_fee/bob/2026-11-03"), 500000);
    assert_int_equal(amount_of(st, "device_fee/alice/2026-11-04"), -1);   /* not over yet */
    assert_int_equal(balance(st, "wallet:alice"), -12500000);
    assert_int_equal(balance(st, "platform"), 13000000);

    int64_t rev1 = 0, rev2 = 0;
    assert_int_equal(store_revision(st, &rev1, &err), RD_OK);
    r = bill(st, NOV_1 + 3 * DAY + 6 * HOUR);   /* twice: nothing new, nothing written */
    assert_int_equal(field(r, "posted"), 0);
    json_decref(r);
    assert_int_equal(store_revision(st, &rev2, &err), RD_OK);
    assert_int_equal(rev1, rev2);

    /* without the cursor the ids alone keep it from posting twice */
    assert_int_equal(store_delete(st, BILLING_CURSOR_KEY, &err), RD_OK);
    r = bill(st, NOV_1 + 3 * DAY + 6 * HOUR);
    assert_int_equal(field(r, "posted"), 0);
    assert_int_equal(field(r, "already_posted"), 4);
    json_decref(r);
    assert_int_equal(balance(st, "wallet:alice"), -12500000);

    r = bill(st, NOV_1 + 4 * DAY);   /* Nov 4 ends at exactly --until: due */
    assert_int_equal(field(r, "device_fees"), 2);
    json_decref(r);
    assert_int_equal(amount_of(st, "device_fee/alice/2026-11-04"), 2500000);
    assert_verified(st);
    store_close(st);
}

static void test_bill_run_concurrent(void **state)
{
    store_t *st = open_store("race");
    rd_tx *a = tx_new(st), *b = tx_new(st);
    json_t *ra = NULL, *rb = NULL;
    rd_err err;
    (void)state;
    put_tenure(st, "alice", "cam-1", NOV_1, 0);
    assert_int_equal(billing_run(a, NOV_1 + 2 * DAY, NULL, NULL, &ra, &err), RD_OK);
    assert_int_equal(billing_run(b, NOV_1 + 2 * DAY, NULL, NULL, &rb, &err), RD_OK);
    assert_int_equal(field(ra, "device_fees"), 2);
    assert_int_equal(field(rb, "device_fees"), 2);
    json_decref(ra);
    json_decref(rb);
    assert_int_equal(tx_commit(a, NULL, &err), RD_OK);
    assert_int_equal(tx_commit(b, NULL, &err), RD_ECONFLICT);
    tx_reset(b);   /* what the executor does: run again from scratch */
    assert_int_equal(billing_run(b, NOV_1 + 2 * DAY, NULL, NULL, &rb, &err), RD_OK);
    assert_int_equal(field(rb, "posted"), 0);
    assert_int_equal(tx_write_count(b), 0);
    json_decref(rb);
    tx_free(a);
    tx_free(b);
    assert_int_equal(balance(st, "wallet:alice"), -1000000);
    assert_verified(st);
    store_close(st);
}

static void test_bill_run_payouts(void **state)
{
    store_t *st = open_store("payout");
    rd_tx *tx = tx_new(st);
    rd_err err;
    (void)state;
    /* bob hosts alice's job: earnings before 00:00 are paid out at 00:00 */
    ledger_transfer e1 = { "gpu_rental/j1/0/h0/host", "wallet:alice", "earnings:bob", 1265000, "gpu_rental",
                           NOV_1 + 2 * DAY + 10 * HOUR, "A100, 1 h" };
    ledger_transfer e2 = { "gpu_rental/j1/0/h1/host", "wallet:alice", "earnings:bob", 632500, "gpu_rental",
                           NOV_1 + 3 * DAY + 3 * HOUR, "A100, 30 min" };
    assert_int_equal(ledger_stage(tx, &e1, NULL, &err), RD_OK);
    assert_int_equal(ledger_stage(tx, &e2, NULL, &err), RD_OK);
    assert_int_equal(tx_commit(tx, NULL, &err), RD_OK);
    tx_free(tx);

    json_t *r = bill(st, NOV_1 + 3 * DAY + 6 * HOUR);
    assert_int_equal(field(r, "payouts"), 1);
    json_decref(r);
    assert_int_equal(amount_of(st, "payout/bob/2026-11-04"), 1265000);   /* e2 came after 00:00 */
    assert_int_equal(balance(st, "earnings:bob"), 632500);
    assert_int_equal(balance(st, "wallet:bob"), 1265000);

    r = bill(st, NOV_1 + 5 * DAY);
    assert_int_equal(field(r, "payouts"), 1);   /* Nov 5: e2; Nov 6: nothing left */
    json_decref(r);
    assert_int_equal(amount_of(st, "payout/bob/2026-11-05"), 632500);
    assert_int_equal(amount_of(st, "payout/bob/2026-11-06"), -1);
    assert_int_equal(balance(st, "earnings:bob"), 0);
    assert_int_equal(balance(st, "wallet:bob"), 1897500);
    assert_int_equal(balance(st, "wallet:alice"), -1897500);

    assert_int_equal(store_delete(st, BILLING_CURSOR_KEY, &err), RD_OK);
    r = bill(st, NOV_1 + 5 * DAY);
    assert_int_equal(field(r, "posted"), 0);
    json_decref(r);
    assert_verified(st);
    store_close(st);
}

/* A commit callback that records each step's size and can "crash" (fail
 * without writing) at step crash_at, as a killed process would. */
typedef struct {
    rd_tx *tx;
    int steps, crash_at;
    size_t max_writes;
} step_log;

static rd_code commit_step(void *arg, rd_err *err)
{
    step_log *l = arg;
    size_t n = tx_write_count(l->tx);
    if (++l->steps == l->crash_at)
        return rd_fail(err, RD_ESTORE, "crashed");
    if (n > l->max_writes)
        l->max_writes = n;
    rd_code rc = tx_commit(l->tx, NULL, err);
    tx_reset(l->tx);
    return rc;
}

static void test_bill_run_steps(void **state)
{
    store_t *st = open_store("steps");
    rd_err err;
    json_t *res = NULL;
    (void)state;
    /* 120 days of devices of two accounts: 240 fees, too many for one etcd txn */
    put_tenure(st, "alice", "cam-1", NOV_1 - 120 * DAY, 0);
    put_tenure(st, "bob", "cam-2", NOV_1 - 120 * DAY, 0);

    /* a run that dies at its third step keeps the first two, and only them */
    rd_tx *tx = tx_new(st);
    step_log l = { tx, 0, 3, 0 };
    assert_int_equal(billing_run(tx, NOV_1, commit_step, &l, &res, &err), RD_ESTORE);
    tx_free(tx);
    int64_t partial = balance(st, "platform");
    assert_true(partial > 0);
    assert_true(partial < 240 * 5000000);
    assert_verified(st);

    /* the next run completes exactly what is missing, in bounded steps */
    tx = tx_new(st);
    l = (step_log){ tx, 0, 0, 0 };
    assert_int_equal(billing_run(tx, NOV_1, commit_step, &l, &res, &err), RD_OK);
    assert_int_equal(tx_commit(tx, NULL, &err), RD_OK);
    tx_free(tx);
    assert_true(l.steps >= 2);
    assert_true(l.max_writes <= BILLING_STEP_KEYS);
    assert_int_equal(field(res, "device_fees") + field(res, "already_posted"), 240);
    json_decref(res);
    int64_t want = 0;
    for (rd_time d = NOV_1 - 120 * DAY; d < NOV_1; d += DAY)
        want += 2 * billing_device_fee(1, billing_days_in_month(d));
    assert_int_equal(balance(st, "platform"), want);
    assert_int_equal(balance(st, "wallet:alice"), -want / 2);
    assert_verified(st);
    store_close(st);
}

int main(void)
{
    testutil_tmpdir(dir, sizeof dir);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_span_charge_rounding),
        cmocka_unit_test(test_a100_host_share),
        cmocka_unit_test(test_calendar),
        cmocka_unit_test(test_device_fee_examples),
        cmocka_unit_test(test_bill_run_device_fees),
        cmocka_unit_test(test_bill_run_concurrent),
        cmocka_unit_test(test_bill_run_payouts),
        cmocka_unit_test(test_bill_run_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
