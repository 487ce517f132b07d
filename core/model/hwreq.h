/* hwreq.h - machine inventories and the hardware requirements of seed 000.
 *
 * An inventory is what a node reports about its hardware (the YAML format of
 * spec/commands.md).  This module parses and validates it, converts it to and
 * from the JSON stored in the node document, and lists every hardware
 * requirement the machine fails for its role and region.
 * Sizes are decimal GB (1 TB = 1000 GB).
 */
#ifndef RD_HWREQ_H
#define RD_HWREQ_H

#include <stddef.h>

#include <jansson.h>

#include "err.h"

#define HWREQ_MAX_GROUPS 16
#define HWREQ_MAX_DRIVES 32

typedef struct {
    char model[24]; /* a catalog GPU id other than "cpu" */
    int count;      /* 1..64 */
    int memory_gb;  /* per GPU, 1..1024 */
    int pcie_gen;   /* 1..6; 0 for SXM */
    int pcie_lanes; /* 1..16; 0 for SXM */
    int sxm;        /* 1: SXM-connected (no pcie_* given) */
} hw_gpu_group;

typedef struct {
    hw_gpu_group gpus[HWREQ_MAX_GROUPS];
    size_t ngroups;
    int cpu_cores;    /* physical cores, 1..4096 */
    int memory_gb;    /* 1..65536 */
    int nvme_gb[HWREQ_MAX_DRIVES];
    size_t nnvme;
    struct {
        int size_gb;  /* 1..1000000 */
        char kind[4]; /* "ssd" or "hdd" */
    } sata[HWREQ_MAX_DRIVES];
    size_t nsata;
    char tpm[8];      /* "2.0" style version, "" when absent */
    int network_gbps; /* 1..10000 */
} hw_inventory;

/* Parses an inventory file (YAML or JSON) into *out.  Unknown keys, wrong
 * types, out-of-range numbers, unknown GPU models, bad drive kinds and GPU
 * groups with both or neither of sxm / pcie_* are RD_EINVAL naming the field
 * path ("inventory gpus[1].pcie_lanes must be a whole number 1..16, got 'x'").
 * Required: gpus (may be []), cpu_cores, memory_gb, nvme, network_gbps. */
rd_code hwreq_parse_inventory(const char *text, size_t len, const char *source, hw_inventory *out, rd_err *err);

/* The inventory as a new JSON object of the file's shape (tpm null when
 * absent); NULL only when out of memory. */
json_t *hwreq_inventory_json(const hw_inventory *inv);

/* Validates doc exactly as hwreq_parse_inventory does and fills *out. */
rd_code hwreq_inventory_from_json(const json_t *doc, hw_inventory *out, rd_err *err);

/* Total number of GPUs over all groups. */
int hwreq_gpu_total(const hw_inventory *inv);

/* The one GPU model id of the machine, "cpu" when it has no GPU, NULL when
 * it mixes models. */
const char *hwreq_gpu_model(const hw_inventory *inv);

typedef struct {
    int role_storage;         /* the node is a storage node: only all-systems rules apply */
    int sells_spare_capacity; /* its region allows public jobs */
    int storage_central;      /* its region uses central (1) or local (0) storage mode */
} hwreq_context;

/* A new JSON array with one {"requirement", "required", "actual", "message"}
 * per unmet requirement, in a fixed order; [] when every rule holds.  ids:
 * gpu_same_model nvme_count nvme_total_gb tpm memory_gb pcie_lanes cpu_cores
 * sata_drives network_gbps.  ctx NULL means a compute node in a private,
 * local-storage region.  NULL only when out of memory. */
json_t *hwreq_check(const hw_inventory *inv, const hwreq_context *ctx);

#endif
