/* agent_limits.h - the agent's side of a worker's limits (agent_limits.c):
 * what its runner_spec gets from the job, its allocation and this node
 * (vCPUs, memory, pinned CPUs, MPS variables), and the disk check that
 * stops a worker whose work directory outgrows its disk_size
 * (spec/execution.md §4).  The arithmetic is runner_limits.c's. */
#ifndef RD_AGENT_LIMITS_H
#define RD_AGENT_LIMITS_H

#include <jansson.h>

#include "agent_work.h"

typedef struct {
    int cpus, memory_gib;   /* runner_spec.cpus, .memory_gib */
    char cpu_list[1024];    /* runner_spec.cpu_list (process runtime), or "" */
    char mps[2][96];        /* "K=V" MPS variables of a fractional worker, or "" */
} agent_limits;

/* What worker index (its "alloc") of job gets on this node, for a->runtime. */
void agent_limits_for(agent_state *a, const json_t *job, const json_t *worker, size_t index, agent_limits *lim);

/* The node's vCPUs, GPUs and GPU memory, from a `node report` answer. */
void agent_limits_learn(agent_state *a, const json_t *node);

/* resources.disk_size of job in bytes (GB; RIGDECK_TEST_DISK_GB_BYTES, a
 * test hook, changes what a GB is); 0: none. */
int64_t agent_limits_disk_bytes(const json_t *job);

/* 1 when running worker w's directory has grown past its disk limit: then
 * it says so in the log and marks the worker (DIR/.rigdeck/disk_exceeded,
 * so an agent restarted before the report still says why).  Measures at
 * most once per --sample. */
int agent_limits_disk_check(agent_state *a, agent_worker *w, int64_t now_ms);

/* 1 when w was stopped for its disk (the mark above). */
int agent_limits_disk_marked(const agent_worker *w);

#endif
