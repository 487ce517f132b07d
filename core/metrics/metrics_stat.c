/* metrics_stat.c - the vital stats rigdeck keeps (spec/operations.md),
 * their units, dead bands and series names. */
#include "metrics.h"

#include <stdio.h>
#include <string.h>

/* Dead bands: how far a reading may drift before the agent writes it ahead
 * of the minute.  Wide enough that a steady machine's jitter costs nothing,
 * narrow enough that what an operator alerts on (a GPU heating, a disk
 * filling, ECC errors) shows within one sample. */
static const metrics_stat stats[] = {
    { "cpu_util", 0, "%", 10.0, "CPU busy time, percent of all cores" },
    { "mem_used_gb", 0, "GB", 1.0, "memory in use (total minus available), GB" },
    { "disk_used_gb", 0, "GB", 1.0, "space used on the work dir's filesystem, GB" },
    { "disk_read_bps", 0, "B/s", 50e6, "bytes read from the physical disks per second" },
    { "disk_write_bps", 0, "B/s", 50e6, "bytes written to the physical disks per second" },
    { "net_rx_bps", 0, "B/s", 50e6, "bytes received per second, all interfaces but lo" },
    { "net_tx_bps", 0, "B/s", 50e6, "bytes sent per second, all interfaces but lo" },
    { "gpu_util", 1, "%", 10.0, "GPU busy time, percent" },
    { "gpu_mem_used_gb", 1, "GB", 1.0, "GPU memory in use, GB" },
    { "gpu_temp_c", 1, "C", 3.0, "GPU temperature, degrees Celsius" },
    { "gpu_power_w", 1, "W", 25.0, "GPU power draw, watts" },
    { "gpu_ecc_errors", 1, "", 0.0, "uncorrected ECC errors since the driver loaded" },
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
