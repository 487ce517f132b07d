/* audit.h - `audit list` (audit.c); the records are audit_log.h's.
 *
 * Every mutating command that succeeds commits one record under
 * /rigdeck/audit/ in the same transaction as its change, so a change without
 * its record (or the reverse) cannot exist.  Records hold the command line
 * with secret values replaced by "***" and the names of the objects and
 * fields that changed, never their values.
 */
#ifndef RD_AUDIT_H
#define RD_AUDIT_H

#include "cmd.h"


#endif
