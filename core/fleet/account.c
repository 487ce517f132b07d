/* account.c - accounts and project documents: a new account with its
 * "default" project (a new store's first accounts are staged the same way
 * by core/app/account_init.c).  The project commands are project.c's; `account remove` and
 * the last-admin rule are account_remove.c's.
 *
 * An account's role (access.h) says what it may do: a new store's
 * "default" is an admin and administers the store; only admins create
 * accounts, change roles and act on others' behalf.  "platform" is the
 * installation's revenue account and never acts; "external" is reserved
 * for the ledger's view of the outside world and is never a tenant.
 */
#include "account.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "access.h"
#include "dataloc.h"
#include "doc.h"
#include "keyspace.h"
#include "ledger.h"
#include "names.h"
#include "num.h"

#define ADMIN_ACCOUNT "default"

static const char *const reserved_names[] = { "external", "rigdeck", "system", NULL };

rd_code account_get(cmd_ctx *ctx, const char *field, const char *name, json_t **doc, rd_err *err)
{
    char key[RD_KEY_MAX];
    rd_code rc = names_check(field, name, err);
    if (rc != RD_OK)
        return rc;
    rc = tx_get(ctx->tx, keyspace_account_key(key, name), doc, err);
    if (rc == RD_OK && !*doc)
        rc = rd_fail(err, RD_ENOTFOUND, "%s: account '%s' does not exist", field, name);
    return rc;
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

rd_code account_stage_new(rd_tx *tx, const char *name, const char *plan, const char *role, rd_time now,
                           json_t **account, rd_err *err)
{
    char akey[RD_KEY_MAX], pkey[RD_KEY_MAX];
    json_t *old_account = NULL, *old_project = NULL;

    /* Guard both keys: they must still be free when this commits. */
    rd_code rc = tx_get(tx, keyspace_account_key(akey, name), &old_account, err);
    if (rc == RD_OK)
        rc = tx_get(tx, keyspace_project_key(pkey, name, "default"), &old_project, err);
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

int account_project_has_member(const json_t *project, const char *account)
{
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(project, "members"), i, m)
        if (strcmp(json_string_value(m) ? json_string_value(m) : "", account) == 0)
            return 1;
    return 0;
}

rd_code account_project_resolve(cmd_ctx *ctx, const char *ref, json_t **doc, rd_err *err)
{
    char key[RD_KEY_MAX];
    const char *slash = strchr(ref, '/');
    rd_code rc;

    *doc = NULL;
    if (slash) {
        char owner[NAMES_MAX + 2];
        if ((size_t)(slash - ref) > NAMES_MAX)
            return rd_fail(err, RD_EINVAL, "project '%s': the owner part is longer than %d characters", ref, NAMES_MAX);
        snprintf(owner, sizeof owner, "%.*s", (int)(slash - ref), ref);
        if ((rc = names_check("project owner", owner, err)) != RD_OK ||
            (rc = names_check("project name", slash + 1, err)) != RD_OK)
            return rc;
        rc = tx_get(ctx->tx, keyspace_project_key(key, owner, slash + 1), doc, err);
        if (rc == RD_OK && !*doc)
            return rd_fail(err, RD_ENOTFOUND, "project '%s' does not exist", ref);
        if (rc == RD_OK && strcmp(owner, ctx->actor) != 0 && !account_project_has_member(*doc, ctx->actor) &&
            !access_actor_is_admin(ctx)) {
            json_decref(*doc);
            *doc = NULL;
            return rd_fail(err, RD_EPERM, "project '%s' is not shared with account '%s'", ref, ctx->actor);
        }
        return rc;
    }
    if ((rc = names_check("project name", ref, err)) != RD_OK)
        return rc;
    if ((rc = tx_get(ctx->tx, keyspace_project_key(key, ctx->actor, ref), doc, err)) != RD_OK || *doc)
        return rc;

    /* Not the actor's own: a project of that name shared with it; for an
     * administering account (which creates projects with --owner and then
     * shares them by the same bare name), any account's project of that name. */
    json_t *all = NULL, *p, *hit = NULL;
    size_t i, hits = 0;
    if ((rc = tx_list(ctx->tx, KEY_PROJECTS, &all, err)) != RD_OK)
        return rc;
    for (int any = 0; any <= 1 && hits == 0; any++) {
        if (any && !access_actor_is_admin(ctx))
            break;
        json_array_foreach(all, i, p) {
            if (strcmp(json_string_value(json_object_get(p, "name")), ref) == 0 &&
                (any || account_project_has_member(p, ctx->actor))) {
                hit = p;
                hits++;
            }
        }
    }
    if (hits == 1) {
        const char *owner = json_string_value(json_object_get(hit, "owner"));
        rc = tx_get(ctx->tx, keyspace_project_key(key, owner, ref), doc, err);
    } else if (hits > 1) {
        rc = rd_fail(err, RD_EINVAL, "project '%s' is ambiguous: several accounts have a project of that name; write OWNER/%s", ref, ref);
    } else {
        rc = rd_fail(err, RD_ENOTFOUND, "project '%s' does not exist for account '%s'", ref, ctx->actor);
    }
    json_decref(all);
    return rc;
}

/* ---- commands ---------------------------------------------------------- */

rd_code account_require_admin(cmd_ctx *ctx, const char *what, rd_err *err)
{
    if (access_actor_is_admin(ctx))
        return RD_OK;
    return rd_fail(err, RD_EPERM, "%s: only an administering account (such as '%s') may do this; --as is '%s'",
                   what, ADMIN_ACCOUNT, ctx->actor);
}

/* Sets an account's role, and the "admin" boolean older readers know. */
static void account_role_put(json_t *acct, access_role role)
{
    json_object_set_new(acct, "role", json_string(access_role_name(role)));
    json_object_set_new(acct, "admin", json_boolean(role == ACCESS_ADMIN));
}

/* Documents written before roles existed have no "role": show the one
 * access.c reads from them, so every listed account names its role. */
static void account_role_show(json_t *acct)
{
    if (!json_is_string(json_object_get(acct, "role")))
        json_object_set_new(acct, "role", json_string(access_role_name(access_role_of(acct))));
}

static rd_code account_create_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *name = cmd_arg(a, 0);
    const char *plan = cmd_opt(a, "plan") ? cmd_opt(a, "plan") : "free";
    access_role role = ACCESS_MEMBER;
    rd_code rc;

    if ((rc = names_check("account name", name, err)) != RD_OK)
        return rc;
    for (const char *const *r = reserved_names; *r; r++)
        if (strcmp(name, *r) == 0)
            return rd_fail(err, RD_EINVAL, "account name '%s' is reserved", name);
    if (cmd_opt(a, "role") && (rc = access_role_parse("--role", cmd_opt(a, "role"), &role, err)) != RD_OK)
        return rc;
    if ((rc = account_require_admin(ctx, "account create", err)) != RD_OK)
        return rc;
    return account_stage_new(ctx->tx, name, plan, access_role_name(role), ctx->now, result, err);
}

/* Mining payouts go to wallet addresses the account configures (seed 000:
 * mining "requires that you configure valid wallet addresses"). */
static rd_code check_wallet_address(const char *addr, rd_err *err)
{
    size_t n = strlen(addr);
    if (n < 20 || n > 128 ||
        addr[strspn(addr, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:")])
        return rd_fail(err, RD_EINVAL, "--mining-wallet must be a cryptocurrency address of 20-128 letters and digits (e.g. 0x followed by 40 hex digits), got '%s'", addr);
    return RD_OK;
}

/* account set --role: admins only, never platform's, and never the last
 * admin's away (the store would have no one left to administer it). */
static rd_code account_set_role(cmd_ctx *ctx, json_t *acct, const char *word, rd_err *err)
{
    const char *name = json_string_value(json_object_get(acct, "name"));
    access_role role;
    rd_code rc = access_role_parse("--role", word, &role, err);
    if (rc == RD_OK && !access_actor_is_admin(ctx))
        rc = rd_fail(err, RD_EPERM, "account set --role: only an admin may change roles; account '%s' has role %s",
                     ctx->actor, access_role_name(access_actor_role(ctx)));
    if (rc == RD_OK && strcmp(name, "platform") == 0)
        rc = rd_fail(err, RD_EINVAL, "account set --role: 'platform' is the installation's revenue account and never "
                     "acts; its role cannot change");
    if (rc == RD_OK && access_role_of(acct) == ACCESS_ADMIN && role != ACCESS_ADMIN)
        rc = account_remove_check_last_admin(ctx, name, "account set", err);
    if (rc == RD_OK)
        account_role_put(acct, role);
    /* Last, once nothing can refuse: on a secured store the account's etcd
     * user gets the new role's permissions (a no-op elsewhere). */
    if (rc == RD_OK)
        rc = secure_apply_role(ctx, name, role, err);
    return rc;
}

/* account set --artifacts: where outputs of type rigdeck are stored (a
 * location as a dataset's source is, one results can be written to, with
 * one of the account's own keys). */
static rd_code account_set_artifacts(cmd_ctx *ctx, json_t *acct, const cmd_args *a, rd_err *err)
{
    static const dataobj_fields fields = { "--artifacts", "--artifacts-key", "--artifacts-endpoint" };
    json_t *loc = json_object();
    rd_code rc = loc ? dataobj_location(ctx, &fields, json_string_value(json_object_get(acct, "name")),
                                        cmd_opt(a, "artifacts"), cmd_opt(a, "artifacts-key"),
                                        cmd_opt(a, "artifacts-endpoint"), 1, loc, err)
                     : rd_fail(err, RD_ENOMEM, "out of memory");
    if (rc == RD_OK)
        json_object_set(acct, "artifacts", loc);
    json_decref(loc);
    return rc;
}

static rd_code account_set_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    char key[RD_KEY_MAX];
    const char *name = cmd_arg(a, 0);
    json_t *acct = NULL;
    rd_code rc = account_get(ctx, "account", name, &acct, err);
    if (rc == RD_OK && strcmp(name, ctx->actor) != 0 && !access_actor_is_admin(ctx))
        rc = rd_fail(err, RD_EPERM, "account set: account '%s' may only change itself", ctx->actor);
    if (rc == RD_OK && !cmd_opt(a, "artifacts") && (cmd_opt(a, "artifacts-key") || cmd_opt(a, "artifacts-endpoint")))
        rc = rd_fail(err, RD_EUSAGE, "account set: --artifacts-key and --artifacts-endpoint go with --artifacts URL");
    if (rc == RD_OK && !cmd_opt_given(a, "mining-wallet") && !cmd_opt_given(a, "clear-mining-wallets") &&
        !cmd_opt(a, "role") && !cmd_opt(a, "artifacts"))
        rc = rd_fail(err, RD_EUSAGE, "account set: give --role ROLE, --mining-wallet ADDR, --clear-mining-wallets or "
                     "--artifacts URL");
    if (rc == RD_OK && cmd_opt(a, "artifacts"))
        rc = account_set_artifacts(ctx, acct, a, err);
    if (rc == RD_OK && cmd_opt(a, "role"))
        rc = account_set_role(ctx, acct, cmd_opt(a, "role"), err);
    if (rc == RD_OK && cmd_opt_given(a, "clear-mining-wallets"))
        json_object_set_new(acct, "mining_wallets", json_array());
    if (rc == RD_OK && !json_is_array(json_object_get(acct, "mining_wallets")))
        json_object_set_new(acct, "mining_wallets", json_array());
    for (size_t i = 0; rc == RD_OK && i < cmd_opt_count(a, "mining-wallet"); i++)
        if ((rc = check_wallet_address(cmd_opt_at(a, "mining-wallet", i), err)) == RD_OK)
            json_array_append_new(json_object_get(acct, "mining_wallets"), json_string(cmd_opt_at(a, "mining-wallet", i)));
    if (rc == RD_OK) {
        *result = json_incref(acct);
        rc = tx_put(ctx->tx, keyspace_account_key(key, name), acct, err);
        acct = NULL;
    }
    json_decref(acct);
    return rc;
}

int account_has_mining_wallet(cmd_ctx *ctx, const char *name)
{
    json_t *acct = NULL;
    if (account_get(ctx, "account", name, &acct, NULL) != RD_OK)
        return 0;
    int has = json_array_size(json_object_get(acct, "mining_wallets")) > 0;
    json_decref(acct);
    return has;
}

/* The accounts a tenant (member or viewer) sees, as name -> true: itself
 * and those it shares a project with, both ways (the owners of projects
 * shared with it, the members of projects it owns).  *seen is NULL for
 * fleet staff, who see every account.  Other tenants' names, plans and
 * roles are theirs: a tenant sharing nothing has no business with them. */
static rd_code account_seen_by_actor(cmd_ctx *ctx, json_t **seen, rd_err *err)
{
    json_t *projects = NULL, *p, *m;
    size_t i, j;
    *seen = NULL;
    if (access_actor_is_staff(ctx))
        return RD_OK;
    rd_code rc = tx_list(ctx->tx, KEY_PROJECTS, &projects, err);
    if (rc != RD_OK)
        return rc;
    if (!(*seen = json_object())) {
        json_decref(projects);
        return rd_fail(err, RD_ENOMEM, "out of memory");
    }
    json_object_set_new(*seen, ctx->actor, json_true());
    json_array_foreach(projects, i, p) {
        const char *owner = json_string_value(json_object_get(p, "owner"));
        if (!owner)
            continue;
        if (strcmp(owner, ctx->actor) == 0) {
            json_array_foreach(json_object_get(p, "members"), j, m)
                if (json_is_string(m))
                    json_object_set_new(*seen, json_string_value(m), json_true());
        } else if (account_project_has_member(p, ctx->actor)) {
            json_object_set_new(*seen, owner, json_true());
        }
    }
    json_decref(projects);
    return RD_OK;
}

static rd_code account_list_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *items = NULL, *seen = NULL;
    (void)a;
    size_t i;
    json_t *acct;
    rd_code rc = account_seen_by_actor(ctx, &seen, err);
    if (rc == RD_OK)
        rc = tx_list(ctx->tx, KEY_ACCOUNTS, &items, err);
    if (rc != RD_OK) {
        json_decref(seen);
        return rc;
    }
    for (i = json_array_size(items); i-- > 0;) {
        acct = json_array_get(items, i);
        if (seen && !json_object_get(seen, doc_str(acct, "name")))
            json_array_remove(items, i);
        else
            account_role_show(acct);
    }
    json_decref(seen);
    *result = json_pack("{s:o}", "items", items);
    return RD_OK;
}

/* The projects an account owns and those shared with it, as "OWNER/NAME". */
static rd_code account_projects(cmd_ctx *ctx, const char *name, json_t **owned, json_t **shared, rd_err *err)
{
    json_t *all = NULL, *p;
    size_t i;
    rd_code rc = tx_list(ctx->tx, KEY_PROJECTS, &all, err);
    if (rc != RD_OK)
        return rc;
    *owned = json_array();
    *shared = json_array();
    json_array_foreach(all, i, p) {
        const char *owner = json_string_value(json_object_get(p, "owner"));
        const char *pname = json_string_value(json_object_get(p, "name"));
        if (owner && strcmp(owner, name) == 0)
            json_array_append_new(*owned, json_string(pname));
        else if (account_project_has_member(p, name))
            json_array_append_new(*shared, json_sprintf("%s/%s", owner, pname));
    }
    json_decref(all);
    return RD_OK;
}

static rd_code account_show_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *doc = NULL, *owned = NULL, *shared = NULL, *seen = NULL;
    rd_code rc = account_get(ctx, "account", cmd_arg(a, 0), &doc, err);
    /* an account a tenant may not see answers as a missing one */
    if (rc == RD_OK)
        rc = account_seen_by_actor(ctx, &seen, err);
    if (rc == RD_OK && seen && !json_object_get(seen, cmd_arg(a, 0)))
        rc = rd_fail(err, RD_ENOTFOUND, "account: account '%s' does not exist", cmd_arg(a, 0));
    json_decref(seen);
    if (rc == RD_OK)
        rc = account_projects(ctx, cmd_arg(a, 0), &owned, &shared, err);
    if (rc != RD_OK) {
        json_decref(doc);
        return rc;
    }
    account_role_show(doc);
    json_object_set_new(doc, "projects", owned);
    json_object_set_new(doc, "shared_projects", shared);
    *result = doc;
    return RD_OK;
}

/* ---- account deposit --------------------------------------------------- */

static rd_code deposit_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *name = cmd_arg(a, 0), *ref = cmd_opt(a, "ref");
    char id[LEDGER_ID_MAX + 1], wallet[LEDGER_ACCOUNT_MAX], refbuf[LEDGER_REF_MAX];
    json_t *acct = NULL, *doc = NULL;
    int64_t amount = 0, balance = 0;
    int dup = 0;
    rd_code rc;
    if (!access_actor_is_admin(ctx))
        return rd_fail(err, RD_EPERM, "account deposit: only an administering account (such as '%s') may deposit credits; --as is '%s'", ADMIN_ACCOUNT, ctx->actor);
    if ((rc = account_get(ctx, "account", name, &acct, err)) != RD_OK)
        return rc;
    json_decref(acct);
    if (strcmp(name, "platform") == 0)
        return rd_fail(err, RD_EINVAL, "account deposit: 'platform' is the installation's revenue account and has no wallet");
    if ((rc = num_parse_credits("AMOUNT", cmd_arg(a, 1), 1, LEDGER_AMOUNT_MAX, &amount, err)) != RD_OK)
        return rc;
    if (ref) {
        /* A caller-chosen reference makes the deposit idempotent: the same
         * --ref posts once, whatever the number of retries. */
        if (!*ref || strchr(ref, '/') || ledger_id_check(ref, NULL) != RD_OK || strlen(ref) > 128)
            return rd_fail(err, RD_EINVAL, "--ref must be 1-128 characters of A-Z, a-z, 0-9, '.', '_', '-' or ':', got '%s'", ref);
        snprintf(id, sizeof id, "deposit/%s/%s", name, ref);
        snprintf(refbuf, sizeof refbuf, "%s", ref);
    } else {
        char ts[RDTIME_BUFLEN], stamp[20];
        uint32_t nonce = 0;
        if (getrandom(&nonce, sizeof nonce, 0) != (ssize_t)sizeof nonce)
            nonce = (uint32_t)rand();
        rdtime_format(ctx->now, ts);   /* 2026-11-01T00:00:00Z -> 20261101T000000Z */
        size_t j = 0;
        for (const char *p = ts; *p && j + 1 < sizeof stamp; p++)
            if (*p != '-' && *p != ':')
                stamp[j++] = *p;
        stamp[j] = '\0';
        snprintf(id, sizeof id, "deposit/%s/%s-%08x", name, stamp, nonce);
        snprintf(refbuf, sizeof refbuf, "deposit by %s", ctx->actor);
    }
    ledger_transfer t = { id, "external", ledger_wallet_id(wallet, name), amount, "deposit", ctx->now, refbuf };
    if ((rc = ledger_stage(ctx->tx, &t, &dup, err)) == RD_OK)
        rc = ledger_transfer_get(ctx->tx, id, &doc, err);
    if (rc == RD_OK)
        rc = ledger_balance(ctx->tx, wallet, &balance, NULL, err);
    if (rc != RD_OK) {
        json_decref(doc);
        return rc;
    }
    json_object_set_new(doc, "account", json_string(name));
    json_object_set_new(doc, "balance_ucr", json_integer(balance));
    json_object_set_new(doc, "duplicate", json_boolean(dup));
    *result = doc;
    return RD_OK;
}

static const cmd_flag deposit_flags[] = {
    { "ref", "REF", CMD_FLAG_VALUE, "idempotency reference: the same REF deposits once" },
    { 0 }
};
static const cmd_flag account_create_flags[] = {
    { "plan", "free|team|enterprise", CMD_FLAG_VALUE, "feature plan (default free)" },
    { "role", "admin|operator|member|viewer", CMD_FLAG_VALUE, "what the account may do (default member)" },
    { 0 }
};
static const cmd_flag account_set_flags[] = {
    { "role", "admin|operator|member|viewer", CMD_FLAG_VALUE, "change the account's role (admins only)" },
    { "mining-wallet", "ADDR", CMD_FLAG_VALUE | CMD_FLAG_REPEAT, "add a wallet address for mining payouts" },
    { "clear-mining-wallets", NULL, 0, "remove every mining wallet address first" },
    { "artifacts", "URL", CMD_FLAG_VALUE, "where outputs of type rigdeck are stored: s3://, gs://, https:// or "
      "datastore:NAME/PATH" },
    { "artifacts-key", "K", CMD_FLAG_VALUE, "with --artifacts: the account's key that writes there" },
    { "artifacts-endpoint", "URL", CMD_FLAG_VALUE, "with an s3:// --artifacts: the S3-compatible service URL" },
    { 0 }
};
const cmd_def account_cmd_table[] = {
    { .words = "account create", .args = "NAME", .flags = account_create_flags, .options = CMD_MUTATES,
      .help = "create a tenant account with its 'default' project", .run = account_create_cmd,
      .access = CMD_ACCESS_ADMIN, .access_why = "may create accounts" },
    { .words = "account list", .args = "", .help = "list accounts", .columns = "name,plan,role,created_at",
      .run = account_list_cmd },
    { .words = "account show", .args = "NAME", .help = "show an account, its role and its projects",
      .run = account_show_cmd },
    { .words = "account set", .args = "NAME", .flags = account_set_flags, .options = CMD_MUTATES,
      .help = "change an account's role, mining wallets or artifacts location", .run = account_set_cmd,
      .access = CMD_ACCESS_TENANT /* itself only; --role is admin only (account_set_cmd) */ },
    { .words = "account deposit", .args = "NAME AMOUNT", .flags = deposit_flags, .options = CMD_MUTATES,
      .help = "add AMOUNT credits (up to 6 decimals) to the account's wallet from outside", .run = deposit_cmd,
      .access = CMD_ACCESS_MONEY, .access_why = "may deposit credits" },
    { .words = "account remove", .args = "NAME", .options = CMD_MUTATES,
      .help = "remove an account that runs and holds nothing, with its projects (admins only)",
      .run = account_remove_cmd, .access = CMD_ACCESS_ADMIN, .access_why = "may remove accounts" },
    { 0 }
};
