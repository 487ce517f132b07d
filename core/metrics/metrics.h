/* metrics.h - the vital stats history of every node in the store
 * (spec/operations.md, "Vital stats"; metrics_agg.c, metrics_read.c,
 * metrics_cmd.c).
 *
 * The agent samples every --sample and folds each sample into per-minute
 * min/avg/max; minutes fold into hours.  Each node has a bounded set of
 * documents, whatever how long it runs:
 *
 *   KEY_METRICS last/<node>        the latest reading alone (written with
 *                                  `now`, in the same transaction; `node
 *                                  show` reads it: fleet/agent_view.c)
 *   KEY_METRICS now/<node>         the latest reading, the minute and the
 *                                  hour in progress, and the finished
 *                                  minutes of the 10-minute block in progress
 *   KEY_METRICS min/<node>/<slot>  one finished 10-minute block of minute
 *                                  points; slot = block index mod 288 (48 h)
 *   KEY_METRICS hour/<node>/<slot> one UTC day of hour points; slot = day
 *                                  index mod 90 (90 days)
 *
 * (`last` documents of every node sit under one prefix, so the fleet's
 * latest readings are one range read of small documents.)
 * A slot is overwritten when its turn comes again, so a node never has
 * more than 2 + 288 + 90 documents; the store's compaction forgets the old
 * versions.  Readers filter blocks by their "start" (a slot left from two
 * days ago is older than any window that asks for minutes).
 *
 * Series: a node stat is named by the stat ("cpu_util"); a GPU stat by the
 * stat and the GPU index ("gpu_temp_c:0") - metrics_series_key.  Stored
 * values are integers in hundredths of the stat's unit (exact and short); a
 * point is [min, avg, max], or null for a minute or hour without samples.
 *
 * Writes: the agent writes `now` (with the block or day that just closed in
 * the same transaction) after its first sample, then at most once a minute
 * (when a minute closed or a reading moved beyond its stat's dead band),
 * except that news of a health stat - a GPU's temperature or ECC count
 * moving, a GPU coming or going - is written at once: a GPU heating up
 * shows within one sample, and a node costs one write a minute however
 * busy its readings are.
 */
#ifndef RD_METRICS_H
#define RD_METRICS_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "err.h"
#include "metrics_stat.h"
#include "rdtime.h"
#include "tx.h"

enum {
    METRICS_BLOCK_MINUTES = 10,
    METRICS_MINUTE_SLOTS = 288,   /* 48 h of 10-minute blocks */
    METRICS_DAY_SLOTS = 90,       /* 90 days of hour points */
    METRICS_STAGE_MAX = 64,       /* closed blocks and days one transaction writes at most */
    METRICS_STALE_S = 300         /* a reading older than this is not "now" (fleet totals, alerts) */
};

/* ---- the agent's side: folding samples ------------------------------------ */

typedef struct metrics_agg metrics_agg;

/* A new aggregation for node (NULL when out of memory). */
metrics_agg *metrics_agg_new(const char *node);
void metrics_agg_free(metrics_agg *m);

/* Picks up where a previous agent left off: its `now` document and the
 * day document of now's UTC day (either may be NULL).  Minutes and hours
 * that are over by now are finished as they were. */
void metrics_agg_restore(metrics_agg *m, const json_t *now_doc, const json_t *day_doc, rd_time now);

/* Folds one sample (sample_stats's object) taken at wall time t. */
void metrics_agg_add(metrics_agg *m, const json_t *stats, rd_time t);

/* 1 when the store should hear from this node now: nothing written yet; a
 * health stat moved beyond its dead band; or, a minute after the last
 * write, a minute finished or any reading moved since. */
int metrics_agg_due(const metrics_agg *m);

/* Stages the documents to write in tx: `now`, and up to METRICS_STAGE_MAX
 * blocks and days that closed (the rest wait for the next write); after
 * the commit succeeded, call metrics_agg_written.  _closed stages only the
 * closed blocks and days (a bulk import writes `now` last). */
rd_code metrics_agg_stage(metrics_agg *m, rd_tx *tx, rd_err *err);
rd_code metrics_agg_stage_closed(metrics_agg *m, rd_tx *tx, rd_err *err);
void metrics_agg_written(metrics_agg *m);

/* Number of closed blocks and days not written yet. */
size_t metrics_agg_pending(const metrics_agg *m);

/* What metrics_agg_stage would write as `now` (a new object), and the closed
 * blocks and days not written yet (key -> document, borrowed): for tests
 * and the fuzzer, which check every point's min <= avg <= max. */
json_t *metrics_agg_now(const metrics_agg *m);
const json_t *metrics_agg_pending_docs(const metrics_agg *m);

/* `metrics import`'s reading of FILE's text: one JSON sample a line (known
 * stats, numbers within their stat's range or null, GPU indices 0..1023, t
 * an RFC 3339 time after not_before and after the line before, not after
 * now and at most 48 hours before it), each appended to samples with t as
 * Unix seconds.  RD_EINVAL naming the line and the rule at the first bad
 * line (a line holding a NUL byte is one). */
rd_code metrics_import_read(const char *text, size_t len, rd_time not_before, rd_time now, json_t *samples,
                            rd_err *err);

/* ---- reading ----------------------------------------------------------------- */

typedef struct {
    rd_time t;           /* the minute's or hour's start */
    double min, avg, max;
} metrics_point;

/* The points of one series of node with since <= t < until, in time order,
 * step 60 (minutes: the last 48 h) or 3600 (hours: the last 90 days),
 * including the minute or hour in progress.  Minutes or hours without
 * samples are left out.  *pts is malloc'd (NULL when *n is 0). */
rd_code metrics_read_points(rd_tx *tx, const char *node, const char *series, int step, rd_time since, rd_time until,
                            metrics_point **pts, size_t *n, rd_err *err);

/* The same for several series of one node: the window's documents are
 * read once (metrics_window_read), then each series is picked from them
 * (metrics_window_points, same contract as metrics_read_points). */
typedef struct metrics_window metrics_window;
rd_code metrics_window_read(rd_tx *tx, const char *node, int step, rd_time since, rd_time until,
                            metrics_window **out, rd_err *err);
rd_code metrics_window_points(const metrics_window *w, const char *series, metrics_point **pts, size_t *n,
                              rd_err *err);
void metrics_window_free(metrics_window *w);

/* The node's latest reading: a new object {"sampled_at": TIME, "values":
 * {SERIES: number, ...}} (a stat the machine lacks is absent), or NULL
 * when the node has none. */
rd_code metrics_read_latest(rd_tx *tx, const char *node, json_t **latest, rd_err *err);

/* `metrics fleet` over the given node documents (e.g. a `node list`'s
 * items; only live compute nodes of region, or of all regions when NULL,
 * count): a new object {"region", "nodes", "nodes_reporting", "gpus",
 * "gpus_allocated", "gpus_healthy", "gpus_unhealthy", "gpu_util_mean",
 * "cpu_util_mean"}; a reading over 5 minutes old does not count.  tx NULL:
 * the node documents alone (no readings: the means are null). */
rd_code metrics_fleet_totals(rd_tx *tx, const json_t *nodes, const char *region, rd_time now, json_t **result,
                             rd_err *err);

/* `metrics fleet --by region|account` over the given node and region
 * documents (what the actor sees; only live compute nodes, of region when
 * not NULL, count): a new object {"by", "items": [{"region"|"account",
 * "nodes", "nodes_reporting", "gpus", "gpus_allocated", "gpu_util_mean",
 * "cpu_cores", "cpu_util_mean", "cpu_used_cores", "mem_used_gb",
 * "mem_total_gb", "disk_used_gb", "disk_total_gb"}, ..., the "(total)"
 * row]}; capacity fields are null by account.  only: a tenant's account,
 * the one account row shown (NULL: every one).  metrics_fleet.c says how
 * a node's use is given to accounts. */
rd_code metrics_fleet_rollup(rd_tx *tx, const json_t *nodes, const json_t *regions, const char *by,
                             const char *region, const char *only, rd_time now, json_t **result, rd_err *err);

#endif
