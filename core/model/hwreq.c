/* hwreq.c - inventory validation and the seed 000 hardware requirement rules. */
#include "hwreq.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "yamljson.h"

#define PATH_LEN 64

/* ---- validation helpers --------------------------------------------------- */

/* The value is described, never quoted: an inventory is a file, and a
 * refusal may reach someone who may not read it (yamljson_describe). */
static rd_code fail_value(rd_err *err, const char *path, const char *rule, const json_t *v)
{
    char got[48];
    return rd_fail(err, RD_EINVAL, "inventory %s must be %s, got %s", path, rule, yamljson_describe(v, got, sizeof got));
}

static rd_code get_int(const json_t *v, const char *path, int lo, int hi, int *out, rd_err *err)
{
    char rule[64];
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
        snprintf(rule, sizeof rule, "a whole number %d..%d", lo, hi);
        return fail_value(err, path, rule, v);
    }
    *out = (int)json_integer_value(v);
    return RD_OK;
}

/* Refuses any key of obj that is not in allowed (NULL-terminated). */
static rd_code check_keys(const json_t *obj, const char *path, const char *const *allowed, rd_err *err)
{
    const char *key;
    json_t *v;

    json_object_foreach((json_t *)obj, key, v) {
        const char *const *a;
        char list[160];
        size_t used = 0;
        for (a = allowed; *a && strcmp(*a, key) != 0; a++)
            ;
        if (*a)
            continue;
        list[0] = '\0';
        for (a = allowed; *a && used < sizeof list; a++) {
            int w = snprintf(list + used, sizeof list - used, "%s%s", a == allowed ? "" : ", ", *a);
            used += w > 0 ? (size_t)w : 0;
        }
        char shown[40];   /* a key that is no field name is not quoted: it may be any file's text */
        int named = strcmp(yamljson_describe_key(key, shown, sizeof shown), key) == 0;
        return rd_fail(err, RD_EINVAL, "inventory%s%s has an unknown key %s%s%s (allowed: %s)", *path ? " " : "",
                       path, named ? "'" : "", shown, named ? "'" : "", list);
    }
    return RD_OK;
}

static const json_t *require(const json_t *obj, const char *path, const char *key, rd_err *err)
{
    const json_t *v = json_object_get(obj, key);
    if (!v)
        rd_fail(err, RD_EINVAL, "inventory%s%s is missing the required key '%s'", *path ? " " : "", path, key);
    return v;
}

/* ---- the inventory -------------------------------------------------------- */

static rd_code parse_gpu_group(const json_t *g, size_t i, hw_gpu_group *out, rd_err *err)
{
    static const char *const keys[] = { "model", "count", "memory_gb", "pcie_gen", "pcie_lanes", "sxm", NULL };
    char path[PATH_LEN], field[PATH_LEN + 16];
    const json_t *v, *gen, *lanes, *sxm;
    rd_code rc;

    snprintf(path, sizeof path, "gpus[%zu]", i);
    if (!json_is_object(g))
        return fail_value(err, path, "a mapping {model, count, memory_gb, pcie_gen, pcie_lanes | sxm}", g);
    if ((rc = check_keys(g, path, keys, err)) != RD_OK)
        return rc;

    if (!(v = require(g, path, "model", err)))
        return RD_EINVAL;
    snprintf(field, sizeof field, "inventory %s.model", path);
    if (!json_is_string(v))
        return rd_fail(err, RD_EINVAL, "%s must be a GPU type id (see gpu list)", field);
    if (strcmp(json_string_value(v), "cpu") == 0)
        return rd_fail(err, RD_EINVAL, "%s must be a GPU type, not 'cpu' (a CPU-only machine has gpus: [])",
                       field);
    /* a model may be written as nvidia-smi prints it ("NVIDIA H100 80GB HBM3"):
     * the type listing that name is the model */
    const gpu_type *named = catalog_gpu(json_string_value(v)) ? NULL : catalog_gpu_by_nvidia_name(json_string_value(v));
    if (!named && (rc = catalog_check_gpu(field, json_string_value(v), err)) != RD_OK)
        return rc;
    snprintf(out->model, sizeof out->model, "%s", named ? named->id : json_string_value(v));

    if (!(v = require(g, path, "count", err)))
        return RD_EINVAL;
    snprintf(field, sizeof field, "%s.count", path);
    if ((rc = get_int(v, field, 1, 64, &out->count, err)) != RD_OK)
        return rc;
    if (!(v = require(g, path, "memory_gb", err)))
        return RD_EINVAL;
    snprintf(field, sizeof field, "%s.memory_gb", path);
    if ((rc = get_int(v, field, 1, 1024, &out->memory_gb, err)) != RD_OK)
        return rc;

    sxm = json_object_get(g, "sxm");
    gen = json_object_get(g, "pcie_gen");
    lanes = json_object_get(g, "pcie_lanes");
    if (sxm && !json_is_boolean(sxm)) {
        snprintf(field, sizeof field, "%s.sxm", path);
        return fail_value(err, field, "true or false", sxm);
    }
    out->sxm = sxm && json_is_true(sxm);
    if (out->sxm) {
        if (gen || lanes)
            return rd_fail(err, RD_EINVAL,
                           "inventory %s must give either sxm: true or pcie_gen and pcie_lanes, not both", path);
        return RD_OK;
    }
    if (!gen && !lanes)
        return rd_fail(err, RD_EINVAL, "inventory %s must give either pcie_gen and pcie_lanes, or sxm: true", path);
    if (!(gen = require(g, path, "pcie_gen", err)) || !(lanes = require(g, path, "pcie_lanes", err)))
        return RD_EINVAL;
    snprintf(field, sizeof field, "%s.pcie_gen", path);
    if ((rc = get_int(gen, field, 1, 6, &out->pcie_gen, err)) != RD_OK)
        return rc;
    snprintf(field, sizeof field, "%s.pcie_lanes", path);
    return get_int(lanes, field, 1, 16, &out->pcie_lanes, err);
}

static rd_code parse_gpus(const json_t *v, hw_inventory *out, rd_err *err)
{
    size_t i;
    const json_t *g;
    rd_code rc;

    if (!json_is_array(v))
        return fail_value(err, "gpus", "a list of GPU groups (may be [])", v);
    if (json_array_size(v) > HWREQ_MAX_GROUPS)
        return rd_fail(err, RD_EINVAL, "inventory gpus must have at most %d groups, got %zu", HWREQ_MAX_GROUPS,
                       json_array_size(v));
    json_array_foreach(v, i, g) {
        if ((rc = parse_gpu_group(g, i, &out->gpus[i], err)) != RD_OK)
            return rc;
    }
    out->ngroups = json_array_size(v);
    return RD_OK;
}

/* Parses a list of drives; sata_kind selects the SATA shape {size_gb, kind}. */
static rd_code parse_drives(const json_t *v, const char *name, int sata_kind, hw_inventory *out, rd_err *err)
{
    static const char *const nvme_keys[] = { "size_gb", NULL };
    static const char *const sata_keys[] = { "size_gb", "kind", NULL };
    char path[PATH_LEN], field[PATH_LEN + 16];
    size_t i;
    const json_t *d, *x;
    rd_code rc;

    if (!json_is_array(v))
        return fail_value(err, name, sata_kind ? "a list of {size_gb, kind} (may be [])" : "a list of {size_gb}",
                          v);
    if (json_array_size(v) > HWREQ_MAX_DRIVES)
        return rd_fail(err, RD_EINVAL, "inventory %s must list at most %d drives, got %zu", name,
                       HWREQ_MAX_DRIVES, json_array_size(v));
    json_array_foreach(v, i, d) {
        int *size = sata_kind ? &out->sata[i].size_gb : &out->nvme_gb[i];
        snprintf(path, sizeof path, "%s[%zu]", name, i);
        if (!json_is_object(d))
            return fail_value(err, path, sata_kind ? "a mapping {size_gb, kind}" : "a mapping {size_gb}", d);
        if ((rc = check_keys(d, path, sata_kind ? sata_keys : nvme_keys, err)) != RD_OK)
            return rc;
        if (!(x = require(d, path, "size_gb", err)))
            return RD_EINVAL;
        snprintf(field, sizeof field, "%s.size_gb", path);
        if ((rc = get_int(x, field, 1, 1000000, size, err)) != RD_OK)
            return rc;
        if (!sata_kind)
            continue;
        if (!(x = require(d, path, "kind", err)))
            return RD_EINVAL;
        snprintf(field, sizeof field, "%s.kind", path);
        if (!json_is_string(x) || (strcmp(json_string_value(x), "ssd") != 0 && strcmp(json_string_value(x), "hdd") != 0))
            return fail_value(err, field, "ssd or hdd", x);
        snprintf(out->sata[i].kind, sizeof out->sata[i].kind, "%s", json_string_value(x));
    }
    if (sata_kind)
        out->nsata = json_array_size(v);
    else
        out->nnvme = json_array_size(v);
    return RD_OK;
}

static int is_tpm_version(const char *s)
{
    size_t major = strspn(s, "0123456789"), minor;
    if (major < 1 || major > 2 || s[major] != '.')
        return 0;
    minor = strspn(s + major + 1, "0123456789");
    return minor >= 1 && minor <= 2 && s[major + 1 + minor] == '\0';
}

static rd_code parse_tpm(const json_t *v, hw_inventory *out, rd_err *err)
{
    static const char rule[] = "a TPM version such as \"2.0\", or null for no TPM";

    if (!v || json_is_null(v)) {
        out->tpm[0] = '\0';
    } else if (json_is_string(v)) {
        if (!is_tpm_version(json_string_value(v)))
            return fail_value(err, "tpm", rule, v);
        snprintf(out->tpm, sizeof out->tpm, "%s", json_string_value(v));
    } else if (json_is_number(v)) {
        /* YAML reads tpm: 2.0 as a number; keep one decimal, exactly. */
        double tenths = json_number_value(v) * 10.0;
        if (tenths < 0 || tenths >= 1000 || fabs(tenths - round(tenths)) > 1e-6)
            return fail_value(err, "tpm", rule, v);
        unsigned t = (unsigned)lround(tenths) % 1000u; /* < 1000 already; the modulo tells the compiler */
        snprintf(out->tpm, sizeof out->tpm, "%u.%u", t / 10, t % 10);
    } else {
        return fail_value(err, "tpm", rule, v);
    }
    return RD_OK;
}

rd_code hwreq_inventory_from_json(const json_t *doc, hw_inventory *out, rd_err *err)
{
    static const char *const keys[] = { "gpus", "cpu_cores", "memory_gb", "nvme", "sata", "tpm", "network_gbps",
                                        NULL };
    const json_t *v;
    rd_code rc = RD_EINVAL;

    memset(out, 0, sizeof *out);
    if (!json_is_object(doc)) {
        rc = rd_fail(err, RD_EINVAL, "inventory must be a mapping with gpus, cpu_cores, memory_gb, nvme, "
                                     "sata, tpm and network_gbps");
        goto out;
    }
    if ((rc = check_keys(doc, "", keys, err)) != RD_OK)
        goto out;
    if ((v = require(doc, "", "gpus", err)) == NULL || (rc = parse_gpus(v, out, err)) != RD_OK)
        goto fail;
    if ((v = require(doc, "", "cpu_cores", err)) == NULL || (rc = get_int(v, "cpu_cores", 1, 4096, &out->cpu_cores, err)) != RD_OK)
        goto fail;
    if ((v = require(doc, "", "memory_gb", err)) == NULL || (rc = get_int(v, "memory_gb", 1, 65536, &out->memory_gb, err)) != RD_OK)
        goto fail;
    if ((v = require(doc, "", "nvme", err)) == NULL || (rc = parse_drives(v, "nvme", 0, out, err)) != RD_OK)
        goto fail;
    if ((v = json_object_get(doc, "sata")) != NULL && (rc = parse_drives(v, "sata", 1, out, err)) != RD_OK)
        goto fail;
    if ((rc = parse_tpm(json_object_get(doc, "tpm"), out, err)) != RD_OK)
        goto fail;
    if ((v = require(doc, "", "network_gbps", err)) == NULL || (rc = get_int(v, "network_gbps", 1, 10000, &out->network_gbps, err)) != RD_OK)
        goto fail;
    rd_err_clear(err);
    return RD_OK;
fail:
    rc = RD_EINVAL;
out:
    memset(out, 0, sizeof *out);
    return rc;
}

rd_code hwreq_parse_inventory(const char *text, size_t len, const char *source, hw_inventory *out, rd_err *err)
{
    json_t *doc = NULL;
    rd_code rc = yamljson_parse(text, len, source, &doc, err);

    if (rc != RD_OK) {
        memset(out, 0, sizeof *out);
        return rc;
    }
    rc = hwreq_inventory_from_json(doc, out, err);
    json_decref(doc);
    return rc;
}

json_t *hwreq_inventory_json(const hw_inventory *inv)
{
    json_t *doc = json_object(), *gpus = json_array(), *nvme = json_array(), *sata = json_array();
    int bad = !doc || !gpus || !nvme || !sata;

    for (size_t i = 0; !bad && i < inv->ngroups; i++) {
        const hw_gpu_group *g = &inv->gpus[i];
        json_t *o = g->sxm ? json_pack("{s:s, s:i, s:i, s:b}", "model", g->model, "count", g->count,
                                       "memory_gb", g->memory_gb, "sxm", 1)
                           : json_pack("{s:s, s:i, s:i, s:i, s:i}", "model", g->model, "count", g->count,
                                       "memory_gb", g->memory_gb, "pcie_gen", g->pcie_gen, "pcie_lanes",
                                       g->pcie_lanes);
        bad = json_array_append_new(gpus, o) != 0;
    }
    for (size_t i = 0; !bad && i < inv->nnvme; i++)
        bad = json_array_append_new(nvme, json_pack("{s:i}", "size_gb", inv->nvme_gb[i])) != 0;
    for (size_t i = 0; !bad && i < inv->nsata; i++)
        bad = json_array_append_new(sata, json_pack("{s:i, s:s}", "size_gb", inv->sata[i].size_gb, "kind",
                                                    inv->sata[i].kind)) != 0;
    if (bad) {
        json_decref(doc);
        json_decref(gpus);
        json_decref(nvme);
        json_decref(sata);
        return NULL;
    }
    bad |= json_object_set_new(doc, "gpus", gpus);
    bad |= json_object_set_new(doc, "cpu_cores", json_integer(inv->cpu_cores));
    bad |= json_object_set_new(doc, "memory_gb", json_integer(inv->memory_gb));
    bad |= json_object_set_new(doc, "nvme", nvme);
    bad |= json_object_set_new(doc, "sata", sata);
    bad |= json_object_set_new(doc, "tpm", inv->tpm[0] ? json_string(inv->tpm) : json_null());
    bad |= json_object_set_new(doc, "network_gbps", json_integer(inv->network_gbps));
    if (bad) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

int hwreq_gpu_total(const hw_inventory *inv)
{
    int total = 0;
    for (size_t i = 0; i < inv->ngroups; i++)
        total += inv->gpus[i].count;
    return total;
}

/* Number of distinct GPU models among the groups. */
static int gpu_model_count(const hw_inventory *inv)
{
    int n = 0;
    for (size_t i = 0; i < inv->ngroups; i++) {
        size_t j;
        for (j = 0; j < i && strcmp(inv->gpus[j].model, inv->gpus[i].model) != 0; j++)
            ;
        n += j == i;
    }
    return n;
}

/* "a100, v100": the distinct models, in order of first appearance. */
static void model_list(const hw_inventory *inv, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < inv->ngroups && used < len; i++) {
        size_t j;
        int w;
        for (j = 0; j < i && strcmp(inv->gpus[j].model, inv->gpus[i].model) != 0; j++)
            ;
        if (j < i)
            continue;
        w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", inv->gpus[i].model);
        used += w > 0 ? (size_t)w : 0;
    }
}

const char *hwreq_gpu_model(const hw_inventory *inv)
{
    int models = gpu_model_count(inv);
    if (models == 0)
        return "cpu";
    if (models > 1)
        return NULL;
    /* Point into the catalog, not the caller's struct, so it outlives inv. */
    const gpu_type *g = catalog_gpu(inv->gpus[0].model);
    return g ? g->id : inv->gpus[0].model;
}

/* ---- the requirements ----------------------------------------------------- */

static int add_unmet(json_t *arr, const char *id, json_t *required, json_t *actual, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int add_unmet(json_t *arr, const char *id, json_t *required, json_t *actual, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return json_array_append_new(arr, json_pack("{s:s, s:o, s:o, s:s}", "requirement", id, "required", required,
                                                "actual", actual, "message", msg));
}

static int tpm_is_2x(const char *tpm)
{
    return tpm[0] == '2' && tpm[1] == '.';
}

/* The rules every managed system must meet (compute and storage). */
static int check_all_systems(const hw_inventory *inv, int gpus, json_t *arr)
{
    int bad = 0;
    long long nvme_total = 0, nvme_needed = 1000LL * (gpus <= 2 ? 1 : (gpus + 1) / 2);

    for (size_t i = 0; i < inv->nnvme; i++)
        nvme_total += inv->nvme_gb[i];
    if (inv->nnvme < 2)
        bad |= add_unmet(arr, "nvme_count", json_integer(2), json_integer((json_int_t)inv->nnvme),
                         "at least 2 NVMe drives are required, found %zu", inv->nnvme);
    if (nvme_total < nvme_needed)
        bad |= add_unmet(arr, "nvme_total_gb", json_integer(nvme_needed), json_integer(nvme_total),
                         "NVMe drives must total at least %lld GB (1 TB per 2 GPUs, %d GPUs), found %lld GB",
                         nvme_needed, gpus, nvme_total);
    if (!tpm_is_2x(inv->tpm))
        bad |= add_unmet(arr, "tpm", json_string("2.0"), json_string(inv->tpm[0] ? inv->tpm : "none"),
                         "a TPM 2.0 (or 2.0 compatible fTPM) is required, found %s", inv->tpm[0] ? inv->tpm : "none");
    return bad;
}

/* The rules for selling spare capacity to other tenants. */
static int check_spare_capacity(const hw_inventory *inv, json_t *arr)
{
    long long vram = 0, cores_needed = 0;
    int min_lanes = 0, lanes_group = -1, bad = 0;

    for (size_t i = 0; i < inv->ngroups; i++) {
        const hw_gpu_group *g = &inv->gpus[i];
        vram += (long long)g->count * g->memory_gb;
        /* SXM parts sit on PCIe 4+ era boards: count them as gen 4. */
        cores_needed += (long long)g->count * (g->sxm || g->pcie_gen >= 4 ? 4 : 2);
        if (!g->sxm && (lanes_group < 0 || g->pcie_lanes < min_lanes)) {
            min_lanes = g->pcie_lanes;
            lanes_group = (int)i;
        }
    }
    if (inv->memory_gb < 2 * vram)
        bad |= add_unmet(arr, "memory_gb", json_integer(2 * vram), json_integer(inv->memory_gb),
                         "system memory must be at least 2x total GPU memory (2 x %lld GB = %lld GB), found %d GB",
                         vram, 2 * vram, inv->memory_gb);
    if (lanes_group >= 0 && min_lanes < 8)
        bad |= add_unmet(arr, "pcie_lanes", json_integer(8), json_integer(min_lanes),
                         "every PCIe GPU needs at least 8 PCIe lanes, gpus[%d] has %d", lanes_group, min_lanes);
    if (inv->cpu_cores < cores_needed)
        bad |= add_unmet(arr, "cpu_cores", json_integer(cores_needed), json_integer(inv->cpu_cores),
                         "at least %lld CPU cores are required (2 per PCIe 3 GPU, 4 per PCIe 4+ or SXM GPU), found %d",
                         cores_needed, inv->cpu_cores);
    return bad;
}

json_t *hwreq_check(const hw_inventory *inv, const hwreq_context *ctx)
{
    static const hwreq_context none = { 0, 0, 0 };
    json_t *arr = json_array();
    int gpus = hwreq_gpu_total(inv), models = gpu_model_count(inv), bad = 0;

    if (!arr)
        return NULL;
    if (!ctx)
        ctx = &none;
    if (!ctx->role_storage && models > 1) {
        char names[HWREQ_MAX_GROUPS * 26];
        model_list(inv, names, sizeof names);
        bad |= add_unmet(arr, "gpu_same_model", json_integer(1), json_integer(models),
                         "all GPUs in a system must be the same model, found %d models (%s)", models, names);
    }
    bad |= check_all_systems(inv, ctx->role_storage ? 0 : gpus, arr);
    if (!ctx->role_storage) {
        if (ctx->sells_spare_capacity)
            bad |= check_spare_capacity(inv, arr);
        if (!ctx->storage_central) {
            size_t big = 0;
            for (size_t i = 0; i < inv->nsata; i++)
                big += inv->sata[i].size_gb >= 2000;
            if (big < 3)
                bad |= add_unmet(arr, "sata_drives", json_integer(3), json_integer((json_int_t)big),
                                 "local storage mode needs at least 3 SATA drives (SSD or HDD) of 2000 GB or more, "
                                 "found %zu", big);
        } else if (inv->network_gbps < 10) {
            bad |= add_unmet(arr, "network_gbps", json_integer(10), json_integer(inv->network_gbps),
                             "central storage mode needs at least a 10 Gbps network connection, found %d Gbps",
                             inv->network_gbps);
        }
    }
    if (bad) {
        json_decref(arr);
        return NULL;
    }
    return arr;
}
