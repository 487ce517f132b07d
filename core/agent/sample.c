/* sample.c - the vital stats: cumulative counters from /proc (under a root
 * prefix, for fixtures), statvfs of the work dir and nvidia-smi's readings,
 * and the stats document made from two readings. */
#include "sample.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "metrics.h"

#define PATH_MAX_LEN 4096

/* root + rel (+ "/" + name) into buf; 0 when too long. */
static int path_of(char *buf, const char *root, const char *rel, const char *name)
{
    int w = snprintf(buf, PATH_MAX_LEN, "%s%s%s%s", root, rel, name ? "/" : "", name ? name : "");
    return w > 0 && w < PATH_MAX_LEN;
}

static int has_prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

/* An unsigned decimal at *p (leading blanks skipped); advances *p.  0 when
 * there is no number there. */
static int next_u64(const char **p, uint64_t *out)
{
    const char *s = *p;
    char *end;
    while (*s == ' ' || *s == '\t')
        s++;
    if (!isdigit((unsigned char)*s))
        return 0;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || end == s)
        return 0;
    *out = (uint64_t)v;
    *p = end;
    return 1;
}

/* ---- CPU and memory ------------------------------------------------------- */

/* /proc/stat: "cpu  user nice system idle iowait irq softirq steal guest
 * guest_nice"; kernels before 2.6 stop after idle, so four are required. */
static rd_code read_cpu(const char *root, sample_counters *out, rd_err *err)
{
    char path[PATH_MAX_LEN];
    char *line = NULL;
    size_t cap = 0;
    int found = 0, n = 0;
    uint64_t v[8] = { 0 };
    FILE *f;

    if (!path_of(path, root, "/proc/stat", NULL) || !(f = fopen(path, "r")))
        return rd_fail(err, RD_EINVAL, "sample: cannot read %s: %s", path, strerror(errno));
    while (!found && getline(&line, &cap, f) > 0) {
        if (!has_prefix(line, "cpu ") && !has_prefix(line, "cpu\t"))
            continue;
        found = 1;
        const char *p = line + 3;
        while (n < 8 && next_u64(&p, &v[n]))
            n++;
    }
    free(line);
    fclose(f);
    if (!found || n < 4)
        return rd_fail(err, RD_EINVAL, "sample: %s has no aggregate cpu line with at least 4 counters", path);
    uint64_t total = 0;
    for (int i = 0; i < n; i++)
        total += v[i];
    out->cpu_total = total;
    out->cpu_busy = total - v[3] - v[4]; /* v[4] (iowait) is 0 when absent */
    return RD_OK;
}

static rd_code read_mem(const char *root, sample_counters *out, rd_err *err)
{
    static const char *const keys[] = { "MemTotal:", "MemAvailable:", "MemFree:", "Buffers:", "Cached:" };
    enum { TOTAL, AVAIL, FREE, BUFFERS, CACHED, NKEYS };
    char path[PATH_MAX_LEN], line[256];
    uint64_t kib[NKEYS];
    int have[NKEYS] = { 0 };
    FILE *f;

    if (!path_of(path, root, "/proc/meminfo", NULL) || !(f = fopen(path, "r")))
        return rd_fail(err, RD_EINVAL, "sample: cannot read %s: %s", path, strerror(errno));
    while (fgets(line, sizeof line, f)) {
        for (int k = 0; k < NKEYS; k++) {
            if (!have[k] && has_prefix(line, keys[k])) {
                const char *p = line + strlen(keys[k]);
                have[k] = next_u64(&p, &kib[k]);
            }
        }
    }
    fclose(f);
    if (!have[TOTAL] || kib[TOTAL] == 0)
        return rd_fail(err, RD_EINVAL, "sample: %s has no MemTotal line with a size in kB", path);
    uint64_t avail;
    if (have[AVAIL]) {
        avail = kib[AVAIL];
    } else if (have[FREE]) {
        avail = kib[FREE] + (have[BUFFERS] ? kib[BUFFERS] : 0) + (have[CACHED] ? kib[CACHED] : 0);
    } else {
        return rd_fail(err, RD_EINVAL, "sample: %s has neither MemAvailable nor MemFree", path);
    }
    /* The kernel's kB are KiB. */
    out->mem_used_bytes = avail >= kib[TOTAL] ? 0 : (kib[TOTAL] - avail) * 1024;
    return RD_OK;
}

/* ---- disks ---------------------------------------------------------------- */

static void read_disk_used(const char *work_dir, sample_counters *out)
{
    struct statvfs vfs;
    if (!work_dir || !*work_dir || statvfs(work_dir, &vfs) != 0 || vfs.f_bfree > vfs.f_blocks)
        return;
    out->disk_used_bytes = (uint64_t)(vfs.f_blocks - vfs.f_bfree) * (uint64_t)vfs.f_frsize;
    out->have_disk_used = 1;
}

/* A partition by its name alone, for when there is no /sys/block to ask:
 * digits after a disk name that itself ends in a letter (sda1, vdb2, xvda1,
 * hdc3), or "p" + digits after one that ends in a digit (nvme0n1p2,
 * mmcblk0p1, nbd0p1). */
static int partition_name(const char *name)
{
    size_t len = strlen(name), d = len;
    while (d > 0 && isdigit((unsigned char)name[d - 1]))
        d--;
    if (d == len || d == 0)
        return 0; /* no trailing number: a whole disk (sda, vdz) */
    if (d >= 2 && name[d - 1] == 'p' && isdigit((unsigned char)name[d - 2]))
        return 1;
    static const char *const lettered[] = { "sd", "hd", "vd", "xvd", NULL };
    for (const char *const *s = lettered; *s; s++)
        if (has_prefix(name, *s) && d > strlen(*s))
            return 1;
    return 0;
}

/* /sys/block lists whole disks and no partitions, so when it is there it
 * decides; a fixture root (or a /proc without /sys) goes by names. */
static int whole_disk(const char *root, int have_sys, const char *name)
{
    char path[PATH_MAX_LEN];
    struct stat st;
    if (probe_block_skipped(name))
        return 0;
    if (have_sys)
        return path_of(path, root, "/sys/block", name) && lstat(path, &st) == 0;
    return !partition_name(name);
}

/* /proc/diskstats: "major minor name reads merged sectors_read ms writes
 * merged sectors_written ...". */
static void read_disk_io(const char *root, sample_counters *out)
{
    char path[PATH_MAX_LEN], line[512], name[128];
    struct stat st;
    uint64_t rd = 0, wr = 0;
    int have_sys;
    FILE *f;

    if (!path_of(path, root, "/proc/diskstats", NULL) || !(f = fopen(path, "r")))
        return;
    have_sys = path_of(path, root, "/sys/block", NULL) && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
    while (fgets(line, sizeof line, f)) {
        unsigned major, minor;
        unsigned long long v[7];
        if (sscanf(line, " %u %u %127s %llu %llu %llu %llu %llu %llu %llu", &major, &minor, name, &v[0], &v[1],
                   &v[2], &v[3], &v[4], &v[5], &v[6]) != 10)
            continue;
        if (!whole_disk(root, have_sys, name))
            continue;
        rd += (uint64_t)v[2] * 512;
        wr += (uint64_t)v[6] * 512;
    }
    fclose(f);
    out->disk_read_bytes = rd;
    out->disk_write_bytes = wr;
    out->have_disk_io = 1;
}

/* ---- network -------------------------------------------------------------- */

/* /proc/net/dev: two header lines, then "  eth0: rx_bytes packets errs drop
 * fifo frame compressed multicast tx_bytes ..." (old kernels put no blank
 * between the colon and the first number). */
static void read_net(const char *root, sample_counters *out)
{
    char path[PATH_MAX_LEN], line[512];
    uint64_t rx = 0, tx = 0;
    FILE *f;

    if (!path_of(path, root, "/proc/net/dev", NULL) || !(f = fopen(path, "r")))
        return;
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':'), *name = line;
        uint64_t v[9];
        const char *p;
        int n = 0;
        if (!colon)
            continue; /* the headers */
        *colon = '\0';
        name += strspn(name, " \t");
        if (strcmp(name, "lo") == 0)
            continue;
        for (p = colon + 1; n < 9 && next_u64(&p, &v[n]); n++)
            ;
        if (n < 9)
            continue;
        rx += v[0];
        tx += v[8];
    }
    fclose(f);
    out->net_rx_bytes = rx;
    out->net_tx_bytes = tx;
    out->have_net = 1;
}

/* ---- a reading ------------------------------------------------------------ */

rd_code sample_read(const char *root, const char *work_dir, const char *nvidia_smi, int64_t mono_ms,
                    sample_counters *out, rd_err *err)
{
    rd_err gerr;
    rd_code rc;

    memset(out, 0, sizeof *out);
    if (!root)
        root = "";
    out->mono_ms = mono_ms;
    /* The counters first, together, close to mono_ms; nvidia-smi after. */
    if ((rc = read_cpu(root, out, err)) != RD_OK || (rc = read_mem(root, out, err)) != RD_OK)
        return rc;
    read_disk_io(root, out);
    read_net(root, out);
    read_disk_used(work_dir, out);
    rd_err_clear(&gerr);
    rc = probe_gpus_query(nvidia_smi, PROBE_NVIDIA_SMI_TIMEOUT_MS, &out->gpus, &out->ngpus, &out->smi, &gerr);
    if (rc != RD_OK)
        return rd_fail(err, rc, "%s", gerr.msg);
    out->gpu_present = out->smi.present;
    /* a lost GPU's answer keeps the rows still listed: their readings are real */
    if (out->smi.present && !out->smi.answered)
        snprintf(out->gpu_error, sizeof out->gpu_error, "%s", out->smi.detail[0] ? out->smi.detail : "nvidia-smi failed");
    rd_err_clear(err);
    return RD_OK;
}

void sample_counters_free(sample_counters *c)
{
    if (!c)
        return;
    free(c->gpus);
    memset(c, 0, sizeof *c);
}

/* ---- the stats ------------------------------------------------------------ */

/* A real rounded to 1/scale, or null when it is not a finite number. */
static json_t *real_to(double x, double scale)
{
    if (!isfinite(x))
        return json_null();
    double r = round(x * scale) / scale;
    return json_real(r == 0 ? 0.0 : r); /* never -0.0 */
}

/* num / den rounded half up, as a real in units of 1/scale: gauges come as
 * whole numbers (bytes, MiB, mW), so integer arithmetic rounds them exactly. */
static json_t *ratio_to(uint64_t num, uint64_t den, uint64_t scale)
{
    /* whole units and the remainder apart: num * scale would wrap for a
     * counter near 2^64, whole * scale cannot (every caller has den >= scale) */
    uint64_t whole = num / den, part = ((num % den) * scale + den / 2) / den;
    return json_real((double)(whole * scale + part) / (double)scale);
}

/* Bytes per second between two cumulative byte counters; null when the
 * counter went backwards or no time passed. */
static json_t *rate(uint64_t prev, uint64_t cur, int64_t ms)
{
    if (cur < prev || ms <= 0)
        return json_null();
    return real_to((double)(cur - prev) * 1000.0 / (double)ms, 10);
}

/* Sets key to v (a new reference); 0 when either is missing. */
static int put(json_t *obj, const char *key, json_t *v)
{
    return v && json_object_set_new(obj, key, v) == 0;
}

static json_t *gpu_stats(const probe_gpu *g)
{
    json_t *o = json_object();
    int ok = o && put(o, "index", json_integer(g->index)) &&
             put(o, "gpu_util", g->util_pct < 0 ? json_null() : json_real(g->util_pct)) &&
             put(o, "gpu_mem_used_gb",
                 g->mem_used_mib < 0 ? json_null() : ratio_to((uint64_t)g->mem_used_mib, 1024, 100)) &&
             put(o, "gpu_temp_c", g->temp_c < 0 ? json_null() : json_integer(g->temp_c)) &&
             put(o, "gpu_power_w", g->power_mw < 0 ? json_null() : ratio_to((uint64_t)g->power_mw, 1000, 10)) &&
             put(o, "gpu_ecc_errors", g->ecc_errors < 0 ? json_null() : json_integer(g->ecc_errors));
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* obj[stat] brought into the stat's range (metrics_stat_bound), keeping an
 * integer an integer: a counter that jumped (a /proc fixture, a wrapped
 * counter) or a GPU that reports nonsense is news of a bound, not a number
 * that overflows the history's sums or the Prometheus text. */
static void bound_reading(json_t *obj, const metrics_stat *st)
{
    json_t *v = json_object_get(obj, st->name);
    if (!json_is_number(v))
        return;
    double x = json_number_value(v), b = metrics_stat_bound(st, x);
    if (b == x)
        return;
    json_object_set_new(obj, st->name, json_is_integer(v) ? json_integer((json_int_t)b) : json_real(b));
}

static void bound_stats(json_t *o)
{
    size_t k;
    json_t *g;
    for (size_t i = 0; i < metrics_stat_count(); i++) {
        const metrics_stat *st = metrics_stat_at(i);
        if (!st->per_gpu)
            bound_reading(o, st);
        else
            json_array_foreach(json_object_get(o, "gpus"), k, g)
                bound_reading(g, st);
    }
}

json_t *sample_stats(const sample_counters *prev, const sample_counters *cur)
{
    json_t *o = json_object(), *gpus = json_array(), *cpu = NULL;
    int64_t ms = prev ? cur->mono_ms - prev->mono_ms : 0;
    int io = prev && prev->have_disk_io && cur->have_disk_io;
    int net = prev && prev->have_net && cur->have_net;
    int ok;

    if (!o || !gpus)
        goto fail;
    if (prev && cur->cpu_total > prev->cpu_total && cur->cpu_busy >= prev->cpu_busy &&
        cur->cpu_busy - prev->cpu_busy <= cur->cpu_total - prev->cpu_total)
        cpu = real_to(100.0 * (double)(cur->cpu_busy - prev->cpu_busy) / (double)(cur->cpu_total - prev->cpu_total),
                      10);
    else
        cpu = json_null();
    ok = put(o, "cpu_util", cpu) && put(o, "mem_used_gb", ratio_to(cur->mem_used_bytes, 1000000000, 100)) &&
         put(o, "disk_used_gb",
             cur->have_disk_used ? ratio_to(cur->disk_used_bytes, 1000000000, 100) : json_null()) &&
         put(o, "disk_read_bps", io ? rate(prev->disk_read_bytes, cur->disk_read_bytes, ms) : json_null()) &&
         put(o, "disk_write_bps", io ? rate(prev->disk_write_bytes, cur->disk_write_bytes, ms) : json_null()) &&
         put(o, "net_rx_bps", net ? rate(prev->net_rx_bytes, cur->net_rx_bytes, ms) : json_null()) &&
         put(o, "net_tx_bps", net ? rate(prev->net_tx_bytes, cur->net_tx_bytes, ms) : json_null());
    if (!ok)
        goto fail;
    for (size_t i = 0; i < cur->ngpus; i++)
        if (json_array_append_new(gpus, gpu_stats(&cur->gpus[i])) != 0)
            goto fail;
    if (json_object_set_new(o, "gpus", gpus) != 0) {
        gpus = NULL; /* set_new dropped it */
        goto fail;
    }
    bound_stats(o);
    return o;
fail:
    json_decref(gpus);
    json_decref(o);
    return NULL;
}
