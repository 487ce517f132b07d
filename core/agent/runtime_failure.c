/* runtime_failure.c - what a container worker whose command never started
 * failed at (spec/execution.md §4): the pull step or an image that cannot
 * be had (image_pull_failed), anything else the runtime could not do
 * (runtime_error), with the runtime's own error line.  Read by the agent
 * (agent_work.c) from the worker's records (runner_state.c), so it sits
 * above them, apart from the runtimes the runner itself uses.
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


/* What the runtimes say when the image is not on the node and cannot be
 * had (podman, docker; any case). */
static const char *const image_missing[] = {
    "manifest unknown", "pull access denied", "no such image", "image not known", "initializing source",
    "unable to find image", "repository does not exist", "not found: manifest", "requested access to the resource is denied",
    NULL
};

const char *runtime_failure(const char *dir, const runner_status_t *st, char *message, size_t len)
{
    char path[4300], step[16] = "";
    char *text = NULL;
    size_t n = 0;
    int64_t total = 0;
    int fd;
    snprintf(path, sizeof path, "%s/%s/step", dir, STATE_DIR);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
        ssize_t got = read(fd, step, sizeof step - 1);
        step[got > 0 ? got : 0] = '\0';
        step[strcspn(step, "\n")] = '\0';
        close(fd);
    }
    message[0] = '\0';
    if (runner_log_tail(dir, 16384, &text, &n, &total, NULL) == RD_OK)
        runtime_error_line(text, message, len);
    if (!message[0] && st->state == RUNNER_EXITED)
        snprintf(message, len, "the runtime's client %s %d before the container started",
                 st->signal ? "was killed by signal" : "exited", st->signal ? st->signal : st->exit_code);
    else if (!message[0])
        snprintf(message, len, "the runtime's client vanished before the container started");
    const char *reason = "runtime_error";
    if (strcmp(step, "pull") == 0)
        reason = "image_pull_failed";
    for (size_t i = 0; text && image_missing[i] && strcmp(reason, "runtime_error") == 0; i++)
        if (strcasestr(text, image_missing[i]))
            reason = "image_pull_failed";
    free(text);
    return reason;
}
