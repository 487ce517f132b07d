/* quota.h - GCP quota metrics and the runnable-jobs formula of seed 000.
 *
 * A GCP region's jobs are limited by its project's quotas.  For a GPU type
 * the number of runnable single-GPU jobs is the minimum of: the GPUs of that
 * type still available, the available CPUs divided by the vCPUs a job of that
 * type takes (6 for P100, 8 for V100 and T4, 12 for A100), and the available
 * local SSD divided by 375 GB (one local SSD partition per job).
 */
#ifndef RD_QUOTA_H
#define RD_QUOTA_H

#include <jansson.h>
#include <stdint.h>

#include "catalog.h"
#include "err.h"

#define QUOTA_CPUS "CPUS"
#define QUOTA_LOCAL_SSD "LOCAL_SSD_TOTAL_GB"
#define QUOTA_SSD_PER_JOB_GB 375

/* limit - usage of metric in {"METRIC": {"limit", "usage"}}, never below 0;
 * a missing metric has nothing available. */
int64_t quota_available(const json_t *metrics, const char *metric);

/* The runnable-jobs formula for one GPU type (0 for types GCP lacks). */
int64_t quota_runnable_jobs(const gpu_type *g, const json_t *metrics);

/* {"gpu id": runnable} for every GPU type the GCP region offers. */
json_t *quota_runnable_map(const char *gcp_region, const json_t *metrics);

/* RD_OK when metric looks like a GCP quota metric (A-Z, 0-9, '_'). */
rd_code quota_check_metric(const char *metric, rd_err *err);

#endif
