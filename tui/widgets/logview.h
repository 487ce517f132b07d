/* logview.h - the logs view of a job's worker: the output `job logs` gave,
 * as clean lines to scroll through, following the end while the worker
 * writes.  Pure (no curses, no store): logs.c runs the command and fills
 * this, draw.c paints it, the unit tests check it.
 */
#ifndef RD_LOGVIEW_H
#define RD_LOGVIEW_H

#include <stddef.h>

#include "textview.h"

#define LOGVIEW_EMPTY "(no output yet)"

typedef struct {
    textview tv;
    char job[128];          /* the job's id */
    int worker;             /* the worker shown */
    int nworkers;           /* how many the job has ([ and ] cycle) */
    char state[32];         /* the worker's state, as `job logs` said */
    long long bytes_total;  /* the output's size so far */
    long long fetched_ms;   /* when `job logs` last answered (0: never) */
    int stale;              /* the store's logs or jobs changed: ask again */
    int follow;             /* keep the last line in view as output grows */
} logview;

/* One line of a worker's output as the screen can show it: escape
 * sequences (colours, cursor moves) dropped, a carriage return keeping
 * what was written after it (progress bars), tabs expanded to 8-column
 * stops, other control characters as '?'.  in is n bytes without '\n'. */
void logview_clean_line(const char *in, size_t n, char *out, size_t len);

/* Replaces the lines with text (LOGVIEW_EMPTY when empty), in a window of
 * page lines: a view that follows shows the last page, else it keeps its
 * place. */
void logview_set_text(logview *lv, const char *text, int page);

/* Whether the worker may still write: asked again every second then. */
int logview_live_state(const char *state);

/* "job J  worker 0 of 2" for the view's title. */
void logview_title(const logview *lv, char *out, size_t len);

#endif
