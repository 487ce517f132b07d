/* store_cmd.c - commands about the store itself: `store info`. */
#include "cmd.h"

static rd_code store_info_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    int64_t rev = 0;
    (void)a;
    rd_code rc = store_revision(ctx->store, &rev, err);
    if (rc == RD_OK)
        *result = json_pack("{s:s, s:s, s:I, s:s}", "name", "store", "url", store_url(ctx->store),
                            "revision", (json_int_t)rev, "actor", ctx->actor);
    return rc;
}

const cmd_def store_cmd_table[] = {
    { "store info", "", NULL, 0, "show the store URL and its current revision", NULL, store_info_cmd },
    { 0 }
};
