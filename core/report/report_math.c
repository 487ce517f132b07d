/* report_math.c - the reports' arithmetic (report_math.h).
 *
 * Money is exact: every amount is one product of integers divided once and
 * rounded half away from zero, in 128 bits so that GPUs × µcr × seconds
 * cannot overflow, never a chain of rounded steps.  Only measured busy
 * time (gpu_util averages are readings, not money) is floating point.
 */
#include "report_math.h"

#include "billing_math.h"

typedef billing_wide report_wide;

int64_t report_overlap(rd_time a, rd_time b, rd_time since, rd_time until)
{
    rd_time lo = a > since ? a : since, hi = b < until ? b : until;
    return hi > lo ? hi - lo : 0;
}

int64_t report_gpu_cgs(int64_t gpus_x100, rd_time a, rd_time b, rd_time since, rd_time until)
{
    return gpus_x100 > 0 ? gpus_x100 * report_overlap(a, b, since, until) : 0;
}

int64_t report_round_product(const int64_t *f, size_t n, int64_t d)
{
    report_wide p = 1;
    for (size_t i = 0; i < n; i++)
        p *= f[i];
    return billing_round_div(p, d);
}

int64_t report_cgs_hours_x100(int64_t cgs)
{
    /* cgs / 360000 GPU-hours, × 100 */
    return billing_round_div(cgs, 3600);
}

int64_t report_ratio_bp(int64_t num, int64_t den)
{
    if (den <= 0)
        return -1;
    return billing_round_div((report_wide)num * 10000, den);
}

int64_t report_gpus_needed(int64_t demand_cgs, int64_t window_s)
{
    if (demand_cgs <= 0 || window_s <= 0)
        return 0;
    /* a GPU serves 100 × window_s cgs in the window */
    report_wide per_gpu = (report_wide)100 * window_s;
    return (int64_t)((demand_cgs + per_gpu - 1) / per_gpu);
}

int64_t report_own_purchase_ucr(int64_t n, int64_t buy_ucr, int64_t window_s, int64_t lifetime_s)
{
    const int64_t f[] = { n, buy_ucr, window_s };
    return lifetime_s > 0 ? report_round_product(f, 3, lifetime_s) : 0;
}

int64_t report_own_power_ucr(int64_t n, int64_t watts, int64_t window_s, int64_t kwh_ucr)
{
    /* W × h / 1000 kWh, h = s / 3600 */
    const int64_t f[] = { n, watts, window_s, kwh_ucr };
    return report_round_product(f, 4, 3600000);
}

int64_t report_cloud_cost_ucr(int64_t demand_cgs, int64_t price_ucr)
{
    const int64_t f[] = { demand_cgs, price_ucr };
    return report_round_product(f, 2, REPORT_CGS_PER_GPU_HOUR);
}

int64_t report_break_even_bp(int64_t buy_ucr, int64_t lifetime_s, int64_t watts, int64_t kwh_ucr, int64_t price_ucr)
{
    if (price_ucr <= 0 || lifetime_s <= 0)
        return -1;
    /* hourly cost = buy × 3600 / L + W × p / 1000 = (buy × 3600000 + W × p × L) / (1000 × L);
     * × 10000 basis points / price, divided once */
    report_wide hourly_num = (report_wide)buy_ucr * 3600000 + (report_wide)watts * kwh_ucr * lifetime_s;
    return billing_round_div(hourly_num * 10000, (report_wide)1000 * lifetime_s * price_ucr);
}

double report_busy_seconds(const metrics_point *pts, size_t n, int step, rd_time since, rd_time until, rd_time now)
{
    double busy = 0;
    rd_time end = now < until ? now : until;
    for (size_t i = 0; i < n; i++) {
        int64_t s = report_overlap(pts[i].t, pts[i].t + step, since, end);
        if (s > 0 && pts[i].avg > 0)
            busy += pts[i].avg / 100.0 * (double)s;
    }
    return busy;
}
