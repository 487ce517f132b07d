/* metrics_stub.c - TEMPORARY stand-in for the parts of core/metrics/ that
 * alerts use, until the lead's metrics_*.c land on main (then this file is
 * deleted in the merge).  No reading is ever found: metric rules hold on
 * no node.
 */
#include <stdio.h>
#include <string.h>

#include "metrics.h"

static const metrics_stat stats[] = {
    { "cpu_util", 0, "%", 1, "CPU use" },
    { "mem_used_gb", 0, "GB", 0.1, "memory used" },
    { "disk_used_gb", 0, "GB", 1, "work dir's filesystem used" },
    { "disk_read_bps", 0, "B/s", 0, "disk reads" },
    { "disk_write_bps", 0, "B/s", 0, "disk writes" },
    { "net_rx_bps", 0, "B/s", 0, "network received" },
    { "net_tx_bps", 0, "B/s", 0, "network sent" },
    { "gpu_util", 1, "%", 1, "GPU use" },
    { "gpu_mem_used_gb", 1, "GB", 0.1, "GPU memory used" },
    { "gpu_temp_c", 1, "C", 1, "GPU temperature" },
    { "gpu_power_w", 1, "W", 1, "GPU power draw" },
    { "gpu_ecc_errors", 1, "", 0, "uncorrected ECC errors" },
};

size_t metrics_stat_count(void) { return sizeof stats / sizeof stats[0]; }
const metrics_stat *metrics_stat_at(size_t i) { return i < metrics_stat_count() ? &stats[i] : NULL; }

const metrics_stat *metrics_stat_find(const char *name)
{
    for (size_t i = 0; i < metrics_stat_count(); i++)
        if (strcmp(stats[i].name, name) == 0)
            return &stats[i];
    return NULL;
}

rd_code metrics_check_stat(const char *field, const char *name, rd_err *err)
{
    if (metrics_stat_find(name))
        return RD_OK;
    return rd_fail(err, RD_EINVAL, "%s: '%s' is not a vital stat (cpu_util mem_used_gb disk_used_gb disk_read_bps "
                   "disk_write_bps net_rx_bps net_tx_bps gpu_util gpu_mem_used_gb gpu_temp_c gpu_power_w gpu_ecc_errors)",
                   field, name);
}

rd_code metrics_read_latest(rd_tx *tx, const char *node, json_t **latest, rd_err *err)
{
    (void)tx; (void)node; (void)err;
    *latest = NULL;
    return RD_OK;
}
