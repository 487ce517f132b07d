/* job.c - a job's document and its workers' ends.
 *
 * A job document (/rigdeck/jobs/<id>) is the normalised spec (jobspec.c)
 * plus who submitted it into which project and one entry per worker.  A
 * worker waits (`waiting_gpus`, node null, costing nothing) until a pass of
 * `sched run` places it on the best eligible node (sched_run.c); the price
 * per GPU-hour is locked then.  This file owns reading and writing the
 * document, deriving the job's state from its workers, and ending a worker
 * (freeing its node's capacity and posting what it still owes).  The
 * commands are job_cmd.c's; `job why` is sched/job_why.c's; the state words
 * are model/job_state.c's.
 */
#include "job.h"

#include <stdio.h>
#include <string.h>

#include "access.h"
#include "account.h"
#include "billing_usage.h"
#include "doc.h"
#include "fleet.h"
#include "keyspace.h"
#include "names.h"
#include "node.h"
#include "node_capacity.h"

static const char *job_key(char buf[RD_KEY_MAX], const char *id)
{
    return tx_key(buf, KEY_JOBS "%s", id);
}

rd_code job_get(cmd_ctx *ctx, const char *id, json_t **job, rd_err *err)
{
    char key[RD_KEY_MAX];
    rd_code rc = names_check("job id", id, err);
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, job_key(key, id), job, err);
    if (rc == RD_OK && !*job)
        rc = rd_fail(err, RD_ENOTFOUND, "job '%s' does not exist", id);
    return rc;
}

rd_code job_put(cmd_ctx *ctx, json_t *job, rd_err *err)
{
    char key[RD_KEY_MAX];
    return tx_put(ctx->tx, job_key(key, doc_str(job, "id")), job, err);
}

void job_update_state(json_t *job)
{
    size_t i, running = 0, waiting = 0, started = 0, failed = 0, stopped = 0, canceled = 0, n;
    json_t *w;
    json_t *workers = json_object_get(job, "workers");
    n = json_array_size(workers);
    json_array_foreach(workers, i, w) {
        const char *s = doc_str(w, "state");
        /* a worker being stopped still runs; one placed on an agent's node
         * waits until its process starts */
        running += strcmp(s, "running") == 0 || strcmp(s, "stopping") == 0;
        waiting += strcmp(s, "waiting_gpus") == 0 || strcmp(s, "starting") == 0;
        failed += strcmp(s, "failed") == 0;
        stopped += strcmp(s, "stopped") == 0;
        canceled += strcmp(s, "canceled") == 0;
        started += !json_is_null(json_object_get(w, "started_at")) && json_object_get(w, "started_at");
    }
    const char *state;
    if (running)
        state = *doc_str(job, "stop_requested_at") ? "stopping" : "running";
    else if (waiting)
        state = started ? "running" : "waiting_gpus";
    else if (failed)
        state = "failed";
    else if (stopped)
        state = "stopped";
    else if (canceled == n)
        state = "canceled";
    else
        state = "finished";
    json_object_set_new(job, "state", json_string(state));
}

/* ---- ending workers ---------------------------------------------------- */

int job_worker_run_by_agent(const json_t *worker)
{
    return json_is_true(json_object_get(worker, "run_by_agent"));
}

/* Frees what worker w holds on its node. */
static rd_code release_node(cmd_ctx *ctx, json_t *job, size_t w, rd_err *err)
{
    json_t *worker = json_array_get(json_object_get(job, "workers"), w), *node = NULL;
    rd_code rc = node_get_any(ctx, doc_str(worker, "node"), &node, err);
    if (rc != RD_OK)
        return rc;
    node_capacity_release(node, job, w, ctx->now);
    return node_put(ctx, node, err);
}

static rd_code commit_step(void *ctx, rd_err *err)
{
    return cmd_commit_step(ctx, err);
}

/* Posting a worker's unbilled hours before its end, in steps.  A worker is
 * never shown ended before every hour it ran is posted: the steps commit
 * the hours with the job as billed so far (billed_until advanced, the
 * worker still running), and only the end itself (its last partial span,
 * its node freed, its state) commits the worker's end.  A crash between two
 * steps leaves a running worker billed part of the way, which whoever ends
 * it next (the same report or stop again, agent check, bill run) takes up
 * where it stood; the ids make an hour posted twice a no-op.  The other
 * choice, storing the end first and leaving the rest to bill run, would
 * show a worker ended whose books are not closed, and a job stop that
 * answers before its charges exist. */
rd_code job_bill_hours(cmd_ctx *ctx, json_t *job, const size_t *ws, size_t n, rd_time until, rd_err *err)
{
    char key[RD_KEY_MAX];
    return billing_usage_catch_up(ctx->tx, job_key(key, doc_str(job, "id")), job, ws, n, until, commit_step, ctx, err);
}

rd_code job_end_worker_at(cmd_ctx *ctx, json_t *job, size_t w, const char *state, rd_time at, rd_err *err)
{
    json_t *worker = json_array_get(json_object_get(job, "workers"), w);
    const char *cur = doc_str(worker, "state");
    char ts[RDTIME_BUFLEN];
    if (job_state_ended(cur))
        return RD_OK;
    if (strcmp(cur, "running") == 0 || strcmp(cur, "stopping") == 0) {
        rd_code rc = release_node(ctx, job, w, err);
        if (rc != RD_OK)
            return rc;
        /* An end reported before the start (a clock behind) ran for nothing;
         * one after the command's clock has not happened yet. */
        rd_time started = at;
        rdtime_parse("started_at", doc_str(worker, "started_at"), &started, NULL);
        if (at > ctx->now)
            at = ctx->now;
        json_object_set_new(worker, "ended_at", json_string(rdtime_format(at > started ? at : started, ts)));
        /* Whatever the worker still owes (whole hours not yet billed and the
         * partial hour) is posted with the end, in the same transaction. */
        if ((rc = billing_usage_worker(ctx->tx, job, w, ctx->now, NULL, err)) != RD_OK)
            return rc;
    } else if (strcmp(cur, "starting") == 0) {
        /* placed but never started: it holds its node, it owes nothing */
        rd_code rc = release_node(ctx, job, w, err);
        if (rc != RD_OK)
            return rc;
        if (strcmp(state, "stopped") == 0)
            state = "canceled";
    } else if (strcmp(state, "stopped") == 0) {
        state = "canceled";   /* a worker that never started is canceled, not stopped */
    }
    /* A worker that never ran has no ended_at; when it stopped waiting is
     * what `report rent-vs-buy` counts as its wait (report_jobs.c). */
    if (!json_is_string(json_object_get(worker, "started_at")))
        json_object_set_new(worker, "canceled_at", json_string(rdtime_format(ctx->now, ts)));
    json_object_set_new(worker, "state", json_string(state));
    return RD_OK;
}

rd_code job_end_worker(cmd_ctx *ctx, json_t *job, size_t w, const char *state, rd_err *err)
{
    return job_end_worker_at(ctx, job, w, state, ctx->now, err);
}

rd_code job_stop_worker(cmd_ctx *ctx, json_t *job, size_t w, rd_err *err)
{
    json_t *worker = json_array_get(json_object_get(job, "workers"), w);
    char ts[RDTIME_BUFLEN];
    if (strcmp(doc_str(worker, "state"), "running") == 0 && job_worker_run_by_agent(worker)) {
        /* its agent sends SIGTERM (SIGKILL 10 s later) and reports the end */
        json_object_set_new(worker, "state", json_string("stopping"));
        json_object_set_new(worker, "stop_requested_at", json_string(rdtime_format(ctx->now, ts)));
        return RD_OK;
    }
    if (strcmp(doc_str(worker, "state"), "stopping") == 0)
        return RD_OK;
    return job_end_worker(ctx, job, w, "stopped", err);
}

rd_code job_requeue_worker(cmd_ctx *ctx, json_t *job, size_t w, rd_err *err)
{
    json_t *worker = json_array_get(json_object_get(job, "workers"), w);
    if (strcmp(doc_str(worker, "state"), "starting") != 0)
        return RD_OK;
    rd_code rc = release_node(ctx, job, w, err);
    if (rc != RD_OK)
        return rc;
    static const char *const cleared[] = { "node", "gpu_type", "price_ucr", "region", "host", "placed_at" };
    for (size_t i = 0; i < sizeof cleared / sizeof cleared[0]; i++)
        json_object_set_new(worker, cleared[i], json_null());
    json_object_set_new(worker, "alloc", json_array());
    json_object_del(worker, "own");
    json_object_del(worker, "serving");   /* where it served there (job_connect.c) */
    json_object_set_new(worker, "state", json_string("waiting_gpus"));
    return RD_OK;
}

rd_code job_give_back_worker(cmd_ctx *ctx, json_t *job, size_t w, const char *reason, const char *detail, rd_err *err)
{
    json_t *worker = json_array_get(json_object_get(job, "workers"), w), *node = NULL;
    char name[128];
    snprintf(name, sizeof name, "%s", doc_str(worker, "node"));
    rd_code rc = job_requeue_worker(ctx, job, w, err);
    if (rc == RD_OK)
        rc = node_get_any(ctx, name, &node, err);   /* as the requeue left it */
    if (rc != RD_OK)
        return rc;
    node_take_out(node, reason, detail, ctx->now);
    return node_put(ctx, node, err);
}

rd_code job_hand_to_agent(cmd_ctx *ctx, json_t *job, size_t w, const char **outcome, rd_err *err)
{
    json_t *worker = json_array_get(json_object_get(job, "workers"), w);
    rd_time started = 0, billed = 0;
    *outcome = NULL;
    if (strcmp(doc_str(worker, "state"), "running") != 0 || job_worker_run_by_agent(worker))
        return RD_OK;
    if (rdtime_parse("started_at", doc_str(worker, "started_at"), &started, err) != RD_OK)
        return RD_ECORRUPT;
    billed = started;
    if (json_is_string(json_object_get(worker, "billed_until")))
        rdtime_parse("billed_until", doc_str(worker, "billed_until"), &billed, NULL);
    if (billed <= started) {
        /* nothing posted: the run the agent starts is the only one billed */
        json_object_set_new(worker, "state", json_string("starting"));
        json_object_set_new(worker, "started_at", json_null());
        json_object_set_new(worker, "billed_until", json_null());
        *outcome = "handed";
        return RD_OK;
    }
    /* Hours were posted for a run that never was: ended at its start, the
     * end's billing gives them all back (correcting transfers). */
    json_object_set_new(worker, "reason", json_string("not_started"));
    *outcome = "failed";
    return job_end_worker_at(ctx, job, w, "failed", started, err);
}

rd_code job_get_visible(cmd_ctx *ctx, const char *id, json_t **job, rd_err *err)
{
    rd_code rc = job_get(ctx, id, job, err);
    if (rc == RD_OK && !access_actor_sees_job(ctx, *job)) {
        json_decref(*job);
        *job = NULL;
        rc = rd_fail(err, RD_ENOTFOUND, "job '%s' does not exist", id);   /* word for word job_get's */
    }
    return rc;
}

/* Who may act on a job: its creator, the project's owner, an administrator. */
rd_code job_require_actor(cmd_ctx *ctx, const json_t *job, const char *what, rd_err *err)
{
    if (strcmp(doc_str(job, "creator"), ctx->actor) == 0 || strcmp(doc_str(job, "project_owner"), ctx->actor) == 0 ||
        access_actor_is_admin(ctx))
        return RD_OK;
    return rd_fail(err, RD_EPERM, "%s: job '%s' belongs to project %s/%s; account '%s' did not create it", what,
                   doc_str(job, "id"), doc_str(job, "project_owner"), doc_str(job, "project"), ctx->actor);
}

