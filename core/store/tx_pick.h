/* tx_pick.h - reading many documents for a few of their fields.
 *
 * The list commands' `--fields` (`job list`, `node list`) and the pages
 * of `job list --limit` read through here: each document under a prefix
 * is handed over as an object holding only the asked-for top-level fields
 * (docpick.h), in key order, all at one store revision, and the reader may
 * stop when it has enough.  Like tx_list it guards nothing.
 */
#ifndef RD_TX_PICK_H
#define RD_TX_PICK_H

#include "tx.h"

/* A list of field names, as `--fields a,b,c` gives it. */
/* A reader asks for up to TX_PICK_ASK_MAX; a command adds the few it needs
 * itself (to filter), which always fit. */
enum { TX_PICK_ASK_MAX = 32, TX_PICK_MAX = 48 };
typedef struct {
    char text[512];
    const char *names[TX_PICK_MAX];
    size_t n;
} tx_pick_names;

/* Parses "a,b,c" (names of letters, digits and '_', or "a.b" for a part of
 * a as docpick.h reads it; at most TX_PICK_ASK_MAX):
 * RD_EINVAL naming flag ("--fields") and the rule otherwise. */
rd_code tx_pick_names_parse(const char *flag, const char *text, tx_pick_names *out, rd_err *err);

/* RD_OK when every name (the part before '.' of "a.b") is one of known
 * (NULL-terminated); else RD_EINVAL "FLAG: unknown field 'x' (known: a,
 * b, ...)", naming the first unknown one. */
rd_code tx_pick_names_check(const tx_pick_names *f, const char *flag, const char *const *known, rd_err *err);

/* 1 when name is in the list. */
int tx_pick_names_has(const tx_pick_names *f, const char *name);

/* Adds name (a static string) unless it is there or the list is full. */
void tx_pick_names_add(tx_pick_names *f, const char *name);

/* Receives one document (a new reference: fn owns it) and its key;
 * returns 0 to go on, nonzero to stop the read. */
typedef int (*tx_pick_fn)(json_t *doc, const char *key, void *data);

/* Calls fn for each document under prefix whose key sorts after `after`
 * (NULL: from the first), with only the fields names[0..n) as
 * docpick_fields picks them (names NULL: the whole document).  Reads the store as committed, past this
 * transaction's own writes (as tx_scan does).  A stored value that is not a JSON object is RD_ECORRUPT,
 * as tx_list says it. */
rd_code tx_pick(rd_tx *tx, const char *prefix, const char *after, const char *const *names, size_t n, tx_pick_fn fn,
                void *data, rd_err *err);

#endif
