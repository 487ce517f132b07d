/* agent_upload.h - a worker's output after its command (agent_upload.c). */
#ifndef RD_AGENT_UPLOAD_H
#define RD_AGENT_UPLOAD_H

#include <jansson.h>

#include "agent_work.h"
#include "runner.h"

/* The worker's output folder, WORKER_DIR/opt/ml/output, made before its
 * start; on the process runtime env gets ML_OUTPUT_PATH naming it (a later
 * variable wins), in a container *mount binds it at /opt/ml/output
 * (*nmount 1).  0 when it cannot be made (err says why). */
int agent_upload_prepare(agent_state *a, agent_worker *w, json_t *env, runner_mount *mount, size_t *nmount,
                         char *host_path, size_t len, rd_err *err);

/* Called while a worker's process has ended and before its end is
 * reported: starts the upload of its output (data.output) in a child
 * process, reports the `uploading` phase, and polls the child.  1 when
 * the end may be reported now (nothing to upload, or the upload is over),
 * 0 while it uploads. */
/* How agent_work.c sends a `job report` (words, which it takes; it adds
 * the --node fence): passed in, so that this file never calls back into
 * agent_work.c (core/ calls one way, scripts/callgraph.py). */
typedef rd_code (*agent_upload_report_fn)(agent_state *a, json_t *words, rd_err *err);

int agent_upload_tend(agent_state *a, agent_worker *w, const runner_status_t *st, agent_upload_report_fn report);

/* How the upload changes the end report: a failed upload turns `finished`
 * into `failed` and adds --reason upload_failed --message LINE; a rigdeck
 * output adds --register; *end_ms becomes the end of the upload (billed
 * to there).  Nothing when no upload ran. */
void agent_upload_outcome(const agent_worker *w, const char **to, int64_t *end_ms);
void agent_upload_words(const agent_worker *w, json_t *words);

/* The store refused the registration of an uploaded rigdeck output (an
 * object of that name exists): the upload counts as failed with msg, and
 * 1 tells the caller to report the end again so.  0 when w registered
 * nothing. */
int agent_upload_refused(agent_worker *w, const char *msg);

/* rclone's on-the-fly remote for an output url (s3://, gs://, Azure Blob
 * https://ACCOUNT.blob.core.windows.net/...) into remote, and the
 * RCLONE_* variables ("K=V" strings) that configure it, the key's values
 * among them (key_type NULL: none, anonymous), appended to env.  0 with
 * msg for any other url.  (For the unit tests; the upload calls it.) */
int agent_upload_remote(const char *url, const char *endpoint, const char *key_type, const char *key_text,
                        char *remote, size_t rlen, json_t *env, char *msg, size_t mlen);

/* Forgets w's upload (kills a child still running, as the worker is
 * dropped) and its job. */
void agent_upload_forget(agent_worker *w);

#endif
