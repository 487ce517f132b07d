/* layout.c - screen geometry: pure arithmetic on the terminal size. */
#include "layout.h"

#include <string.h>

static lay_rect rect(int y, int x, int h, int w)
{
    lay_rect r = { y, x, h > 0 ? h : 0, w > 0 ? w : 0 };
    return r;
}

lay_screen layout_compute(int rows, int cols, int banner, int detail)
{
    lay_screen s = { 0 };
    if (rows < LAYOUT_MIN_ROWS || cols < LAYOUT_MIN_COLS) {
        s.too_small = 1;
        return s;
    }
    int y = 0;
    s.header = rect(y++, 0, 1, cols);
    s.tabs = rect(y++, 0, 1, cols);
    s.banner = rect(y, 0, banner ? 1 : 0, cols);
    y += s.banner.h;
    s.summary = rect(y++, 0, 1, cols);
    /* status and footer take the last two rows */
    s.status = rect(rows - 2, 0, 1, cols);
    s.footer = rect(rows - 1, 0, 1, cols);
    int body = rows - 2 - y;
    s.table = rect(y, 0, body, cols);
    if (detail) {
        if (cols >= LAYOUT_SIDE_DETAIL_COLS) {
            /* Wide: keep the table readable on the left, details on the right. */
            int dw = cols * 2 / 5;
            s.table.w = cols - dw;
            s.detail = rect(y, cols - dw, body, dw);
        } else {
            s.detail = s.table;
            s.table.h = 0;
            s.table.w = 0;
        }
    }
    return s;
}

int layout_table_data_rows(const lay_screen *s)
{
    return s->table.h > 1 ? s->table.h - 1 : 0;
}

static int total_width(const int *w, const int *on, size_t n)
{
    int sum = 0, shown = 0;
    for (size_t i = 0; i < n; i++) {
        if (on[i]) {
            sum += w[i];
            shown++;
        }
    }
    return sum + (shown > 1 ? shown - 1 : 0);
}

size_t layout_columns(const int *want, const int *min, const int *drop, size_t ncols, int avail, int *out)
{
    int on[64];
    size_t n = ncols < 64 ? ncols : 64;
    for (size_t i = 0; i < ncols; i++)
        out[i] = 0;
    for (size_t i = 0; i < n; i++)
        on[i] = 1;
    /* Hide optional columns while the others would have to give up more
     * than half of their slack: a squeezed column is harder to read than
     * a missing one, but a column need not be hidden to save a cell. */
    int mid[64];
    for (size_t i = 0; i < n; i++)
        mid[i] = (want[i] + min[i] + 1) / 2;
    while (total_width(mid, on, n) > avail) {
        size_t victim = n;
        for (size_t i = 0; i < n; i++)
            if (on[i] && drop[i] > 0 && (victim == n || drop[i] >= drop[victim]))
                victim = i;
        if (victim == n)
            break;
        on[victim] = 0;
    }
    while (total_width(min, on, n) > avail) {
        size_t last = n;
        for (size_t i = 0; i < n; i++)
            if (on[i])
                last = i;
        if (last == n)
            return 0;
        on[last] = 0;
    }
    size_t shown = 0;
    for (size_t i = 0; i < n; i++) {
        out[i] = on[i] ? want[i] : 0;
        shown += (size_t)on[i];
    }
    int excess = total_width(out, on, n) - avail;
    /* Shrink the widest shrinkable column one cell at a time so that no
     * single column is squeezed to nothing while others stay wide. */
    while (excess > 0) {
        size_t widest = n;
        for (size_t i = 0; i < n; i++)
            if (on[i] && out[i] > min[i] && (widest == n || out[i] > out[widest]))
                widest = i;
        if (widest == n)
            break;
        out[widest]--;
        excess--;
    }
    return shown;
}

int layout_columns_grow(const int *need, size_t ncols, int avail, int *out)
{
    int used = 0, shown = 0, given = 0;
    for (size_t i = 0; i < ncols; i++) {
        if (out[i] > 0) {
            used += out[i];
            shown++;
        }
    }
    int spare = avail - used - (shown > 1 ? shown - 1 : 0);
    while (spare > 0) {
        size_t most = ncols;
        for (size_t i = 0; i < ncols; i++)
            if (out[i] > 0 && need[i] > out[i] && (most == ncols || need[i] - out[i] > need[most] - out[most]))
                most = i;
        if (most == ncols)
            break;
        out[most]++;
        spare--;
        given++;
    }
    return given;
}

int layout_tabs(const int (*label_cols)[3], int n, int w, int *x, int *wd)
{
    int level = 0;
    for (; level < 3; level++) {
        int total = 0;
        for (int i = 0; i < n; i++)
            total += label_cols[i][level] + 4;
        if (total <= w)
            break;
    }
    int at = 0;
    for (int i = 0; i < n; i++) {
        /* " K label " (level 3: "K label "): the key, a blank, the label */
        int tw = label_cols[i][level < 3 ? level : 2] + (level < 3 ? 4 : 3);
        if (tw > w - at)
            tw = w - at > 0 ? w - at : 0;
        x[i] = at;
        wd[i] = tw;
        at += tw;
    }
    return level;
}

lay_rect layout_center(int rows, int cols, int h, int w)
{
    if (h > rows - 2)
        h = rows - 2;
    if (w > cols - 4)
        w = cols - 4;
    return rect((rows - h) / 2, (cols - w) / 2, h, w);
}

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

/* Takes up to want rows from *rem; returns how many it got. */
static int take(int *rem, int want)
{
    int got = min_int(*rem, want > 0 ? want : 0);
    *rem -= got;
    return got;
}

/* The columns of a stat row w wide: the sparkline gets what the name and
 * the figures leave, up to points cells; figures go (max, then min) before
 * the sparkline shrinks below a readable 12 cells. */
static void dash_columns(lay_dash *d, int w, int points)
{
    d->label_w = DASH_LABEL_COLS;
    d->value_w = DASH_VALUE_COLS;
    for (d->nvalues = 3; d->nvalues > 1; d->nvalues--)
        if (w - 2 - d->label_w - d->nvalues * d->value_w >= 12)
            break;
    if (w - 2 - d->label_w - d->nvalues * d->value_w < 4)
        d->label_w = min_int(d->label_w, w / 3);
    d->spark_w = w - 2 - d->label_w - d->nvalues * d->value_w;
    if (points > 0 && d->spark_w > points)
        d->spark_w = points;
    if (d->spark_w < 0)
        d->spark_w = 0;
}

lay_dash layout_dashboard(lay_rect body, int nalerts, int nnode, int ngpu, int points)
{
    lay_dash d;
    memset(&d, 0, sizeof d);
    int rem = body.h;
    int side = body.w >= DASH_SIDE_COLS && ngpu > 0;
    int fleet = take(&rem, 1);
    int node_head = nnode > 0 && rem >= 2 ? take(&rem, 1) : 0;
    d.node_rows = node_head ? take(&rem, nnode) : 0;
    int alert_head = take(&rem, 1);
    int gpu_head = 0;
    if (ngpu > 0 && side && node_head) {
        /* Beside the node's rows: only rows beyond those cost height. */
        gpu_head = 1;
        d.gpu_rows = min_int(ngpu, d.node_rows);
        d.gpu_rows += take(&rem, ngpu - d.gpu_rows);
    } else if (ngpu > 0 && rem >= 2) {
        gpu_head = take(&rem, 1);
        d.gpu_rows = take(&rem, ngpu);
    }
    d.alert_rows = alert_head ? take(&rem, min_int(nalerts, 3)) : 0;
    int sep_alerts = take(&rem, fleet && alert_head);
    int sep_node = take(&rem, alert_head && node_head);
    int sep_gpu = side ? 0 : take(&rem, node_head && gpu_head);
    if (alert_head)
        d.alert_rows += take(&rem, min_int(nalerts, DASH_ALERTS_MAX) - d.alert_rows);

    int y = body.y;
    d.fleet = rect(y, body.x, fleet, body.w);
    y += fleet + sep_alerts;
    d.alerts = rect(y, body.x, alert_head ? 1 + d.alert_rows : 0, body.w);
    y += d.alerts.h + sep_node;
    int stat_w = side ? body.w / 2 : body.w;
    int node_h = node_head ? 1 + (side ? (d.node_rows > d.gpu_rows ? d.node_rows : d.gpu_rows) : d.node_rows) : 0;
    d.node = rect(y, body.x, node_h, stat_w);
    if (side) {
        d.gpu = rect(y, body.x + stat_w, gpu_head ? node_h : 0, body.w - stat_w);
    } else {
        y += node_h + sep_gpu;
        d.gpu = rect(y, body.x, gpu_head ? 1 + d.gpu_rows : 0, body.w);
    }
    dash_columns(&d, stat_w, points);
    return d;
}

lay_rect layout_dash_rollup(const lay_dash *d, lay_rect body, int nrows)
{
    const lay_rect parts[4] = { d->fleet, d->alerts, d->node, d->gpu };
    int bottom = body.y;
    for (int i = 0; i < 4; i++)
        if (parts[i].h > 0 && parts[i].y + parts[i].h > bottom)
            bottom = parts[i].y + parts[i].h;
    int rem = body.y + body.h - bottom;
    if (rem < 3 || nrows <= 0)
        return rect(bottom, body.x, 0, body.w);
    return rect(bottom + 1, body.x, min_int(1 + nrows, rem - 1), body.w);
}
