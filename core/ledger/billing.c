/* billing.c - `bill run`: posting worker usage (billing_usage.c), device
 * fees and payouts.
 *
 * The arithmetic is billing_math.c's.  Transfers are posted by
 * billing_run() under ids derived from what they pay for:
 *   device_fee/<account>/<YYYY-MM-DD>   the day's fee, at the day's end
 *   payout/<account>/<YYYY-MM-DD>       earnings before 00:00 of that day
 * The cursor (/rigdeck/billing/cursor) only saves re-reading old days;
 * correctness comes from the ids, which are read (guarded) before staging.
 */
#include "billing.h"


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "billing_math.h"
#include "billing_step.h"
#include "billing_usage.h"
#include "cmd.h"
#include "keyspace.h"
#include "ledger.h"

static int time_field(const json_t *doc, const char *field, rd_time *t)
{
    const char *s = json_string_value(json_object_get(doc, field));
    return s && rdtime_parse(field, s, t, NULL) == RD_OK;
}

int64_t billing_devices_on_day(const json_t *tenures, rd_time day)
{
    rd_time end = day + BILLING_DAY;
    int64_t n = 0;
    size_t i;
    json_t *t;
    json_array_foreach(tenures, i, t) {
        rd_time added, removed;
        if (!time_field(t, "added_at", &added) || added >= end)
            continue;
        if (added >= day)
            n++;   /* every addition during the day is a device of that day */
        else if (!time_field(t, "removed_at", &removed) || removed > day)
            n++;   /* configured when the day began */
    }
    return n;
}

/* ---- bill run ---------------------------------------------------------- */

typedef struct {
    rd_tx *tx;
    billing_step step;     /* the run's bounded commits */
    json_t *by_owner;      /* owner -> [tenure records] */
    json_t *items;         /* transfers posted by this run */
    int64_t fees, fees_ucr, payouts, payouts_ucr, already;
} bill_state;

static const char *day_field(const json_t *cursor, const char *field)
{
    return json_string_value(json_object_get(cursor, field));
}

/* The day after the cursor's day, or `fallback` when there is none. */
static rd_time after_cursor(const json_t *cursor, const char *field, rd_time fallback)
{
    char ts[RDTIME_BUFLEN];
    rd_time t;
    const char *day = day_field(cursor, field);
    if (!day)
        return fallback;
    snprintf(ts, sizeof ts, "%.10sT00:00:00Z", day);
    return rdtime_parse(field, ts, &t, NULL) == RD_OK ? t + BILLING_DAY : fallback;
}

/* Stages t unless its id exists (then it counts as already posted). */
static rd_code post_once(bill_state *b, const ledger_transfer *t, rd_err *err)
{
    json_t *old = NULL;
    rd_code rc = billing_step_room_transfers(&b->step, t, 1, err);
    if (rc == RD_OK)
        rc = ledger_transfer_get(b->tx, t->id, &old, err);
    if (rc == RD_OK && old) {
        /* Posted by an earlier run: final, even if its inputs were edited
         * since (a backdated device, a late charge). */
        b->already++;
    } else if (rc == RD_OK) {
        rc = ledger_stage(b->tx, t, NULL, err);
        if (rc == RD_OK)
            rc = ledger_transfer_get(b->tx, t->id, &old, err);
        if (rc == RD_OK)
            json_array_append(b->items, old);
    }
    json_decref(old);
    return rc;
}

/* Device fees for the UTC day starting at `day`, one transfer per account. */
static rd_code post_device_fees(bill_state *b, rd_time day, rd_err *err)
{
    const char *owner;
    json_t *tenures;
    rd_code rc = RD_OK;
    int dim = billing_days_in_month(day);
    json_object_foreach(b->by_owner, owner, tenures) {
        int64_t devices = billing_devices_on_day(tenures, day);
        if (devices == 0)
            continue;
        char id[LEDGER_ID_MAX + 1], ref[LEDGER_REF_MAX], wallet[LEDGER_ACCOUNT_MAX], dname[11];
        billing_day_name(day, dname);
        snprintf(id, sizeof id, "device_fee/%s/%s", owner, dname);
        snprintf(ref, sizeof ref, "%lld device%s on %s: 15 x %lld / %d days", (long long)devices,
                 devices == 1 ? "" : "s", dname, (long long)devices, dim);
        ledger_transfer t = { id, ledger_wallet_id(wallet, owner), "platform", billing_device_fee(devices, dim),
                              "device_fee", day + BILLING_DAY, ref };
        int64_t before = (int64_t)json_array_size(b->items);
        if ((rc = post_once(b, &t, err)) != RD_OK)
            break;
        if ((int64_t)json_array_size(b->items) > before) {
            b->fees++;
            b->fees_ucr += t.amount_ucr;
        }
    }
    return rc;
}

/* Payouts at 00:00 of `day`: each account's earnings before then move to
 * its wallet (payment mode credits, the only one so far). */
static rd_code post_payouts(bill_state *b, rd_time day, rd_err *err)
{
    json_t *accounts = NULL, *a;
    size_t i;
    rd_code rc = tx_list(b->tx, LEDGER_ACCOUNTS_PREFIX "earnings:", &accounts, err);
    json_array_foreach(accounts, i, a) {
        const char *earn = json_string_value(json_object_get(a, "name"));
        const char *owner = earn ? ledger_account_owner(earn) : NULL;
        char id[LEDGER_ID_MAX + 1], wallet[LEDGER_ACCOUNT_MAX], dname[11], ref[LEDGER_REF_MAX];
        json_t *old = NULL;
        int64_t amount = 0;
        if (rc != RD_OK)
            break;
        if (!owner)
            continue;
        snprintf(id, sizeof id, "payout/%s/%s", owner, billing_day_name(day, dname));
        char key[RD_KEY_MAX];
        if ((rc = billing_step_room_key(&b->step, tx_key(key, LEDGER_TRANSFERS_PREFIX "%s", id), err)) != RD_OK ||
            (rc = ledger_transfer_get(b->tx, id, &old, err)) != RD_OK)
            break;
        if (old) {
            b->already++;
            json_decref(old);
            continue;
        }
        if ((rc = ledger_balance_before(b->tx, earn, day, &amount, err)) != RD_OK || amount <= 0)
            continue;
        snprintf(ref, sizeof ref, "earnings before %sT00:00:00Z", dname);
        ledger_transfer t = { id, earn, ledger_wallet_id(wallet, owner), amount, "payout", day, ref };
        if ((rc = post_once(b, &t, err)) == RD_OK) {
            b->payouts++;
            b->payouts_ucr += amount;
        }
    }
    json_decref(accounts);
    return rc;
}

/* Groups the tenure records by owner; *first gets the earliest addition. */
static rd_code load_tenures(bill_state *b, rd_time *first, rd_err *err)
{
    json_t *all = NULL, *t;
    size_t i;
    rd_code rc = tx_list(b->tx, KEY_DEVICE_TENURES, &all, err);
    if (rc != RD_OK)
        return rc;
    *first = INT64_MAX;
    json_array_foreach(all, i, t) {
        const char *owner = json_string_value(json_object_get(t, "owner"));
        rd_time added;
        if (!owner || !time_field(t, "added_at", &added))
            continue;
        json_t *list = json_object_get(b->by_owner, owner);
        if (!list)
            json_object_set_new(b->by_owner, owner, list = json_array());
        json_array_append(list, t);
        if (added < *first)
            *first = added;
    }
    json_decref(all);
    return RD_OK;
}

/* The earliest day any earnings account was opened (its first transfer). */
static rd_code first_earnings(bill_state *b, rd_time *first, rd_err *err)
{
    json_t *accounts = NULL, *a;
    size_t i;
    rd_code rc = tx_list(b->tx, LEDGER_ACCOUNTS_PREFIX "earnings:", &accounts, err);
    *first = INT64_MAX;
    json_array_foreach(accounts, i, a) {
        rd_time t;
        if (time_field(a, "created_at", &t) && t < *first)
            *first = t;
    }
    json_decref(accounts);
    return rc;
}

/* Days as "YYYY-MM-DD" compare as strings. */
static const char *later_day(const char *a, const char *b)
{
    return !b || (a && strcmp(a, b) > 0) ? a : b;
}

/* Saves how far the run got.  Re-read (guarded) first: after a step's
 * commit the first read no longer guards, and a concurrent run may have
 * got further; the cursor never moves back. */
static rd_code cursor_save(bill_state *b, rd_time fees_through, rd_time payouts_through, rd_time until, rd_err *err)
{
    char fees[11], pays[11], ts[RDTIME_BUFLEN];
    json_t *cursor = NULL;
    rd_code rc = billing_step_room_key(&b->step, BILLING_CURSOR_KEY, err);
    if (rc == RD_OK)
        rc = tx_get(b->tx, BILLING_CURSOR_KEY, &cursor, err);
    if (rc != RD_OK)
        return rc;
    billing_day_name(fees_through, fees);
    billing_day_name(payouts_through, pays);
    const char *old_fees = day_field(cursor, "device_fees_through"), *old_pays = day_field(cursor, "payouts_through");
    const char *new_fees = later_day(fees, old_fees), *new_pays = later_day(pays, old_pays);
    json_t *doc = NULL;
    if (new_fees != old_fees || new_pays != old_pays) {   /* else nothing advanced: leave the store untouched */
        doc = json_pack("{s:s, s:s, s:s, s:s}", "name", "billing", "device_fees_through", new_fees, "payouts_through",
                        new_pays, "until", rdtime_format(until, ts));
        rc = tx_put(b->tx, BILLING_CURSOR_KEY, doc, err);
    }
    json_decref(cursor);
    return rc;
}

rd_code billing_run(rd_tx *tx, rd_time until, billing_commit_fn commit, void *arg, json_t **result, rd_err *err)
{
    bill_state b = { .tx = tx, .by_owner = json_object(), .items = json_array() };
    json_t *cursor = NULL;
    rd_time first_tenure = INT64_MAX, first_earning = INT64_MAX;
    char ts[RDTIME_BUFLEN];
    *result = NULL;
    rd_code rc = b.by_owner && b.items ? RD_OK : rd_fail(err, RD_ENOMEM, "out of memory");
    if (rc == RD_OK)
        rc = billing_step_init(&b.step, tx, commit, arg, err);
    if (rc == RD_OK)   /* guarded: two runs at once conflict here and on every id */
        rc = billing_step_room_key(&b.step, BILLING_CURSOR_KEY, err);
    if (rc == RD_OK)
        rc = tx_get(tx, BILLING_CURSOR_KEY, &cursor, err);
    /* Worker usage first: rentals earn the hosts what the payouts below
     * move to their wallets (each payout counts earnings before its 00:00). */
    int64_t usage_jobs = 0;
    billing_tally u = { 0 };
    if (rc == RD_OK)
        rc = billing_usage_post_all(&b.step, until, &usage_jobs, &u, err);
    if (rc == RD_OK)
        rc = load_tenures(&b, &first_tenure, err);
    if (rc == RD_OK)
        rc = first_earnings(&b, &first_earning, err);

    /* Days whose fee is due: from the first unbilled day to the last day
     * that ended at or before `until`.  Payout instants: every 00:00 after
     * the first earning, up to `until`. */
    rd_time last_boundary = billing_day_start(until);
    rd_time fee_from = after_cursor(cursor, "device_fees_through",
                                    first_tenure == INT64_MAX ? INT64_MAX : billing_day_start(first_tenure));
    rd_time pay_from = after_cursor(cursor, "payouts_through",
                                    first_earning == INT64_MAX ? INT64_MAX : billing_day_start(first_earning) + BILLING_DAY);
    rd_time from = fee_from == INT64_MAX ? pay_from : fee_from + BILLING_DAY;
    if (pay_from < from)
        from = pay_from;
    rd_time boundary = from;
    for (; rc == RD_OK && from != INT64_MAX && boundary <= last_boundary; boundary += BILLING_DAY) {
        if (fee_from != INT64_MAX && boundary - BILLING_DAY >= fee_from)
            rc = post_device_fees(&b, boundary - BILLING_DAY, err);
        if (rc == RD_OK && boundary >= pay_from)
            rc = post_payouts(&b, boundary, err);
    }
    if (rc == RD_OK && from != INT64_MAX && boundary > from)
        rc = cursor_save(&b, boundary - 2 * BILLING_DAY, boundary - BILLING_DAY, until, err);
    if (rc == RD_OK) {
        /* Every transfer this run posted, by kind; "posted" is their count
         * and "usage_ucr" what the workers' charges came to. */
        int64_t usage_ucr = u.usage_fees_ucr + u.gpu_rentals_ucr + u.federated_fees_ucr - u.corrections_ucr;
        int64_t posted = u.usage_fees + u.gpu_rentals + u.federated_fees + u.corrections + b.fees + b.payouts;
        *result = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
                            "s:I, s:O}",
                            "until", rdtime_format(until, ts), "usage_jobs", (json_int_t)usage_jobs, "usage_ucr",
                            (json_int_t)usage_ucr, "usage_fees", (json_int_t)u.usage_fees, "usage_fees_ucr",
                            (json_int_t)u.usage_fees_ucr, "gpu_rentals", (json_int_t)u.gpu_rentals, "gpu_rentals_ucr",
                            (json_int_t)u.gpu_rentals_ucr, "federated_fees", (json_int_t)u.federated_fees,
                            "federated_fees_ucr", (json_int_t)u.federated_fees_ucr, "corrections",
                            (json_int_t)u.corrections, "corrections_ucr", (json_int_t)u.corrections_ucr, "device_fees",
                            (json_int_t)b.fees, "device_fees_ucr", (json_int_t)b.fees_ucr, "payouts",
                            (json_int_t)b.payouts, "payouts_ucr", (json_int_t)b.payouts_ucr, "posted", (json_int_t)posted,
                            "already_posted", (json_int_t)b.already, "items", b.items);
        if (!*result)
            rc = rd_fail(err, RD_ENOMEM, "out of memory");
    }
    json_decref(cursor);
    billing_step_free(&b.step);
    json_decref(b.by_owner);
    json_decref(b.items);
    return rc;
}

/* ---- the bill command ----------------------------------------------------- */

static rd_code bill_commit_step(void *ctx, rd_err *err)
{
    return cmd_commit_step(ctx, err);
}

static rd_code bill_run_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    rd_time until = ctx->now;
    rd_code rc;
    if (!access_actor_is_admin(ctx))
        return rd_fail(err, RD_EPERM, "bill run: only an administering account (such as 'default') may run billing; --as is '%s'", ctx->actor);
    if (cmd_opt(a, "until") && (rc = rdtime_parse("--until", cmd_opt(a, "until"), &until, err)) != RD_OK)
        return rc;
    if (until > ctx->now) {
        char u[RDTIME_BUFLEN], n[RDTIME_BUFLEN];
        return rd_fail(err, RD_EINVAL, "--until %s is after the current time %s: nothing is due in the future",
                       rdtime_format(until, u), rdtime_format(ctx->now, n));
    }
    return billing_run(ctx->tx, until, bill_commit_step, ctx, result, err);
}

static const cmd_flag bill_run_flags[] = {
    { "until", "TIME", CMD_FLAG_VALUE, "post what is due at or before TIME (default: --now)" },
    { 0 }
};

const cmd_def bill_cmd_table[] = {
    { .words = "bill run", .args = "", .flags = bill_run_flags, .options = CMD_MUTATES,
      .help = "post every usage charge, device fee and payout due up to --until (idempotent)", .run = bill_run_cmd,
      .access = CMD_ACCESS_MONEY, .access_why = "may post bills" },
    { 0 }
};
