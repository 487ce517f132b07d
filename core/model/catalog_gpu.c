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

/* A class and its usage fee go together: one word in a record. */
#define DEV .cls = GPU_CLASS_DEVELOPMENT, .usage_fee_ucr = FEE_DEVELOPMENT
#define PRO .cls = GPU_CLASS_PROFESSIONAL, .usage_fee_ucr = FEE_PROFESSIONAL
#define DC .cls = GPU_CLASS_DATACENTER, .usage_fee_ucr = FEE_DATACENTER
#define NONE .cls = GPU_CLASS_NONE, .usage_fee_ucr = 0
#define NAMES(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* One record per type, every field named (catalog.h says what each is; a
 * field left out is 0 or NULL: not on GCP, no form, no nvidia-smi names).
 * nvidia_names are the names nvidia-smi prints for the card: the agent's
 * probe finds a node's type by them and by nothing else, so a new type is
 * this one record (docs/architecture.md, "Adding a GPU type").  Memory GB,
 * FP32 and FP16 in tenths of TFLOPS.  The thirteen of seed 001 keep its
 * figures; for the modern types FP16 is the data sheet's dense FP16 Tensor
 * Core figure (half the one "with sparsity"), see docs/gpus.md. */
static const gpu_type gpus[] = {
    { .id = "gtx1060", .name = "GTX 1060", DEV, .builtin = 1,
      .memory_gb = 6, .fp32_tflops_x10 = 45, .fp16_tflops_x10 = 9,
      .nvidia_names = NAMES("NVIDIA GeForce GTX 1060 6GB", "NVIDIA GeForce GTX 1060") },
    { .id = "rtx2060s", .name = "RTX 2060 Super", DEV, .builtin = 1,
      .memory_gb = 8, .fp32_tflops_x10 = 71, .fp16_tflops_x10 = 150,
      .nvidia_names = NAMES("NVIDIA GeForce RTX 2060 SUPER") },
    { .id = "rtx2070s", .name = "RTX 2070 Super", DEV, .builtin = 1,
      .memory_gb = 8, .fp32_tflops_x10 = 90, .fp16_tflops_x10 = 185,
      .nvidia_names = NAMES("NVIDIA GeForce RTX 2070 SUPER") },
    { .id = "rtx2080ti", .name = "RTX 2080 Ti", DEV, .builtin = 1,
      .memory_gb = 11, .fp32_tflops_x10 = 135, .fp16_tflops_x10 = 250,
      .nvidia_names = NAMES("NVIDIA GeForce RTX 2080 Ti") },
    { .id = "rtx3090", .name = "RTX 3090", DEV, .builtin = 1,
      .memory_gb = 24, .fp32_tflops_x10 = 355, .fp16_tflops_x10 = 390,
      .nvidia_names = NAMES("NVIDIA GeForce RTX 3090") },
    { .id = "rtx-a4000", .name = "RTX A4000", PRO, .builtin = 1,
      .memory_gb = 16, .fp32_tflops_x10 = 97, .fp16_tflops_x10 = 190,
      .nvidia_names = NAMES("NVIDIA RTX A4000") },
    { .id = "rtx-a6000", .name = "RTX A6000", PRO, .builtin = 1,
      .memory_gb = 48, .fp32_tflops_x10 = 360, .fp16_tflops_x10 = 400,
      .nvidia_names = NAMES("NVIDIA RTX A6000") },
    { .id = "t4", .name = "T4", DC, .form = "pcie", .builtin = 1,
      .memory_gb = 16, .fp32_tflops_x10 = 75, .fp16_tflops_x10 = 155,
      .gcp_cpus_per_job = 8, .gcp_quota_metric = "NVIDIA_T4_GPUS", .gcp_accelerator = "nvidia-tesla-t4",
      .nvidia_names = NAMES("Tesla T4", "NVIDIA T4") },
    { .id = "p100", .name = "P100", DC, .builtin = 1,
      .memory_gb = 16, .fp32_tflops_x10 = 80, .fp16_tflops_x10 = 160,
      .gcp_cpus_per_job = 6, .gcp_quota_metric = "NVIDIA_P100_GPUS", .gcp_accelerator = "nvidia-tesla-p100",
      .nvidia_names = NAMES("Tesla P100-PCIE-16GB", "Tesla P100-SXM2-16GB", "Tesla P100-PCIE-12GB") },
    { .id = "v100", .name = "V100", DC, .builtin = 1,
      .memory_gb = 16, .fp32_tflops_x10 = 150, .fp16_tflops_x10 = 255,
      .gcp_cpus_per_job = 8, .gcp_quota_metric = "NVIDIA_V100_GPUS", .gcp_accelerator = "nvidia-tesla-v100",
      .nvidia_names = NAMES("Tesla V100-SXM2-16GB",
                            "Tesla V100-PCIE-16GB",
                            "Tesla V100-SXM2-32GB",
                            "Tesla V100-PCIE-32GB") },
    { .id = "a100", .name = "A100 (40GB)", DC, .builtin = 1,
      .memory_gb = 40, .fp32_tflops_x10 = 390, .fp16_tflops_x10 = 625,
      .gcp_cpus_per_job = 12, .gcp_quota_metric = "NVIDIA_A100_GPUS", .gcp_accelerator = "nvidia-tesla-a100",
      .nvidia_names = NAMES("NVIDIA A100-SXM4-40GB", "NVIDIA A100-PCIE-40GB") },
    { .id = "a100-80gb", .name = "A100 (80GB)", DC, .builtin = 1,
      .memory_gb = 80, .fp32_tflops_x10 = 390, .fp16_tflops_x10 = 625,
      .gcp_cpus_per_job = 12, .gcp_quota_metric = "NVIDIA_A100_80GB_GPUS", .gcp_accelerator = "nvidia-a100-80gb",
      .nvidia_names = NAMES("NVIDIA A100-SXM4-80GB", "NVIDIA A100 80GB PCIe") },
    { .id = "cpu", .name = "None (CPU-only)", NONE, .builtin = 1 },
    /* the shipped modern types (execution.md §1) */
    { .id = "h100", .name = "H100 (80GB)", DC, .form = "sxm", .builtin = 1,
      .memory_gb = 80, .fp32_tflops_x10 = 670, .fp16_tflops_x10 = 9895,
      .nvidia_names = NAMES("NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe") },
    { .id = "h100-nvl", .name = "H100 NVL", DC, .form = "pcie", .builtin = 1,
      .memory_gb = 94, .fp32_tflops_x10 = 600, .fp16_tflops_x10 = 8355,
      .nvidia_names = NAMES("NVIDIA H100 NVL") },
    { .id = "h200", .name = "H200", DC, .form = "sxm", .builtin = 1,
      .memory_gb = 141, .fp32_tflops_x10 = 670, .fp16_tflops_x10 = 9895,
      .nvidia_names = NAMES("NVIDIA H200") },
    { .id = "b200", .name = "B200", DC, .form = "sxm", .builtin = 1,
      .memory_gb = 180, .fp32_tflops_x10 = 750, .fp16_tflops_x10 = 22500,
      .nvidia_names = NAMES("NVIDIA B200") },
    { .id = "gh200", .name = "GH200", DC, .builtin = 1,
      .memory_gb = 96, .fp32_tflops_x10 = 670, .fp16_tflops_x10 = 9895,
      .nvidia_names = NAMES("NVIDIA GH200 480GB") },
    { .id = "l40s", .name = "L40S", DC, .form = "pcie", .builtin = 1,
      .memory_gb = 48, .fp32_tflops_x10 = 916, .fp16_tflops_x10 = 3621,
      .nvidia_names = NAMES("NVIDIA L40S") },
    { .id = "l40", .name = "L40", DC, .form = "pcie", .builtin = 1,
      .memory_gb = 48, .fp32_tflops_x10 = 905, .fp16_tflops_x10 = 1811,
      .nvidia_names = NAMES("NVIDIA L40") },
    { .id = "l4", .name = "L4", DC, .form = "pcie", .builtin = 1,
      .memory_gb = 24, .fp32_tflops_x10 = 303, .fp16_tflops_x10 = 1210,
      .nvidia_names = NAMES("NVIDIA L4") },
    { .id = "a10g", .name = "A10G", DC, .form = "pcie", .builtin = 1,
      .memory_gb = 24, .fp32_tflops_x10 = 312, .fp16_tflops_x10 = 1250,
      .nvidia_names = NAMES("NVIDIA A10G") },
    { .id = "a10", .name = "A10", DC, .form = "pcie", .builtin = 1,
      .memory_gb = 24, .fp32_tflops_x10 = 312, .fp16_tflops_x10 = 1250,
      .nvidia_names = NAMES("NVIDIA A10") },
    { .id = "a30", .name = "A30", DC, .form = "pcie", .builtin = 1,
      .memory_gb = 24, .fp32_tflops_x10 = 103, .fp16_tflops_x10 = 1650,
      .nvidia_names = NAMES("NVIDIA A30") },
    { .id = "a40", .name = "A40", DC, .form = "pcie", .builtin = 1,
      .memory_gb = 48, .fp32_tflops_x10 = 374, .fp16_tflops_x10 = 1497,
      .nvidia_names = NAMES("NVIDIA A40") },
    { .id = "rtx-a5000", .name = "RTX A5000", PRO, .form = "pcie", .builtin = 1,
      .memory_gb = 24, .fp32_tflops_x10 = 278, .fp16_tflops_x10 = 1111,
      .nvidia_names = NAMES("NVIDIA RTX A5000") },
    { .id = "rtx-6000-ada", .name = "RTX 6000 Ada", PRO, .form = "pcie", .builtin = 1,
      .memory_gb = 48, .fp32_tflops_x10 = 911, .fp16_tflops_x10 = 3643,
      .nvidia_names = NAMES("NVIDIA RTX 6000 Ada Generation") },
    { .id = "rtx4090", .name = "RTX 4090", DEV, .form = "pcie", .builtin = 1,
      .memory_gb = 24, .fp32_tflops_x10 = 826, .fp16_tflops_x10 = 3303,
      .nvidia_names = NAMES("NVIDIA GeForce RTX 4090") },
    { .id = "rtx4080", .name = "RTX 4080", DEV, .form = "pcie", .builtin = 1,
      .memory_gb = 16, .fp32_tflops_x10 = 487, .fp16_tflops_x10 = 1949,
      .nvidia_names = NAMES("NVIDIA GeForce RTX 4080") },
    { .id = "rtx3080", .name = "RTX 3080", DEV, .form = "pcie", .builtin = 1,
      .memory_gb = 10, .fp32_tflops_x10 = 298, .fp16_tflops_x10 = 1190,
      .nvidia_names = NAMES("NVIDIA GeForce RTX 3080") },
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
