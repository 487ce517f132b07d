/* catalog_gpu.c - the GPU types behind catalog.h: the built-in table (seed
 * 001's thirteen, then the shipped modern types with their data-sheet
 * figures, docs/gpus.md) and the types an operator added, loaded from the
 * store once per command (cmd.c); one look-up over both for every caller. */
#include "catalog.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define FEE_DEVELOPMENT  50000
#define FEE_PROFESSIONAL 100000
#define FEE_DATACENTER   250000

#define DEV GPU_CLASS_DEVELOPMENT, FEE_DEVELOPMENT
#define PRO GPU_CLASS_PROFESSIONAL, FEE_PROFESSIONAL
#define DC GPU_CLASS_DATACENTER, FEE_DATACENTER
#define NAMES(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* Memory GB, FP32 and FP16 in tenths of TFLOPS.  The thirteen of seed 001
 * keep its figures; for the modern types FP16 is the data sheet's dense
 * FP16 Tensor Core figure (half the one "with sparsity"), see docs/gpus.md. */
static const gpu_type gpus[] = {
    { "gtx1060", "GTX 1060", 6, 45, 9, DEV, 0, NULL, NULL,
      NAMES("NVIDIA GeForce GTX 1060 6GB", "NVIDIA GeForce GTX 1060"), NULL, 1 },
    { "rtx2060s", "RTX 2060 Super", 8, 71, 150, DEV, 0, NULL, NULL, NAMES("NVIDIA GeForce RTX 2060 SUPER"), NULL, 1 },
    { "rtx2070s", "RTX 2070 Super", 8, 90, 185, DEV, 0, NULL, NULL, NAMES("NVIDIA GeForce RTX 2070 SUPER"), NULL, 1 },
    { "rtx2080ti", "RTX 2080 Ti", 11, 135, 250, DEV, 0, NULL, NULL, NAMES("NVIDIA GeForce RTX 2080 Ti"), NULL, 1 },
    { "rtx3090", "RTX 3090", 24, 355, 390, DEV, 0, NULL, NULL, NAMES("NVIDIA GeForce RTX 3090"), NULL, 1 },
    { "rtx-a4000", "RTX A4000", 16, 97, 190, PRO, 0, NULL, NULL, NAMES("NVIDIA RTX A4000"), NULL, 1 },
    { "rtx-a6000", "RTX A6000", 48, 360, 400, PRO, 0, NULL, NULL, NAMES("NVIDIA RTX A6000"), NULL, 1 },
    { "t4", "T4", 16, 75, 155, DC, 8, "NVIDIA_T4_GPUS", "nvidia-tesla-t4", NAMES("Tesla T4", "NVIDIA T4"), "pcie", 1 },
    { "p100", "P100", 16, 80, 160, DC, 6, "NVIDIA_P100_GPUS", "nvidia-tesla-p100",
      NAMES("Tesla P100-PCIE-16GB", "Tesla P100-SXM2-16GB", "Tesla P100-PCIE-12GB"), NULL, 1 },
    { "v100", "V100", 16, 150, 255, DC, 8, "NVIDIA_V100_GPUS", "nvidia-tesla-v100",
      NAMES("Tesla V100-SXM2-16GB", "Tesla V100-PCIE-16GB", "Tesla V100-SXM2-32GB", "Tesla V100-PCIE-32GB"), NULL, 1 },
    { "a100", "A100 (40GB)", 40, 390, 625, DC, 12, "NVIDIA_A100_GPUS", "nvidia-tesla-a100",
      NAMES("NVIDIA A100-SXM4-40GB", "NVIDIA A100-PCIE-40GB"), NULL, 1 },
    { "a100-80gb", "A100 (80GB)", 80, 390, 625, DC, 12, "NVIDIA_A100_80GB_GPUS", "nvidia-a100-80gb",
      NAMES("NVIDIA A100-SXM4-80GB", "NVIDIA A100 80GB PCIe"), NULL, 1 },
    { "cpu", "None (CPU-only)", 0, 0, 0, GPU_CLASS_NONE, 0, 0, NULL, NULL, NULL, NULL, 1 },
    /* the shipped modern types (execution.md §1) */
    { "h100", "H100 (80GB)", 80, 670, 9895, DC, 0, NULL, NULL,
      NAMES("NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe"), "sxm", 1 },
    { "h100-nvl", "H100 NVL", 94, 600, 8355, DC, 0, NULL, NULL, NAMES("NVIDIA H100 NVL"), "pcie", 1 },
    { "h200", "H200", 141, 670, 9895, DC, 0, NULL, NULL, NAMES("NVIDIA H200"), "sxm", 1 },
    { "b200", "B200", 180, 750, 22500, DC, 0, NULL, NULL, NAMES("NVIDIA B200"), "sxm", 1 },
    { "gh200", "GH200", 96, 670, 9895, DC, 0, NULL, NULL, NAMES("NVIDIA GH200 480GB"), NULL, 1 },
    { "l40s", "L40S", 48, 916, 3621, DC, 0, NULL, NULL, NAMES("NVIDIA L40S"), "pcie", 1 },
    { "l40", "L40", 48, 905, 1811, DC, 0, NULL, NULL, NAMES("NVIDIA L40"), "pcie", 1 },
    { "l4", "L4", 24, 303, 1210, DC, 0, NULL, NULL, NAMES("NVIDIA L4"), "pcie", 1 },
    { "a10g", "A10G", 24, 312, 1250, DC, 0, NULL, NULL, NAMES("NVIDIA A10G"), "pcie", 1 },
    { "a10", "A10", 24, 312, 1250, DC, 0, NULL, NULL, NAMES("NVIDIA A10"), "pcie", 1 },
    { "a30", "A30", 24, 103, 1650, DC, 0, NULL, NULL, NAMES("NVIDIA A30"), "pcie", 1 },
    { "a40", "A40", 48, 374, 1497, DC, 0, NULL, NULL, NAMES("NVIDIA A40"), "pcie", 1 },
    { "rtx-a5000", "RTX A5000", 24, 278, 1111, PRO, 0, NULL, NULL, NAMES("NVIDIA RTX A5000"), "pcie", 1 },
    { "rtx-6000-ada", "RTX 6000 Ada", 48, 911, 3643, PRO, 0, NULL, NULL,
      NAMES("NVIDIA RTX 6000 Ada Generation"), "pcie", 1 },
    { "rtx4090", "RTX 4090", 24, 826, 3303, DEV, 0, NULL, NULL, NAMES("NVIDIA GeForce RTX 4090"), "pcie", 1 },
    { "rtx4080", "RTX 4080", 16, 487, 1949, DEV, 0, NULL, NULL, NAMES("NVIDIA GeForce RTX 4080"), "pcie", 1 },
    { "rtx3080", "RTX 3080", 10, 298, 1190, DEV, 0, NULL, NULL, NAMES("NVIDIA GeForce RTX 3080"), "pcie", 1 },
};

#define NGPUS (sizeof gpus / sizeof gpus[0])

/* ---- the added types ------------------------------------------------------ */

/* Strings point into docs, which the table holds while it is current. */
static struct {
    json_t *docs;
    gpu_type *types;
    const char **names; /* every type's NULL-terminated run, one after another */
    size_t n;
} added;

static void added_clear(void)
{
    json_decref(added.docs);
    free(added.types);
    free((void *)added.names);
    memset(&added, 0, sizeof added);
}

gpu_class catalog_class_parse(const char *s)
{
    if (s && strcmp(s, "development") == 0)
        return GPU_CLASS_DEVELOPMENT;
    if (s && strcmp(s, "professional") == 0)
        return GPU_CLASS_PROFESSIONAL;
    if (s && strcmp(s, "datacenter") == 0)
        return GPU_CLASS_DATACENTER;
    return GPU_CLASS_NONE;
}

int64_t catalog_class_fee(gpu_class c)
{
    return c == GPU_CLASS_DEVELOPMENT ? FEE_DEVELOPMENT
           : c == GPU_CLASS_PROFESSIONAL ? FEE_PROFESSIONAL
           : c == GPU_CLASS_DATACENTER ? FEE_DATACENTER
                                        : 0;
}

static const char *doc_s(json_t *d, const char *k)
{
    return json_string_value(json_object_get(d, k));
}

static int doc_i(json_t *d, const char *k)
{
    json_t *v = json_object_get(d, k);
    return json_is_integer(v) && json_integer_value(v) > 0 && json_integer_value(v) < 1000000
               ? (int)json_integer_value(v) : 0;
}

void catalog_gpu_load_added(json_t *docs)
{
    size_t n = json_array_size(docs), nnames = 0, i, k;
    json_t *d, *nm;

    added_clear();
    if (n == 0)
        return;
    json_array_foreach(docs, i, d)
        nnames += json_array_size(json_object_get(d, "nvidia_names")) + 1;
    added.types = calloc(n, sizeof *added.types);
    added.names = calloc(nnames, sizeof *added.names);
    if (!added.types || !added.names) {
        added_clear();
        return;
    }
    added.docs = json_incref(docs);
    nnames = 0;
    json_array_foreach(docs, i, d) {
        gpu_type *t = &added.types[added.n];
        const char *id = doc_s(d, "name");
        t->cls = catalog_class_parse(doc_s(d, "class"));
        t->memory_gb = doc_i(d, "memory_gb");
        t->fp32_tflops_x10 = doc_i(d, "fp32_tflops_x10");
        t->fp16_tflops_x10 = doc_i(d, "fp16_tflops_x10");
        /* a document no `gpu add` wrote, or one naming a built-in id, is no type */
        if (!id || t->cls == GPU_CLASS_NONE || !t->memory_gb || !t->fp32_tflops_x10 || !t->fp16_tflops_x10)
            continue;
        int clash = 0;
        for (size_t j = 0; j < NGPUS; j++)
            clash |= strcmp(gpus[j].id, id) == 0;
        if (clash)
            continue;
        t->id = t->name = id;
        t->usage_fee_ucr = catalog_class_fee(t->cls);
        t->form = doc_s(d, "form");
        t->gcp_accelerator = doc_s(d, "gcp_accelerator");
        t->gcp_quota_metric = doc_s(d, "gcp_quota");
        t->gcp_cpus_per_job = doc_i(d, "gcp_cpus_per_gpu");
        t->nvidia_names = &added.names[nnames];
        json_array_foreach(json_object_get(d, "nvidia_names"), k, nm)
            if (json_string_value(nm))
                added.names[nnames++] = json_string_value(nm);
        added.names[nnames++] = NULL;
        added.n++;
    }
}

/* ---- look-ups ------------------------------------------------------------- */

const gpu_type *catalog_gpu(const char *id)
{
    for (size_t i = 0; id && i < NGPUS; i++)
        if (strcmp(gpus[i].id, id) == 0)
            return &gpus[i];
    for (size_t i = 0; id && i < added.n; i++)
        if (strcmp(added.types[i].id, id) == 0)
            return &added.types[i];
    return NULL;
}

size_t catalog_gpu_count(void)
{
    return NGPUS + added.n;
}

const gpu_type *catalog_gpu_at(size_t i)
{
    return i < NGPUS ? &gpus[i] : i < NGPUS + added.n ? &added.types[i - NGPUS] : NULL;
}

size_t catalog_gpu_index(const gpu_type *g)
{
    /* two arrays: compare addresses within each, never across them */
    for (size_t i = 0; i < NGPUS; i++)
        if (g == &gpus[i])
            return i;
    for (size_t i = 0; i < added.n; i++)
        if (g == &added.types[i])
            return NGPUS + i;
    return 0;
}

/* s without a leading "NVIDIA " (any case) and leading blanks. */
static const char *strip_brand(const char *s)
{
    while (*s == ' ')
        s++;
    if (strncasecmp(s, "nvidia ", 7) == 0)
        s += 7;
    while (*s == ' ')
        s++;
    return s;
}

int catalog_nvidia_name_equal(const char *a, const char *b)
{
    const char *x = strip_brand(a), *y = strip_brand(b);
    size_t nx = strlen(x), ny = strlen(y);
    while (nx && x[nx - 1] == ' ')
        nx--;
    while (ny && y[ny - 1] == ' ')
        ny--;
    return nx == ny && nx > 0 && strncasecmp(x, y, nx) == 0;
}

const gpu_type *catalog_gpu_by_nvidia_name(const char *name)
{
    for (size_t i = 0; name && i < catalog_gpu_count(); i++) {
        const gpu_type *g = catalog_gpu_at(i);
        for (const char *const *n = g->nvidia_names; n && *n; n++)
            if (catalog_nvidia_name_equal(*n, name))
                return g;
    }
    return NULL;
}

const char *catalog_class_name(gpu_class c)
{
    switch (c) {
    case GPU_CLASS_DEVELOPMENT:  return "development";
    case GPU_CLASS_PROFESSIONAL: return "professional";
    case GPU_CLASS_DATACENTER:   return "datacenter";
    case GPU_CLASS_NONE:         break;
    }
    return "none";
}

json_t *catalog_gpu_json(const gpu_type *g)
{
    json_t *names = json_array();
    for (const char *const *n = g->nvidia_names; n && *n; n++)
        json_array_append_new(names, json_string(*n));
    /* Tenths divided by ten: 4.5 stays the nearest double to 4.5, as typed. */
    return json_pack("{s:s, s:s, s:s, s:o, s:i, s:f, s:f, s:s, s:I, s:s?, s:b, s:s?, s:s?, s:i, s:b}",
                     "name", g->id, "id", g->id, "display_name", g->name, "nvidia_names", names,
                     "memory_gb", g->memory_gb, "fp32_tflops", g->fp32_tflops_x10 / 10.0,
                     "fp16_tflops", g->fp16_tflops_x10 / 10.0, "class", catalog_class_name(g->cls),
                     "usage_fee_ucr", (json_int_t)g->usage_fee_ucr, "form", g->form,
                     "gcp", g->gcp_cpus_per_job > 0, "gcp_accelerator", g->gcp_accelerator,
                     "gcp_quota", g->gcp_quota_metric, "gcp_cpus_per_gpu", g->gcp_cpus_per_job,
                     "builtin", g->builtin != 0);
}

rd_code catalog_check_gpu(const char *field, const char *id, rd_err *err)
{
    char list[400];
    size_t used = 0;

    if (catalog_gpu(id))
        return RD_OK;
    list[0] = '\0';
    for (size_t i = 0; i < catalog_gpu_count(); i++) {
        const char *gid = catalog_gpu_at(i)->id;
        if (used + strlen(gid) + 8 >= sizeof list) {
            snprintf(list + used, sizeof list - used, ", ...");
            break;
        }
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", gid);
    }
    /* the value is not quoted: it may come from a file (a job spec, an inventory) */
    return rd_fail(err, RD_EINVAL, "%s must be a GPU type: one of %s (see gpu list)", field, list);
}
