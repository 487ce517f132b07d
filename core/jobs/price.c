/* price.c - market prices: what a GPU-hour of a type costs on someone
 * else's capacity (`price set`, `price list`).  The scheduler locks a
 * worker's price from these when it places it (sched_index.c). */
#include <string.h>

#include "access.h"
#include "catalog.h"
#include "cmd.h"
#include "doc.h"
#include "fleet.h"
#include "keyspace.h"
#include "num.h"

static rd_code price_set_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    char key[RD_KEY_MAX], ts[RDTIME_BUFLEN];
    int64_t price = 0;
    rd_code rc = catalog_check_gpu("GPU_TYPE", cmd_arg(a, 0), err);
    if (rc == RD_OK)
        rc = num_parse_credits("PRICE", cmd_arg(a, 1), 1, 1000 * NUM_UCR_PER_CREDIT, &price, err);
    /* billing.md: a market price below the usage fee is refused, since the
     * platform keeps the fee first and the host would earn less than
     * nothing.  At exactly the fee the host earns 0: allowed, as only
     * "below" is refused. */
    const gpu_type *g = rc == RD_OK ? catalog_gpu(cmd_arg(a, 0)) : NULL;
    if (g && price < g->usage_fee_ucr) {
        char fee[NUM_CREDITS_BUFLEN];
        rc = rd_fail(err, RD_EINVAL, "PRICE must be at least the usage fee of %s (%s GPUs: %s credits per GPU-hour), got '%s'",
                     g->id, catalog_class_name(g->cls), num_format_credits(g->usage_fee_ucr, fee), cmd_arg(a, 1));
    }
    if (rc == RD_OK && !access_actor_is_admin(ctx))
        rc = rd_fail(err, RD_EPERM, "price set: market prices are set by an administering account; --as is '%s'", ctx->actor);
    if (rc != RD_OK)
        return rc;
    json_t *old = NULL;
    if ((rc = tx_get(ctx->tx, tx_key(key, KEY_PRICES "%s", cmd_arg(a, 0)), &old, err)) != RD_OK)
        return rc;
    json_decref(old);
    json_t *doc = json_pack("{s:s, s:I, s:s}", "name", cmd_arg(a, 0), "price_ucr", (json_int_t)price, "updated_at",
                            rdtime_format(ctx->now, ts));
    *result = json_incref(doc);
    return tx_put(ctx->tx, key, doc, err);
}

static rd_code price_list_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *prices = NULL, *p, *items = json_array();
    size_t i;
    (void)a;
    rd_code rc = tx_list(ctx->tx, KEY_PRICES, &prices, err);
    if (rc != RD_OK) {
        json_decref(items);
        return rc;
    }
    for (i = 0; i < catalog_gpu_count(); i++) {
        const gpu_type *g = catalog_gpu_at(i);
        json_t *price = json_null();
        size_t k;
        json_array_foreach(prices, k, p)
            if (strcmp(doc_str(p, "name"), g->id) == 0)
                price = json_incref(json_object_get(p, "price_ucr"));
        json_array_append_new(items, json_pack("{s:s, s:s, s:o, s:I}", "name", g->id, "class", catalog_class_name(g->cls),
                                               "price_ucr", price, "usage_fee_ucr", (json_int_t)g->usage_fee_ucr));
    }
    json_decref(prices);
    *result = json_pack("{s:o}", "items", items);
    return RD_OK;
}

const cmd_def price_cmd_table[] = {
    { .words = "price set", .args = "GPU_TYPE PRICE", .options = CMD_MUTATES,
      .help = "set the market price (credits per GPU-hour)", .run = price_set_cmd, .access = CMD_ACCESS_MONEY,
      .access_why = "may set market prices" },
    { .words = "price list", .args = "", .help = "market prices and usage fees per GPU type",
      .columns = "name,class,price_ucr,usage_fee_ucr", .run = price_list_cmd },
    { 0 }
};
