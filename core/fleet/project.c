/* project.c - the `project` commands: create, share, set, list, show.
 *
 * A project belongs to an account (every account owns "default") and may be
 * shared with other accounts, who then create jobs in it as OWNER/NAME.
 * The documents and their lookup are account.c's.
 */
#include <string.h>

#include "access.h"
#include "account.h"
#include "keyspace.h"
#include "names.h"

static rd_code project_create_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *name = cmd_arg(a, 0);
    const char *owner = cmd_opt(a, "owner") ? cmd_opt(a, "owner") : ctx->actor;
    char key[RD_KEY_MAX];
    json_t *doc = NULL;
    rd_code rc;

    if ((rc = names_check("project name", name, err)) != RD_OK)
        return rc;
    if ((rc = account_get(ctx, "--owner", owner, &doc, err)) != RD_OK)
        return rc;
    json_decref(doc);
    if (strcmp(owner, ctx->actor) != 0 && (rc = account_require_admin(ctx, "project create --owner", err)) != RD_OK)
        return rc;
    if ((rc = tx_get(ctx->tx, keyspace_project_key(key, owner, name), &doc, err)) != RD_OK)
        return rc;
    if (doc) {
        json_decref(doc);
        return rd_fail(err, RD_EEXISTS, "project '%s' of account '%s' exists already", name, owner);
    }
    doc = account_project_new(name, owner, ctx->now);
    *result = json_incref(doc);
    return tx_put(ctx->tx, key, doc, err);
}

static rd_code project_share_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *with = cmd_arg(a, 1);
    json_t *project = NULL, *acct = NULL;
    char key[RD_KEY_MAX];
    rd_code rc;

    if ((rc = account_project_resolve(ctx, cmd_arg(a, 0), &project, err)) != RD_OK)
        return rc;
    const char *owner = json_string_value(json_object_get(project, "owner"));
    const char *name = json_string_value(json_object_get(project, "name"));
    if (strcmp(owner, ctx->actor) != 0 && !access_actor_is_admin(ctx))
        rc = rd_fail(err, RD_EPERM, "project share: only the owner '%s' may share project '%s'", owner, name);
    if (rc == RD_OK)
        rc = account_get(ctx, "account", with, &acct, err);
    if (rc == RD_OK && strcmp(with, owner) == 0)
        rc = rd_fail(err, RD_EINVAL, "project share: account '%s' owns project '%s' already", with, name);
    if (rc == RD_OK && strcmp(with, "platform") == 0)
        rc = rd_fail(err, RD_EINVAL, "project share: '%s' is the platform account and cannot create jobs", with);
    if (rc == RD_OK && !account_project_has_member(project, with))
        json_array_append_new(json_object_get(project, "members"), json_string(with));
    if (rc == RD_OK) {
        *result = json_incref(project);
        rc = tx_put(ctx->tx, keyspace_project_key(key, owner, name), project, err);
        project = NULL;
    }
    json_decref(project);
    json_decref(acct);
    return rc;
}

static rd_code project_set_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    char key[RD_KEY_MAX];
    json_t *project = NULL;
    rd_code rc = account_project_resolve(ctx, cmd_arg(a, 0), &project, err);
    if (rc != RD_OK)
        return rc;
    const char *owner = json_string_value(json_object_get(project, "owner"));
    if (strcmp(owner, ctx->actor) != 0 && !access_actor_is_admin(ctx))
        rc = rd_fail(err, RD_EPERM, "project set: only the owner '%s' may change project '%s'", owner, cmd_arg(a, 0));
    if (rc == RD_OK && !cmd_opt(a, "on-quota-exhausted"))
        rc = rd_fail(err, RD_EUSAGE, "project set: give --on-quota-exhausted fail|move");
    if (rc == RD_OK) {
        json_object_set_new(project, "on_quota_exhausted", json_string(cmd_opt(a, "on-quota-exhausted")));
        *result = json_incref(project);
        rc = tx_put(ctx->tx, keyspace_project_key(key, owner, json_string_value(json_object_get(project, "name"))), project, err);
        project = NULL;
    }
    json_decref(project);
    return rc;
}

static rd_code project_list_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *all = NULL, *items = json_array(), *p;
    const char *owner = cmd_opt(a, "owner");
    size_t i;
    rd_code rc = tx_list(ctx->tx, KEY_PROJECTS, &all, err);
    if (rc != RD_OK) {
        json_decref(items);
        return rc;
    }
    int admin = access_actor_is_admin(ctx);
    json_array_foreach(all, i, p) {
        const char *o = json_string_value(json_object_get(p, "owner"));
        if (owner && strcmp(o, owner) != 0)
            continue;
        if (admin || strcmp(o, ctx->actor) == 0 || account_project_has_member(p, ctx->actor))
            json_array_append(items, p);
    }
    json_decref(all);
    *result = json_pack("{s:o}", "items", items);
    return RD_OK;
}

static rd_code project_show_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    rd_code rc = account_project_resolve(ctx, cmd_arg(a, 0), result, err);
    /* a project not shared with the actor is answered like a missing one
     * (account_project_resolve's own words for that) */
    if (rc == RD_EPERM)
        rc = rd_fail(err, RD_ENOTFOUND, "project '%s' does not exist", cmd_arg(a, 0));
    return rc;
}

static const cmd_flag project_create_flags[] = {
    { "owner", "ACCOUNT", CMD_FLAG_VALUE, "owning account (default: --as)" },
    { 0 }
};
static const cmd_flag project_set_flags[] = {
    { "on-quota-exhausted", "fail|move", CMD_FLAG_VALUE,
      "when its GCP regions' quota runs out: fail the job, or wait for another location (default move)" },
    { 0 }
};
static const cmd_flag project_list_flags[] = {
    { "owner", "ACCOUNT", CMD_FLAG_VALUE, "only projects of this owner" },
    { 0 }
};

const cmd_def project_cmd_table[] = {
    { .words = "project create", .args = "NAME", .flags = project_create_flags, .options = CMD_MUTATES,
      .help = "create a project owned by --owner (default: --as)", .run = project_create_cmd },
    { .words = "project share", .args = "NAME ACCOUNT", .options = CMD_MUTATES,
      .help = "let ACCOUNT create jobs in project NAME (NAME or OWNER/NAME)", .run = project_share_cmd },
    { .words = "project set", .args = "NAME", .flags = project_set_flags, .options = CMD_MUTATES,
      .help = "change a project's settings", .run = project_set_cmd },
    { .words = "project list", .args = "", .flags = project_list_flags, .help = "list the projects you own or share",
      .columns = "owner,name,members,created_at", .run = project_list_cmd },
    { .words = "project show", .args = "NAME", .help = "show a project (NAME or OWNER/NAME)", .run = project_show_cmd },
    { 0 }
};
