/* alert_pseudo.h - the alert pseudo-metrics: readings an alert rule may
 * name beside the vital stats of metrics.h, judged from the node document
 * itself rather than from its samples (node_offline, gpu_unhealthy,
 * node_runtime).  Each is one record in a file of its own
 * (alert_pseudo_*.c) and one line of the registry in alert_pseudo.c;
 * `alert rule add` (its --metric check), `alert eval` (the reading) and a
 * new store's default rules all read the registry.
 */
#ifndef RD_ALERT_PSEUDO_H
#define RD_ALERT_PSEUDO_H

#include <jansson.h>
#include <stddef.h>

#include "alerts.h"
#include "err.h"

/* One reading of a pseudo-metric: gpu -1 for the node as a whole. */
typedef rd_code (*alert_pseudo_reading)(void *data, int gpu, double value, rd_err *err);

typedef struct {
    const char *name;       /* what --metric names: "node_offline" */
    int per_gpu;            /* one reading per GPU of the node */
    /* Calls reading for each reading of node (a node document, not
     * removed, in the rule's scope) now; stops at the first error. */
    rd_code (*read)(const json_t *node, alert_pseudo_reading reading, void *data, rd_err *err);
    /* The rule every store has for it (name NULL: none), and the
     * generation of default rules it was born in (alerts.h). */
    int default_generation;
    alert_rule_input default_rule;
} alert_pseudo;

/* The registered pseudo-metric called name, or NULL. */
const alert_pseudo *alert_pseudo_find(const char *name);

/* The registered pseudo-metrics, in registry order (0 <= i < count). */
size_t alert_pseudo_count(void);
const alert_pseudo *alert_pseudo_at(size_t i);

#endif
