/* alert_pseudo_node_runtime.c - the pseudo-metric node_runtime: 1 while a
 * node is out of service because its runtime failed workers in a row
 * (maintenance_reason `runtime`, job_platform.c), else 0; stores have the
 * rule node-runtime on it since the second generation of default rules. */
#include <string.h>

#include "alert_pseudo.h"
#include "doc.h"

/* Out of service (maintenance, or draining its last workers) because its
 * runtime failed workers in a row. */
static rd_code node_runtime_read(const json_t *node, alert_pseudo_reading reading, void *data, rd_err *err)
{
    int out = strcmp(doc_str(node, "maintenance_reason"), "runtime") == 0 &&
              (strcmp(doc_str(node, "state"), "maintenance") == 0 || strcmp(doc_str(node, "state"), "draining") == 0);
    return reading(data, -1, out, err);
}

const alert_pseudo alert_pseudo_node_runtime = {
    .name = "node_runtime",
    .read = node_runtime_read,
    .default_generation = 2,
    .default_rule = { .name = "node-runtime", .metric = "node_runtime", .above = "0", .severity = "warning" },
};
