/* catalog.h - the fixed facts rigdeck knows: GPU types, edge device models,
 * the Google Cloud regions it supports and the storage classes of GCP
 * storage nodes.
 *
 * GPU memory and TFLOPS of the thirteen original types are those of the
 * job-configuration document (seed 001), those of the shipped modern types
 * the vendors' data sheets (docs/gpus.md); usage fees per class are those of
 * seed 000 (see spec/billing.md).  The static tables are immutable: pointers
 * to them stay valid for the life of the process.  GPU types an operator
 * added (`gpu add`, stored under /rigdeck/gpus/) are loaded per command.
 */
#ifndef RD_CATALOG_H
#define RD_CATALOG_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "err.h"

/* ---- GPU types ------------------------------------------------------------ */

typedef enum { GPU_CLASS_NONE, GPU_CLASS_DEVELOPMENT, GPU_CLASS_PROFESSIONAL, GPU_CLASS_DATACENTER } gpu_class;

typedef struct {
    const char *id;               /* the thirteen of seed 001 (gtx1060 ... a100-80gb, cpu), the
                                     shipped modern types (h100 ... rtx3080), then those an
                                     operator added with `gpu add` */
    const char *name;             /* "GTX 1060", "A100 (40GB)", "None (CPU-only)" */
    int memory_gb;
    int fp32_tflops_x10;          /* tenths of TFLOPS, exact: 4.5 -> 45 */
    int fp16_tflops_x10;
    gpu_class cls;
    int64_t usage_fee_ucr;        /* per GPU-hour: development 50000, professional 100000,
                                     datacenter 250000, cpu 0 */
    int gcp_cpus_per_job;         /* runnable-jobs divisor on GCP: p100 6, v100 8, t4 8, a100 12,
                                     a100-80gb 12; 0 = not offered on GCP */
    const char *gcp_quota_metric; /* NVIDIA_T4_GPUS ... NVIDIA_A100_80GB_GPUS; NULL when not on GCP */
    const char *gcp_accelerator;  /* GCE acceleratorType, e.g. nvidia-tesla-t4; NULL when not on GCP */
    const char *const *nvidia_names; /* NULL-terminated: the names nvidia-smi prints for it */
    const char *form;             /* "sxm", "pcie" or NULL */
    int builtin;                  /* 1: shipped in code, cannot be changed or removed */
} gpu_type;

/* The GPU type with this catalog id, or NULL if there is none.  Built-in
 * types first, then those of the store loaded by catalog_gpu_load_added(). */
const gpu_type *catalog_gpu(const char *id);

/* The type listing the name nvidia-smi prints (case-insensitive, with or
 * without a leading "NVIDIA "), or NULL. */
const gpu_type *catalog_gpu_by_nvidia_name(const char *name);

/* 1 when a and b name the same card as catalog_gpu_by_nvidia_name compares. */
int catalog_nvidia_name_equal(const char *a, const char *b);

/* Number of GPU types (including "cpu" and added ones), and the i-th in
 * catalog order. */
size_t catalog_gpu_count(void);
const gpu_type *catalog_gpu_at(size_t i);

/* The i of catalog_gpu_at(i) == g, for a g this catalog returned since the
 * last load (tables indexed by type). */
size_t catalog_gpu_index(const gpu_type *g);

/* Replaces the added types by the documents of docs (a JSON array of
 * /rigdeck/gpus/ documents, as gpu_cmd.c writes them; NULL: none).  Called
 * once per command by the executor (cmd.c) so every command and every
 * scheduler pass sees the store's catalog; pointers from an earlier load
 * are invalid afterwards.  A document that is not a valid type is skipped. */
void catalog_gpu_load_added(json_t *docs);

/* "development", "professional", "datacenter" or "none"; and back (GPU_CLASS_NONE
 * for anything else). */
const char *catalog_class_name(gpu_class c);
gpu_class catalog_class_parse(const char *s);

/* The usage fee of a class (seed 000), micro-credits per GPU-hour. */
int64_t catalog_class_fee(gpu_class c);

/* A new object {"name", "id", "display_name", "nvidia_names", "memory_gb",
 * "fp32_tflops", "fp16_tflops", "class", "usage_fee_ucr", "form", "gcp",
 * "gcp_accelerator", "gcp_quota", "gcp_cpus_per_gpu", "builtin"}; NULL only
 * when out of memory. */
json_t *catalog_gpu_json(const gpu_type *g);

/* RD_OK when id is a catalog id, else RD_EINVAL listing the valid ids. */
rd_code catalog_check_gpu(const char *field, const char *id, rd_err *err);

/* ---- edge devices --------------------------------------------------------- */

typedef struct {
    const char *id;   /* jetson-agx-xavier jetson-xavier-nx jetson-agx-orin jetson-orin-nx jetson-orin-nano */
    const char *name; /* "NVIDIA Jetson AGX Xavier" ... */
} device_model;

/* The device model with this id, or NULL. */
const device_model *catalog_device(const char *id);
size_t catalog_device_count(void);
const device_model *catalog_device_at(size_t i);

/* RD_OK when id is a device model id, else RD_EINVAL listing the valid ids. */
rd_code catalog_check_device(const char *field, const char *id, rd_err *err);

/* ---- Google Cloud regions ------------------------------------------------- */

/* The ten GCE regions that carry most of the common GPU types.  zones and
 * gpus are NULL-terminated; gpus holds catalog ids offered somewhere in the
 * region (GCE availability as of 2024):
 *   us-central1      a b c f   t4 p100 v100 a100 a100-80gb
 *   us-east1         b c d     t4 p100 v100 a100
 *   us-east4         a b c     t4 a100-80gb
 *   us-west1         a b c     t4 p100 v100 a100
 *   us-west4         a b c     t4 a100
 *   europe-west1     b c d     t4 p100
 *   europe-west4     a b c     t4 p100 v100 a100 a100-80gb
 *   asia-east1       a b c     t4 p100 v100
 *   asia-northeast1  a b c     t4 a100
 *   asia-southeast1  a b c     t4 a100 a100-80gb */
typedef struct {
    const char *name;
    const char *const *zones;
    const char *const *gpus;
} gcp_region_info;

/* The region with this name, or NULL. */
const gcp_region_info *catalog_gcp_region(const char *name);
size_t catalog_gcp_region_count(void);
const gcp_region_info *catalog_gcp_region_at(size_t i);

/* RD_OK when name is one of the ten, else RD_EINVAL listing them. */
rd_code catalog_check_gcp_region(const char *field, const char *name, rd_err *err);

/* 1 when the region offers the GPU type with catalog id gpu_id, else 0; a
 * type added with GCP facts (gpu add --gcp-accelerator ...) counts as
 * offered in every region. */
int catalog_gcp_region_has_gpu(const gcp_region_info *r, const char *gpu_id);

/* ---- storage classes of GCP storage nodes ---------------------------------- */

/* The storage node provisioned with a GCP region: one VM with a pd-ssd data
 * disk, sized so each step doubles both disk and machine:
 *   micro    1000 GB  n2-standard-2
 *   small    2000 GB  n2-standard-4
 *   medium   4000 GB  n2-standard-8
 *   large    8000 GB  n2-standard-16
 *   xlarge  16000 GB  n2-standard-32 */
typedef struct {
    const char *name;
    int disk_gb;
    const char *machine_type;
} storage_class;

/* The storage class with this name, or NULL. */
const storage_class *catalog_storage_class(const char *name);
size_t catalog_storage_class_count(void);
const storage_class *catalog_storage_class_at(size_t i);

/* RD_OK when name is a storage class, else RD_EINVAL listing them. */
rd_code catalog_check_storage_class(const char *field, const char *name, rd_err *err);

#endif
