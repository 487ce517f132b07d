/* report_rvb.c - `report rent-vs-buy`: seed 003's question ("buy more
 * hardware or migrate workload to public cloud?") answered per GPU type
 * from what the fleet did in the window (docs/reports.md has the
 * arithmetic and a worked example).
 *
 * Demand is what ran (allocated GPU time, as in `report usage`) plus what
 * waited (each waiting worker's GPUs over the time it waited inside the
 * window).  Own hardware is sized to serve that demand on average, bought
 * at the operator's price and spread over the operator's lifetime, plus
 * power if given; the cloud is the market price (`price set`).  Every
 * number comes from the store or the operator: a side that cannot be
 * costed says what is missing instead of guessing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "doc.h"
#include "keyspace.h"
#include "num.h"
#include "report.h"
#include "report_math.h"

typedef struct {
    int64_t used_cgs, waited_cgs;
    int seen;
} rvb_acc;

/* "12.34%" from basis points. */
static const char *pct_text(int64_t bp, char buf[32])
{
    snprintf(buf, 32, "%lld.%02lld%%", (long long)(bp / 100), (long long)(bp % 100));
    return buf;
}

static json_t *pct_json(int64_t bp)
{
    return bp < 0 ? json_null() : json_real((double)bp / 100.0);
}

static json_t *money_json(int have, int64_t ucr)
{
    return have ? json_integer((json_int_t)ucr) : json_null();
}

/* The one-line verdict of a row, and "cheaper" (own|cloud|either, or NULL
 * when a side cannot be costed). */
static const char *verdict(const char *type, int64_t demand, int have_price, int have_own, int64_t n, int64_t own,
                           int64_t cloud, int64_t util_bp, int64_t even_bp, char *buf, size_t len)
{
    char a[NUM_CREDITS_BUFLEN], b[NUM_CREDITS_BUFLEN], u[32], e[32];
    if (demand == 0) {
        snprintf(buf, len, "no demand for %s in the window: nothing to buy or rent", type);
        return NULL;
    }
    if (!have_price && !have_own) {
        snprintf(buf, len, "cannot compare: no market price for %s (price set %s PRICE) and no --buy-price/--lifetime",
                 type, type);
        return NULL;
    }
    if (!have_price) {
        snprintf(buf, len, "own %lld GPU%s cost %s credits; no market price for %s to compare (price set %s PRICE)",
                 (long long)n, n == 1 ? "" : "s", num_format_credits(own, a), type, type);
        return NULL;
    }
    if (!have_own) {
        snprintf(buf, len, "cloud costs %s credits; own hardware needs --buy-price and --lifetime to be costed",
                 num_format_credits(cloud, a));
        return NULL;
    }
    pct_text(util_bp, u);
    pct_text(even_bp, e);
    if (own < cloud) {
        snprintf(buf, len, "buy %lld GPU%s: own %s vs cloud %s credits; %s busy, above the %s break-even", (long long)n, n == 1 ? "" : "s",
                 num_format_credits(own, a), num_format_credits(cloud, b), u, e);
        return "own";
    }
    if (cloud < own) {
        snprintf(buf, len, "rent: cloud %s vs own %s credits; %lld GPU%s would be %s busy, below the %s break-even",
                 num_format_credits(cloud, a), num_format_credits(own, b), (long long)n, n == 1 ? "" : "s", u, e);
        return "cloud";
    }
    snprintf(buf, len, "either: own and cloud both cost %s credits", num_format_credits(own, a));
    return "either";
}

static json_t *rvb_row(const report_window *win, const report_rvb_opts *o, const char *type, const rvb_acc *acc,
                       const json_t *price_doc)
{
    int64_t window_s = win->until - win->since;
    int64_t demand = acc->used_cgs + acc->waited_cgs;
    int64_t n = report_gpus_needed(demand, window_s);
    int have_price = json_is_integer(json_object_get(price_doc, "price_ucr"));
    int64_t price = have_price ? doc_int(price_doc, "price_ucr") : 0;
    int have_own = o->buy_ucr > 0 && o->lifetime_s > 0, have_power = o->watts > 0;
    int64_t purchase = have_own ? report_own_purchase_ucr(n, o->buy_ucr, window_s, o->lifetime_s) : 0;
    int64_t power = have_power ? report_own_power_ucr(n, o->watts, window_s, o->kwh_ucr) : 0;
    int64_t own = purchase + power, cloud = have_price ? report_cloud_cost_ucr(demand, price) : 0;
    int64_t util_bp = n ? report_ratio_bp(demand, n * 100 * window_s) : -1;
    int64_t even_bp = have_own && have_price
                          ? report_break_even_bp(o->buy_ucr, o->lifetime_s, have_power ? o->watts : 0, o->kwh_ucr, price)
                          : -1;
    char text[512];
    const char *cheaper = verdict(type, demand, have_price, have_own, n, own, cloud, util_bp, even_bp, text, sizeof text);
    json_t *row = json_pack("{s:s, s:o, s:o, s:o, s:I, s:o}", "gpu_type", type, "demand_gpu_h",
                            json_real((double)report_cgs_hours_x100(demand) / 100.0), "used_gpu_h",
                            json_real((double)report_cgs_hours_x100(acc->used_cgs) / 100.0), "waited_gpu_h",
                            json_real((double)report_cgs_hours_x100(acc->waited_cgs) / 100.0), "gpus_needed",
                            (json_int_t)n, "own_util_pct", pct_json(util_bp));
    if (!row)
        return NULL;
    json_object_set_new(row, "own_purchase_ucr", money_json(have_own, purchase));
    json_object_set_new(row, "own_power_ucr", money_json(have_power, power));
    json_object_set_new(row, "own_cost_ucr", money_json(have_own, own));
    json_object_set_new(row, "cloud_price_per_gpu_h_ucr", money_json(have_price, price));
    json_object_set_new(row, "cloud_cost_ucr", money_json(have_price, cloud));
    json_object_set_new(row, "break_even_util_pct", pct_json(even_bp));
    json_object_set_new(row, "cheaper", cheaper ? json_string(cheaper) : json_null());
    json_object_set_new(row, "recommendation", json_string(text));
    json_object_set_new(row, "window_h", json_real((double)window_s / 3600.0));
    json_object_set_new(row, "buy_price_ucr", money_json(have_own, o->buy_ucr));
    json_object_set_new(row, "lifetime_h", have_own ? json_real((double)o->lifetime_s / 3600.0) : json_null());
    json_object_set_new(row, "power_w", have_power ? json_integer((json_int_t)o->watts) : json_null());
    json_object_set_new(row, "power_price_per_kwh_ucr", money_json(have_power, o->kwh_ucr));
    return row;
}

/* Adds what each worker ran and waited inside the window to its type (a
 * tenant's report: only the workers it pays for). */
static void rvb_count(const report_window *win, const json_t *jobs, rvb_acc *acc)
{
    size_t j;
    const json_t *job;
    json_array_foreach(jobs, j, job) {
        for (size_t w = 0; w < json_array_size(json_object_get(job, "workers")); w++) {
            report_worker rw;
            const gpu_type *g;
            if (!report_worker_read(job, w, win->now, &rw) || rw.gpus_x100 <= 0 || !(g = catalog_gpu(rw.gpu_type)) ||
                (win->account && strcmp(rw.account, win->account) != 0))
                continue;
            rvb_acc *a = &acc[catalog_gpu_index(g)];
            int64_t used = report_gpu_cgs(rw.gpus_x100, rw.run_from, rw.run_to, win->since, win->until);
            int64_t waited = report_gpu_cgs(rw.gpus_x100, rw.wait_from, rw.wait_to, win->since, win->until);
            a->used_cgs += used;
            a->waited_cgs += waited;
            a->seen |= used > 0 || waited > 0;
        }
    }
}

rd_code report_rvb_build(cmd_ctx *ctx, const report_window *win, const report_rvb_opts *o, json_t **result,
                         rd_err *err)
{
    json_t *jobs = NULL, *prices = NULL, *items = NULL;
    size_t ntypes = catalog_gpu_count();
    /* one per type of the catalog, added types included */
    rvb_acc *acc = calloc(ntypes, sizeof *acc);
    if (!acc)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    rd_code rc = tx_list(ctx->tx, KEY_JOBS, &jobs, err);
    if (rc == RD_OK)
        rc = tx_list(ctx->tx, KEY_PRICES, &prices, err);
    if (rc == RD_OK && !(items = json_array()))
        rc = rd_fail(err, RD_ENOMEM, "out of memory");
    if (rc == RD_OK)
        rvb_count(win, jobs, acc);
    for (size_t i = 0; i < ntypes && rc == RD_OK; i++) {
        const gpu_type *g = catalog_gpu_at(i);
        if (o->gpu_type ? strcmp(o->gpu_type, g->id) != 0 : !acc[i].seen)
            continue;
        const json_t *price_doc = NULL, *p;
        size_t k;
        json_array_foreach(prices, k, p)
            if (strcmp(doc_str(p, "name"), g->id) == 0)
                price_doc = p;
        json_t *row = rvb_row(win, o, g->id, &acc[i], price_doc);
        if (!row || json_array_append_new(items, row) != 0)
            rc = rd_fail(err, RD_ENOMEM, "out of memory");
    }
    if (rc == RD_OK && !(*result = json_pack("{s:O}", "items", items)))
        rc = rd_fail(err, RD_ENOMEM, "out of memory");
    json_decref(items);
    json_decref(jobs);
    json_decref(prices);
    free(acc);
    return rc;
}
