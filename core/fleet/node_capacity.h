/* node_capacity.h - a node's capacity books in its own document
 * (node_capacity.c): GPU slots, gpus_used, disk and vCPUs held by the
 * workers placed there. */
#ifndef RD_NODE_CAPACITY_H
#define RD_NODE_CAPACITY_H

#include <jansson.h>
#include <stddef.h>

#include "rdtime.h"

/* Applies a placement to a node document: GPU slots, gpus_used, disk, CPUs,
 * the worker reference, last_used_at. */
void node_capacity_take(json_t *node, const json_t *job, size_t worker, const json_t *alloc, rd_time now);

/* Releases what a worker holds on a node (the reverse of node_capacity_take);
 * a draining node with nothing left becomes maintenance. */
void node_capacity_release(json_t *node, const json_t *job, size_t worker, rd_time now);

/* After a new inventory (gpu_count, disk_gb, cpu_cores) of a node whose
 * workers still run: sizes "gpu_alloc" to the GPUs it has now (keeping
 * every slot a worker holds) and appends to unmet one entry per resource
 * the running workers hold more of than the node now has ("gpus_held",
 * "disk_held", "vcpus_held").  Returns how many it appended. */
size_t node_capacity_check_held(json_t *node, json_t *unmet);

/* 1 when an unmet entry is one of node_capacity_check_held's. */
int node_capacity_unmet_is_held(const json_t *entry);

#endif
