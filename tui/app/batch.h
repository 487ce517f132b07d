/* batch.h - `rigdeck --batch`: runs command lines headless. */
#ifndef RD_BATCH_H
#define RD_BATCH_H

#include <stddef.h>

#include "options.h"

/* Runs every -c line, then every line of each -f file (or of stdin when
 * neither is given), printing results as tables or JSON.  Returns the exit
 * status: 0 all succeeded, 1 a line was refused, 2 usage, 3 store. */
int batch_run(const rd_options *opt);

/* The width prose output (help) is wrapped to, as `git help` picks it:
 * columns_env ($COLUMNS) when it is a positive number, else tty_cols (the
 * terminal's width on stdout, 0 when stdout is no terminal), else 80. */
size_t batch_text_width(const char *columns_env, int tty_cols);

#endif
