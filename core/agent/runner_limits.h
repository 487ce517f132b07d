/* runner_limits.h - what a worker may use of its node (spec/execution.md
 * §4): the vCPUs and memory a container gets (--cpus, --memory), the CPUs
 * the process runtime pins a worker to, the NVIDIA MPS variables of a
 * worker holding a fraction of a GPU, and how much disk its work directory
 * uses (disk_exceeded).  The arithmetic is pure and integer-only so that
 * tests/unit/test_runner_limits.c checks it without a machine; the agent
 * (agent_work.c) fills a runner_spec from it and runner_exec.c turns that
 * into argv, environment and affinity.
 */
#ifndef RD_RUNNER_LIMITS_H
#define RD_RUNNER_LIMITS_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>

/* What one worker holds and what its node has. */
typedef struct {
    int64_t gpus_x100;  /* the worker's GPUs in hundredths (the sum of its
                         * alloc's x100: 50 for half a GPU, 200 for two);
                         * 0: a CPU job */
    int cpu_count;      /* a CPU job's vCPUs (resources.cpu_count) */
    int node_vcpus;     /* the node's vCPUs (inventory cpu_cores × 2); 0: unknown */
    int node_gpus;      /* the node's GPUs; 0: unknown */
    int gpu_memory_gb;  /* one of its GPUs' memory in GB; 0: unknown */
} limits_in;

typedef struct {
    int cpus;           /* vCPUs: --cpus N and the process runtime's pinning; 0: no limit */
    int memory_gib;     /* --memory NG; 0: no limit */
} limits_out;

/* The rule of seed 001: a CPU job gets its cpu_count and 4 GiB per vCPU; a
 * GPU job its share of the node's vCPUs (node_vcpus × gpus / node_gpus,
 * fractions included) and twice the memory of its GPUs (2 × gpu_memory_gb
 * × gpus).  Both rounded down - a worker never takes a neighbour's part of
 * the machine - but at least 1.  What the node does not say (0) is no
 * limit (0). */
void limits_compute(const limits_in *in, limits_out *out);

/* The MPS variables of a worker holding gpus_x100 < 100 of GPU `device`
 * (the index the worker sees: the host's for the process runtime, 0 in a
 * container) whose memory is memory_gb:
 *   CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=<x100>            (share × 100, down)
 *   CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=<device>=<x100 × memory_gb × 1024 / 100>M
 * (half an A100 40 GB: 50 and "0=20480M").  Writes them to pct and mem and
 * returns 2; returns 0 and writes nothing for a whole GPU or none, 1 (pct
 * only) when the memory is unknown. */
int limits_mps_env(int64_t gpus_x100, int device, int memory_gb, char *pct, size_t pct_len, char *mem,
                   size_t mem_len);

/* Chooses `want` CPUs of online into out, lowest first, those not in taken
 * (pinned to other workers) before those in it.  Returns how many it chose:
 * fewer than want when online has fewer CPUs (then all of them). */
int limits_pick_cpus(int want, const cpu_set_t *online, const cpu_set_t *taken, cpu_set_t *out);

/* "0-3,8,10-11" for set into buf (always NUL-terminated; "" for none);
 * -1 when buf is too small. */
int limits_cpu_list_format(const cpu_set_t *set, char *buf, size_t len);

/* The reverse: a list of CPUs and ranges into set; -1 when the text is not
 * such a list (or names a CPU beyond CPU_SETSIZE). */
int limits_cpu_list_parse(const char *text, cpu_set_t *set);

/* Bytes on disk (st_blocks × 512) under dir, not following symbolic links
 * and not counting dir/.rigdeck (the runner's own records, bounded).  It
 * stops counting once the total passes stop_at (> 0) or after max_entries
 * entries: the caller only asks "past the limit?", so a huge tree costs
 * no more than the limit's worth of entries.  -1 when dir cannot be read. */
int64_t limits_disk_used(const char *dir, int64_t stop_at, long max_entries);

#endif
