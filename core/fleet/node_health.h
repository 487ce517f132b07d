/* node_health.h - GPU health on a node's document (node_health.c). */
#ifndef RD_NODE_HEALTH_H
#define RD_NODE_HEALTH_H

#include <jansson.h>
#include <stdint.h>

#include "cmd.h"

/* 1 when the node's GPU index is recorded unhealthy. */
int node_health_gpu_unhealthy(const json_t *node, int64_t index);

/* A new array, one entry per GPU of the node in index order:
 * {"index", "state": "healthy"|"unhealthy", "reason", "detail", "since"}
 * (the last three null for a healthy GPU). */
json_t *node_health_view(const json_t *node);

extern const cmd_def node_health_cmd_table[];

#endif
