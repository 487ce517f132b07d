/* find.h - searching what is shown: '/' in a view (details, a ':' result,
 * help, logs) opens a search line; n and N go to the next and previous
 * line holding it, going round at either end ("search hit BOTTOM,
 * continuing at TOP"), and draw.c highlights what it found.  In a table
 * '/' is the filter (modes.c), so every row shown matches it: n and N step
 * through them the same way, going round. */
#ifndef RD_FIND_H
#define RD_FIND_H

#include "session.h"

/* The text view the mode m shows (NULL: none). */
textview *find_view_of(session *c, con_mode m);

/* '/' in a view: opens the search line (MODE_FIND). */
act_result find_open(session *c);

/* A key while typing the search (MODE_FIND). */
act_result find_key(session *c, int key);

/* n (dir 1) or N (-1) in the view mode m shows. */
act_result find_step(session *c, con_mode m, int dir);

/* n or N in a table: the next or previous row shown (all match the filter). */
act_result find_table_step(session *c, int key);

/* The filter of the current table from text as typed (plain and
 * column:value terms); 0 with the error in the status line, nothing
 * changed, when a term names no column. */
int find_set_table_filter(session *c, const char *text);

#endif
