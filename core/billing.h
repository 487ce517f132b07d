/* billing.h - what is charged, exactly, and `bill run`'s posting of it.
 *
 * Owns the money arithmetic of spec/billing.md (integer µcr, one rounding
 * per charge, half away from zero, no floating point), the daily device fee
 * and payout, and the billing cursor /rigdeck/billing/cursor.  Worker usage
 * charges (usage fee, GPU rental, federated fee) are added with the
 * scheduler; see the hook in billing_run().
 */
#ifndef RD_BILLING_H
#define RD_BILLING_H

#include <jansson.h>
#include <stdint.h>

#include "billing_step.h"
#include "err.h"
#include "rdtime.h"
#include "tx.h"

#define BILLING_DAY 86400
#define BILLING_DEVICE_FEE_UCR 15000000LL   /* 15 credits per device per month */
#define BILLING_CURSOR_KEY "/rigdeck/billing/cursor"

/* What a span costs: rate (µcr per GPU-hour) × GPUs (hundredths) × seconds
 * / 3600, rounded once.  Never negative for non-negative inputs. */
int64_t billing_span_charge(int64_t rate_ucr_per_hour, int64_t gpus_x100, int64_t seconds);

/* The host's part of a span on someone else's capacity (billing.md rule 2):
 * round((price - usage_fee) × GPUs × seconds / 7200); 0 when the price does
 * not exceed the fee.  The platform gets billing_span_charge(price, ...)
 * minus this, so the parts add up to what the customer paid. */
int64_t billing_host_share(int64_t price_ucr, int64_t usage_fee_ucr, int64_t gpus_x100, int64_t seconds);

/* One day's device fee: 15 credits × devices / days_in_month, rounded. */
int64_t billing_device_fee(int64_t devices, int days_in_month);

/* 00:00 UTC of t's day. */
rd_time billing_day_start(rd_time t);

/* Days in the UTC month of t (28..31). */
int billing_days_in_month(rd_time t);

/* "YYYY-MM-DD" of t's UTC day into buf (11 bytes). */
char *billing_day_name(rd_time t, char buf[11]);

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
