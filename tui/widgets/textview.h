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
    size_t found;   /* the line the last search ('/', n, N) stopped on */
    int has_found;
} textview;

/* Empties the view (keeping it closed). */
void textview_clear(textview *tv);

/* Appends one line (copied). */
void textview_add(textview *tv, const char *line);

/* Appends each line of a text block. */
void textview_add_text(textview *tv, const char *text);

/* Appends a command result as the batch table printer shows it. */
void textview_add_result(textview *tv, const json_t *result, const char *columns);

/* Appends a document (a show command's answer) as readable sections: its
 * plain fields and flat lists as the batch printer shows them, then each
 * nested document (a node's inventory, its agent) under its name as
 * indented "key: value" lines, a list one element per line ("- "), a
 * nested one indented further: no JSON.  Anything but an object goes to
 * textview_add_result. */
void textview_add_doc(textview *tv, const json_t *doc);

/* Scrolls by delta lines (clamped for a window of page lines). */
void textview_scroll(textview *tv, long delta, int page);

/* The line after (dir 1) or before (-1) line from that holds needle (any
 * case), going round at either end (*wrapped then 1); with at, line from
 * itself is looked at first.  -1 when no line holds it. */
long textview_find(const textview *tv, const char *needle, size_t from, int dir, int at, int *wrapped);

/* Scrolls so that line is in a window of page lines (a third down from
 * the top when it was out of sight) and remembers it as found. */
void textview_show_line(textview *tv, size_t line, int page);

/* Scrolls sideways by delta columns (never below 0). */
void textview_pan(textview *tv, long delta);

#endif
