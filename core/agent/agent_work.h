/* agent_work.h - the workers a node agent runs (agent_work.c), and the
 * agent's state shared with its loop (agent_loop.c). */
#ifndef RD_AGENT_WORK_H
#define RD_AGENT_WORK_H

#include <jansson.h>

#include "agent_loop.h"
#include "cmd.h"
#include "metrics_http.h"
#include "runner.h"
#include "sample.h"

/* One worker this agent runs (or ran and has not yet reported). */
typedef struct {
    char job[128];
    int index;
    char dir[4096];
    int stopping;            /* the store asks it to stop */
    int64_t term_ms;         /* when SIGTERM went out (0: not yet) */
    int killed;              /* SIGKILL went out */
    int64_t log_total;       /* output size last pushed */
    int64_t log_ms;          /* when it was pushed */
    int launching;           /* a container started held: the runtime is pulling its image and making it;
                              * reported running once its entry says "started" (agent_work.c) */
    char gpus[256];          /* the GPUs it was started with (for the log) */
    int64_t disk_limit;      /* bytes its directory may use (disk_size); 0: none */
    int64_t disk_ms;         /* when it was last measured */
    int disk_exceeded;       /* stopped for its disk: reported failed, disk_exceeded */
    json_t *job_doc;         /* its job as last read (agent_upload.c reads data.output) */
    struct agent_upload *upload; /* its output's upload, once its command ended (agent_upload.c) */
    int64_t mdns_retry_ms;   /* its reservation's publisher is started again no sooner (agent_mdns.c) */
    int mdns_state;          /* 0: not yet; 1: published (said); 2: failed (warned once) */
} agent_worker;

enum { AGENT_GPU_MAX = 64 };

/* What the agent knows of its GPUs' health (agent_vitals.c). */
typedef struct {
    unsigned char known[AGENT_GPU_MAX];     /* nvidia-smi listed it at least once */
    unsigned char reported[AGENT_GPU_MAX];  /* the store lists it unhealthy, as far as we know */
    int64_t ecc_base[AGENT_GPU_MAX];        /* the ECC count it may not exceed; -1: none yet */
    int smi_failures;                       /* samples in a row nvidia-smi failed (not over a lost GPU) */
    int smi_answered;                       /* nvidia-smi answered since the agent started */
} agent_gpu_health;

typedef struct metrics_agg metrics_agg;

typedef struct {
    const agent_opts *o;
    cmd_ctx ctx;
    runner_kind runtime;
    int64_t lease, renewed_ms;
    int beats;               /* secured store: each heartbeat also rewrites the alive key (agent_loop.c) */
    int64_t beat_n;
    int beat_failed;         /* said so once; quiet until a beat lands again */
    int store_down, reconcile_due;
    int watch_failed;        /* said so once; quiet until it works again */
    sample_counters prev;    /* the last vital-stats reading (have_prev) */
    int have_prev, sample_failed, gpu_error_said, metrics_failed;
    int64_t sampled_ms;
    metrics_agg *metrics;    /* the history being folded (metrics.h) */
    agent_gpu_health health;
    int rediscover;          /* the last report said nvidia-smi failed or named a GPU no type lists:
                              * discovery runs and reports again every --sample (agent_loop.c) */
    int64_t rediscovered_ms;
    char report_said[1024];  /* that report's news, logged once until it changes */
    metrics_http *prom;      /* --metrics-listen's server, or NULL */
    store_watch *watch;
    int use_view;            /* 1: reads the controller's work view, not the jobs; -1: not known yet */
    int watching_view;       /* the open watch is on the view */
    agent_worker *workers;
    size_t nworkers, cap;
    int node_vcpus, node_gpus, gpu_memory_gb;  /* as the last inventory report said (agent_limits.c) */
} agent_state;

/* Quotes words (a JSON array of strings and integers) into one command
 * line of the command language. */
rd_code agent_work_line(const json_t *words, char *line, size_t len, rd_err *err);

/* Runs one command line as the agent, on the wall clock. */
rd_code agent_work_exec(agent_state *a, const char *line, json_t **result, rd_err *err);

/* Reads what the store places on the node and acts on it: starts workers
 * that are `starting`, adopts running ones, kills processes of workers the
 * store has ended.  Logged in as node:N on a secured store it reads the
 * controller's work view KEY_WORK "<node>/" (serve_work.c), and sets
 * use_view; otherwise (or with credentials from before the view) the
 * node's document and each job placed on it. */
void agent_work_reconcile(agent_state *a);

/* Looks after the running workers: reports ends, signals what is being
 * stopped (SIGTERM, SIGKILL 10 s later), pushes output every second or so. */
void agent_work_tend(agent_state *a, int64_t now_ms);

/* The prefix the agent watches for work: its view, or the jobs. */
const char *agent_work_watch_prefix(const agent_state *a, char buf[RD_KEY_MAX]);

/* Workers with a live process. */
size_t agent_work_running(agent_state *a);

/* Frees the worker list (the processes keep running). */
void agent_work_free(agent_state *a);

/* ---- shared by agent_work.c and agent_reconcile.c ---------------------- */

/* The record of worker index of job (NULL: none), or a new one (NULL: out
 * of memory); untrack forgets one. */
agent_worker *agent_work_find(agent_state *a, const char *job, int index);
agent_worker *agent_work_track(agent_state *a, const char *job, int index);
void agent_work_untrack(agent_state *a, agent_worker *w);

/* Kills what still runs in a worker's folder dir and removes it. */
void agent_work_cleanup(agent_state *a, const char *dir);

/* Starts (or adopts) worker index of job, placed here and `starting`. */
void agent_work_start(agent_state *a, const json_t *job, const json_t *worker, size_t index);

#endif
