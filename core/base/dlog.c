/* dlog.c - log lines of the long-running processes (see dlog.h). */
#include "dlog.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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
    if (o && fields)
        json_object_update(o, (json_t *)fields);
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    if (text)
        s->write(s->data, text);
    free(text);
    json_decref(o);
}
