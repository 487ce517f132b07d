/* device_agent.c - a device's agent as the store knows it: `device
 * register`, the controller's look at silent devices, and the deployment
 * object's shape.
 *
 *   device register DEVICE   `rigdeck agent --device DEVICE` starting: its
 *                            document (KEY_DEVICE_AGENTS<device>) and its
 *                            alive key (KEY_DEVICE_ALIVE<device>) under the
 *                            lease it renews; the device turns `active`
 *                            (from `provisioning`, or back from `offline`)
 *   agent check              also looks at device agents here
 *                            (device_agent_check): one whose alive key is
 *                            gone (the lease ran out) is `lost`, and once
 *                            silent for the node timeout its device turns
 *                            `offline`, exactly as a node's does (agent.c)
 *
 * Devices have their own keys rather than sharing the node agents': a
 * device and a node may have the same name, and nothing of a node's agent
 * (workers, the work view, GPU health) applies to a device.  Like a node
 * agent registered without --beats, the lease alone decides (agent.c says
 * why a secured store's nodes also beat; devices do not log in as node:N).
 */
#include "device_agent.h"

#include <string.h>

#include "agent_view.h"

#include "doc.h"
#include "fleet.h"
#include "keyspace.h"
#include "names.h"
#include "num.h"

/* ---- the deployment ------------------------------------------------------ */

void device_deployment_normalize(json_t *dev)
{
    json_t *d = json_object_get(dev, "deployment");
    if (!json_is_string(d) && d)
        return;
    const char *word = d ? json_string_value(d) : "none";
    if (strcmp(word, "none") == 0 || !*doc_str(dev, "deployed_config")) {
        json_object_set_new(dev, "deployment", json_null());
        return;
    }
    const char *at = doc_str(dev, "last_deployed_at");
    json_object_set_new(dev, "deployment",
                        json_pack("{s:s, s:s, s:n, s:n, s:o, s:n, s:i}", "config", doc_str(dev, "deployed_config"),
                                  "state", word, "exit_code", "deployed_at", "started_at",
                                  *at ? json_string(at) : json_null(), "ended_at", "serial", 1));
}

int device_deployment_live(const json_t *d)
{
    const char *s = doc_str(d, "state");
    return json_is_object(d) && (strcmp(s, "deploying") == 0 || strcmp(s, "running") == 0 || strcmp(s, "failed") == 0);
}

/* ---- register ------------------------------------------------------------ */

static void set_state(json_t *dev, const char *state, rd_time now)
{
    char ts[RDTIME_BUFLEN];
    json_object_set_new(dev, "state", json_string(state));
    json_object_set_new(dev, "state_changed_at", json_string(rdtime_format(now, ts)));
}

static rd_code device_register_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *name = cmd_arg(a, 0);
    json_t *dev = NULL, *region = NULL;
    agent_registration r;
    char key[RD_KEY_MAX], ts[RDTIME_BUFLEN];
    rd_code rc = agent_view_registration(ctx, a, "device name", name, &r, err);
    if (rc == RD_OK)
        rc = fleet_get_live(ctx, "device", name, &dev, err);
    if (rc == RD_OK)
        rc = fleet_region_get(ctx, doc_str(dev, "region"), &region, err);
    if (rc == RD_OK)
        rc = fleet_require_owner(ctx, region, "device register", err);
    json_decref(region);
    if (rc != RD_OK) {
        json_decref(dev);
        return rc;
    }
    rdtime_format(ctx->now, ts);
    json_t *agent = json_pack("{s:s, s:s, s:I, s:s, s:s, s:I, s:I, s:I, s:s, s:s, s:s, s:n}", "device", name, "host",
                              cmd_opt(a, "host") ? cmd_opt(a, "host") : "", "pid", (json_int_t)r.pid, "version",
                              cmd_opt(a, "version") ? cmd_opt(a, "version") : "", "runtime",
                              cmd_opt(a, "runtime") ? cmd_opt(a, "runtime") : "process", "heartbeat_s",
                              (json_int_t)r.heartbeat, "lease", (json_int_t)r.lease, "lease_ttl", (json_int_t)r.ttl, "state",
                              "online", "registered_at", ts, "last_heartbeat", ts, "lost_at");
    rc = agent ? tx_put(ctx->tx, tx_key(key, KEY_DEVICE_AGENTS "%s", name), agent, err)
               : rd_fail(err, RD_ENOMEM, "out of memory");
    if (rc == RD_OK)
        rc = agent_view_put_alive(ctx->tx, tx_key(key, KEY_DEVICE_ALIVE "%s", name), &r, ts, err);
    const char *state = doc_str(dev, "state");
    if (rc == RD_OK && strcmp(state, "offline") == 0) {
        set_state(dev, *doc_str(dev, "offline_from") ? doc_str(dev, "offline_from") : "active", ctx->now);
        json_object_del(dev, "offline_from");
        json_object_del(dev, "offline_reason");
    } else if (rc == RD_OK && strcmp(state, "provisioning") == 0) {
        set_state(dev, "active", ctx->now);   /* provisioned: its agent runs */
    }
    if (rc == RD_OK) {
        device_deployment_normalize(dev);
        *result = json_pack("{s:s, s:s, s:O}", "name", name, "device_state", doc_str(dev, "state"), "deployment",
                            json_object_get(dev, "deployment"));
        rc = tx_put(ctx->tx, tx_key(key, KEY_DEVICES "%s", name), dev, err);
        dev = NULL;
    }
    json_decref(dev);
    return rc;
}

/* ---- reading ------------------------------------------------------------- */

/* The device's alive key: 1 when it is there under lease; -1 when the
 * store cannot say (never call an agent lost on that). */
static int alive_under(store_t *st, const char *device, int64_t lease, int64_t *renewed_ago)
{
    store_kv kv;
    int found = 0;
    char key[RD_KEY_MAX];
    rd_err ignored = { 0 };
    if (store_get(st, tx_key(key, KEY_DEVICE_ALIVE "%s", device), &kv, &found, NULL, &ignored) != RD_OK)
        return -1;
    int yes = found && kv.lease == lease;
    if (found)
        store_kv_free(&kv);
    int64_t left = 0, granted = 0;
    *renewed_ago = 0;
    if (yes && store_lease_ttl(st, lease, &left, &granted, &ignored) == RD_OK && granted > left)
        *renewed_ago = granted - left;
    return yes;
}

json_t *device_agent_describe(rd_tx *tx, const char *device, rd_time now)
{
    char key[RD_KEY_MAX], ts[RDTIME_BUFLEN];
    json_t *agent = NULL;
    rd_err ignored = { 0 };
    if (tx_get(tx, tx_key(key, KEY_DEVICE_AGENTS "%s", device), &agent, &ignored) != RD_OK || !agent)
        return json_pack("{s:s, s:n, s:n, s:n}", "state", "none", "last_heartbeat", "host", "version");
    const char *state = doc_str(agent, "state");
    rd_time last = 0;
    rdtime_parse("last_heartbeat", doc_str(agent, "last_heartbeat"), &last, NULL);
    if (strcmp(state, "online") == 0) {
        int64_t ago = 0;
        int alive = alive_under(tx_store(tx), device, doc_int(agent, "lease"), &ago);
        if (alive == 0)
            state = "lost";   /* the lease ran out; the controller has not looked yet */
        else if (alive > 0 && now - ago > last)
            last = now - ago;
    }
    json_t *out = json_pack("{s:s, s:s, s:s, s:s, s:I, s:s, s:s}", "state", state, "last_heartbeat",
                            rdtime_format(last, ts), "host", doc_str(agent, "host"), "version",
                            doc_str(agent, "version"), "pid", (json_int_t)doc_int(agent, "pid"), "registered_at",
                            doc_str(agent, "registered_at"), "runtime", doc_str(agent, "runtime"));
    json_decref(agent);
    return out;
}

/* ---- the controller's look ----------------------------------------------- */

/* One device agent that is not plainly alive: lost, then its device
 * offline once silent for timeout. */
static rd_code check_one(cmd_ctx *ctx, const char *name, int64_t timeout, json_t *events, int64_t *next_in,
                         rd_err *err)
{
    char key[RD_KEY_MAX], ts[RDTIME_BUFLEN];
    json_t *agent = NULL, *dev = NULL;
    rd_code rc = tx_get(ctx->tx, tx_key(key, KEY_DEVICE_AGENTS "%s", name), &agent, err);
    if (rc != RD_OK || !agent)
        return rc;
    rd_time last = 0;
    rdtime_parse("last_heartbeat", doc_str(agent, "last_heartbeat"), &last, NULL);
    if (strcmp(doc_str(agent, "state"), "online") == 0) {
        int64_t ago = 0;
        int alive = alive_under(tx_store(ctx->tx), name, doc_int(agent, "lease"), &ago);
        if (alive != 0)
            goto out;   /* alive, or the store cannot say */
        /* its last renewal was at least a TTL ago */
        if (ctx->now - doc_int(agent, "lease_ttl") > last)
            last = ctx->now - doc_int(agent, "lease_ttl");
        json_object_set_new(agent, "state", json_string("lost"));
        json_object_set_new(agent, "last_heartbeat", json_string(rdtime_format(last, ts)));
        json_object_set_new(agent, "lost_at", json_string(rdtime_format(ctx->now, ts)));
        json_array_append_new(events, json_pack("{s:s, s:s, s:s}", "device", name, "event", "agent_lost",
                                                "last_heartbeat", doc_str(agent, "last_heartbeat")));
        rc = tx_put(ctx->tx, tx_key(key, KEY_DEVICE_AGENTS "%s", name), json_incref(agent), err);
        if (rc == RD_OK)
            rc = cmd_commit_step(ctx, err);
    }
    if (rc != RD_OK || json_is_true(json_object_get(agent, "offline_done")))
        goto out;
    if (ctx->now - last < timeout) {
        if (*next_in < 0 || last + timeout - ctx->now < *next_in)
            *next_in = last + timeout - ctx->now;
        goto out;
    }
    rc = tx_get(ctx->tx, tx_key(key, KEY_DEVICES "%s", name), &dev, err);
    const char *state = doc_str(dev, "state");
    if (rc == RD_OK && dev && (strcmp(state, "active") == 0 || strcmp(state, "provisioning") == 0)) {
        json_object_set_new(dev, "offline_from", json_string(state));
        set_state(dev, "offline", ctx->now);
        json_object_set_new(dev, "offline_reason", json_string("agent_lost"));
        rc = tx_put(ctx->tx, key, json_incref(dev), err);
        json_array_append_new(events, json_pack("{s:s, s:s, s:s}", "device", name, "event", "offline",
                                                "last_heartbeat", rdtime_format(last, ts)));
    }
    /* done with this loss: later rounds skip the agent */
    json_object_set_new(agent, "offline_done", json_true());
    if (rc == RD_OK)
        rc = tx_put(ctx->tx, tx_key(key, KEY_DEVICE_AGENTS "%s", name), json_incref(agent), err);
    if (rc == RD_OK)
        rc = cmd_commit_step(ctx, err);
out:
    json_decref(dev);
    json_decref(agent);
    return rc;
}

rd_code device_agent_check(cmd_ctx *ctx, int64_t timeout, json_t *events, int64_t *next_in, rd_err *err)
{
    json_t *agents = NULL, *alive = NULL, *ag;
    size_t i;
    /* one listing and one range: most agents are plainly alive (agent.c) */
    rd_code rc = agent_view_alive_at(ctx->tx, KEY_DEVICE_ALIVE, &alive, err);
    if (rc == RD_OK)
        rc = tx_list(ctx->tx, KEY_DEVICE_AGENTS, &agents, err);
    json_array_foreach(agents, i, ag) {
        if (rc != RD_OK)
            break;
        const char *state = doc_str(ag, "state");
        const json_t *entry = json_object_get(alive, doc_str(ag, "device"));
        if (strcmp(state, "online") == 0 && entry && doc_int(entry, "lease") == doc_int(ag, "lease"))
            continue;
        if (strcmp(state, "lost") == 0 && json_is_true(json_object_get(ag, "offline_done")))
            continue;
        char name[256];
        snprintf(name, sizeof name, "%s", doc_str(ag, "device"));
        tx_reset(ctx->tx);
        rc = check_one(ctx, name, timeout, events, next_in, err);
    }
    json_decref(agents);
    json_decref(alive);
    return rc;
}

/* ---- the command table ---------------------------------------------------- */

static const cmd_flag device_register_flags[] = {
    { "lease", "ID", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "the store lease the agent renews as its heartbeat" },
    { "pid", "N", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "the agent's process id" },
    { "host", "HOST", CMD_FLAG_VALUE, "the device's host name" },
    { "version", "V", CMD_FLAG_VALUE, "the agent's rigdeck version" },
    { "heartbeat", "SECONDS", CMD_FLAG_VALUE, "how often it renews its lease (default 5)" },
    { "runtime", "process|podman|docker", CMD_FLAG_VALUE, "how it runs the deployed configuration" },
    { 0 }
};

const cmd_def device_agent_cmd_table[] = {
    { .words = "device register", .args = "DEVICE", .flags = device_register_flags, .options = CMD_MUTATES,
      .help = "what a device's agent sends when it starts (rigdeck agent --device does this): the device turns active",
      .run = device_register_cmd, .access = CMD_ACCESS_FLEET },
    { 0 }
};
