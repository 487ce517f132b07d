/* billing_usage.c - what a running worker owes, hour by hour (billing.md).
 *
 * A worker is billed at the end of each whole hour of its run, counted from
 * its start, and once more for the partial hour when it ends.  Each span is
 * one charge, rounded on its own, and every transfer id names the job, the
 * worker and the span's start, so staging a span twice is a no-op (the
 * ledger reads the id first) and a crash between two runs loses nothing:
 * the next run stages exactly what is missing.  "billed_until" on the
 * worker only saves work; correctness comes from the ids.
 *
 * Per span and per GPU held (fractions pay their fraction):
 *   own capacity       usage_fee      project owner -> platform
 *   others' capacity   gpu_rental     project owner -> host's earnings (half of
 *                                     price minus usage fee) and -> platform
 *                                     (the rest), as one linked group
 *   shared project     federated_fee  creator -> platform, per worker-hour
 *                                     (2.65 training, 1.85 inference/endpoint)
 */
#include "billing_usage.h"

#include <stdio.h>
#include <string.h>

#include "billing_math.h"
#include "billing_step.h"
#include "catalog.h"
#include "doc.h"
#include "keyspace.h"
#include "ledger.h"

#define FEDERATED_TRAINING_UCR 2650000LL
#define FEDERATED_INFERENCE_UCR 1850000LL

int64_t billing_federated_rate(const char *type, const char *creator, const char *owner)
{
    if (strcmp(creator, owner) == 0)
        return 0;
    if (strcmp(type, "training") == 0)
        return FEDERATED_TRAINING_UCR;
    if (strcmp(type, "inference") == 0 || strcmp(type, "endpoint") == 0)
        return FEDERATED_INFERENCE_UCR;
    return 0;   /* notebooks pay no federated fee */
}

static int64_t federated_rate(const json_t *job)
{
    return billing_federated_rate(doc_str(job, "type"), doc_str(job, "creator"), doc_str(job, "project_owner"));
}

static int64_t worker_gpus_x100(const json_t *job)
{
    int64_t x = json_integer_value(json_object_get(json_object_get(job, "resources"), "gpus_x100"));
    return x > 0 ? x : 100;   /* a CPU-only worker pays its hourly price once */
}

/* The transfers of one span [start, start + seconds) into t (ids in
 * ids); *linked gets how many of t's first are the rental group (> 1 only
 * for a group of two).  Zero parts are not transfers. */
static size_t span_transfers(const json_t *job, size_t w, const json_t *worker, rd_time start, int64_t seconds,
                             char ids[3][LEDGER_ID_MAX], char accts[3][LEDGER_ACCOUNT_MAX], const char *ref,
                             ledger_transfer t[3], size_t *linked)
{
    const char *job_id = doc_str(job, "id");
    int64_t gpus = worker_gpus_x100(job);
    int64_t price = json_integer_value(json_object_get(worker, "price_ucr"));
    const gpu_type *g = catalog_gpu(doc_str(worker, "gpu_type"));
    int64_t fee = g ? g->usage_fee_ucr : 0;
    int64_t paid = billing_span_charge(price, gpus, seconds);
    int64_t fed = billing_span_charge(federated_rate(job), 100, seconds);
    const char *payer = ledger_wallet_id(accts[0], doc_str(job, "project_owner"));
    rd_time at = start + seconds;
    size_t n = 0;

    *linked = 0;
    if (json_is_true(json_object_get(worker, "own"))) {
        if (paid > 0) {
            snprintf(ids[n], LEDGER_ID_MAX, "usage/%s/%zu/%lld", job_id, w, (long long)start);
            t[n] = (ledger_transfer){ ids[n], payer, "platform", paid, "usage_fee", at, ref };
            n++;
        }
    } else if (paid > 0) {
        int64_t host_part = billing_host_share(price, fee, gpus, seconds);
        const char *host = ledger_earnings_id(accts[1], doc_str(worker, "host"));
        if (host_part > 0) {
            snprintf(ids[n], LEDGER_ID_MAX, "rental/%s/%zu/%lld/host", job_id, w, (long long)start);
            t[n] = (ledger_transfer){ ids[n], payer, host, host_part, "gpu_rental", at, ref };
            n++;
        }
        if (paid - host_part > 0) {
            snprintf(ids[n], LEDGER_ID_MAX, "rental/%s/%zu/%lld/platform", job_id, w, (long long)start);
            t[n] = (ledger_transfer){ ids[n], payer, "platform", paid - host_part, "gpu_rental", at, ref };
            n++;
        }
        *linked = n;
    }
    if (fed > 0) {
        const char *creator = ledger_wallet_id(accts[2], doc_str(job, "creator"));
        snprintf(ids[n], LEDGER_ID_MAX, "federated/%s/%zu/%lld", job_id, w, (long long)start);
        t[n] = (ledger_transfer){ ids[n], creator, "platform", fed, "federated_fee", at, ref };
        n++;
    }
    return n;
}

void billing_tally_add(billing_tally *tally, const char *kind, int correction, int64_t amount)
{
    if (!tally)
        return;
    if (correction) {
        tally->corrections++;
        tally->corrections_ucr += amount;
    } else if (strcmp(kind, "usage_fee") == 0) {
        tally->usage_fees++;
        tally->usage_fees_ucr += amount;
    } else if (strcmp(kind, "gpu_rental") == 0) {
        tally->gpu_rentals++;
        tally->gpu_rentals_ucr += amount;
    } else {
        tally->federated_fees++;
        tally->federated_fees_ucr += amount;
    }
}

/* Stages t[0..n) (t[0..linked) as one group when linked > 1) as one unit
 * of the step, tallying what was not posted already. */
static rd_code stage_group(billing_step *st, const ledger_transfer *t, size_t n, size_t linked, int correction,
                           billing_tally *tally, rd_err *err)
{
    size_t dups = 0;
    int dup = 0;
    rd_code rc = billing_step_room_transfers(st, t, n, err);
    if (rc == RD_OK)
        rc = ledger_prefetch(st->tx, t, n, err);
    if (rc == RD_OK && linked > 1 && (rc = ledger_stage_linked(st->tx, t, linked, &dups, err)) == RD_OK && !dups)
        for (size_t i = 0; i < linked; i++)
            billing_tally_add(tally, t[i].kind, correction, t[i].amount_ucr);
    for (size_t i = linked > 1 ? linked : 0; i < n && rc == RD_OK; i++)
        if ((rc = ledger_stage(st->tx, &t[i], &dup, err)) == RD_OK && !dup)
            billing_tally_add(tally, t[i].kind, correction, t[i].amount_ucr);
    return rc;
}

/* Stages the charges of one span [start, start + seconds). */
static rd_code stage_span(billing_step *st, const json_t *job, size_t w, const json_t *worker, rd_time start,
                          int64_t seconds, billing_tally *tally, rd_err *err)
{
    char ids[3][LEDGER_ID_MAX], accts[3][LEDGER_ACCOUNT_MAX], ref[LEDGER_REF_MAX];
    ledger_transfer t[3];
    size_t linked;
    snprintf(ref, sizeof ref, "job %s worker %zu on %s, %lld s from %lld", doc_str(job, "id"), w, doc_str(worker, "node"),
             (long long)seconds, (long long)start);
    size_t n = span_transfers(job, w, worker, start, seconds, ids, accts, ref, t, &linked);
    return stage_group(st, t, n, linked, 0, tally, err);
}

/* Gives back what the whole hours from `hour` to `billed` cost beyond the
 * span [hour, ended) they should have been, the worker having been reported
 * ended at `ended` after a run billed past it.  Posted transfers are never
 * edited: each part (usage fee; the rental's host and platform parts; the
 * federated fee) gets one correcting transfer for all those hours, from the
 * account it reached to the one it left, so the step stays the same size
 * however late the report came.  The amounts are the same arithmetic the
 * hours were billed with (their locked price and shares): billed_until on
 * the stored job proves they were posted, as they commit together.  A
 * worker ends once, so its correction ids ("<part>/<job>/<worker>/correction")
 * are posted once. */
static rd_code correct_after_end(billing_step *st, const json_t *job, size_t w, const json_t *worker, rd_time hour,
                                 rd_time ended, rd_time billed, billing_tally *tally, rd_err *err)
{
    char ids[3][LEDGER_ID_MAX], accts[3][LEDGER_ACCOUNT_MAX], ref[LEDGER_REF_MAX], ts[RDTIME_BUFLEN];
    char fids[3][LEDGER_ID_MAX], faccts[3][LEDGER_ACCOUNT_MAX], cids[3][LEDGER_ID_MAX];
    char cdebit[3][LEDGER_ACCOUNT_MAX], ccredit[3][LEDGER_ACCOUNT_MAX];
    ledger_transfer due[3], full[3], fix[3];
    int64_t back[3] = { 0 };
    size_t linked, nfix = 0, fix_linked = 0;
    const char *parts[3] = { NULL, NULL, NULL };   /* the id without its span start, per slot */

    snprintf(ref, sizeof ref, "correction: job %s worker %zu ended at %s; %lld s billed after it", doc_str(job, "id"), w,
             rdtime_format(ended, ts), (long long)(billed - ended));
    for (rd_time h = hour; h < billed; h += 3600) {
        size_t ndue = ended > h ? span_transfers(job, w, worker, h, ended - h, ids, accts, ref, due, &linked) : 0;
        size_t nfull = span_transfers(job, w, worker, h, 3600, fids, faccts, ref, full, &linked);
        /* A span's transfers come in a fixed order (usage or host, platform,
         * federated): the slot is the part, found by kind and credit. */
        for (size_t i = 0; i < nfull; i++) {
            size_t k;
            for (k = 0; k < nfix; k++)
                if (strcmp(fix[k].kind, full[i].kind) == 0 && strcmp(ccredit[k], full[i].debit) == 0 &&
                    strcmp(cdebit[k], full[i].credit) == 0)
                    break;
            if (k == nfix) {
                if (nfix == 3)
                    continue;
                snprintf(cdebit[k], sizeof cdebit[k], "%s", full[i].credit);
                snprintf(ccredit[k], sizeof ccredit[k], "%s", full[i].debit);
                fix[k] = (ledger_transfer){ cids[k], cdebit[k], ccredit[k], 0, full[i].kind, ended, ref };
                parts[k] = strcmp(full[i].kind, "usage_fee") == 0       ? "usage"
                           : strcmp(full[i].kind, "federated_fee") == 0 ? "federated"
                           : strcmp(full[i].credit, "platform") == 0    ? "rental-platform"
                                                                         : "rental-host";
                nfix++;
            }
            back[k] += full[i].amount_ucr;
            for (size_t d = 0; d < ndue; d++)
                if (strcmp(due[d].id, full[i].id) == 0)
                    back[k] -= due[d].amount_ucr;
        }
    }
    size_t n = 0;
    for (size_t k = 0; k < nfix; k++) {
        if (back[k] <= 0)
            continue;
        if (strncmp(parts[k], "rental-", 7) == 0) {
            snprintf(cids[n], sizeof cids[n], "rental/%s/%zu/correction/%s", doc_str(job, "id"), w, parts[k] + 7);
            fix_linked++;
        } else {
            snprintf(cids[n], sizeof cids[n], "%s/%s/%zu/correction", parts[k], doc_str(job, "id"), w);
        }
        fix[n] = fix[k];
        fix[n].id = cids[n];
        fix[n].amount_ucr = back[k];
        n++;
    }
    /* The rental's parts come first and are given back together, as they
     * were posted. */
    return n ? stage_group(st, fix, n, fix_linked > 1 ? fix_linked : 0, 1, tally, err) : RD_OK;
}

static void set_billed(json_t *worker, rd_time billed)
{
    char ts[RDTIME_BUFLEN];
    json_object_set_new(worker, "billed_until", json_string(rdtime_format(billed, ts)));
}

rd_code billing_usage_worker_step(billing_step *st, json_t *job, size_t w, rd_time until, billing_tally *tally,
                                  rd_err *err)
{
    json_t *worker = json_array_get(json_object_get(job, "workers"), w);
    rd_time started = 0, ended = 0, billed = 0;
    int has_end = json_is_string(json_object_get(worker, "ended_at"));
    if (!json_is_string(json_object_get(worker, "started_at")))
        return RD_OK;   /* a worker that never ran costs nothing */
    if (rdtime_parse("started_at", doc_str(worker, "started_at"), &started, err) != RD_OK ||
        (has_end && rdtime_parse("ended_at", doc_str(worker, "ended_at"), &ended, err) != RD_OK))
        return RD_ECORRUPT;
    billed = started;
    if (json_is_string(json_object_get(worker, "billed_until")))
        rdtime_parse("billed_until", doc_str(worker, "billed_until"), &billed, NULL);
    if (billed < started)
        billed = started;
    if (has_end && ended < started)
        ended = started;   /* an end reported before the start: it ran for nothing */
    rd_code rc = RD_OK;
    /* Hours billed past the end (a report that came after a bill run):
     * billed_until only ever stands on an hour from the start here. */
    if (has_end && billed > ended) {
        rc = correct_after_end(st, job, w, worker, started + (ended - started) / 3600 * 3600, ended, billed, tally,
                               err);
        if (rc == RD_OK)
            set_billed(worker, ended);
        return rc;
    }
    rd_time stop = has_end && ended < until ? ended : until;
    /* Whole hours counted from the start, then the partial hour at the end.
     * billed_until moves with each span, so a step committed between two
     * spans stores the job as far as it has been billed. */
    while (rc == RD_OK && billed + 3600 <= stop) {
        if ((rc = stage_span(st, job, w, worker, billed, 3600, tally, err)) == RD_OK)
            set_billed(worker, billed += 3600);
    }
    if (rc == RD_OK && has_end && ended <= until && ended > billed) {
        if ((rc = stage_span(st, job, w, worker, billed, ended - billed, tally, err)) == RD_OK)
            set_billed(worker, billed = ended);
    }
    if (rc == RD_OK)
        set_billed(worker, billed);
    return rc;
}

rd_code billing_usage_worker(rd_tx *tx, json_t *job, size_t w, rd_time until, billing_tally *tally, rd_err *err)
{
    billing_step st;
    rd_code rc = billing_step_init(&st, tx, NULL, NULL, err);
    if (rc == RD_OK)
        rc = billing_usage_worker_step(&st, job, w, until, tally, err);
    billing_step_free(&st);
    return rc;
}

rd_code billing_usage_catch_up(rd_tx *tx, const char *key, json_t *job, const size_t *ws, size_t n, rd_time until,
                               billing_commit_fn commit, void *arg, rd_err *err)
{
    billing_step st;
    rd_code rc = billing_step_init(&st, tx, commit, arg, err);
    if (rc == RD_OK)
        rc = billing_step_room_key(&st, key, err);
    if (rc != RD_OK) {
        billing_step_free(&st);
        return rc;
    }
    billing_step_job(&st, key, job);
    size_t base = json_object_size(st.keys);   /* the job: staging nothing commits nothing */
    for (size_t i = 0; i < n && rc == RD_OK; i++) {
        json_t *worker = json_array_get(json_object_get(job, "workers"), ws[i]);
        if (json_is_string(json_object_get(worker, "started_at")) && !json_is_string(json_object_get(worker, "ended_at")))
            rc = billing_usage_worker_step(&st, job, ws[i], until, NULL, err);
    }
    if (rc == RD_OK && json_object_size(st.keys) > base)
        rc = billing_step_reserve(&st, n * BILLING_END_KEYS, err);
    billing_step_job(&st, NULL, NULL);
    billing_step_free(&st);
    return rc;
}

int billing_usage_due(const json_t *job, rd_time until)
{
    size_t i;
    json_t *w;
    json_array_foreach(json_object_get(job, "workers"), i, w) {
        rd_time billed = 0, ended = 0;
        if (!json_is_string(json_object_get(w, "started_at")))
            continue;
        if (rdtime_parse("billed_until", doc_str(w, "billed_until"), &billed, NULL) != RD_OK)
            return 1;
        if (json_is_string(json_object_get(w, "ended_at"))) {
            if (rdtime_parse("ended_at", doc_str(w, "ended_at"), &ended, NULL) == RD_OK && ended > billed && ended <= until)
                return 1;
        } else if (billed + 3600 <= until) {
            return 1;
        }
    }
    return 0;
}

rd_code billing_usage_post_all(billing_step *st, rd_time until, int64_t *jobs_billed, billing_tally *tally,
                               rd_err *err)
{
    char key[RD_KEY_MAX];
    json_t *jobs = NULL, *j;
    size_t i;
    rd_code rc = tx_list(st->tx, KEY_JOBS, &jobs, err);
    json_array_foreach(jobs, i, j) {
        if (rc != RD_OK)
            break;
        if (!billing_usage_due(j, until))
            continue;
        json_t *job = NULL;
        tx_key(key, KEY_JOBS "%s", doc_str(j, "id"));
        /* Re-read guarded: a job stopped meanwhile has billed its own end. */
        if ((rc = billing_step_room_key(st, key, err)) != RD_OK || (rc = tx_get(st->tx, key, &job, err)) != RD_OK ||
            !job)
            break;
        billing_step_job(st, key, job);
        for (size_t w = 0; rc == RD_OK && w < json_array_size(json_object_get(job, "workers")); w++)
            rc = billing_usage_worker_step(st, job, w, until, tally, err);
        billing_step_job(st, NULL, NULL);
        if (rc == RD_OK) {
            rc = tx_put(st->tx, key, job, err);
            (*jobs_billed)++;
        } else {
            json_decref(job);
        }
    }
    json_decref(jobs);
    return rc;
}
