/* metrics_stat.c - the vital stats rigdeck keeps (spec/operations.md),
 * their units, dead bands and series names. */
#include "metrics_stat.h"

#include <stdio.h>
#include <string.h>

/* Dead bands: how far a reading may drift before it is news.  News of a
 * health stat (the ones GPU health judges: temperature, ECC errors) is
 * written at once; other news waits for the minute's write.
 *
 * Ranges: what a reading can sanely be (docs/operations.md, "Vital stats"):
 * percentages 0..100, memory up to 1 PB on a node and 1 TiB on a GPU (the
 * largest nvidia-smi's parser takes), a filesystem up to 1 EB, I/O rates up
 * to 1 TB/s, temperatures 0..250 C (nvidia-smi's own limit), power up to
 * 10 kW, ECC counts up to 10^12.  In hundredths, as stored, 60 samples of
 * the largest fit an int64 sum many times over. */
static const metrics_stat stats[] = {
    { "cpu_util", 0, "%", 10.0, "CPU busy time, percent of all cores", 0, 0, 100 },
    { "mem_used_gb", 0, "GB", 1.0, "memory in use (total minus available), GB", 0, 0, 1e6 },
    { "disk_used_gb", 0, "GB", 1.0, "space used on the work dir's filesystem, GB", 0, 0, 1e9 },
    { "disk_read_bps", 0, "B/s", 50e6, "bytes read from the physical disks per second", 0, 0, 1e12 },
    { "disk_write_bps", 0, "B/s", 50e6, "bytes written to the physical disks per second", 0, 0, 1e12 },
    { "net_rx_bps", 0, "B/s", 50e6, "bytes received per second, all interfaces but lo", 0, 0, 1e12 },
    { "net_tx_bps", 0, "B/s", 50e6, "bytes sent per second, all interfaces but lo", 0, 0, 1e12 },
    { "gpu_util", 1, "%", 10.0, "GPU busy time, percent", 0, 0, 100 },
    { "gpu_mem_used_gb", 1, "GB", 1.0, "GPU memory in use, GB", 0, 0, 1024 },
    { "gpu_temp_c", 1, "C", 3.0, "GPU temperature, degrees Celsius", 1, 0, 250 },
    { "gpu_power_w", 1, "W", 25.0, "GPU power draw, watts", 0, 0, 10000 },
    { "gpu_ecc_errors", 1, "", 0.0, "uncorrected ECC errors since the driver loaded", 1, 0, 1e12 },
};

size_t metrics_stat_count(void)
{
    return sizeof stats / sizeof stats[0];
}

const metrics_stat *metrics_stat_at(size_t i)
{
    return i < metrics_stat_count() ? &stats[i] : NULL;
}

const metrics_stat *metrics_stat_find(const char *name)
{
    for (size_t i = 0; name && i < metrics_stat_count(); i++)
        if (strcmp(stats[i].name, name) == 0)
            return &stats[i];
    return NULL;
}

double metrics_stat_bound(const metrics_stat *stat, double v)
{
    if (!(v >= stat->min))   /* NaN too */
        return stat->min;
    return v > stat->max ? stat->max : v;
}

rd_code metrics_check_stat(const char *field, const char *name, rd_err *err)
{
    if (metrics_stat_find(name))
        return RD_OK;
    char list[512] = "";
    size_t len = 0;
    for (size_t i = 0; i < metrics_stat_count() && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", stats[i].name);
    return rd_fail(err, RD_EINVAL, "%s: unknown stat '%s' (one of %s)", field, name ? name : "", list);
}

const char *metrics_series_key(char buf[METRICS_SERIES_MAX], const metrics_stat *stat, int gpu)
{
    if (stat->per_gpu)
        snprintf(buf, METRICS_SERIES_MAX, "%s:%d", stat->name, gpu);
    else
        snprintf(buf, METRICS_SERIES_MAX, "%s", stat->name);
    return buf;
}
