/* access.c - roles and the one guard every command passes.
 *
 * The guard sorts commands into classes by one table below (a command not
 * named there is a read when it does not mutate, tenant work when it
 * does), and each role may run a fixed set of classes.  Handlers still
 * decide ownership: a member may run `node maintenance`, but only on a
 * node in its own region (fleet_require_owner).  Keeping the table here
 * means one place answers "who may run this?", for batch, the console and
 * requests relayed from a secured store alike.
 */
#include "access.h"

#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "keyspace.h"

typedef enum {
    CLASS_READ,       /* every role; handlers filter what is shown */
    CLASS_RAW_READ,   /* raw documents of every tenant: admin only */
    CLASS_TENANT,     /* a tenant's own work and resources: member, admin */
    CLASS_FLEET,      /* nodes, devices, health, alerts: operator (any tenant's), member (its own), admin */
    CLASS_STAFF,      /* store-wide fleet housekeeping: operator, admin */
    CLASS_MONEY,      /* moves credits or sets prices: admin */
    CLASS_ADMIN       /* accounts, the store itself: admin */
} access_class;

static const struct {
    const char *words;
    access_class class;
    const char *why;      /* for a refusal: "only an administering account <why>" */
} command_classes[] = {
    { "store dump", CLASS_RAW_READ, "may read the whole store" },
    { "store watch", CLASS_RAW_READ, "may watch the whole store" },
    { "node add", CLASS_FLEET, NULL },
    { "region set", CLASS_FLEET, NULL },
    { "node maintenance", CLASS_FLEET, NULL },
    { "node set", CLASS_FLEET, NULL },
    { "node remove", CLASS_FLEET, NULL },
    { "node replace", CLASS_FLEET, NULL },
    { "node report", CLASS_FLEET, NULL },
    { "node health report", CLASS_FLEET, NULL },
    { "node health clear", CLASS_FLEET, NULL },
    { "device add", CLASS_FLEET, NULL },
    { "device set-config", CLASS_FLEET, NULL },
    { "device deploy", CLASS_FLEET, NULL },
    { "device remove", CLASS_FLEET, NULL },
    { "device report", CLASS_FLEET, NULL },
    { "device register", CLASS_FLEET, NULL },
    { "device-config create", CLASS_FLEET, NULL },
    { "device-config remove", CLASS_FLEET, NULL },
    { "agent register", CLASS_FLEET, NULL },
    { "agent remove", CLASS_FLEET, NULL },
    { "job report", CLASS_FLEET, NULL },
    { "alert ack", CLASS_FLEET, NULL },
    { "cloud sync", CLASS_FLEET, NULL },
    { "quota set", CLASS_FLEET, NULL },
    { "quota refresh", CLASS_FLEET, NULL },
    { "sched run", CLASS_FLEET, NULL },
    { "alert rule add", CLASS_STAFF, NULL },
    { "alert rule remove", CLASS_STAFF, NULL },
    { "alert eval", CLASS_STAFF, NULL },
    { "agent check", CLASS_STAFF, NULL },
    { "metrics import", CLASS_STAFF, NULL },
    { "metrics prune", CLASS_STAFF, NULL },
    { "job logs prune", CLASS_STAFF, NULL },
    { "account deposit", CLASS_MONEY, "may deposit credits" },
    { "price set", CLASS_MONEY, "may set market prices" },
    { "bill run", CLASS_MONEY, "may post bills" },
    { "account create", CLASS_ADMIN, "may create accounts" },
    { "account remove", CLASS_ADMIN, "may remove accounts" },
    { "gpu add", CLASS_ADMIN, "may change the GPU catalog" },
    { "gpu set", CLASS_ADMIN, "may change the GPU catalog" },
    { "gpu remove", CLASS_ADMIN, "may change the GPU catalog" },
    { "environment add", CLASS_ADMIN, "may change the environments" },
    { "environment remove", CLASS_ADMIN, "may change the environments" },
    { "store compact", CLASS_ADMIN, "may change the store-wide history policy" },
    { "store secure", CLASS_ADMIN, "may secure the store" },
    { "store credentials", CLASS_ADMIN, "may issue store credentials" },
    { "sched config", CLASS_READ, NULL },   /* changing it is admin only (sched_run.c) */
    { "account set", CLASS_TENANT, NULL },  /* itself only; --role is admin only (account.c) */
};

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

static access_class command_class(const cmd_def *def, const char **why)
{
    *why = NULL;
    for (size_t i = 0; i < sizeof command_classes / sizeof command_classes[0]; i++)
        if (strcmp(command_classes[i].words, def->words) == 0) {
            *why = command_classes[i].why;
            return command_classes[i].class;
        }
    return (def->options & CMD_MUTATES) ? CLASS_TENANT : CLASS_READ;
}

/* Which classes each role may run, and how a refusal says who may. */
static int role_may(access_role role, access_class class)
{
    switch (class) {
    case CLASS_READ:
        return 1;
    case CLASS_TENANT:
        return role == ACCESS_MEMBER || role == ACCESS_ADMIN;
    case CLASS_FLEET:
        return role != ACCESS_VIEWER;
    case CLASS_STAFF:
        return role == ACCESS_OPERATOR || role == ACCESS_ADMIN;
    case CLASS_RAW_READ:
    case CLASS_MONEY:
    case CLASS_ADMIN:
        return role == ACCESS_ADMIN;
    }
    return 0;
}

/* What a node's agent may send: its own registration and reports, and
 * reports on workers placed on its node. */
static rd_code agent_check(cmd_ctx *ctx, const cmd_def *def, const cmd_args *args, rd_err *err)
{
    static const char *const own[] = { "agent register", "node report", "node health report", NULL };
    const char *node = ctx->agent_node, *arg = cmd_arg(args, 0);
    for (const char *const *w = own; *w; w++)
        if (strcmp(def->words, *w) == 0) {
            if (arg && strcmp(arg, node) == 0)
                return RD_OK;
            return rd_fail(err, RD_EPERM, "%s: node %s's agent may act only for its own node, not '%s'", def->words,
                           node, arg ? arg : "");
        }
    if (strcmp(def->words, "job report") == 0 && cmd_opt(args, "worker")) {
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
        return rd_fail(err, RD_EPERM, "job report: worker %ld of job '%s' is not placed on node %s", index,
                       arg ? arg : "", node);
    }
    return rd_fail(err, RD_EPERM, "%s: a node's agent may only register and report on its own node and workers",
                   def->words);
}

/* The refusal of def to an account of role: who may run it instead. */
static rd_code role_refusal(access_class class, const char *why, access_role role, const char *actor,
                            const cmd_def *def, rd_err *err)
{
    if (role == ACCESS_VIEWER && (def->options & CMD_MUTATES))
        return rd_fail(err, RD_EPERM, "%s: account '%s' is a viewer and may only read", def->words, actor);
    switch (class) {
    case CLASS_TENANT:
        return rd_fail(err, RD_EPERM, "%s: account '%s' has role %s; only members (tenants) and admins may do this",
                       def->words, actor, access_role_name(role));
    case CLASS_STAFF:
        return rd_fail(err, RD_EPERM, "%s: only an administering account or an operator may do this; account '%s' "
                       "has role %s", def->words, actor, access_role_name(role));
    default:
        return rd_fail(err, RD_EPERM, "%s: only an administering account %s; account '%s' has role %s", def->words,
                       why ? why : "may do this", actor, access_role_name(role));
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
    const char *why;
    if (ctx->agent_node)
        return agent_check(ctx, def, args, err);
    access_class class = command_class(def, &why);
    access_role role = access_actor_role(ctx);
    if (role_may(role, class))
        return RD_OK;
    return role_refusal(class, why, role, ctx->actor, def, err);
}

/* Members act on their own fleet and work only (the handlers' ownership
 * checks, fleet_require_owner); staff on every tenant's fleet, admins on
 * everything. */
static int role_reaches_any(access_role role, access_class class)
{
    switch (class) {
    case CLASS_TENANT:
        return role == ACCESS_ADMIN;
    case CLASS_FLEET:
        return role == ACCESS_ADMIN || role == ACCESS_OPERATOR;
    default:
        return 1;
    }
}

rd_code access_role_may(access_role role, const char *actor, const cmd_def *def, const char *owner, const char *name,
                        rd_err *err)
{
    const char *why;
    access_class class = command_class(def, &why);
    if (!role_may(role, class))
        return role_refusal(class, why, role, actor, def, err);
    if (!owner || strcmp(owner, actor) == 0 || role_reaches_any(role, class))
        return RD_OK;
    return rd_fail(err, RD_EPERM, "%s: '%s' belongs to account '%s'; account '%s' has role %s and may do this only "
                   "to its own", def->words, name ? name : "it", owner, actor, access_role_name(role));
}
