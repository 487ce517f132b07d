/* cmd_step.c - a long command commits in steps: what its transaction holds
 * so far, with its own audit record (cmd_commit_step). */
#include "audit_log.h"
#include "cmd.h"

rd_code cmd_commit_step(cmd_ctx *ctx, rd_err *err)
{
    rd_code rc = RD_OK;
    if (tx_write_count(ctx->tx) > 0) {
        rc = audit_log_append(ctx->tx, ctx->actor, ctx->line, ctx->now, err);
        if (rc == RD_OK)
            rc = tx_commit(ctx->tx, NULL, err);
    }
    tx_reset(ctx->tx);
    return rc;
}

