/* access.h - who may do what: the four roles, the one guard every command
 * passes (access.c), and the visibility rules handlers use to filter what
 * they show.  docs/security.md is the contract.
 *
 * An account's role is its document's "role" field: admin (everything),
 * operator (fleet staff: every tenant's nodes, maintenance, devices, health
 * and alerts; no money, no tenant work), member (a tenant: its own
 * providers, regions, nodes, jobs, projects and wallet, and the public
 * capacity it may use) or viewer (read-only on what its account may see).
 * Documents written before roles existed say "admin": true or nothing;
 * they read as admin and member.
 */
#ifndef RD_ACCESS_H
#define RD_ACCESS_H

#include <jansson.h>

#include "cmd.h"

typedef enum {
    ACCESS_VIEWER,
    ACCESS_MEMBER,
    ACCESS_OPERATOR,
    ACCESS_ADMIN
} access_role;

/* "viewer", "member", "operator", "admin". */
const char *access_role_name(access_role role);

/* Parses a role word; RD_EINVAL names field and the four choices. */
rd_code access_role_parse(const char *field, const char *word, access_role *role, rd_err *err);

/* The role an account document states (see above for older documents). */
access_role access_role_of(const json_t *account);

/* The acting account's role, read in ctx->tx (viewer when it cannot be read). */
access_role access_actor_role(cmd_ctx *ctx);

/* 1 when the acting account administers the store (role admin). */
int access_actor_is_admin(cmd_ctx *ctx);

/* 1 when the actor is fleet staff (admin or operator): it sees every
 * tenant's fleet and may act on any node, device, health record or alert. */
int access_actor_is_staff(cmd_ctx *ctx);

/* 1 when the actor may see a private object that account owner owns: staff
 * for fleet objects (nodes, regions, devices, datastores, reservations),
 * else only the owner itself. */
int access_actor_sees_fleet_of(cmd_ctx *ctx, const char *owner);

/* 1 when the actor may see owner's money and work (wallet, ledger entries,
 * projects, audit records): the owner itself or an admin. */
int access_actor_sees_books_of(cmd_ctx *ctx, const char *owner);

/* 1 when the actor may see a job: staff (it runs on their fleet), its
 * creator, its project's owner, or an account the project is shared with.
 * Environment values are sealed and never shown to anyone. */
int access_actor_sees_job(cmd_ctx *ctx, const json_t *job);

/* The class the guard applies to def: its definition's (cmd_def.access),
 * or when that is left out a read for a command that does not mutate and
 * tenant work for one that does.  Never CMD_ACCESS_DEFAULT. */
cmd_access access_command_class(const cmd_def *def);

/* On a secured store the identity is who acts; --as names another account
 * only for an admin (impersonation, recorded as both names): RD_EPERM
 * otherwise.  A node's agent acts as its node.  Part of the guard, before
 * access_check_command. */
rd_code access_check_identity(cmd_ctx *ctx, rd_err *err);

/* The guard: RD_OK when the actor's role may run def at all (handlers
 * still check ownership); else RD_EPERM naming the command, the role and
 * who may.  A node's agent (ctx->agent_node) may only register itself and
 * report on its node and the workers placed on it.  The executor calls it
 * for every command that touches the store, through the guard hook
 * (cmd_hooks, installed by core/app/app.c). */
rd_code access_check_command(cmd_ctx *ctx, const cmd_def *def, const cmd_args *args, rd_err *err);

/* What the guard and the handlers' ownership checks would say to account
 * actor of role running def on object name that account owner owns (owner
 * NULL: only whether the role may run def at all): RD_OK, or RD_EPERM with
 * the message.  Reads nothing, so a front end that knows the role (from
 * `account show`) can offer only what will work: the console's keys. */
rd_code access_role_may(access_role role, const char *actor, const cmd_def *def, const char *owner, const char *name,
                        rd_err *err);

/* On a secured store, gives account name's etcd user (if it has one) the
 * store permissions of role: everything for an admin, else only its
 * relay.  Called in the transaction that changes the role. */
rd_code secure_apply_role(cmd_ctx *ctx, const char *name, access_role role, rd_err *err);

/* On a secured store, deletes name's etcd user and role (account remove,
 * a released cloud node's node:N). */
rd_code secure_forget(cmd_ctx *ctx, const char *name, rd_err *err);

/* 1 when the store is an etcd with authentication on (store secure). */
int secure_store_is_secured(cmd_ctx *ctx);

/* Makes or renews node:NODE's etcd user with password and the agent role
 * of `store credentials node:NODE` (cloud sync, for the agent of a cloud
 * node it creates; the auth calls act at once, the credentials record is
 * staged in ctx->tx).  A secured store only. */
rd_code secure_node_credentials(cmd_ctx *ctx, const char *node, const char *password, rd_err *err);

#endif
