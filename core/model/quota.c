/* quota.c - the runnable-jobs formula over GCP quota metrics. */
#include "quota.h"

#include <string.h>

int64_t quota_available(const json_t *metrics, const char *metric)
{
    const json_t *m = json_object_get(metrics, metric);
    if (!m)
        return 0;
    int64_t avail = json_integer_value(json_object_get(m, "limit")) - json_integer_value(json_object_get(m, "usage"));
    return avail > 0 ? avail : 0;
}

int64_t quota_runnable_jobs(const gpu_type *g, const json_t *metrics)
{
    if (!g || !g->gcp_quota_metric || g->gcp_cpus_per_job <= 0)
        return 0;
    int64_t n = quota_available(metrics, g->gcp_quota_metric);
    int64_t by_cpu = quota_available(metrics, QUOTA_CPUS) / g->gcp_cpus_per_job;
    int64_t by_ssd = quota_available(metrics, QUOTA_LOCAL_SSD) / QUOTA_SSD_PER_JOB_GB;
    if (by_cpu < n)
        n = by_cpu;
    if (by_ssd < n)
        n = by_ssd;
    return n;
}

json_t *quota_runnable_map(const char *gcp_region, const json_t *metrics)
{
    const gcp_region_info *r = catalog_gcp_region(gcp_region);
    json_t *map = json_object();
    for (size_t i = 0; r && map && i < catalog_gpu_count(); i++) {
        const gpu_type *g = catalog_gpu_at(i);
        if (g->gcp_quota_metric && catalog_gcp_region_has_gpu(r, g->id))
            json_object_set_new(map, g->id, json_integer(quota_runnable_jobs(g, metrics)));
    }
    return map;
}

rd_code quota_check_metric(const char *metric, rd_err *err)
{
    size_t n = strlen(metric);
    if (n == 0 || n > 64 || metric[0] < 'A' || metric[0] > 'Z' ||
        metric[strspn(metric, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")])
        return rd_fail(err, RD_EINVAL, "quota metric must be a GCP metric name of A-Z, 0-9 and '_' (e.g. NVIDIA_V100_GPUS, CPUS, LOCAL_SSD_TOTAL_GB), got '%s'", metric);
    return RD_OK;
}
