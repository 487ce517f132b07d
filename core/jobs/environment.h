/* environment.h - built-in environments (environment.c): the images a job
 * without environment.image runs, chosen by framework, framework version
 * and Python (seed 002's multi-version images, execution.md §4).
 *
 * Each is a document under KEY_ENVIRONMENTS<name>: {"name", "image",
 * "framework", "framework_version" (null for deep_learning), "python"
 * (null: the image's own, matching any), "default" (seeded by rigdeck),
 * "created_at"}.  A new store is seeded with the defaults of
 * docs/environments.md; an older one gets them once, at the first command
 * that needs them (job submit, environment add/remove), and only when it
 * holds none.
 */
#ifndef RD_ENVIRONMENT_H
#define RD_ENVIRONMENT_H

#include <jansson.h>

#include "cmd.h"
#include "err.h"
#include "rdtime.h"
#include "tx.h"

/* The store-meta mark that the defaults were offered once. */
#define ENVIRONMENT_SEEDED_MARK "environments_seeded"

/* The default environments' documents, a new array (environment_seed.c). */
json_t *environment_defaults(rd_time now);

/* Stages the default environments in tx (a new store). */
rd_code environment_stage_defaults(rd_tx *tx, rd_time now, rd_err *err);

/* An older store (its meta without the mark): stages the defaults when it
 * holds no environment, and the mark.  Nothing on a store that has it. */
rd_code environment_upgrade(rd_tx *tx, rd_time now, rd_err *err);

/* Picks the environment of job (a normalised job document): nothing for
 * a customer image; otherwise sets environment.base to {"name", "image",
 * "framework", "framework_version", "python"} of the one matching its
 * framework, framework_version (a prefix of the environment's version;
 * absent: the newest) and python (equal, or an environment without one).
 * RD_EINVAL, naming what exists for the framework, when none matches. */
rd_code environment_resolve(cmd_ctx *ctx, json_t *job, rd_err *err);

/* -1, 0, 1 as version a ("1.13") orders before, with or after b
 * ("1.13.1"), component by component, numerically; *prefix (may be NULL)
 * is 1 when a's components are the first of b's. */
int environment_version_cmp(const char *a, const char *b, int *prefix);

#endif
