/* metrics_stat.h - the vital stats rigdeck keeps (metrics_stat.c): their
 * names, units, dead bands, sane ranges and series keys.  The history that
 * holds them is metrics.h's; this table is the model both the agent that
 * samples and every reader name the stats by.
 */
#ifndef RD_METRICS_STAT_H
#define RD_METRICS_STAT_H

#include <stddef.h>

#include "err.h"

enum { METRICS_SERIES_MAX = 64 };   /* buffer size of a series key */

typedef struct {
    const char *name;    /* "cpu_util", "gpu_temp_c" ... */
    int per_gpu;         /* 1: one series per GPU */
    const char *unit;    /* "%", "GB", "B/s", "C", "W", "" */
    double dead_band;    /* a change beyond this is news (0: any change) */
    const char *help;    /* one line, for --help and Prometheus' # HELP */
    int health;          /* news of this stat is written at once; of the others, within a minute */
    double min, max;     /* the sane range of a reading (metrics_stat_bound) */
} metrics_stat;

/* The stats in the spec's order: cpu_util mem_used_gb disk_used_gb
 * disk_read_bps disk_write_bps net_rx_bps net_tx_bps, then per GPU gpu_util
 * gpu_mem_used_gb gpu_temp_c gpu_power_w gpu_ecc_errors. */
size_t metrics_stat_count(void);
const metrics_stat *metrics_stat_at(size_t i);

/* The stat called name, or NULL. */
const metrics_stat *metrics_stat_find(const char *name);

/* A reading brought into the stat's sane range [min, max]: below min reads
 * as min, above max as max (an ECC count of 2^63-1 is "very many", not a
 * number to add up).  Every reading passes here before it is stored or
 * served, so sums of a minute's or hour's readings cannot overflow and an
 * average stays between its minimum and maximum.  NaN reads as min. */
double metrics_stat_bound(const metrics_stat *stat, double v);

/* RD_OK when name is a stat, else RD_EINVAL naming field and the stats. */
rd_code metrics_check_stat(const char *field, const char *name, rd_err *err);

/* "cpu_util" for a node stat (gpu ignored), "gpu_temp_c:3" for GPU 3. */
const char *metrics_series_key(char buf[METRICS_SERIES_MAX], const metrics_stat *stat, int gpu);

#endif
