/* alert_pseudo_gpu_unhealthy.c - the pseudo-metric gpu_unhealthy: per GPU,
 * 1 while its node lists it unhealthy in gpu_health, else 0; every store
 * has the rule gpu-unhealthy on it. */
#include <string.h>

#include "alert_pseudo.h"
#include "doc.h"

/* 1 when node lists GPU index as unhealthy. */
static int gpu_unhealthy(const json_t *node, int64_t index)
{
    size_t i;
    json_t *g;
    json_array_foreach(json_object_get(node, "gpu_health"), i, g)
        if (json_integer_value(json_object_get(g, "index")) == index &&
            strcmp(doc_str(g, "state"), "healthy") != 0)
            return 1;
    return 0;
}

/* Every GPU the node has, and any the health list names beyond. */
static rd_code gpu_unhealthy_read(const json_t *node, alert_pseudo_reading reading, void *data, rd_err *err)
{
    int64_t count = strcmp(doc_str(node, "gpu_type"), "cpu") == 0 ? 0 : doc_int(node, "gpu_count"), top = count;
    size_t i;
    json_t *g;
    json_array_foreach(json_object_get(node, "gpu_health"), i, g)
        if (json_integer_value(json_object_get(g, "index")) >= top)
            top = json_integer_value(json_object_get(g, "index")) + 1;
    rd_code rc = RD_OK;
    for (int64_t k = 0; k < top && k < 1024 && rc == RD_OK; k++)
        rc = reading(data, (int)k, gpu_unhealthy(node, k), err);
    return rc;
}

const alert_pseudo alert_pseudo_gpu_unhealthy = {
    .name = "gpu_unhealthy",
    .per_gpu = 1,
    .read = gpu_unhealthy_read,
    .default_generation = 1,
    .default_rule = { .name = "gpu-unhealthy", .metric = "gpu_unhealthy", .above = "0", .severity = "warning" },
};
