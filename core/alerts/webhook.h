/* webhook.h - delivering alert state changes to webhooks (webhook.c).
 *
 * The controller hands each change to webhook_post, which only queues it:
 * one delivery thread POSTs them, one at a time, each request bounded by a
 * short timeout and retried with exponential backoff.  The controller's
 * loop never waits on a receiver.  The queue is bounded; when it is full
 * the oldest change is dropped (with a log line).
 */
#ifndef RD_WEBHOOK_H
#define RD_WEBHOOK_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "dlog.h"
#include "err.h"

typedef struct {
    size_t capacity;          /* changes waiting at most (default 256) */
    int attempts;             /* tries per change (default 5) */
    int64_t first_retry_ms;   /* wait before the 2nd try; doubles after (default 1000) */
    int64_t timeout_ms;       /* one request, connect included (default 5000) */
} webhook_opts;

typedef struct webhook_queue webhook_queue;

/* The wait before try number attempt (2, 3, ...): first_ms, 2 x first_ms,
 * 4 x ..., at most 60 s; 0 for the first try. */
int64_t webhook_backoff_ms(int attempt, int64_t first_ms);

/* A queue (opts NULL or zero fields: the defaults) logging to log (borrowed;
 * must outlive the queue); NULL when out of memory.  No thread yet. */
webhook_queue *webhook_new(const webhook_opts *opts, const dlog_sink *log);

/* Starts the delivery thread. */
rd_code webhook_start(webhook_queue *q, rd_err *err);

/* Queues one POST of payload (a JSON object; a copy is taken) to url.
 * Never blocks on the network. */
void webhook_post(webhook_queue *q, const char *url, const json_t *payload);

/* Changes waiting (not counting one being delivered). */
size_t webhook_pending(webhook_queue *q);

/* The url and body text of the i-th waiting change (oldest first), or NULL;
 * for tests.  Borrowed until the next call on q. */
const char *webhook_pending_url(webhook_queue *q, size_t i);
const char *webhook_pending_body(webhook_queue *q, size_t i);

/* Waits until every queued change has been delivered or given up, at most
 * timeout_ms (serve --once); 1 when the queue is empty and idle. */
int webhook_drain(webhook_queue *q, int64_t timeout_ms);

/* Stops: abandons a delivery or a wait in progress, drops what is queued
 * (one log line), joins the thread and frees q.  NULL is fine. */
void webhook_stop(webhook_queue *q);

#endif
