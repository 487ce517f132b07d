/* pane_dashboard.c - the Dashboard pane (key 0): its data (fleet totals,
 * firing alerts and the selected node's last hour, see dash.h) and its
 * record.  draw_dash.c paints it. */
#include "dash.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "layout.h"
#include "panes_int.h"
#include "session.h"
#include "rdtime.h"

/* ---- pure helpers ----------------------------------------------------------- */

void dash_fill_series(dash_series *s, const metrics_point *pts, size_t n, rd_time until)
{
    rd_time since = until - DASH_POINTS * 60;
    for (size_t i = 0; i < DASH_POINTS; i++)
        s->avg[i] = NAN;
    s->count = 0;
    s->lo = s->hi = 0;
    for (size_t i = 0; i < n; i++) {
        if (pts[i].t < since || pts[i].t >= until)
            continue;
        size_t slot = (size_t)((pts[i].t - since) / 60);
        if (!isfinite(pts[i].avg))
            continue;
        s->avg[slot] = pts[i].avg;
        if (s->count == 0 || pts[i].min < s->lo)
            s->lo = pts[i].min;
        if (s->count == 0 || pts[i].max > s->hi)
            s->hi = pts[i].max;
        s->count++;
    }
}

void dash_format_value(double v, const char *unit, char *out, size_t len)
{
    if (!isfinite(v)) {
        snprintf(out, len, "-");
    } else if (strcmp(unit, "%") == 0) {
        snprintf(out, len, "%.0f%%", v);
    } else if (strcmp(unit, "B/s") == 0) {
        static const char *const units[] = { "B/s", "kB/s", "MB/s", "GB/s", "TB/s" };
        int u = 0;
        while (fabs(v) >= 1000 && u < 4) {
            v /= 1000;
            u++;
        }
        snprintf(out, len, u ? "%.1f %s" : "%.0f %s", v, units[u]);
    } else if (strcmp(unit, "GB") == 0) {
        snprintf(out, len, "%.1f GB", v);
    } else if (*unit) {
        snprintf(out, len, "%.0f %s", v, unit);
    } else {
        panes_number_text(v, out, len);
    }
}

static double num(const json_t *o, const char *field, double dflt)
{
    const json_t *v = json_object_get(o, field);
    return json_is_number(v) ? json_number_value(v) : dflt;
}

void dash_fleet_text(const json_t *fleet, char *out, size_t len)
{
    char a[32], t[32], use[64] = "", cpu[64] = "";
    double total = num(fleet, "gpus", 0), alloc = num(fleet, "gpus_allocated", 0);
    double healthy = num(fleet, "gpus_healthy", total), unhealthy = num(fleet, "gpus_unhealthy", total - healthy);
    double gu = num(fleet, "gpu_util_mean", NAN), cu = num(fleet, "cpu_util_mean", NAN);
    panes_number_text(alloc, a, sizeof a);
    panes_number_text(total, t, sizeof t);
    if (isfinite(gu))
        snprintf(use, sizeof use, "  GPU use %.0f%%", gu);
    if (isfinite(cu))
        snprintf(cpu, sizeof cpu, "  CPU use %.0f%%", cu);
    snprintf(out, len, "GPUs %s/%s allocated  %.0f healthy  %.0f unhealthy%s%s", a, t, healthy, unhealthy, use, cpu);
}

#define ROLLUP_FMT "%-16.16s %5s %11s %7s %13s %19s %19s"

void dash_rollup_head(int by_account, char *out, size_t len)
{
    snprintf(out, len, ROLLUP_FMT, by_account ? "ACCOUNT" : "REGION", "NODES", by_account ? "GPUS HELD" : "GPUS ALLOC",
             "GPU USE", "CPU CORES", "MEMORY", "DISK");
}

/* used, or used/total when the group has a total, with unit. */
static void used_of(const json_t *row, const char *used, const char *total, const char *unit, char *out, size_t len)
{
    char u[32], t[32];
    panes_number_text(num(row, used, 0), u, sizeof u);
    if (json_is_number(json_object_get(row, total))) {
        panes_number_text(num(row, total, 0), t, sizeof t);
        snprintf(out, len, "%s/%s%s", u, t, unit);
    } else {
        snprintf(out, len, "%s%s", u, unit);
    }
}

void dash_rollup_text(const json_t *row, int by_account, char *out, size_t len)
{
    char nodes[32], gpus[48], use[16] = "-", cpu[48], mem[64], disk[64];
    const char *name = json_string_value(json_object_get(row, by_account ? "account" : "region"));
    double gu = num(row, "gpu_util_mean", NAN);
    panes_number_text(num(row, "nodes", 0), nodes, sizeof nodes);
    used_of(row, "gpus_allocated", "gpus", "", gpus, sizeof gpus);
    if (isfinite(gu))
        snprintf(use, sizeof use, "%.0f%%", gu);
    used_of(row, "cpu_used_cores", "cpu_cores", "", cpu, sizeof cpu);
    used_of(row, "mem_used_gb", "mem_total_gb", " GB", mem, sizeof mem);
    used_of(row, "disk_used_gb", "disk_total_gb", " GB", disk, sizeof disk);
    snprintf(out, len, ROLLUP_FMT, name ? name : "?", nodes, gpus, use, cpu, mem, disk);
}

void dash_alert_text(const json_t *alert, char *out, size_t len)
{
    char id[64], value[48] = "", gpu[32] = "", acked[160] = "", when[24] = "";
    panes_value_text(json_object_get(alert, "id"), "id", id, sizeof id);
    const char *sev = json_string_value(json_object_get(alert, "severity"));
    const char *rule = json_string_value(json_object_get(alert, "rule"));
    const char *node = json_string_value(json_object_get(alert, "node"));
    const char *fired = json_string_value(json_object_get(alert, "fired_at"));
    const char *by = json_string_value(json_object_get(alert, "acked_by"));
    const json_t *g = json_object_get(alert, "gpu"), *v = json_object_get(alert, "value");
    if (json_is_integer(g))
        snprintf(gpu, sizeof gpu, " GPU %lld", (long long)json_integer_value(g));
    if (json_is_number(v)) {
        char n[32];
        panes_number_text(json_number_value(v), n, sizeof n);
        snprintf(value, sizeof value, " value %s", n);
    }
    /* "2026-11-24T13:14:21Z": the month, day and time say enough. */
    if (fired && strlen(fired) >= 19)
        snprintf(when, sizeof when, " since %.5s %.8s", fired + 5, fired + 11);
    if (by && *by)
        snprintf(acked, sizeof acked, " (acked by %s)", by);
    snprintf(out, len, "#%s %s %s %s%s%s%s%s", id, sev ? sev : "?", rule ? rule : "?", node ? node : "-", gpu, value,
             when, acked);
}

static int by_fired_desc(const void *a, const void *b)
{
    const char *x = json_string_value(json_object_get(*(json_t *const *)a, "fired_at"));
    const char *y = json_string_value(json_object_get(*(json_t *const *)b, "fired_at"));
    return strcmp(y ? y : "", x ? x : "");   /* RFC 3339 UTC sorts as text */
}

json_t *dash_recent_alerts(const json_t *items, size_t max)
{
    size_t n = json_array_size(items), i;
    json_t **v = n ? malloc(n * sizeof *v) : NULL, *out = json_array();
    if (n && !v)
        return out;
    for (i = 0; i < n; i++)
        v[i] = json_array_get(items, i);
    if (n)   /* qsort's array may not be NULL, even for none */
        qsort(v, n, sizeof *v, by_fired_desc);
    for (i = 0; i < n && i < max; i++)
        json_array_append(out, v[i]);
    free(v);
    return out;
}

/* ---- loading ------------------------------------------------------------------ */

void dash_free(dash_state *d)
{
    json_decref(d->fleet);
    json_decref(d->recent);
    json_decref(d->node_doc);
    json_decref(d->rollup);
    d->fleet = d->recent = d->node_doc = d->rollup = NULL;
}

static rd_time console_now(session *c)
{
    return c->opt->now_text ? c->opt->now : (rd_time)time(NULL);
}

/* The roll-up: through the command language, so the actor sees only what
 * `metrics fleet --by` shows it. */
static void load_rollup(session *c, dash_state *d)
{
    json_t *res = NULL;
    rd_err err;
    json_decref(d->rollup);
    d->rollup = NULL;
    d->rollup_note[0] = '\0';
    if (session_exec_line(c, d->rollup_by_account ? "metrics fleet --by account" : "metrics fleet --by region", &res,
                          &err) == RD_OK)
        d->rollup = res;
    else
        snprintf(d->rollup_note, sizeof d->rollup_note, "%.250s", err.msg);
}

void dash_toggle_rollup(session *c)
{
    dash_state *d = dash_of(c);
    d->rollup_by_account = !d->rollup_by_account;
    load_rollup(c, d);
}

/* The fleet line: with_readings 0 counts only what the Nodes table (in
 * memory) gives, 1 also reads every node's latest reading for the means. */
static void load_fleet(session *c, dash_state *d, int with_readings)
{
    json_t *res = NULL;
    rd_err err;
    rd_tx *tx = NULL;
    json_decref(d->fleet);
    d->fleet = NULL;
    d->fleet_note[0] = '\0';
    rd_code rc = with_readings ? cmd_ctx_open_store(&c->ctx, &err) : RD_OK;
    if (rc == RD_OK && with_readings && !(tx = tx_new(c->ctx.store)))
        rc = rd_fail(&err, RD_ENOMEM, "out of memory");
    if (rc == RD_OK)
        rc = metrics_fleet_totals(tx, c->screens[PANE_NODES].tables[0].items, NULL, console_now(c), &res, &err);
    tx_free(tx);
    if (rc == RD_OK)
        d->fleet = res;
    else
        snprintf(d->fleet_note, sizeof d->fleet_note, "%.250s", err.msg);
    if (with_readings)   /* it reads every node's latest reading too */
        load_rollup(c, d);
    /* without readings: the means follow shortly */
    d->fleet_ms = rdtime_mono_ms() - (with_readings ? 0 : DASH_FLEET_MS - DASH_FLEET_FIRST_MS);
}

static void load_alerts(session *c, dash_state *d)
{
    json_t *res = NULL;
    rd_err err;
    json_decref(d->recent);
    d->recent = NULL;
    d->alerts_note[0] = '\0';
    if (session_exec_line(c, "alert list --state firing", &res, &err) != RD_OK) {
        d->firing = -1;
        snprintf(d->alerts_note, sizeof d->alerts_note, "%.250s", err.msg);
        return;
    }
    const json_t *items = json_object_get(res, "items");
    d->firing = (long long)json_array_size(items);
    d->recent = dash_recent_alerts(items, DASH_ALERTS_MAX);
    c->firing = d->firing;   /* the header shows the same count */
    json_decref(res);
}

/* The node the Nodes pane has selected (pane_load reads that table before
 * the Dashboard's). */
static const char *selected_node(session *c)
{
    const grid_row *r = grid_current(&c->screens[PANE_NODES].tables[0].g);
    return r ? r->key : NULL;
}

static int count_gpus(const json_t *node_doc, const json_t *latest)
{
    int n = (int)num(node_doc, "gpu_count", 0);
    const char *key;
    const json_t *v;
    /* A node whose inventory is not in yet may still report GPUs. */
    json_object_foreach((json_t *)json_object_get(latest, "values"), key, v) {
        const char *colon = strrchr(key, ':');
        if (colon && atoi(colon + 1) + 1 > n)
            n = atoi(colon + 1) + 1;
    }
    return n;
}

static rd_code read_series(const metrics_window *w, dash_series *s, const json_t *latest, rd_time until, rd_err *err)
{
    metrics_point *pts = NULL;
    size_t n = 0;
    rd_code rc = metrics_window_points(w, s->key, &pts, &n, err);
    if (rc != RD_OK)
        return rc;
    dash_fill_series(s, pts, n, until);
    free(pts);
    const json_t *v = json_object_get(json_object_get(latest, "values"), s->key);
    s->has_now = json_is_number(v);
    s->now = s->has_now ? json_number_value(v) : NAN;
    return RD_OK;
}

/* Reads every stat of the node and of its selected GPU from one window:
 * the blocks the series share are read once. */
static rd_code read_node_stats(session *c, dash_state *d, rd_err *err)
{
    rd_code rc = cmd_ctx_open_store(&c->ctx, err);
    if (rc != RD_OK)
        return rc;
    rd_tx *tx = tx_new(c->ctx.store);
    if (!tx)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    json_t *latest = NULL;
    rc = metrics_read_latest(tx, d->node, &latest, err);
    d->gpus = count_gpus(d->node_doc, latest);
    if (d->gpu >= d->gpus)
        d->gpu = d->gpus > 0 ? d->gpus - 1 : 0;
    const char *at = json_string_value(json_object_get(latest, "sampled_at"));
    snprintf(d->sampled_at, sizeof d->sampled_at, "%s", at ? at : "");
    /* The minute in progress is the window's last slot. */
    rd_time now = console_now(c), until = now - now % 60 + 60;
    metrics_window *w = NULL;
    if (rc == RD_OK)
        rc = metrics_window_read(tx, d->node, 60, until - DASH_POINTS * 60, until, &w, err);
    d->nnode = d->ngpu = 0;
    for (size_t i = 0; rc == RD_OK && i < metrics_stat_count(); i++) {
        const metrics_stat *st = metrics_stat_at(i);
        dash_series *s;
        if (!st->per_gpu && d->nnode < DASH_STATS_MAX)
            s = &d->node_stats[d->nnode++];
        else if (st->per_gpu && d->gpus > 0 && d->ngpu < DASH_STATS_MAX)
            s = &d->gpu_stats[d->ngpu++];
        else
            continue;
        s->stat = st;
        metrics_series_key(s->key, st, d->gpu);
        rc = read_series(w, s, latest, until, err);
    }
    metrics_window_free(w);
    json_decref(latest);
    tx_free(tx);
    return rc;
}

void dash_load_node(session *c)
{
    dash_state *d = dash_of(c);
    const char *name = selected_node(c);
    d->note[0] = '\0';
    json_decref(d->node_doc);
    d->node_doc = NULL;
    d->nnode = d->ngpu = 0;
    if (!name) {
        d->node[0] = '\0';
        snprintf(d->note, sizeof d->note, "No node to show: add one in the Nodes pane (3).");
        return;
    }
    if (strcmp(name, d->node) != 0)
        d->gpu = 0;
    snprintf(d->node, sizeof d->node, "%s", name);
    char line[320] = "node show ";
    prompt_quote_word(line, sizeof line, name);
    rd_err err;
    if (session_exec_line(c, line, &d->node_doc, &err) != RD_OK) {
        snprintf(d->note, sizeof d->note, "%.500s", err.msg);
        return;
    }
    if (read_node_stats(c, d, &err) != RD_OK) {
        snprintf(d->note, sizeof d->note, "metrics of %.200s: %.280s", name, err.msg);
        d->nnode = d->ngpu = 0;
    }
}

void dash_step_gpu(session *c, int delta)
{
    dash_state *d = dash_of(c);
    if (d->gpus <= 0)
        return;
    d->gpu = ((d->gpu + delta) % d->gpus + d->gpus) % d->gpus;
    dash_load_node(c);
}

void dash_load(session *c, int force_fleet)
{
    dash_state *d = dash_of(c);
    long long now = rdtime_mono_ms();
    /* The node first: its table feeds the fallback totals. */
    dash_load_node(c);
    if (force_fleet || !d->fleet)
        load_fleet(c, d, 0);
    else if (now - d->fleet_ms >= DASH_FLEET_MS)
        load_fleet(c, d, 1);
    load_alerts(c, d);
    d->loaded = 1;
}

/* The pane's loader: the Dashboard follows the Nodes table's node. */
static void dash_pane_load(session *c, const pane_view *v, pane_state *ps)
{
    (void)v;
    dash_load(c, !ps->loaded);
    if (dash_of(c)->node[0])
        snprintf(ps->summary, sizeof ps->summary, "node %.200s%s", dash_of(c)->node,
                 dash_of(c)->gpus > 0 ? "" : " (no GPU reported)");
}

dash_state *dash_of(const session *c)
{
    return c->screens[PANE_DASHBOARD].own;
}

/* The Dashboard's own state: made with its screen, zeroed (no fleet, no
 * node, no alert read yet). */
static void *dash_own_new(void)
{
    return calloc(1, sizeof(dash_state));
}

static void dash_own_free(void *own)
{
    if (own)
        dash_free(own);
    free(own);
}

static const pane_view dash_views[] = {
    { .title = "Dashboard", .key_field = "name", .show_cmd = "node show", .empty_note = "", .load = dash_pane_load,
      .reload_ms = DASH_RELOAD_MS, .kinds = LK_METRICS | LK_NODES | LK_ALERTS },
};

const pane_def pane_dashboard = {
    .name = "Dashboard", .mid = "Dashboard", .tiny = "Dash", .key = '0', PANE_VIEWS(dash_views),
    .own_new = dash_own_new, .own_free = dash_own_free,
};
