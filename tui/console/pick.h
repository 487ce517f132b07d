/* pick.h - the sort picker (F6, O: the table's columns; Enter sorts by
 * one, again turns the direction round) and the column chooser (C: each
 * column with a checkbox; Space shows or hides it, +/- move it), whose
 * choice is kept per table in the user's config (colprefs.h). */
#ifndef RD_PICK_H
#define RD_PICK_H

#include "session.h"

/* The columns table `view` of `pane` shows, read from the config file the
 * first time it is asked for. */
colset *pick_columns(session *c, int pane, int view);

/* F6/O: opens the sort picker on the current table. */
act_result pick_open_sort(session *c, int key);

/* C: opens the column chooser on the current table. */
act_result pick_open_columns(session *c, int key);

/* A key while a picker is open (MODE_PICK). */
act_result pick_key(session *c, int key);

/* The line shown for item i of the open picker (its checkbox, header and
 * sort arrow). */
void pick_item_text(session *c, int i, char *out, size_t len);

#endif
