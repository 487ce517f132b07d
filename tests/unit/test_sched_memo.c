/* Unit tests of the scheduler's memo of the queue (sched_memo.c) on a real
 * SQLite store: after random writes by another store handle (new jobs,
 * state changes, deletions, keys of other kinds), a context that reads
 * again from its memo shows the reader every waiting or running job a full
 * scan shows, in key order, while reading fewer documents than the scan;
 * history compacted past the memo makes it scan again, still right. */
#include "testutil.h"

#include "cmd.h"
#include "keyspace.h"
#include "sched_memo.h"
#include "store.h"
#include "tx.h"

static char dir[256];

typedef struct {
    json_t *wanted;   /* key -> true: the jobs naming "waiting_gpus" or "running" */
    size_t seen;      /* documents the reader was shown */
    char last[RD_KEY_MAX];
    int out_of_order;
} reader;

static int read_one(store_kv *kv, void *data)
{
    reader *r = data;
    r->seen++;
    if (r->last[0] && strcmp(r->last, kv->key) >= 0)
        r->out_of_order = 1;
    snprintf(r->last, sizeof r->last, "%s", kv->key);
    if (memmem(kv->value, kv->value_len, "\"waiting_gpus\"", 14) || memmem(kv->value, kv->value_len, "\"running\"", 9))
        json_object_set_new(r->wanted, kv->key, json_true());
    if (kv->value_len > 0 && rand() % 2) {   /* a reader may keep the value, as the queue does */
        free(kv->value);
        kv->value = NULL;
    }
    return 0;
}

static const char *const states[] = { "waiting_gpus", "running", "finished", "canceled", "failed" };

static void put_job(store_t *st, int i, const char *state)
{
    char key[RD_KEY_MAX], doc[512];
    rd_err err;
    tx_key(key, KEY_JOBS "job-%04d", i);
    int len = snprintf(doc, sizeof doc, "{\"id\":\"job-%04d\",\"state\":\"%s\",\"workers\":[{\"index\":0,\"state\":\"%s\"}]}",
                       i, strcmp(state, "waiting_gpus") == 0 ? "waiting" : state, state);
    assert_int_equal(store_put(st, key, doc, (size_t)len, 0, &err), RD_OK);
}

/* What a full scan shows (through another handle's transaction). */
static json_t *scan_wanted(store_t *st)
{
    reader r = { json_object(), 0, "", 0 };
    rd_err err;
    rd_tx *tx = tx_new(st);
    assert_int_equal(tx_scan(tx, KEY_JOBS, read_one, &r, NULL, &err), RD_OK);
    tx_free(tx);
    return r.wanted;
}

/* A command context on the store at url, with a transaction, as a
 * command's handler has it. */
static void open_ctx(cmd_ctx *ctx, const char *url)
{
    rd_err err;
    memset(ctx, 0, sizeof *ctx);
    ctx->store_url = url;
    ctx->actor = "default";
    assert_int_equal(cmd_ctx_open_store(ctx, &err), RD_OK);
    ctx->tx = tx_new(ctx->store);
}

static void close_ctx(cmd_ctx *ctx)
{
    tx_free(ctx->tx);
    ctx->tx = NULL;
    cmd_ctx_close(ctx);
}

static void test_memo_matches_scan(void **state)
{
    (void)state;
    char url[512];
    rd_err err;
    snprintf(url, sizeof url, "sqlite:%s/memo.db", dir);
    store_t *w = NULL;
    assert_int_equal(store_open(url, NULL, &w, &err), RD_OK);
    cmd_ctx ctx;
    open_ctx(&ctx, url);
    srand(7);
    int njobs = 60;
    for (int i = 0; i < njobs; i++)
        put_job(w, i, states[rand() % 5]);
    size_t incremental = 0;
    for (int round = 0; round < 40; round++) {
        reader r = { json_object(), 0, "", 0 };
        assert_int_equal(sched_memo_scan(&ctx, read_one, &r, &err), RD_OK);
        json_t *want = scan_wanted(w);
        assert_true(json_equal(r.wanted, want));
        assert_false(r.out_of_order);
        if (round > 0) {
            assert_int_equal(sched_memo_last_incremental(&ctx, NULL), 1);
            assert_true(r.seen < (size_t)njobs);   /* not the whole history */
            incremental++;
        }
        json_decref(r.wanted);
        json_decref(want);
        /* another writer: new jobs (mostly ended ones, as a fleet's
         * history grows), state changes both ways, deletions, other keys */
        for (int k = 0; k < 12; k++) {
            int what = rand() % 6;
            if (what == 0) {
                put_job(w, njobs++, states[2 + rand() % 3]);
            } else if (what == 1) {
                put_job(w, njobs++, states[rand() % 2]);
            } else if (what == 2) {
                char key[RD_KEY_MAX];
                assert_int_equal(store_delete(w, tx_key(key, KEY_JOBS "job-%04d", rand() % njobs), &err), RD_OK);
            } else if (what == 3) {
                assert_int_equal(store_put(w, "/rigdeck/devices/cam", "{\"running\":1}", 13, 0, &err), RD_OK);
            } else {
                put_job(w, rand() % njobs, states[rand() % 5]);
            }
        }
        for (int k = 0; k < 20; k++)
            put_job(w, njobs++, "finished");
    }
    assert_int_equal(incremental, 39);

    /* History compacted past the memo: a scan, still right, and the memo
     * starts again from it. */
    int64_t now = 0;
    put_job(w, 3, "waiting_gpus");
    put_job(w, njobs++, "running");
    assert_int_equal(store_revision(w, &now, &err), RD_OK);
    assert_int_equal(store_compact(w, now, &err), RD_OK);
    reader r = { json_object(), 0, "", 0 };
    assert_int_equal(sched_memo_scan(&ctx, read_one, &r, &err), RD_OK);
    assert_int_equal(sched_memo_last_incremental(&ctx, NULL), 0);
    json_t *want = scan_wanted(w);
    assert_true(json_equal(r.wanted, want));
    json_decref(r.wanted);
    json_decref(want);
    put_job(w, 5, "waiting_gpus");
    reader r2 = { json_object(), 0, "", 0 };
    assert_int_equal(sched_memo_scan(&ctx, read_one, &r2, &err), RD_OK);
    assert_int_equal(sched_memo_last_incremental(&ctx, NULL), 1);
    want = scan_wanted(w);
    assert_true(json_equal(r2.wanted, want));
    json_decref(r2.wanted);
    json_decref(want);

    close_ctx(&ctx);
    store_close(w);
}

/* A reader that stops the read leaves nothing remembered: the next read scans. */
static int stop_at_third(store_kv *kv, void *data)
{
    (void)kv;
    return ++*(int *)data == 3 ? 42 : 0;
}

static void test_stopped_read_scans_next(void **state)
{
    (void)state;
    char url[512];
    rd_err err;
    snprintf(url, sizeof url, "sqlite:%s/stop.db", dir);
    cmd_ctx ctx;
    open_ctx(&ctx, url);
    for (int i = 0; i < 10; i++)
        put_job(ctx.store, i, "waiting_gpus");
    int count = 0;
    assert_int_equal(sched_memo_scan(&ctx, stop_at_third, &count, &err), 42);
    reader r = { json_object(), 0, "", 0 };
    assert_int_equal(sched_memo_scan(&ctx, read_one, &r, &err), RD_OK);
    assert_int_equal(sched_memo_last_incremental(&ctx, NULL), 0);
    assert_int_equal(json_object_size(r.wanted), 10);
    json_decref(r.wanted);
    close_ctx(&ctx);
}

int main(void)
{
    testutil_tmpdir(dir, sizeof dir);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memo_matches_scan),
        cmocka_unit_test(test_stopped_read_scans_next),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
