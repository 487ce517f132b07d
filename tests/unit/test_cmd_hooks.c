/* Unit tests of the executor's hooks (cmd_hooks, core/cmd/cmd.h): core/app
 * installs them before main (app.c), and a hook that is missing fails
 * closed: without the registry no command is found, without the bootstrap
 * no store is opened, without the guard no command on the store runs and
 * nothing is written (issue 34: the executor calls nothing above it). */
#include "testutil.h"

#include "app.h"
#include "cmd.h"
#include "tx.h"

static char dir[256];

static void ctx_on(cmd_ctx *ctx, const char *name)
{
    static char url[512];
    snprintf(url, sizeof url, "sqlite:%s/%s.db", dir, name);
    memset(ctx, 0, sizeof *ctx);
    ctx->store_url = url;
    ctx->actor = "default";
    ctx->now = 1793491200;   /* 2026-11-01T00:00:00Z */
}

static void test_installed_before_main(void **state)
{
    (void)state;
    const cmd_hooks *h = cmd_get_hooks();
    assert_non_null(h);
    assert_true(h->ntables > 10);
    assert_non_null(h->store_init);
    assert_non_null(h->store_upgrade);
    assert_non_null(h->guard);
    assert_non_null(cmd_find("account create"));
    assert_non_null(cmd_note_of("job submit"));
}

static void test_no_registry(void **state)
{
    (void)state;
    cmd_hooks none = { 0 };
    cmd_ctx ctx;
    rd_err err;
    json_t *res = NULL;
    cmd_set_hooks(&none);
    ctx_on(&ctx, "noregistry");
    assert_null(cmd_find("account create"));
    assert_int_equal(cmd_exec_line(&ctx, "account create alice", &res, NULL, &err), RD_EUSAGE);
    assert_null(res);
    assert_null(ctx.store);   /* nothing opened, nothing written */
    app_init();
    assert_non_null(cmd_find("account create"));
}

static void test_no_bootstrap(void **state)
{
    (void)state;
    cmd_hooks hooks = *cmd_get_hooks();
    cmd_ctx ctx;
    rd_err err;
    json_t *res = NULL;
    hooks.store_init = NULL;
    cmd_set_hooks(&hooks);
    ctx_on(&ctx, "nobootstrap");
    assert_int_equal(cmd_exec_line(&ctx, "account list", &res, NULL, &err), RD_ESTORE);
    assert_non_null(strstr(err.msg, "no store bootstrap"));
    assert_null(res);
    assert_null(ctx.store);
    app_init();
}

static void test_no_guard(void **state)
{
    (void)state;
    cmd_ctx ctx;
    rd_err err;
    json_t *res = NULL, *doc = NULL;
    ctx_on(&ctx, "noguard");
    /* a store with its first contents (app's bootstrap), then no guard */
    assert_int_equal(cmd_exec_line(&ctx, "account list", &res, NULL, &err), RD_OK);
    json_decref(res);
    res = NULL;
    cmd_hooks hooks = *cmd_get_hooks();
    hooks.guard = NULL;
    cmd_set_hooks(&hooks);
    assert_int_equal(cmd_exec_line(&ctx, "account create alice", &res, NULL, &err), RD_EPERM);
    assert_non_null(strstr(err.msg, "account create: refused: no access guard"));
    assert_null(res);
    assert_int_equal(cmd_exec_line(&ctx, "account list", &res, NULL, &err), RD_EPERM);   /* reads too */
    assert_null(res);
    /* `help` touches no store: it needs no guard */
    assert_int_equal(cmd_exec_line(&ctx, "help account", &res, NULL, &err), RD_OK);
    json_decref(res);
    res = NULL;
    app_init();
    rd_tx *tx = tx_new(ctx.store);
    assert_non_null(tx);
    assert_int_equal(tx_get(tx, "/rigdeck/accounts/alice", &doc, &err), RD_OK);
    assert_null(doc);   /* the refused create wrote nothing */
    tx_free(tx);
    /* with app's guard back, the same line runs */
    assert_int_equal(cmd_exec_line(&ctx, "account create alice", &res, NULL, &err), RD_OK);
    json_decref(res);
    cmd_ctx_close(&ctx);
}

/* A layer's memo in a context (cmd_ctx_memo): found by its key, replaced
 * and freed once, refused (and freed) when every slot is taken, freed with
 * the context; the executor knows nothing of what it holds. */
static int freed;
static void count_free(void *p)
{
    freed++;
    free(p);
}

static void test_memos(void **state)
{
    (void)state;
    static const char k1, k2, k[CMD_CTX_MEMOS + 1];
    cmd_ctx ctx;
    rd_err err = { 0 };
    memset(&ctx, 0, sizeof ctx);
    freed = 0;
    assert_null(cmd_ctx_memo(&ctx, &k1));
    void *a = malloc(8), *b = malloc(8);
    assert_int_equal(cmd_ctx_set_memo(&ctx, &k1, a, count_free, &err), RD_OK);
    assert_ptr_equal(cmd_ctx_memo(&ctx, &k1), a);
    assert_null(cmd_ctx_memo(&ctx, &k2));
    assert_int_equal(cmd_ctx_set_memo(&ctx, &k1, b, count_free, &err), RD_OK);   /* replaces: a freed */
    assert_int_equal(freed, 1);
    assert_ptr_equal(cmd_ctx_memo(&ctx, &k1), b);
    assert_int_equal(cmd_ctx_set_memo(&ctx, &k1, NULL, NULL, &err), RD_OK);      /* forgets: b freed */
    assert_int_equal(freed, 2);
    assert_null(cmd_ctx_memo(&ctx, &k1));
    for (int i = 0; i < CMD_CTX_MEMOS; i++)
        assert_int_equal(cmd_ctx_set_memo(&ctx, &k[i], malloc(8), count_free, &err), RD_OK);
    assert_int_equal(cmd_ctx_set_memo(&ctx, &k[CMD_CTX_MEMOS], malloc(8), count_free, &err), RD_ENOMEM);
    assert_int_equal(freed, 3);   /* the one that found no slot */
    cmd_ctx_close(&ctx);
    assert_int_equal(freed, 3 + CMD_CTX_MEMOS);
    assert_null(cmd_ctx_memo(&ctx, &k[0]));
}

int main(void)
{
    testutil_tmpdir(dir, sizeof dir);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_installed_before_main),
        cmocka_unit_test(test_no_registry),
        cmocka_unit_test(test_no_bootstrap),
        cmocka_unit_test(test_no_guard),
        cmocka_unit_test(test_memos),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
