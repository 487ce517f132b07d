/* account_init.h - a new store's first contents and an older store's
 * upgrades (account_init.c), which the executor reaches through the hooks
 * app.c installs. */
#ifndef RD_ACCOUNT_INIT_H
#define RD_ACCOUNT_INIT_H

#include <jansson.h>

#include "cmd.h"
#include "err.h"
#include "rdtime.h"
#include "store.h"
#include "tx.h"

/* Creates the initial accounts (default, platform), the default alert
 * rules and environments in a new store; a no-op when the store is
 * initialised already.  Safe with concurrent callers.  (The store_init
 * hook.) */
rd_code account_init_store(store_t *st, rd_time now, rd_err *err);

/* Upgrades an older store's documents: nodes get their agent mode, device
 * configurations' env values are sealed; store_notice says what changed.
 * Errors are ignored: the store behaves as before.  (The store_upgrade
 * hook, called once per context by cmd_ctx_upgrade.) */
void account_init_upgrade(cmd_ctx *ctx);

/* Checks that actor names an existing account (guarded in tx). */
rd_code account_init_check_actor(rd_tx *tx, const char *actor, rd_err *err);

#endif
