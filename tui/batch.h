/* batch.h - `rigdeck --batch`: runs command lines headless. */
#ifndef RD_BATCH_H
#define RD_BATCH_H

#include "options.h"

/* Runs every -c line, then every line of each -f file (or of stdin when
 * neither is given), printing results as tables or JSON.  Returns the exit
 * status: 0 all succeeded, 1 a line was refused, 2 usage, 3 store. */
int batch_run(const rd_options *opt);

#endif
