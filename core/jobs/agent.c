/* agent.c - the `agent` commands: what node agents and the controller tell
 * the store about agents.
 *
 *   agent register NODE ...   an agent starting on NODE: its document, its
 *                             alive key under the lease it will renew, and
 *                             the node marked as run by an agent (placed
 *                             workers then wait for their process to start)
 *   agent list                every agent and its state
 *   agent remove NODE         retires a stopped agent: an agent-managed
 *                             node waits for a new one (node set --agent
 *                             none makes it manual)
 *   agent check               the controller's round: an agent whose lease
 *                             expired (or, beating, whose beat stalled) is
 *                             `lost`; a node whose agent has been
 *                             silent for the node timeout turns `offline`,
 *                             its running workers `failed` (node_lost,
 *                             billed to the last heartbeat) and those not yet
 *                             started go back to the queue; a device
 *                             whose agent is silent turns `offline` the
 *                             same way (device_agent.c)
 *
 * A node that went offline this way returns to the state it had before when
 * its agent registers again.  Register and the loss also keep the node's
 * "agent_online", which is how placement knows (node_agent.c); a manual
 * node (agent_mode none) takes no agent.  Reading an agent's state is agent_view.c's.
 *
 * The beat.  On a secured etcd any user may keep any lease alive (etcd has
 * no permission for keep-alive), so a lease that lives on proves nothing:
 * a tenant could keep another's dead agent online.  An agent logged in to
 * such a store registers with --beats and rewrites its alive key at each
 * heartbeat, which only it and root may write.  The controller remembers,
 * between its rounds (a memo of its context: agent_check_follow_beats), each such key's lease and
 * mod_revision and when it last saw them change; one unchanged for the
 * lease's TTL is a stalled beat, and the agent is lost exactly as if its
 * lease had run out.  Without that memory (a one-off `agent check`), and
 * for agents registered without --beats (SQLite, an etcd without users,
 * agents of an older version), the lease alone decides.
 */
#include "agent.h"

#include <stdlib.h>
#include <string.h>

#include "access_view.h"
#include "agent_view.h"
#include "device_agent.h"
#include "doc.h"
#include "fleet.h"
#include "job.h"
#include "keyspace.h"
#include "names.h"
#include "node_agent.h"
#include "num.h"

#define AGENT_DEFAULT_TIMEOUT_S 30

static rd_code node_read(cmd_ctx *ctx, const char *name, json_t **node, rd_err *err)
{
    char key[RD_KEY_MAX];
    rd_code rc = tx_get(ctx->tx, tx_key(key, KEY_NODES "%s", name), node, err);
    if (rc == RD_OK && (!*node || strcmp(doc_str(*node, "state"), "removed") == 0)) {
        json_decref(*node);
        *node = NULL;
        rc = rd_fail(err, RD_ENOTFOUND, "node '%s' does not exist", name);
    }
    return rc;
}

static rd_code node_write(cmd_ctx *ctx, json_t *node, rd_err *err)
{
    char key[RD_KEY_MAX];
    return tx_put(ctx->tx, tx_key(key, KEY_NODES "%s", doc_str(node, "name")), node, err);
}

static void node_set_state(json_t *node, const char *state, rd_time now)
{
    char ts[RDTIME_BUFLEN];
    json_object_set_new(node, "state", json_string(state));
    json_object_set_new(node, "state_changed_at", json_string(rdtime_format(now, ts)));
}

/* ---- register -------------------------------------------------------------- */

/* The workers the books placed on node name (refs: its "workers", JOB/INDEX)
 * before its first agent registered (a placement in the second before):
 * nobody started them, so this agent will (job_hand_to_agent), or, when
 * hours were billed for nothing, they fail `not_started` and the hours are
 * given back.  result lists them. */
static rd_code adopt_books_workers(cmd_ctx *ctx, const char *name, const json_t *refs, json_t *result, rd_err *err)
{
    size_t i;
    json_t *ref;
    rd_code rc = RD_OK;
    json_array_foreach(refs, i, ref) {
        json_t *job = NULL;
        char id[160];
        const char *outcome = NULL;
        snprintf(id, sizeof id, "%s", json_string_value(ref) ? json_string_value(ref) : "");
        char *slash = strrchr(id, '/');
        if (!slash)
            continue;
        *slash = '\0';
        size_t w = (size_t)strtoul(slash + 1, NULL, 10);
        rc = job_get(ctx, id, &job, err);
        json_t *worker = json_array_get(json_object_get(job, "workers"), w);
        if (rc == RD_OK && worker && strcmp(doc_str(worker, "node"), name) == 0)
            rc = job_hand_to_agent(ctx, job, w, &outcome, err);
        if (rc == RD_OK && outcome) {
            json_array_append_new(json_object_get(result, strcmp(outcome, "handed") == 0 ? "workers_handed"
                                                                                          : "workers_failed"),
                                  json_string(json_string_value(ref)));
            job_update_state(job);
            rc = job_put(ctx, job, err);
            job = NULL;
        }
        json_decref(job);
        if (rc == RD_ENOTFOUND)
            rc = RD_OK;   /* the node's books name a job that is gone: nothing to start */
        if (rc != RD_OK)
            break;
    }
    return rc;
}

static rd_code agent_register_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *name = cmd_arg(a, 0);
    json_t *node = NULL, *old = NULL;
    agent_registration r;
    char key[RD_KEY_MAX], ts[RDTIME_BUFLEN];
    rd_code rc = agent_view_registration(ctx, a, "node name", name, &r, err);
    if (rc == RD_OK)
        rc = node_read(ctx, name, &node, err);
    if (rc == RD_OK)
        rc = fleet_require_node_owner(ctx, node, "agent register", err);
    /* A cloud node runs an agent only when its region made it so; a manual
     * one (agent_mode none) is the cloud driver's alone. */
    int cloud = strcmp(doc_str(node, "provider"), "physical") != 0;
    if (rc == RD_OK && cloud && strcmp(doc_str(node, "agent_mode"), "required") != 0)
        rc = rd_fail(err, RD_EINVAL, "agent register: node '%s' is a manual %s cloud node (agent_mode none); its provider "
                     "reports it, not an agent", name, doc_str(node, "provider"));
    else if (rc == RD_OK && !node_agent_required(node) && json_object_get(node, "agent_mode"))
        rc = rd_fail(err, RD_EINVAL, "agent register: node '%s' is a manual node (agent_mode none): its work is placed "
                     "running and ended by job report; node set %s --agent required first", name, name);
    if (rc == RD_OK)
        rc = agent_view_get(ctx->tx, name, &old, err);
    if (rc != RD_OK)
        goto out;

    rdtime_format(ctx->now, ts);
    json_t *agent = json_pack("{s:s, s:s, s:s, s:I, s:s, s:s, s:s, s:I, s:I, s:I, s:s, s:s, s:n, s:b}", "name", name, "node",
                              name, "host", cmd_opt(a, "host") ? cmd_opt(a, "host") : "", "pid", (json_int_t)r.pid,
                              "version", cmd_opt(a, "version") ? cmd_opt(a, "version") : "", "runtime",
                              cmd_opt(a, "runtime") ? cmd_opt(a, "runtime") : "process", "work_dir",
                              cmd_opt(a, "work-dir") ? cmd_opt(a, "work-dir") : "", "heartbeat_s",
                              (json_int_t)r.heartbeat, "lease", (json_int_t)r.lease, "lease_ttl", (json_int_t)r.ttl,
                              "state", "online", "registered_at", ts, "lost_at", "beats", cmd_opt_given(a, "beats"));
    if (agent)
        json_object_set_new(agent, "last_heartbeat", json_string(ts));
    rc = tx_put(ctx->tx, tx_key(key, KEY_AGENTS "%s", name), agent, err);
    if (rc == RD_OK)
        rc = agent_view_put_alive(ctx->tx, tx_key(key, KEY_AGENT_ALIVE "%s", name), &r, ts, err);
    if (rc != RD_OK)
        goto out;
    /* Back from being lost: the node returns to where it was. */
    const char *before = doc_str(node, "offline_from");
    if (strcmp(doc_str(node, "state"), "offline") == 0 && *before) {
        node_set_state(node, before, ctx->now);
        json_object_del(node, "offline_from");
    }
    /* A cloud node is provisioning until its agent registers (and offline
     * after its instance stopped, until the agent is back): only an agent
     * that runs there makes it take work.  One being released stays so. */
    if (cloud && (strcmp(doc_str(node, "state"), "provisioning") == 0 ||
                  (strcmp(doc_str(node, "state"), "offline") == 0 && !*doc_str(node, "release_started_at"))))
        node_set_state(node, "active", ctx->now);
    int had_agent = json_is_true(json_object_get(node, "agent_managed"));
    json_object_set_new(node, "agent_managed", json_true());
    node_agent_set_online(node, 1);   /* the write that wakes an idle scheduler */
    *result = json_pack("{s:s, s:s, s:{s:s, s:s, s:s, s:s, s:I}, s:[], s:[]}", "name", name, "node_state",
                        doc_str(node, "state"), "agent", "state", "online", "last_heartbeat", ts, "host",
                        doc_str(agent, "host"), "version", doc_str(agent, "version"), "pid", (json_int_t)r.pid,
                        "workers_handed", "workers_failed");
    /* the node is written first: a worker that fails frees its GPUs on
     * the node as written here */
    json_t *refs = had_agent ? NULL : json_deep_copy(json_object_get(node, "workers"));
    rc = node_write(ctx, node, err);
    node = NULL;
    if (rc == RD_OK && refs)
        rc = adopt_books_workers(ctx, name, refs, *result, err);
    json_decref(refs);
out:
    json_decref(node);
    json_decref(old);
    return rc;
}

/* ---- list ------------------------------------------------------------------ */

static rd_code agent_list_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *items = NULL, *out = json_array(), *ag;
    size_t i;
    access_view seen;
    (void)a;
    access_view_open(ctx, &seen);
    rd_code rc = access_view_load_nodes(&seen, err);   /* one read: most agents' nodes are asked about */
    if (rc == RD_OK)
        rc = tx_list(ctx->tx, KEY_AGENTS, &items, err);
    if (rc != RD_OK) {
        access_view_close(&seen);
        json_decref(out);
        return rc;
    }
    json_array_foreach(items, i, ag) {
        if (!access_view_node_named(&seen, doc_str(ag, "node")))
            continue;
        json_t *view = agent_view_describe(ctx->tx, ag, ctx->now);
        json_object_set_new(view, "name", json_string(doc_str(ag, "node")));
        json_object_set_new(view, "runtime", json_string(doc_str(ag, "runtime")));
        json_object_set_new(view, "heartbeat_s", json_integer(doc_int(ag, "heartbeat_s")));
        json_array_append_new(out, view);
    }
    access_view_close(&seen);
    json_decref(items);
    *result = json_pack("{s:o}", "items", out);
    return RD_OK;
}

/* ---- check ----------------------------------------------------------------- */

/* Fails what node's lost agent left running (billed to its last heartbeat)
 * and requeues what it never started, one worker per step so that a step
 * stays small on etcd. */
static rd_code end_node_workers(cmd_ctx *ctx, const char *name, rd_time last, int *failed, int *requeued, rd_err *err)
{
    for (;;) {
        json_t *node = NULL, *job = NULL;
        rd_code rc = node_read(ctx, name, &node, err);
        if (rc != RD_OK)
            return rc;
        const char *ref = json_string_value(json_array_get(json_object_get(node, "workers"), 0));
        if (!ref) {
            json_decref(node);
            return RD_OK;
        }
        char id[160];
        snprintf(id, sizeof id, "%s", ref);
        char *slash = strrchr(id, '/');
        size_t w = slash ? (size_t)strtoul(slash + 1, NULL, 10) : 0;
        if (slash)
            *slash = '\0';
        json_decref(node);
        rc = job_get(ctx, id, &job, err);
        if (rc == RD_ENOTFOUND)
            return rd_fail(err, RD_ECORRUPT, "node '%s' holds worker %s of a job that does not exist", name, ref);
        json_t *worker = json_array_get(json_object_get(job, "workers"), w);
        const char *state = doc_str(worker, "state");
        if (rc == RD_OK && strcmp(state, "starting") == 0) {
            rc = job_requeue_worker(ctx, job, w, err);
            (*requeued)++;
        } else if (rc == RD_OK) {
            int held = job_worker_holds_node(state);
            /* the hours up to the last heartbeat in steps of their own (a
             * node silent over a weekend has days of them), then the end */
            rc = job_bill_hours(ctx, job, &w, 1, last, err);
            if (rc == RD_OK && held)
                json_object_set_new(worker, "reason", json_string("node_lost"));
            if (rc == RD_OK)
                rc = job_end_worker_at(ctx, job, w, "failed", last, err);
            (*failed)++;
        }
        if (rc == RD_OK) {
            if (strcmp(doc_str(worker, "reason"), "node_lost") == 0)
                json_object_set_new(job, "reason", json_string("node_lost"));
            job_update_state(job);
            rc = job_put(ctx, job, err);
            job = NULL;
        }
        json_decref(job);
        if (rc == RD_OK)
            rc = cmd_commit_step(ctx, err);
        if (rc != RD_OK)
            return rc;
    }
}

/* node's alive key as it is now ({"lease", "rev"}), when it is under
 * lease; NULL when it is not (gone, or another lease's).  When the store
 * cannot be read, *unknown is set: do not call the agent lost on that. */
static json_t *alive_now(cmd_ctx *ctx, const char *name, int64_t lease, int *unknown)
{
    store_kv kv;
    int found = 0;
    char key[RD_KEY_MAX];
    rd_err ignored = { 0 };
    *unknown = 0;
    if (store_get(tx_store(ctx->tx), tx_key(key, KEY_AGENT_ALIVE "%s", name), &kv, &found, NULL, &ignored) != RD_OK) {
        *unknown = 1;
        return NULL;
    }
    json_t *entry = found && kv.lease == lease
                        ? json_pack("{s:I, s:I}", "lease", (json_int_t)kv.lease, "rev", (json_int_t)kv.mod_revision)
                        : NULL;
    if (found)
        store_kv_free(&kv);
    return entry;
}

/* What `agent check` saw of each agent's beat, {node: {"lease", "rev",
 * "at"}}, kept in the controller's context between its rounds. */
static const char beats_key;

static void beats_free(void *p)
{
    json_decref(p);
}

rd_code agent_check_follow_beats(cmd_ctx *ctx, rd_err *err)
{
    json_t *beats = json_object();
    if (!beats)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    return cmd_ctx_set_memo(ctx, &beats_key, beats, beats_free, err);
}

/* Whether the beat of an agent registered with --beats has stalled: its
 * alive key (entry: {"lease", "rev"}) has not changed for the lease's TTL
 * as this controller saw it across its rounds; *since is when it first
 * saw the key as it still is.  0 without the controller's memory, for an
 * agent that does not beat, or when entry is NULL (the lease decides). */
static int beat_stalled(cmd_ctx *ctx, const json_t *agent, const json_t *entry, rd_time *since)
{
    json_t *beats = cmd_ctx_memo(ctx, &beats_key);
    if (!beats || !entry || !json_is_true(json_object_get(agent, "beats")))
        return 0;
    const char *node = doc_str(agent, "node");
    json_t *seen = json_object_get(beats, node);
    if (!seen || doc_int(seen, "lease") != doc_int(entry, "lease") || doc_int(seen, "rev") != doc_int(entry, "rev")) {
        json_object_set_new(beats, node,
                            json_pack("{s:I, s:I, s:I}", "lease", (json_int_t)doc_int(entry, "lease"), "rev",
                                      (json_int_t)doc_int(entry, "rev"), "at", (json_int_t)ctx->now));
        return 0;
    }
    int64_t ttl = doc_int(agent, "lease_ttl");
    if (ctx->now - doc_int(seen, "at") < (ttl < 1 ? 1 : ttl))
        return 0;
    *since = doc_int(seen, "at");
    return 1;
}

/* The node of a lost agent takes no new work from now on (the same step as
 * the loss); it turns offline only after the node timeout. */
static rd_code node_mark_offline_agent(cmd_ctx *ctx, const char *name, rd_err *err)
{
    json_t *node = NULL;
    rd_code rc = node_read(ctx, name, &node, err);
    if (rc == RD_ENOTFOUND)
        return RD_OK;   /* removed meanwhile */
    if (rc == RD_OK && json_is_true(json_object_get(node, "agent_online"))) {
        node_agent_set_online(node, 0);
        rc = node_write(ctx, node, err);
        node = NULL;
    }
    json_decref(node);
    return rc;
}

/* One agent: lost when its alive key is gone; its node offline once it has
 * been silent for timeout.  Appends what it changed to events. */
static rd_code check_one(cmd_ctx *ctx, const char *name, const json_t *alive, int64_t timeout, json_t *events,
                         rd_err *err)
{
    json_t *agent = NULL, *node = NULL;
    char key[RD_KEY_MAX], ts[RDTIME_BUFLEN];
    rd_code rc = agent_view_get(ctx->tx, name, &agent, err);
    if (rc != RD_OK || !agent)
        return rc;
    json_t *entry = json_incref(json_object_get(alive, name));
    int unknown = 0;
    if (entry && doc_int(entry, "lease") != doc_int(agent, "lease")) {
        json_decref(entry);
        entry = NULL;
    }
    if (!entry && strcmp(doc_str(agent, "state"), "online") == 0)
        entry = alive_now(ctx, name, doc_int(agent, "lease"), &unknown);   /* registered since the range */
    rd_time last = 0, beat_seen = 0;
    int stalled = beat_stalled(ctx, agent, entry, &beat_seen);
    int is_alive = unknown || (entry && !stalled);
    json_decref(entry);
    rdtime_parse("last_heartbeat", doc_str(agent, "last_heartbeat"), &last, NULL);
    if (strcmp(doc_str(agent, "state"), "online") == 0 && !is_alive) {
        /* the lease ran out: its last renewal was at least a TTL ago; or
         * the beat stalled: it last moved before the controller saw it */
        rd_time renewed = stalled ? beat_seen : ctx->now - doc_int(agent, "lease_ttl");
        if (renewed > last)
            last = renewed;
        if (cmd_ctx_memo(ctx, &beats_key))
            json_object_del(cmd_ctx_memo(ctx, &beats_key), name);
        json_object_set_new(agent, "state", json_string("lost"));
        json_object_set_new(agent, "last_heartbeat", json_string(rdtime_format(last, ts)));
        json_object_set_new(agent, "lost_at", json_string(rdtime_format(ctx->now, ts)));
        json_array_append_new(events, json_pack("{s:s, s:s, s:s, s:s}", "node", name, "event", "agent_lost",
                                                "last_heartbeat", doc_str(agent, "last_heartbeat"), "cause",
                                                stalled ? "beat_stalled" : "lease_expired"));
        rc = tx_put(ctx->tx, tx_key(key, KEY_AGENTS "%s", name), json_incref(agent), err);
        if (rc == RD_OK)
            rc = node_mark_offline_agent(ctx, name, err);
        if (rc == RD_OK)
            rc = cmd_commit_step(ctx, err);
    }
    if (rc != RD_OK || strcmp(doc_str(agent, "state"), "lost") != 0 || ctx->now - last < timeout)
        goto out;
    rc = node_read(ctx, name, &node, err);
    if (rc == RD_ENOTFOUND) {   /* removed meanwhile: nothing to take offline */
        rc = RD_OK;
        goto out;
    }
    if (rc != RD_OK)
        goto out;
    int turned = 0;
    if (strcmp(doc_str(node, "state"), "offline") != 0) {
        json_object_set_new(node, "offline_from", json_string(doc_str(node, "state")));
        node_set_state(node, "offline", ctx->now);
        json_object_set_new(node, "offline_reason", json_string("agent_lost"));
        rc = node_write(ctx, node, err);
        node = NULL;
        if (rc == RD_OK)
            rc = cmd_commit_step(ctx, err);
        turned = 1;
    }
    int failed = 0, requeued = 0;
    if (rc == RD_OK)
        rc = end_node_workers(ctx, name, last, &failed, &requeued, err);
    if (rc == RD_OK) {
        /* done with this loss: later rounds skip the agent from the list */
        json_t *fresh = NULL;
        rc = agent_view_get(ctx->tx, name, &fresh, err);
        if (rc == RD_OK && fresh && strcmp(doc_str(fresh, "state"), "lost") == 0) {
            json_object_set_new(fresh, "offline_done", json_true());
            rc = tx_put(ctx->tx, tx_key(key, KEY_AGENTS "%s", name), fresh, err);
            fresh = NULL;
            if (rc == RD_OK)
                rc = cmd_commit_step(ctx, err);
        }
        json_decref(fresh);
    }
    if (rc == RD_OK && (turned || failed || requeued))
        json_array_append_new(events, json_pack("{s:s, s:s, s:s, s:i, s:i}", "node", name, "event", "offline",
                                                "last_heartbeat", rdtime_format(last, ts), "workers_failed", failed,
                                                "workers_requeued", requeued));
out:
    json_decref(node);
    json_decref(agent);
    return rc;
}

static rd_code agent_check_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    int64_t timeout = AGENT_DEFAULT_TIMEOUT_S, next_in = -1;
    json_t *alive = NULL, *agents = NULL, *events = json_array(), *ag;
    size_t i;
    rd_code rc = RD_OK;
    if (cmd_opt(a, "node-timeout"))
        rc = rdtime_parse_duration_ms("--node-timeout", cmd_opt(a, "node-timeout"), &timeout, err);
    if (rc == RD_OK && cmd_opt(a, "node-timeout"))
        timeout = (timeout + 999) / 1000;   /* the books count whole seconds */
    if (rc == RD_OK)
        rc = agent_view_alive(ctx->tx, &alive, err);
    if (rc == RD_OK)
        rc = tx_list(ctx->tx, KEY_AGENTS, &agents, err);
    json_array_foreach(agents, i, ag) {
        if (rc != RD_OK)
            break;
        /* Most agents need nothing: decided from the list, no read each. */
        const char *state = doc_str(ag, "state");
        json_t *entry = json_object_get(alive, doc_str(ag, "node"));
        rd_time last = 0, since = 0;
        rdtime_parse("last_heartbeat", doc_str(ag, "last_heartbeat"), &last, NULL);
        if (strcmp(state, "online") == 0 && entry && doc_int(entry, "lease") == doc_int(ag, "lease") &&
            !beat_stalled(ctx, ag, entry, &since))
            continue;
        if (strcmp(state, "lost") == 0 && !json_is_true(json_object_get(ag, "offline_done")) &&
            ctx->now - last < timeout) {
            /* when the controller should look again */
            if (next_in < 0 || last + timeout - ctx->now < next_in)
                next_in = last + timeout - ctx->now;
            continue;
        }
        if (strcmp(state, "lost") == 0 && json_is_true(json_object_get(ag, "offline_done")))
            continue;
        char name[256];
        snprintf(name, sizeof name, "%s", doc_str(ag, "node"));
        tx_reset(ctx->tx);
        rc = check_one(ctx, name, alive, timeout, events, err);
    }
    json_decref(agents);
    json_decref(alive);
    if (rc == RD_OK)   /* devices' agents, by the same rule (device_agent.c) */
        rc = device_agent_check(ctx, timeout, events, &next_in, err);
    if (rc == RD_OK)
        *result = json_pack("{s:I, s:O, s:o}", "changed", (json_int_t)json_array_size(events), "items", events,
                            "next_offline_in_s", next_in >= 0 ? json_integer(next_in) : json_null());
    json_decref(events);
    return rc;
}

/* ---- remove ---------------------------------------------------------------- */

/* Retires a node's agent: one that is offline because its agent went
 * silent returns to the state it had; an agent-managed node then waits for
 * a new agent (agent_offline), a node of a store not upgraded yet (no
 * agent_mode) goes back to the books (placement is the start, ends are
 * reported by hand).  Refused while the agent
 * is online or the node holds workers (no one would report them). */
static rd_code agent_remove_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *name = cmd_arg(a, 0);
    json_t *node = NULL, *agent = NULL, *region = NULL, *alive = NULL;
    char key[RD_KEY_MAX];
    rd_code rc = names_check("node name", name, err);
    if (rc == RD_OK)
        rc = node_read(ctx, name, &node, err);
    if (rc == RD_OK)
        rc = fleet_region_get(ctx, doc_str(node, "region"), &region, err);
    if (rc == RD_OK)
        rc = fleet_require_owner(ctx, region, "agent remove", err);
    if (rc == RD_OK)
        rc = agent_view_get(ctx->tx, name, &agent, err);
    if (rc == RD_OK && !agent)
        rc = rd_fail(err, RD_ENOTFOUND, "agent remove: node '%s' has no agent", name);
    if (rc == RD_OK) {
        alive = agent_view_describe(ctx->tx, agent, ctx->now);
        if (strcmp(doc_str(alive, "state"), "online") == 0)
            rc = rd_fail(err, RD_EINVAL, "agent remove: the agent of node '%s' is online (pid %lld on %s); stop it first",
                         name, (long long)doc_int(agent, "pid"), doc_str(agent, "host"));
    }
    if (rc == RD_OK && json_array_size(json_object_get(node, "workers")) > 0)
        rc = rd_fail(err, RD_EINVAL, "agent remove: node '%s' still holds %zu worker(s); stop them first (no one would report their end)",
                     name, json_array_size(json_object_get(node, "workers")));
    if (rc == RD_OK)
        rc = tx_delete(ctx->tx, tx_key(key, KEY_AGENTS "%s", name), err);
    if (rc == RD_OK)
        rc = tx_delete(ctx->tx, tx_key(key, KEY_AGENT_ALIVE "%s", name), err);
    if (rc == RD_OK) {
        const char *before = doc_str(node, "offline_from");
        if (strcmp(doc_str(node, "state"), "offline") == 0 && *before)
            node_set_state(node, before, ctx->now);
        json_object_del(node, "offline_from");
        json_object_del(node, "offline_reason");
        json_object_del(node, "agent_managed");
        if (json_object_get(node, "agent_mode"))
            node_agent_set_online(node, 0);
        *result = json_incref(node);
        rc = node_write(ctx, node, err);
        node = NULL;
    }
    json_decref(node);
    json_decref(agent);
    json_decref(region);
    json_decref(alive);
    return rc;
}

static const cmd_flag agent_register_flags[] = {
    { "lease", "ID", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "the store lease the agent renews as its heartbeat" },
    { "pid", "N", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "the agent's process id" },
    { "host", "HOST", CMD_FLAG_VALUE, "the machine's host name" },
    { "version", "V", CMD_FLAG_VALUE, "the agent's rigdeck version" },
    { "heartbeat", "SECONDS", CMD_FLAG_VALUE, "how often it renews its lease (default 5)" },
    { "beats", NULL, 0, "it also rewrites its alive key at each heartbeat (a secured store judges it by that)" },
    { "runtime", "process|podman|docker", CMD_FLAG_VALUE, "how it runs workers" },
    { "work-dir", "DIR", CMD_FLAG_VALUE, "where workers run" },
    { 0 }
};
static const cmd_flag agent_check_flags[] = {
    { "node-timeout", "D", CMD_FLAG_VALUE, "silence after which a node turns offline (default 30s)" },
    { 0 }
};

const cmd_def agent_cmd_table[] = {
    { .words = "agent register", .args = "NODE", .flags = agent_register_flags, .options = CMD_MUTATES,
      .help = "what a node agent sends when it starts (rigdeck agent does this)", .run = agent_register_cmd,
      .access = CMD_ACCESS_FLEET, .agent = CMD_AGENT_OWN_NODE },
    { .words = "agent list", .args = "", .help = "node agents: state, last heartbeat, host, version",
      .columns = "name,state,last_heartbeat,host,pid,version,runtime", .run = agent_list_cmd },
    { .words = "agent check", .args = "", .flags = agent_check_flags, .options = CMD_MUTATES,
      .help = "mark lost agents and take their nodes offline (rigdeck serve does this)", .run = agent_check_cmd,
      .access = CMD_ACCESS_STAFF },
    { .words = "agent remove", .args = "NODE", .options = CMD_MUTATES,
      .help = "retire a stopped node agent: an agent-managed node waits for a new one (node set --agent none: manual)",
      .run = agent_remove_cmd, .access = CMD_ACCESS_FLEET },
    { 0 }
};
