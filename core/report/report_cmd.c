/* report_cmd.c - the `report` commands: their flags, the checks on what
 * the operator typed, and the dispatch to report_usage.c and report_rvb.c.
 * Fleet staff (admin, operator) see the whole fleet; any other account sees
 * only its own workers, wallet and earnings (report.h). */
#include <string.h>

#include "access.h"
#include "catalog.h"
#include "ledger.h"
#include "num.h"
#include "report.h"

/* Generous bounds that keep every product of report_math.c far inside
 * 128 bits: a GPU up to 10^9 credits, a lifetime up to 100 years, 100 kW
 * and 1000 credits per kWh. */
#define REPORT_LIFETIME_MAX (100LL * 366 * 86400)
#define REPORT_WATTS_MAX 100000
#define REPORT_KWH_MAX_UCR (1000 * NUM_UCR_PER_CREDIT)

static rd_code window_read(cmd_ctx *ctx, const cmd_args *a, report_window *win, rd_err *err)
{
    rd_code rc = rdtime_parse("--since", cmd_opt(a, "since"), &win->since, err);
    if (rc == RD_OK)
        rc = rdtime_parse("--until", cmd_opt(a, "until"), &win->until, err);
    if (rc == RD_OK && win->since >= win->until)
        rc = rd_fail(err, RD_EINVAL, "--since must be before --until, got %s and %s", cmd_opt(a, "since"),
                     cmd_opt(a, "until"));
    win->now = ctx->now;
    win->account = access_actor_is_staff(ctx) ? NULL : ctx->actor;
    return rc;
}

static rd_code report_usage_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    report_window win;
    const char *by = cmd_opt(a, "by") ? cmd_opt(a, "by") : "node";
    rd_code rc = window_read(ctx, a, &win, err);
    if (rc == RD_OK && strcmp(by, "node") != 0 && strcmp(by, "region") != 0 && strcmp(by, "account") != 0 &&
        strcmp(by, "gpu-type") != 0)
        rc = rd_fail(err, RD_EINVAL, "--by must be one of node, region, account, gpu-type, got '%s'", by);
    return rc == RD_OK ? report_usage_build(ctx, &win, by, result, err) : rc;
}

/* Refuses one of a pair of flags given without the other. */
static rd_code pair_check(const cmd_args *a, const char *one, const char *other, const char *why, rd_err *err)
{
    if (cmd_opt_given(a, one) && !cmd_opt_given(a, other))
        return rd_fail(err, RD_EINVAL, "--%s needs --%s (%s)", one, other, why);
    if (cmd_opt_given(a, other) && !cmd_opt_given(a, one))
        return rd_fail(err, RD_EINVAL, "--%s needs --%s (%s)", other, one, why);
    return RD_OK;
}

static rd_code rvb_opts_read(const cmd_args *a, report_rvb_opts *o, rd_err *err)
{
    rd_code rc = pair_check(a, "buy-price", "lifetime", "the purchase price is spread over the GPU's lifetime", err);
    if (rc == RD_OK)
        rc = pair_check(a, "power-w", "power-price", "power costs watts times the price of a kWh", err);
    if (rc == RD_OK && (o->gpu_type = cmd_opt(a, "gpu-type")) != NULL) {
        rc = catalog_check_gpu("--gpu-type", o->gpu_type, err);
        if (rc == RD_OK && strcmp(o->gpu_type, "cpu") == 0)
            rc = rd_fail(err, RD_EINVAL, "--gpu-type must be a GPU type, got 'cpu' (CPU-only work has no GPUs to buy)");
    }
    if (rc == RD_OK && cmd_opt_given(a, "buy-price"))
        rc = num_parse_credits("--buy-price", cmd_opt(a, "buy-price"), 1, LEDGER_AMOUNT_MAX, &o->buy_ucr, err);
    if (rc == RD_OK && cmd_opt_given(a, "lifetime")) {
        rc = rdtime_parse_duration("--lifetime", cmd_opt(a, "lifetime"), &o->lifetime_s, err);
        if (rc == RD_OK && o->lifetime_s > REPORT_LIFETIME_MAX)
            rc = rd_fail(err, RD_EINVAL, "--lifetime must be at most 100 years (36600d), got '%s'", cmd_opt(a, "lifetime"));
    }
    if (rc == RD_OK && cmd_opt_given(a, "power-w"))
        rc = num_parse_int("--power-w", cmd_opt(a, "power-w"), 1, REPORT_WATTS_MAX, &o->watts, err);
    if (rc == RD_OK && cmd_opt_given(a, "power-price"))
        rc = num_parse_credits("--power-price", cmd_opt(a, "power-price"), 0, REPORT_KWH_MAX_UCR, &o->kwh_ucr, err);
    return rc;
}

static rd_code report_rvb_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    report_window win;
    report_rvb_opts o = { NULL, 0, 0, 0, 0 };
    rd_code rc = window_read(ctx, a, &win, err);
    if (rc == RD_OK)
        rc = rvb_opts_read(a, &o, err);
    return rc == RD_OK ? report_rvb_build(ctx, &win, &o, result, err) : rc;
}

static const cmd_flag report_usage_flags[] = {
    { "since", "TIME", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "the window's start (included)" },
    { "until", "TIME", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "the window's end (excluded)" },
    { "by", "node|region|account|gpu-type", CMD_FLAG_VALUE, "one row per node (default), region, account or GPU type" },
    { 0 }
};

static const cmd_flag report_rvb_flags[] = {
    { "since", "TIME", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "the window's start (included)" },
    { "until", "TIME", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "the window's end (excluded)" },
    { "gpu-type", "GPU_TYPE", CMD_FLAG_VALUE, "only this GPU type (default: every type with demand)" },
    { "buy-price", "CREDITS", CMD_FLAG_VALUE, "what one GPU costs to buy (with --lifetime)" },
    { "lifetime", "DURATION", CMD_FLAG_VALUE, "how long a bought GPU serves, e.g. 1095d (with --buy-price)" },
    { "power-w", "WATTS", CMD_FLAG_VALUE, "what one GPU draws, in watts (with --power-price)" },
    { "power-price", "CREDITS", CMD_FLAG_VALUE, "what a kWh costs, in credits (with --power-w)" },
    { 0 }
};

/* What each column of `report usage` means (docs/reports.md says more). */
static const char *const report_usage_notes[] = {
    "One row per group (--by; default node), then (total), the same whatever the grouping.",
    "",
    "COLUMN\tMEANING",
    "allocated_gpu_h\tGPU-hours workers held in the window (started_at to ended_at, or now), fractional GPUs "
    "at their fraction",
    "busy_gpu_h\tof those, the GPU-hours the held GPUs were measured busy (gpu_util), each GPU's busy time given "
    "to the workers that held it in proportion to their share; - when no reading exists",
    "util_pct\tbusy_gpu_h / allocated_gpu_h x 100: how much of what was held was used, never above 100; - when "
    "nothing was allocated or measured",
    "unallocated_busy_gpu_h\tGPU-hours the group's GPUs were busy while no worker held them (work outside "
    "rigdeck, a stale process); by account the row (unallocated)",
    "spent\tcredits that left wallets for GPU usage (usage fees, GPU rental, federated fees), corrections netted "
    "(JSON spent_ucr, micro-credits)",
    "earned\tcredits that reached hosts' provider earnings (JSON earned_ucr)",
    NULL
};

const cmd_note report_cmd_notes[] = {
    { "report usage", report_usage_notes },
    { 0 }
};

const cmd_def report_cmd_table[] = {
    { .words = "report usage", .args = "", .flags = report_usage_flags,
      .help = "allocated and busy GPU-hours, utilisation, credits spent and earned per group in a window",
      .run = report_usage_cmd },
    { .words = "report rent-vs-buy", .args = "", .flags = report_rvb_flags,
      .help = "per GPU type: demand, the cost of own hardware and of the cloud, the cheaper choice and the break-even",
      .columns = "gpu_type,demand_gpu_h,used_gpu_h,waited_gpu_h,gpus_needed,own_util_pct,own_cost_ucr,"
                 "cloud_price_per_gpu_h_ucr,cloud_cost_ucr,break_even_util_pct,cheaper,recommendation",
      .run = report_rvb_cmd },
    { 0 }
};
