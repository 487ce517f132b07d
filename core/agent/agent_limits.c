/* agent_limits.c - a worker's limits as the agent sets them: from the job's
 * resources, the worker's allocation and what this node reported, into the
 * runner_spec (containers: --cpus/--memory; the process runtime: pinned
 * CPUs) and the MPS variables of a fractional GPU; and the disk check of
 * running workers.  Numbers come from runner_limits.c (pure, unit-tested).
 *
 * Pinning picks CPUs no other running worker of this agent is pinned to,
 * learnt from the kernel (sched_getaffinity of each running worker's
 * process), not from memory, so a restarted agent that adopted its workers
 * still sees what they hold.  A worker whose mask is every CPU the agent
 * may use is not pinned (a container's client) and holds nothing.
 */
#include "agent_limits.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doc.h"
#include "runner_limits.h"

enum { DISK_WALK_MAX_ENTRIES = 200000 };

void agent_limits_learn(agent_state *a, const json_t *node)
{
    json_t *g0 = json_array_get(json_object_get(json_object_get(node, "inventory"), "gpus"), 0);
    a->node_vcpus = (int)doc_int(node, "cpu_cores") * 2;
    a->node_gpus = (int)doc_int(node, "gpu_count");
    a->gpu_memory_gb = (int)doc_int(g0, "memory_gb");
}

/* The CPUs running workers other than dir are pinned to. */
static void pinned_elsewhere(agent_state *a, const cpu_set_t *online, cpu_set_t *taken)
{
    CPU_ZERO(taken);
    for (size_t k = 0; k < a->nworkers; k++) {
        runner_status_t st;
        cpu_set_t m;
        rd_err err = { 0 };
        if (runner_status(a->workers[k].dir, &st, &err) != RD_OK || st.state != RUNNER_RUNNING ||
            st.worker_pid <= 0 || sched_getaffinity(st.worker_pid, sizeof m, &m) != 0 || CPU_EQUAL(&m, online))
            continue;
        CPU_OR(taken, taken, &m);
    }
}

static void pick_cpus(agent_state *a, const char *ref, int want, agent_limits *lim)
{
    cpu_set_t online, taken, out;
    if (want <= 0 || sched_getaffinity(0, sizeof online, &online) != 0)
        return;
    pinned_elsewhere(a, &online, &taken);
    int got = limits_pick_cpus(want, &online, &taken, &out);
    if (got < want)
        dlog(&a->o->log, "limits", NULL, "%s: asks %d vCPUs but this machine lets the agent use %d: pinned to all "
             "of them", ref, want, got);
    if (limits_cpu_list_format(&out, lim->cpu_list, sizeof lim->cpu_list) != 0)
        lim->cpu_list[0] = '\0';   /* too many ranges to say: not pinned */
}

void agent_limits_for(agent_state *a, const json_t *job, const json_t *worker, size_t index, agent_limits *lim)
{
    const json_t *res = json_object_get(job, "resources"), *g;
    limits_in in = { 0 };
    limits_out out;
    size_t i, n = 0;
    int first = -1;
    char ref[200];
    memset(lim, 0, sizeof *lim);
    json_array_foreach(json_object_get(worker, "alloc"), i, g) {
        in.gpus_x100 += doc_int(g, "x100");
        if (first < 0)
            first = (int)doc_int(g, "gpu");
        n++;
    }
    in.cpu_count = (int)doc_int(res, "cpu_count");
    in.node_vcpus = a->node_vcpus;
    in.node_gpus = a->node_gpus;
    in.gpu_memory_gb = a->gpu_memory_gb;
    limits_compute(&in, &out);
    lim->cpus = out.cpus;
    lim->memory_gib = out.memory_gib;
    snprintf(ref, sizeof ref, "%s/%zu", doc_str(job, "id"), index);
    cpu_set_t online;
    if (a->runtime == RUNNER_PROCESS) {
        pick_cpus(a, ref, out.cpus, lim);
    } else if (lim->cpus > 0 && sched_getaffinity(0, sizeof online, &online) == 0 && CPU_COUNT(&online) < lim->cpus) {
        /* docker refuses --cpus beyond the machine's CPUs */
        dlog(&a->o->log, "limits", NULL, "%s: asks %d vCPUs but this machine lets the agent use %d: --cpus %d", ref,
             lim->cpus, CPU_COUNT(&online), CPU_COUNT(&online));
        lim->cpus = CPU_COUNT(&online);
    }
    /* a fraction is one allocation on one GPU; in a container it is GPU 0 */
    if (n == 1 && first >= 0)
        limits_mps_env(in.gpus_x100, a->runtime == RUNNER_PROCESS ? first : 0, a->gpu_memory_gb, lim->mps[0],
                       sizeof lim->mps[0], lim->mps[1], sizeof lim->mps[1]);
    dlog(&a->o->log, "limits", NULL, "%s: %d vCPUs%s%s, %d GiB memory%s%s", ref, lim->cpus,
         lim->cpu_list[0] ? " pinned to CPUs " : "", lim->cpu_list, lim->memory_gib,
         lim->mps[0][0] ? ", MPS " : "", lim->mps[0][0] ? strchr(lim->mps[0], '=') + 1 : "");
}

int64_t agent_limits_disk_bytes(const json_t *job)
{
    /* TEST ONLY: how many bytes a GB is, so a test can fill a 10 GB disk_size
     * with kilobytes (tests/batch/test_agent_limits.sh).  Never set it on a
     * real node. */
    const char *unit = getenv("RIGDECK_TEST_DISK_GB_BYTES");
    int64_t gb = doc_int(json_object_get(job, "resources"), "disk_size"), per = 1000000000;
    if (unit && strtoll(unit, NULL, 10) > 0)
        per = strtoll(unit, NULL, 10);
    return gb > 0 ? gb * per : 0;
}

static char *mark_path(const agent_worker *w, char *buf, size_t len)
{
    snprintf(buf, len, "%s/.rigdeck/disk_exceeded", w->dir);
    return buf;
}

int agent_limits_disk_marked(const agent_worker *w)
{
    char path[4200];
    return access(mark_path(w, path, sizeof path), F_OK) == 0;
}

int agent_limits_disk_check(agent_state *a, agent_worker *w, int64_t now)
{
    char path[4200];
    if (w->disk_limit <= 0 || (w->disk_ms && now - w->disk_ms < a->o->sample_ms))
        return 0;
    w->disk_ms = now;
    int64_t used = limits_disk_used(w->dir, w->disk_limit, DISK_WALK_MAX_ENTRIES);
    if (used <= w->disk_limit)
        return 0;
    int fd = open(mark_path(w, path, sizeof path), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0)
        close(fd);
    dlog(&a->o->log, "limits", NULL, "%s/%d: its work directory uses more than its disk_size (%lld bytes): "
         "stopping it (failed, disk_exceeded)", w->job, w->index, (long long)w->disk_limit);
    return 1;
}
