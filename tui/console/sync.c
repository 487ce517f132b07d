/* sync.c - background `cloud sync` rounds in a child process, their
 * result pipe, the timer, and the words the console shows for a round. */
#include "sync.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"

void sync_init(sync_state *s, long long now_ms)
{
    memset(s, 0, sizeof *s);
    s->fd = -1;
    long long secs = SYNC_DEFAULT_INTERVAL_S;
    const char *env = getenv("RIGDECK_CLOUD_SYNC_S");
    if (env && *env) {
        char *end;
        long long v = strtoll(env, &end, 10);
        if (*end == '\0' && v >= 0)
            secs = v;
    }
    s->interval_ms = secs * 1000;
    s->next_ms = secs > 0 ? now_ms + s->interval_ms : 0;
}

int sync_due(const sync_state *s, long long now_ms)
{
    return s->pid == 0 && s->next_ms > 0 && now_ms >= s->next_ms;
}

/* The child: one round through the command language, its result as JSON
 * on fd, then _exit (no atexit handlers, no curses, none of the parent's
 * handles touched). */
static void child_run(const cmd_ctx *proto, int fd)
{
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
    }
    signal(SIGINT, SIG_IGN);    /* a ^C meant for the console must not cut a round short */
    cmd_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.store_url = proto->store_url;
    ctx.store_opts = proto->store_opts;
    ctx.actor = proto->actor;
    ctx.actor_given = proto->actor_given;
    ctx.now = proto->now;
    ctx.read_only = proto->read_only;
    ctx.master_key_path = proto->master_key_path;
    json_t *res = NULL;
    rd_err err;
    rd_err_clear(&err);
    rd_code rc = cmd_exec_line(&ctx, "cloud sync", &res, NULL, &err);
    json_t *out = rc == RD_OK ? json_pack("{s:b, s:o*}", "ok", 1, "result", res)
                              : json_pack("{s:b, s:s}", "ok", 0, "error", err.msg);
    char *text = out ? json_dumps(out, JSON_COMPACT) : NULL;
    if (text)
        (void)fileio_write_all(fd, text, strlen(text));
    _exit(rc == RD_OK ? 0 : 1);
}

int sync_start(sync_state *s, const cmd_ctx *ctx, long long now_ms, char *msg, size_t len)
{
    if (s->pid) {
        snprintf(msg, len, "cloud sync is already running (for %lld s)", (now_ms - s->started_ms) / 1000);
        return -1;
    }
    int p[2];
    if (pipe(p) != 0) {
        snprintf(msg, len, "cloud sync: cannot make a pipe: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(msg, len, "cloud sync: cannot start a process: %s", strerror(errno));
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid == 0) {
        close(p[0]);
        child_run(ctx, p[1]);
    }
    close(p[1]);
    fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
    fcntl(p[0], F_SETFD, FD_CLOEXEC);
    s->pid = pid;
    s->fd = p[0];
    s->len = 0;
    s->started_ms = now_ms;
    s->next_ms = 0;
    snprintf(s->label, sizeof s->label, "cloud sync running");
    return 0;
}

static void count(const json_t *report, const char *list, const char *word, char *out, size_t len, size_t *used)
{
    size_t n = json_array_size(json_object_get(report, list));
    if (n && *used < len)
        *used += (size_t)snprintf(out + *used, len - *used, "%s%zu %s", *used ? ", " : "", n, word);
}

size_t sync_describe(const json_t *report, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    count(report, "created", "created", out, len, &used);
    count(report, "activated", "activated", out, len, &used);
    count(report, "released", "released", out, len, &used);
    count(report, "offline", "offline", out, len, &used);
    count(report, "orphaned", "orphaned", out, len, &used);
    count(report, "pending", "pending", out, len, &used);
    const json_t *errors = json_object_get(report, "errors");
    size_t nerr = json_array_size(errors);
    if (nerr && used < len) {
        const char *first = json_string_value(json_object_get(json_array_get(errors, 0), "message"));
        used += (size_t)snprintf(out + used, len - used, "%s%zu error%s: %s", used ? "; " : "", nerr,
                                 nerr == 1 ? "" : "s", first ? first : "?");
    }
    if (used == 0)
        snprintf(out, len, "%zu GCP region%s, nothing to change", json_array_size(json_object_get(report, "regions")),
                 json_array_size(json_object_get(report, "regions")) == 1 ? "" : "s");
    return nerr;
}

/* The round is over: what it said, in words. */
static void finish(sync_state *s, long long now_ms)
{
    char clock[16], what[480];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(clock, sizeof clock, "%H:%M:%S", &tm);
    json_error_t jerr;
    json_t *msg = s->len ? json_loadb(s->buf, s->len, 0, &jerr) : NULL;
    if (!msg) {
        s->error = 1;
        snprintf(what, sizeof what, "the round ended without a result");
    } else if (!json_is_true(json_object_get(msg, "ok"))) {
        s->error = 1;
        snprintf(what, sizeof what, "%s", json_string_value(json_object_get(msg, "error")));
    } else {
        s->error = sync_describe(json_object_get(msg, "result"), what, sizeof what) > 0;
    }
    json_decref(msg);
    snprintf(s->label, sizeof s->label, "sync %s %s", clock, s->error ? "failed" : "ok");
    snprintf(s->message, sizeof s->message, "cloud sync %s (%.1f s): %s", clock,
             (double)(now_ms - s->started_ms) / 1000.0, what);
    s->rounds++;
    close(s->fd);
    s->fd = -1;
    s->pid = 0;
    s->len = 0;
    s->next_ms = s->interval_ms > 0 ? now_ms + s->interval_ms : 0;
}

int sync_poll(sync_state *s, long long now_ms)
{
    if (!s->pid)
        return 0;
    for (;;) {
        if (s->cap - s->len < 4096) {
            size_t cap = s->cap ? s->cap * 2 : 8192;
            char *b = realloc(s->buf, cap);
            if (!b)
                break;
            s->buf = b;
            s->cap = cap;
        }
        ssize_t n = read(s->fd, s->buf + s->len, s->cap - s->len);
        if (n > 0) {
            s->len += (size_t)n;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (n < 0 && errno == EINTR)
            continue;
        break;      /* end of file: the child is done writing */
    }
    int status;
    if (waitpid(s->pid, &status, 0) < 0 && errno != ECHILD)
        return 0;
    finish(s, now_ms);
    return 1;
}

void sync_close(sync_state *s)
{
    /* A round in flight is left to finish its work (interrupting one is
     * safe, but finishing is kinder to the cloud); nobody reads its result. */
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    free(s->buf);
    s->buf = NULL;
}
