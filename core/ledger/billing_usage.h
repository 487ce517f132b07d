/* billing_usage.h - worker usage charges (see billing_usage.c). */
#ifndef RD_BILLING_USAGE_H
#define RD_BILLING_USAGE_H

#include <jansson.h>
#include <stdint.h>

#include "billing_step.h"
#include "rdtime.h"
#include "tx.h"

/* The federated fee per worker-hour a job of type created by `creator` in
 * a project of `owner` pays (µcr; 0: none, as for notebooks or the owner's
 * own jobs).  The creator pays it, so a job with a nonzero rate has two
 * paying accounts. */
int64_t billing_federated_rate(const char *type, const char *creator, const char *owner);

/* What a run staged, per kind: transfers newly posted and their µcr
 * (a linked rental counts its parts).  Corrections give back hours billed
 * past a worker's reported end, whatever their kind. */
typedef struct {
    int64_t usage_fees, usage_fees_ucr;
    int64_t gpu_rentals, gpu_rentals_ucr;
    int64_t federated_fees, federated_fees_ucr;
    int64_t corrections, corrections_ucr;
} billing_tally;

/* Counts one transfer of kind (or a correction) in tally (may be NULL). */
void billing_tally_add(billing_tally *tally, const char *kind, int correction, int64_t amount);

/* Stages every charge of worker w of job due at or before `until` (whole
 * hours from its start; the partial hour once it has ended) and advances
 * the worker's "billed_until" in job (the caller stores job in the same tx).
 * A worker that ended before what was billed gets those hours corrected
 * (never edited: correcting transfers).  tally (may be NULL) counts what
 * was staged. */
rd_code billing_usage_worker(rd_tx *tx, json_t *job, size_t w, rd_time until, billing_tally *tally, rd_err *err);

/* The same within a bill run's steps: may commit between two spans (never
 * within one), storing job as far as it has been billed; st names job. */
rd_code billing_usage_worker_step(billing_step *st, json_t *job, size_t w, rd_time until, billing_tally *tally,
                                  rd_err *err);

/* What ending one worker adds to a transaction beyond its whole hours, in
 * keys: its node, and the last span's (or the correction's) transfers with
 * their accounts, the accounts' owners and index entries. */
#define BILLING_END_KEYS 16

/* Posts the whole hours the workers ws[0..n) of job (stored at key) have
 * run by `until` and that are not billed yet, before the caller ends them:
 * in steps of at most BILLING_STEP_KEYS keys, each committed through commit
 * with job as billed so far (billed_until advanced, nothing else changed),
 * and a last commit when what is left could not also take n ends
 * (BILLING_END_KEYS each).  The caller then ends the workers in the
 * transaction tx holds: their last span and their state in one commit.
 * Workers that have ended or never started are skipped.  job is re-read
 * (guarded) after each commit and must not have changed meanwhile, else
 * RD_ECONFLICT (the caller's command starts over). */
rd_code billing_usage_catch_up(rd_tx *tx, const char *key, json_t *job, const size_t *ws, size_t n, rd_time until,
                               billing_commit_fn commit, void *arg, rd_err *err);

/* Stages the charges of every job with something due at or before until
 * (and the jobs' advanced billed_until), in st's steps.  Counts jobs, and
 * the transfers staged in tally. */
rd_code billing_usage_post_all(billing_step *st, rd_time until, int64_t *jobs_billed, billing_tally *tally,
                               rd_err *err);

/* 1 when some worker of job has a charge due at or before until. */
int billing_usage_due(const json_t *job, rd_time until);

#endif
