/* serve.c - the controller: `rigdeck serve`.
 *
 * One loop.  Every process contends for the lead (serve_lead.c); only the
 * leader acts, and everything it does is a command of the command language
 * run through the one executor, fenced by its leadership:
 *
 *   sched run      when the store's watch shows a change a pass reads (a
 *                  submit, a worker's end, a node turning active, a price or
 *                  a wallet), at most every SCHED_DEBOUNCE_MS, and at least
 *                  every --sched-every
 *   agent check    when an agent's alive key vanishes (its lease ran out:
 *                  the watch shows it), when a lost agent's silence reaches
 *                  --node-timeout, and every node timeout / 4 (1..5 s):
 *                  lost agents, offline nodes
 *   bill run       every --bill-every (and `job logs prune`, `metrics prune`)
 *   cloud sync     every --sync-every, when a GCP region exists
 *   alert eval     every ALERTS_EVERY_MS, and ALERTS_DEBOUNCE_MS after the
 *                  watch shows a change to nodes, metrics, rules or alerts;
 *                  each state change is a log line, and those of a rule
 *                  with a webhook go to the delivery thread (webhook.c),
 *                  which the loop never waits for
 *   work view      on a secured store, each job change into the agents'
 *                  per-node view, and a full resync every minute
 *                  (serve_work.c)
 *
 * It sleeps in the watch (no busy loop) and stops at the end of the step in
 * hand when *stop is set (SIGTERM/SIGINT in the front end).  Each action
 * that changed something is one log line.
 */
#include "rdtime.h"
#include "serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "alerts.h"
#include "cmd.h"
#include "doc.h"
#include "keyspace.h"
#include "sched_idle.h"
#include "relay.h"
#include "serve_lead.h"
#include "serve_work.h"
#include "webhook.h"

enum {
    SCHED_DEBOUNCE_MS = 200,   /* a burst of submits becomes one pass */
    WAIT_MS = 250,             /* longest sleep in the watch between rounds */
    ALERTS_EVERY_MS = 2000,    /* alert eval at least this often */
    ALERTS_DEBOUNCE_MS = 300,  /* and this soon after a change it reads */
    RELAY_EVERY_MS = 1000,     /* look for relayed requests the watch may have missed */
    ONCE_DRAIN_MS = 15000      /* --once waits this long for its webhooks */
};

typedef struct {
    const serve_opts *o;
    cmd_ctx ctx;
    serve_lead lead;
    store_watch *watch;
    int64_t watch_rev;
    int dirty;                 /* a change a pass reads arrived */
    int check_due;             /* an agent's key changed: look at the agents */
    int64_t check_every, next_check;   /* ms; next_check 0: none planned */
    int watch_failed;          /* said so once; quiet until it works again */
    int alerts_due;            /* a change alert eval reads arrived */
    int relay_due;             /* a request arrived under /rigdeck/relay/ */
    int64_t last_relay;
    relay_lease relay_lease;   /* what the answered request ids are kept under */
    int64_t last_sched, last_check, last_bill, last_sync, last_alerts;
    webhook_queue *hooks;
    serve_work *work;          /* the agents' work view (secured stores) */
} serve_state;

/* Runs one command as the leader; logs an error, returns its result. */
static json_t *run(serve_state *s, const char *action, const char *line)
{
    json_t *result = NULL;
    rd_err err = { 0 };
    s->ctx.now = s->o->log.now();
    s->ctx.fence_key = KEY_SERVE_LEADER;
    s->ctx.fence_rev = s->lead.leader_rev;
    rd_code rc = cmd_exec_line(&s->ctx, line, &result, NULL, &err);
    if (rc != RD_OK) {
        dlog(&s->o->log, action, NULL, "%s failed: %s", line, err.msg);
        json_decref(result);
        return NULL;
    }
    return result;
}

static void do_sched(serve_state *s)
{
    json_t *r = run(s, "sched", "sched run");
    if (!r)
        return;
    int64_t placed = doc_int(r, "placed"), stopped = doc_int(r, "stopped_out_of_credits");
    if (placed || stopped || doc_int(r, "failed"))
        dlog(&s->o->log, "sched", r, "placed %lld worker(s), %lld waiting, %lld stopped out of credits",
             (long long)placed, (long long)doc_int(r, "waiting"), (long long)stopped);
    json_decref(r);
}

static void do_check(serve_state *s, int64_t now)
{
    char line[96];
    snprintf(line, sizeof line, "agent check --node-timeout %lldms", (long long)s->o->node_timeout_ms);
    json_t *r = run(s, "agents", line), *e;
    size_t i;
    json_t *next = json_object_get(r, "next_offline_in_s");
    s->next_check = json_is_integer(next) ? now + json_integer_value(next) * 1000 + 1000 : 0;
    json_array_foreach(json_object_get(r, "items"), i, e) {
        if (*doc_str(e, "device"))   /* a device's agent (device_agent.c) */
            dlog(&s->o->log, doc_str(e, "event"), e, "device %s: %s (agent silent since %s)", doc_str(e, "device"),
                 strcmp(doc_str(e, "event"), "offline") == 0 ? "offline" : "agent lost", doc_str(e, "last_heartbeat"));
        else if (strcmp(doc_str(e, "event"), "agent_lost") == 0)
            dlog(&s->o->log, "agent_lost", e, "node %s: agent silent since %s%s", doc_str(e, "node"),
                 doc_str(e, "last_heartbeat"),
                 strcmp(doc_str(e, "cause"), "beat_stalled") == 0
                     ? " (its beat stalled although its lease lives on: someone else may be keeping it alive)"
                     : "");
        else
            dlog(&s->o->log, "offline", e, "node %s offline (agent silent since %s): %lld worker(s) failed node_lost, %lld requeued",
                 doc_str(e, "node"), doc_str(e, "last_heartbeat"), (long long)doc_int(e, "workers_failed"),
                 (long long)doc_int(e, "workers_requeued"));
    }
    json_decref(r);
}

static void do_bill(serve_state *s)
{
    json_t *r = run(s, "bill", "bill run");
    if (r && doc_int(r, "posted"))
        dlog(&s->o->log, "bill", r, "posted %lld transfer(s), usage %lld ucr", (long long)doc_int(r, "posted"),
             (long long)doc_int(r, "usage_ucr"));
    json_decref(r);
}

/* Housekeeping with billing's cadence: output of long-ended workers, the
 * history of removed nodes. */
static void do_prune(serve_state *s)
{
    json_t *r = run(s, "prune", "job logs prune");
    if (r && doc_int(r, "workers_pruned"))
        dlog(&s->o->log, "prune", r, "deleted the output of %lld worker(s) that ended over 7 days ago",
             (long long)doc_int(r, "workers_pruned"));
    json_decref(r);
    r = run(s, "prune", "metrics prune");
    if (r && doc_int(r, "documents"))
        dlog(&s->o->log, "prune", r, "deleted the vital stats history of %zu removed node(s)",
             json_array_size(json_object_get(r, "nodes")));
    json_decref(r);
}

/* 1 when some region is a GCP one (else there is nothing to sync). */
static int has_gcp_region(serve_state *s)
{
    store_range_result r = { 0 };
    rd_err err = { 0 };
    int found = 0;
    if (store_range(s->ctx.store, KEY_REGIONS, NULL, 0, 0, &r, &err) != RD_OK)
        return 0;
    for (size_t i = 0; i < r.count && !found; i++)
        found = strstr(r.kvs[i].value, "\"provider\":\"gcp\"") != NULL;
    store_range_free(&r);
    return found;
}

static void do_sync(serve_state *s)
{
    if (!has_gcp_region(s))
        return;
    json_t *r = run(s, "cloud", "cloud sync");
    if (r)
        dlog(&s->o->log, "cloud", r, "cloud sync round done");
    json_decref(r);
}

/* One round of alert evaluation: a log line per state change, and the
 * change queued for the rule's webhook. */
static void do_alerts(serve_state *s)
{
    json_t *r = run(s, "alerts", "alert eval"), *c;
    size_t i;
    json_array_foreach(json_object_get(r, "changes"), i, c) {
        json_t *gpu = json_object_get(c, "gpu");
        char where[300];
        if (json_is_integer(gpu))
            snprintf(where, sizeof where, "%s gpu %lld", doc_str(c, "node"), (long long)json_integer_value(gpu));
        else
            snprintf(where, sizeof where, "%s", doc_str(c, "node"));
        char *value = json_dumps(json_object_get(c, "value"), JSON_ENCODE_ANY);
        dlog(&s->o->log, "alert", c, "%s %s (%s) on %s, value %s (%s)", doc_str(c, "rule"), doc_str(c, "state"),
             doc_str(c, "severity"), where, value ? value : "null", doc_str(c, "id"));
        free(value);
        const char *url = json_string_value(json_object_get(c, "webhook"));
        if (url && s->hooks) {
            json_t *payload = alert_change_payload(c);
            if (!payload)
                dlog(&s->o->log, "webhook", NULL, "out of memory: a change for %s dropped", url);
            webhook_post(s->hooks, url, payload);
            json_decref(payload);
        }
    }
    json_decref(r);
}

/* Opens the watch from the current revision (again after an error). */
static void watch_reopen(serve_state *s)
{
    rd_err err = { 0 };
    store_watch_close(s->watch);
    s->watch = NULL;
    if (store_watch_open(s->ctx.store, KEY_ROOT, 0, &s->watch, &err) != RD_OK && !s->watch_failed)
        dlog(&s->o->log, "watch", NULL, "cannot watch the store: %s (polling every %lld ms until it can)", err.msg,
             (long long)s->o->sched_every_ms);
    else if (s->watch && s->watch_failed)
        dlog(&s->o->log, "watch", NULL, "watching the store again");
    s->watch_failed = s->watch == NULL;
    s->dirty = 1;
    serve_work_note_gap(s->work);   /* events may have gone by unseen */
}

/* Sleeps in the watch; notes whether a change a pass reads arrived. */
static void wait_changes(serve_state *s, int timeout_ms)
{
    store_event *ev = NULL;
    size_t n = 0;
    rd_err err = { 0 };
    if (!s->watch) {
        struct timespec ts = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L };
        nanosleep(&ts, NULL);
        watch_reopen(s);
        return;
    }
    if (store_watch_next(s->watch, timeout_ms, &ev, &n, &err) != RD_OK) {
        dlog(&s->o->log, "watch", NULL, "watch ended: %s; reopening", err.msg);
        s->watch_failed = 0;
        watch_reopen(s);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        keyspace_kind k = keyspace_kind_of(ev[i].kv.key);
        s->check_due |= (k == KEYSPACE_AGENT_ALIVE || k == KEYSPACE_DEVICE_ALIVE) && ev[i].type == STORE_EVENT_DELETE;   /* a lease ran out */
        /* the work view follows the jobs: writing it changes nothing a pass reads */
        s->dirty |= sched_idle_key_matters(ev[i].kv.key) && k != KEYSPACE_WORK;
        s->relay_due |= k == KEYSPACE_RELAY && ev[i].type == STORE_EVENT_PUT && strstr(ev[i].kv.key, "/req/");
        s->alerts_due |= k == KEYSPACE_NODES || k == KEYSPACE_METRICS || k == KEYSPACE_ALERT_RULES ||
                         k == KEYSPACE_ALERTS;
        if (s->lead.leading)   /* a standby keeps nothing: leading starts with a resync */
            serve_work_note(s->work, &ev[i]);
    }
    store_events_free(ev, n);
}

/* Runs the requests that accounts other than admins sent on a secured
 * store; one log line each. */
static void do_relay(serve_state *s)
{
    json_t *handled = NULL, *h;
    size_t i;
    rd_err err = { 0 };
    s->ctx.now = s->o->log.now();
    s->ctx.fence_key = KEY_SERVE_LEADER;
    s->ctx.fence_rev = s->lead.leader_rev;
    if (relay_serve_round(&s->ctx, &s->relay_lease, &handled, &err) != RD_OK)
        dlog(&s->o->log, "relay", NULL, "cannot read the requests: %s", err.msg);
    json_array_foreach(handled, i, h) {
        const char *why = doc_str(h, "error");
        if (*why)
            dlog(&s->o->log, "relay", h, "%s for %s: refused: %s", doc_str(h, "command"), doc_str(h, "user"), why);
        else
            dlog(&s->o->log, "relay", h, "%s for %s", doc_str(h, "command"), doc_str(h, "user"));
    }
    json_decref(handled);
}

static void leader_round(serve_state *s, int64_t now)
{
    const serve_opts *o = s->o;
    if (s->relay_due || now - s->last_relay >= RELAY_EVERY_MS || o->once) {
        s->relay_due = 0;
        s->last_relay = now;
        do_relay(s);
    }
    serve_work_step(s->work, s->ctx.store, s->lead.leader_rev, &o->log, now);
    if (s->check_due || now - s->last_check >= s->check_every || (s->next_check && now >= s->next_check) ||
        o->once) {
        s->check_due = 0;
        s->last_check = now;
        do_check(s, now);
    }
    if ((s->dirty && now - s->last_sched >= SCHED_DEBOUNCE_MS) || now - s->last_sched >= o->sched_every_ms || o->once) {
        s->dirty = 0;
        s->last_sched = now;
        do_sched(s);
    }
    if (now - s->last_bill >= o->bill_every_ms || o->once) {
        s->last_bill = now;
        do_bill(s);
        do_prune(s);
    }
    if (now - s->last_sync >= o->sync_every_ms || o->once) {
        s->last_sync = now;
        do_sync(s);
    }
    if ((s->alerts_due && now - s->last_alerts >= ALERTS_DEBOUNCE_MS) || now - s->last_alerts >= ALERTS_EVERY_MS ||
        o->once) {
        s->alerts_due = 0;
        s->last_alerts = now;
        do_alerts(s);
    }
}

rd_code serve_run(const serve_opts *o, rd_err *err)
{
    serve_state s;
    char ts[RDTIME_BUFLEN];
    memset(&s, 0, sizeof s);
    s.o = o;
    /* On SQLite an expired lease is reaped only when someone reads or
     * writes: this look is what notices a silent agent there. */
    s.check_every = o->node_timeout_ms / 4 < 1000 ? 1000 : o->node_timeout_ms / 4 > 5000 ? 5000 : o->node_timeout_ms / 4;
    s.ctx.store_url = o->store_url;
    s.ctx.store_opts = o->store_opts;
    s.ctx.actor = o->actor;
    /* "default" is also what the daemons use when --as is not given: then a
     * secured store's identity decides who acts. */
    s.ctx.actor_given = strcmp(o->actor, "default") != 0;
    s.ctx.master_key_path = o->master_key_path;
    s.ctx.now = o->log.now();
    store_set_notice(dlog_store_notice, (void *)&o->log);  /* a slow first open says why */
    rd_code rc = cmd_ctx_open_store(&s.ctx, err);
    if (rc == RD_OK)
        cmd_ctx_upgrade(&s.ctx);   /* an older store's documents, logged as the file's upgrade is */
    store_set_notice(NULL, NULL);
    if (rc != RD_OK)
        return rc;
    /* A secured store's users may keep any lease alive: agents that beat
     * are judged by their beats, which agent check follows across rounds. */
    if (store_identity(s.ctx.store) && agent_check_follow_beats(&s.ctx, err) != RD_OK) {
        cmd_ctx_close(&s.ctx);
        return err->code;
    }
    s.hooks = webhook_new(NULL, &o->log);
    s.work = serve_work_new();
    if (!s.work || !s.hooks || webhook_start(s.hooks, err) != RD_OK) {
        serve_work_free(s.work);
        webhook_stop(s.hooks);
        cmd_ctx_close(&s.ctx);
        return s.hooks && s.work ? err->code : rd_fail(err, RD_ENOMEM, "out of memory");
    }
    json_t *id = json_pack("{s:s, s:I, s:s, s:s}", "host", o->host, "pid", (json_int_t)o->pid, "since",
                           rdtime_format(o->log.now(), ts), "version", o->version);
    char *idtext = id ? json_dumps(id, JSON_COMPACT) : NULL;
    json_decref(id);
    if (!idtext) {
        serve_work_free(s.work);
        webhook_stop(s.hooks);
        cmd_ctx_close(&s.ctx);
        return rd_fail(err, RD_ENOMEM, "out of memory");
    }
    /* A dead leader's lease must run out within the node timeout, with
     * room for a standby's next look. */
    int64_t ttl = (o->node_timeout_ms * 2 / 3) / 1000;
    serve_lead_init(&s.lead, s.ctx.store, ttl < 1 ? 1 : ttl, idtext, o->host, o->pid);
    free(idtext);
    dlog(&o->log, "start", NULL, "controller on %s (sched every %llds, bill every %llds, sync every %llds, node timeout %lldms)",
         store_url(s.ctx.store), (long long)(o->sched_every_ms / 1000), (long long)(o->bill_every_ms / 1000),
         (long long)(o->sync_every_ms / 1000), (long long)o->node_timeout_ms);
    watch_reopen(&s);
    int64_t start = rdtime_mono_ms();
    s.last_sched = s.last_check = s.last_bill = s.last_sync = s.last_alerts = start;
    int store_down = 0;
    while (!*o->stop) {
        int changed = 0;
        int64_t now = rdtime_mono_ms();
        rd_err lerr = { 0 };
        rd_code lrc = serve_lead_step(&s.lead, now, &changed, &lerr);
        if (lrc != RD_OK && !store_down)
            dlog(&o->log, "store", NULL, "store unreachable: %s", lerr.msg);
        else if (lrc == RD_OK && store_down)
            dlog(&o->log, "store", NULL, "store reachable again");
        store_down = lrc != RD_OK;
        if (changed && s.lead.took_over)
            dlog(&o->log, "lead", NULL, "leading the controllers: the leader had not beaten for %llds, although "
                 "its lease lived on (someone else may be keeping it alive)", (long long)s.lead.ttl_s);
        else if (changed)
            dlog(&o->log, s.lead.leading ? "lead" : "standby", NULL,
                 s.lead.leading ? "leading the controllers" : "no longer leading; standing by");
        if (s.lead.leading)
            leader_round(&s, now);
        if (o->once)
            break;
        wait_changes(&s, WAIT_MS);
    }
    if (o->once && !*o->stop && !webhook_drain(s.hooks, ONCE_DRAIN_MS))
        dlog(&o->log, "webhook", NULL, "--once: webhooks still undelivered after %d s", ONCE_DRAIN_MS / 1000);
    dlog(&o->log, "stop", NULL, "stopping%s", s.lead.leading ? ": handing the lead over" : "");
    webhook_stop(s.hooks);
    store_watch_close(s.watch);
    serve_work_free(s.work);
    serve_lead_release(&s.lead);
    cmd_ctx_close(&s.ctx);
    return RD_OK;
}
