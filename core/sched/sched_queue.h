/* sched_queue.h - the waiting queue (sched_queue.c) that `sched run`
 * (sched_run.c) and `job why` (job_why.c) share, and the paying
 * accounts' credit.
 *
 * A queue entry keeps the job's stored text and decodes it only when the
 * pass needs the document: in a long queue most jobs share a shape that
 * already found no node, and for those the few fields the pass needs are
 * read from the text directly (sched_raw_*), which must agree with decoding.
 */
#ifndef RD_SCHED_QUEUE_H
#define RD_SCHED_QUEUE_H

#include <jansson.h>

#include "cmd.h"

/* One job with a waiting worker, as the pass read it. */
typedef struct {
    char *text;           /* the stored value (NUL-terminated), NULL once done with */
    size_t len;
    int64_t rev;          /* its mod_revision */
    int64_t created;      /* its create_revision: the exact submission order */
    json_t *doc;          /* decoded text, or NULL until needed */
    size_t *placed;       /* workers this batch placed (changed in doc), */
    size_t nplaced, placed_cap;   /* in the order they were placed */
    char *out;            /* the text with them written in (sched_qjob_splice) */
    size_t out_len;
    json_t *out_fields;   /* and the fields that changes */
    int64_t priority;
    char *submitted;      /* submitted_at */
    char *shape;          /* resources, region pin, paying accounts as stored; NULL: decode */
    size_t waiting;       /* workers waiting (from the text) */
    size_t pending;       /* of those, waiting on a provisioning node */
    char id[64];
} sched_qjob;

/* Jobs with a waiting worker in queue order (priority, then the order
 * they were submitted in: the store revision that created each) into *q
 * (free with sched_queue_free).  also (may be NULL) sees, in the same
 * read, every job whose text names "waiting_gpus" or "running" (and maybe
 * others); a nonzero return stops it with that code.  A context that
 * reads the queue again reads only what changed (sched_memo.c). */
rd_code sched_queue_load(cmd_ctx *ctx, sched_qjob **q, size_t *n, tx_scan_fn also, void *also_data, rd_err *err);
void sched_queue_free(sched_qjob *q, size_t n);

/* The entry's decoded document (kept in q->doc), or NULL when its text is
 * not a JSON object. */
json_t *sched_qjob_doc(sched_qjob *q);

/* Writes the placements made in the decoded document into a copy of the
 * text (q->out, q->out_fields: sched_raw_splice) and drops the document,
 * while it is still in the cache; for text of an odd shape keeps the
 * document instead (then q->out is NULL).  0 when memory ran out. */
int sched_qjob_splice(sched_qjob *q);

/* Replaces the entry's text (a fresh read, or NULL: gone), drops the
 * decoded forms and reads its fields again. */
void sched_qjob_set_text(sched_qjob *q, char *text, size_t len, int64_t rev);

/* ---- reading compact JSON text without decoding it ------------------- */

/* The value of member key of the JSON object in [p, end) as a span
 * [*vs, *ve); 0 when it has no such member or the text is not an object. */
int sched_raw_member(const char *p, const char *end, const char *key, const char **vs, const char **ve);

/* The plain string value (no escapes) of member key into buf; 0 otherwise. */
int sched_raw_string(const char *p, const char *end, const char *key, char *buf, size_t len);

/* Counts the workers in state waiting_gpus and, of those, the ones waiting
 * on a provisioning node (pending_node set); 0 when "workers" is not an
 * array of objects. */
int sched_raw_waiting(const char *p, const char *end, size_t *waiting, size_t *pending);

/* The job text with a batch's placements written into it, without
 * encoding the whole document: the elements of "workers" listed in placed
 * and the members "state" and "reason" are taken from doc (the decoded
 * text with those changes made), every other byte is the text's.  For text
 * as tx_commit writes it, *out is byte for byte what encoding doc would
 * give.  *fields gets the top-level fields that changed, in document order
 * (the audit trail's).  0 when the text is not an object of the expected
 * shape (a member named twice, workers that differ in number): the caller
 * then writes doc whole. */
int sched_raw_splice(const char *text, size_t len, const json_t *doc, const size_t *placed, size_t nplaced, char **out,
                     size_t *outlen, json_t **fields);

/* 1 while the paying account has credit left (its wallet is above zero).
 * 0 also when the wallet could not be read; then *failed (may be NULL) is
 * set to 1, so that a pass fails rather than leave the job waiting for
 * credit it has. */
int sched_wallet_ok(cmd_ctx *ctx, const char *owner, int *failed);

/* 1 while every account that pays for job has credit left: the project's
 * owner and, for a job that pays a federated fee, its creator.  Else 0, and
 * *broke (may be NULL) names the first that has none. */
int sched_payers_ok(cmd_ctx *ctx, const json_t *job, const char **broke);

#endif
