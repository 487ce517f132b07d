/* serve_work.c - the per-node work view of a secured store.
 *
 * Owns every key under KEY_WORK.  On a secured store a node agent may not
 * read the jobs (they are every tenant's); the controller, which may, keeps
 * for each worker placed on a node in a state its agent acts on (starting,
 * or running/stopping and run by an agent: agent_work.c's reconcile) one
 * key KEY_WORK "<node>/<job>/<index>" holding what the agent needs to run
 * and tend that worker (serve_work_entries), and deletes it when the worker
 * ends, is requeued or moves.  The agent's etcd role reads its own node's
 * prefix only (secure.c).
 *
 * It follows the controller's watch: each job event is applied at the next
 * step in its own small transaction, fenced by the leadership and by the
 * job's mod_revision as the event saw it, so an old event can never write
 * over a newer one (a later event for the job is on its way).  What was
 * written is remembered per job (the old keys of a worker that moved are
 * found there).  A full resync (every job and every view key, put what is
 * missing or different, delete what is stale) runs at the first step, after
 * a gap in the watch or a change of leader, and every minute, so a crash or
 * a missed event heals.  The view only ever tells an agent what to do;
 * every report it sends is checked by the controller against the real job
 * (relay.c), so a stale view can never bill or end the wrong worker.
 */
#include "serve_work.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "job.h"
#include "jsonmem.h"
#include "keyspace.h"
#include "tx.h"

enum {
    RESYNC_EVERY_MS = 60000,   /* heal missed events at least this often */
    RESYNC_MIN_MS = 5000,      /* and never more often (a watch reopening in a loop) */
    TXN_OPS_MAX = 64           /* well under etcd's --max-txn-ops (128) */
};

struct serve_work {
    int secured;               /* -1: not looked yet; 0: no view; 1: kept */
    int resync_due;
    int64_t resync_ms;         /* when the last full resync ran */
    int64_t leader_rev;        /* the leadership the view was last synced under */
    json_t *written;           /* job id -> {view key: value text}, as in the store */
    json_t *pending;           /* job id -> [job mod_revision, job text or null] */
    int failed;                /* said so once; quiet until it works again */
    int64_t puts, deletes;     /* of the resync in hand */
};

serve_work *serve_work_new(void)
{
    serve_work *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->secured = -1;
    w->resync_due = 1;
    w->written = json_object();
    w->pending = json_object();
    if (!w->written || !w->pending) {
        serve_work_free(w);
        return NULL;
    }
    return w;
}

void serve_work_free(serve_work *w)
{
    if (!w)
        return;
    json_decref(w->written);
    json_decref(w->pending);
    free(w);
}

/* ---- what the view holds --------------------------------------------------- */

/* 1 when the agent of worker's node acts on it (agent_work.c's reconcile:
 * it starts what is starting, tends what it runs, stops what is stopping). */
static int agent_acts_on(const json_t *worker)
{
    const char *state = doc_str(worker, "state");
    if (!*doc_str(worker, "node") || !job_worker_holds_node(state))
        return 0;
    return strcmp(state, "starting") == 0 || job_worker_run_by_agent(worker);
}

static void copy_fields(json_t *to, const json_t *from, const char *const *fields)
{
    for (; *fields; fields++) {
        json_t *v = json_object_get(from, *fields);
        if (v)
            json_object_set_new(to, *fields, json_deep_copy(v));
    }
}

json_t *serve_work_entries(const json_t *job)
{
    /* What agent_work.c reads, and nothing that changes while a worker runs
     * (billing's fields), so that a bill run rewrites no view key. */
    static const char *const job_fields[] = { "id", "type", "workers_spec", "endpoint", "environment", "system_env",
                                              "model", "resources", "name", "env_job_name", "data", "data_refs",
                                              "reservation", NULL };
    static const char *const worker_fields[] = { "state", "node", "alloc", "run_by_agent", NULL };
    json_t *out = json_object(), *wk;
    size_t i;
    const char *id = doc_str(job, "id");
    if (!out || !*id)
        return out;
    json_array_foreach(json_object_get(job, "workers"), i, wk) {
        char key[RD_KEY_MAX];
        if (!agent_acts_on(wk))
            continue;
        json_t *entry = json_object(), *worker = json_object();
        if (!entry || !worker) {
            json_decref(entry);
            json_decref(worker);
            continue;
        }
        copy_fields(entry, job, job_fields);
        copy_fields(worker, wk, worker_fields);
        json_object_set_new(entry, "index", json_integer((json_int_t)i));
        json_object_set_new(entry, "worker", worker);
        json_object_set_new(out, tx_key(key, KEY_WORK "%s/%s/%zu", doc_str(wk, "node"), id, i), entry);
    }
    return out;
}

/* The entries of job (NULL: deleted) as compact texts, {view key: text}. */
static json_t *entry_texts(const json_t *job)
{
    json_t *texts = json_object(), *entries = job ? serve_work_entries(job) : NULL, *e;
    const char *k;
    json_object_foreach(entries, k, e) {
        char *text = json_dumps(e, JSON_COMPACT | JSON_SORT_KEYS);
        if (text)
            json_object_set_new(texts, k, json_string(text));
        free(text);
    }
    json_decref(entries);
    return texts;
}

/* ---- writing it ------------------------------------------------------------ */

/* Brings job id's view keys in line with job (NULL: the job is gone), in
 * transactions that hold only while this leader leads and the job is still
 * at job_rev (0: still missing).  RD_OK also when the job moved on: its
 * newer event follows. */
static rd_code apply_job(serve_work *w, store_t *st, const char *id, const json_t *job, int64_t job_rev,
                         int64_t *puts, int64_t *deletes, rd_err *err)
{
    char jkey[RD_KEY_MAX];
    unsigned long jfail = jsonmem_failures();
    json_t *want = entry_texts(job), *have = json_object_get(w->written, id), *v;
    const char *k;
    store_op ops[TXN_OPS_MAX];
    size_t n = 0, np = 0, nd = 0;
    rd_code rc = RD_OK;
    int moved = 0;
    store_cmp cmps[2] = {
        { KEY_SERVE_LEADER, STORE_CMP_MOD_REVISION, STORE_CMP_EQUAL, w->leader_rev, NULL, 0 },
        { tx_key(jkey, KEY_JOBS "%s", id), STORE_CMP_MOD_REVISION, STORE_CMP_EQUAL, job_rev, NULL, 0 },
    };
    /* a view built while an allocation failed may lack a field, or an
     * entry (which the second pass would delete): nothing is written */
    if (!want || jsonmem_failures() != jfail) {
        json_decref(want);
        return rd_fail(err, RD_ENOMEM, "out of memory");
    }
    /* Two passes over the differences: puts, then deletes; a full batch
     * goes out on its own. */
    for (int pass = 0; pass < 2 && rc == RD_OK && !moved; pass++) {
        json_t *from = pass == 0 ? want : have;
        json_object_foreach(from, k, v) {
            if (pass == 0) {
                json_t *old = json_object_get(have, k);
                if (old && strcmp(json_string_value(old), json_string_value(v)) == 0)
                    continue;
                ops[n] = (store_op){ STORE_OP_PUT, k, json_string_value(v), strlen(json_string_value(v)), 0 };
                np++;
            } else {
                if (json_object_get(want, k))
                    continue;
                ops[n] = (store_op){ STORE_OP_DELETE, k, NULL, 0, 0 };
                nd++;
            }
            if (++n == TXN_OPS_MAX) {
                store_txn_result res = { 0 };
                rc = store_txn(st, cmps, 2, ops, n, NULL, 0, &res, err);
                moved = rc == RD_OK && !res.succeeded;
                n = 0;
                if (rc != RD_OK || moved)
                    break;
            }
        }
    }
    if (rc == RD_OK && !moved && n) {
        store_txn_result res = { 0 };
        rc = store_txn(st, cmps, 2, ops, n, NULL, 0, &res, err);
        moved = rc == RD_OK && !res.succeeded;
    }
    if (rc == RD_OK && !moved) {
        *puts += (int64_t)np;
        *deletes += (int64_t)nd;
        if (json_object_size(want))
            json_object_set(w->written, id, want);
        else
            json_object_del(w->written, id);
    } else if (np + nd > TXN_OPS_MAX) {
        w->resync_due = 1;   /* some batches may have gone through: read the store again */
    }
    json_decref(want);
    return rc;
}

/* ---- resync ---------------------------------------------------------------- */

typedef struct {
    serve_work *w;
    store_t *st;
    json_t *seen;              /* job ids met in the scan */
    rd_code rc;
    rd_err *err;
} resync_scan;

/* Remembers one view key as the store holds it. */
static int scan_view_key(store_kv *kv, void *data)
{
    resync_scan *s = data;
    char job[RD_KEY_MAX];
    const char *rest = kv->key + strlen(KEY_WORK), *slash = strchr(rest, '/');
    const char *end = slash ? strchr(slash + 1, '/') : NULL;
    if (!end)
        snprintf(job, sizeof job, "%s", "~malformed");   /* deleted below: no job has this id */
    else
        snprintf(job, sizeof job, "%.*s", (int)(end - slash - 1), slash + 1);
    json_t *keys = json_object_get(s->w->written, job);
    if (!keys) {
        keys = json_object();
        json_object_set_new(s->w->written, job, keys);
        keys = json_object_get(s->w->written, job);   /* NULL when that failed (and freed it) */
    }
    json_object_set_new(keys, kv->key, json_stringn(kv->value, kv->value_len));
    return 0;
}

static int scan_job(store_kv *kv, void *data)
{
    resync_scan *s = data;
    const char *id = kv->key + strlen(KEY_JOBS);
    json_t *job = json_loadb(kv->value, kv->value_len, 0, NULL);
    json_object_set_new(s->seen, id, json_true());
    if (job)   /* a damaged document: its keys stay until it is readable */
        s->rc = apply_job(s->w, s->st, id, job, kv->mod_revision, &s->w->puts, &s->w->deletes, s->err);
    json_decref(job);
    return s->rc != RD_OK;
}

/* 1 when the store's meta document says it is secured. */
static rd_code read_secured(store_t *st, int *secured, rd_err *err)
{
    store_kv kv;
    int found = 0;
    rd_code rc = store_get(st, KEY_META_STORE, &kv, &found, NULL, err);
    *secured = 0;
    if (rc != RD_OK || !found)
        return rc;
    json_t *meta = json_loadb(kv.value, kv.value_len, 0, NULL);
    *secured = json_is_true(json_object_get(meta, "secured"));
    json_decref(meta);
    store_kv_free(&kv);
    return RD_OK;
}

static rd_code resync(serve_work *w, store_t *st, const dlog_sink *log, rd_err *err)
{
    int secured = 0;
    rd_code rc = read_secured(st, &secured, err);
    if (rc != RD_OK)
        return rc;
    if (secured != w->secured && secured)
        dlog(log, "work", NULL, "the store is secured: keeping each node's work view under %s", KEY_WORK);
    w->secured = secured;
    if (!secured) {
        json_object_clear(w->pending);
        return RD_OK;
    }
    resync_scan s = { w, st, json_object(), RD_OK, err };
    int64_t rev = 0;
    w->puts = w->deletes = 0;
    json_object_clear(w->written);
    rc = store_scan(st, KEY_WORK, &rev, scan_view_key, &s, err);
    /* The jobs at the same revision: an event after it is still pending. */
    if (rc == RD_OK)
        rc = store_scan(st, KEY_JOBS, &rev, scan_job, &s, err);
    if (rc != RD_OK && s.rc != RD_OK)
        rc = s.rc;
    if (rc == RD_OK) {
        /* keys of jobs that are gone (or never were) */
        json_t *ids = json_object(), *v;
        const char *id;
        json_object_foreach(w->written, id, v)
            if (!json_object_get(s.seen, id))
                json_object_set_new(ids, id, json_true());
        json_object_foreach(ids, id, v)
            if (rc == RD_OK)
                rc = apply_job(w, st, id, NULL, 0, &w->puts, &w->deletes, err);
        json_decref(ids);
    }
    if (rc == RD_OK && (w->puts || w->deletes))
        dlog(log, "work", NULL, "work view resynced: %lld key(s) written that were missing or different, %lld stale "
             "deleted", (long long)w->puts, (long long)w->deletes);
    json_decref(s.seen);
    return rc;
}

/* ---- following the watch --------------------------------------------------- */

void serve_work_note(serve_work *w, const store_event *ev)
{
    if (!w || !ev->kv.key)
        return;
    if (strcmp(ev->kv.key, KEY_META_STORE) == 0) {
        w->resync_due = 1;
        return;
    }
    if (w->secured != 1 || keyspace_kind_of(ev->kv.key) != KEYSPACE_JOBS)
        return;
    const char *id = ev->kv.key + strlen(KEY_JOBS);
    int put = ev->type == STORE_EVENT_PUT && ev->kv.value;
    json_t *p = json_pack("[I, o]", (json_int_t)(put ? ev->kv.mod_revision : 0),
                          put ? json_stringn(ev->kv.value, ev->kv.value_len) : json_null());
    if (!p || json_object_set_new(w->pending, id, p) != 0)
        w->resync_due = 1;   /* out of memory: the resync will see it */
}

void serve_work_note_gap(serve_work *w)
{
    if (w)
        w->resync_due = 1;
}

static rd_code apply_pending(serve_work *w, store_t *st, rd_err *err)
{
    json_t *pending = w->pending, *p;
    const char *id;
    rd_code rc = RD_OK;
    int64_t puts = 0, deletes = 0;
    w->pending = json_object();
    json_object_foreach(pending, id, p) {
        const char *text = json_string_value(json_array_get(p, 1));
        json_t *job = text ? json_loads(text, 0, NULL) : NULL;
        if (rc == RD_OK && (job || !text))
            rc = apply_job(w, st, id, job, json_integer_value(json_array_get(p, 0)), &puts, &deletes, err);
        json_decref(job);
    }
    json_decref(pending);
    if (rc != RD_OK)
        w->resync_due = 1;   /* what was not applied is read again there */
    return rc;
}

void serve_work_step(serve_work *w, store_t *st, int64_t leader_rev, const dlog_sink *log, int64_t now_ms)
{
    rd_err err = { 0 };
    rd_code rc = RD_OK;
    if (!w)
        return;
    if (leader_rev != w->leader_rev) {
        w->leader_rev = leader_rev;   /* another leader may have left the view behind */
        w->resync_due = 1;
    }
    int due = w->resync_due || now_ms - w->resync_ms >= RESYNC_EVERY_MS;
    if (due && (w->resync_ms == 0 || now_ms - w->resync_ms >= RESYNC_MIN_MS)) {
        w->resync_due = 0;
        w->resync_ms = now_ms;
        if ((rc = resync(w, st, log, &err)) != RD_OK)
            w->resync_due = 1;   /* again after RESYNC_MIN_MS */
    }
    if (rc == RD_OK && w->secured == 1 && json_object_size(w->pending))
        rc = apply_pending(w, st, &err);
    if (rc != RD_OK && !w->failed)
        dlog(log, "work", NULL, "cannot update the work view: %s (trying again)", err.msg);
    else if (rc == RD_OK && w->failed)
        dlog(log, "work", NULL, "work view updated again");
    w->failed = rc != RD_OK;
}
