/* catalog.c - the static tables behind catalog.h and their look-ups: device
 * models, GCP regions, storage classes (the GPU types are catalog_gpu.c). */
#include "catalog.h"

#include <stdio.h>
#include <string.h>

static const device_model devices[] = {
    { "jetson-agx-xavier", "NVIDIA Jetson AGX Xavier" },
    { "jetson-xavier-nx", "NVIDIA Jetson Xavier NX" },
    { "jetson-agx-orin", "NVIDIA Jetson AGX Orin" },
    { "jetson-orin-nx", "NVIDIA Jetson Orin NX" },
    { "jetson-orin-nano", "NVIDIA Jetson Orin Nano" },
};

/* Zones and GPU ids per region; see the table in catalog.h. */
static const char *const z_us_central1[] = { "us-central1-a", "us-central1-b", "us-central1-c", "us-central1-f", NULL };
static const char *const z_us_east1[] = { "us-east1-b", "us-east1-c", "us-east1-d", NULL };
static const char *const z_us_east4[] = { "us-east4-a", "us-east4-b", "us-east4-c", NULL };
static const char *const z_us_west1[] = { "us-west1-a", "us-west1-b", "us-west1-c", NULL };
static const char *const z_us_west4[] = { "us-west4-a", "us-west4-b", "us-west4-c", NULL };
static const char *const z_europe_west1[] = { "europe-west1-b", "europe-west1-c", "europe-west1-d", NULL };
static const char *const z_europe_west4[] = { "europe-west4-a", "europe-west4-b", "europe-west4-c", NULL };
static const char *const z_asia_east1[] = { "asia-east1-a", "asia-east1-b", "asia-east1-c", NULL };
static const char *const z_asia_northeast1[] = { "asia-northeast1-a", "asia-northeast1-b", "asia-northeast1-c", NULL };
static const char *const z_asia_southeast1[] = { "asia-southeast1-a", "asia-southeast1-b", "asia-southeast1-c", NULL };

static const char *const g_all[] = { "t4", "p100", "v100", "a100", "a100-80gb", NULL };
static const char *const g_t4_p100_v100_a100[] = { "t4", "p100", "v100", "a100", NULL };
static const char *const g_t4_a100_80[] = { "t4", "a100-80gb", NULL };
static const char *const g_t4_a100[] = { "t4", "a100", NULL };
static const char *const g_t4_p100[] = { "t4", "p100", NULL };
static const char *const g_t4_p100_v100[] = { "t4", "p100", "v100", NULL };
static const char *const g_t4_a100_a100_80[] = { "t4", "a100", "a100-80gb", NULL };

static const gcp_region_info regions[] = {
    { "us-central1", z_us_central1, g_all },
    { "us-east1", z_us_east1, g_t4_p100_v100_a100 },
    { "us-east4", z_us_east4, g_t4_a100_80 },
    { "us-west1", z_us_west1, g_t4_p100_v100_a100 },
    { "us-west4", z_us_west4, g_t4_a100 },
    { "europe-west1", z_europe_west1, g_t4_p100 },
    { "europe-west4", z_europe_west4, g_all },
    { "asia-east1", z_asia_east1, g_t4_p100_v100 },
    { "asia-northeast1", z_asia_northeast1, g_t4_a100 },
    { "asia-southeast1", z_asia_southeast1, g_t4_a100_a100_80 },
};

static const storage_class storage_classes[] = {
    { "micro", 1000, "n2-standard-2" },
    { "small", 2000, "n2-standard-4" },
    { "medium", 4000, "n2-standard-8" },
    { "large", 8000, "n2-standard-16" },
    { "xlarge", 16000, "n2-standard-32" },
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- shared refusal ------------------------------------------------------- */

/* Writes "a, b, c" of the names at stride bytes apart into buf. */
static void join_names(char *buf, size_t len, const void *table, size_t n, size_t stride)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++) {
        const char *name = *(const char *const *)((const char *)table + i * stride);
        int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", name);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

static rd_code refuse(rd_err *err, const char *field, const char *what, const void *table, size_t n,
                      size_t stride, const char *got)
{
    char list[320];
    join_names(list, sizeof list, table, n, stride);
    (void)got;   /* not quoted: the value may come from a file (a job spec, an inventory) */
    return rd_fail(err, RD_EINVAL, "%s must be %s: one of %s", field, what, list);
}

/* ---- devices -------------------------------------------------------------- */

const device_model *catalog_device(const char *id)
{
    for (size_t i = 0; id && i < COUNT(devices); i++)
        if (strcmp(devices[i].id, id) == 0)
            return &devices[i];
    return NULL;
}

size_t catalog_device_count(void)
{
    return COUNT(devices);
}

const device_model *catalog_device_at(size_t i)
{
    return i < COUNT(devices) ? &devices[i] : NULL;
}

rd_code catalog_check_device(const char *field, const char *id, rd_err *err)
{
    if (catalog_device(id))
        return RD_OK;
    return refuse(err, field, "a device model", devices, COUNT(devices), sizeof devices[0], id);
}

/* ---- GCP regions ---------------------------------------------------------- */

const gcp_region_info *catalog_gcp_region(const char *name)
{
    for (size_t i = 0; name && i < COUNT(regions); i++)
        if (strcmp(regions[i].name, name) == 0)
            return &regions[i];
    return NULL;
}

size_t catalog_gcp_region_count(void)
{
    return COUNT(regions);
}

const gcp_region_info *catalog_gcp_region_at(size_t i)
{
    return i < COUNT(regions) ? &regions[i] : NULL;
}

rd_code catalog_check_gcp_region(const char *field, const char *name, rd_err *err)
{
    if (catalog_gcp_region(name))
        return RD_OK;
    return refuse(err, field, "a supported GCP region", regions, COUNT(regions), sizeof regions[0], name);
}

int catalog_gcp_region_has_gpu(const gcp_region_info *r, const char *gpu_id)
{
    const gpu_type *g = catalog_gpu(gpu_id);
    /* an operator's type with GCP facts: the operator vouches for it, and GCE
     * itself refuses a zone without the accelerator */
    if (g && !g->builtin && g->gcp_accelerator && g->gcp_quota_metric && g->gcp_cpus_per_job > 0)
        return 1;
    for (const char *const *g = r->gpus; gpu_id && *g; g++)
        if (strcmp(*g, gpu_id) == 0)
            return 1;
    return 0;
}

/* ---- storage classes ------------------------------------------------------ */

const storage_class *catalog_storage_class(const char *name)
{
    for (size_t i = 0; name && i < COUNT(storage_classes); i++)
        if (strcmp(storage_classes[i].name, name) == 0)
            return &storage_classes[i];
    return NULL;
}

size_t catalog_storage_class_count(void)
{
    return COUNT(storage_classes);
}

const storage_class *catalog_storage_class_at(size_t i)
{
    return i < COUNT(storage_classes) ? &storage_classes[i] : NULL;
}

rd_code catalog_check_storage_class(const char *field, const char *name, rd_err *err)
{
    if (catalog_storage_class(name))
        return RD_OK;
    return refuse(err, field, "a storage class", storage_classes, COUNT(storage_classes),
                  sizeof storage_classes[0], name);
}
