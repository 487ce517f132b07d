/* agent_view.c - what the store says about a node's agent, for reading.
 *
 * An agent has two keys: its document (KEY_AGENTS<node>: host, pid,
 * version, the lease it renews, when it registered, and `state` online or
 * lost as the controller last decided) and a small key under its lease
 * (KEY_AGENT_ALIVE<node>) that vanishes when the agent stops renewing.  A
 * heartbeat renews the lease and writes nothing, so the moment of the last
 * one is worked out from the lease: now - (granted TTL - time left).  On a
 * secured store an agent registered with --beats also rewrites its alive
 * key, and the controller judges it by that (agent.c): the document's
 * `state` is then what decides, since a lease may be kept alive by anyone.
 * `node show` and `agent list` read through here, with the node's latest
 * vital stats; the commands that change agents are agent.c's.
 */
#include "agent_view.h"

#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "keyspace.h"
#include "metrics_stat.h"
#include "names.h"
#include "num.h"

/* The last heartbeat an alive lease proves: its last renewal. */
static rd_time last_renewal(store_t *st, int64_t lease, rd_time now)
{
    int64_t left = 0, granted = 0;
    rd_err ignored = { 0 };
    if (store_lease_ttl(st, lease, &left, &granted, &ignored) != RD_OK)
        return 0;
    int64_t since = granted - left;
    return now - (since > 0 ? since : 0);
}

/* A stored reading: an integer in hundredths of its stat's unit. */
static double hundredths(const json_t *v)
{
    return (double)json_integer_value(v) / 100.0;
}

/* The node's latest reading (KEY_METRICS last/<node>, metrics.h) in the
 * agent's sample shape: {"cpu_util", ... (null when missing), "gpus":
 * [{"index", "gpu_util", ...}]}, and when it was taken; *vitals NULL when
 * the node has none.  Read here, below the metrics history's own readers,
 * since `node show` and `agent list` are fleet's. */
static rd_code read_vitals(rd_tx *tx, const char *node, json_t **vitals, rd_time *sampled_at, rd_err *err)
{
    json_t *now = NULL;
    char where[RD_KEY_MAX], key[METRICS_SERIES_MAX];
    *vitals = NULL;
    *sampled_at = 0;
    rd_code rc = tx_get(tx, tx_key(where, KEY_METRICS "last/%s", node), &now, err);
    if (rc != RD_OK || !now)
        return rc;
    const json_t *last = json_object_get(now, "last");
    json_t *out = json_object(), *gpus = json_array(), *by_index = json_object();
    const char *series;
    json_t *v;
    /* GPU indices in the order of their series, each GPU one object */
    json_object_foreach((json_t *)last, series, v) {
        const char *colon = strchr(series, ':');
        if (colon && !json_object_get(by_index, colon + 1)) {
            json_t *g = json_pack("{s:i}", "index", atoi(colon + 1));
            json_object_set(by_index, colon + 1, g);
            json_array_append_new(gpus, g);
        }
    }
    for (size_t i = 0; i < metrics_stat_count(); i++) {
        const metrics_stat *s = metrics_stat_at(i);
        if (!s->per_gpu) {
            json_t *x = json_object_get(last, s->name);
            json_object_set_new(out, s->name, x ? json_real(hundredths(x)) : json_null());
            continue;
        }
        size_t k;
        json_t *g;
        json_array_foreach(gpus, k, g) {
            json_t *x = json_object_get(
                last, metrics_series_key(key, s, (int)json_integer_value(json_object_get(g, "index"))));
            json_object_set_new(g, s->name, x ? json_real(hundredths(x)) : json_null());
        }
    }
    json_object_set_new(out, "gpus", gpus);
    json_decref(by_index);
    *sampled_at = doc_time(now, "sampled_at");
    json_decref(now);
    *vitals = out;
    return RD_OK;
}

json_t *agent_view_describe(rd_tx *tx, const json_t *agent, rd_time now)
{
    char key[RD_KEY_MAX], ts[RDTIME_BUFLEN];
    if (!agent)
        return json_pack("{s:s, s:n, s:n, s:n}", "state", "none", "last_heartbeat", "host", "version");
    const char *state = doc_str(agent, "state");
    rd_time last = 0;
    rdtime_parse("last_heartbeat", doc_str(agent, "last_heartbeat"), &last, NULL);
    if (strcmp(state, "online") == 0) {
        store_kv kv;
        int found = 0;
        rd_err ignored = { 0 };
        tx_key(key, KEY_AGENT_ALIVE "%s", doc_str(agent, "node"));
        if (store_get(tx_store(tx), key, &kv, &found, NULL, &ignored) == RD_OK && found) {
            rd_time renewed = last_renewal(tx_store(tx), kv.lease, now);
            if (renewed > last)
                last = renewed;
        } else {
            state = "lost";   /* the lease expired; the controller has not seen it yet */
        }
        if (found)
            store_kv_free(&kv);
    }
    /* the latest vital stats, as the metrics history has them */
    json_t *vitals = NULL;
    rd_time sampled = 0;
    char st[RDTIME_BUFLEN];
    rd_err ignored = { 0 };
    read_vitals(tx, doc_str(agent, "node"), &vitals, &sampled, &ignored);
    json_t *out = json_pack("{s:s, s:s, s:s, s:s, s:I, s:s, s:o?, s:s?}", "state", state, "last_heartbeat",
                            rdtime_format(last, ts), "host", doc_str(agent, "host"), "version",
                            doc_str(agent, "version"), "pid", (json_int_t)doc_int(agent, "pid"), "registered_at",
                            doc_str(agent, "registered_at"), "vitals", vitals, "sampled_at",
                            sampled ? rdtime_format(sampled, st) : NULL);
    return out;
}

rd_code agent_view_get(rd_tx *tx, const char *node, json_t **agent, rd_err *err)
{
    char key[RD_KEY_MAX];
    return tx_get(tx, tx_key(key, KEY_AGENTS "%s", node), agent, err);
}

rd_code agent_view_for_node(rd_tx *tx, const char *node, rd_time now, json_t **out, rd_err *err)
{
    json_t *agent = NULL;
    rd_code rc = agent_view_get(tx, node, &agent, err);
    if (rc == RD_OK && !(*out = agent_view_describe(tx, agent, now)))
        rc = rd_fail(err, RD_ENOMEM, "out of memory");
    json_decref(agent);
    return rc;
}

rd_code agent_view_alive(rd_tx *tx, json_t **alive, rd_err *err)
{
    return agent_view_alive_at(tx, KEY_AGENT_ALIVE, alive, err);
}

rd_code agent_view_alive_at(rd_tx *tx, const char *prefix, json_t **alive, rd_err *err)
{
    store_range_result r = { 0 };
    const char *after = NULL;
    char last[RD_KEY_MAX];
    *alive = json_object();
    for (;;) {
        rd_code rc = store_range(tx_store(tx), prefix, after, 1000, r.revision, &r, err);
        if (rc != RD_OK) {
            json_decref(*alive);
            *alive = NULL;
            return rc;
        }
        for (size_t i = 0; i < r.count; i++)
            json_object_set_new(*alive, r.kvs[i].key + strlen(prefix),
                                json_pack("{s:I, s:I}", "lease", (json_int_t)r.kvs[i].lease, "rev",
                                          (json_int_t)r.kvs[i].mod_revision));
        int more = r.more && r.count > 0;
        if (more) {
            snprintf(last, sizeof last, "%s", r.kvs[r.count - 1].key);
            after = last;
        }
        int64_t rev = r.revision;
        store_range_free(&r);
        r.revision = rev;
        if (!more)
            return RD_OK;
    }
}

rd_code agent_view_registration(cmd_ctx *ctx, const cmd_args *a, const char *what, const char *name,
                                agent_registration *r, rd_err *err)
{
    int64_t left = 0;
    *r = (agent_registration){ .heartbeat = 5 };
    rd_code rc = names_check(what, name, err);
    if (rc == RD_OK)
        rc = num_parse_int("--lease", cmd_opt(a, "lease"), 1, INT64_MAX, &r->lease, err);
    if (rc == RD_OK)
        rc = num_parse_int("--pid", cmd_opt(a, "pid"), 1, INT32_MAX, &r->pid, err);
    if (rc == RD_OK && cmd_opt(a, "heartbeat"))
        rc = num_parse_int("--heartbeat", cmd_opt(a, "heartbeat"), 1, 3600, &r->heartbeat, err);
    if (rc == RD_OK && store_lease_ttl(tx_store(ctx->tx), r->lease, &left, &r->ttl, err) != RD_OK)
        rc = rd_fail(err, RD_EINVAL, "--lease: lease %lld does not exist (expired or revoked); grant a new one",
                     (long long)r->lease);
    return rc;
}

rd_code agent_view_put_alive(rd_tx *tx, const char *key, const agent_registration *r, const char *ts, rd_err *err)
{
    return tx_put_lease(tx, key, json_pack("{s:s, s:I}", "registered_at", ts, "pid", (json_int_t)r->pid), r->lease,
                        err);
}
