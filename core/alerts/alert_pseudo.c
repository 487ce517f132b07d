/* alert_pseudo.c - the registry of alert pseudo-metrics (one table,
 * below).  A new pseudo-metric is its file (alert_pseudo_NAME.c, one
 * alert_pseudo record) and one line here; its default rule, if it has
 * one, takes the next generation (alerts.h). */
#include "alert_pseudo.h"

#include <string.h>

extern const alert_pseudo alert_pseudo_node_offline, alert_pseudo_gpu_unhealthy, alert_pseudo_node_runtime;

/* In the order `alert rule add` names them and a new store stages their
 * default rules. */
static const alert_pseudo *const pseudo_metrics[] = {
    &alert_pseudo_node_offline,
    &alert_pseudo_gpu_unhealthy,
    &alert_pseudo_node_runtime,
};

size_t alert_pseudo_count(void)
{
    return sizeof pseudo_metrics / sizeof pseudo_metrics[0];
}

const alert_pseudo *alert_pseudo_at(size_t i)
{
    return i < alert_pseudo_count() ? pseudo_metrics[i] : NULL;
}

const alert_pseudo *alert_pseudo_find(const char *name)
{
    for (size_t i = 0; name && i < alert_pseudo_count(); i++)
        if (strcmp(pseudo_metrics[i]->name, name) == 0)
            return pseudo_metrics[i];
    return NULL;
}
