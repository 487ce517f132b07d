/* runner_limits.c - a worker's share of its node: vCPUs and memory, CPU
 * pinning, MPS variables, and its work directory's disk use (see
 * runner_limits.h).  Integer arithmetic only: a share is gpus_x100, never a
 * float, so 0.33 of a GPU gives the same answer on every machine.
 */
#include "runner_limits.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void limits_compute(const limits_in *in, limits_out *out)
{
    out->cpus = 0;
    out->memory_gib = 0;
    if (in->gpus_x100 <= 0) {
        if (in->cpu_count > 0) {
            out->cpus = in->cpu_count;
            out->memory_gib = in->cpu_count * 4;
        }
        return;
    }
    if (in->node_vcpus > 0 && in->node_gpus > 0) {
        int64_t c = (int64_t)in->node_vcpus * in->gpus_x100 / ((int64_t)in->node_gpus * 100);
        if (c > in->node_vcpus)
            c = in->node_vcpus;
        out->cpus = c < 1 ? 1 : (int)c;
    }
    if (in->gpu_memory_gb > 0) {
        int64_t m = (int64_t)in->gpu_memory_gb * 2 * in->gpus_x100 / 100;
        out->memory_gib = m < 1 ? 1 : m > INT32_MAX ? INT32_MAX : (int)m;
    }
}

int limits_mps_env(int64_t gpus_x100, int device, int memory_gb, char *pct, size_t pct_len, char *mem, size_t mem_len)
{
    if (gpus_x100 <= 0 || gpus_x100 >= 100)
        return 0;
    snprintf(pct, pct_len, "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=%lld", (long long)gpus_x100);
    if (memory_gb <= 0)
        return 1;
    snprintf(mem, mem_len, "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=%d=%lldM", device,
             (long long)(gpus_x100 * memory_gb * 1024 / 100));
    return 2;
}

int limits_pick_cpus(int want, const cpu_set_t *online, const cpu_set_t *taken, cpu_set_t *out)
{
    int got = 0;
    CPU_ZERO(out);
    /* first round: CPUs nobody is pinned to; second: the rest */
    for (int round = 0; round < 2; round++)
        for (int c = 0; c < CPU_SETSIZE && got < want; c++) {
            if (!CPU_ISSET(c, online) || CPU_ISSET(c, out))
                continue;
            if (round == 0 && taken && CPU_ISSET(c, taken))
                continue;
            CPU_SET(c, out);
            got++;
        }
    return got;
}

int limits_cpu_list_format(const cpu_set_t *set, char *buf, size_t len)
{
    size_t at = 0;
    if (!len)
        return -1;
    buf[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, set))
            continue;
        int end = c;
        while (end + 1 < CPU_SETSIZE && CPU_ISSET(end + 1, set))
            end++;
        int n = end > c ? snprintf(buf + at, len - at, "%s%d-%d", at ? "," : "", c, end)
                        : snprintf(buf + at, len - at, "%s%d", at ? "," : "", c);
        if (n < 0 || (size_t)n >= len - at) {
            buf[at] = '\0';
            return -1;
        }
        at += (size_t)n;
        c = end;
    }
    return 0;
}

static int read_cpu(const char **p, long *out)
{
    long v = 0;
    if (**p < '0' || **p > '9')
        return -1;
    while (**p >= '0' && **p <= '9') {
        v = v * 10 + (**p - '0');
        if (v >= CPU_SETSIZE)
            return -1;
        (*p)++;
    }
    *out = v;
    return 0;
}

int limits_cpu_list_parse(const char *text, cpu_set_t *set)
{
    const char *p = text;
    CPU_ZERO(set);
    if (!p || !*p)
        return -1;
    for (;;) {
        long a, b;
        if (read_cpu(&p, &a) != 0)
            return -1;
        b = a;
        if (*p == '-') {
            p++;
            if (read_cpu(&p, &b) != 0 || b < a)
                return -1;
        }
        for (long c = a; c <= b; c++)
            CPU_SET((int)c, set);
        if (!*p)
            return 0;
        if (*p++ != ',')
            return -1;
    }
}

/* ---- disk use ------------------------------------------------------------ */

typedef struct {
    int64_t total, stop_at;
    long entries, max_entries;
    dev_t dev;   /* the folder's file system: a datastore mounted inside is not its disk */
} du_walk;

static int du_done(const du_walk *w)
{
    return (w->stop_at > 0 && w->total > w->stop_at) || w->entries >= w->max_entries;
}

/* Adds what directory fd holds (fd is consumed); depth bounds recursion. */
static void du_dir(du_walk *w, int fd, int depth, int top)
{
    DIR *d = fdopendir(fd);
    struct dirent *e;
    if (!d) {
        close(fd);
        return;
    }
    while (!du_done(w) && (e = readdir(d))) {
        struct stat st;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (top && strcmp(e->d_name, ".rigdeck") == 0)
            continue;
        w->entries++;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;   /* removed meanwhile */
        /* the data it keeps: files' blocks, not the folders' own (the
         * staged /opt/ml tree is a few empty folders before any data) */
        if (S_ISREG(st.st_mode))
            w->total += (int64_t)st.st_blocks * 512;
        if (S_ISDIR(st.st_mode) && depth < 64 && st.st_dev == w->dev) {
            int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0)
                du_dir(w, sub, depth + 1, 0);
        }
    }
    closedir(d);
}

int64_t limits_disk_used(const char *dir, int64_t stop_at, long max_entries)
{
    du_walk w = { 0, stop_at, 0, max_entries > 0 ? max_entries : 1, 0 };
    struct stat top;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (fstat(fd, &top) == 0)
        w.dev = top.st_dev;
    du_dir(&w, fd, 0, 1);
    return w.total;
}
