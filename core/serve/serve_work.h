/* serve_work.h - the per-node work view the controller keeps on a secured
 * store (serve_work.c): what each node's agent reads instead of the jobs. */
#ifndef RD_SERVE_WORK_H
#define RD_SERVE_WORK_H

#include <jansson.h>
#include <stdint.h>

#include "dlog.h"
#include "store.h"

typedef struct serve_work serve_work;

/* A view keeper that knows nothing yet: its first step checks whether the
 * store is secured and, if so, brings the whole view in line.  NULL when
 * memory ran out. */
serve_work *serve_work_new(void);

void serve_work_free(serve_work *w);

/* Notes one event of the controller's watch: a job's change or deletion is
 * applied at the next step; a change of the store's meta document (it may
 * have been secured) asks for a full resync. */
void serve_work_note(serve_work *w, const store_event *ev);

/* The watch may have missed events (it was reopened): resync soon. */
void serve_work_note_gap(serve_work *w);

/* Applies what was noted, one small transaction per job, fenced by the
 * leadership (KEY_SERVE_LEADER at leader_rev); resyncs everything at the
 * first step, after a gap or a change of leader, and every minute.  Only
 * the leader calls it; it does nothing on a store that is not secured. */
void serve_work_step(serve_work *w, store_t *st, int64_t leader_rev, const dlog_sink *log, int64_t now_ms);

/* The view entries of job: a new object {KEY_WORK "<node>/<job>/<index>":
 * entry} with one entry per worker placed on a node in a state its agent
 * acts on.  An entry is the job reduced to what the agent runs the worker
 * with (id, workers_spec, endpoint, environment with its sealed values,
 * system_env), plus "index" and "worker" (its state, node, alloc and
 * run_by_agent; nothing of the other workers). */
json_t *serve_work_entries(const json_t *job);

#endif
