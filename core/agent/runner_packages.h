/* runner_packages.h - the shell prelude a worker's command is wrapped in
 * (runner_packages.c): it installs the job's environment.packages in seed
 * 001's order (apt, conda, the model's requirements.txt when present,
 * pip) and then execs the command, with every installer's output in the
 * worker's log.
 *
 * On the process runtime the worker runs on the host: the prelude says so
 * once, refuses apt and conda packages (they would change the host, and
 * need root), and installs pip packages into a virtual environment in the
 * worker's directory (python3 -m venv --system-site-packages DIR/.venv),
 * whose bin/ then leads PATH for the command.  A failed installation
 * prints RUNNER_PACKAGES_FAILED and the installer's last error line and
 * exits RUNNER_PACKAGES_EXIT before the command ever runs.
 */
#ifndef RD_RUNNER_PACKAGES_H
#define RD_RUNNER_PACKAGES_H

#include <jansson.h>
#include <stddef.h>

#include "runner.h"

#define RUNNER_PACKAGES_EXIT 86
#define RUNNER_PACKAGES_FAILED "rigdeck: packages_failed: "
#define RUNNER_PACKAGES_READY "rigdeck: packages installed; starting the command"

/* What a worker runs with /bin/sh -c: command itself when there is
 * nothing to do first (a container, no packages, no model), else the
 * prelude then `exec /bin/sh -c COMMAND`.  packages is the job's
 * environment.packages ({apt, conda, pip}: lists of strings, may be NULL);
 * kind the resolved runtime; dir the worker's directory; image what the
 * worker would run in a container ("" when none); python the job's
 * ("3.9", may be NULL); has_model whether the job stages a model (its
 * requirements.txt).  Every package name is quoted for the shell whatever
 * it holds (job submit already allows only plain names).  NULL when
 * memory ran out; free() it. */
char *runner_packages_script(const json_t *packages, runner_kind kind, const char *dir, const char *image,
                             const char *python, int has_model, const char *command);

/* 1 when the worker's output (its log, or the tail of it) shows that the
 * prelude failed before the command ran: a RUNNER_PACKAGES_FAILED line and
 * no RUNNER_PACKAGES_READY line; msg then holds the rest of the last such
 * line, printable ASCII only, at most msglen - 1 bytes. */
int runner_packages_failure(const char *log, size_t len, char *msg, size_t msglen);

/* The operator's package mirror: appends to env (a JSON array of "K=V")
 * each of the agent's PIP_INDEX_URL, PIP_EXTRA_INDEX_URL, PIP_TRUSTED_HOST
 * and PIP_CERT that env does not name yet (the job's own value wins).
 * 0 when memory ran out. */
int runner_packages_pass_env(json_t *env);

#endif
