/* sample.h - the machine's vital stats, sampled by the node agent every
 * --sample (spec/operations.md, "Vital stats").
 *
 * Two steps.  sample_read takes the raw cumulative counters at one instant:
 * CPU jiffies, memory, the work dir's filesystem, disk sectors and network
 * bytes from /proc (under a root prefix, so tests hand in a fixture tree),
 * plus the GPU readings of probe_gpus_read.  sample_stats turns two such
 * readings into the stats document, rates being the difference over the
 * elapsed time.  Core code reads no clock: the caller passes the monotonic
 * time of the reading.  Nothing here prints.
 *
 * Units: mem_used_gb and disk_used_gb are decimal GB (10^9 bytes), as the
 * inventory's memory_gb and drive sizes are; gpu_mem_used_gb is MiB / 1024,
 * as the GPU groups' memory_gb is (a 40960 MiB A100 is "40 GB").  Rates are
 * bytes per second; cpu_util and gpu_util are percent.
 */
#ifndef RD_SAMPLE_H
#define RD_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "err.h"
#include "probe.h"

/* The counters of one reading.  It owns gpus: free it with
 * sample_counters_free; moving it by struct assignment moves the ownership
 * (keep one of the two copies, free only that one).  A zeroed struct is a
 * valid empty reading. */
typedef struct sample_counters {
    int64_t mono_ms;              /* the caller's monotonic clock, ms */

    /* /proc/stat's aggregate "cpu" line, in jiffies: total is user + nice
     * + system + idle + iowait + irq + softirq + steal (guest time is
     * already inside user and nice); idle is idle + iowait. */
    uint64_t cpu_busy, cpu_total;

    /* /proc/meminfo: MemTotal - MemAvailable (kernels before 3.14, which
     * lack MemAvailable: MemTotal - MemFree - Buffers - Cached), bytes. */
    uint64_t mem_used_bytes;

    /* statvfs(work_dir): (f_blocks - f_bfree) * f_frsize, bytes; have_disk_used
     * is 0 when work_dir is NULL or statvfs fails. */
    int have_disk_used;
    uint64_t disk_used_bytes;

    /* /proc/diskstats, sectors (512 bytes) read and written summed over whole
     * physical disks - no partitions, loop, ram, zram, dm-, md, sr or NVMe
     * multipath (nvme0c0n1) devices - in bytes; have_disk_io is 0 when the
     * file cannot be read (some containers). */
    int have_disk_io;
    uint64_t disk_read_bytes, disk_write_bytes;

    /* /proc/net/dev, bytes received and sent summed over every interface but
     * lo; have_net is 0 when the file cannot be read. */
    int have_net;
    uint64_t net_rx_bytes, net_tx_bytes;

    /* The GPUs as probe_gpus_read gave them (NULL and 0 for none).
     * gpu_present is 0 when there is no nvidia-smi program at all (a CPU-only
     * machine: not an error).  gpu_error is "" or the one-line reason
     * nvidia-smi failed this time (exit status, timeout, output it could not
     * parse); the reading then has no GPUs (but those still listed when it
     * failed over a lost GPU) and the rest is good. */
    probe_gpu *gpus;
    size_t ngpus;
    int gpu_present;
    char gpu_error[512];
    probe_smi smi;   /* how nvidia-smi answered (spec/execution.md §2): the health rules read it */
} sample_counters;

/* Reads the counters now into *out (which it zeroes first; free it with
 * sample_counters_free whatever this returns).  root prefixes /proc ("" or
 * NULL: this machine); work_dir is the agent's work dir, whose filesystem
 * disk_used_gb measures (not prefixed by root).  nvidia_smi is as for
 * probe_gpus_read.  mono_ms is the caller's monotonic clock just before the
 * call: the /proc counters are read first, then nvidia-smi (which may take
 * seconds; its readings are gauges, not counters).
 * An unreadable or malformed /proc/stat or /proc/meminfo is RD_EINVAL (every
 * Linux has them); out of memory is RD_ENOMEM.  Missing diskstats, net/dev
 * or work dir only leave their values out; a failing nvidia-smi is RD_OK
 * with out->gpu_error set. */
rd_code sample_read(const char *root, const char *work_dir, const char *nvidia_smi, int64_t mono_ms,
                    sample_counters *out, rd_err *err);

/* A new stats object (NULL only when out of memory):
 *   {"cpu_util", "mem_used_gb", "disk_used_gb", "disk_read_bps",
 *    "disk_write_bps", "net_rx_bps", "net_tx_bps",
 *    "gpus": [{"index", "gpu_util", "gpu_mem_used_gb", "gpu_temp_c",
 *              "gpu_power_w", "gpu_ecc_errors"}]}
 * Numbers are JSON reals rounded to 0.1 (the *_gb ones to 0.01); index,
 * gpu_temp_c and gpu_ecc_errors are integers.  The gauges (memory, disk
 * used, GPUs) come from cur alone.  cpu_util and the rates come from the
 * difference prev -> cur and are null when prev is NULL, when no time (or
 * no jiffy) passed, when a counter went backwards (a wrap, a reset, a disk
 * or interface that went away) or when either reading lacks it.  A GPU
 * reading nvidia-smi gave as N/A is null; gpus is [] when there are none
 * or nvidia-smi failed (see cur->gpu_error). */
json_t *sample_stats(const sample_counters *prev, const sample_counters *cur);

/* Frees what c owns and zeroes it; NULL is fine. */
void sample_counters_free(sample_counters *c);

#endif
