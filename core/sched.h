/* sched.h - placement: which node may run a job's worker, at what price.
 *
 * The scheduler works on a snapshot of the fleet (nodes, regions, market
 * prices, wallets) read once per pass.  sched_check() judges one node for one
 * worker and names the first constraint that rules it out; the same function
 * serves placement (`sched run`) and explanation (`job why`), so the two can
 * never disagree.  Among eligible nodes the order is: the project owner's own
 * regions first, then lowest cost per GPU-hour, then best fit (fewest GPUs
 * left over), then the least recently used node (seed 004).
 */
#ifndef RD_SCHED_H
#define RD_SCHED_H

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
    SCHED_NVERDICTS
} sched_verdict;

/* The constraint's word in `job why` output ("gpu_type", "price", ...). */
const char *sched_verdict_name(sched_verdict v);

typedef struct {
    json_t *nodes;        /* array of node documents (compute, not removed) */
    json_t *regions;      /* object: region name -> document */
    json_t *prices;       /* object: gpu id -> market price µcr per GPU-hour */
    json_t *claims;       /* object: node name -> job id holding it (aged jobs) */
    int64_t max_wait_s;   /* a job waiting longer gets first claim */
} sched_snapshot;

/* Reads nodes, regions, prices and the scheduler settings (unguarded). */
rd_code sched_load(cmd_ctx *ctx, sched_snapshot *s, rd_err *err);

/* Frees the snapshot's contents. */
void sched_snapshot_free(sched_snapshot *s);

typedef struct {
    int own;              /* the node's region belongs to the project owner */
    int64_t price_ucr;    /* per GPU-hour: usage fee (own) or market price */
    int64_t leftover_x100;/* free GPU capacity left after placing */
    json_t *alloc;        /* [{"gpu": index, "x100": amount}] (new reference) */
} sched_offer;

/* Judges node for one worker of job (whose "region_pin" may be set).  On
 * SCHED_OK fills offer (free offer->alloc with json_decref). */
sched_verdict sched_check(const sched_snapshot *s, const json_t *job, const json_t *node, sched_offer *offer);

/* The best node for one worker, or NULL; *offer as for sched_check. */
json_t *sched_pick(const sched_snapshot *s, const json_t *job, sched_offer *offer);

/* Applies an offer to a node document: GPU slots, gpus_used, disk, CPUs,
 * the worker reference, last_used_at. */
void sched_node_take(json_t *node, const json_t *job, size_t worker, const sched_offer *offer, rd_time now);

/* Releases what a worker holds on a node (the reverse of sched_node_take);
 * a draining node with nothing left becomes maintenance. */
void sched_node_release(json_t *node, const json_t *job, size_t worker, rd_time now);

/* The usage fee per GPU-hour of a GPU type (0 for cpu). */
int64_t sched_usage_fee(const char *gpu_type);

#endif
