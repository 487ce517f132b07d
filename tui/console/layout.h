/* layout.h - where each part of the console goes, as a pure function of the
 * terminal size (no curses here, so it is unit tested across sizes).
 *
 * Rows from the top: header, tabs, optional banner (store lost), summary,
 * the table (column header + rows), status line, footer.  The detail view is
 * a panel at the right of the table on wide terminals and replaces the table
 * on narrow ones.  Below the minimum size (80x24) only a message is shown.
 */
#ifndef RD_LAYOUT_H
#define RD_LAYOUT_H

#include <stddef.h>

#define LAYOUT_MIN_COLS 80
#define LAYOUT_MIN_ROWS 24
/* From this width on, details open beside the table instead of over it. */
#define LAYOUT_SIDE_DETAIL_COLS 150

typedef struct {
    int y, x, h, w;
} lay_rect;

typedef struct {
    int too_small;      /* below LAYOUT_MIN_*: draw only a "resize me" message */
    lay_rect header;
    lay_rect tabs;
    lay_rect banner;    /* h = 0 unless a banner is shown */
    lay_rect summary;
    lay_rect table;     /* first row: column headers */
    lay_rect detail;    /* h = w = 0 unless details are open */
    lay_rect status;
    lay_rect footer;
} lay_screen;

/* The layout of a rows x cols terminal; banner and detail are 0 or 1. */
lay_screen layout_compute(int rows, int cols, int banner, int detail);

/* Number of table rows that show data (the table height minus its header). */
int layout_table_data_rows(const lay_screen *s);

/* Widths for ncols columns in avail cells, one space between columns.
 * Column i wants want[i] cells and needs at least min[i].  While the
 * widths halfway between wanted and needed do not fit, droppable columns (drop[i] > 0) are hidden, highest
 * drop[i] first (ties: the rightmost); then the widest columns shrink
 * toward their minimum; if even the minimums do not fit, columns are hidden
 * from the right.  Hidden columns get width 0; spare room stays unused.
 * Returns the number of columns shown. */
size_t layout_columns(const int *want, const int *min, const int *drop, size_t ncols, int avail, int *out);

/* Gives the room layout_columns left unused to the shown columns (out[i]
 * > 0) whose text needs more than they got (need[i] > out[i]), a cell at a
 * time to the one missing the most (ties: the leftmost), so a truncated
 * column (an alert's id, a job's waiting reason) grows with the terminal
 * and columns that fit keep their width.  Returns the cells given. */
int layout_columns_grow(const int *need, size_t ncols, int avail, int *out);

/* The tabs row: n tabs whose labels are label_cols[i][0] (full name),
 * [1] (shorter) and [2] (shortest) display columns wide, on a row w wide.
 * The first level whose tabs all fit wins (" K label " each); else level 3,
 * the shortest labels without the leading blank ("K label "), clipped at
 * the row's end.  x[i] and wd[i] say where tab i starts and how wide it is
 * (0 when clipped away).  Returns the level.  The drawing (draw.c) and the
 * mouse (mouse.c) both place tabs by it, so a click hits what is shown. */
int layout_tabs(const int (*label_cols)[3], int n, int w, int *x, int *wd);

/* A centred box of at most w x h within the screen (for dialogs). */
lay_rect layout_center(int rows, int cols, int h, int w);

/* ---- the Dashboard ------------------------------------------------------- */

/* Firing alerts listed at most (the Alerts pane lists them all). */
#define DASH_ALERTS_MAX 10
/* A stat's name column ("gpu_mem_used_gb") and each figure's column. */
#define DASH_LABEL_COLS 16
#define DASH_VALUE_COLS 11
/* From this width on, the node's stats and the GPU's sit side by side. */
#define DASH_SIDE_COLS 150

typedef struct {
    lay_rect fleet;         /* the fleet totals: one row (h = 0: no room) */
    lay_rect alerts;        /* "N firing" then alert_rows alerts */
    lay_rect node;          /* a heading row, then node_rows stat rows */
    lay_rect gpu;           /* a heading row, then gpu_rows stat rows (h = 0: none) */
    int alert_rows, node_rows, gpu_rows;
    /* A stat row inside node or gpu: the name at x + 1 (label_w), the
     * sparkline after it (spark_w), then nvalues figures (now, min, max:
     * the first nvalues of them) of value_w each, right-aligned. */
    int label_w, spark_w, value_w, nvalues;
} lay_dash;

/* Where the Dashboard's parts go in body (the table's area) for nalerts
 * firing alerts, nnode node stats and ngpu stats of one GPU (0: none),
 * with sparklines of at most points cells (0: no cap).  When rows run
 * short the node's stats come first, then the alert count, the GPU's
 * stats, three alerts, blank rows between parts, more alerts (up to
 * DASH_ALERTS_MAX); whatever does not fit has 0 rows.  Wide bodies put
 * the GPU's stats beside the node's. */
lay_dash layout_dashboard(lay_rect body, int nalerts, int nnode, int ngpu, int points);

/* The Dashboard's roll-up block (use per region or account: a heading,
 * then up to nrows rows) in the rows of body that d leaves below its
 * parts, after a blank row; h = 0 when fewer than 3 rows are left, so the
 * parts above never give up a row for it. */
lay_rect layout_dash_rollup(const lay_dash *d, lay_rect body, int nrows);

#endif
