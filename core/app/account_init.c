/* account_init.c - the documents of a new account, and of a new store.
 *
 * A new account is its document plus its "default" project, staged
 * together.  A new store gets its meta document and the accounts "default"
 * (team plan, role admin: it administers the store), "platform" (the
 * installation's revenue; role member, it never acts) and the default alert
 * rules and environments in one guarded transaction, so two processes opening a new store at
 * once initialise it once.  The executor (cmd.c) calls in here
 * with the transaction, the actor and the clock only.
 */
#include "account_init.h"

#include <string.h>

#include "alerts.h"
#include "audit_log.h"
#include "device_config.h"
#include "environment.h"
#include "keyspace.h"
#include "names.h"
#include "node_agent.h"

#define META_KEY KEY_META_STORE
#define ADMIN_ACCOUNT "default"

const char *account_init_key(char buf[RD_KEY_MAX], const char *name)
{
    return tx_key(buf, KEY_ACCOUNTS "%s", name);
}

const char *account_project_key(char buf[RD_KEY_MAX], const char *owner, const char *name)
{
    return tx_key(buf, KEY_PROJECTS "%s/%s", owner, name);
}

/* "admin" repeats what "role" says for readers older than roles, which
 * know only that boolean (access.c reads "role" first). */
static json_t *account_new(const char *name, const char *plan, const char *role, rd_time now)
{
    char ts[RDTIME_BUFLEN];
    return json_pack("{s:s, s:s, s:s, s:b, s:s}", "name", name, "plan", plan, "role", role, "admin",
                     strcmp(role, "admin") == 0, "created_at", rdtime_format(now, ts));
}

json_t *account_project_new(const char *name, const char *owner, rd_time now)
{
    char ts[RDTIME_BUFLEN];
    return json_pack("{s:s, s:s, s:[], s:s, s:s}", "name", name, "owner", owner, "members", "on_quota_exhausted",
                     "move", "created_at", rdtime_format(now, ts));
}

rd_code account_init_stage(rd_tx *tx, const char *name, const char *plan, const char *role, rd_time now,
                           json_t **account, rd_err *err)
{
    char akey[RD_KEY_MAX], pkey[RD_KEY_MAX];
    json_t *old_account = NULL, *old_project = NULL;

    /* Guard both keys: they must still be free when this commits. */
    rd_code rc = tx_get(tx, account_init_key(akey, name), &old_account, err);
    if (rc == RD_OK)
        rc = tx_get(tx, account_project_key(pkey, name, "default"), &old_project, err);
    if (rc == RD_OK && old_account)
        rc = rd_fail(err, RD_EEXISTS, "account '%s' exists already", name);
    json_decref(old_account);
    json_decref(old_project);
    if (rc != RD_OK)
        return rc;
    json_t *acct = account_new(name, plan, role, now);
    if (!acct)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    if (account)
        *account = json_incref(acct);
    rc = tx_put(tx, akey, acct, err);
    if (rc == RD_OK)
        rc = tx_put(tx, pkey, account_project_new("default", name, now), err);
    return rc;
}

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
                          rdtime_format(now, ts), ACCOUNT_INIT_ALERT_RULES_MARK, ALERT_RULE_GENERATION,
                          NODE_AGENT_UPGRADE_MARK, 1, ENVIRONMENT_SEEDED_MARK, 1, DEVICE_ENV_SEALED_MARK, 1),
                err);
    if (rc == RD_OK)
        rc = account_init_stage(tx, ADMIN_ACCOUNT, "team", "admin", now, NULL, err);
    if (rc == RD_OK)
        rc = account_init_stage(tx, "platform", "enterprise", "member", now, NULL, err);
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
        rc = tx_get(tx, account_init_key(key, actor), &doc, err);
    if (rc == RD_OK && !doc)
        rc = rd_fail(err, RD_ENOTFOUND, "--as: account '%s' does not exist", actor);
    json_decref(doc);
    return rc;
}

/* The generation of default rules a store has had: the mark was `true`
 * before rules had generations (that was generation 1). */
static int account_init_rule_generation(const json_t *meta)
{
    const json_t *mark = json_object_get(meta, ACCOUNT_INIT_ALERT_RULES_MARK);
    if (json_is_integer(mark))
        return (int)json_integer_value(mark);
    return json_is_true(mark) ? 1 : 0;
}

rd_code account_init_upgrade_alert_rules(rd_tx *tx, rd_time now, rd_err *err)
{
    json_t *meta = NULL;
    rd_code rc = tx_get(tx, META_KEY, &meta, err);
    if (rc == RD_OK && meta && account_init_rule_generation(meta) < ALERT_RULE_GENERATION) {
        rc = alert_rule_stage_defaults(tx, account_init_rule_generation(meta), now, err);
        json_object_set_new(meta, ACCOUNT_INIT_ALERT_RULES_MARK, json_integer(ALERT_RULE_GENERATION));
        if (rc == RD_OK)
            rc = tx_put(tx, META_KEY, json_incref(meta), err);
    }
    json_decref(meta);
    return rc;
}
