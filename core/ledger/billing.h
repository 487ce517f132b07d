/* billing.h - `bill run`'s posting of what is owed (billing.c): worker
 * usage (billing_usage.c), the daily device fee and payout, and the billing
 * cursor /rigdeck/billing/cursor.  The arithmetic is billing_math.h's.
 */
#ifndef RD_BILLING_H
#define RD_BILLING_H

#include <jansson.h>
#include <stdint.h>

#include "billing_math.h"
#include "billing_step.h"
#include "err.h"
#include "keyspace.h"
#include "rdtime.h"
#include "tx.h"

#define BILLING_CURSOR_KEY KEY_BILLING_CURSOR

/* The devices counted for the UTC day starting at day (billing.md rule 4):
 * those configured at 00:00 (added before, not removed by then) plus every
 * addition during the day.  tenures: device tenure records
 * {added_at, removed_at|null} of one account. */
int64_t billing_devices_on_day(const json_t *tenures, rd_time day);

/* Posts every usage charge, device fee and payout due at or before `until`
 * into tx.  With commit (see billing_step.h) it commits in steps of at most
 * BILLING_STEP_KEYS keys, each a whole number of transfer groups, and the
 * caller commits the last step; with commit NULL everything stays in tx for
 * the caller to commit.  Idempotent: every transfer id is derived from what
 * it pays for and read before it is staged, so a second run, a concurrent
 * one (its commit conflicts and its retry finds the transfers) or one after
 * a crash between steps posts nothing twice.  *result: {"until", "device_fees",
 * "device_fees_ucr", "payouts", "payouts_ucr", "posted", "already_posted",
 * "items": [the transfers posted]}. */
rd_code billing_run(rd_tx *tx, rd_time until, billing_commit_fn commit, void *arg, json_t **result, rd_err *err);

#endif
