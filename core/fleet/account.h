/* account.h - tenant accounts and their projects.
 *
 * Keys: /rigdeck/accounts/<name> and /rigdeck/projects/<owner>/<name>.
 * Every account owns a project called "default".  A project's owner may
 * share it with other accounts, who may then create jobs in it.
 */
#ifndef RD_ACCOUNT_H
#define RD_ACCOUNT_H

#include <jansson.h>

#include "cmd.h"
#include "rdtime.h"
#include "tx.h"

/* A new project document (no members, on_quota_exhausted move). */
json_t *account_project_new(const char *name, const char *owner, rd_time now);

/* Stages account name (role: "admin", "operator", "member" or "viewer",
 * checked by the caller) and its "default" project in tx, guarded so both
 * keys are still free at commit; RD_EEXISTS when the account exists.
 * *account (may be NULL) gets the new document.  A new store's first
 * accounts are staged with it too (core/app/account_init.c). */
rd_code account_stage_new(rd_tx *tx, const char *name, const char *plan, const char *role, rd_time now,
                          json_t **account, rd_err *err);

/* Reads account name into *doc (new reference); RD_ENOTFOUND names field. */
rd_code account_get(cmd_ctx *ctx, const char *field, const char *name, json_t **doc, rd_err *err);

/* 1 when the account has configured at least one mining wallet address. */
int account_has_mining_wallet(cmd_ctx *ctx, const char *name);

/* Finds the project ref ("NAME" or "OWNER/NAME") as seen by the acting
 * account: its own project NAME, else the one project NAME shared with it.
 * *doc gets the project (new reference). */
rd_code account_project_resolve(cmd_ctx *ctx, const char *ref, json_t **doc, rd_err *err);

/* 1 when account is one of the project's members (it was shared with it). */
int account_project_has_member(const json_t *project, const char *account);

/* RD_OK when the acting account administers the store, else RD_EPERM
 * naming `what`. */
rd_code account_require_admin(cmd_ctx *ctx, const char *what, rd_err *err);

/* ---- account_remove.c -------------------------------------------------- */

/* RD_OK when an account other than name (which is an admin) is an admin
 * too, guarding what it read; else RD_EINVAL "<what>: 'name' is the last
 * admin; make another account admin first". */
rd_code account_remove_check_last_admin(cmd_ctx *ctx, const char *name, const char *what, rd_err *err);

/* `account remove NAME`: refused, naming everything that keeps it, while
 * the account runs or holds anything; else stages the deletion of the
 * account, its projects, its memberships and its providers. */
rd_code account_remove_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err);

#endif
