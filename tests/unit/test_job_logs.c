/* Unit tests of `job logs` and `job logs prune` (job_logs.c) on a real
 * SQLite store, over both key layouts of a worker's output: agents write
 * KEY_LOGS<node>/<job>/<index>; stores from before that hold it at
 * KEY_LOGS<job>/<index>, which must still be shown and pruned. */
#include "testutil.h"

#include "cmd.h"
#include "keyspace.h"
#include "tx.h"

static char dir[256];

static void open_ctx(cmd_ctx *ctx, const char *name, char *url, size_t len)
{
    rd_err err;
    snprintf(url, len, "sqlite:%s/%s.db", dir, name);
    memset(ctx, 0, sizeof *ctx);
    ctx->store_url = url;
    ctx->actor = "default";
    ctx->now = 1793491200;   /* 2026-11-01T00:00:00Z */
    assert_int_equal(cmd_ctx_open_store(ctx, &err), RD_OK);
}

/* A raw write, as an agent (or an older agent) makes it. */
static void log_put(cmd_ctx *ctx, const char *key, const char *text)
{
    char value[256];
    rd_err err;
    int n = snprintf(value, sizeof value, "rigdeck-log %zu\n%s", strlen(text), text);
    assert_int_equal(store_put(ctx->store, key, value, (size_t)n, 0, &err), RD_OK);
}

static int key_exists(cmd_ctx *ctx, const char *key)
{
    store_kv kv;
    int found = 0;
    rd_err err;
    assert_int_equal(store_get(ctx->store, key, &kv, &found, NULL, &err), RD_OK);
    if (found)
        store_kv_free(&kv);
    return found;
}

/* Job id with n workers, every one run by an agent on node n1 and ended a
 * month ago (worker `unplaced`, when >= 0, was never placed: no node). */
static void job_seed(cmd_ctx *ctx, const char *id, int n, int unplaced)
{
    char key[RD_KEY_MAX];
    rd_err err;
    json_t *workers = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(workers, i == unplaced
                                           ? json_pack("{s:i, s:s}", "index", i, "state", "canceled")
                                           : json_pack("{s:i, s:s, s:s, s:b, s:s, s:s}", "index", i, "state", "finished",
                                                       "node", "n1", "run_by_agent", 1, "started_at",
                                                       "2026-10-01T00:00:00Z", "ended_at", "2026-10-01T01:00:00Z"));
    json_t *job = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:o}", "id", id, "name", id, "type", "training",
                            "project", "default", "project_owner", "default", "creator", "default", "state", "finished",
                            "workers", workers);
    rd_tx *tx = tx_new(ctx->store);
    assert_int_equal(tx_put(tx, tx_key(key, KEY_JOBS "%s", id), job, &err), RD_OK);
    assert_int_equal(tx_commit(tx, NULL, &err), RD_OK);
    tx_free(tx);
}

/* The "text" of `job logs ID` + extra. */
static char *logs_text(cmd_ctx *ctx, const char *line)
{
    json_t *res = NULL;
    rd_err err;
    assert_int_equal(cmd_exec_line(ctx, line, &res, NULL, &err), RD_OK);
    char *text = strdup(json_string_value(json_object_get(res, "text")));
    json_decref(res);
    return text;
}

static void expect_text(cmd_ctx *ctx, const char *line, const char *want)
{
    char *got = logs_text(ctx, line);
    assert_string_equal(got, want);
    free(got);
}

static void test_reads_both_layouts(void **state)
{
    cmd_ctx ctx;
    char url[512];
    json_t *res = NULL;
    rd_err err;
    (void)state;
    open_ctx(&ctx, "read", url, sizeof url);
    job_seed(&ctx, "job-a", 4, 3);
    log_put(&ctx, KEY_LOGS "job-a/0", "old layout\n");
    log_put(&ctx, KEY_LOGS "n1/job-a/1", "new layout\n");
    log_put(&ctx, KEY_LOGS "job-a/2", "stale copy\n");
    log_put(&ctx, KEY_LOGS "n1/job-a/2", "current copy\n");
    expect_text(&ctx, "job logs job-a", "old layout\n");
    expect_text(&ctx, "job logs job-a --worker 1", "new layout\n");
    expect_text(&ctx, "job logs job-a --worker 2", "current copy\n");   /* the node's key wins */
    expect_text(&ctx, "job logs job-a --worker 3", "");                 /* never placed: nothing anywhere */
    /* --follow on the old layout: what is new after the first 4 bytes */
    assert_int_equal(cmd_exec_line(&ctx, "job logs job-a --worker 0 --follow --after 4", &res, NULL, &err), RD_OK);
    assert_string_equal(json_string_value(json_object_get(res, "text")), "layout\n");
    assert_int_equal(json_integer_value(json_object_get(res, "bytes_total")), 11);
    assert_true(json_is_true(json_object_get(json_object_get(res, "follow"), "done")));
    json_decref(res);
    cmd_ctx_close(&ctx);
}

static void test_prune_deletes_both_layouts(void **state)
{
    cmd_ctx ctx;
    char url[512];
    json_t *res = NULL;
    rd_err err;
    (void)state;
    open_ctx(&ctx, "prune", url, sizeof url);
    job_seed(&ctx, "job-b", 4, 3);
    log_put(&ctx, KEY_LOGS "job-b/0", "old\n");
    log_put(&ctx, KEY_LOGS "n1/job-b/1", "new\n");
    log_put(&ctx, KEY_LOGS "job-b/2", "old\n");
    log_put(&ctx, KEY_LOGS "n1/job-b/2", "new\n");
    assert_int_equal(cmd_exec_line(&ctx, "job logs prune", &res, NULL, &err), RD_OK);
    assert_int_equal(json_integer_value(json_object_get(res, "workers_pruned")), 3);
    assert_int_equal(json_integer_value(json_object_get(res, "jobs")), 1);
    json_decref(res);
    assert_false(key_exists(&ctx, KEY_LOGS "job-b/0"));
    assert_false(key_exists(&ctx, KEY_LOGS "n1/job-b/1"));
    assert_false(key_exists(&ctx, KEY_LOGS "job-b/2"));
    assert_false(key_exists(&ctx, KEY_LOGS "n1/job-b/2"));
    expect_text(&ctx, "job logs job-b --worker 2", "");
    /* once: the next run finds nothing due */
    assert_int_equal(cmd_exec_line(&ctx, "job logs prune", &res, NULL, &err), RD_OK);
    assert_int_equal(json_integer_value(json_object_get(res, "workers_pruned")), 0);
    json_decref(res);
    cmd_ctx_close(&ctx);
}

/* A job of 100 workers with output at both places: 200 deletes, more than
 * one etcd txn takes, go in steps, each a commit with its audit record. */
static void test_prune_in_steps(void **state)
{
    cmd_ctx ctx;
    char url[512], key[RD_KEY_MAX];
    json_t *res = NULL, *rec;
    rd_err err;
    size_t i, steps = 0;
    (void)state;
    open_ctx(&ctx, "steps", url, sizeof url);
    job_seed(&ctx, "job-c", 100, -1);
    for (int w = 0; w < 100; w++) {
        log_put(&ctx, tx_key(key, KEY_LOGS "job-c/%d", w), "old\n");
        log_put(&ctx, tx_key(key, KEY_LOGS "n1/job-c/%d", w), "new\n");
    }
    assert_int_equal(cmd_exec_line(&ctx, "job logs prune", &res, NULL, &err), RD_OK);
    assert_int_equal(json_integer_value(json_object_get(res, "workers_pruned")), 100);
    assert_int_equal(json_integer_value(json_object_get(res, "jobs")), 1);
    json_decref(res);
    for (int w = 0; w < 100; w++) {
        assert_false(key_exists(&ctx, tx_key(key, KEY_LOGS "job-c/%d", w)));
        assert_false(key_exists(&ctx, tx_key(key, KEY_LOGS "n1/job-c/%d", w)));
    }
    assert_int_equal(cmd_exec_line(&ctx, "audit list --actor default", &res, NULL, &err), RD_OK);
    json_array_foreach(json_object_get(res, "items"), i, rec)
        steps += strcmp(json_string_value(json_object_get(rec, "command")), "job logs prune") == 0;
    assert_true(steps >= 2);
    json_decref(res);
    cmd_ctx_close(&ctx);
}

int main(void)
{
    testutil_tmpdir(dir, sizeof dir);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_both_layouts),
        cmocka_unit_test(test_prune_deletes_both_layouts),
        cmocka_unit_test(test_prune_in_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
