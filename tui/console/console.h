/* console.h - the full-screen console's entry point: the loop that waits
 * for a key, polls the store watch, dispatches and redraws.  The session
 * it runs on (state and services) is session.h.
 */
#ifndef RD_CONSOLE_H
#define RD_CONSOLE_H

#include "options.h"

/* Runs the console until the operator quits; returns the exit status. */
int console_run(const rd_options *opt);

#endif
