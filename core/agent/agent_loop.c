/* agent_loop.c - the node agent: `rigdeck agent --node NAME`.
 *
 * At start it reports the machine (probe.c's discovery, or --inventory) as
 * `node report` does, takes a store lease and registers (`agent register`),
 * which marks the node as run by an agent: from then on a worker placed
 * there is `starting` until this agent has started its process.  Then one
 * loop, sleeping in a watch of the jobs (or, logged in as node:N on a
 * secured store, of the node's work view; agent_work.c):
 *
 *   heartbeat   renew the lease every --heartbeat (no store revision); a
 *               lease that ran out (the agent was stopped too long) is
 *               replaced and the agent registers again.  Logged in to a
 *               secured store it also rewrites its alive key, a beat only
 *               it (and root) may write: there any etcd user may keep any
 *               lease alive, so the controller judges it by the beat
 *               (core/jobs/agent.c), and it registers with --beats
 *   vitals      every --sample: CPU, memory, disk, network and GPU readings
 *               into the metrics history, and GPU health (agent_vitals.c)
 *   rediscover  every --sample while the last report said nvidia-smi failed
 *               or named a GPU no type lists: discovery and `node report`
 *               again, so a driver that comes back or a `gpu add` shows
 *               without a restart (spec/execution.md §2)
 *   work        every worker the node holds, as the store says (agent_work.c):
 *               start what is `starting`, report what ended, signal what is
 *               `stopping`, push output, and kill what the store no longer
 *               runs here
 *
 * Worker processes run under runner.c's supervisor and outlive the agent;
 * a restarted agent finds them through their directories and adopts them.
 * Each action is one log line.  On SIGTERM it finishes the step in hand and
 * returns, leaving its workers running (its lease then expires unless it
 * comes back in time).
 */
#include "rdtime.h"
#include "agent_loop.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "agent_limits.h"
#include "agent_mount.h"
#include "agent_vitals.h"
#include "agent_work.h"
#include "catalog.h"
#include "cmd.h"
#include "doc.h"
#include "keyspace.h"
#include "probe.h"
#include "runtime.h"
#include "probe_cdi.h"

enum {
    RECONCILE_EVERY_MS = 5000,   /* read the node's workers even without a watch event */
    WAIT_MS = 250
};

static rd_code make_dirs(const char *path, rd_err *err)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || !*p) {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0700) != 0 && errno != EEXIST)
                return rd_fail(err, RD_EINVAL, "--work-dir: cannot create %s: %s", buf, strerror(errno));
            *p = c;
            if (!c)
                return RD_OK;
        }
    }
}

/* Writes the discovered inventory where `node report` can read it. */
static rd_code discover(agent_state *a, char *path, size_t len, json_t **problems, probe_found *found, rd_err *err)
{
    json_t *inv = NULL, *gpus = NULL;
    rd_tx *tx = a->ctx.store ? tx_new(a->ctx.store) : NULL;
    rd_err unread = { 0 };
    /* the store's GPU types first, so a name `gpu add` listed maps without a
     * restart; unreadable (older agent credentials): the types known so far */
    if (tx && tx_list(tx, KEY_GPUS, &gpus, &unread) == RD_OK)
        catalog_gpu_load_added(gpus);
    json_decref(gpus);
    tx_free(tx);
    rd_code rc = probe_inventory_found(NULL, a->o->nvidia_smi, &inv, problems, found, err);
    if (rc != RD_OK)
        return rc;
    snprintf(path, len, "%s/inventory.json", a->o->work_dir);
    if (json_dump_file(inv, path, JSON_INDENT(2)) != 0)
        rc = rd_fail(err, RD_EINVAL, "--work-dir: cannot write %s", path);
    json_decref(inv);
    return rc;
}

/* With podman and GPUs: do the CDI specs name every GPU the runner will
 * ask for (probe_cdi.h)?  When not, adds --gpu-cdi DETAIL to the report
 * (words) and what to log to said; 1 then. */
static int cdi_check(agent_state *a, const char *inventory, json_t *words, char *said, size_t len, int *used)
{
    char detail[1024];
    json_t *bad = NULL, *names, *b;
    size_t i;
    int ngpus = a->runtime == RUNNER_PODMAN ? probe_cdi_inventory_gpus(inventory) : 0;
    if (ngpus <= 0)
        return 0;
    names = probe_cdi_names(NULL, &bad);
    int missing = probe_cdi_check(names, ngpus, NULL, detail, sizeof detail);
    if (missing) {
        json_array_append_new(words, json_string("--gpu-cdi"));
        json_array_append_new(words, json_string(detail));
        if (*used < (int)len)
            *used += snprintf(said + *used, len - (size_t)*used, "%s; ", detail);
        json_array_foreach(bad, i, b)
            if (*used < (int)len)
                *used += snprintf(said + *used, len - (size_t)*used, "CDI spec skipped: %s; ", json_string_value(b));
    }
    json_decref(names);
    json_decref(bad);
    return missing;
}

/* Reports the machine as `node report NAME --inventory FILE` does.  What
 * nvidia-smi could not say goes with it (spec/execution.md §2): a failure
 * as --gpu-discovery (the node keeps its GPUs and shows the problem), a
 * name no type lists as --unknown-gpu (the node is rejected for
 * gpu_model_known); either way the agent reports again every --sample, so
 * a driver that comes back or a `gpu add` naming the card is picked up
 * without a restart.  A report saying the same as the last one is quiet. */
static rd_code report_inventory(agent_state *a, rd_err *err)
{
    char path[4200], line[8192], said[sizeof a->report_said];
    json_t *problems = NULL, *p, *result = NULL, *words = NULL;
    probe_found found;
    size_t i;
    int used = 0;
    rd_code rc = RD_OK;

    memset(&found, 0, sizeof found);
    if (a->o->inventory_file)
        snprintf(path, sizeof path, "%s", a->o->inventory_file);
    else
        rc = discover(a, path, sizeof path, &problems, &found, err);
    if (rc != RD_OK)
        return rc;
    int smi_failed = found.smi.present && !found.smi.answered;
    words = json_pack("[s, s, s, s, s]", "node", "report", a->o->node, "--inventory", path);
    said[0] = '\0';
    if (smi_failed) {
        json_array_append_new(words, json_string("--gpu-discovery"));
        json_array_append_new(words, json_string(found.smi.detail));
        used += snprintf(said + used, sizeof said - (size_t)used, "nvidia-smi cannot say what GPUs this machine has "
                         "(%s): the node keeps the GPUs it had, with problem gpu_discovery; ", found.smi.detail);
    }
    json_array_foreach(found.unknown, i, p) {
        json_array_append_new(words, json_string("--unknown-gpu"));
        json_array_append(words, p);
        if (used < (int)sizeof said)
            used += snprintf(said + used, sizeof said - (size_t)used, "GPU '%s' is no type of gpu list: the node is "
                             "rejected (gpu_model_known) until gpu add names it; ", json_string_value(p));
    }
    json_array_foreach(problems, i, p) {
        if (!a->rediscovered_ms)   /* the first report says them; the same machine says them again */
            dlog(&a->o->log, "inventory", NULL, "%s", json_string_value(p));
        json_array_append_new(words, json_string("--problem"));
        json_array_append(words, p);
    }
    int cdi_failed = cdi_check(a, path, words, said, sizeof said, &used);
    a->rediscover = smi_failed || json_array_size(found.unknown) > 0 || cdi_failed;
    int news = strcmp(said, a->report_said) != 0;
    if (news && said[0])
        dlog(&a->o->log, "inventory", NULL, "%sdiscovery runs again every %lld ms", said,
             (long long)a->o->sample_ms);
    else if (news && a->report_said[0])
        dlog(&a->o->log, "inventory", NULL, "nvidia-smi answers, every GPU is a type of gpu list and has its CDI "
             "device again");
    rc = agent_work_line(words, line, sizeof line, err);
    json_decref(words);
    if (rc == RD_OK)
        rc = agent_work_exec(a, line, &result, err);
    if (rc == RD_OK && news)
        snprintf(a->report_said, sizeof a->report_said, "%s", said);
    if (rc == RD_OK)
        agent_limits_learn(a, result);
    if (rc == RD_OK && (news || !a->rediscovered_ms)) {
        json_t *unmet = json_object_get(result, "unmet");
        dlog(&a->o->log, "inventory", NULL, "reported %s: %lld %s GPU(s), %lld cores, %lld GB; node %s%s",
             a->o->inventory_file ? a->o->inventory_file : "the discovered machine",
             (long long)doc_int(result, "gpu_count"), *doc_str(result, "gpu_type") ? doc_str(result, "gpu_type") : "no",
             (long long)doc_int(result, "cpu_cores"), (long long)doc_int(result, "memory_gb"),
             doc_str(result, "state"), json_array_size(unmet) ? " (unmet hardware requirements: see node show)" : "");
    }
    json_decref(result);
    json_decref(problems);
    json_decref(found.unknown);
    return rc;
}

/* Discovery again, every --sample while the last report asks for it. */
static void rediscover(agent_state *a, int64_t now)
{
    rd_err err = { 0 };
    if (!a->rediscover || now - a->rediscovered_ms < a->o->sample_ms)
        return;
    a->rediscovered_ms = now;
    if (report_inventory(a, &err) != RD_OK)
        dlog(&a->o->log, "inventory", NULL, "cannot report the machine again: %s", err.msg);
}

/* Takes a fresh lease and registers with it. */
static rd_code register_agent(agent_state *a, rd_err *err)
{
    char line[1024];
    json_t *result = NULL;
    int64_t hb = (a->o->heartbeat_ms + 999) / 1000;
    /* Three heartbeats may go missing before the lease runs out. */
    int64_t ttl = (a->o->heartbeat_ms * 3 + 999) / 1000;
    rd_code rc = store_lease_grant(a->ctx.store, ttl < 2 ? 2 : ttl, &a->lease, err);
    if (rc != RD_OK)
        return rc;
    json_t *words = json_pack("[s, s, s, s, I, s, I, s, s, s, s, s, I, s, s, s, s]", "agent", "register", a->o->node,
                              "--lease", (json_int_t)a->lease, "--pid", (json_int_t)a->o->pid, "--host", a->o->host,
                              "--version", a->o->version, "--heartbeat", (json_int_t)(hb < 1 ? 1 : hb), "--runtime",
                              runner_kind_name(a->runtime), "--work-dir", a->o->work_dir);
    if (words && a->beats)
        json_array_append_new(words, json_string("--beats"));
    rc = agent_work_line(words, line, sizeof line, err);
    json_decref(words);
    if (rc == RD_OK)
        rc = agent_work_exec(a, line, &result, err);
    if (rc == RD_OK)
        dlog(&a->o->log, "register", NULL, "registered for node %s (lease %llx, ttl %llds); node is %s", a->o->node,
             (long long)a->lease, (long long)(ttl < 2 ? 2 : ttl), doc_str(result, "node_state"));
    /* workers placed before this node had an agent (agent.c) */
    size_t handed = json_array_size(json_object_get(result, "workers_handed"));
    size_t failed = json_array_size(json_object_get(result, "workers_failed"));
    if (rc == RD_OK && (handed || failed))
        dlog(&a->o->log, "register", result, "%zu worker(s) placed before the node had an agent are this agent's to "
             "start; %zu billed for hours nobody ran failed not_started (the hours given back)", handed, failed);
    json_decref(result);
    a->renewed_ms = rdtime_mono_ms();
    return rc;
}

/* The beat: the alive key written again under the lease, its value a
 * counter.  Only this agent's etcd user and root may write it. */
static void beat(agent_state *a)
{
    char key[RD_KEY_MAX], value[96];
    rd_err err = { 0 };
    snprintf(value, sizeof value, "{\"pid\":%lld,\"beat\":%lld}", (long long)a->o->pid, (long long)(a->beat_n + 1));
    if (store_put(a->ctx.store, tx_key(key, KEY_AGENT_ALIVE "%s", a->o->node), value, strlen(value), a->lease,
                  &err) == RD_OK) {
        a->beat_n++;
        if (a->beat_failed)
            dlog(&a->o->log, "heartbeat", NULL, "beating again");
        a->beat_failed = 0;
    } else if (!a->beat_failed) {
        dlog(&a->o->log, "heartbeat", NULL, "cannot write the beat: %s", err.msg);
        a->beat_failed = 1;
    }
}

/* Renews the lease when a heartbeat is due; registers again if it ran out. */
static void heartbeat(agent_state *a, int64_t now)
{
    rd_err err = { 0 };
    if (now - a->renewed_ms < a->o->heartbeat_ms)
        return;
    rd_code rc = store_lease_keepalive(a->ctx.store, a->lease, NULL, &err);
    if (rc == RD_OK) {
        a->renewed_ms = now;
        if (a->beats)
            beat(a);
        if (a->store_down)
            dlog(&a->o->log, "store", NULL, "store reachable again");
        a->store_down = 0;
        return;
    }
    if (rc == RD_ENOTFOUND) {
        dlog(&a->o->log, "heartbeat", NULL, "lease ran out (silent too long); registering again");
        if (register_agent(a, &err) != RD_OK)
            dlog(&a->o->log, "register", NULL, "cannot register: %s", err.msg);
        a->reconcile_due = 1;
        return;
    }
    if (!a->store_down)
        dlog(&a->o->log, "store", NULL, "heartbeat failed: %s", err.msg);
    a->store_down = 1;
    a->renewed_ms = now;   /* try again after one heartbeat, not in a loop */
}

/* The store must say this agent is online under its lease; a controller
 * that judged it lost (a lease it could not see in time) is answered by
 * registering again, which also brings the node back. */
static void check_registration(agent_state *a)
{
    char key[RD_KEY_MAX];
    store_kv kv;
    int found = 0;
    rd_err err = { 0 };
    if (store_get(a->ctx.store, tx_key(key, KEY_AGENTS "%s", a->o->node), &kv, &found, NULL, &err) != RD_OK)
        return;
    json_t *doc = found ? json_loadb(kv.value, kv.value_len, 0, NULL) : NULL;
    if (found)
        store_kv_free(&kv);
    int ok = doc && strcmp(doc_str(doc, "state"), "online") == 0 && doc_int(doc, "lease") == a->lease;
    json_decref(doc);
    if (ok)
        return;
    int64_t old = a->lease;
    dlog(&a->o->log, "register", NULL, "the store does not show this agent online under its lease; registering again");
    if (register_agent(a, &err) != RD_OK)
        dlog(&a->o->log, "register", NULL, "cannot register: %s", err.msg);
    else if (old && old != a->lease)
        store_lease_revoke(a->ctx.store, old, &err);   /* it holds no key any more */
}

/* Watches where the work comes from: the node's work view, or the jobs. */
static void watch_reopen(agent_state *a)
{
    rd_err err = { 0 };
    char prefix[RD_KEY_MAX];
    store_watch_close(a->watch);
    a->watch = NULL;
    a->watching_view = strcmp(agent_work_watch_prefix(a, prefix), KEY_JOBS) != 0;
    if (store_watch_open(a->ctx.store, prefix, 0, &a->watch, &err) != RD_OK &&
        !a->watch_failed)
        dlog(&a->o->log, "watch", NULL, "cannot watch %s: %s (reading it every %d s until it can)", prefix, err.msg,
             RECONCILE_EVERY_MS / 1000);
    else if (a->watch && a->watch_failed)
        dlog(&a->o->log, "watch", NULL, "watching %s again", prefix);
    a->watch_failed = a->watch == NULL;
    a->reconcile_due = 1;
}

/* Sleeps in the watch; a change to a job placed here asks for a reconcile. */
static void wait_changes(agent_state *a, int timeout_ms)
{
    store_event *ev = NULL;
    size_t n = 0;
    rd_err err = { 0 };
    char needle[300];
    if (!a->watch) {
        struct timespec ts = { 0, (long)timeout_ms * 1000000L };
        nanosleep(&ts, NULL);
        watch_reopen(a);
        return;
    }
    if (store_watch_next(a->watch, timeout_ms, &ev, &n, &err) != RD_OK) {
        dlog(&a->o->log, "watch", NULL, "watch ended: %s; reopening", err.msg);
        a->watch_failed = 0;
        watch_reopen(a);
        return;
    }
    /* Only a job with a worker here that waits for this agent (starting,
     * stopping) needs a look now; its own reports come back as events too,
     * and the periodic look catches everything else.  The view holds only
     * this node's workers: any change there is one (an ended worker's key
     * goes away). */
    snprintf(needle, sizeof needle, "\"node\":\"%s\"", a->o->node);
    if (a->watching_view && n)
        a->reconcile_due = 1;
    for (size_t i = 0; i < n && !a->reconcile_due; i++)
        a->reconcile_due = ev[i].type == STORE_EVENT_PUT && ev[i].kv.value && strstr(ev[i].kv.value, needle) &&
                           (strstr(ev[i].kv.value, "\"state\":\"starting\"") ||
                            strstr(ev[i].kv.value, "\"state\":\"stopping\""));
    store_events_free(ev, n);
}

/* `auto` says why it passed a runtime over. */
static void note_skipped(void *data, const runtime_ops *rt, const char *why)
{
    const agent_opts *o = data;
    dlog(&o->log, "runtime", NULL, "runtime %s skipped: %s", rt->name, why);
}

rd_code agent_run(const agent_opts *o, rd_err *err)
{
    agent_state a;
    memset(&a, 0, sizeof a);
    a.o = o;
    a.ctx.store_url = o->store_url;
    a.ctx.store_opts = o->store_opts;
    a.ctx.actor = o->actor;
    a.ctx.actor_given = strcmp(o->actor, "default") != 0;   /* as in serve.c */
    a.ctx.master_key_path = o->master_key_path;
    a.ctx.now = o->log.now();
    runner_kind kind = RUNNER_AUTO;
    rd_code rc = runner_kind_parse(o->runtime ? o->runtime : "auto", &kind, err);
    /* Bound before anything reaches the store: a port in use stops the
     * agent with one line, without registering over an agent that runs. */
    if (rc == RD_OK && o->metrics_listen)
        rc = metrics_http_start(o->metrics_listen, o->node, &a.prom, err);
    if (rc == RD_OK)
        rc = make_dirs(o->work_dir, err);
    /* The runtime runs a trivial container before it is chosen, and before
     * the store hears of this agent: a named one that cannot stops it. */
    if (rc == RD_OK) {
        char scratch[4200];
        snprintf(scratch, sizeof scratch, "%s/.runtime-check", o->work_dir);
        rc = runtime_pick(kind, scratch, note_skipped, (void *)o, &kind, err);
    }
    if (rc == RD_OK) {
        store_set_notice(dlog_store_notice, (void *)&o->log);  /* a slow first open says why */
        rc = cmd_ctx_open_store(&a.ctx, err);
        if (rc == RD_OK)
            cmd_ctx_upgrade(&a.ctx);   /* an older store's documents, logged as the file's upgrade is */
        store_set_notice(NULL, NULL);
    }
    if (rc != RD_OK) {
        metrics_http_stop(a.prom);
        cmd_ctx_close(&a.ctx);
        return rc;
    }
    a.runtime = kind;
    a.beats = store_identity(a.ctx.store) != NULL;
    dlog(&o->log, "start", NULL, "agent for node %s on %s (runtime %s, work dir %s, heartbeat %lldms)", o->node,
         store_url(a.ctx.store), runner_kind_name(a.runtime), o->work_dir, (long long)o->heartbeat_ms);
    if (a.prom)
        dlog(&o->log, "metrics", NULL, "serving Prometheus metrics at http://%s/metrics", metrics_http_address(a.prom));
    rc = report_inventory(&a, err);
    a.rediscovered_ms = rdtime_mono_ms();
    if (rc == RD_OK)
        rc = register_agent(&a, err);
    if (rc != RD_OK) {
        metrics_http_stop(a.prom);
        cmd_ctx_close(&a.ctx);
        return rc;
    }
    agent_vitals_start(&a);
    agent_mount_sweep(&a);   /* datastores an earlier agent left mounted for workers that ended */
    a.use_view = -1;   /* the first reconcile finds out */
    watch_reopen(&a);
    int64_t last_reconcile = 0;
    while (!*o->stop) {
        int64_t now = rdtime_mono_ms();
        heartbeat(&a, now);
        int periodic = now - last_reconcile >= RECONCILE_EVERY_MS;
        if (a.reconcile_due || periodic || o->once) {
            a.reconcile_due = 0;
            if (periodic || o->once) {
                last_reconcile = now;
                check_registration(&a);
            }
            agent_work_reconcile(&a);
            if ((a.use_view == 1) != a.watching_view)
                watch_reopen(&a);   /* the work comes from elsewhere now */
        }
        agent_work_tend(&a, now);
        agent_vitals_sample(&a, now);
        rediscover(&a, now);
        if (o->once)
            break;
        wait_changes(&a, WAIT_MS);
    }
    dlog(&o->log, "stop", NULL, "stopping; %zu worker(s) keep running and are adopted when the agent is back",
         agent_work_running(&a));
    store_watch_close(a.watch);
    metrics_http_stop(a.prom);
    agent_vitals_free(&a);
    agent_work_free(&a);
    cmd_ctx_close(&a.ctx);
    return RD_OK;
}
