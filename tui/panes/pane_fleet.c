/* pane_fleet.c - the Fleet map pane (key '#'): the whole fleet at a glance, a
 * cell per node and per edge device grouped by region (a region's devices
 * after its nodes, past a '|'), each cell a glyph coloured by what the
 * operator picks with 'c' (state, GPU allocation, measured GPU use,
 * temperature, health) under a legend; the cursor (arrows, hjkl) names
 * the node or device, Enter opens it as the Nodes or Devices pane does.
 *
 * It reads nothing of its own per frame: its rows are the Nodes table's
 * items (the fields `node list --fields` gives: state, GPU counts,
 * gpu_health) and the Devices table's (each loaded when stale, as those
 * panes load them; a device's row is keyed "device NAME", so a device and
 * a node of one name stay two rows), and GPU use and temperature come from the nodes' latest
 * readings (the metrics "last" documents, one list read), read in the
 * pane's first quiet moment and then, while a colouring shows them, at
 * most every FLEET_READINGS_MS.  Geometry
 * and shades are tui/widgets/fleetmap.c's; colours are theme elements
 * (TH_HEAT_*, the states'); every cell is also a glyph, so --ascii and
 * NO_COLOR read the same figures.
 */
#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "draw.h"
#include "fleetmap.h"
#include "keycode.h"
#include "keyspace.h"
#include "metrics.h"
#include "panes_int.h"
#include "prompt.h"
#include "rdtime.h"
#include "text.h"
#include "tx_pick.h"

/* Readings of 10,000 nodes cost about a quarter of a second to read:
 * at most this often, and only while GPU use or temperature is shown. */
#define FLEET_READINGS_MS 15000
/* The temperature scale: a cool idle GPU to the agent's default limit. */
#define FLEET_TEMP_LO 30.0
#define FLEET_TEMP_HI 90.0

enum { BY_STATE, BY_ALLOC, BY_UTIL, BY_TEMP, BY_HEALTH, BY_COUNT };
static const char *const by_name[BY_COUNT] = { "state", "GPU allocation", "GPU use", "temperature", "health" };

/* What a cell shows of a node or device, worked out once per load. */
typedef struct {
    int device;                 /* 1: an edge device (no GPU figures; its deployment for health) */
    char state[16];
    char deploy[16];            /* a device's deployment state, "" when none */
    double gpus, used;          /* GPUs (or, on a CPU-only node, cores) and those allocated */
    int cpu;                    /* 1: counts are CPU cores */
    int unhealthy;              /* GPUs gpu_health lists unhealthy */
    double util, temp;          /* mean GPU use %, hottest GPU C; NaN: no reading */
} fleet_node;

typedef struct {
    int by;                     /* BY_* */
    fleet_node *nodes;          /* one per row of the table, in load order: the nodes, then the devices */
    size_t nnodes, ncells;      /* nodes, and nodes and devices */
    json_t *readings;           /* node -> [GPU use, hottest GPU] (read_readings) */
    long long readings_ms;      /* when they were read (monotonic ms); 0: never */
    char readings_note[200];
    /* the arrangement of the last frame: cell k is view entry order[k] */
    size_t *order, *cell_of, norder;
    fmap_layout L;
    int top, width, height;     /* first line shown, the cell area's size */
} fleet_state;

static fleet_state *fleet_of(const session *c)
{
    return c->screens[PANE_FLEET].own;
}

/* ---- loading ------------------------------------------------------------------ */

static void read_node(fleet_node *n, const json_t *item)
{
    const char *s = json_string_value(json_object_get(item, "state"));
    n->device = 0;
    n->deploy[0] = '\0';
    snprintf(n->state, sizeof n->state, "%s", s ? s : "?");
    n->gpus = panes_number_of(item, "gpu_count");
    n->used = panes_number_of(item, "gpus_used");
    n->cpu = n->gpus <= 0 && panes_number_of(item, "cpu_cores") > 0;
    if (n->cpu) {   /* as the Nodes pane's GPUS column: a CPU node's capacity is its cores */
        n->gpus = panes_number_of(item, "cpu_cores");
        n->used = panes_number_of(item, "cpus_used");
    }
    n->unhealthy = 0;
    size_t i;
    const json_t *h;
    json_array_foreach(json_object_get(item, "gpu_health"), i, h) {
        const char *st = json_string_value(json_object_get(h, "state"));
        n->unhealthy += st && strcmp(st, "unhealthy") == 0;
    }
    n->util = n->temp = NAN;
}

static void read_device(fleet_node *n, const json_t *item)
{
    memset(n, 0, sizeof *n);
    n->device = 1;
    const char *s = json_string_value(json_object_get(item, "state"));
    snprintf(n->state, sizeof n->state, "%s", s ? s : "?");
    /* a deployment is an object; older answers a word (as the Devices pane reads it) */
    const json_t *d = json_object_get(item, "deployment");
    s = json_string_value(json_is_object(d) ? json_object_get(d, "state") : d);
    snprintf(n->deploy, sizeof n->deploy, "%s", s ? s : "");
    n->util = n->temp = NAN;
}

/* One node's latest reading (tx_pick hands them over one at a time, so
 * 10,000 of them are never decoded at once: read as one list they raised
 * the console's peak by about 50 MiB). */
typedef struct {
    json_t *readings;
    rd_time now;
} readings_read;

static int read_reading(json_t *doc, const char *key, void *data)
{
    (void)key;
    readings_read *rr = data;
    rd_err err;
    rd_time at;
    const char *node = json_string_value(json_object_get(doc, "node"));
    const char *ts = json_string_value(json_object_get(doc, "sampled_at"));
    if (node && ts && rdtime_parse("sampled_at", ts, &at, &err) == RD_OK && rr->now - at <= METRICS_STALE_S) {
        double sum = 0, hot = NAN;
        int count = 0;
        const char *series;
        const json_t *v;
        /* values are kept in hundredths (core/metrics) */
        json_object_foreach((json_t *)json_object_get(doc, "last"), series, v) {
            double x = (double)json_integer_value(v) / 100.0;
            if (strncmp(series, "gpu_util:", 9) == 0) {
                sum += x;
                count++;
            } else if (strncmp(series, "gpu_temp_c:", 11) == 0 && !(x <= hot)) {
                hot = x;
            }
        }
        json_object_set_new(rr->readings, node, json_pack("[o, o]", count ? json_real(sum / count) : json_null(),
                                                           isnan(hot) ? json_null() : json_real(hot)));
    }
    json_decref(doc);
    return 0;
}

/* The nodes' latest readings: the mean of their GPUs' use and the hottest
 * GPU, by node name ([use, temp], null where none).  A reading older than
 * METRICS_STALE_S is no reading, as for fleet totals and alerts. */
static void read_readings(session *c, fleet_state *f)
{
    static const char *const fields[] = { "node", "sampled_at", "last" };
    rd_err err;
    rd_tx *tx = NULL;
    json_decref(f->readings);
    f->readings = json_object();
    readings_read rr = { f->readings, c->opt->now_text ? c->opt->now : (rd_time)time(NULL) };
    rd_code rc = cmd_ctx_open_store(&c->ctx, &err);
    if (rc == RD_OK && !(tx = tx_new(c->ctx.store)))
        rc = rd_fail(&err, RD_ENOMEM, "out of memory");
    if (rc == RD_OK)
        rc = tx_pick(tx, KEY_METRICS "last/", NULL, fields, sizeof fields / sizeof fields[0], read_reading, &rr, &err);
    tx_free(tx);
    f->readings_ms = rdtime_mono_ms();
    f->readings_note[0] = '\0';
    if (rc != RD_OK)
        snprintf(f->readings_note, sizeof f->readings_note, "readings: %.180s", err.msg);
}

/* The readings read last into the cells. */
static void apply_readings(fleet_state *f, const pane_state *ps)
{
    for (size_t r = 0; r < f->nnodes && r < ps->g.nrows; r++) {   /* devices have no readings */
        const json_t *v = json_object_get(f->readings, ps->g.rows[r].key);
        const json_t *u = json_array_get(v, 0), *t = json_array_get(v, 1);
        f->nodes[r].util = json_is_number(u) ? json_number_value(u) : NAN;
        f->nodes[r].temp = json_is_number(t) ? json_number_value(t) : NAN;
    }
}

/* Whether the readings should be read now: never read yet, or old while
 * the colouring shows them. */
static int readings_due(const fleet_state *f)
{
    return !f->readings_ms ||
           ((f->by == BY_UTIL || f->by == BY_TEMP) && rdtime_mono_ms() - f->readings_ms >= FLEET_READINGS_MS);
}

static void refresh_readings(session *c, fleet_state *f, const pane_state *ps)
{
    read_readings(c, f);
    apply_readings(f, ps);
}

static void fleet_summary(const fleet_state *f, pane_state *ps)
{
    char devices[48] = "";
    if (f->ncells > f->nnodes)
        snprintf(devices, sizeof devices, " and %zu device%s", f->ncells - f->nnodes,
                 f->ncells - f->nnodes == 1 ? "" : "s");
    snprintf(ps->summary, sizeof ps->summary, "%zu nodes%s by region, coloured by %s (c: next colouring)%s%s",
             f->nnodes, devices, by_name[f->by], f->readings_note[0] ? "; " : "", f->readings_note);
}

/* The devices of the Devices table as rows of this one: a copy of each
 * (a few fields; the Devices pane keeps its own) named "device NAME". */
static int append_devices(json_t *items, const json_t *devices)
{
    size_t i;
    const json_t *d;
    json_array_foreach(devices, i, d) {
        const char *name = json_string_value(json_object_get(d, "name"));
        char key[200];
        json_t *row = json_copy((json_t *)d);
        snprintf(key, sizeof key, "device %s", name ? name : "?");
        if (!row || json_object_set_new(row, "name", json_string(key)) != 0 ||
            json_object_set_new(row, "kind", json_string("device")) != 0 || json_array_append_new(items, row) != 0) {
            json_decref(row);
            return 0;
        }
    }
    return 1;
}

/* The loader: the Nodes and Devices tables' items (read first if need
 * be), a cell each. */
static void fleet_load(session *c, const pane_view *v, pane_state *ps)
{
    fleet_state *f = fleet_of(c);
    pane_state *nodes = &c->screens[PANE_NODES].tables[0], *devices = &c->screens[PANE_DEVICES].tables[0];
    if (!nodes->loaded || nodes->stale)
        pane_load(c, PANE_NODES, 0);
    if (!devices->loaded || devices->stale)
        pane_load(c, PANE_DEVICES, 0);
    if (nodes->note_error)
        panes_set_note(ps, 1, nodes->note);
    /* A copy of the array: the Nodes pane patches its own in place. */
    json_t *items = json_is_array(nodes->items) ? json_copy(nodes->items) : json_array();
    size_t nn = json_array_size(items);
    /* A role that may not list devices sees the nodes alone. */
    if (items && !devices->note_error && !append_devices(items, devices->items))
        panes_set_note(ps, 1, "out of memory");
    panes_adopt_items(ps, items ? items : json_array());
    panes_fill_rows(v, ps, ps->items);
    size_t n = json_array_size(ps->items);
    fleet_node *fresh = realloc(f->nodes, (n ? n : 1) * sizeof *fresh);
    if (!fresh) {
        panes_set_note(ps, 1, "out of memory");
        return;
    }
    f->nodes = fresh;
    f->nnodes = nn < n ? nn : n;
    f->ncells = n;
    for (size_t i = 0; i < n; i++) {
        if (i < f->nnodes)
            read_node(&f->nodes[i], json_array_get(ps->items, i));
        else
            read_device(&f->nodes[i], json_array_get(ps->items, i));
    }
    apply_readings(f, ps);
    fleet_summary(f, ps);
}

/* ---- what a cell shows ------------------------------------------------------- */

static theme_elem heat(int level)
{
    return level < 0 ? TH_DIM : (theme_elem)(TH_HEAT_0 + level);
}

/* A device's glyph and element: its state in lower case (a active,
 * p provisioning, o offline), its deployment for health (o running,
 * X failed, - nothing running), and no reading for the GPU figures. */
static void classify_device(const fleet_node *n, int by, char *glyph, theme_elem *e)
{
    switch (by) {
    case BY_STATE:
        *e = theme_state_elem(n->state);
        *glyph = n->state[0] >= 'a' && n->state[0] <= 'z' ? n->state[0] : '?';
        return;
    case BY_HEALTH:
        *glyph = strcmp(n->deploy, "running") == 0 ? 'o' : strcmp(n->deploy, "failed") == 0 ? 'X' : '-';
        *e = *glyph == 'o' ? TH_STATE_ACTIVE : *glyph == 'X' ? TH_STATE_UNHEALTHY : TH_DIM;
        return;
    default:
        *glyph = fmap_shade(-1);
        *e = heat(-1);
    }
}

/* A node's (or device's) glyph and element under colouring by. */
static void classify(const fleet_node *n, int by, char *glyph, theme_elem *e)
{
    int level = -1;
    if (n->device) {
        classify_device(n, by, glyph, e);
        return;
    }
    switch (by) {
    case BY_STATE:
        *e = theme_state_elem(n->state);
        /* one letter a state; "removed" never shows (node list leaves it out) */
        *glyph = strcmp(n->state, "offline") == 0 ? 'O' : (char)(n->state[0] >= 'a' && n->state[0] <= 'z'
                                                                  ? n->state[0] - 'a' + 'A' : '?');
        return;
    case BY_ALLOC:
        level = n->gpus > 0 ? fmap_level(n->used / n->gpus, 0, 1, FMAP_SHADES) : -1;
        break;
    case BY_UTIL:
        level = fmap_level(n->util, 0, 100, FMAP_SHADES);
        break;
    case BY_TEMP:
        level = fmap_level(n->temp, FLEET_TEMP_LO, FLEET_TEMP_HI, FMAP_SHADES);
        break;
    default:
        *glyph = n->gpus <= 0 || n->cpu ? '-' : n->unhealthy ? 'X' : 'o';
        *e = n->gpus <= 0 || n->cpu ? TH_DIM : n->unhealthy ? TH_STATE_UNHEALTHY : TH_STATE_ACTIVE;
        return;
    }
    *glyph = level < 0 ? (n->gpus <= 0 ? '-' : '?') : fmap_shade(level);
    *e = heat(level);
}

/* The figure a colouring shows of a device, in words. */
static void device_figure_text(const fleet_node *n, int by, char *out, size_t len)
{
    switch (by) {
    case BY_STATE:
        snprintf(out, len, "%s", "");
        break;
    case BY_HEALTH:
        if (n->deploy[0])
            snprintf(out, len, "deployment %s", n->deploy);
        else
            snprintf(out, len, "nothing deployed");
        break;
    default:
        snprintf(out, len, "an edge device: no %s", by == BY_ALLOC ? "GPU allocation" : "GPU readings");
    }
}

/* The figure a colouring shows, in words, for the status line. */
static void figure_text(const fleet_node *n, int by, char *out, size_t len)
{
    char u[32], t[32];
    if (n->device) {
        device_figure_text(n, by, out, len);
        return;
    }
    switch (by) {
    case BY_STATE:   /* the line names the state anyway */
        snprintf(out, len, "%s", "");
        break;
    case BY_ALLOC:
        panes_number_text(n->used, u, sizeof u);
        panes_number_text(n->gpus, t, sizeof t);
        if (n->gpus <= 0)
            snprintf(out, len, "no GPUs");
        else
            snprintf(out, len, "%s/%s %s allocated (%.0f%%)", u, t, n->cpu ? "CPU cores" : "GPUs",
                     n->used / n->gpus * 100);
        break;
    case BY_UTIL:
        if (isnan(n->util))
            snprintf(out, len, "GPU use: no recent reading");
        else
            snprintf(out, len, "GPU use %.0f%% (mean of its GPUs)", n->util);
        break;
    case BY_TEMP:
        if (isnan(n->temp))
            snprintf(out, len, "temperature: no recent reading");
        else
            snprintf(out, len, "hottest GPU %.0f C", n->temp);
        break;
    default:
        if (n->gpus <= 0 || n->cpu)
            snprintf(out, len, "no GPUs");
        else if (n->unhealthy)
            snprintf(out, len, "%d of %.0f GPUs unhealthy", n->unhealthy, n->gpus);
        else
            snprintf(out, len, "%.0f GPUs healthy", n->gpus);
    }
}

/* ---- arrangement --------------------------------------------------------------- */

static const char *row_region(const grid_row *r)
{
    return r->cells[1] ? r->cells[1] : "-";
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Orders the table's view (filtered, sorted) by region, names first in
 * order, within one its nodes before its devices, each in the table's own
 * order, and lays the cells out in the cell area (width x height); 0 when
 * out of memory. */
static int arrange(session *c, fleet_state *f, const char ***names, size_t *nnames)
{
    grid *g = &c->screens[PANE_FLEET].tables[0].g;
    size_t n = g->nview, ng = 0, cap = 16;
    const char **reg = malloc(cap * sizeof *reg), *last = NULL;
    size_t *group = malloc((n ? n : 1) * sizeof *group), *count = NULL, lastg = 0;
    size_t *order = realloc(f->order, (n ? n : 1) * sizeof *order);
    if (order)
        f->order = order;
    size_t *cell_of = order ? realloc(f->cell_of, (n ? n : 1) * sizeof *cell_of) : NULL;
    if (cell_of)
        f->cell_of = cell_of;
    int ok = reg && group && order && cell_of;
    /* The regions in view, sorted: rows of a region mostly come together,
     * so the last one found answers most rows at once. */
    for (size_t i = 0; ok && i < n; i++) {
        const char *r = row_region(&g->rows[g->view[i]]);
        if (last && strcmp(r, last) == 0)
            continue;
        size_t k = 0;
        while (k < ng && strcmp(reg[k], r) != 0)
            k++;
        if (k == ng) {
            if (ng == cap) {
                const char **more = realloc(reg, 2 * cap * sizeof *reg);
                if (!(ok = more != NULL))
                    break;
                reg = more;
                cap *= 2;
            }
            reg[ng++] = r;
        }
        last = r;
    }
    if (ok && ng)
        qsort(reg, ng, sizeof *reg, by_text);
    /* count[2k] a region's nodes, count[2k + 1] its devices */
    count = ok ? calloc(ng ? 2 * ng : 1, sizeof *count) : NULL;
    int *head_w = count ? malloc((ng ? ng : 1) * sizeof *head_w) : NULL;
    size_t *ncount = head_w ? malloc((ng ? ng : 1) * sizeof *ncount) : NULL,
           *dcount = ncount ? malloc((ng ? ng : 1) * sizeof *dcount) : NULL;
    ok = ok && count && head_w && ncount && dcount;
    last = NULL;
    for (size_t i = 0; ok && i < n; i++) {
        const char *r = row_region(&g->rows[g->view[i]]);
        if (!last || strcmp(r, last) != 0) {
            const char **at = bsearch(&r, reg, ng, sizeof *reg, by_text);
            lastg = (size_t)(at - reg);
            last = r;
        }
        size_t row = g->view[i];
        group[i] = 2 * lastg + (row < f->ncells && f->nodes[row].device);
        count[group[i]]++;
    }
    /* Counting sort: each region's nodes, then its devices, in the table's order. */
    size_t *start = ok ? calloc(ng ? 2 * ng : 1, sizeof *start) : NULL;
    ok = ok && start;
    for (size_t k = 1; ok && k < 2 * ng; k++)
        start[k] = start[k - 1] + count[k - 1];
    for (size_t k = 0; ok && k < ng; k++) {
        ncount[k] = count[2 * k];
        dcount[k] = count[2 * k + 1];
    }
    for (size_t i = 0; ok && i < n; i++) {
        f->order[start[group[i]]] = i;
        f->cell_of[i] = start[group[i]]++;
    }
    for (size_t k = 0; ok && k < ng; k++)
        head_w[k] = text_cols(reg[k]) + 2;   /* "lab: " in the flow, "lab" over a block */
    ok = ok && fmap_lay(&f->L, ncount, dcount, head_w, ng, f->width, f->height);
    f->norder = ok ? n : 0;
    free(group);
    free(count);
    free(ncount);
    free(dcount);
    free(start);
    free(head_w);
    if (!ok) {
        free(reg);
        reg = NULL;
        ng = 0;
    }
    *names = reg;
    *nnames = ng;
    return ok;
}

/* ---- drawing --------------------------------------------------------------------- */

static int legend_item(int y, int x, int end, char glyph, theme_elem e, const char *label)
{
    char g[2] = { glyph, '\0' };
    if (x >= end)
        return x;
    x += draw_text(y, x, end - x, g, e);
    x += draw_text(y, x, end - x, " ", TH_NORMAL);
    x += draw_text(y, x, end - x, label, TH_DIM);
    return x + draw_text(y, x, end - x, "  ", TH_NORMAL);
}

/* The legend's part for devices, on a fleet that has any: after the
 * separator, their glyphs under this colouring. */
static int device_legend(const fleet_state *f, int y, int x, int end)
{
    static const char *const states[] = { "active", "provisioning", "offline" };
    if (f->ncells <= f->nnodes)
        return x;
    switch (f->by) {
    case BY_STATE:   /* lower case: "| devices: a p o" */
        x = legend_item(y, x, end, FMAP_SEP, TH_DIM, "devices:") - 1;
        for (size_t i = 0; i < sizeof states / sizeof states[0] && x < end; i++) {
            fleet_node n = { .device = 1 };
            char glyph[2] = { 0, 0 };
            theme_elem e;
            snprintf(n.state, sizeof n.state, "%s", states[i]);
            classify_device(&n, BY_STATE, &glyph[0], &e);
            x += draw_text(y, x, end - x, glyph, e);
            x += draw_text(y, x, end - x, " ", TH_NORMAL);
        }
        return x;
    case BY_HEALTH:
        x = legend_item(y, x, end, FMAP_SEP, TH_DIM, "devices:") - 1;
        x = legend_item(y, x, end, 'o', TH_STATE_ACTIVE, "running");
        x = legend_item(y, x, end, 'X', TH_STATE_UNHEALTHY, "failed");
        return legend_item(y, x, end, '-', TH_DIM, "none");
    default:
        return legend_item(y, x, end, FMAP_SEP, TH_DIM, "devices follow");
    }
}

/* The legend: what the colouring is, then each glyph with its meaning. */
static void draw_legend(const fleet_state *f, int y, int x, int w)
{
    static const char *const states[] = { "active", "maintenance", "draining", "provisioning", "offline",
                                          "rejected" };
    static const char *const pct[FMAP_SHADES] = { "<20%", "20-39%", "40-59%", "60-79%", ">=80%" };
    char head[64], label[32];
    int end = x + w;
    snprintf(head, sizeof head, "colour: %s  ", by_name[f->by]);
    x += draw_text(y, x, w, head, TH_SECTION);
    switch (f->by) {
    case BY_STATE:
        for (size_t i = 0; i < sizeof states / sizeof states[0]; i++) {
            fleet_node n = { .gpus = 0 };
            char glyph;
            theme_elem e;
            snprintf(n.state, sizeof n.state, "%s", states[i]);
            classify(&n, BY_STATE, &glyph, &e);
            x = legend_item(y, x, end, glyph, e, states[i]);
        }
        break;
    case BY_HEALTH:
        x = legend_item(y, x, end, 'o', TH_STATE_ACTIVE, "all GPUs healthy");
        x = legend_item(y, x, end, 'X', TH_STATE_UNHEALTHY, "a GPU unhealthy");
        x = legend_item(y, x, end, '-', TH_DIM, "no GPUs");
        break;
    default:
        for (int l = 0; l < FMAP_SHADES; l++) {
            if (f->by == BY_TEMP)
                snprintf(label, sizeof label, l == 0 ? "<%.0fC" : l == FMAP_SHADES - 1 ? ">=%.0fC" : "%.0fC+",
                         FLEET_TEMP_LO + (FLEET_TEMP_HI - FLEET_TEMP_LO) * (l ? l : 1) / FMAP_SHADES);
            else
                snprintf(label, sizeof label, "%s", pct[l]);
            x = legend_item(y, x, end, fmap_shade(l), heat(l), label);
        }
        x = legend_item(y, x, end, '?', TH_DIM, "no reading");
        x = legend_item(y, x, end, '-', TH_DIM, "no GPUs");
    }
    device_legend(f, y, x, end);
}

static void draw_fleet(session *c, lay_rect body)
{
    fleet_state *f = fleet_of(c);
    pane_state *ps = &c->screens[PANE_FLEET].tables[0];
    grid *g = &ps->g;
    const char **names = NULL;
    size_t nnames = 0;
    if (body.h < 3 || body.w < 4)
        return;
    draw_legend(f, body.y, body.x + 1, body.w - 1);
    /* the line under the legend: the node (or "device NAME") under the cursor */
    const grid_row *cur = grid_current(g);
    if (cur && g->view[g->cursor] < f->ncells) {
        char fig[160], line[600];
        const fleet_node *n = &f->nodes[g->view[g->cursor]];
        figure_text(n, f->by, fig, sizeof fig);
        snprintf(line, sizeof line, "%s  region %s  %s  %s", cur->key, row_region(cur), n->state, fig);
        draw_text(body.y + 1, body.x + 1, body.w - 1, line, TH_NORMAL);
    } else if (ps->note[0]) {
        draw_text(body.y + 1, body.x + 1, body.w - 1, ps->note, ps->note_error ? TH_STATUS_ERROR : TH_DIM);
    }
    f->width = body.w - 2;
    f->height = body.h - 2;
    if (!arrange(c, f, &names, &nnames)) {
        draw_text(body.y + 2, body.x + 1, body.w - 1, "out of memory", TH_STATUS_ERROR);
        return;
    }
    const fmap_layout *L = &f->L;
    size_t at = g->cursor < g->nview ? f->cell_of[g->cursor] : 0;
    f->top = fmap_scroll(f->top, L->n ? L->cell_y[at] : 0, f->height, L->lines);
    int y0 = body.y + 2 - f->top, x0 = body.x + 1;
    for (size_t k = 0; k < L->ngroups; k++) {
        int y = L->head_y[k];
        if (y >= f->top && y < f->top + f->height) {
            char head[300];
            snprintf(head, sizeof head, L->flow ? "%s:" : "%s", names[k]);
            draw_text(y0 + y, x0 + L->head_x[k], f->width - L->head_x[k], head, TH_SECTION);
        }
        y = L->sep_y[k];   /* between the region's nodes and its devices */
        if (y >= f->top && y < f->top + f->height)
            mvaddch(y0 + y, x0 + L->sep_x[k], (chtype)FMAP_SEP | (chtype)theme_attr(TH_DIM));
    }
    /* One character a cell, straight into curses: a draw_text per cell
     * would measure 10,000 one-letter strings a frame. */
    for (size_t k = 0; k < L->n; k++) {
        int y = L->cell_y[k];
        if (y < f->top || y >= f->top + f->height)
            continue;
        size_t r = g->view[f->order[k]];
        char glyph = '?';
        theme_elem e = TH_DIM;
        if (r < f->ncells)
            classify(&f->nodes[r], f->by, &glyph, &e);
        if (f->order[k] == g->cursor)
            e = TH_ROW_SELECTED;
        else if (g->nmarks && grid_is_marked(g, g->rows[r].key))
            e = TH_ROW_MARKED;
        mvaddch(y0 + y, x0 + L->cell_x[k], (chtype)(unsigned char)glyph | (chtype)theme_attr(e));
    }
    free(names);
}

/* ---- keys ---------------------------------------------------------------------------- */

/* Says in the status line which node or device the cursor is on. */
static void name_current(session *c)
{
    fleet_state *f = fleet_of(c);
    grid *g = &c->screens[PANE_FLEET].tables[0].g;
    const grid_row *cur = grid_current(g);
    if (!cur || g->view[g->cursor] >= f->ncells)
        return;
    char fig[160];
    const fleet_node *n = &f->nodes[g->view[g->cursor]];
    figure_text(n, f->by, fig, sizeof fig);
    session_set_status(c, "%s  region %s  %s  %s", cur->key, row_region(cur), n->state, fig);
}

/* The cursor keys move over the cells as laid out in the last frame:
 * Left/Right (h/l) a cell, Up/Down (k/j) a line, PgUp/PgDn a screen,
 * Home/End the first and last cell. */
static int fleet_move(session *c, int key)
{
    fleet_state *f = fleet_of(c);
    grid *g = &c->screens[PANE_FLEET].tables[0].g;
    const char **names = NULL;
    size_t nnames = 0;
    if (!g->nview)
        return 1;
    if (f->width <= 0) {   /* no frame yet: a layout of the screen's size */
        f->width = COLS - 2;
        f->height = LINES - 8;
    }
    if (!arrange(c, f, &names, &nnames))
        return 1;
    free(names);
    size_t at = f->cell_of[g->cursor < g->nview ? g->cursor : 0], n = f->L.n;
    int page = f->height > 1 ? f->height - 1 : 1;
    switch (key) {
    case CK_FN(KEY_LEFT): case 'h': at = at ? at - 1 : 0; break;
    case CK_FN(KEY_RIGHT): case 'l': at = at + 1 < n ? at + 1 : at; break;
    case CK_FN(KEY_UP): case 'k': at = fmap_vertical(&f->L, at, -1); break;
    case CK_FN(KEY_DOWN): case 'j': at = fmap_vertical(&f->L, at, 1); break;
    case CK_FN(KEY_PPAGE): case CK_CTRL('b'):
        for (int i = 0; i < page; i++)
            at = fmap_vertical(&f->L, at, -1);
        break;
    case CK_FN(KEY_NPAGE): case CK_CTRL('f'):
        for (int i = 0; i < page; i++)
            at = fmap_vertical(&f->L, at, 1);
        break;
    case CK_FN(KEY_HOME): case 'g': at = 0; break;
    case CK_FN(KEY_END): case 'G': at = n ? n - 1 : 0; break;
    default: return 0;
    }
    if (at < n)
        g->cursor = f->order[at];
    name_current(c);
    return 1;
}

/* 'c': the next colouring; GPU use and temperature read the readings if
 * they are missing or old. */
static void fleet_act(session *c, int key)
{
    (void)key;
    fleet_state *f = fleet_of(c);
    pane_state *ps = &c->screens[PANE_FLEET].tables[0];
    f->by = (f->by + 1) % BY_COUNT;
    /* Read in the pane's first quiet moment as a rule (fleet_idle); a
     * key faster than that waits for them here, once. */
    if ((f->by == BY_UTIL || f->by == BY_TEMP) && !f->readings_ms)
        refresh_readings(c, f, ps);
    fleet_summary(f, ps);
    name_current(c);
}

/* A quiet moment: the readings, the first time the pane shows (so that c
 * onto GPU use costs a frame, not a read) and then, while the colouring
 * shows them, every FLEET_READINGS_MS.  On 10,000 nodes the read takes
 * about a quarter of a second, as the Dashboard's fleet means. */
static int fleet_idle(session *c)
{
    fleet_state *f = fleet_of(c);
    pane_state *ps = &c->screens[PANE_FLEET].tables[0];
    if (!ps->loaded || !readings_due(f))
        return 0;
    refresh_readings(c, f, ps);
    fleet_summary(f, ps);
    return 1;
}

static void *fleet_own_new(void)
{
    return calloc(1, sizeof(fleet_state));
}

static void fleet_own_free(void *own)
{
    fleet_state *f = own;
    if (!f)
        return;
    free(f->nodes);
    free(f->order);
    free(f->cell_of);
    fmap_free(&f->L);
    json_decref(f->readings);
    free(f);
}

/* Its table's columns are what the filter ('/') matches and the sort
 * ('s') orders within a region; the cells show none of them.  KIND
 * ("node" or "device") lets `/kind:device` pick the devices. */
static const pane_col fleet_cols[] = {
    { "NAME", "name", 16, 12, 0, 0 }, { "REGION", "region", 12, 6, 0, 0 }, { "STATE", "state", 12, 12, 0, COL_STATE },
    { "KIND", "@kind", 6, 4, 0, 0 },
};

static void fleet_cell(const json_t *item, const char *field, char *out, size_t len, double *bar)
{
    (void)bar;
    if (strcmp(field, "@kind") == 0)   /* only the devices' copies say (append_devices) */
        snprintf(out, len, "%s", json_object_get(item, "kind") ? "device" : "node");
    else
        snprintf(out, len, "?");
}

/* Enter on a device: its details as the Devices pane shows them. */
static int fleet_show_line(session *c, const char *key, char *line, size_t len)
{
    (void)c;
    if (strncmp(key, "device ", 7) != 0)
        return 0;
    snprintf(line, len, "device show ");
    prompt_quote_word(line, len, key + 7);
    return 1;
}

static const pane_view fleet_views[] = {
    { .title = "Fleet", PANE_COLS(fleet_cols), .cell = fleet_cell, .key_field = "name", .show_cmd = "node show",
      .empty_note = "No nodes yet: add them in the Nodes pane (3).", .load = fleet_load, .reload_ms = 2000,
      .kinds = LK_NODES | LK_DEVICES | LK_METRICS, .owner_field = "owner" },
};

const pane_def pane_fleet = {
    /* "Map" at the narrower widths: with it the tabs still fit 120
     * columns with their middle labels (and all but this one 80). */
    .name = "Fleet map", .mid = "Map", .tiny = "Map", .key = '#', PANE_VIEWS(fleet_views),
    .own_new = fleet_own_new, .own_free = fleet_own_free,
    .draw = draw_fleet, .cursor_key = fleet_move, .act = fleet_act, .idle = fleet_idle, .show_line = fleet_show_line,
};
