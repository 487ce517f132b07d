/* metrics_prune.c - `metrics prune`: the history of nodes that are gone.
 *
 * A node's history is bounded while it lives (metrics.h); a node that was
 * removed would keep its few hundred documents for ever, and a fleet that
 * replaces machines for years would grow without bound.  The controller
 * runs this with billing's cadence.  Blocks and days go first, the `now`
 * document last, in steps of at most PRUNE_STEP deletes (etcd caps the
 * operations of one transaction), so a run cut short leaves the `now`
 * document by which the next run finds the rest.
 */
#include "metrics.h"

#include <string.h>

#include "access_view.h"
#include "doc.h"
#include "keyspace.h"

enum { PRUNE_STEP = 100 };

/* Deletes every key under prefix, committing every PRUNE_STEP deletes. */
static rd_code delete_under(cmd_ctx *ctx, const char *prefix, size_t *pending, size_t *deleted, rd_err *err)
{
    store_range_result r;
    char after[RD_KEY_MAX] = "";
    rd_code rc;
    do {
        memset(&r, 0, sizeof r);
        rc = store_range(tx_store(ctx->tx), prefix, after[0] ? after : NULL, PRUNE_STEP, 0, &r, err);
        for (size_t i = 0; rc == RD_OK && i < r.count; i++) {
            rc = tx_delete(ctx->tx, r.kvs[i].key, err);
            snprintf(after, sizeof after, "%s", r.kvs[i].key);
            (*deleted)++;
            if (rc == RD_OK && ++*pending >= PRUNE_STEP) {
                rc = cmd_commit_step(ctx, err);
                *pending = 0;
            }
        }
        int more = rc == RD_OK && r.more;
        store_range_free(&r);
        if (!more)
            break;
    } while (1);
    return rc;
}

static rd_code metrics_prune_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *nows = NULL, *nodes = NULL, *doc;
    size_t i, pending = 0, deleted = 0;
    char key[RD_KEY_MAX];
    (void)a;
    rd_code rc = access_view_require_staff(ctx, "metrics prune", err);
    if (rc != RD_OK)
        return rc;
    if (!(nodes = json_array()))
        return rd_fail(err, RD_ENOMEM, "out of memory");
    rc = tx_list(ctx->tx, KEY_METRICS "now/", &nows, err);
    json_array_foreach(nows, i, doc) {
        const char *name = doc_str(doc, "node");
        json_t *node = NULL;
        if (rc == RD_OK)
            rc = tx_get(ctx->tx, tx_key(key, KEY_NODES "%s", name), &node, err);
        int gone = rc == RD_OK && (!node || strcmp(doc_str(node, "state"), "removed") == 0);
        json_decref(node);
        if (!gone)
            continue;
        if (rc == RD_OK)
            rc = delete_under(ctx, tx_key(key, KEY_METRICS "min/%s/", name), &pending, &deleted, err);
        if (rc == RD_OK)
            rc = delete_under(ctx, tx_key(key, KEY_METRICS "hour/%s/", name), &pending, &deleted, err);
        if (rc == RD_OK)
            rc = tx_delete(ctx->tx, tx_key(key, KEY_METRICS "last/%s", name), err);
        if (rc == RD_OK)
            rc = tx_delete(ctx->tx, tx_key(key, KEY_METRICS "now/%s", name), err);
        if (rc == RD_OK) {
            deleted += 2;
            pending += 2;
            json_array_append_new(nodes, json_string(name));
        }
    }
    json_decref(nows);
    if (rc != RD_OK) {
        json_decref(nodes);
        return rc;
    }
    *result = json_pack("{s:s, s:o, s:I}", "name", "metrics", "nodes", nodes, "documents", (json_int_t)deleted);
    return *result ? RD_OK : rd_fail(err, RD_ENOMEM, "out of memory");
}

const cmd_def metrics_prune_cmd_table[] = {
    { .words = "metrics prune", .args = "", .options = CMD_MUTATES,
      .help = "delete the vital stats history of removed nodes (the controller runs it with billing)",
      .run = metrics_prune_cmd, .access = CMD_ACCESS_STAFF },
    { 0 }
};
