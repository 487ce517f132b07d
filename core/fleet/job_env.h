/* job_env.h - a job's environment variable values, sealed at rest
 * (job_env.c).
 *
 * Values in environment.env may be tokens and passwords, so the job
 * document never holds them in plain text: `job submit` seals all of them
 * together, as one JSON object, into environment.secret_env (secret.h,
 * the admin host's master key) and leaves each name in environment.env
 * with the value JOB_ENV_REDACTED.  Every command result drops fields
 * named secret* (cmd.c), so job show/list/submit print names only; the
 * node agent opens secret_env with its own copy of the master key when it
 * starts a worker.
 */
#ifndef RD_JOB_ENV_H
#define RD_JOB_ENV_H

#include <jansson.h>

#include "cmd.h"

#define JOB_ENV_REDACTED "***"

/* Seals the plain values of job's environment.env (as jobspec_parse
 * leaves them) into environment.secret_env with the master key (made on
 * first use, like every secret an admin host seals) and sets each value
 * to JOB_ENV_REDACTED.  A job without variables is left alone and needs no
 * key. */
rd_code job_env_seal(cmd_ctx *ctx, json_t *job, rd_err *err);

/* Sets every value in job's environment.env to JOB_ENV_REDACTED, for
 * output: documents stored before values were sealed hold them in plain
 * text. */
void job_env_redact(json_t *job);

/* The variables a worker of job runs with, as a new object {NAME: value}
 * in *vars.  Opens environment.secret_env with the master key file at
 * master_key_path (NULL: the default path; never created here); a document
 * without secret_env holds plain values and they are used as they are.
 * On failure *reason is one word for `job report --reason`
 * (env_no_master_key, env_wrong_master_key, env_damaged) and err says
 * more; no variable is ever handed out empty instead. */
rd_code job_env_open(const char *master_key_path, const json_t *job, json_t **vars, const char **reason,
                     rd_err *err);

/* The same on any object holder with an "env" of names to values (a
 * device configuration; a job's is its "environment"): seals them into
 * holder's "secret_env" (field names them in a refusal), redacts them, or
 * opens them (what names the owner in messages, e.g. "device config x"). */
rd_code job_env_seal_in(cmd_ctx *ctx, json_t *holder, const char *field, rd_err *err);
void job_env_redact_in(json_t *holder);
rd_code job_env_open_in(const char *master_key_path, const json_t *holder, const char *what, json_t **vars,
                        const char **reason, rd_err *err);

#endif
