/* job.h - job documents, shared by job.c (life cycle) and the scheduler (sched_run.c, sched_pass.c). */
#ifndef RD_JOB_H
#define RD_JOB_H

#include <jansson.h>

#include "cmd.h"

/* Reads job id (guarded); RD_ENOTFOUND when missing. */
rd_code job_get(cmd_ctx *ctx, const char *id, json_t **job, rd_err *err);

/* Stages a job document (takes the reference). */
rd_code job_put(cmd_ctx *ctx, json_t *job, rd_err *err);

/* Derives the job's state from its workers' states. */
void job_update_state(json_t *job);

/* Ends worker w (running or waiting) in state `state` at ctx->now and frees
 * what it holds on its node; a no-op for a worker that has ended already. */
rd_code job_end_worker(cmd_ctx *ctx, json_t *job, size_t w, const char *state, rd_err *err);

/* `sched run` (sched_run.c) and `job why` (sched_pass.c). */
rd_code sched_run_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err);
rd_code job_why_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err);

#endif
