/* sched_run.h - what `sched run` (sched_run.c) shares with `job why`
 * (sched_pass.c): the waiting queue and the paying account's credit.
 */
#ifndef RD_SCHED_RUN_H
#define RD_SCHED_RUN_H

#include <jansson.h>

#include "cmd.h"

/* One job with a waiting worker, as the pass read it. */
typedef struct {
    json_t *doc;          /* as read or last committed */
    int64_t rev;          /* its mod_revision */
    json_t *work;         /* with this batch's placements, or NULL */
    int64_t priority;
    char id[64];
} sched_qjob;

/* Jobs with a waiting worker in queue order (priority, then submit time,
 * then id) into *q (free with sched_queue_free). */
rd_code sched_queue_load(cmd_ctx *ctx, sched_qjob **q, size_t *n, rd_err *err);
void sched_queue_free(sched_qjob *q, size_t n);

/* 1 while the paying account has credit left (its wallet is above zero). */
int sched_wallet_ok(cmd_ctx *ctx, const char *owner);

#endif
