/* sched_index.h - placement: which node may run a job's worker, at what price.
 *
 * The scheduler works on a snapshot of the fleet read once per pass: every
 * compute node as a C record (capacity, region, GPU type, last use) next to
 * its JSON document, grouped by what makes nodes interchangeable for a job
 * (region, GPU type, GPU sharing) and, inside a group, bucketed by free GPU
 * capacity in least-recently-used order, so finding the best node for a
 * worker touches a handful of records instead of the whole fleet.
 *
 * sched_check() judges one node for one worker and names the first
 * constraint that rules it out; it serves `job why`, the aged claims and the
 * final check before a placement, and sched_pick() returns exactly the node
 * a scan of sched_check() over the fleet would rank first (a unit test
 * compares the two).  Among eligible nodes the order is: the project owner's
 * own regions first, then lowest cost per GPU-hour, then best fit (fewest GPUs
 * left over), then the least recently used node (seed 004), then the name.
 */
#ifndef RD_SCHED_INDEX_H
#define RD_SCHED_INDEX_H

#include <jansson.h>
#include <stdint.h>

#include "cmd.h"

typedef enum {
    SCHED_OK = 0,
    SCHED_NODE_STATE,     /* not an active compute node */
    SCHED_GPU_TYPE,       /* a GPU type the job does not accept */
    SCHED_PRIVATE,        /* another account's region that does not allow public jobs */
    SCHED_REGION_PIN,     /* outside the region of the job's regional resources */
    SCHED_NO_PRICE,       /* another account's capacity with no market price set */
    SCHED_PRICE,          /* costs more than the job's max_price */
    SCHED_SHARING,        /* a fractional GPU on a node that does not share GPUs */
    SCHED_GPUS,           /* not enough free GPUs */
    SCHED_DISK,           /* not enough free disk */
    SCHED_CPUS,           /* not enough free vCPUs (CPU-only jobs) */
    SCHED_CLAIMED,        /* held for a job that has waited longer than the age limit */
    SCHED_AGENT_OFFLINE,  /* agent-managed, and its agent is not online */
    SCHED_GPU_UNHEALTHY,  /* enough free GPUs only if its unhealthy ones counted */
    SCHED_NVERDICTS
} sched_verdict;

/* The constraint's word in `job why` output ("gpu_type", "price", ...). */
const char *sched_verdict_name(sched_verdict v);

/* One compute node as the pass sees it. */
typedef struct {
    char *name;
    json_t *doc;          /* working document: as read plus this pass's uncommitted placements */
    json_t *committed;    /* as read or last committed: what a commit is guarded on */
    int64_t rev;          /* mod_revision of committed */
    int group;            /* -1: not active, or its region is unknown */
    int agent_offline;    /* agent-managed without its agent online: in its group, in no bucket */
    int unhealthy;        /* GPUs marked unhealthy (counted as taken) */
    int gpu_count;
    int *slots;           /* used hundredths per physical GPU */
    size_t slots_cap;
    int free_x100;        /* free hundredths over all GPUs */
    int whole_free;       /* GPUs entirely free */
    int64_t disk_free, cpus_free;
    int used;             /* last_used_at is set */
    char last_used[40];   /* last_used_at (RFC 3339 UTC strings order as times do) */
    char *claim;          /* id of the aged job holding it, or NULL */
    int touched;          /* written in the batch being built */
} sched_node;

/* Nodes that are interchangeable but for capacity and last use. */
typedef struct {
    char *region, *gpu_type;
    const json_t *rdoc;   /* the region's document (in regions) */
    int sharing, cpu_only;
    int nbuckets;         /* free_x100 values 0 .. nbuckets-1 */
    struct sched_bucket *buckets;
    uint64_t *nonempty;   /* bit per bucket */
    size_t buckets_cap, nonempty_cap;
} sched_group;

typedef struct {
    sched_node *nodes;    /* in name order */
    size_t nnodes;
    sched_group *groups;
    size_t ngroups, groups_cap;
    int nomem;            /* memory ran out while indexing: the pass must fail */
    json_t *regions;      /* object: region name -> document */
    json_t *prices;       /* object: gpu id -> market price µcr per GPU-hour */
    int64_t max_wait_s;   /* a job waiting longer gets first claim */
    int64_t revision;     /* store revision the nodes were read at */
} sched_snapshot;

/* What of a job decides where its workers may go (pointers into its doc). */
typedef struct {
    const json_t *doc;
    const char *id, *owner, *pin;
    const char *fed_payer;  /* the creator when it pays a federated fee, else NULL */
    const json_t *types;  /* resources.gpu_types */
    int cpu_job;
    int64_t want_x100, disk, cpus;
    int has_max;
    int64_t max_price;
} sched_job;

/* Reads the job fields placement needs. */
void sched_job_view(const json_t *job, sched_job *j);

/* Reads nodes, regions, prices and the scheduler settings (unguarded; each
 * node's mod_revision is kept for guarded commits). */
rd_code sched_load(cmd_ctx *ctx, sched_snapshot *s, rd_err *err);

/* Frees the snapshot's contents. */
void sched_snapshot_free(sched_snapshot *s);

/* The index of node name in the snapshot, or -1. */
long sched_node_find(const sched_snapshot *s, const char *name);

/* Replaces node i's working document (takes the reference) and re-files it
 * in its group and bucket; with committed non-NULL, also what it is guarded
 * on (rev), else the committed document stays. */
void sched_node_reset(sched_snapshot *s, size_t i, json_t *doc, json_t *committed, int64_t rev);

typedef struct {
    int own;              /* the node's region belongs to the project owner */
    int64_t price_ucr;    /* per GPU-hour: usage fee (own) or market price */
    int64_t leftover_x100;/* free GPU capacity left after placing */
} sched_offer;

/* Judges node i for one worker of job j. */
sched_verdict sched_check(const sched_snapshot *s, const sched_job *j, size_t i, sched_offer *offer);

/* Groups a job may use, best (own, price) first; built per job shape. */
typedef struct {
    size_t ngroups_seen;  /* s->ngroups when built: rebuild when it grew */
    size_t n;
    int *group;
    int *own;
    int64_t *price;
} sched_plan;

/* Builds j's plan (free with sched_plan_free). */
void sched_plan_build(sched_snapshot *s, const sched_job *j, sched_plan *p);
void sched_plan_free(sched_plan *p);

/* The best node for one worker (index), or -1; *offer as sched_check's. */
long sched_pick(const sched_snapshot *s, const sched_job *j, const sched_plan *p, sched_offer *offer);

/* The same answer by judging every node (for tests and as the reference). */
long sched_pick_scan(const sched_snapshot *s, const sched_job *j, sched_offer *offer);

/* An aged job that could not be placed claims every node it may use that
 * lacks only free capacity, so capacity freed there goes to it first.  The
 * indices of the nodes it claimed are appended to log (room for every node;
 * may be NULL), so a caller can take the claims back. */
void sched_claim_for(sched_snapshot *s, const sched_job *j, const sched_plan *p, size_t *log, size_t *nlog);

/* The GPUs a worker of want_x100 takes on node i: [{"gpu": i, "x100": n}]
 * (new reference), whole GPUs entirely free or, for a fraction, the fullest
 * GPU that still fits it. */
json_t *sched_alloc(const sched_snapshot *s, size_t i, int64_t want_x100);

/* The usage fee per GPU-hour of a GPU type (0 for cpu). */
int64_t sched_usage_fee(const char *gpu_type);

#endif
