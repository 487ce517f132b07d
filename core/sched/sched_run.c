/* sched_run.c - one scheduling pass (`sched run`).
 *
 * A pass reads the fleet once into an index (sched_index.c), walks the
 * waiting jobs in queue order and places each waiting worker on the best
 * eligible node.  Placements are applied to the index at once and committed
 * in batches: one store transaction writes every node and job document the
 * batch changed, guarded by the mod_revision each was read at, with one
 * audit record.  When another writer got there first, only the batch's
 * documents are read again (nodes and jobs that changed replace the pass's
 * copies, the others go back to what was committed), the batch shrinks and
 * its jobs are placed again, so a GPU is never given twice.
 *
 * Once a worker of some shape found no node, later workers of that shape
 * are not tried (capacity only shrinks during a pass), and an aged job that
 * stays waiting claims the nodes it lacks only capacity on (no starvation).
 * Workers that fit nowhere may burst to GCP (sched_burst.c) after the placements.
 *
 * An idle pass is cheap: a pass that ends with nothing more placeable and
 * saw no writer but itself leaves an idle record (sched_idle.c), and the
 * next pass answers from it while nothing it reads has changed.
 */
#include "sched_run.h"

#include <stdlib.h>
#include <string.h>

#include "account.h"
#include "doc.h"
#include "fleet.h"
#include "grow.h"
#include "job.h"
#include "keyspace.h"
#include "ledger.h"
#include "node_agent.h"
#include "node_capacity.h"
#include "sched_burst.h"
#include "sched_idle.h"
#include "sched_index.h"
#include "sched_queue.h"
#include "jsonin.h"

#define CONFLICT_RETRIES 20
/* A batch (sched_run_batch_max): at most 512 workers where a txn has no
 * limit (SQLite); under a limit (etcd's 128) a placed worker may bring its
 * node and its job, a guard and a put each, and the retry guard and marker
 * take a spare: (128 - 8) / 4 = 30. */
enum { BATCH_MAX_UNLIMITED = 512, BATCH_OPS_PER_WORKER = 4, BATCH_OPS_SPARE = 8 };

/* ---- the pass's state ---------------------------------------------------- */

typedef struct {
    sched_plan plan;
    char *owner;          /* the paying account */
    char *fed_payer;      /* the creator, when it pays a federated fee too; else NULL */
    int burst;            /* its owner has a GCP region the job may burst to */
    int failed;           /* a worker of this shape found no node this pass */
    int claimed;          /* an aged job of this shape has claimed its nodes */
} shape;

typedef struct {
    size_t placed, waiting, no_credit, bursting, failed;
} counts;

typedef struct {
    cmd_ctx *ctx;
    sched_snapshot s;
    sched_qjob *q;
    size_t nq;
    json_t *wallets;      /* owner -> true/false, read once a pass */
    json_t *shape_ids;    /* shape key -> index into shapes */
    shape *shapes;
    size_t nshapes, shapes_cap;
    int dry;
    /* the batch being built */
    size_t *bnodes, nbnodes, *bjobs, nbjobs, bplaced, batch_max, qstart;
    counts c, c_start;    /* c_start: at the batch's start */
    json_t *placements;
    size_t placements_start;
    int conflicts;        /* a batch lost a race this pass */
    size_t *claims, nclaims, nclaims_start;   /* nodes claimed, in order */
    size_t *flagged, nflagged;                /* shapes flagged in this batch (index * 2 + claimed) */
    /* workers that found no node but may burst: (queue index, worker) */
    size_t (*burst)[2];
    size_t nburst, burst_cap, nburst_start;
} pass;

static int wallet_cached(pass *p, const char *owner)
{
    json_t *v = json_object_get(p->wallets, owner);
    if (!v) {
        int failed = 0;
        v = json_boolean(sched_wallet_ok(p->ctx, owner, &failed));
        if (failed)
            p->s.nomem = 1;   /* a wallet not read (out of memory): the pass fails at its next batch */
        json_object_set_new(p->wallets, owner, v);
        tx_reset(p->ctx->tx);   /* the wallet read guards nothing here */
    }
    return json_is_true(v);
}

/* 1 while every account paying for a job has credit (see sched_payers_ok). */
static int payers_cached(pass *p, const char *owner, const char *fed_payer)
{
    return wallet_cached(p, owner) && (!fed_payer || wallet_cached(p, fed_payer));
}

static int burst_region(const pass *p, const sched_job *j);

/* The shape record of q, made from its view j when new; NULL when q has no
 * key (then the job is planned on its own into own, nothing cached). */
static shape *shape_of(pass *p, const sched_qjob *q, const sched_job *j, sched_plan *own)
{
    const char *key = q->text ? q->shape : NULL;
    json_t *idx = key ? json_object_get(p->shape_ids, key) : NULL;
    shape *sh;
    if (idx) {
        sh = &p->shapes[json_integer_value(idx)];
    } else if (!j || !key) {
        if (j && own)
            sched_plan_build(&p->s, j, own);
        return NULL;
    } else if (grow_array(&p->shapes, &p->shapes_cap, p->nshapes + 1, sizeof *p->shapes) != 0) {
        p->s.nomem = 1;   /* the pass fails at its next batch */
        if (own)
            sched_plan_build(&p->s, j, own);
        return NULL;
    } else {
        sh = &p->shapes[p->nshapes];
        memset(sh, 0, sizeof *sh);
        sched_plan_build(&p->s, j, &sh->plan);
        sh->owner = strdup(j->owner);
        sh->fed_payer = j->fed_payer ? strdup(j->fed_payer) : NULL;
        if (!sh->owner || (j->fed_payer && !sh->fed_payer)) {   /* not kept: the pass fails */
            free(sh->owner);
            free(sh->fed_payer);
            sched_plan_free(&sh->plan);
            p->s.nomem = 1;
            if (own)
                sched_plan_build(&p->s, j, own);
            return NULL;
        }
        sh->burst = burst_region(p, j);
        json_object_set_new(p->shape_ids, key, json_integer((json_int_t)p->nshapes++));
    }
    if (j && sh->plan.ngroups_seen != p->s.ngroups) {   /* a refreshed node opened a new group */
        sched_plan_free(&sh->plan);
        sched_plan_build(&p->s, j, &sh->plan);
    }
    return sh;
}

/* ---- placing ------------------------------------------------------------- */

/* A copy of a node document whose arrays are its own, so changing it
 * leaves the original (the committed one) intact. */
static json_t *node_fork(const json_t *doc)
{
    json_t *copy = json_copy((json_t *)doc);
    static const char *const node_arrays[] = { "gpu_alloc", "workers" };
    for (size_t k = 0; k < 2; k++) {
        json_t *a = json_object_get(doc, node_arrays[k]);
        if (json_is_array(a))
            json_object_set_new(copy, node_arrays[k], json_copy(a));
    }
    return copy;
}

static void place(pass *p, size_t qi, size_t k, size_t ni, const sched_offer *offer)
{
    cmd_ctx *ctx = p->ctx;
    sched_qjob *q = &p->q[qi];
    sched_node *n = &p->s.nodes[ni];
    char ts[RDTIME_BUFLEN];
    /* The job's decoded document is changed in place (the text is what was
     * read); the batch writes the placed workers into the text. */
    json_t *job = sched_qjob_doc(q);
    if (grow_array(&q->placed, &q->placed_cap, q->nplaced + 1, sizeof *q->placed) != 0) {
        p->s.nomem = 1;   /* the pass fails at its next batch */
        return;
    }
    if (!q->nplaced)
        p->bjobs[p->nbjobs++] = qi;
    q->placed[q->nplaced++] = k;
    json_t *node = n->touched ? json_incref(n->doc) : node_fork(n->doc);
    if (!n->touched) {
        n->touched = 1;
        p->bnodes[p->nbnodes++] = ni;
    }
    json_t *alloc = sched_alloc(&p->s, ni, json_integer_value(json_object_get(json_object_get(job, "resources"),
                                                                              "gpus_x100")));
    node_capacity_take(node, job, k, alloc, ctx->now);
    sched_node_reset(&p->s, ni, node, NULL, 0);
    json_t *worker = json_array_get(json_object_get(job, "workers"), k);
    /* On a node an agent runs, the worker starts when its process does
     * (the agent reports it); elsewhere the books take placement as start. */
    int by_agent = node_agent_required(node);
    json_object_set_new(worker, "state", json_string(by_agent ? "starting" : "running"));
    json_object_set_new(worker, "node", json_string(n->name));
    json_object_set_new(worker, "region", json_string(doc_str(node, "region")));
    json_object_set_new(worker, "gpu_type", json_string(doc_str(node, "gpu_type")));
    json_object_set_new(worker, "price_ucr", json_integer(offer->price_ucr));
    json_object_set_new(worker, "own", json_boolean(offer->own));
    json_object_set_new(worker, "host", json_string(doc_str(node, "owner")));
    json_object_set_new(worker, "placed_at", json_string(rdtime_format(ctx->now, ts)));
    json_object_set_new(worker, "started_at", by_agent ? json_null() : json_string(ts));
    json_object_set_new(worker, "billed_until", by_agent ? json_null() : json_string(ts));
    json_object_del(worker, "pending_node");
    json_object_set_new(worker, "alloc", alloc);
    job_update_state(job);
    json_object_set_new(job, "reason", json_null());
    p->bplaced++;
}

static rd_code reread_text(cmd_ctx *ctx, const char *key, char **text, size_t *len, int64_t *rev, rd_err *err)
{
    store_kv kv;
    int found = 0;
    *text = NULL;
    *len = 0;
    *rev = 0;
    rd_code rc = store_get(tx_store(ctx->tx), key, &kv, &found, NULL, err);
    if (rc != RD_OK || !found)
        return rc;
    *text = kv.value;   /* NUL-terminated, ours to keep */
    *len = kv.value_len;
    *rev = kv.mod_revision;
    kv.value = NULL;
    store_kv_free(&kv);
    return RD_OK;
}

static rd_code reread(cmd_ctx *ctx, const char *key, json_t **doc, int64_t *rev, rd_err *err)
{
    store_kv kv;
    int found = 0;
    json_error_t jerr;
    *doc = NULL;
    *rev = 0;
    rd_code rc = store_get(tx_store(ctx->tx), key, &kv, &found, NULL, err);
    if (rc != RD_OK || !found)
        return rc;
    *doc = jsonin_loadb_any(kv.value, kv.value_len, &jerr);
    *rev = kv.mod_revision;
    store_kv_free(&kv);
    if (!json_is_object(*doc)) {
        json_decref(*doc);
        *doc = NULL;
        return rd_fail(err, RD_ECORRUPT, "store key %s does not hold a JSON object", key);
    }
    return RD_OK;
}

/* The batch lost a race: its nodes and jobs are read again (changed ones
 * replace the pass's copies, the others go back to what was committed). */
static rd_code batch_undo(pass *p, rd_err *err)
{
    char key[RD_KEY_MAX];
    rd_code rc = RD_OK;
    for (size_t b = 0; b < p->nbnodes; b++) {
        sched_node *n = &p->s.nodes[p->bnodes[b]];
        json_t *fresh = NULL;
        int64_t rev = 0;
        n->touched = 0;
        if (rc == RD_OK)
            rc = reread(p->ctx, tx_key(key, KEY_NODES "%s", n->name), &fresh, &rev, err);
        if (fresh && rev != n->rev)
            sched_node_reset(&p->s, p->bnodes[b], json_incref(fresh), fresh, rev);
        else if (!fresh && rc == RD_OK)   /* deleted: nothing may go there */
            sched_node_reset(&p->s, p->bnodes[b], json_pack("{s:s, s:s}", "name", n->name, "state", "removed"),
                             json_pack("{}"), 0);
        else {
            json_decref(fresh);
            sched_node_reset(&p->s, p->bnodes[b], json_incref(n->committed), NULL, 0);
        }
    }
    for (size_t b = 0; b < p->nbjobs; b++) {
        sched_qjob *q = &p->q[p->bjobs[b]];
        char *text = NULL;
        size_t len = 0;
        int64_t rev = 0;
        json_decref(q->doc);   /* placements were made in it */
        q->doc = NULL;
        q->nplaced = 0;
        free(q->out);
        json_decref(q->out_fields);
        q->out = NULL;
        q->out_fields = NULL;
        if (rc == RD_OK)
            rc = reread_text(p->ctx, tx_key(key, KEY_JOBS "%s", q->id), &text, &len, &rev, err);
        if (rc == RD_OK && rev != q->rev)
            sched_qjob_set_text(q, text, len, rev);   /* changed, or gone (NULL: left out) */
        else
            free(text);
    }
    p->nbnodes = p->nbjobs = p->bplaced = 0;
    p->c = p->c_start;
    while (json_array_size(p->placements) > p->placements_start)
        json_array_remove(p->placements, json_array_size(p->placements) - 1);
    return rc;
}

static void batch_start(pass *p, size_t qi)
{
    p->qstart = qi;
    p->c_start = p->c;
    p->placements_start = json_array_size(p->placements);
    p->nclaims_start = p->nclaims;
    p->nburst_start = p->nburst;
    p->nflagged = 0;
}

/* What the batch learnt about shapes and claims was learnt on placements
 * that did not commit: forget it too. */
static void batch_forget(pass *p)
{
    for (size_t i = p->nclaims_start; i < p->nclaims; i++) {
        free(p->s.nodes[p->claims[i]].claim);
        p->s.nodes[p->claims[i]].claim = NULL;
    }
    p->nclaims = p->nclaims_start;
    for (size_t i = 0; i < p->nflagged; i++) {
        shape *sh = &p->shapes[p->flagged[i] / 2];
        if (p->flagged[i] % 2)
            sh->claimed = 0;
        else
            sh->failed = 0;
    }
    p->nflagged = 0;
    p->nburst = p->nburst_start;
}

static void shape_flag(pass *p, shape *sh, int claimed)
{
    if (claimed)
        sh->claimed = 1;
    else
        sh->failed = 1;
    if (p->nflagged < 2 * p->nq + 2)
        p->flagged[p->nflagged++] = (size_t)(sh - p->shapes) * 2 + (size_t)claimed;
}

static void (*flush_hook)(void *data);
static void *flush_hook_data;

void sched_run_set_flush_hook(void (*fn)(void *data), void *data)
{
    flush_hook = fn;
    flush_hook_data = data;
}

/* Stages a placed job's write guarded by the revision it was read at: its
 * text with the placed workers written in (sched_qjob_splice), or, for text
 * of an odd shape, its whole document (the audit's "before" decoded from
 * the text). */
static rd_code job_stage(pass *p, sched_qjob *q, rd_err *err)
{
    char key[RD_KEY_MAX];
    json_t *before;
    json_error_t jerr;
    tx_key(key, KEY_JOBS "%s", q->id);
    if (q->out) {
        rd_code rc = tx_guard(p->ctx->tx, key, NULL, q->rev, err);
        if (rc == RD_OK)
            rc = tx_put_text(p->ctx->tx, key, q->out, q->out_len, q->out_fields, err);
        else {
            free(q->out);
            json_decref(q->out_fields);
        }
        q->out = NULL;   /* the transaction's now */
        q->out_fields = NULL;
        return rc;
    }
    before = jsonin_loadb_any(q->text, q->len, &jerr);
    rd_code rc = tx_guard(p->ctx->tx, key, before, q->rev, err);
    json_decref(before);
    return rc == RD_OK ? tx_put(p->ctx->tx, key, json_incref(q->doc), err) : rc;
}

/* Commits the batch: every changed node and job guarded by the revision it
 * was read at, one audit record.  RD_ECONFLICT after batch_undo. */
static rd_code batch_flush(pass *p, rd_err *err)
{
    cmd_ctx *ctx = p->ctx;
    char key[RD_KEY_MAX];
    rd_code rc = RD_OK;
    if (p->nbjobs == 0 || p->dry) {
        p->nbnodes = p->nbjobs = p->bplaced = 0;
        return RD_OK;
    }
    tx_reset(ctx->tx);
    for (size_t b = 0; b < p->nbnodes && rc == RD_OK; b++) {
        sched_node *n = &p->s.nodes[p->bnodes[b]];
        tx_key(key, KEY_NODES "%s", n->name);
        rc = tx_guard(ctx->tx, key, n->committed, n->rev, err);
        if (rc == RD_OK)
            rc = tx_put(ctx->tx, key, json_incref(n->doc), err);
    }
    for (size_t b = 0; b < p->nbjobs && rc == RD_OK; b++)
        rc = job_stage(p, &p->q[p->bjobs[b]], err);
    if (rc == RD_OK && flush_hook)
        flush_hook(flush_hook_data);
    if (rc == RD_OK)
        rc = cmd_commit_step(ctx, err);
    else
        tx_reset(ctx->tx);
    if (rc == RD_ECONFLICT) {
        p->conflicts = 1;
        rd_code urc = batch_undo(p, err);
        return urc != RD_OK ? urc : RD_ECONFLICT;
    }
    if (rc != RD_OK)
        return rc;
    int64_t rev = tx_last_revision(ctx->tx);
    for (size_t b = 0; b < p->nbnodes; b++) {
        sched_node *n = &p->s.nodes[p->bnodes[b]];
        json_decref(n->committed);
        n->committed = json_incref(n->doc);
        n->rev = rev;
        n->touched = 0;
    }
    for (size_t b = 0; b < p->nbjobs; b++)   /* placed and committed: the pass is done with it */
        sched_qjob_set_text(&p->q[p->bjobs[b]], NULL, 0, rev);
    p->nbnodes = p->nbjobs = p->bplaced = 0;
    return RD_OK;
}

/* 1 when the job's owner has a GCP region it may burst to (sched_burst.c
 * decides the rest). */
static int burst_region(const pass *p, const sched_job *j)
{
    const char *rname;
    json_t *region;
    json_object_foreach(p->s.regions, rname, region)
        if (strcmp(doc_str(region, "provider"), "gcp") == 0 && strcmp(doc_str(region, "owner"), j->owner) == 0 &&
            (!*j->pin || strcmp(j->pin, rname) == 0))
            return 1;
    return 0;
}

/* Counts a job without decoding it when its shape decides everything: no
 * credit, or a shape that found no node and has claimed what an aged job
 * would, and no worker that may burst.  0 when the job must be decoded. */
static int count_known(pass *p, sched_qjob *q, int aged)
{
    shape *sh = shape_of(p, q, NULL, NULL);
    if (!sh)
        return 0;
    int credit = payers_cached(p, sh->owner, sh->fed_payer);
    if (credit && (!sh->failed || (aged && !sh->claimed) || sh->burst || q->pending))
        return 0;
    p->c.waiting += q->waiting;
    p->c.no_credit += credit ? 0 : q->waiting;
    return 1;
}

/* Places the waiting workers of queue job qi into the batch. */
static void place_job(pass *p, size_t qi)
{
    sched_qjob *q = &p->q[qi];
    sched_job j;
    sched_plan own_plan = { 0 };
    rd_time submitted = 0;
    if (!q->submitted) {   /* its copy failed (sched_qjob_set_text): the pass fails */
        p->s.nomem = 1;
        return;
    }
    rdtime_parse("submitted_at", q->submitted, &submitted, NULL);
    int aged = p->ctx->now - submitted > p->s.max_wait_s;
    if (!q->text || count_known(p, q, aged))
        return;
    json_t *doc = sched_qjob_doc(q);
    if (!doc) {   /* decoded when the queue was read: out of memory now */
        p->s.nomem = 1;
        return;
    }
    sched_job_view(doc, &j);
    int credit = payers_cached(p, j.owner, j.fed_payer);
    shape *sh = shape_of(p, q, &j, &own_plan);
    const sched_plan *plan = sh ? &sh->plan : &own_plan;
    int failed = 0, left_waiting = 0;
    counts c = { 0 };
    size_t k;
    json_t *w;
    json_array_foreach(json_object_get(doc, "workers"), k, w) {
        if (strcmp(doc_str(w, "state"), "waiting_gpus") != 0)
            continue;
        long ni = -1;
        sched_offer offer;
        /* A worker that waited for a cloud node made for it takes that node
         * once it is up, so bursting never hands one job's node to another. */
        const char *mine = doc_str(w, "pending_node");
        if (credit && *mine) {
            long pi = sched_node_find(&p->s, mine);
            if (pi >= 0 && sched_check(&p->s, &j, (size_t)pi, &offer) == SCHED_OK)
                ni = pi;
        }
        if (ni < 0 && credit && !(sh ? sh->failed : failed)) {
            /* the job view follows the working copy, which only the
             * placed workers' fields differ in */
            ni = sched_pick(&p->s, &j, plan, &offer);
            if (ni < 0) {
                failed = 1;
                if (sh)
                    shape_flag(p, sh, 0);
            }
        }
        if (ni >= 0) {
            place(p, qi, k, (size_t)ni, &offer);
            c.placed++;
            json_array_append_new(p->placements, json_pack("{s:s, s:I}", "job", q->id, "worker", (json_int_t)k));
            continue;
        }
        left_waiting = 1;
        if (credit && (*doc_str(w, "pending_node") || (sh ? sh->burst : burst_region(p, &j)))) {
            if (grow_array(&p->burst, &p->burst_cap, p->nburst + 1, sizeof *p->burst) != 0) {
                p->s.nomem = 1;
                c.waiting++;
                continue;
            }
            p->burst[p->nburst][0] = qi;
            p->burst[p->nburst++][1] = k;
            continue;   /* counted when it is tried */
        }
        c.waiting++;
        c.no_credit += !credit;
    }
    if (aged && credit && left_waiting && !(sh && sh->claimed)) {
        sched_claim_for(&p->s, &j, plan, p->claims, &p->nclaims);
        if (sh)
            shape_flag(p, sh, 1);
    }
    sched_plan_free(&own_plan);
    if (!q->nplaced) {   /* nothing placed: keep only the text */
        json_decref(q->doc);
        q->doc = NULL;
    } else if (!sched_qjob_splice(q)) {
        p->s.nomem = 1;   /* the pass fails at its next batch */
    }
    p->c.placed += c.placed;
    p->c.waiting += c.waiting;
    p->c.no_credit += c.no_credit;
}

size_t sched_run_batch_max(const store_caps *caps)
{
    size_t ops = caps->txn_ops_max, n = ops > BATCH_OPS_SPARE + BATCH_OPS_PER_WORKER
                                            ? (ops - BATCH_OPS_SPARE) / BATCH_OPS_PER_WORKER : 1;
    return ops == 0 || n > BATCH_MAX_UNLIMITED ? BATCH_MAX_UNLIMITED : n;
}

/* Walks the queue, committing a batch whenever it is full; a lost race
 * re-places the batch's jobs with a smaller batch. */
static rd_code place_all(pass *p, rd_err *err)
{
    size_t max = p->batch_max;
    int streak = 0;
    batch_start(p, 0);
    for (size_t qi = 0; qi <= p->nq; qi++) {
        if (qi < p->nq)
            place_job(p, qi);
        if (p->bplaced < max && qi + 1 < p->nq)
            continue;
        /* An index that lost a node or a shape to a failed allocation must
         * not place: the batch is dropped, the batches before it stand.
         * Checked before the end too: a job the last batch left out for
         * it must not read as waiting. */
        if (p->s.nomem)
            return rd_fail(err, RD_ENOMEM, "sched run: out of memory indexing the fleet; run it again");
        if (qi == p->nq && p->nbjobs == 0)
            break;
        rd_code rc = batch_flush(p, err);
        if (rc == RD_ECONFLICT) {
            if (++streak > CONFLICT_RETRIES)
                return rd_fail(err, RD_ECONFLICT, "sched run: the fleet kept changing under the pass; run it again");
            max = max > 1 ? max / 2 : 1;
            batch_forget(p);
            qi = p->qstart - 1;   /* the loop's ++ (unsigned) brings it back to the batch's first job */
            batch_start(p, p->qstart);
            continue;
        }
        if (rc != RD_OK)
            return rc;
        streak = 0;
        if (max < p->batch_max)
            max *= 2;
        batch_start(p, qi + 1);
    }
    return RD_OK;
}

/* Bursts, in queue order, the workers that found no node (sched_burst.c). */
static rd_code burst_all(pass *p, int *wrote, rd_err *err)
{
    for (size_t b = 0; b < p->nburst; b++) {
        sched_burst_outcome out = SCHED_BURST_NONE;
        rd_code rc = sched_burst_worker(p->ctx, &p->s, p->q[p->burst[b][0]].id, p->burst[b][1], p->dry, &out, err);
        if (rc != RD_OK)
            return rc;
        *wrote |= out == SCHED_BURST_STARTED || out == SCHED_BURST_FAILED;
        if (out == SCHED_BURST_FAILED) {
            p->c.failed++;
        } else {
            p->c.waiting++;
            p->c.bursting += out == SCHED_BURST_STARTED || out == SCHED_BURST_PENDING;
        }
    }
    return RD_OK;
}

/* ---- out-of-credit accounts ---------------------------------------------- */

typedef struct {
    pass *p;
    json_t *ids;          /* running jobs of accounts without credit */
    rd_err *err;
} broke_state;

static int note_broke(store_kv *kv, void *data)
{
    broke_state *bs = data;
    char owner[256];
    json_error_t jerr;
    if (!memmem(kv->value, kv->value_len, "\"running\"", 9))
        return 0;
    /* the owner read raw only lets a paying account's job be skipped; the
     * decoded document decides everything else */
    char creator[256];
    if (sched_raw_string(kv->value, kv->value + kv->value_len, "project_owner", owner, sizeof owner) &&
        sched_raw_string(kv->value, kv->value + kv->value_len, "creator", creator, sizeof creator) &&
        strcmp(owner, creator) == 0 && wallet_cached(bs->p, owner))
        return 0;
    json_t *doc = jsonin_loadb_any(kv->value, kv->value_len, &jerr);
    if (!json_is_object(doc)) {
        json_decref(doc);
        return rd_fail(bs->err, RD_ECORRUPT, "store key %s does not hold a JSON object", kv->key);
    }
    const char *state = doc_str(doc, "state");
    sched_job j;
    sched_job_view(doc, &j);
    if ((strcmp(state, "running") == 0 || strcmp(state, "stopping") == 0) && !payers_cached(bs->p, j.owner, j.fed_payer))
        json_array_append_new(bs->ids, json_string(doc_str(doc, "id")));
    json_decref(doc);
    return 0;
}

/* Stops the running jobs note_broke found (reason out_of_credits), each
 * with what it owes posted, one step a job. */
static rd_code stop_out_of_credit(pass *p, const broke_state *bs, size_t *stopped, rd_err *err)
{
    cmd_ctx *ctx = p->ctx;
    size_t i;
    json_t *id;
    rd_code rc = RD_OK;
    json_array_foreach(bs->ids, i, id) {
        if (rc != RD_OK)
            break;
        for (int attempt = 0; attempt < CONFLICT_RETRIES; attempt++) {
            json_t *job = NULL, *w;
            size_t k;
            tx_reset(ctx->tx);
            if ((rc = job_get(ctx, json_string_value(id), &job, err)) != RD_OK)
                break;
            json_t *before = json_deep_copy(job);
            /* what the workers this ends owe in whole hours first, in
             * steps of its own (a dry run stages it all and commits none) */
            size_t *ends = p->dry ? NULL : calloc(json_array_size(json_object_get(job, "workers")) + 1, sizeof *ends);
            size_t n = 0;
            json_array_foreach(json_object_get(job, "workers"), k, w)
                if (ends && strcmp(doc_str(w, "state"), "running") == 0 && !job_worker_run_by_agent(w))
                    ends[n++] = k;
            if (!p->dry && !ends)
                rc = rd_fail(err, RD_ENOMEM, "out of memory");
            if (rc == RD_OK && n)
                rc = job_bill_hours(ctx, job, ends, n, ctx->now, err);
            free(ends);
            json_array_foreach(json_object_get(job, "workers"), k, w)
                if (rc == RD_OK)
                    rc = job_stop_worker(ctx, job, k, err);
            json_object_set_new(job, "reason", json_string("out_of_credits"));
            job_update_state(job);
            /* an agent's workers asked to stop already: nothing to write
             * until it reports their end */
            int same = json_equal(before, job);
            json_decref(before);
            if (same) {
                json_decref(job);
                break;
            }
            if (rc == RD_OK && !p->dry)
                rc = job_put(ctx, job, err);
            else
                json_decref(job);
            if (rc == RD_OK && !p->dry)
                rc = cmd_commit_step(ctx, err);
            if (rc != RD_ECONFLICT)
                break;
            rc = RD_OK;   /* the job changed under us: read it again */
        }
        tx_reset(ctx->tx);
        if (rc == RD_OK)
            (*stopped)++;
    }
    return rc;
}

/* ---- the command --------------------------------------------------------- */

static void pass_free(pass *p)
{
    sched_queue_free(p->q, p->nq);
    for (size_t i = 0; i < p->nshapes; i++) {
        sched_plan_free(&p->shapes[i].plan);
        free(p->shapes[i].owner);
        free(p->shapes[i].fed_payer);
    }
    free(p->shapes);
    free(p->bnodes);
    free(p->bjobs);
    free(p->claims);
    free(p->flagged);
    free(p->burst);
    json_decref(p->wallets);
    json_decref(p->shape_ids);
    json_decref(p->placements);
    sched_snapshot_free(&p->s);
}

rd_code sched_run_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    pass p;
    memset(&p, 0, sizeof p);
    p.ctx = ctx;
    p.dry = cmd_opt_given(a, "dry-run");
    if (!p.dry && (*result = sched_idle_result(tx_store(ctx->tx))))
        return RD_OK;
    int64_t rev0 = 0;
    size_t commits0 = tx_commit_count(ctx->tx), stopped = 0;
    int burst_wrote = 0;
    p.wallets = json_object();
    p.shape_ids = json_object();
    p.placements = json_array();
    p.batch_max = sched_run_batch_max(store_caps_get(tx_store(ctx->tx)));
    broke_state bs = { &p, json_array(), err };
    /* One scan of the jobs finds both the queue and the running jobs of
     * accounts without credit; stopping those frees capacity (read after)
     * and changes their documents (the queue is read again then). */
    rd_code rc = store_revision(tx_store(ctx->tx), &rev0, err);
    if (rc == RD_OK)
        rc = sched_queue_load(ctx, &p.q, &p.nq, note_broke, &bs, err);
    if (rc == RD_OK && json_array_size(bs.ids)) {
        rc = stop_out_of_credit(&p, &bs, &stopped, err);
        sched_queue_free(p.q, p.nq);
        p.q = NULL;
        p.nq = 0;
        if (rc == RD_OK)
            rc = sched_queue_load(ctx, &p.q, &p.nq, NULL, NULL, err);
    }
    json_decref(bs.ids);
    if (rc == RD_OK)
        rc = sched_load(ctx, &p.s, err);
    tx_reset(ctx->tx);
    if (rc == RD_OK) {
        p.bnodes = calloc(p.s.nnodes + 1, sizeof *p.bnodes);
        p.bjobs = calloc(p.nq + 1, sizeof *p.bjobs);
        p.claims = calloc(p.s.nnodes + 1, sizeof *p.claims);
        p.flagged = calloc(2 * p.nq + 2, sizeof *p.flagged);
        rc = p.bnodes && p.bjobs && p.claims && p.flagged ? place_all(&p, err)
                                                          : rd_fail(err, RD_ENOMEM, "out of memory");
    }
    if (rc == RD_OK)
        rc = burst_all(&p, &burst_wrote, err);
    tx_reset(ctx->tx);
    if (rc == RD_OK) {
        *result = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:b, s:O}", "name", "sched", "stopped_out_of_credits",
                            (json_int_t)stopped, "placed", (json_int_t)p.c.placed, "waiting", (json_int_t)p.c.waiting,
                            "waiting_for_credit", (json_int_t)p.c.no_credit, "waiting_for_cloud",
                            (json_int_t)p.c.bursting, "failed", (json_int_t)p.c.failed, "dry_run", p.dry, "placements",
                            p.placements);
        /* Nothing more is placeable now, and if the only writes since the
         * pass began were its own, the next pass can prove it cheaply. */
        int64_t rev_end = 0;
        if (!p.dry && !p.conflicts && store_revision(tx_store(ctx->tx), &rev_end, NULL) == RD_OK &&
            rev_end == rev0 + (int64_t)(tx_commit_count(ctx->tx) - commits0))
            sched_idle_record(tx_store(ctx->tx), rev_end, p.c.waiting, p.c.no_credit, p.c.bursting);
    }
    (void)burst_wrote;
    pass_free(&p);
    return rc;
}
