/* Unit test of the executor's rule that a mutating handler answering
 * RD_OK with no result (a failed json_pack of its answer) is an error and
 * commits nothing (core/cmd/cmd.c, run_attempt).  The command registry of
 * the hooks core/app installs is replaced by a fake one (cmd_set_hooks),
 * so the handlers here are the only commands; the store's bootstrap and
 * the guard stay app's. */
#include "testutil.h"

#include "cmd.h"
#include "tx.h"

static char dir[256];

/* Writes a document, then answers nothing: what a handler whose result
 * json_pack failed does. */
static rd_code fake_nothing(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    (void)a;
    *result = NULL;
    return tx_put(ctx->tx, "/rigdeck/test/nothing", json_pack("{s:s}", "name", "nothing"), err);
}

/* The same write with an answer: committed, as every mutating command is. */
static rd_code fake_answer(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    (void)a;
    rd_code rc = tx_put(ctx->tx, "/rigdeck/test/answer", json_pack("{s:s}", "name", "answer"), err);
    if (rc == RD_OK)
        *result = json_pack("{s:s}", "name", "answer");
    return rc;
}

static const cmd_def fake_table[] = {
    { .words = "fake nothing", .args = "", .options = CMD_MUTATES, .help = "writes, answers nothing", .run = fake_nothing },
    { .words = "fake answer", .args = "", .options = CMD_MUTATES, .help = "writes, answers", .run = fake_answer },
    { 0 },
};

static const cmd_def *const fake_tables[] = { fake_table };

static json_t *stored(cmd_ctx *ctx, const char *key)
{
    rd_err err;
    json_t *doc = NULL;
    rd_tx *tx = tx_new(ctx->store);
    assert_non_null(tx);
    assert_int_equal(tx_get(tx, key, &doc, &err), RD_OK);
    tx_free(tx);
    return doc;
}

static void test_no_result_is_an_error(void **state)
{
    cmd_ctx ctx;
    char url[512];
    rd_err err;
    json_t *res = NULL;
    (void)state;
    snprintf(url, sizeof url, "sqlite:%s/noresult.db", dir);
    memset(&ctx, 0, sizeof ctx);
    ctx.store_url = url;
    ctx.actor = "default";
    ctx.now = 1793491200;   /* 2026-11-01T00:00:00Z */

    assert_int_equal(cmd_exec_line(&ctx, "fake nothing", &res, NULL, &err), RD_ENOMEM);
    assert_null(res);
    assert_non_null(strstr(err.msg, "out of memory"));
    assert_null(stored(&ctx, "/rigdeck/test/nothing"));   /* not committed */

    assert_int_equal(cmd_exec_line(&ctx, "fake answer", &res, NULL, &err), RD_OK);
    assert_non_null(res);
    json_decref(res);
    json_t *doc = stored(&ctx, "/rigdeck/test/answer");
    assert_non_null(doc);
    json_decref(doc);
    cmd_ctx_close(&ctx);
}

int main(void)
{
    testutil_tmpdir(dir, sizeof dir);
    cmd_hooks hooks = *cmd_get_hooks();   /* app's, installed before main */
    hooks.tables = fake_tables;
    hooks.ntables = 1;
    cmd_set_hooks(&hooks);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_result_is_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
