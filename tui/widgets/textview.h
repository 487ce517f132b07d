/* textview.h - a scrollable block of text lines with a title: the detail
 * view (Enter), the result of a ':' command and the help screen.  Results
 * are rendered by the batch table printer (table.c), so the console shows
 * an object exactly as `rigdeck --batch` prints it.  No curses here.
 */
#ifndef RD_TEXTVIEW_H
#define RD_TEXTVIEW_H

#include <stddef.h>

#include <jansson.h>

typedef struct {
    char title[256];
    char **lines;
    size_t count;
    size_t top;     /* first line shown */
    size_t left;    /* first column shown (long table rows scroll sideways) */
    int open;
} textview;

/* Empties the view (keeping it closed). */
void textview_clear(textview *tv);

/* Appends one line (copied). */
void textview_add(textview *tv, const char *line);

/* Appends each line of a text block. */
void textview_add_text(textview *tv, const char *text);

/* Appends a command result as the batch table printer shows it. */
void textview_add_result(textview *tv, const json_t *result, const char *columns);

/* Scrolls by delta lines (clamped for a window of page lines). */
void textview_scroll(textview *tv, long delta, int page);

/* Scrolls sideways by delta columns (never below 0). */
void textview_pan(textview *tv, long delta);

#endif
