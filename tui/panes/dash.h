/* dash.h - the Dashboard pane: fleet totals, the firing alerts, and the
 * vital stats of one node over the last hour (a sparkline per stat, of
 * the node and of one of its GPUs).
 *
 * What it reads: `metrics fleet` and `alert list` through the command
 * language, and the selected node's history through the core's reader
 * (metrics_read_points, one read transaction): only that node's
 * documents, so a 10,000-node store costs what a 10-node one does.  The
 * selected node is the Nodes pane's selection, so both panes follow one
 * choice; '[' and ']' pick the GPU.  Below, where rows are left, the
 * fleet's use rolled up per region or per account (`metrics fleet --by`,
 * read with the fleet totals; 'u' switches the grouping).  The formatting helpers are pure and
 * unit tested; pane_dashboard.c holds them and the pane's record,
 * draw_dash.c paints.
 */
#ifndef RD_DASH_H
#define RD_DASH_H

#include <stddef.h>

#include <jansson.h>

#include "metrics.h"

/* The window: the last hour, a point a minute. */
#define DASH_POINTS 60
#define DASH_STATS_MAX 16
/* The fleet's mean use is read at most this often: it reads every node's
 * latest reading, the one cost here that grows with the fleet (a quarter
 * of a second at 10,000 nodes).  The first frame shows the totals the
 * Nodes table gives at once and the means DASH_FLEET_FIRST_MS later. */
#define DASH_FLEET_MS 15000
#define DASH_FLEET_FIRST_MS 500
/* The pane reloads at most this often however busy the store. */
#define DASH_RELOAD_MS 1000

typedef struct {
    const metrics_stat *stat;
    char key[METRICS_SERIES_MAX];   /* "cpu_util", "gpu_temp_c:0" */
    double avg[DASH_POINTS];        /* each minute's average, oldest first; NaN: no samples */
    size_t count;                   /* minutes with samples */
    double lo, hi;                  /* the hour's extremes (minute mins and maxes) */
    double now;                     /* the latest reading */
    int has_now;
} dash_series;

typedef struct {
    json_t *fleet;                  /* `metrics fleet`, or totals from the Nodes table; NULL: none */
    char fleet_note[256];           /* why the totals are partial */
    long long fleet_ms;             /* when they were read (monotonic ms); 0: never */
    long long firing;               /* firing alerts; -1: unknown */
    json_t *recent;                 /* the newest firing alerts first, at most DASH_ALERTS_MAX */
    char alerts_note[256];
    char node[256];                 /* the node shown; "" none */
    json_t *node_doc;               /* its `node show` */
    int gpus;                       /* GPUs it reports */
    int gpu;                        /* the GPU shown */
    char sampled_at[40];
    dash_series node_stats[DASH_STATS_MAX], gpu_stats[DASH_STATS_MAX];
    size_t nnode, ngpu;
    char note[512];                 /* why there is nothing to show for the node */
    json_t *rollup;                 /* `metrics fleet --by region|account`; NULL: not read yet */
    int rollup_by_account;          /* 0: per region, 1: per account ('u') */
    char rollup_note[256];          /* why there is no roll-up */
    int loaded;
} dash_state;

struct session;

/* The Dashboard's state: its screen's own (panes_init makes it). */
dash_state *dash_of(const struct session *c);

/* Reads everything the pane shows (fleet totals at most every
 * DASH_FLEET_MS unless force_fleet). */
void dash_load(struct session *c, int force_fleet);

/* Reads just the selected node's stats again (after the selection moved). */
void dash_load_node(struct session *c);

/* Moves to the previous (-1) or next (+1) GPU of the node and reads it. */
void dash_step_gpu(struct session *c, int delta);

/* Switches the roll-up between per region and per account and reads it. */
void dash_toggle_rollup(struct session *c);

/* Frees what the state holds. */
void dash_free(dash_state *d);

/* ---- pure helpers ----------------------------------------------------------- */

/* Fills s from points (t, min, avg, max) of the window [until - 3600,
 * until): one slot a minute, gaps NaN. */
void dash_fill_series(dash_series *s, const metrics_point *pts, size_t n, rd_time until);

/* A reading with its unit, short: "34%", "12.3 GB", "1.5 MB/s", "71 C",
 * "250 W", "3"; "-" when not finite. */
void dash_format_value(double v, const char *unit, char *out, size_t len);

/* The fleet totals as one line: "GPUs 12/16 allocated  15 healthy  1
 * unhealthy  GPU use 47%  CPU use 31%", from `metrics fleet`'s fields. */
void dash_fleet_text(const json_t *fleet, char *out, size_t len);

/* The roll-up block's heading and one of its rows (a `metrics fleet --by`
 * item) in the same columns: "pub  1  3/4  40%  19.2/64  200/512 GB
 * 40.01/2000 GB"; by account the capacity is not the account's, so only
 * the used figures show. */
void dash_rollup_head(int by_account, char *out, size_t len);
void dash_rollup_text(const json_t *row, int by_account, char *out, size_t len);

/* One alert as a line: "#12 critical node-offline n3 GPU 1 value 97 since 12:04:05 (acked by bob)". */
void dash_alert_text(const json_t *alert, char *out, size_t len);

/* The newest of the firing alerts (by fired_at), at most max: a new array. */
json_t *dash_recent_alerts(const json_t *items, size_t max);

#endif
