/* details.h - the details view of the selected row (details.c). */
#ifndef RD_TUI_DETAILS_H
#define RD_TUI_DETAILS_H

#include "session.h"

/* Enter: the selected row's show command (and, for a waiting job, `job
 * why`) in the details view, which opens; an error in the status line
 * when nothing is selected or the command fails. */
void details_open(session *c);

#endif
