/* sched_run.h - `sched run`, one scheduling pass (sched_run.c). */
#ifndef RD_SCHED_RUN_H
#define RD_SCHED_RUN_H

#include <jansson.h>

#include "cmd.h"

/* `sched run [--dry-run]`: places waiting workers, bursts, stops the jobs of
 * accounts out of credit. */
rd_code sched_run_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err);

/* The most workers one batch of placements commits on a store with these
 * capabilities: what fits its txn limit, or a fixed bound where it has
 * none (sched_run.c says why each). */
size_t sched_run_batch_max(const store_caps *caps);

/* Tests only: fn(data) runs just before each batch of placements commits,
 * so a test can write in between and exercise the lost-race path. */
void sched_run_set_flush_hook(void (*fn)(void *data), void *data);

#endif
