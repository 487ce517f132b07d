/* agent_reconcile.c - a node agent's reconciling with the store: which
 * workers the store says this node runs (the jobs, or on a secured store
 * the controller's view of this node, serve_work.c), started when they are
 * not, tended when they are, dropped (killed, their folders removed) when
 * the store has moved on; and the prefix the agent watches to know when to
 * look again.  The workers themselves, from start to report, are
 * agent_work.c's; this file decides which, that one carries it out.
 */
#include "agent_work.h"
#include "agent_limits.h"
#include "agent_mdns.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "keyspace.h"
#include "runtime.h"

/* ---- reconciling with the store ------------------------------------------ */

static json_t *read_doc(agent_state *a, const char *key)
{
    store_kv kv;
    int found = 0;
    rd_err err = { 0 };
    if (store_get(a->ctx.store, key, &kv, &found, NULL, &err) != RD_OK || !found)
        return NULL;
    json_t *doc = json_loadb(kv.value, kv.value_len, 0, NULL);
    store_kv_free(&kv);
    return doc;
}

/* Kills (then forgets) a local worker the store no longer runs here. */
static void drop_local(agent_state *a, const char *job, int index, const char *why)
{
    char dir[4096];
    runner_status_t st;
    rd_err err = { 0 };
    snprintf(dir, sizeof dir, "%s/%s/%d", a->o->work_dir, job, index);
    agent_mdns_withdraw(a, dir);   /* at once, not when its process has gone */
    if (runner_status(dir, &st, &err) == RD_OK && st.state == RUNNER_RUNNING) {
        dlog(&a->o->log, "kill", NULL, "%s/%d: %s; killing its process", job, index, why);
        runner_signal(dir, SIGKILL, &err);
        return;   /* removed once it has exited, at a later round */
    }
    agent_work_cleanup(a, dir);
    agent_worker *w = agent_work_find(a, job, index);
    if (w)
        agent_work_untrack(a, w);
}

/* 1 when job/index is among the node's workers in a state the agent runs. */
static int store_runs(const json_t *active, const char *job, int index)
{
    char ref[320];
    snprintf(ref, sizeof ref, "%s/%d", job, index);
    return json_object_get(active, ref) != NULL;
}

/* Local worker directories whose worker the store no longer runs here. */
static void sweep_dirs(agent_state *a, const json_t *active)
{
    DIR *d = opendir(a->o->work_dir), *jd;
    struct dirent *e, *we;
    if (!d)
        return;
    while ((e = readdir(d))) {
        char path[4096];
        if (strncmp(e->d_name, "job-", 4) != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", a->o->work_dir, e->d_name);
        if (!(jd = opendir(path)))
            continue;
        while ((we = readdir(jd))) {
            char *end;
            long idx = strtol(we->d_name, &end, 10);
            if (we->d_name[0] < '0' || we->d_name[0] > '9' || *end)
                continue;
            if (!store_runs(active, e->d_name, (int)idx))
                drop_local(a, e->d_name, (int)idx, "the store has ended it");
        }
        closedir(jd);
    }
    closedir(d);
}

/* Acts on worker index of job, which the store lists on this node: starts
 * it, or tracks what it runs; active collects what the store runs here. */
static void reconcile_worker(agent_state *a, json_t *active, const json_t *job, const json_t *worker, size_t index)
{
    char ref[320];
    const char *id = doc_str(job, "id"), *state = doc_str(worker, "state");
    snprintf(ref, sizeof ref, "%s/%zu", id, index);
    if (*id && strcmp(doc_str(worker, "node"), a->o->node) == 0 &&
        (strcmp(state, "starting") == 0 || json_is_true(json_object_get(worker, "run_by_agent"))))
        json_object_set_new(active, ref, json_true());
    if (strcmp(state, "starting") == 0) {
        agent_work_start(a, job, worker, index);
    } else if ((strcmp(state, "running") == 0 || strcmp(state, "stopping") == 0) &&
               json_is_true(json_object_get(worker, "run_by_agent"))) {
        agent_worker *w = agent_work_track(a, id, (int)index);
        runner_status_t st;
        rd_err err = { 0 };
        if (!w)
            return;
        w->disk_limit = agent_limits_disk_bytes(job);
        json_decref(w->job_doc);
        w->job_doc = json_incref((json_t *)job);
        w->stopping = strcmp(state, "stopping") == 0;
        /* The store took `running` from this node, but the agent that said
         * it died before releasing it: it may run now (unless its shim gave
         * up first; then it is reported lost when it ends). */
        if (!w->stopping && strcmp(doc_str(worker, "node"), a->o->node) == 0 &&
            runner_status(w->dir, &st, &err) == RD_OK && st.state == RUNNER_RUNNING && !st.released)
            runner_release(w->dir, &err);
    }
}

/* The node's workers as its document lists them, each read in its job
 * (credentials that may read the jobs: SQLite, etcd without authentication,
 * an agent secured before the work view). */
static rd_code reconcile_jobs(agent_state *a, json_t *active)
{
    char key[RD_KEY_MAX];
    json_t *node = read_doc(a, tx_key(key, KEY_NODES "%s", a->o->node)), *ref;
    size_t i;
    if (!node)
        return RD_ENOTFOUND;   /* unreachable store or a removed node: try again later */
    json_array_foreach(json_object_get(node, "workers"), i, ref) {
        char job[160];
        snprintf(job, sizeof job, "%s", json_string_value(ref));
        char *slash = strrchr(job, '/');
        if (!slash)
            continue;
        *slash = '\0';
        size_t index = (size_t)strtoul(slash + 1, NULL, 10);
        json_t *doc = read_doc(a, tx_key(key, KEY_JOBS "%s", job));
        if (doc)
            reconcile_worker(a, active, doc, json_array_get(json_object_get(doc, "workers"), index), index);
        json_decref(doc);
    }
    json_decref(node);
    return RD_OK;
}

/* 1 when this agent logs in as a node (a secured store). */
static int node_identity(const agent_state *a)
{
    const char *who = store_identity(a->ctx.store);
    return who && strncmp(who, "node:", 5) == 0;
}

const char *agent_work_watch_prefix(const agent_state *a, char buf[RD_KEY_MAX])
{
    /* before the first reconcile, a node's identity expects the view */
    int view = a->use_view == 1 || (a->use_view == -1 && node_identity(a));
    return view ? tx_key(buf, KEY_WORK "%s/", a->o->node) : strcpy(buf, KEY_JOBS);
}

/* The workers the controller's work view lists for this node: each entry
 * is its job reduced to what this agent needs, with "index" and "worker"
 * (serve_work.c).  RD_EPERM when these credentials may not read it. */
static rd_code reconcile_view(agent_state *a, json_t *active)
{
    char prefix[RD_KEY_MAX];
    store_range_result r = { 0 };
    rd_err err = { 0 };
    rd_code rc = store_range(a->ctx.store, agent_work_watch_prefix(a, prefix), NULL, 0, 0, &r, &err);
    if (rc != RD_OK)
        return rc;
    for (size_t i = 0; i < r.count; i++) {
        json_t *entry = json_loadb(r.kvs[i].value, r.kvs[i].value_len, 0, NULL);
        json_t *index = json_object_get(entry, "index");
        if (json_is_integer(index) && json_integer_value(index) >= 0)
            reconcile_worker(a, active, entry, json_object_get(entry, "worker"), (size_t)json_integer_value(index));
        json_decref(entry);
    }
    store_range_free(&r);
    return RD_OK;
}

/* Reads what the store runs here from the view when this agent logs in as
 * its node (a secured store) and its credentials reach the view; else as
 * before, from the node and its jobs.  Says which once, and again when it
 * changes (renewed credentials). */
static rd_code reconcile_read(agent_state *a, json_t *active)
{
    const char *who = store_identity(a->ctx.store);
    int was = a->use_view;
    rd_code rc = RD_EPERM;
    if (node_identity(a)) {
        a->use_view = 1;
        rc = reconcile_view(a, active);
    }
    if (rc == RD_EPERM) {
        a->use_view = 0;
        rc = reconcile_jobs(a, active);
    }
    if (a->use_view != was && a->use_view == 1)
        dlog(&a->o->log, "work", NULL, "reading this node's work view, kept by the controller, instead of the jobs");
    else if (a->use_view != was && node_identity(a))
        dlog(&a->o->log, "work", NULL, "these credentials do not reach the work view: reading the jobs (renew them: "
             "store credentials %s)", who);
    return rc;
}

void agent_work_reconcile(agent_state *a)
{
    json_t *active = json_object();
    if (!active || reconcile_read(a, active) != RD_OK) {
        json_decref(active);
        return;   /* nothing read: never take a silent store for "nothing runs here" */
    }
    /* what the store ended while this agent was not looking */
    for (size_t k = a->nworkers; k-- > 0;)
        if (!store_runs(active, a->workers[k].job, a->workers[k].index))
            drop_local(a, a->workers[k].job, a->workers[k].index, "the store has ended it");
    sweep_dirs(a, active);
    json_decref(active);
}

/* ---- tending running workers --------------------------------------------- */
