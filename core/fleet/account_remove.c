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
 * provider without a region runs nothing) and, on a secured store, its
 * etcd user and role (secure_forget).  What stays: history, which
 * is immutable or audited -- ledger transfers and the ledger accounts
 * they name (ledger verify needs both), ended jobs, removed nodes and
 * devices, device tenures (billing reads them), audit records, alert
 * stamps.
 *
 * This file calls nothing of account.c (account.c's command table calls
 * in here), hence the direct reads below.
 */
#include "account.h"

#include <stdio.h>
#include <string.h>

#include "access.h"
#include "doc.h"
#include "job_state.h"
#include "keyspace.h"
#include "ledger.h"
#include "names.h"
#include "num.h"

#define DAY_S 86400
#define LISTED_MAX 3   /* names shown per kind of holding before "..." */

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
        rc = tx_get(ctx->tx, keyspace_account_key(key, other), &doc, err);
        others += doc && access_role_of(doc) == ACCESS_ADMIN;
        json_decref(doc);
    }
    json_decref(all);
    if (rc == RD_OK && others == 0)
        rc = rd_fail(err, RD_EINVAL, "%s: '%s' is the last admin; make another account admin first", what, name);
    return rc;
}

/* ---- what keeps an account ---------------------------------------------- */

/* Adds "N nouns (a, b, c, ...)" to parts when names is not empty. */
static void holding_add_named(json_t *parts, const char *noun, const char *nouns, const json_t *names)
{
    char list[LISTED_MAX * (NAMES_MAX + 2) + 8] = "";
    size_t n = json_array_size(names), len = 0;
    if (n == 0)
        return;
    for (size_t i = 0; i < n && i < LISTED_MAX && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
                                json_string_value(json_array_get(names, i)));
    json_array_append_new(parts, json_sprintf("%zu %s (%s%s)", n, n == 1 ? noun : nouns, list,
                                              n > LISTED_MAX ? ", ..." : ""));
}

/* Jobs that still wait or run and that name pays for: in its projects, or
 * created by it in another's project. */
static rd_code holding_jobs(cmd_ctx *ctx, const char *name, json_t *parts, rd_err *err)
{
    json_t *jobs = NULL, *j, *ids = json_array();
    size_t i;
    rd_code rc = tx_list(ctx->tx, KEY_JOBS, &jobs, err);
    json_array_foreach(jobs, i, j)
        if (!job_state_ended(doc_str(j, "state")) &&
            (strcmp(doc_str(j, "project_owner"), name) == 0 || strcmp(doc_str(j, "creator"), name) == 0))
            json_array_append_new(ids, json_string(doc_str(j, "id")));
    holding_add_named(parts, "unfinished job", "unfinished jobs", ids);
    json_decref(ids);
    json_decref(jobs);
    return rc;
}

/* Live fleet and data objects the account owns (removed ones are history). */
static rd_code holding_fleet(cmd_ctx *ctx, const char *name, json_t *parts, rd_err *err)
{
    static const struct { const char *prefix, *noun, *nouns; } kinds[] = {
        { KEY_REGIONS, "region", "regions" },
        { KEY_NODES, "node", "nodes" },
        { KEY_DEVICES, "device", "devices" },
        { KEY_DATASTORES, "datastore", "datastores" },
        { KEY_RESERVATIONS, "reservation", "reservations" },
        /* data objects (core/data/): a key's sealed value goes only when its owner removes it */
        { KEY_DATAKEYS, "key", "keys" },
        { KEY_DATASETS, "dataset", "datasets" },
        { KEY_CHECKPOINTS, "checkpoint", "checkpoints" },
        { KEY_MODELS, "model", "models" },
    };
    rd_code rc = RD_OK;
    for (size_t k = 0; rc == RD_OK && k < sizeof kinds / sizeof kinds[0]; k++) {
        json_t *items = NULL, *d, *names = json_array();
        size_t i;
        rc = tx_list(ctx->tx, kinds[k].prefix, &items, err);
        json_array_foreach(items, i, d)
            if (strcmp(doc_str(d, "owner"), name) == 0 && strcmp(doc_str(d, "state"), "removed") != 0)
                json_array_append_new(names, json_string(doc_str(d, "name")));
        holding_add_named(parts, kinds[k].noun, kinds[k].nouns, names);
        json_decref(names);
        json_decref(items);
    }
    return rc;
}

/* Money in or held for the account's wallet and earnings.  The reads are
 * guarded: a charge or payout posted meanwhile makes this commit conflict. */
static rd_code holding_money(cmd_ctx *ctx, const char *name, json_t *parts, rd_err *err)
{
    char wallet[LEDGER_ACCOUNT_MAX], earnings[LEDGER_ACCOUNT_MAX], c[NUM_CREDITS_BUFLEN];
    int64_t balance = 0, held = 0, earned = 0, earn_held = 0;
    rd_code rc = ledger_balance(ctx->tx, ledger_wallet_id(wallet, name), &balance, &held, err);
    if (rc == RD_OK)
        rc = ledger_balance(ctx->tx, ledger_earnings_id(earnings, name), &earned, &earn_held, err);
    if (rc != RD_OK)
        return rc;
    if (balance)
        json_array_append_new(parts, json_sprintf("a wallet balance of %s credits", num_format_credits(balance, c)));
    if (earned)
        json_array_append_new(parts, json_sprintf("earnings of %s credits not yet paid out",
                                                  num_format_credits(earned, c)));
    if (held || earn_held)
        json_array_append_new(parts, json_sprintf("%s credits held in pending transfers",
                                                  num_format_credits(held + earn_held, c)));
    return RD_OK;
}

/* Device fees still to post: the last day any of its devices counted
 * (billing.md rule 4: a device counts on the day it is added and on every
 * day that begins before its removal) must have its fee transfer. */
static rd_code holding_device_fees(cmd_ctx *ctx, const char *name, json_t *parts, rd_err *err)
{
    char prefix[RD_KEY_MAX], id[LEDGER_ID_MAX + 1], ts[RDTIME_BUFLEN];
    json_t *tenures = NULL, *t, *fee = NULL;
    size_t i;
    rd_time last = -1;
    rd_code rc = tx_list(ctx->tx, tx_key(prefix, KEY_DEVICE_TENURES "%s/", name), &tenures, err);
    json_array_foreach(tenures, i, t) {
        rd_time added = doc_time(t, "added_at"), removed = doc_time(t, "removed_at");
        rd_time day = added - added % DAY_S;
        if (removed > 0 && removed - 1 - (removed - 1) % DAY_S > day)
            day = removed - 1 - (removed - 1) % DAY_S;
        if (removed > 0 && day > last)   /* a device not yet removed is counted above */
            last = day;
    }
    json_decref(tenures);
    if (rc != RD_OK || last < 0)
        return rc;
    snprintf(id, sizeof id, "device_fee/%s/%.10s", name, rdtime_format(last, ts));
    if ((rc = ledger_transfer_get(ctx->tx, id, &fee, err)) == RD_OK && !fee)
        json_array_append_new(parts, json_sprintf("device fees not yet billed for %.10s (bill run once that day "
                                                  "has ended)", ts));
    json_decref(fee);
    return rc;
}

/* Joins parts as "a, b and c". */
static void holding_join(const json_t *parts, char *buf, size_t len)
{
    size_t n = json_array_size(parts), used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ",
                                 json_string_value(json_array_get(parts, i)));
}

/* ---- what goes with it -------------------------------------------------- */

/* 1 when the project's members name account (account.c has the same
 * test, but this file may not call account.c: see the top). */
static int project_names_member(const json_t *project, const char *account)
{
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(project, "members"), i, m)
        if (json_is_string(m) && strcmp(json_string_value(m), account) == 0)
            return 1;
    return 0;
}

/* Deletes name's projects and takes it out of every other project's
 * members; *owned and *left get "NAME" and "OWNER/NAME". */
static rd_code remove_projects(cmd_ctx *ctx, const char *name, json_t *owned, json_t *left, rd_err *err)
{
    char key[RD_KEY_MAX];
    json_t *all = NULL, *p;
    size_t i;
    rd_code rc = tx_list(ctx->tx, KEY_PROJECTS, &all, err);
    json_array_foreach(all, i, p) {
        const char *owner = doc_str(p, "owner"), *pname = doc_str(p, "name");
        json_t *doc = NULL, *members, *m;
        size_t j;
        if (rc != RD_OK)
            break;
        /* Read (and guard) only the projects this changes: a store's every
         * project would swell the commit past a backend's limit on compares. */
        if (strcmp(owner, name) != 0 && !project_names_member(p, name))
            continue;
        if ((rc = tx_get(ctx->tx, keyspace_project_key(key, owner, pname), &doc, err)) != RD_OK || !doc)
            continue;
        if (strcmp(owner, name) == 0) {
            rc = tx_delete(ctx->tx, key, err);
            json_array_append_new(owned, json_string(pname));
            json_decref(doc);
            continue;
        }
        members = json_object_get(doc, "members");
        int was_member = 0;
        for (j = json_array_size(members); j-- > 0;)
            if (json_is_string(m = json_array_get(members, j)) && strcmp(json_string_value(m), name) == 0) {
                json_array_remove(members, j);
                was_member = 1;
            }
        if (was_member) {
            json_array_append_new(left, json_sprintf("%s/%s", owner, pname));
            rc = tx_put(ctx->tx, key, doc, err);
        } else {
            json_decref(doc);
        }
    }
    json_decref(all);
    return rc;
}

/* Deletes the account's provider settings (sealed keys with them). */
static rd_code remove_providers(cmd_ctx *ctx, const char *name, json_t *removed, rd_err *err)
{
    char prefix[RD_KEY_MAX], key[RD_KEY_MAX];
    json_t *items = NULL, *p;
    size_t i;
    rd_code rc = tx_list(ctx->tx, tx_key(prefix, KEY_PROVIDERS "%s/", name), &items, err);
    json_array_foreach(items, i, p) {
        if (rc != RD_OK)
            break;
        rc = tx_delete(ctx->tx, tx_key(key, "%s%s", prefix, doc_str(p, "name")), err);
        json_array_append_new(removed, json_string(doc_str(p, "name")));
    }
    json_decref(items);
    return rc;
}

/* ---- the command -------------------------------------------------------- */

/* The flat refusals: names that are never removed, and the last admin. */
static rd_code remove_check_name(cmd_ctx *ctx, const json_t *acct, const char *name, rd_err *err)
{
    if (strcmp(name, "platform") == 0)
        return rd_fail(err, RD_EINVAL, "account remove: 'platform' is the installation's revenue account and cannot "
                       "be removed");
    if (access_role_of(acct) == ACCESS_ADMIN)
        return account_remove_check_last_admin(ctx, name, "account remove", err);
    return RD_OK;
}

/* Everything that keeps the account, as one refusal (RD_OK: nothing). */
static rd_code remove_check_holdings(cmd_ctx *ctx, const char *name, rd_err *err)
{
    json_t *parts = json_array();
    rd_code rc = parts ? holding_jobs(ctx, name, parts, err) : rd_fail(err, RD_ENOMEM, "out of memory");
    if (rc == RD_OK)
        rc = holding_fleet(ctx, name, parts, err);
    if (rc == RD_OK)
        rc = holding_money(ctx, name, parts, err);
    if (rc == RD_OK)
        rc = holding_device_fees(ctx, name, parts, err);
    if (rc == RD_OK && json_array_size(parts) > 0) {
        char what[sizeof ((rd_err *)0)->msg];
        holding_join(parts, what, sizeof what);
        rc = rd_fail(err, RD_EINVAL, "account remove: '%s' still has %s; stop, remove or pay out these first", name,
                     what);
    }
    json_decref(parts);
    return rc;
}

rd_code account_remove_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    char key[RD_KEY_MAX];
    const char *name = cmd_arg(a, 0);
    json_t *acct = NULL;
    rd_code rc = names_check("account", name, err);
    if (rc == RD_OK && strcmp(name, "external") == 0)
        return rd_fail(err, RD_EINVAL, "account remove: 'external' is the ledger's outside world, never an account");
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, keyspace_account_key(key, name), &acct, err);
    if (rc == RD_OK && !acct)
        rc = rd_fail(err, RD_ENOTFOUND, "account remove: account '%s' does not exist", name);
    if (rc == RD_OK)
        rc = remove_check_name(ctx, acct, name, err);
    if (rc == RD_OK)
        rc = remove_check_holdings(ctx, name, err);
    json_t *owned = json_array(), *left = json_array(), *providers = json_array();
    if (rc == RD_OK && (rc = tx_delete(ctx->tx, key, err)) == RD_OK &&
        (rc = remove_projects(ctx, name, owned, left, err)) == RD_OK &&
        (rc = remove_providers(ctx, name, providers, err)) == RD_OK &&
        (rc = secure_forget(ctx, name, err)) == RD_OK) {   /* its etcd user, on a secured store */
        json_object_set_new(acct, "state", json_string("removed"));
        json_object_set_new(acct, "removed_projects", json_incref(owned));
        json_object_set_new(acct, "left_projects", json_incref(left));
        json_object_set_new(acct, "removed_providers", json_incref(providers));
        *result = json_incref(acct);
    }
    json_decref(owned);
    json_decref(left);
    json_decref(providers);
    json_decref(acct);
    return rc;
}
