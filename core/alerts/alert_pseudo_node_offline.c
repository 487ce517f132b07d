/* alert_pseudo_node_offline.c - the pseudo-metric node_offline: 1 while a
 * node is offline (its agent went silent), else 0; every store has the
 * critical rule node-offline on it. */
#include <string.h>

#include "alert_pseudo.h"
#include "doc.h"

static rd_code node_offline_read(const json_t *node, alert_pseudo_reading reading, void *data, rd_err *err)
{
    return reading(data, -1, strcmp(doc_str(node, "state"), "offline") == 0 ? 1 : 0, err);
}

const alert_pseudo alert_pseudo_node_offline = {
    .name = "node_offline",
    .read = node_offline_read,
    .default_generation = 1,
    .default_rule = { .name = "node-offline", .metric = "node_offline", .above = "0", .severity = "critical" },
};
