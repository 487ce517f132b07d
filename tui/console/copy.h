/* copy.h - the console's y key: what it copies into the operator's
 * clipboard (a row's id or name, the Dashboard's node, a running notebook's
 * or endpoint's URL from `job connect`), what the status line says, and
 * writing the copy out once the frame is on the terminal.  The bytes and
 * the terminal rules are clipboard.h's.
 *
 * Copying only reads: a --read-only session copies like any other.
 */
#ifndef RD_COPY_H
#define RD_COPY_H

#include "session.h"

/* y in normal mode: the selected row's key (a job's id, a node's name...);
 * on the Dashboard the node it shows. */
act_result copy_selected(session *c);

/* y in a details view: a job's connect URL when it is a notebook or an
 * endpoint with a running worker and `job connect` answers one, else the
 * row's key, as copy_selected. */
act_result copy_details(session *c);

/* Writes a pending copy to the terminal: the loop calls it after a frame
 * has been drawn and refreshed, so the escape never falls inside curses'
 * own output.  Also appends it to $RIGDECK_CLIPBOARD_FILE when set. */
void copy_flush(session *c);

#endif
