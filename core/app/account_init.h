/* account_init.h - new accounts and a new store's first contents
 * (account_init.c). */
#ifndef RD_ACCOUNT_INIT_H
#define RD_ACCOUNT_INIT_H

#include <jansson.h>

#include "err.h"
#include "rdtime.h"
#include "store.h"
#include "tx.h"

/* The key of account name's document. */
const char *account_init_key(char buf[RD_KEY_MAX], const char *name);

/* The key of project name of owner. */
const char *account_project_key(char buf[RD_KEY_MAX], const char *owner, const char *name);

/* A new project document (no members, on_quota_exhausted move). */
json_t *account_project_new(const char *name, const char *owner, rd_time now);

/* Stages account name (role: "admin", "operator", "member" or "viewer",
 * checked by the caller) and its "default" project in tx, guarded so both
 * keys are still free at commit; RD_EEXISTS when the account exists.
 * *account (may be NULL) gets the new document. */
rd_code account_init_stage(rd_tx *tx, const char *name, const char *plan, const char *role, rd_time now,
                           json_t **account, rd_err *err);

/* Creates the initial accounts (default, platform) in a new store; a no-op
 * when the store is initialised already.  Safe with concurrent callers. */
rd_code account_init_store(store_t *st, rd_time now, rd_err *err);

/* The meta document's field saying which generation of default alert rules
 * the store has had (ALERT_RULE_GENERATION; `true` in stores from before
 * generations, meaning 1), so a rule the operator removed is never added
 * again and a rule born later still reaches an older store. */
#define ACCOUNT_INIT_ALERT_RULES_MARK "alert_rules_seeded"

/* A store made before alerts existed, or before a newer generation of
 * default rules, gets the rules it lacks, once: stages them and the mark in
 * tx when the meta document's mark is older than ALERT_RULE_GENERATION
 * (alert eval calls this; opening a store never writes to an old one). */
rd_code account_init_upgrade_alert_rules(rd_tx *tx, rd_time now, rd_err *err);

/* Checks that actor names an existing account (guarded in tx). */
rd_code account_init_check_actor(rd_tx *tx, const char *actor, rd_err *err);

#endif
