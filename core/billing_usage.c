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

#include "billing.h"
#include "billing_step.h"
#include "catalog.h"
#include "ledger.h"

#define FEDERATED_TRAINING_UCR 2650000LL
#define FEDERATED_INFERENCE_UCR 1850000LL

static const char *str(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static int64_t federated_rate(const json_t *job)
{
    const char *type = str(job, "type");
    if (strcmp(str(job, "creator"), str(job, "project_owner")) == 0)
        return 0;
    if (strcmp(type, "training") == 0)
        return FEDERATED_TRAINING_UCR;
    if (strcmp(type, "inference") == 0 || strcmp(type, "endpoint") == 0)
        return FEDERATED_INFERENCE_UCR;
    return 0;   /* notebooks pay no federated fee */
}

static int64_t worker_gpus_x100(const json_t *job)
{
    int64_t x = json_integer_value(json_object_get(json_object_get(job, "resources"), "gpus_x100"));
    return x > 0 ? x : 100;   /* a CPU-only worker pays its hourly price once */
}

/* Stages the charges of one span [start, start + seconds), as one unit of
 * the step (the rental's two parts are a linked group). */
static rd_code stage_span(billing_step *st, const json_t *job, size_t w, const json_t *worker, rd_time start,
                          int64_t seconds, int64_t *posted, rd_err *err)
{
    char ids[3][LEDGER_ID_MAX], payer[LEDGER_ACCOUNT_MAX], host[LEDGER_ACCOUNT_MAX], creator[LEDGER_ACCOUNT_MAX];
    char ref[LEDGER_REF_MAX];
    const char *job_id = str(job, "id");
    int64_t gpus = worker_gpus_x100(job);
    int64_t price = json_integer_value(json_object_get(worker, "price_ucr"));
    const gpu_type *g = catalog_gpu(str(worker, "gpu_type"));
    int64_t fee = g ? g->usage_fee_ucr : 0;
    int64_t paid = billing_span_charge(price, gpus, seconds);
    int64_t fed = billing_span_charge(federated_rate(job), 100, seconds);
    rd_time at = start + seconds;
    ledger_transfer t[3];
    size_t n = 0, linked = 0;   /* t[0..linked) is the rental group when linked > 1 */

    ledger_wallet_id(payer, str(job, "project_owner"));
    snprintf(ref, sizeof ref, "job %s worker %zu on %s, %lld s from %lld", job_id, w, str(worker, "node"),
             (long long)seconds, (long long)start);
    if (json_is_true(json_object_get(worker, "own"))) {
        if (paid > 0) {
            snprintf(ids[n], LEDGER_ID_MAX, "usage/%s/%zu/%lld", job_id, w, (long long)start);
            t[n] = (ledger_transfer){ ids[n], payer, "platform", paid, "usage_fee", at, ref };
            n++;
        }
    } else if (paid > 0) {
        int64_t host_part = billing_host_share(price, fee, gpus, seconds);
        ledger_earnings_id(host, str(worker, "host"));
        /* Zero parts are not transfers; the group is whatever is left. */
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
        linked = n;
    }
    if (fed > 0) {
        ledger_wallet_id(creator, str(job, "creator"));
        snprintf(ids[n], LEDGER_ID_MAX, "federated/%s/%zu/%lld", job_id, w, (long long)start);
        t[n] = (ledger_transfer){ ids[n], creator, "platform", fed, "federated_fee", at, ref };
        n++;
    }
    rd_code rc = billing_step_room_transfers(st, t, n, err);
    if (rc == RD_OK && linked > 1)
        rc = ledger_stage_linked(st->tx, t, linked, NULL, err);
    for (size_t i = linked > 1 ? linked : 0; i < n && rc == RD_OK; i++)
        rc = ledger_stage(st->tx, &t[i], NULL, err);
    if (rc == RD_OK)
        *posted += paid + fed;
    return rc;
}

static void set_billed(json_t *worker, rd_time billed)
{
    char ts[RDTIME_BUFLEN];
    json_object_set_new(worker, "billed_until", json_string(rdtime_format(billed, ts)));
}

rd_code billing_usage_worker_step(billing_step *st, json_t *job, size_t w, rd_time until, int64_t *posted,
                                  rd_err *err)
{
    json_t *worker = json_array_get(json_object_get(job, "workers"), w);
    rd_time started = 0, ended = 0, billed = 0;
    int has_end = json_is_string(json_object_get(worker, "ended_at"));
    int64_t local = 0;
    if (!posted)
        posted = &local;
    if (!json_is_string(json_object_get(worker, "started_at")))
        return RD_OK;   /* a worker that never ran costs nothing */
    if (rdtime_parse("started_at", str(worker, "started_at"), &started, err) != RD_OK ||
        (has_end && rdtime_parse("ended_at", str(worker, "ended_at"), &ended, err) != RD_OK))
        return RD_ECORRUPT;
    billed = started;
    if (json_is_string(json_object_get(worker, "billed_until")))
        rdtime_parse("billed_until", str(worker, "billed_until"), &billed, NULL);
    if (billed < started)
        billed = started;
    rd_time stop = has_end && ended < until ? ended : until;
    rd_code rc = RD_OK;
    /* Whole hours counted from the start, then the partial hour at the end.
     * billed_until moves with each span, so a step committed between two
     * spans stores the job as far as it has been billed. */
    while (rc == RD_OK && billed + 3600 <= stop) {
        if ((rc = stage_span(st, job, w, worker, billed, 3600, posted, err)) == RD_OK)
            set_billed(worker, billed += 3600);
    }
    if (rc == RD_OK && has_end && ended <= until && ended > billed) {
        if ((rc = stage_span(st, job, w, worker, billed, ended - billed, posted, err)) == RD_OK)
            set_billed(worker, billed = ended);
    }
    if (rc == RD_OK)
        set_billed(worker, billed);
    return rc;
}

rd_code billing_usage_worker(rd_tx *tx, json_t *job, size_t w, rd_time until, int64_t *posted, rd_err *err)
{
    billing_step st;
    rd_code rc = billing_step_init(&st, tx, NULL, NULL, err);
    if (rc == RD_OK)
        rc = billing_usage_worker_step(&st, job, w, until, posted, err);
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
        if (rdtime_parse("billed_until", str(w, "billed_until"), &billed, NULL) != RD_OK)
            return 1;
        if (json_is_string(json_object_get(w, "ended_at"))) {
            if (rdtime_parse("ended_at", str(w, "ended_at"), &ended, NULL) == RD_OK && ended > billed && ended <= until)
                return 1;
        } else if (billed + 3600 <= until) {
            return 1;
        }
    }
    return 0;
}

rd_code billing_usage_post_all(billing_step *st, rd_time until, int64_t *jobs_billed, int64_t *posted, rd_err *err)
{
    char key[RD_KEY_MAX];
    json_t *jobs = NULL, *j;
    size_t i;
    rd_code rc = tx_list(st->tx, "/rigdeck/jobs/", &jobs, err);
    json_array_foreach(jobs, i, j) {
        if (rc != RD_OK)
            break;
        if (!billing_usage_due(j, until))
            continue;
        json_t *job = NULL;
        tx_key(key, "/rigdeck/jobs/%s", str(j, "id"));
        /* Re-read guarded: a job stopped meanwhile has billed its own end. */
        if ((rc = billing_step_room_key(st, key, err)) != RD_OK || (rc = tx_get(st->tx, key, &job, err)) != RD_OK ||
            !job)
            break;
        billing_step_job(st, key, job);
        for (size_t w = 0; rc == RD_OK && w < json_array_size(json_object_get(job, "workers")); w++)
            rc = billing_usage_worker_step(st, job, w, until, posted, err);
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
