/* sched_memo.h - reading the jobs a pass needs without scanning the whole
 * job history (sched_memo.c): the jobs with a waiting worker (the queue)
 * or a running one (stopped when their account runs out of credit). */
#ifndef RD_SCHED_MEMO_H
#define RD_SCHED_MEMO_H

#include <stddef.h>
#include <stdint.h>

#include "cmd.h"

/* Calls fn, in key order, for every job document that holds a waiting or
 * a running worker (the text names "waiting_gpus" or "running"), and maybe
 * for some others; fn sees at least every job a scan of the job prefix
 * would show it with those words.  The first call in a process scans;
 * later calls on the same ctx read only the jobs it kept plus the jobs
 * written since (see sched_memo.c).  fn may keep kv->value as for
 * store_scan; a nonzero return stops the read and is returned. */
rd_code sched_memo_scan(cmd_ctx *ctx, store_scan_fn fn, void *data, rd_err *err);

/* How the last sched_memo_scan on ctx read: 1 from the memo, 0 by a scan
 * (for tests and benchmarks); *kept (may be NULL) gets the number of jobs
 * the memo holds now. */
int sched_memo_last_incremental(const cmd_ctx *ctx, size_t *kept);

#endif
