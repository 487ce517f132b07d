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

/* The node's GPUs (0 for a CPU-only node). */
int64_t node_health_gpu_count(const json_t *node);

/* A GPU index given as text for field ("GPU", "--gpu"): a number the node
 * has, else RD_EINVAL naming field and the node's range. */
rd_code node_health_parse_gpu(const json_t *node, const char *field, const char *text, int64_t *index, rd_err *err);

extern const cmd_def node_health_cmd_table[];

#endif
