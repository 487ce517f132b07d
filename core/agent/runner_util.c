/* runner_util.c - the small pieces every runtime's plan and the runner
 * share: a growing NULL-terminated list of owned strings (argv, envp), the
 * "K=V" environment helpers, finding a program on PATH, making a folder
 * with its parents and reading a small file.  The lowest
 * layer of core/agent's runner: it calls nothing of the runner's own, so
 * the runtimes (runtime_*.c), their registry (runtime.c) and the runner
 * (runner_exec.c, runner_state.c) can all use it without a cycle.
 */
#include "runner_int.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"

void runner_strv_take(runner_strv *s, char *owned)
{
    if (!owned || s->oom || grow_array(&s->v, &s->cap, s->n + 2, sizeof *s->v) != 0) {
        free(owned);
        s->oom = 1;
        return;
    }
    s->v[s->n++] = owned;
    s->v[s->n] = NULL;
}

void runner_strv_add(runner_strv *s, const char *text)
{
    runner_strv_take(s, strdup(text));
}

void runner_strv_addf(runner_strv *s, const char *fmt, ...)
{
    va_list ap;
    char *p = NULL;
    va_start(ap, fmt);
    if (vasprintf(&p, fmt, ap) < 0)
        p = NULL;
    va_end(ap);
    runner_strv_take(s, p);
}

void runner_strv_free(runner_strv *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

size_t runner_env_name_len(const char *kv)
{
    const char *eq = strchr(kv, '=');
    return eq ? (size_t)(eq - kv) : strlen(kv);
}

/* The index of the entry naming the same variable as kv, or -1. */
long runner_env_find(const runner_strv *s, const char *kv)
{
    size_t n = runner_env_name_len(kv);
    for (size_t i = 0; i < s->n; i++)
        if (runner_env_name_len(s->v[i]) == n && strncmp(s->v[i], kv, n) == 0)
            return (long)i;
    return -1;
}

/* Sets kv ("K=V") in s: replaces the same name in place, else appends. */
void runner_env_set(runner_strv *s, const char *kv)
{
    long i = runner_env_find(s, kv);
    char *copy;
    if (i < 0) {
        runner_strv_add(s, kv);
        return;
    }
    if (!(copy = strdup(kv))) {
        s->oom = 1;
        return;
    }
    free(s->v[i]);
    s->v[i] = copy;
}

/* ---- checks ------------------------------------------------------------ */

char *runner_find_program(const char *name)
{
    const char *path = getenv("PATH"), *p;
    if (strchr(name, '/'))
        return access(name, X_OK) == 0 ? strdup(name) : NULL;
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (p = path;;) {
        size_t n = strcspn(p, ":");
        char *cand = NULL;
        struct stat st;
        if (n > 0 && asprintf(&cand, "%.*s/%s", (int)n, p, name) >= 0) {
            if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
                return cand;
            free(cand);
        }
        if (!p[n])
            return NULL;
        p += n + 1;
    }
}

int runner_mkdirs(const char *path, int parent_mode, int mode)
{
    char p[4400];
    if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *c = p + 1; *c; c++)
        if (*c == '/') {
            *c = '\0';
            if (mkdir(p, (mode_t)parent_mode) != 0 && errno != EEXIST)
                return -1;
            *c = '/';
        }
    return mkdir(p, (mode_t)mode) != 0 && errno != EEXIST ? -1 : 0;
}

int runner_read_text(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
    return 0;
}
