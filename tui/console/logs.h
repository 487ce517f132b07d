/* logs.h - the logs view's actions: opening a job's worker output from the
 * Jobs pane, asking `job logs` again while the worker writes, and its keys
 * (scroll, [ and ] or a digit for another worker, q or Esc to close).
 * What it shows is only what `job logs ID --worker N` answers.
 */
#ifndef RD_LOGS_H
#define RD_LOGS_H

#include "session.h"

/* `job logs` is asked at most this often (a change to the store's logs
 * asks at once, within LOGS_MIN_MS), and every LOGS_POLL_MS while the
 * worker may still write. */
#define LOGS_MIN_MS 250
#define LOGS_POLL_MS 1000

/* Opens the view on worker 0 of job id (of nworkers) and reads it. */
void logs_open(session *c, const char *id, int nworkers);

/* 1 when the view should ask `job logs` again now. */
int logs_due(const session *c, long long now_ms);

/* Asks `job logs` for the shown worker and refills the view. */
void logs_refresh(session *c);

/* A key in MODE_LOGS. */
act_result logs_key(session *c, int key);

#endif
