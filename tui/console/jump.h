/* jump.h - jumps between related rows ('>') and the jump history ('<').
 *
 * From a job to the node of its first worker, from a node (or the
 * Dashboard's node) to the Jobs table filtered to it, from an alert to
 * its node, from a device or a device configuration to its region.  The
 * relation is read from the row already loaded (its NODE or REGION cell),
 * never asked of the store again; the target row is selected in the
 * target pane.  Where it is not there (filtered out, gone, or a job not
 * placed yet) the status line says so and nothing moves.  Each jump
 * remembers where it came from; '<' (or Backspace) returns to that pane,
 * table, filter and selected row.
 */
#ifndef RD_JUMP_H
#define RD_JUMP_H

#include "session.h"

/* '>' in a table: from the selected row. */
act_result jump_from_row(session *c);

/* '>' in a row's details: from the row they show (the details close). */
act_result jump_from_details(session *c);

/* '<': back to where the last jump came from. */
act_result jump_back(session *c);

#endif
