/* dlog.c - log lines of the long-running processes (see dlog.h). */
#include "dlog.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* A command's answer can list thousands of things (a pass on a large fleet
 * places thousands of workers): in the line an array keeps its first
 * DLOG_ARRAY_MAX entries and "NAME_omitted" counts the rest, so the line
 * stays one readable line (journald splits lines past 48 KiB). */
enum { DLOG_ARRAY_MAX = 20 };

static void fields_cap_arrays(json_t *o, const json_t *fields)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)fields, key, v) {
        size_t n = json_array_size(v);
        if (n <= DLOG_ARRAY_MAX)
            continue;
        json_t *head = json_array();
        for (size_t i = 0; head && i < DLOG_ARRAY_MAX; i++)
            json_array_append(head, json_array_get(v, i));
        char name[256];
        snprintf(name, sizeof name, "%s_omitted", key);
        json_object_set_new(o, key, head);
        json_object_set_new(o, name, json_integer((json_int_t)(n - DLOG_ARRAY_MAX)));
    }
}

void dlog(const dlog_sink *s, const char *action, const json_t *fields, const char *fmt, ...)
{
    char msg[1024], ts[RDTIME_BUFLEN];
    va_list ap;
    if (!s || !s->write)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rdtime_format(s->now ? s->now() : 0, ts);
    if (!s->json) {
        char line[1200];
        snprintf(line, sizeof line, "%s %s[%ld] %s: %s", ts, s->proc, (long)getpid(), action, msg);
        s->write(s->data, line);
        return;
    }
    json_t *o = json_pack("{s:s, s:s, s:I, s:s, s:s}", "time", ts, "proc", s->proc, "pid", (json_int_t)getpid(),
                          "action", action, "message", msg);
    if (o && fields) {
        json_object_update(o, (json_t *)fields);
        fields_cap_arrays(o, fields);
    }
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    if (text)
        s->write(s->data, text);
    free(text);
    json_decref(o);
}

void dlog_store_notice(void *data, int done, const char *msg)
{
    dlog(data, done ? "store_upgraded" : "store_upgrade", NULL, "%s", msg);
}
