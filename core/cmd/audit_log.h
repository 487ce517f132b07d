/* audit_log.h - the audit trail: who changed what, when, with which command
 * (audit_log.c).
 *
 * Every mutating command that succeeds commits one record under
 * /rigdeck/audit/ in the same transaction as its change, so a change without
 * its record (or the reverse) cannot exist.  Records hold the command line
 * with secret values replaced by "***" and the names of the objects and
 * fields that changed, never their values.
 */
#ifndef RD_AUDIT_LOG_H
#define RD_AUDIT_LOG_H

#include "err.h"
#include "rdtime.h"
#include "tx.h"

/* Adds the record of tx's pending writes to tx (not committed): actor ran
 * line (secrets already redacted) at now. */
rd_code audit_log_append(rd_tx *tx, const char *actor, const char *line, rd_time now, rd_err *err);

/* The same, naming also the identity the store vouched for when it is not
 * the actor (an admin acting --as another account); by may be NULL. */
rd_code audit_log_append_by(rd_tx *tx, const char *actor, const char *by, const char *line, rd_time now,
                            rd_err *err);

#endif
