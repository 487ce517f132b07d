/* dlog.h - one log line per action of a long-running process (dlog.c).
 *
 * `rigdeck serve` and `rigdeck agent` log what they do, one line each, as
 * text ("2026-11-24T11:40:00Z serve[123] placed: 3 workers placed, 2
 * waiting") or as one JSON object per line ({"time", "proc", "pid",
 * "action", "message"} plus the fields given).  core/ never writes to the
 * terminal itself: the front end hands in the sink (stderr).
 */
#ifndef RD_DLOG_H
#define RD_DLOG_H

#include <jansson.h>

#include "rdtime.h"

typedef struct {
    const char *proc;                         /* "serve", "agent" */
    int json;                                 /* 1: one JSON object per line */
    void (*write)(void *data, const char *line);   /* gets one line, no newline */
    void *data;
    rd_time (*now)(void);                     /* the wall clock */
} dlog_sink;

/* Logs one action: message from printf arguments; fields (may be NULL,
 * borrowed) are added to the JSON form, an array there cut to its first 20
 * entries with "NAME_omitted" counting the rest. */
void dlog(const dlog_sink *s, const char *action, const json_t *fields, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A store_notice_fn (store_set_notice) for a daemon: logs the one-time
 * schema upgrade of its store as store_upgrade, then store_upgraded; data
 * is the dlog_sink. */
void dlog_store_notice(void *data, int done, const char *msg);

#endif
