/* serve_cmd.c - `serve status`: which controller leads, how many stand by.
 *
 * The leader key and the standby keys are serve_lead.c's; each lives under
 * its process's lease, so a dead controller drops out of this answer once
 * its lease has run out.
 */
#include <jansson.h>
#include <string.h>

#include "cmd.h"
#include "keyspace.h"

static rd_code serve_status_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    store_kv kv;
    int found = 0;
    store_range_result r = { 0 };
    (void)a;
    rd_code rc = store_get(tx_store(ctx->tx), KEY_SERVE_LEADER, &kv, &found, NULL, err);
    if (rc != RD_OK)
        return rc;
    json_t *leader = found ? json_loadb(kv.value, kv.value_len, 0, NULL) : NULL;
    if (found)
        store_kv_free(&kv);
    rc = store_range(tx_store(ctx->tx), KEY_SERVE_STANDBY, NULL, 0, 0, &r, err);
    if (rc != RD_OK) {
        json_decref(leader);
        return rc;
    }
    json_t *lead = json_is_object(leader) ? json_pack("{s:O, s:O, s:O, s:O}", "host", json_object_get(leader, "host"),
                                                      "pid", json_object_get(leader, "pid"), "since",
                                                      json_object_get(leader, "since"), "version",
                                                      json_object_get(leader, "version"))
                                          : json_null();
    *result = json_pack("{s:s, s:o, s:I}", "name", "serve", "leader", lead ? lead : json_null(), "standby",
                        (json_int_t)r.count);
    json_decref(leader);
    store_range_free(&r);
    return *result ? RD_OK : rd_fail(err, RD_ENOMEM, "out of memory");
}

const cmd_def serve_cmd_table[] = {
    { .words = "serve status", .args = "", .help = "which controller (rigdeck serve) leads, and how many stand by",
      .run = serve_status_cmd },
    { 0 }
};
