/* alert_eval.c - `alert eval`: one round of alert evaluation, what the
 * leading controller runs every couple of seconds (and anyone may run by
 * hand).
 *
 * For each rule and each node in its scope (removed nodes skipped; GPU
 * metrics per GPU) it reads the value now (a vital stat from the node's
 * latest sample, a pseudo-metric by its record, alert_pseudo.h) and moves
 * the (rule, node, GPU) through the state machine of alert_step: a
 * condition that starts holding gets a pending record in the store (so
 * --for survives a controller fail-over), fires once it has held for
 * --for, and resolves when it stops holding.  An open record nothing
 * looked at this round (its rule was removed, its node removed or out of
 * scope, its GPU gone) stops holding.
 *
 * Writes happen only on transitions: a quiet fleet costs no revision.  A
 * reading older than ALERT_STALE_S is no data, and no data never holds
 * (a silent node is node_offline's business, not every stat's).  Resolved
 * alerts older than ALERT_KEEP_DAYS, or beyond the newest ALERT_KEEP_MAX,
 * are deleted in the round that resolves another.
 */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "access_view.h"
#include "alert_pseudo.h"
#include "alerts.h"
#include "doc.h"
#include "keyspace.h"
#include "metrics.h"

enum { EVAL_STEP_WRITES = 40 };   /* commit in steps: an etcd txn is bounded */

int alert_condition_holds(int op_above, double threshold, int has_value, double value)
{
    if (!has_value || isnan(value))
        return 0;
    return op_above ? value > threshold : value < threshold;
}

alert_move alert_step(alert_phase phase, int holds, rd_time since, int64_t for_s, rd_time now)
{
    switch (phase) {
    case ALERT_PHASE_NONE:
        if (!holds)
            return ALERT_MOVE_STAY;
        return for_s <= 0 ? ALERT_MOVE_FIRE : ALERT_MOVE_PEND;
    case ALERT_PHASE_PENDING:
        if (!holds)
            return ALERT_MOVE_DROP;
        return now - since >= for_s ? ALERT_MOVE_FIRE : ALERT_MOVE_STAY;
    case ALERT_PHASE_FIRING:
        return holds ? ALERT_MOVE_STAY : ALERT_MOVE_RESOLVE;
    }
    return ALERT_MOVE_STAY;
}

json_t *alert_change_payload(const json_t *change)
{
    const char *fields[] = { "rule", "state", "node", "gpu", "value", "at", "severity" };
    json_t *out = json_object();
    for (size_t i = 0; out && i < sizeof fields / sizeof fields[0]; i++) {
        json_t *v = json_object_get(change, fields[i]);
        if (json_object_set_new(out, fields[i], v ? json_incref(v) : json_null()) != 0) {
            json_decref(out);   /* never a payload without its state or node */
            out = NULL;
        }
    }
    return out;
}

/* ---- one round --------------------------------------------------------------- */

typedef struct {
    cmd_ctx *ctx;
    json_t *open;        /* open key -> record as listed, plus "_seen" */
    json_t *latest;      /* node -> latest reading (null: none) */
    json_t *changes;     /* committed changes */
    json_t *step;        /* changes staged in the transaction */
    int resolved;        /* some alert resolved: trim the history */
} eval_state;

static const char *open_key(char buf[RD_KEY_MAX], const char *rule, const char *node, int gpu)
{
    if (gpu < 0)
        return tx_key(buf, KEY_ALERTS ALERTS_OPEN_PREFIX "%s/%s/-", rule, node);
    return tx_key(buf, KEY_ALERTS ALERTS_OPEN_PREFIX "%s/%s/%d", rule, node, gpu);
}

static void compact_time(rd_time t, char out[RDTIME_BUFLEN])
{
    char ts[RDTIME_BUFLEN];
    size_t j = 0;
    rdtime_format(t, ts);
    for (size_t i = 0; ts[i]; i++)
        if (ts[i] != '-' && ts[i] != ':')
            out[j++] = ts[i];
    out[j] = '\0';
}

static void new_id(char id[32])
{
    uint32_t nonce = 0;
    if (getrandom(&nonce, sizeof nonce, 0) != (ssize_t)sizeof nonce)
        nonce = (uint32_t)rand();
    snprintf(id, 32, "alert-%08x", nonce);
}

/* Commits the step; a conflict drops its changes (the next round decides
 * them again from what the store holds), anything else is an error. */
static rd_code step_commit(eval_state *s, rd_err *err)
{
    rd_err cerr = { 0 };
    rd_code rc = cmd_commit_step(s->ctx, &cerr);
    if (rc == RD_OK) {
        json_array_extend(s->changes, s->step);
    } else if (rc != RD_ECONFLICT) {
        *err = cerr;
        return rc;
    }
    json_array_clear(s->step);
    return RD_OK;
}


/* What a round needs of a rule (or of a removed rule's open record). */
typedef struct {
    const char *name, *metric, *severity;
    const json_t *webhook;   /* string or null */
    int above;
    double threshold;
    int64_t for_s;
} rule_view;

static rule_view view_of_rule(const json_t *rule)
{
    rule_view v = { doc_str(rule, "name"), doc_str(rule, "metric"), doc_str(rule, "severity"),
                    json_object_get(rule, "webhook"), strcmp(doc_str(rule, "op"), "above") == 0,
                    json_number_value(json_object_get(rule, "threshold")), doc_int(rule, "for_s") };
    return v;
}

static alert_phase phase_of(const json_t *rec)
{
    if (!rec)
        return ALERT_PHASE_NONE;
    return strcmp(doc_str(rec, "state"), "firing") == 0 ? ALERT_PHASE_FIRING : ALERT_PHASE_PENDING;
}

static rd_time since_of(const json_t *rec)
{
    rd_time t = 0;
    rdtime_parse("since", doc_str(rec, "since"), &t, NULL);
    return t;
}

static json_t *record_new(const rule_view *r, const char *node, int gpu, double value, rd_time now)
{
    char id[32], ts[RDTIME_BUFLEN];
    new_id(id);
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:s, s:n, s:n, s:n, s:n}", "id", id, "rule", r->name,
                     "metric", r->metric, "severity", r->severity, "state", "pending", "node", node, "gpu",
                     gpu < 0 ? json_null() : json_integer(gpu), "value", alert_number(value), "since",
                     rdtime_format(now, ts), "fired_at", "resolved_at", "acked_by", "acked_at");
}

static void change_add(eval_state *s, const json_t *rec, const rule_view *r, const char *state, json_t *value)
{
    char ts[RDTIME_BUFLEN];
    json_array_append_new(s->step, json_pack("{s:s, s:s, s:s, s:s, s:O, s:o, s:s, s:s, s:O}", "id", doc_str(rec, "id"),
                                             "rule", r->name, "state", state, "node", doc_str(rec, "node"), "gpu",
                                             json_object_get(rec, "gpu"), "value", value, "at",
                                             rdtime_format(s->ctx->now, ts), "severity", doc_str(rec, "severity"),
                                             "webhook", r->webhook ? r->webhook : json_null()));
}

/* Applies a transition to (rule, node, gpu), decided again on the record as
 * the store holds it now (guarded). */
static rd_code apply_move(eval_state *s, const char *key, const rule_view *r, const char *node, int gpu, int has_value,
                          double value, rd_err *err)
{
    cmd_ctx *ctx = s->ctx;
    char ts[RDTIME_BUFLEN], lkey[RD_KEY_MAX], when[RDTIME_BUFLEN];
    json_t *rec = NULL;
    rd_code rc = tx_get(ctx->tx, key, &rec, err);
    if (rc != RD_OK)
        return rc;
    int holds = alert_condition_holds(r->above, r->threshold, has_value, value);
    alert_move mv = alert_step(phase_of(rec), holds, since_of(rec), r->for_s, ctx->now);
    rdtime_format(ctx->now, ts);
    switch (mv) {
    case ALERT_MOVE_STAY:
        break;
    case ALERT_MOVE_PEND:
        rc = tx_put(ctx->tx, key, record_new(r, node, gpu, value, ctx->now), err);
        break;
    case ALERT_MOVE_FIRE:
        if (!rec)
            rec = record_new(r, node, gpu, value, ctx->now);
        json_object_set_new(rec, "state", json_string("firing"));
        json_object_set_new(rec, "value", alert_number(value));
        json_object_set_new(rec, "fired_at", json_string(ts));
        change_add(s, rec, r, "firing", alert_number(value));
        rc = tx_put(ctx->tx, key, json_incref(rec), err);
        break;
    case ALERT_MOVE_DROP:
        rc = tx_delete(ctx->tx, key, err);
        break;
    case ALERT_MOVE_RESOLVE:
        json_object_set_new(rec, "state", json_string("resolved"));
        json_object_set_new(rec, "resolved_at", json_string(ts));
        json_object_set_new(rec, "resolved_value", has_value ? alert_number(value) : json_null());
        change_add(s, rec, r, "resolved", has_value ? alert_number(value) : json_null());
        compact_time(ctx->now, when);
        rc = tx_delete(ctx->tx, key, err);
        if (rc == RD_OK)
            rc = tx_put(ctx->tx, tx_key(lkey, KEY_ALERTS ALERTS_LOG_PREFIX "%s/%s", when, doc_str(rec, "id")),
                        json_incref(rec), err);
        s->resolved = 1;
        break;
    }
    json_decref(rec);
    if (rc == RD_OK && tx_write_count(ctx->tx) >= EVAL_STEP_WRITES)
        rc = step_commit(s, err);
    return rc;
}

/* One (rule, node, gpu) with its reading now: a transition only when the
 * listed record says one is due. */
static rd_code eval_target(eval_state *s, const rule_view *r, const char *node, int gpu, int has_value, double value,
                           rd_err *err)
{
    char key[RD_KEY_MAX];
    open_key(key, r->name, node, gpu);
    json_t *listed = json_object_get(s->open, key);
    if (listed)
        json_object_set_new(listed, "_seen", json_true());
    int holds = alert_condition_holds(r->above, r->threshold, has_value, value);
    if (alert_step(phase_of(listed), holds, since_of(listed), r->for_s, s->ctx->now) == ALERT_MOVE_STAY)
        return RD_OK;
    return apply_move(s, key, r, node, gpu, has_value, value, err);
}

/* The node's latest reading, read once a round; NULL when it has none or
 * it is stale. */
static rd_code latest_of(eval_state *s, const char *node, const json_t **values, rd_err *err)
{
    json_t *got = json_object_get(s->latest, node);
    if (!got) {
        json_t *doc = NULL;
        rd_code rc = metrics_read_latest(s->ctx->tx, node, &doc, err);
        if (rc != RD_OK)
            return rc;
        rd_time at = 0;
        if (doc && (rdtime_parse("sampled_at", doc_str(doc, "sampled_at"), &at, NULL) != RD_OK ||
                    s->ctx->now - at > ALERT_STALE_S)) {
            json_decref(doc);
            doc = NULL;
        }
        got = doc ? json_incref(json_object_get(doc, "values")) : json_null();
        int kept = json_object_set_new(s->latest, node, got) == 0;   /* a failed one freed got */
        json_decref(doc);
        if (!kept)
            return rd_fail(err, RD_ENOMEM, "out of memory");
    }
    *values = json_is_object(got) ? got : NULL;
    return RD_OK;
}

static int node_in_scope(const json_t *rule, const json_t *node)
{
    const char *glob = json_string_value(json_object_get(rule, "node"));
    const char *region = json_string_value(json_object_get(rule, "region"));
    if (glob && fnmatch(glob, doc_str(node, "name"), 0) != 0)
        return 0;
    return !region || strcmp(region, doc_str(node, "region")) == 0;
}

/* A pseudo-metric's reading of the node a rule is evaluated on. */
typedef struct {
    eval_state *s;
    const rule_view *r;
    const char *node;
} pseudo_target;

static rd_code pseudo_reading(void *data, int gpu, double value, rd_err *err)
{
    pseudo_target *t = data;
    return eval_target(t->s, t->r, t->node, gpu, 1, value, err);
}

static rd_code eval_node(eval_state *s, const rule_view *r, const json_t *node, rd_err *err)
{
    const char *name = doc_str(node, "name");
    const alert_pseudo *p = alert_pseudo_find(r->metric);
    if (p) {
        pseudo_target t = { s, r, name };
        return p->read(node, pseudo_reading, &t, err);
    }
    const json_t *values = NULL;
    rd_code rc = latest_of(s, name, &values, err);
    if (rc != RD_OK || !values)
        return rc;
    const metrics_stat *st = metrics_stat_find(r->metric);
    if (!st)
        return RD_OK;
    if (!st->per_gpu) {
        json_t *v = json_object_get(values, r->metric);
        return eval_target(s, r, name, -1, json_is_number(v), json_number_value(v), err);
    }
    const char *series;
    json_t *v;
    size_t len = strlen(r->metric);
    json_object_foreach((json_t *)values, series, v) {
        if (strncmp(series, r->metric, len) != 0 || series[len] != ':' || !json_is_number(v))
            continue;
        char *end = NULL;
        long gpu = strtol(series + len + 1, &end, 10);
        if (*end || gpu < 0 || gpu > 1023)
            continue;
        rc = eval_target(s, r, name, (int)gpu, 1, json_number_value(v), err);
        if (rc != RD_OK)
            return rc;
    }
    return RD_OK;
}

/* Open records nothing looked at: their condition no longer holds. */
static rd_code eval_unseen(eval_state *s, const json_t *rules, rd_err *err)
{
    const char *key;
    json_t *rec;
    void *tmp;
    rd_code rc = RD_OK;
    json_object_foreach_safe(s->open, tmp, key, rec) {
        if (json_is_true(json_object_get(rec, "_seen")))
            continue;
        const json_t *rule = json_object_get(rules, doc_str(rec, "rule"));
        rule_view r = rule ? view_of_rule(rule)
                           : (rule_view){ doc_str(rec, "rule"), doc_str(rec, "metric"), doc_str(rec, "severity"),
                                          NULL, 1, 0, 0 };
        json_t *gpu = json_object_get(rec, "gpu");
        rc = apply_move(s, key, &r, doc_str(rec, "node"), json_is_integer(gpu) ? (int)json_integer_value(gpu) : -1, 0,
                        0, err);
        if (rc != RD_OK)
            break;
    }
    return rc;
}

/* Drops resolved alerts older than ALERT_KEEP_DAYS or beyond the newest
 * ALERT_KEEP_MAX (log keys sort oldest first). */
static rd_code trim_history(eval_state *s, rd_err *err)
{
    cmd_ctx *ctx = s->ctx;
    json_t *items = NULL, *rec;
    size_t i;
    char key[RD_KEY_MAX], when[RDTIME_BUFLEN];
    rd_code rc = tx_list(ctx->tx, KEY_ALERTS ALERTS_LOG_PREFIX, &items, err);
    size_t n = json_array_size(items);
    json_array_foreach(items, i, rec) {
        if (rc != RD_OK)
            break;
        rd_time at = 0;
        rdtime_parse("resolved_at", doc_str(rec, "resolved_at"), &at, NULL);
        if (n - i <= ALERT_KEEP_MAX && ctx->now - at <= (rd_time)ALERT_KEEP_DAYS * 86400)
            break;
        compact_time(at, when);
        rc = tx_delete(ctx->tx, tx_key(key, KEY_ALERTS ALERTS_LOG_PREFIX "%s/%s", when, doc_str(rec, "id")), err);
        if (rc == RD_OK && tx_write_count(ctx->tx) >= EVAL_STEP_WRITES)
            rc = step_commit(s, err);
    }
    json_decref(items);
    return rc;
}

static rd_code eval_round(eval_state *s, rd_err *err)
{
    cmd_ctx *ctx = s->ctx;
    json_t *rules = NULL, *nodes = NULL, *opens = NULL, *byname = json_object(), *rule, *node;
    size_t i, j;
    /* an older store gets the default rules with its first round */
    rd_code rc = alert_rule_upgrade_defaults(ctx->tx, ctx->now, err);
    if (rc == RD_OK && tx_write_count(ctx->tx) > 0)
        rc = step_commit(s, err);
    if (rc == RD_OK)
        rc = tx_list(ctx->tx, KEY_ALERT_RULES, &rules, err);
    if (rc == RD_OK && json_array_size(rules) > 0)
        rc = tx_list(ctx->tx, KEY_NODES, &nodes, err);
    if (rc == RD_OK)
        rc = tx_list(ctx->tx, KEY_ALERTS ALERTS_OPEN_PREFIX, &opens, err);
    json_array_foreach(opens, i, rule) {
        char key[RD_KEY_MAX];
        json_t *gpu = json_object_get(rule, "gpu");
        open_key(key, doc_str(rule, "rule"), doc_str(rule, "node"),
                 json_is_integer(gpu) ? (int)json_integer_value(gpu) : -1);
        json_object_set(s->open, key, rule);
    }
    json_array_foreach(rules, i, rule) {
        json_object_set(byname, doc_str(rule, "name"), rule);
        rule_view r = view_of_rule(rule);
        json_array_foreach(nodes, j, node) {
            if (rc != RD_OK)
                break;
            if (strcmp(doc_str(node, "state"), "removed") == 0 || !node_in_scope(rule, node))
                continue;
            rc = eval_node(s, &r, node, err);
        }
    }
    if (rc == RD_OK)
        rc = eval_unseen(s, byname, err);
    if (rc == RD_OK && s->resolved)
        rc = trim_history(s, err);
    if (rc == RD_OK)
        rc = step_commit(s, err);
    json_decref(rules);
    json_decref(nodes);
    json_decref(opens);
    json_decref(byname);
    return rc;
}

rd_code alert_eval_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    (void)a;
    rd_code rc = access_view_require_staff(ctx, "alert eval", err);
    if (rc != RD_OK)
        return rc;
    eval_state s = { ctx, json_object(), json_object(), json_array(), json_array(), 0 };
    if (!s.open || !s.latest || !s.changes || !s.step)
        rc = rd_fail(err, RD_ENOMEM, "out of memory");
    if (rc == RD_OK)
        rc = eval_round(&s, err);
    if (rc == RD_OK)
        *result = json_pack("{s:O}", "changes", s.changes);
    json_decref(s.open);
    json_decref(s.latest);
    json_decref(s.changes);
    json_decref(s.step);
    return rc;
}
