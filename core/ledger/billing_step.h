/* billing_step.h - committing a long bill run in bounded steps.
 *
 * etcd refuses a txn of more than 128 compares or 128 ops, so a bill run
 * that posts many transfers commits as it goes: each step holds whole
 * groups of transfers (a span's charges, a device fee, a payout; a linked
 * group is never split) and touches at most BILLING_STEP_KEYS keys, so it
 * stays under the limit with room for the audit record and the backend's
 * retry marker.  Every transfer id is read before it is staged, so a crash
 * between two steps leaves nothing half-posted and the next run posts
 * exactly what is missing.
 */
#ifndef RD_BILLING_STEP_H
#define RD_BILLING_STEP_H

#include <jansson.h>
#include <stddef.h>

#include "err.h"
#include "ledger.h"
#include "tx.h"

#define BILLING_STEP_KEYS 100

/* Commits what the transaction holds (with its audit record) and resets it;
 * RD_ECONFLICT when nothing of the step was written. */
typedef rd_code (*billing_commit_fn)(void *arg, rd_err *err);

typedef struct {
    rd_tx *tx;
    billing_commit_fn commit;   /* NULL: everything goes into one transaction */
    void *arg;
    size_t max_keys;
    json_t *keys;               /* the keys this step has touched (a set) */
    char job_key[RD_KEY_MAX];   /* the job being billed ("" none): written before each commit */
    json_t *job;                /* borrowed */
    size_t commits;             /* steps committed so far */
} billing_step;

/* Starts a stepper over tx; commit NULL keeps one transaction.  RD_ENOMEM. */
rd_code billing_step_init(billing_step *s, rd_tx *tx, billing_commit_fn commit, void *arg, rd_err *err);

/* Frees what the stepper holds (not the tx). */
void billing_step_free(billing_step *s);

/* Makes room in the current step for the keys in want (a set, which is
 * merged in): when they would take it past max_keys, commits first.  After
 * a commit the job being billed is read again (guarded) and must be what
 * was written, else RD_ECONFLICT (someone changed it; the run starts over). */
rd_code billing_step_room(billing_step *s, json_t *want, rd_err *err);

/* Room for one key (a guarded read or a write of it). */
rd_code billing_step_room_key(billing_step *s, const char *key, rd_err *err);

/* Room for staging the group t[0..n-1]. */
rd_code billing_step_room_transfers(billing_step *s, const ledger_transfer *t, size_t n, rd_err *err);

/* Room for n keys the caller will add to the transaction after the step
 * (not named yet): commits first when the step could not also take them. */
rd_code billing_step_reserve(billing_step *s, size_t n, rd_err *err);

/* Names the job document being billed, written at key before each commit;
 * NULL job: none. */
void billing_step_job(billing_step *s, const char *key, json_t *job);

#endif
