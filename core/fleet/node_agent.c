/* node_agent.c - where work may run (spec/execution.md §3): a node's agent
 * mode, `node set --agent`, and the upgrade that gives older stores one.
 *
 * A node's "agent_mode" is "required" (agent-managed, the default) or
 * "none" (manual).  An agent-managed node receives work only while its agent
 * is online, and a worker placed there is `starting` until the agent starts
 * its process; on a manual node placement is the start and `job report`
 * the end (simulations, demos, machines run by hand).
 *
 * Whether the agent is online reaches the scheduler as the node's own
 * "agent_online", which agent register sets and agent check (on the loss)
 * and agent remove clear (agent.c).  A field on the node, not a read of the
 * agents per pass: the pass reads the nodes anyway, so it judges every node
 * without one read more, and a registering agent writes its node, which is
 * exactly what wakes an idle scheduler (sched_idle.c: node keys matter,
 * agent keys do not).  Between a lease running out and the controller's
 * next `agent check` the node still counts as online; a worker placed then
 * stays `starting` and goes back to the queue with the loss, as before.
 */
#include "node_agent.h"

#include <string.h>

#include "doc.h"
#include "fleet.h"
#include "keyspace.h"

int node_agent_required(const json_t *node)
{
    const char *mode = json_string_value(json_object_get(node, "agent_mode"));
    if (mode)
        return strcmp(mode, NODE_AGENT_REQUIRED) == 0;
    return json_is_true(json_object_get(node, "agent_managed"));
}

int node_agent_offline(const json_t *node)
{
    const char *mode = json_string_value(json_object_get(node, "agent_mode"));
    return mode && strcmp(mode, NODE_AGENT_REQUIRED) == 0 && !json_is_true(json_object_get(node, "agent_online"));
}

void node_agent_set_online(json_t *node, int online)
{
    json_object_set_new(node, "agent_online", json_boolean(online));
}

rd_code node_agent_change(cmd_ctx *ctx, json_t *node, const char *mode, rd_err *err)
{
    const char *name = doc_str(node, "name");
    int to_required = strcmp(mode, NODE_AGENT_REQUIRED) == 0;
    /* the console's edit form sends every field: the same mode is no change */
    if (to_required == node_agent_required(node) && json_object_get(node, "agent_mode"))
        return RD_OK;
    size_t held = json_array_size(json_object_get(node, "workers"));
    if (held)
        return rd_fail(err, RD_EINVAL, "node set --agent: node '%s' holds %zu worker(s); change its agent mode once "
                       "they have ended (each ends the way it was placed: by its agent or by job report)", name, held);
    if (!to_required) {
        char key[RD_KEY_MAX];
        json_t *agent = NULL;
        rd_code rc = tx_get(ctx->tx, tx_key(key, KEY_AGENTS "%s", name), &agent, err);
        if (rc == RD_OK && agent)
            rc = rd_fail(err, RD_EINVAL, "node set --agent none: node '%s' has an agent registered (%s); stop it and "
                         "run agent remove %s first", name, doc_str(agent, "state"), name);
        json_decref(agent);
        if (rc != RD_OK)
            return rc;
        json_object_del(node, "agent_online");
    } else {
        node_agent_set_online(node, 0);   /* none can be registered: manual nodes refuse agents */
    }
    json_object_set_new(node, "agent_mode", json_string(mode));
    return RD_OK;
}

/* ---- help ------------------------------------------------------------------ */

/* `help node add` and `help node set` say what the two modes mean. */
static const char *const node_agent_help_lines[] = {
    "Where work may run: every node has an agent mode (node show and node list: agent_mode).",
    "",
    "MODE\tMEANING",
    "required\tagent-managed, the default: the node receives work only while its agent (rigdeck agent --node NAME) "
    "is online, registered and not lost; a placed worker is starting until the agent starts it; job why counts "
    "such nodes without their agent as agent_offline",
    "none\ta manual node: no agent; a placed worker is running at once and ends by job report (simulations, "
    "demos, machines run by hand); an agent may not register on it",
    "",
    "node set NAME --agent MODE is refused while workers are placed on the node, and to none while an agent is "
    "registered for it (stop it, then agent remove NAME).",
    NULL
};

const cmd_note node_cmd_notes[] = {
    { "node add", node_agent_help_lines },
    { "node set", node_agent_help_lines },
    { 0 }
};

/* ---- the upgrade ----------------------------------------------------------- */

enum { UPGRADE_STEP = 32, UPGRADE_TRIES = 10 };

/* Gives nodes names[from..to) an agent mode in one guarded step. */
static rd_code upgrade_step(rd_tx *tx, const json_t *names, size_t from, size_t to, const json_t *agents,
                            size_t *required, size_t *none, rd_err *err)
{
    rd_code rc = RD_ECONFLICT;
    for (int attempt = 0; attempt < UPGRADE_TRIES && rc == RD_ECONFLICT; attempt++) {
        size_t req = 0, man = 0;
        tx_reset(tx);
        rc = RD_OK;
        for (size_t i = from; i < to && rc == RD_OK; i++) {
            char key[RD_KEY_MAX];
            const char *name = json_string_value(json_array_get(names, i));
            json_t *node = NULL;
            rc = tx_get(tx, tx_key(key, KEY_NODES "%s", name), &node, err);
            if (rc != RD_OK || !node || json_object_get(node, "agent_mode") ||
                strcmp(doc_str(node, "state"), "removed") == 0) {
                json_decref(node);
                continue;
            }
            const json_t *agent = json_object_get(agents, name);
            int had = json_is_true(json_object_get(node, "agent_managed")) || agent;
            json_object_set_new(node, "agent_mode", json_string(had ? NODE_AGENT_REQUIRED : NODE_AGENT_NONE));
            if (had)
                node_agent_set_online(node, strcmp(doc_str(agent, "state"), "online") == 0);
            req += had;
            man += !had;
            rc = tx_put(tx, key, node, err);
        }
        if (rc == RD_OK && tx_write_count(tx) > 0)
            rc = tx_commit(tx, NULL, err);
        if (rc == RD_OK) {
            *required += req;
            *none += man;
        }
    }
    return rc;
}

rd_code node_agent_upgrade(store_t *st, size_t *required, size_t *none, rd_err *err)
{
    json_t *meta = NULL, *agents = NULL, *nodes = NULL, *names = json_array(), *by_node = json_object(), *d;
    size_t i;
    *required = *none = 0;
    rd_tx *tx = tx_new(st);
    if (!tx || !names || !by_node) {
        tx_free(tx);
        json_decref(names);
        json_decref(by_node);
        return rd_fail(err, RD_ENOMEM, "out of memory");
    }
    rd_code rc = tx_get(tx, KEY_META_STORE, &meta, err);
    if (rc != RD_OK || !meta || json_is_true(json_object_get(meta, NODE_AGENT_UPGRADE_MARK)))
        goto out;
    rc = tx_list(tx, KEY_AGENTS, &agents, err);
    if (rc == RD_OK)
        rc = tx_list(tx, KEY_NODES, &nodes, err);
    json_array_foreach(agents, i, d)
        json_object_set(by_node, doc_str(d, "node"), d);
    json_array_foreach(nodes, i, d)
        if (!json_object_get(d, "agent_mode") && strcmp(doc_str(d, "state"), "removed") != 0)
            json_array_append_new(names, json_string(doc_str(d, "name")));
    /* steps of their own: an etcd transaction holds a limited number of
     * writes, and a fleet has thousands of nodes */
    for (i = 0; rc == RD_OK && i < json_array_size(names); i += UPGRADE_STEP) {
        size_t to = i + UPGRADE_STEP < json_array_size(names) ? i + UPGRADE_STEP : json_array_size(names);
        rc = upgrade_step(tx, names, i, to, by_node, required, none, err);
    }
    if (rc == RD_OK)
        rc = fleet_meta_mark(tx, NODE_AGENT_UPGRADE_MARK, UPGRADE_TRIES, err);
out:
    json_decref(meta);
    json_decref(agents);
    json_decref(nodes);
    json_decref(names);
    json_decref(by_node);
    tx_free(tx);
    return rc;
}
