/* store_cmd.c - commands about the store itself: `store info`. */
#include <stdlib.h>
#include <string.h>

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

/* Every key under --prefix with its document, in key order: for backups,
 * debugging and the tests that prove a refused command changed nothing.
 * Sealed secrets are dropped from the output like every other result. */
static rd_code store_dump_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *prefix = cmd_opt(a, "prefix") ? cmd_opt(a, "prefix") : "/";
    json_t *items = json_array();
    char *after = NULL;
    int64_t rev = 0;
    rd_code rc = RD_OK;
    for (;;) {
        store_range_result res;
        if ((rc = store_range(ctx->store, prefix, after, 1000, rev, &res, err)) != RD_OK)
            break;
        rev = res.revision;
        for (size_t i = 0; i < res.count; i++) {
            json_t *doc = json_loadb(res.kvs[i].value, res.kvs[i].value_len, 0, NULL);
            json_array_append_new(items, json_pack("{s:s, s:o, s:I}", "key", res.kvs[i].key, "value",
                                                   doc ? doc : json_stringn(res.kvs[i].value, res.kvs[i].value_len),
                                                   "mod_revision", (json_int_t)res.kvs[i].mod_revision));
        }
        free(after);
        after = res.count ? strdup(res.kvs[res.count - 1].key) : NULL;
        int more = res.more && res.count;
        store_range_free(&res);
        if (!more)
            break;
    }
    free(after);
    if (rc != RD_OK) {
        json_decref(items);
        return rc;
    }
    *result = json_pack("{s:o, s:I}", "items", items, "revision", (json_int_t)rev);
    return RD_OK;
}

static const cmd_flag store_dump_flags[] = {
    { "prefix", "KEY", CMD_FLAG_VALUE, "only keys starting with KEY (default: all)" },
    { 0 }
};

const cmd_def store_cmd_table[] = {
    { "store dump", "", store_dump_flags, 0, "every key and document in the store (secrets left out)",
      "key,mod_revision", store_dump_cmd },
    { "store info", "", NULL, 0, "show the store URL and its current revision", NULL, store_info_cmd },
    { 0 }
};
