/* cloud_agent.c - the agent of a cloud node (spec/execution.md §3): what
 * `cloud sync` puts on an instance so that `rigdeck agent --node NAME`
 * starts there, and what it refuses to create.
 *
 * A compute node whose region requires agents ("agent_mode": "required")
 * gets an instance on the region's image with a startup script (metadata
 * key `startup-script`, run as root by GCE's guest environment at every
 * boot) that runs the agent for that node against the store, in a loop, so
 * a store not yet reachable at boot is tried again.  On a secured etcd the
 * script carries the node's own etcd user, node:NAME, whose password is
 * derived from the master key, the node's name and its creation time
 * (HMAC-SHA256): the same on a repeated insert whose answer was lost, so
 * the instance that exists and the etcd user always agree, and never kept
 * in the store.  That user may do only what an agent of that node may
 * (docs/security.md), and it is deleted when the node is released.  The
 * master key that opens sealed environment values is never in metadata:
 * the image carries it (docs/gcp.md).
 *
 * The store the instance reaches: $RIGDECK_CLOUD_STORE_URL of the process
 * running cloud sync, else the store it runs against (without its query:
 * the controller's own user and password file stay its own).  An SQLite
 * file is on one host and no instance reaches it, so instances of a region
 * that requires agents are not created on one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "cloud_int.h"
#include "doc.h"
#include "fleet.h"
#include "rdtime.h"

#define AGENT_DIR_DEFAULT "/var/lib/rigdeck"
#define AGENT_MASTER_KEY_DEFAULT "/etc/rigdeck/master.key"

int cloud_node_runs_agent(const json_t *node)
{
    return strcmp(doc_str(node, "agent_mode"), "required") == 0 && strcmp(doc_str(node, "role"), "compute") == 0;
}

int cloud_region_runs_agents(const json_t *region)
{
    return strcmp(doc_str(region, "agent_mode"), "required") == 0;
}

int cloud_may_create(cloud_round *r, int agent, const char **code, char *why, size_t len)
{
    if (!agent || store_caps_get(r->ctx->store)->shared)
        return 1;
    *code = "store_unreachable";
    snprintf(why, len, "region '%s' runs an agent on each cloud node, and no cloud instance can reach this SQLite "
             "store (a file on this host): no instance is created; use an etcd store (docs/etcd.md), or region set %s "
             "--agent none for manual nodes", r->name, r->name);
    return 0;
}

int cloud_may_create_compute(cloud_round *r, const json_t *node, const char **code, char *why, size_t len)
{
    int agent = cloud_node_runs_agent(node);
    if (!cloud_may_create(r, agent, code, why, len))
        return 0;
    if (!agent || *doc_str(r->region, "image"))
        return 1;
    *code = "no_image";
    snprintf(why, len, "region '%s' runs an agent on each cloud node and has no image with rigdeck installed: no "
             "instance is created; region set %s --image IMAGE (docs/gcp.md says how to build one)", r->name, r->name);
    return 0;
}

/* The store URL an instance uses, into out; "" when it cannot be quoted. */
static void instance_store_url(cloud_round *r, char *out, size_t len)
{
    const char *env = getenv("RIGDECK_CLOUD_STORE_URL");
    snprintf(out, len, "%s", env && *env ? env : store_url(r->ctx->store));
    if (!(env && *env)) {
        char *q = strchr(out, '?');
        if (q)
            *q = '\0';
    }
    if (strchr(out, '\'') || strchr(out, '\n'))
        out[0] = '\0';
}

/* Makes (or renews, to the same password) node:NAME's etcd user on a
 * secured store; *password is "" on any other store. */
static rd_code node_password(cloud_round *r, const json_t *node, char password[SECRET_DERIVED_HEX + 1], rd_err *err)
{
    cmd_ctx *ctx = r->ctx;
    char label[RD_KEY_MAX + 128];
    password[0] = '\0';
    if (!secure_store_is_secured(ctx))
        return RD_OK;
    snprintf(label, sizeof label, "rigdeck cloud node credentials\n%s\n%s", doc_str(node, "name"),
             doc_str(node, "created_at"));
    rd_code rc = fleet_derive_secret(ctx, label, password, err);
    tx_reset(ctx->tx);
    if (rc == RD_OK)
        rc = secure_node_credentials(ctx, doc_str(node, "name"), password, err);
    if (rc == RD_OK)
        rc = cmd_commit_step(ctx, err);
    tx_reset(ctx->tx);
    return rc;
}

rd_code cloud_agent_script(cloud_round *r, const json_t *node, char **script, rd_err *err)
{
    char url[1024], password[SECRET_DERIVED_HEX + 1], cred[512] = "", login[600] = "";
    const char *name = doc_str(node, "name");
    *script = NULL;
    instance_store_url(r, url, sizeof url);
    if (!*url)
        return rd_fail(err, RD_EINVAL, "cloud sync: the store URL for node '%s' cannot go in a startup script (it holds a "
                       "quote or a line break); set RIGDECK_CLOUD_STORE_URL", name);
    rd_code rc = node_password(r, node, password, err);
    if (rc != RD_OK)
        return rc;
    if (*password) {
        snprintf(cred, sizeof cred, "printf '%%s\\n' '%s' >\"$dir/store.pw\"\n", password);
        snprintf(login, sizeof login, " --etcd-user 'node:%s' --etcd-password-file \"$dir/store.pw\"", name);
    }
    explicit_bzero(password, sizeof password);
    /* One line per agent start with --runtime on it (tests/agent_starts.py
     * reads this file too): the image's agent.env or the environment
     * chooses the runtime; auto picks podman or docker when one answers. */
    int n = asprintf(script,
                     "#!/bin/sh\n"
                     "# rigdeck: the agent of cloud node %s, written by cloud sync (docs/gcp.md).\n"
                     "[ -r /etc/rigdeck/agent.env ] && . /etc/rigdeck/agent.env\n"
                     "dir=${RIGDECK_AGENT_DIR:-" AGENT_DIR_DEFAULT "}\n"
                     "umask 077\n"
                     "mkdir -p \"$dir/work\" || exit 1\n"
                     "%s"
                     "set --\n"
                     "[ -r /etc/rigdeck/ca.pem ] && set -- --cacert /etc/rigdeck/ca.pem\n"
                     "while :; do\n"
                     "    rigdeck agent --runtime \"${RIGDECK_RUNTIME:-auto}\" --node '%s' --store '%s'%s"
                     " --master-key \"${RIGDECK_MASTER_KEY:-" AGENT_MASTER_KEY_DEFAULT "}\" --work-dir \"$dir/work\" \"$@\"\n"
                     "    sleep 10\n"
                     "done\n",
                     name, cred, name, url, login);
    explicit_bzero(cred, sizeof cred);
    if (n < 0) {
        *script = NULL;
        return rd_fail(err, RD_ENOMEM, "out of memory");
    }
    return RD_OK;
}

int cloud_agent_overdue(cloud_round *r, const json_t *node)
{
    rd_time since = 0;
    const char *t = doc_str(node, "agent_wait_since");
    if (!cloud_node_runs_agent(node) || strcmp(doc_str(node, "state"), "provisioning") != 0 || !*t ||
        rdtime_parse("agent_wait_since", t, &since, NULL) != RD_OK)
        return 0;
    json_t *idle = json_object_get(r->region, "idle_release_s");
    int64_t limit = json_is_integer(idle) && json_integer_value(idle) > 0 ? json_integer_value(idle)
                                                                         : CLOUD_DEFAULT_IDLE_RELEASE_S;
    return r->ctx->now - since >= limit;
}

void cloud_forget_credentials(cmd_ctx *ctx, const json_t *node, rd_err *err, rd_code *rc)
{
    char user[RD_KEY_MAX];
    if (*rc != RD_OK || strcmp(doc_str(node, "provider"), "physical") == 0)
        return;
    snprintf(user, sizeof user, "node:%s", doc_str(node, "name"));
    *rc = secure_forget(ctx, user, err);
}
