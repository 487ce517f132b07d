/* account_remove.c - `account remove`, and the rule that a store always
 * keeps an admin.
 *
 * An account goes only when nothing of it runs or holds money: no job of
 * its projects (or created by it in a shared project, whose federated fee
 * it pays) still waits or runs, no region, node, device, datastore or
 * reservation of it is live, its wallet and earnings are at zero with
 * nothing held, and its devices' fees are billed.  The refusal names all of
 * that in one line, so an operator learns the whole list at once.
 *
 * What goes with it: the account document, its projects, its membership
 * in other accounts' projects and its provider settings (a GCP key among
 * them; providers have no command of their own to remove them, and a
 * provider without a region runs nothing).  What stays: history, which
 * is immutable or audited -- ledger transfers and the ledger accounts
 * they name (ledger verify needs both), ended jobs, removed nodes and
 * devices, device tenures (billing reads them), audit records, alert
 * stamps.
 *
 * This file calls nothing of account.c (account.c's command table calls
 * in here), hence the direct reads below.
 */
#include "account.h"

#include <string.h>

#include "access.h"
#include "doc.h"
#include "keyspace.h"

rd_code account_remove_check_last_admin(cmd_ctx *ctx, const char *name, const char *what, rd_err *err)
{
    char key[RD_KEY_MAX];
    json_t *all = NULL, *a;
    size_t i;
    int others = 0;
    rd_code rc = tx_list(ctx->tx, KEY_ACCOUNTS, &all, err);
    json_array_foreach(all, i, a) {
        const char *other = doc_str(a, "name");
        json_t *doc = NULL;
        if (rc != RD_OK || strcmp(other, name) == 0 || access_role_of(a) != ACCESS_ADMIN)
            continue;
        /* Guard the admin counted on: two admins demoting or removing each
         * other at once must not both succeed. */
        rc = tx_get(ctx->tx, account_init_key(key, other), &doc, err);
        others += doc && access_role_of(doc) == ACCESS_ADMIN;
        json_decref(doc);
    }
    json_decref(all);
    if (rc == RD_OK && others == 0)
        rc = rd_fail(err, RD_EINVAL, "%s: '%s' is the last admin; make another account admin first", what, name);
    return rc;
}
