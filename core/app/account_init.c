/* account_init.c - the documents of a new store, and the upgrades of an
 * older one.
 *
 * A new store gets its meta document and the accounts "default" (team
 * plan, role admin: it administers the store), "platform" (the
 * installation's revenue; role member, it never acts) and the default alert
 * rules and environments in one guarded transaction, so two processes
 * opening a new store at once initialise it once.  A new account is staged
 * by core/fleet/account.c, the rules and the environments by their own
 * folders; this file, at the top of core/, only puts them together.  The
 * executor (core/cmd/cmd.c) calls in here through the hooks app.c installs,
 * with the store or the transaction, the actor and the clock only.
 */
#include "account_init.h"

#include <string.h>

#include "account.h"
#include "alerts.h"
#include "audit_log.h"
#include "device_config.h"
#include "environment.h"
#include "keyspace.h"
#include "names.h"
#include "node_agent.h"

#define META_KEY KEY_META_STORE
#define ADMIN_ACCOUNT "default"

static rd_code bootstrap_once(rd_tx *tx, rd_time now, rd_err *err)
{
    json_t *meta = NULL;
    char ts[RDTIME_BUFLEN];
    rd_code rc = tx_get(tx, META_KEY, &meta, err);
    if (rc != RD_OK || meta) {
        json_decref(meta);
        return rc;
    }
    rc = tx_put(tx, META_KEY,
                json_pack("{s:s, s:i, s:s, s:i, s:b, s:b, s:b}", "name", "rigdeck", "schema", 1, "created_at",
                          rdtime_format(now, ts), ALERT_RULE_SEEDED_MARK, ALERT_RULE_GENERATION,
                          NODE_AGENT_UPGRADE_MARK, 1, ENVIRONMENT_SEEDED_MARK, 1, DEVICE_ENV_SEALED_MARK, 1),
                err);
    if (rc == RD_OK)
        rc = account_stage_new(tx, ADMIN_ACCOUNT, "team", "admin", now, NULL, err);
    if (rc == RD_OK)
        rc = account_stage_new(tx, "platform", "enterprise", "member", now, NULL, err);
    if (rc == RD_OK)
        rc = alert_rule_stage_defaults(tx, 0, now, err);
    if (rc == RD_OK)
        rc = environment_stage_defaults(tx, now, err);
    if (rc == RD_OK)
        rc = audit_log_append(tx, "rigdeck", "(new store initialised)", now, err);
    if (rc == RD_OK)
        rc = tx_commit(tx, NULL, err);
    return rc;
}

rd_code account_init_store(store_t *st, rd_time now, rd_err *err)
{
    /* Two processes may open a new store at once: the loser's commit
     * conflicts, and its retry finds the store initialised. */
    rd_tx *tx = tx_new(st);
    if (!tx)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    rd_code rc;
    for (int attempt = 0; attempt < 10; attempt++) {
        rc = bootstrap_once(tx, now, err);
        if (rc != RD_ECONFLICT)
            break;
        tx_reset(tx);
    }
    tx_free(tx);
    return rc;
}

rd_code account_init_check_actor(rd_tx *tx, const char *actor, rd_err *err)
{
    char key[RD_KEY_MAX];
    json_t *doc = NULL;
    rd_code rc = names_check("--as", actor, err);
    if (rc == RD_OK)
        rc = tx_get(tx, keyspace_account_key(key, actor), &doc, err);
    if (rc == RD_OK && !doc)
        rc = rd_fail(err, RD_ENOTFOUND, "--as: account '%s' does not exist", actor);
    json_decref(doc);
    return rc;
}

void account_init_upgrade(cmd_ctx *ctx)
{
    size_t required = 0, none = 0;
    rd_err ignored = { 0 };
    if (node_agent_upgrade(ctx->store, &required, &none, &ignored) == RD_OK && required + none > 0)
        store_notice(1, "store: upgraded to agent modes: %zu node(s) that have had an agent are agent_mode required "
                     "(work only while their agent is online), %zu without one are none (manual: placement is the "
                     "start, as before)", required, none);
    int sealed = 0, waiting = 0;
    if (device_config_upgrade(ctx, &sealed, &waiting, &ignored) == RD_OK && sealed)
        store_notice(1, "store: sealed the env values of %d device configuration(s) stored in plain text", sealed);
}
