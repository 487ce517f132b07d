/* app.c - the top of core/: hands the executor (core/cmd) what it must ask
 * of the layers above it, so that it never calls them by name.
 *
 * The guard is three checks, in this order, each refusing with its own
 * message: the actor names an account (account_init.c), it may act as it
 * does on a secured store (--as, core/access), and its role may run the
 * command (core/access/access.c).
 */
#include "app.h"

#include "access.h"
#include "account_init.h"
#include "cmd.h"
#include "cmd_list.h"

static rd_code app_guard(cmd_ctx *ctx, const cmd_def *def, const cmd_args *args, rd_err *err)
{
    rd_code rc = account_init_check_actor(ctx->tx, ctx->actor, err);
    if (rc == RD_OK)
        rc = access_check_identity(ctx, err);
    if (rc == RD_OK)
        rc = access_check_command(ctx, def, args, err);
    return rc;
}

void app_init(void)
{
    const cmd_hooks hooks = {
        .tables = cmd_list_tables,
        .ntables = cmd_list_ntables,
        .notes = cmd_list_notes,
        .nnotes = cmd_list_nnotes,
        .store_init = account_init_store,
        .store_upgrade = account_init_upgrade,
        .guard = app_guard,
    };
    cmd_set_hooks(&hooks);
}

/* Before main, in every program linked with the library: the Makefile links
 * each with --require-defined=app_init, which pulls this file in, so no
 * front end or test has to remember to call app_init. */
__attribute__((constructor)) static void app_init_at_start(void)
{
    app_init();
}
