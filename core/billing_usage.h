/* billing_usage.h - worker usage charges (see billing_usage.c). */
#ifndef RD_BILLING_USAGE_H
#define RD_BILLING_USAGE_H

#include <jansson.h>
#include <stdint.h>

#include "billing_step.h"
#include "rdtime.h"
#include "tx.h"

/* Stages every charge of worker w of job due at or before `until` (whole
 * hours from its start; the partial hour once it has ended) and advances
 * the worker's "billed_until" in job (the caller stores job in the same tx).
 * *posted (may be NULL) adds the amounts staged. */
rd_code billing_usage_worker(rd_tx *tx, json_t *job, size_t w, rd_time until, int64_t *posted, rd_err *err);

/* The same within a bill run's steps: may commit between two spans (never
 * within one), storing job as far as it has been billed; st names job. */
rd_code billing_usage_worker_step(billing_step *st, json_t *job, size_t w, rd_time until, int64_t *posted,
                                  rd_err *err);

/* Stages the charges of every job with something due at or before until
 * (and the jobs' advanced billed_until), in st's steps.  Counts jobs and
 * µcr staged. */
rd_code billing_usage_post_all(billing_step *st, rd_time until, int64_t *jobs_billed, int64_t *posted, rd_err *err);

/* 1 when some worker of job has a charge due at or before until. */
int billing_usage_due(const json_t *job, rd_time until);

#endif
