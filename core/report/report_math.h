/* report_math.h - the arithmetic of the reports (report_math.c): spans
 * clipped to a window, GPU time in exact integers, and the rent-vs-buy
 * costs, each amount rounded once, half away from zero, in 128-bit
 * intermediates.  Pure functions: no store, no clock.
 *
 * GPU time is counted in "centi-GPU-seconds" (cgs): GPUs in hundredths (the
 * gpus_x100 of job documents, so a quarter GPU is 25) times seconds.  One
 * GPU-hour is 360000 cgs.
 */
#ifndef RD_REPORT_MATH_H
#define RD_REPORT_MATH_H

#include <stddef.h>
#include <stdint.h>

#include "metrics.h"
#include "rdtime.h"

#define REPORT_CGS_PER_GPU_HOUR 360000LL

/* Seconds of [a, b) inside [since, until); 0 when they do not meet or
 * b <= a. */
int64_t report_overlap(rd_time a, rd_time b, rd_time since, rd_time until);

/* gpus_x100 × the seconds of [a, b) inside the window, in cgs. */
int64_t report_gpu_cgs(int64_t gpus_x100, rd_time a, rd_time b, rd_time since, rd_time until);

/* The product of f[0..n) divided by d (> 0), rounded half away from zero,
 * computed in 128 bits; clamped to the int64 range. */
int64_t report_round_product(const int64_t *f, size_t n, int64_t d);

/* cgs as GPU-hours in hundredths (rounded once): 360000 cgs -> 100. */
int64_t report_cgs_hours_x100(int64_t cgs);

/* num / den as a percentage in hundredths (basis points), rounded once;
 * -1 when den <= 0 (no basis to compare against). */
int64_t report_ratio_bp(int64_t num, int64_t den);

/* Whole GPUs that serve demand_cgs over a window of window_s seconds:
 * ceil(demand / window), 0 for no demand. */
int64_t report_gpus_needed(int64_t demand_cgs, int64_t window_s);

/* The purchase price of n GPUs spread over their lifetime, the window's
 * share: n × buy × window / lifetime, rounded once. */
int64_t report_own_purchase_ucr(int64_t n, int64_t buy_ucr, int64_t window_s, int64_t lifetime_s);

/* Power of n GPUs drawing watts for the whole window at kwh_ucr per kWh:
 * n × W × window_s / 3600 h × price / 1000, rounded once. */
int64_t report_own_power_ucr(int64_t n, int64_t watts, int64_t window_s, int64_t kwh_ucr);

/* What demand_cgs costs at price_ucr per GPU-hour, rounded once. */
int64_t report_cloud_cost_ucr(int64_t demand_cgs, int64_t price_ucr);

/* The utilisation above which owning is cheaper, in basis points: one
 * owned GPU's hourly cost (buy / lifetime hours + W × kWh price / 1000)
 * over the cloud price per GPU-hour, rounded once; -1 when the cloud
 * price is not positive. */
int64_t report_break_even_bp(int64_t buy_ucr, int64_t lifetime_s, int64_t watts, int64_t kwh_ucr, int64_t price_ucr);

/* Busy GPU-seconds of one GPU from its gpu_util points (t = the minute's
 * or hour's start, avg in %): avg / 100 × the part of [t, t + step) inside
 * [since, until) and before now (the point in progress has lasted only
 * that long). */
double report_busy_seconds(const metrics_point *pts, size_t n, int step, rd_time since, rd_time until, rd_time now);

#endif
