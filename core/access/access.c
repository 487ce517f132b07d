/* access.c - roles and the one guard every command passes.
 *
 * Each command's definition names its class (cmd_def.access, set in its
 * family's table; left out, a command is a read when it does not mutate,
 * tenant work when it does) and what a node's agent may send of it
 * (cmd_def.agent); each role may run a fixed set of classes.  Handlers
 * still decide ownership: a member may run `node maintenance`, but only on
 * a node in its own region (fleet_require_owner).  Keeping the rule here
 * means one place answers "who may run this?", for batch, the console and
 * requests relayed from a secured store alike.
 */
#include "access.h"

#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "keyspace.h"

static const char *const role_names[] = { "viewer", "member", "operator", "admin" };

const char *access_role_name(access_role role)
{
    return role_names[role];
}

rd_code access_role_parse(const char *field, const char *word, access_role *role, rd_err *err)
{
    for (int r = ACCESS_VIEWER; r <= ACCESS_ADMIN; r++)
        if (word && strcmp(word, role_names[r]) == 0) {
            *role = (access_role)r;
            return RD_OK;
        }
    return rd_fail(err, RD_EINVAL, "%s must be one of admin, operator, member, viewer, got '%s'", field,
                   word ? word : "");
}

access_role access_role_of(const json_t *account)
{
    access_role role;
    const char *word = json_string_value(json_object_get(account, "role"));
    if (word && access_role_parse("role", word, &role, NULL) == RD_OK)
        return role;
    if (word)
        return ACCESS_VIEWER;   /* a word this version does not know grants nothing */
    return json_is_true(json_object_get(account, "admin")) ? ACCESS_ADMIN : ACCESS_MEMBER;
}

access_role access_actor_role(cmd_ctx *ctx)
{
    char key[RD_KEY_MAX];
    json_t *doc = NULL;
    if (!ctx->tx || !ctx->actor || tx_get(ctx->tx, keyspace_account_key(key, ctx->actor), &doc, NULL) != RD_OK || !doc)
        return ACCESS_VIEWER;
    access_role role = access_role_of(doc);
    json_decref(doc);
    return role;
}

int access_actor_is_admin(cmd_ctx *ctx)
{
    return access_actor_role(ctx) == ACCESS_ADMIN;
}

int access_actor_is_staff(cmd_ctx *ctx)
{
    access_role role = access_actor_role(ctx);
    return role == ACCESS_ADMIN || role == ACCESS_OPERATOR;
}

int access_actor_sees_fleet_of(cmd_ctx *ctx, const char *owner)
{
    return (owner && strcmp(owner, ctx->actor) == 0) || access_actor_is_staff(ctx);
}

int access_actor_sees_books_of(cmd_ctx *ctx, const char *owner)
{
    return (owner && strcmp(owner, ctx->actor) == 0) || access_actor_role(ctx) == ACCESS_ADMIN;
}

int access_actor_sees_job(cmd_ctx *ctx, const json_t *job)
{
    char key[RD_KEY_MAX];
    json_t *project = NULL;
    if (strcmp(doc_str(job, "creator"), ctx->actor) == 0 || strcmp(doc_str(job, "project_owner"), ctx->actor) == 0 ||
        access_actor_is_staff(ctx))
        return 1;
    if (tx_get(ctx->tx, keyspace_project_key(key, doc_str(job, "project_owner"), doc_str(job, "project")), &project,
               NULL) != RD_OK)
        return 0;
    size_t i;
    json_t *m;
    int member = 0;
    json_array_foreach(json_object_get(project, "members"), i, m)
        member |= json_is_string(m) && strcmp(json_string_value(m), ctx->actor) == 0;
    json_decref(project);
    return member;
}

cmd_access access_command_class(const cmd_def *def)
{
    if (def->access != CMD_ACCESS_DEFAULT)
        return def->access;
    return (def->options & CMD_MUTATES) ? CMD_ACCESS_TENANT : CMD_ACCESS_READ;
}

/* Which classes each role may run, and how a refusal says who may. */
static int role_may(access_role role, cmd_access class)
{
    switch (class) {
    case CMD_ACCESS_READ:
        return 1;
    case CMD_ACCESS_TENANT:
        return role == ACCESS_MEMBER || role == ACCESS_ADMIN;
    case CMD_ACCESS_FLEET:
        return role != ACCESS_VIEWER;
    case CMD_ACCESS_STAFF:
        return role == ACCESS_OPERATOR || role == ACCESS_ADMIN;
    case CMD_ACCESS_RAW_READ:
    case CMD_ACCESS_MONEY:
    case CMD_ACCESS_ADMIN:
        return role == ACCESS_ADMIN;
    case CMD_ACCESS_DEFAULT:   /* access_command_class never answers it */
        break;
    }
    return 0;
}

/* What a node's agent may send (cmd_def.agent): its own registration and
 * reports, and reports on workers placed on its node. */
static rd_code agent_check(cmd_ctx *ctx, const cmd_def *def, const cmd_args *args, rd_err *err)
{
    const char *node = ctx->agent_node, *arg = cmd_arg(args, 0);
    if (def->agent == CMD_AGENT_OWN_NODE) {
        if (arg && strcmp(arg, node) == 0)
            return RD_OK;
        return rd_fail(err, RD_EPERM, "%s: node %s's agent may act only for its own node, not '%s'", def->words,
                       node, arg ? arg : "");
    }
    if (def->agent == CMD_AGENT_OWN_WORKER && cmd_opt(args, "worker")) {
        char key[RD_KEY_MAX];
        json_t *job = NULL, *w;
        size_t i;
        int placed = 0;
        long index = strtol(cmd_opt(args, "worker"), NULL, 10);
        if (tx_get(ctx->tx, tx_key(key, KEY_JOBS "%s", arg ? arg : ""), &job, NULL) == RD_OK)
            json_array_foreach(json_object_get(job, "workers"), i, w)
                placed |= doc_int(w, "index") == index && strcmp(doc_str(w, "node"), node) == 0;
        json_decref(job);
        if (placed)
            return RD_OK;
        return rd_fail(err, RD_EPERM, "%s: worker %ld of job '%s' is not placed on node %s", def->words, index,
                       arg ? arg : "", node);
    }
    return rd_fail(err, RD_EPERM, "%s: a node's agent may only register and report on its own node and workers",
                   def->words);
}

/* The refusal of def to an account of role: who may run it instead. */
static rd_code role_refusal(cmd_access class, access_role role, const char *actor, const cmd_def *def, rd_err *err)
{
    if (role == ACCESS_VIEWER && (def->options & CMD_MUTATES))
        return rd_fail(err, RD_EPERM, "%s: account '%s' is a viewer and may only read", def->words, actor);
    switch (class) {
    case CMD_ACCESS_TENANT:
        return rd_fail(err, RD_EPERM, "%s: account '%s' has role %s; only members (tenants) and admins may do this",
                       def->words, actor, access_role_name(role));
    case CMD_ACCESS_STAFF:
        return rd_fail(err, RD_EPERM, "%s: only an administering account or an operator may do this; account '%s' "
                       "has role %s", def->words, actor, access_role_name(role));
    default:
        return rd_fail(err, RD_EPERM, "%s: only an administering account %s; account '%s' has role %s", def->words,
                       def->access_why ? def->access_why : "may do this", actor, access_role_name(role));
    }
}

rd_code access_check_identity(cmd_ctx *ctx, rd_err *err)
{
    if (!ctx->identity || strcmp(ctx->identity, ctx->actor) == 0 || ctx->agent_node)
        return RD_OK;
    const char *actor = ctx->actor;
    ctx->actor = ctx->identity;
    int admin = access_actor_is_admin(ctx);
    ctx->actor = actor;
    if (admin)
        return RD_OK;
    return rd_fail(err, RD_EPERM, "--as: only an admin may act as another account; you are '%s'", ctx->identity);
}

rd_code access_check_command(cmd_ctx *ctx, const cmd_def *def, const cmd_args *args, rd_err *err)
{
    if (ctx->agent_node)
        return agent_check(ctx, def, args, err);
    cmd_access class = access_command_class(def);
    access_role role = access_actor_role(ctx);
    if (role_may(role, class))
        return RD_OK;
    return role_refusal(class, role, ctx->actor, def, err);
}

/* Members act on their own fleet and work only (the handlers' ownership
 * checks, fleet_require_owner); staff on every tenant's fleet, admins on
 * everything. */
static int role_reaches_any(access_role role, cmd_access class)
{
    switch (class) {
    case CMD_ACCESS_TENANT:
        return role == ACCESS_ADMIN;
    case CMD_ACCESS_FLEET:
        return role == ACCESS_ADMIN || role == ACCESS_OPERATOR;
    default:
        return 1;
    }
}

rd_code access_role_may(access_role role, const char *actor, const cmd_def *def, const char *owner, const char *name,
                        rd_err *err)
{
    cmd_access class = access_command_class(def);
    if (!role_may(role, class))
        return role_refusal(class, role, actor, def, err);
    if (!owner || strcmp(owner, actor) == 0 || role_reaches_any(role, class))
        return RD_OK;
    return rd_fail(err, RD_EPERM, "%s: '%s' belongs to account '%s'; account '%s' has role %s and may do this only "
                   "to its own", def->words, name ? name : "it", owner, actor, access_role_name(role));
}
