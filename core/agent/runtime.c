/* runtime.c - the registry of runtimes (one table, below) and the choice
 * of one at agent start (its check must pass: spec/execution.md §4).  The
 * pieces the runtime files share are runtime_common.c's, below them; what
 * a failed container start was is runtime_failure.c's.
 */
#include "runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

extern const runtime_ops runtime_process, runtime_podman, runtime_docker;

/* Every runtime, by kind.  A new runtime is a file and one line here. */
static const runtime_ops *const runtimes[] = {
    [RUNNER_PROCESS] = &runtime_process,
    [RUNNER_PODMAN] = &runtime_podman,
    [RUNNER_DOCKER] = &runtime_docker,
};

/* What `auto` tries, in order. */
static const runner_kind auto_order[] = { RUNNER_PODMAN, RUNNER_DOCKER, RUNNER_PROCESS };

const runtime_ops *runtime_find(runner_kind kind)
{
    return (unsigned)kind < sizeof runtimes / sizeof runtimes[0] ? runtimes[kind] : NULL;
}

rd_code runtime_pick(runner_kind asked, const char *scratch, runtime_note_fn note, void *data, runner_kind *out,
                     rd_err *err)
{
    rd_err why = { 0 };
    if (asked != RUNNER_AUTO) {
        const runtime_ops *rt = runtime_find(asked);
        if (!rt)
            return rd_fail(err, RD_EINVAL, "--runtime: unknown runtime");
        if (rt->check(rt, scratch, &why) != RD_OK)
            return rd_fail(err, RD_EINVAL, "--runtime %s cannot run a container here: %s", rt->name, why.msg);
        *out = asked;
        return RD_OK;
    }
    for (size_t i = 0; i < sizeof auto_order / sizeof auto_order[0]; i++) {
        const runtime_ops *rt = runtime_find(auto_order[i]);
        rd_err_clear(&why);
        if (rt->check(rt, scratch, &why) == RD_OK) {
            *out = rt->kind;
            return RD_OK;
        }
        if (note)
            note(data, rt, why.msg);
    }
    return rd_fail(err, RD_EINVAL, "--runtime auto: no runtime can run here");
}
