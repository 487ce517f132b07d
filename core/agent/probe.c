/* probe.c - the machine's inventory: CPU cores, memory, drives, TPM and
 * network speed from /proc and /sys (under a root prefix, for fixtures),
 * joined with the GPUs of probe_gpu.c and checked by hwreq. */
#include "probe.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "grow.h"
#include "hwreq.h"

#define PATH_MAX_LEN 4096

typedef struct {
    const char *root;
    json_t *problems;
    json_t *unknown;   /* NULL: unknown GPU names are problems (the old contract) */
    int nomem;
} probe_ctx;

static void problem(probe_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void problem(probe_ctx *ctx, const char *fmt, ...)
{
    char msg[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (json_array_append_new(ctx->problems, json_string(msg)) != 0)
        ctx->nomem = 1;
}

/* root + rel (+ "/" + name (+ "/" + leaf)) into buf; 0 when too long. */
static int path_of(char *buf, const probe_ctx *ctx, const char *rel, const char *name, const char *leaf)
{
    int w = snprintf(buf, PATH_MAX_LEN, "%s%s%s%s%s%s", ctx->root, rel, name ? "/" : "", name ? name : "",
                     leaf ? "/" : "", leaf ? leaf : "");
    return w > 0 && w < PATH_MAX_LEN;
}

/* The first line of a small sysfs file, trimmed; 0 when unreadable. */
static int read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    int ok;
    if (!f)
        return 0;
    ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    if (ok)
        buf[strcspn(buf, "\r\n")] = '\0';
    return ok;
}

/* A sysfs file holding one integer; 0 when unreadable or not a number. */
static int read_ll(const char *path, long long *out)
{
    char buf[64], *end;
    if (!read_line(path, buf, sizeof buf))
        return 0;
    errno = 0;
    *out = strtoll(buf, &end, 10);
    return errno == 0 && end != buf && (*end == '\0' || *end == ' ');
}

/* Entries of a directory, sorted so the inventory's order is stable; n 0 when
 * the directory is missing (a container may have no /sys/class/tpm). */
static int list_dir(const char *path, struct dirent ***names)
{
    int n = scandir(path, names, NULL, alphasort);
    if (n < 0) {
        *names = NULL;
        return 0;
    }
    return n;
}

static void free_list(struct dirent **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static int has_prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

/* ---- CPU and memory ------------------------------------------------------- */

typedef struct {
    long long phys, core;
} core_id;

/* Physical cores: distinct (physical id, core id) pairs, so hyperthreads
 * count once; machines whose cpuinfo has no such fields (ARM, some VMs)
 * count processors. */
static rd_code probe_cpu_cores(const probe_ctx *ctx, int *cores, rd_err *err)
{
    char path[PATH_MAX_LEN], line[512];
    core_id *ids = NULL, cur = { -1, -1 };
    size_t nids = 0, cap = 0;
    long long processors = 0;
    int pairs_ok = 1;
    FILE *f;

    if (!path_of(path, ctx, "/proc/cpuinfo", NULL, NULL) || !(f = fopen(path, "r")))
        return rd_fail(err, RD_EINVAL, "cpu_cores: cannot read %s: %s", path, strerror(errno));
    /* A block per logical processor, ended by a blank line, the next
     * "processor" line or the end of the file. */
    for (int eof = 0, open = 0; !eof;) {
        char *colon;
        int ends;
        if (!fgets(line, sizeof line, f)) {
            eof = 1;
            line[0] = '\0';
        }
        colon = strchr(line, ':');
        ends = eof || line[strspn(line, " \t\r\n")] == '\0' || (has_prefix(line, "processor") && colon);
        if (ends && open) {
            size_t i;
            open = 0;
            for (i = 0; i < nids && (ids[i].phys != cur.phys || ids[i].core != cur.core); i++)
                ;
            if (cur.phys < 0 || cur.core < 0) {
                pairs_ok = 0;
            } else if (i == nids) {
                if (grow_array(&ids, &cap, nids + 1, sizeof *ids) != 0) {
                    fclose(f);
                    free(ids);
                    return rd_fail(err, RD_ENOMEM, "out of memory reading %s", path);
                }
                ids[nids++] = cur;
            }
            cur.phys = cur.core = -1;
        }
        if (has_prefix(line, "processor") && colon) {
            processors++;
            open = 1;
        } else if (has_prefix(line, "physical id") && colon) {
            cur.phys = strtoll(colon + 1, NULL, 10);
        } else if (has_prefix(line, "core id") && colon) {
            cur.core = strtoll(colon + 1, NULL, 10);
        }
    }
    fclose(f);
    free(ids);
    long long n = pairs_ok && nids > 0 ? (long long)nids : processors;
    if (n < 1)
        return rd_fail(err, RD_EINVAL, "cpu_cores: %s lists no processor", path);
    *cores = n > 4096 ? 4096 : (int)n;
    return RD_OK;
}

/* MemTotal is in the kernel's kB, which are KiB; the inventory counts
 * decimal GB. */
static rd_code probe_memory_gb(const probe_ctx *ctx, int *gb, rd_err *err)
{
    char path[PATH_MAX_LEN], line[256];
    long long kib = -1;
    FILE *f;

    if (!path_of(path, ctx, "/proc/meminfo", NULL, NULL) || !(f = fopen(path, "r")))
        return rd_fail(err, RD_EINVAL, "memory_gb: cannot read %s: %s", path, strerror(errno));
    while (kib < 0 && fgets(line, sizeof line, f))
        if (has_prefix(line, "MemTotal:"))
            kib = strtoll(line + 9, NULL, 10);
    fclose(f);
    if (kib <= 0)
        return rd_fail(err, RD_EINVAL, "memory_gb: %s has no MemTotal line with a size in kB", path);
    long long g = (kib * 1024 + 500000000LL) / 1000000000LL;
    *gb = g < 1 ? 1 : g > 65536 ? 65536 : (int)g;
    return RD_OK;
}

/* ---- drives --------------------------------------------------------------- */

int probe_block_skipped(const char *name)
{
    static const char *const skip[] = { "loop", "ram", "zram", "dm-", "md", "sr", NULL };
    for (const char *const *s = skip; *s; s++)
        if (has_prefix(name, *s))
            return 1;
    if (has_prefix(name, "nvme")) {
        const char *p = name + 4 + strspn(name + 4, "0123456789");
        if (*p == 'c')
            return 1;
    }
    return 0;
}

static void probe_drives(probe_ctx *ctx, hw_inventory *inv)
{
    char path[PATH_MAX_LEN], dir[PATH_MAX_LEN];
    struct dirent **names;
    struct stat st;
    int n;

    if (!path_of(dir, ctx, "/sys/block", NULL, NULL))
        return;
    n = list_dir(dir, &names);
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        long long sectors, rotational, removable;
        int nvme = has_prefix(name, "nvme");

        if (name[0] == '.' || probe_block_skipped(name))
            continue;
        /* Virtual devices have no device link; removable ones (USB sticks,
         * card readers) come and go and are not the machine's storage. */
        if (!path_of(path, ctx, "/sys/block", name, "device") || lstat(path, &st) != 0)
            continue;
        if (path_of(path, ctx, "/sys/block", name, "removable") && read_ll(path, &removable) && removable == 1)
            continue;
        if (!path_of(path, ctx, "/sys/block", name, "size") || !read_ll(path, &sectors) || sectors <= 0)
            continue;
        long long gb = sectors * 512 / 1000000000LL;
        if (gb < 1)
            continue;
        if (gb > 1000000)
            gb = 1000000;
        if (nvme) {
            if (inv->nnvme == HWREQ_MAX_DRIVES) {
                problem(ctx, "drive %s left out: an inventory lists at most %d nvme drives", name, HWREQ_MAX_DRIVES);
                continue;
            }
            inv->nvme_gb[inv->nnvme++] = (int)gb;
            continue;
        }
        if (inv->nsata == HWREQ_MAX_DRIVES) {
            problem(ctx, "drive %s left out: an inventory lists at most %d sata drives", name, HWREQ_MAX_DRIVES);
            continue;
        }
        if (!path_of(path, ctx, "/sys/block", name, "queue/rotational") || !read_ll(path, &rotational))
            rotational = 1; /* no evidence it is solid state */
        inv->sata[inv->nsata].size_gb = (int)gb;
        snprintf(inv->sata[inv->nsata].kind, sizeof inv->sata[0].kind, "%s", rotational ? "hdd" : "ssd");
        inv->nsata++;
    }
    free_list(names, n);
}

/* ---- TPM and network ------------------------------------------------------ */

static void probe_tpm(probe_ctx *ctx, hw_inventory *inv)
{
    char path[PATH_MAX_LEN], dir[PATH_MAX_LEN];
    struct dirent **names;
    long long best = 0, major;
    int n;

    if (!path_of(dir, ctx, "/sys/class/tpm", NULL, NULL))
        return;
    n = list_dir(dir, &names);
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        if (!has_prefix(name, "tpm"))
            continue;
        if (!path_of(path, ctx, "/sys/class/tpm", name, "tpm_version_major") || !read_ll(path, &major) ||
            (major != 1 && major != 2)) {
            /* Kernels before 5.6 lack the file; saying 1.2 or 2.0 would be a guess. */
            problem(ctx, "tpm: %s has no readable tpm_version_major (1 or 2); TPM version unknown", name);
            continue;
        }
        if (major > best)
            best = major;
    }
    free_list(names, n);
    if (best)
        snprintf(inv->tpm, sizeof inv->tpm, "%s", best == 2 ? "2.0" : "1.2");
}

/* The fastest physical link.  Virtual interfaces (no device link: bridges,
 * veth, docker0) are skipped, as a veth reports 10000 Mb/s whatever the
 * wire under it does. */
static void probe_network(probe_ctx *ctx, hw_inventory *inv)
{
    char path[PATH_MAX_LEN], dir[PATH_MAX_LEN];
    struct dirent **names;
    struct stat st;
    long long best = 0, mbps;
    int n;

    inv->network_gbps = 1;
    if (!path_of(dir, ctx, "/sys/class/net", NULL, NULL))
        return;
    n = list_dir(dir, &names);
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        if (name[0] == '.' || strcmp(name, "lo") == 0)
            continue;
        if (!path_of(path, ctx, "/sys/class/net", name, "device") || lstat(path, &st) != 0)
            continue;
        if (path_of(path, ctx, "/sys/class/net", name, "speed") && read_ll(path, &mbps) && mbps > best)
            best = mbps;
    }
    free_list(names, n);
    if (best > 0) {
        long long g = (best + 999) / 1000;
        inv->network_gbps = g > 10000 ? 10000 : (int)g;
    }
}

/* ---- GPUs ----------------------------------------------------------------- */

static void probe_group_gpus(probe_ctx *ctx, const probe_gpu *gpus, size_t n, hw_inventory *inv)
{
    for (size_t i = 0; i < n; i++) {
        const probe_gpu *g = &gpus[i];
        hw_gpu_group key;
        size_t j;

        if (!g->model[0]) {
            size_t k;
            json_t *v;
            if (!ctx->unknown) {
                problem(ctx, "gpu %d: unknown GPU name '%s' (not in the catalog; see `gpu list`)", g->index, g->name);
                continue;
            }
            json_array_foreach(ctx->unknown, k, v)
                if (strcmp(json_string_value(v), g->name) == 0)
                    break;
            if (k == json_array_size(ctx->unknown) && json_array_append_new(ctx->unknown, json_string(g->name)) != 0)
                ctx->nomem = 1;
            continue;
        }
        memset(&key, 0, sizeof key);
        snprintf(key.model, sizeof key.model, "%s", g->model);
        key.memory_gb = probe_gpu_memory_gb(g);
        if (key.memory_gb > 1024)
            key.memory_gb = 1024;
        /* nvidia-smi has no PCIe link to report for an SXM module. */
        key.sxm = g->pcie_gen == 0 || g->pcie_lanes == 0;
        if (!key.sxm) {
            key.pcie_gen = g->pcie_gen > 6 ? 6 : g->pcie_gen;
            key.pcie_lanes = g->pcie_lanes > 16 ? 16 : g->pcie_lanes;
        }
        for (j = 0; j < inv->ngroups; j++) {
            const hw_gpu_group *h = &inv->gpus[j];
            if (strcmp(h->model, key.model) == 0 && h->memory_gb == key.memory_gb && h->sxm == key.sxm &&
                h->pcie_gen == key.pcie_gen && h->pcie_lanes == key.pcie_lanes)
                break;
        }
        if (j == inv->ngroups) {
            if (inv->ngroups == HWREQ_MAX_GROUPS) {
                problem(ctx, "gpu %d left out: an inventory lists at most %d GPU groups", g->index, HWREQ_MAX_GROUPS);
                continue;
            }
            inv->gpus[inv->ngroups++] = key;
        }
        if (inv->gpus[j].count == 64) {
            problem(ctx, "gpu %d left out: a GPU group counts at most 64 GPUs", g->index);
            continue;
        }
        inv->gpus[j].count++;
    }
}

/* ---- the inventory -------------------------------------------------------- */

rd_code probe_inventory(const char *root, const char *nvidia_smi, json_t **inventory, json_t **problems,
                        rd_err *err)
{
    return probe_inventory_found(root, nvidia_smi, inventory, problems, NULL, err);
}

rd_code probe_inventory_found(const char *root, const char *nvidia_smi, json_t **inventory, json_t **problems,
                              probe_found *found, rd_err *err)
{
    probe_ctx ctx = { root ? root : "", json_array(), NULL, 0 };
    hw_inventory inv, check;
    probe_gpu *gpus = NULL;
    size_t ngpus = 0;
    int present;
    json_t *doc = NULL;
    rd_code rc;

    *inventory = NULL;
    *problems = NULL;
    memset(&inv, 0, sizeof inv);
    if (found) {
        memset(found, 0, sizeof *found);
        if (!(found->unknown = ctx.unknown = json_array()))
            ctx.nomem = 1;
    }
    if (!ctx.problems || ctx.nomem) {
        rc = rd_fail(err, RD_ENOMEM, "out of memory probing the machine");
        goto fail;
    }
    if ((rc = probe_cpu_cores(&ctx, &inv.cpu_cores, err)) != RD_OK ||
        (rc = probe_memory_gb(&ctx, &inv.memory_gb, err)) != RD_OK)
        goto fail;
    if (found) {
        /* a broken driver is the node's news, not the agent's end */
        if ((rc = probe_gpus_query(nvidia_smi, PROBE_NVIDIA_SMI_TIMEOUT_MS, &gpus, &ngpus, &found->smi, err)) != RD_OK)
            goto fail;
        if (found->smi.present && !found->smi.answered) {
            free(gpus);
            gpus = NULL;
            ngpus = 0;
        }
    } else if ((rc = probe_gpus_read(nvidia_smi, &gpus, &ngpus, &present, err)) != RD_OK) {
        goto fail;
    }
    probe_group_gpus(&ctx, gpus, ngpus, &inv);
    free(gpus);
    probe_drives(&ctx, &inv);
    probe_tpm(&ctx, &inv);
    probe_network(&ctx, &inv);
    if (ctx.nomem || !(doc = hwreq_inventory_json(&inv))) {
        rc = rd_fail(err, RD_ENOMEM, "out of memory probing the machine");
        goto fail;
    }
    /* The agent reports what it found; a document hwreq refuses would be a
     * bug here, so it is caught here rather than by the control plane. */
    if ((rc = hwreq_inventory_from_json(doc, &check, err)) != RD_OK)
        goto fail;
    *inventory = doc;
    *problems = ctx.problems;
    rd_err_clear(err);
    return RD_OK;
fail:
    json_decref(doc);
    json_decref(ctx.problems);
    if (found) {
        json_decref(found->unknown);
        found->unknown = NULL;
    }
    return rc;
}
