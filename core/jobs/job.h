/* job.h - job documents (job.c), shared by the job commands (job_cmd.c,
 * job_why.c) and the scheduler (sched_run.c). */
#ifndef RD_JOB_H
#define RD_JOB_H

#include <jansson.h>

#include "cmd.h"
#include "job_state.h"

/* Reads job id (guarded); RD_ENOTFOUND when missing. */
rd_code job_get(cmd_ctx *ctx, const char *id, json_t **job, rd_err *err);

/* job_get for a job the actor may see (access_actor_sees_job); another
 * tenant's job is answered exactly like a missing one. */
rd_code job_get_visible(cmd_ctx *ctx, const char *id, json_t **job, rd_err *err);

/* Stages a job document (takes the reference). */
rd_code job_put(cmd_ctx *ctx, json_t *job, rd_err *err);

/* Derives the job's state from its workers' states. */
void job_update_state(json_t *job);

/* Ends worker w (running, stopping, starting or waiting) in state `state`
 * at ctx->now and frees what it holds on its node; a no-op for a worker that
 * has ended already.  What it still owes is posted in the caller's
 * transaction: job_bill_hours first, for a worker whose whole hours may be
 * unbilled.  A worker that never started ends `canceled` when
 * asked to stop, and owes nothing. */
rd_code job_end_worker(cmd_ctx *ctx, json_t *job, size_t w, const char *state, rd_err *err);

/* The same with the moment it ended (an agent's report of its exit); a
 * moment after ctx->now counts as ctx->now, one before its start as the
 * start.  Billing covers started_at to that end exactly. */
rd_code job_end_worker_at(cmd_ctx *ctx, json_t *job, size_t w, const char *state, rd_time at, rd_err *err);

/* Posts, in steps each committed with the job as billed so far, the whole
 * hours that workers ws[0..n) of job have run by `until` and that are not
 * billed yet, so that ending them afterwards (job_end_worker*) takes one
 * small transaction however long they went unbilled (etcd takes at most
 * 128 ops in one).  Call it before changing anything else in job; the
 * workers stay as they are (see job.c for why). */
rd_code job_bill_hours(cmd_ctx *ctx, json_t *job, const size_t *ws, size_t n, rd_time until, rd_err *err);

/* Asks worker w to stop: one an agent runs turns `stopping` (the agent
 * signals it and reports its end); any other ends now (job_end_worker). */
rd_code job_stop_worker(cmd_ctx *ctx, json_t *job, size_t w, rd_err *err);

/* Puts a `starting` worker (placed, its process not started) back in the
 * queue, freeing its node; other workers are left alone. */
rd_code job_requeue_worker(cmd_ctx *ctx, json_t *job, size_t w, rd_err *err);

/* Gives a `starting` worker back to the queue because its node cannot
 * start it (its agent's word, e.g. reason disk_full), and takes that node
 * out of service with the reason (node_take_out), in one transaction: the
 * worker is never billed and is not placed there again. */
rd_code job_give_back_worker(cmd_ctx *ctx, json_t *job, size_t w, const char *reason, const char *detail,
                             rd_err *err);

/* A worker the books took as started (placed `running` on a node no agent
 * ran) whose node's agent registers now: nobody ever started its process.
 * Unbilled, it turns `starting` again for the agent to start (billing
 * starts when it reports running: *outcome "handed"); with hours billed
 * for nothing it ends `failed`, reason `not_started`, at its start, and
 * every hour is given back (*outcome "failed").  Any other worker is left
 * alone (*outcome NULL). */
rd_code job_hand_to_agent(cmd_ctx *ctx, json_t *job, size_t w, const char **outcome, rd_err *err);

/* 1 when the worker's process was started by a node agent. */
int job_worker_run_by_agent(const json_t *worker);

/* RD_OK when the acting account may act on job: its creator, the project's
 * owner or an administrator; else RD_EPERM naming `what`. */
rd_code job_require_actor(cmd_ctx *ctx, const json_t *job, const char *what, rd_err *err);

/* Platform failures (job_platform.c, spec/execution.md §4): the reasons
 * a worker that never started ends with (image_pull_failed, runtime_error,
 * staging_failed); one on node_name, counted when the node's side
 * reported it (its agent, staff), taking the node out of service with
 * maintenance_reason `runtime` at JOB_PLATFORM_FAILURES_MAX in a row; a
 * worker that starts there resets the count.  Both stage the node. */
#define JOB_PLATFORM_FAILURES_MAX 3
int job_reason_is_platform(const char *reason);
rd_code job_platform_failed(cmd_ctx *ctx, const char *node_name, const char *message, rd_err *err);
rd_code job_platform_started(cmd_ctx *ctx, const char *node_name, rd_err *err);

#endif
