/* draw_dash.c - paints the Dashboard: where each part goes is
 * layout_dashboard()'s, what each line says is pane_dashboard.c's; this file only
 * puts them on the screen in theme elements. */
#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dash.h"
#include "draw.h"
#include "layout.h"
#include "spark.h"
#include "text.h"

/* A right-aligned figure in a column w wide ending at x + w. */
static void figure(int y, int x, int w, const char *s, theme_elem e)
{
    int tw = text_cols(s);
    draw_text(y, tw < w ? x + w - tw : x, w, s, e);
}

static void draw_fleet(const dash_state *d, lay_rect r)
{
    char text[512], line[800];
    if (!r.h)
        return;
    int x = r.x + 1;
    x += draw_text(r.y, x, r.w - 1, "Fleet  ", TH_SECTION);
    dash_fleet_text(d->fleet, text, sizeof text);
    snprintf(line, sizeof line, "%s%s%s", text, d->fleet_note[0] ? "  " : "", d->fleet_note);
    draw_text(r.y, x, r.x + r.w - x, line, TH_NORMAL);
}

static void draw_alerts(const dash_state *d, lay_rect r, int rows)
{
    char head[128];
    if (!r.h)
        return;
    int x = r.x + 1;
    x += draw_text(r.y, x, r.w - 1, "Alerts  ", TH_SECTION);
    if (d->firing < 0) {
        draw_text(r.y, x, r.x + r.w - x, d->alerts_note[0] ? d->alerts_note : "unknown", TH_DIM);
        return;
    }
    snprintf(head, sizeof head, d->firing ? "%lld firing" : "none firing", d->firing);
    x += draw_text(r.y, x, r.x + r.w - x, head, d->firing ? TH_STATE_FIRING : TH_DIM);
    if (d->firing > rows && rows > 0) {
        snprintf(head, sizeof head, "  (the newest %d; ! lists them all)", rows);
        draw_text(r.y, x, r.x + r.w - x, head, TH_DIM);
    }
    for (int i = 0; i < rows; i++) {
        const json_t *a = json_array_get(d->recent, (size_t)i);
        const char *sev = json_string_value(json_object_get(a, "severity"));
        char text[512];
        int y = r.y + 1 + i, ax = r.x + 3;
        dash_alert_text(a, text, sizeof text);
        /* "#12 critical ...": the severity word in its colour. */
        const char *sp = strchr(text, ' ');
        if (sev && sp && strncmp(sp + 1, sev, strlen(sev)) == 0) {
            char id[64];
            snprintf(id, sizeof id, "%.*s ", (int)(sp - text), text);
            ax += draw_text(y, ax, r.x + r.w - ax, id, TH_NORMAL);
            ax += draw_text(y, ax, r.x + r.w - ax, sev, theme_state_elem(sev));
            draw_text(y, ax, r.x + r.w - ax, sp + 1 + strlen(sev), TH_NORMAL);
        } else {
            draw_text(y, ax, r.x + r.w - ax, text, TH_NORMAL);
        }
    }
}

/* The heading of a stat block: its title, then the figures' names over
 * their columns. */
static void draw_heading(const lay_dash *L, lay_rect r, const char *title, theme_elem e)
{
    static const char *const names[3] = { "now", "min", "max" };
    int fx = r.x + 1 + L->label_w + 1 + L->spark_w;
    draw_text(r.y, r.x + 1, fx - r.x - 1, title, e);
    for (int i = 0; i < L->nvalues; i++)
        figure(r.y, fx + i * L->value_w, L->value_w, names[i], TH_DIM);
}

static void draw_stat(const lay_dash *L, int y, int x, const dash_series *s)
{
    char label[64], spark[1024], v[3][32];
    snprintf(label, sizeof label, "%s", s->stat->name);
    draw_text(y, x + 1, L->label_w, label, TH_NORMAL);
    int sx = x + 1 + L->label_w + 1, pct = strcmp(s->stat->unit, "%") == 0;
    if (s->count == 0) {
        draw_text(y, sx, L->spark_w, "no samples this hour", TH_DIM);
    } else if (L->spark_w > 0) {
        /* Percentages on their own 0..100 scale; others on the hour's range. */
        spark_range full = { 0, 100 };
        spark_render(s->avg, DASH_POINTS, L->spark_w, pct ? &full : NULL, text_is_ascii(), spark, sizeof spark);
        draw_text(y, sx, L->spark_w, spark, pct && s->has_now && s->now >= 90 ? TH_SPARK_HIGH : TH_SPARK);
    }
    dash_format_value(s->has_now ? s->now : NAN, s->stat->unit, v[0], sizeof v[0]);
    dash_format_value(s->count ? s->lo : NAN, s->stat->unit, v[1], sizeof v[1]);
    dash_format_value(s->count ? s->hi : NAN, s->stat->unit, v[2], sizeof v[2]);
    int fx = sx + L->spark_w;
    for (int i = 0; i < L->nvalues; i++)
        figure(y, fx + i * L->value_w, L->value_w, v[i], i == 0 ? TH_NORMAL : TH_DIM);
}

static const char *doc_state(const json_t *h)
{
    const char *s = json_string_value(json_object_get(h, "state"));
    return s ? s : "";
}

/* "GPU 1 of 4" and, when the node's health checks took it out, why. */
static void gpu_title(const dash_state *d, char *out, size_t len, theme_elem *e)
{
    size_t i;
    const json_t *h;
    *e = TH_SECTION;
    int n = snprintf(out, len, "GPU %d of %d  ([ ] another)", d->gpu, d->gpus);
    json_array_foreach(json_object_get(d->node_doc, "gpu_health"), i, h) {
        const json_t *idx = json_object_get(h, "index");
        /* node show lists every GPU's health, the healthy ones too */
        if (json_is_integer(idx) && json_integer_value(idx) == d->gpu && n > 0 && (size_t)n < len &&
            strcmp(doc_state(h), "healthy") != 0) {
            const char *reason = json_string_value(json_object_get(h, "reason"));
            snprintf(out + n, len - (size_t)n, "  unhealthy: %s", reason ? reason : "?");
            *e = TH_STATE_UNHEALTHY;
        }
    }
}

/* "Use by region  (u: by account)", the columns' names, then a row per
 * group; when rows run short the last one shown is still (total). */
static void draw_rollup(const dash_state *d, lay_rect r)
{
    char line[512];
    if (!r.h)
        return;
    int x = r.x + 1, acc = d->rollup_by_account;
    x += draw_text(r.y, x, r.w - 1, acc ? "Use by account  " : "Use by region  ", TH_SECTION);
    draw_text(r.y, x, r.x + r.w - x, acc ? "(u: by region)" : "(u: by account)", TH_DIM);
    if (r.h < 2)
        return;
    if (!d->rollup) {
        draw_text(r.y + 1, r.x + 3, r.w - 3, d->rollup_note[0] ? d->rollup_note : "reading...", TH_DIM);
        return;
    }
    dash_rollup_head(acc, line, sizeof line);
    draw_text(r.y + 1, r.x + 3, r.w - 3, line, TH_DIM);
    const json_t *items = json_object_get(d->rollup, "items");
    int n = (int)json_array_size(items), rows = r.h - 2;
    for (int i = 0; i < rows && i < n; i++) {
        int at = i == rows - 1 ? n - 1 : i;   /* the total stays in sight */
        dash_rollup_text(json_array_get(items, (size_t)at), acc, line, sizeof line);
        draw_text(r.y + 2 + i, r.x + 3, r.w - 3, line, at == n - 1 ? TH_SECTION : TH_NORMAL);
    }
}

void draw_dash(session *c, lay_rect body)
{
    const dash_state *d = dash_of(c);
    char title[512];
    if (body.h <= 0 || body.w <= 0)
        return;
    if (!d->loaded) {
        draw_text(body.y + 1, body.x + 2, body.w - 4, "Loading...", TH_DIM);
        return;
    }
    int nalerts = (int)json_array_size(d->recent);
    lay_dash L = layout_dashboard(body, nalerts, d->nnode ? (int)d->nnode : 1, (int)d->ngpu, DASH_POINTS);
    draw_fleet(d, L.fleet);
    draw_alerts(d, L.alerts, L.alert_rows);
    if (L.node.h) {
        const char *state = json_string_value(json_object_get(d->node_doc, "state"));
        draw_heading(&L, L.node, "", TH_SECTION);
        /* "node n1  active  last hour": the state in its own colour. */
        int x = L.node.x + 1, end = L.node.x + 1 + L.label_w + 1 + L.spark_w;
        snprintf(title, sizeof title, "node %s  ", d->node);
        x += draw_text(L.node.y, x, end - x, d->node[0] ? title : "", TH_SECTION);
        if (state) {
            x += draw_text(L.node.y, x, end - x, state, theme_state_elem(state));
            x += draw_text(L.node.y, x, end - x, "  ", TH_NORMAL);
        }
        draw_text(L.node.y, x, end - x, "last hour", TH_DIM);
        if (d->note[0] || d->nnode == 0)
            draw_text(L.node.y + 1, L.node.x + 2, L.node.w - 3,
                      d->note[0] ? d->note : "no vital stats yet (an agent samples them: rigdeck agent)", TH_DIM);
        for (int i = 0; i < L.node_rows && (size_t)i < d->nnode; i++)
            draw_stat(&L, L.node.y + 1 + i, L.node.x, &d->node_stats[i]);
    }
    if (L.gpu.h) {
        theme_elem e;
        gpu_title(d, title, sizeof title, &e);
        draw_heading(&L, L.gpu, title, e);
        for (int i = 0; i < L.gpu_rows && (size_t)i < d->ngpu; i++)
            draw_stat(&L, L.gpu.y + 1 + i, L.gpu.x, &d->gpu_stats[i]);
    }
    /* the column names' row and one per group */
    draw_rollup(d, layout_dash_rollup(&L, body, 1 + (d->rollup ? (int)json_array_size(json_object_get(d->rollup, "items")) : 1)));
}
