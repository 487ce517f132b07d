/* agent_stage.h - a worker's data, staged before its command
 * (execution.md §5): agent_stage.c plans it and follows the stager,
 * stage_fetch.c is the stager itself (a child process).
 */
#ifndef RD_AGENT_STAGE_H
#define RD_AGENT_STAGE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "agent_work.h"

typedef enum { STAGE_READY, STAGE_BUSY, STAGE_FAILED } stage_state;

/* Where worker index of job stands with its data (dir: its directory):
 * READY (nothing to fetch, or all of it fetched), BUSY (the stager runs;
 * started here when it was not, and `job report ... staging --bytes N` at
 * most every few seconds), FAILED with msg "<item>: <cause>" (the worker
 * ends staging_failed).  Never waits. */
/* How a progress report reaches the store: agent_work.c's report (it adds
 * --node), passed in so that this file never calls back into its caller. */
typedef rd_code (*agent_stage_report_fn)(agent_state *a, json_t *words, rd_err *err);

stage_state agent_stage_step(agent_state *a, const json_t *job, const char *dir, size_t index, char *msg,
                             size_t len, agent_stage_report_fn report);

/* Kills the stager of the worker in dir, if one runs (the worker ended
 * while its data was being fetched), before its directory goes. */
void agent_stage_abort(const char *dir);

/* Appends to env ("K=V" strings) the ML_*_PATH variables (the /opt/ml tree
 * in a container, the same tree under dir on the process runtime) and the
 * variables of the keys the job attaches (execution.md's table; a gcp key
 * as a 0600 file).  0, or -1 with msg saying why. */
int agent_stage_env(agent_state *a, const json_t *job, const char *dir, json_t *env, char *msg, size_t len);

/* The folder of one of n objects (datasets, checkpoints) under base:
 * base itself, or base/<NAME, spaces as _> (execution.md §5's table). */
void agent_stage_object_dest(char *out, size_t len, const char *base, size_t n, const char *name);

/* The container mount of dir's /opt/ml tree (host path in buf). */
void agent_stage_mount(const char *dir, char *buf, size_t len, runner_mount *m);

/* `rigdeck agent-stage WORKER_DIR`: the stager (stage_fetch.c). */
int agent_stage_main(int argc, char **argv);

/* ---- stage_fetch.c's parts, for the unit tests ---- */

/* 1 for names ending .zip .tar .tar.gz .tgz .bz2 */
int stage_is_archive(const char *name);
/* 1 when an archive entry path would leave its folder (absolute, a ".." part). */
int stage_path_escapes(const char *path);
/* Extracts file into dest; -1 with why on an error or an escaping entry. */
int stage_extract(const char *file, const char *dest, char *why, size_t len);

/* ---- stage_rclone.c ---- */

/* Adds "K=V" to env (at most cap - 1 entries, NULL-ended, each malloc'd). */
void stage_env_add(char **env, size_t cap, const char *k, const char *v);
/* The RCLONE_* variables (NULL-ended, cap slots, each malloc'd) that give
 * an on-the-fly remote of kind "s3", "gs", "ftp", "ftps" or "azureblob"
 * (for url) its endpoint, host and credentials; -1 for another kind or a
 * URL it cannot read. */
int stage_rclone_env(const char *kind, const char *url, const char *endpoint, const char *key_type,
                     const char *key_value, const char *key_file, char **env, size_t cap);
/* 1 for an Azure Blob URL, https://ACCOUNT.blob.core.windows.net/CONTAINER/...
 * (with an azure key the stager copies it with rclone's azureblob kind). */
int stage_azure_blob(const char *url);
/* rclone's obscured form of plain (`rclone obscure`; iv NULL: a random
 * one) into out; -1 when it does not fit. */
int stage_rclone_obscure(const char *plain, const unsigned char iv[16], char *out, size_t len);
/* `rclone copy --config /dev/null --error-on-no-transfer [--ca-cert
 * $AWS_CA_BUNDLE] SRC DEST` into argv (12 slots), SRC in src. */
int stage_rclone_argv(const char *kind, const char *url, const char *dest, char *src, size_t len, const char **argv);

#endif
