/* complete.h - `rigdeck --complete WORD...`: shell completion candidates. */
#ifndef RD_COMPLETE_H
#define RD_COMPLETE_H

#include <stddef.h>

/* words are what was typed after "rigdeck" so far; the last one (empty
 * when none) is the word being completed.  Prints its candidates one a
 * line: global options and their values, and inside -c LINE the command
 * words, flags, choices and object names the command tables allow, for
 * the line typed so far.  Object names come from the store named by the
 * words' --store (else RIGDECK_STORE, else the default) as the --as
 * account sees them; a store that is missing or cannot be opened gives
 * none.  Prints nothing else, ever, and returns 0. */
int complete_run(const char *const *words, size_t n);

#endif
