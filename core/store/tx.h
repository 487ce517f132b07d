/* tx.h - optimistic read-modify-write transactions over JSON documents.
 *
 * Every decision that reads state and then writes it goes through an rd_tx:
 * tx_get() remembers the mod_revision it saw, and tx_commit() writes every
 * tx_put()/tx_delete() in one store txn that holds only if none of those keys
 * changed meanwhile.  On RD_ECONFLICT the caller starts over (cmd.c does this
 * for every mutating command).  Reads see the transaction's own writes.
 *
 * tx_list() is a snapshot read and guards nothing: a decision that must not
 * race with inserts under a prefix guards a single key with tx_get() instead.
 */
#ifndef RD_TX_H
#define RD_TX_H

#include <jansson.h>

#include "keyspace.h"
#include "store.h"

typedef struct rd_tx rd_tx;

/* Starts an empty transaction on st; returns NULL when out of memory. */
rd_tx *tx_new(store_t *st);

/* Frees the transaction and everything it holds; NULL is fine. */
void tx_free(rd_tx *tx);

/* Drops every read and write so the same handle can retry from scratch. */
void tx_reset(rd_tx *tx);

/* The store this transaction reads and writes. */
store_t *tx_store(rd_tx *tx);

/* Reads the JSON document at key into *doc (a new reference, or NULL when
 * the key is missing) and guards it.  A stored value that is not a JSON
 * object is RD_ECORRUPT. */
rd_code tx_get(rd_tx *tx, const char *key, json_t **doc, rd_err *err);

/* Reads and guards, as tx_get would, every key of keys[0..n) the
 * transaction does not hold yet, in one store_get_many (one request per
 * 128 keys on etcd instead of one per key); later tx_get calls on them are
 * answered from the transaction.  For code that knows the keys it will read. */
rd_code tx_prefetch(rd_tx *tx, const char *const *keys, size_t n, rd_err *err);

/* Reads every document under prefix, in key order, merged with this
 * transaction's own writes, into *items (a new JSON array).  Not guarded. */
rd_code tx_list(rd_tx *tx, const char *prefix, json_t **items, rd_err *err);

/* Writes doc at key (takes the reference).  Returns RD_ENOMEM on failure. */
rd_code tx_put(rd_tx *tx, const char *key, json_t *doc, rd_err *err);

/* Writes text (takes it: malloc'ed, len bytes, a JSON object encoded as
 * tx_commit would) at key, for a caller that changed a few fields of the
 * stored text without building the whole document (the scheduler).
 * fields (taken) is the array of top-level field names it changes, which
 * the audit trail records as an update: the key must have been read or
 * guarded as existing.  RD_ENOMEM (both freed) when either is NULL. */
rd_code tx_put_text(rd_tx *tx, const char *key, char *text, size_t len, json_t *fields, rd_err *err);

/* The same, attached to a store lease (the key vanishes when it expires). */
rd_code tx_put_lease(rd_tx *tx, const char *key, json_t *doc, int64_t lease, rd_err *err);

/* Deletes key. */
rd_code tx_delete(rd_tx *tx, const char *key, rd_err *err);

/* Fences every later commit of this handle (tx_reset keeps it): each holds
 * only while key still has mod_revision; once it has changed, the commit is
 * RD_EPERM (a controller that lost its leadership must not write).  NULL
 * key: no fence. */
void tx_set_fence(rd_tx *tx, const char *key, int64_t mod_revision);

/* Number of pending writes. */
size_t tx_write_count(const rd_tx *tx);

/* Commits: RD_OK, RD_ECONFLICT when a guarded key changed, or a store error.
 * *revision (may be NULL) gets the new store revision.  Extra ops (ledger,
 * audit) may be appended by the caller before commit with tx_put.
 * RD_ENOMEM, writing nothing, when a jansson allocation failed since the
 * handle was made or last committed (jsonmem.h: a staged document may lack
 * a field; tx_reset does not forget it) or tx_set_fence ran out of memory. */
rd_code tx_commit(rd_tx *tx, int64_t *revision, rd_err *err);

/* What the pending writes change, for the audit trail: a new array of
 * {"object": "account/alice", "action": "created|updated|deleted",
 *  "fields": [changed top-level keys]}.  Keys under /rigdeck/audit/ and
 * fields whose name starts with "secret" are left out. */
json_t *tx_changes(const rd_tx *tx);

/* Calls fn for every stored value under prefix, in key order, all at one
 * store revision (given in *revision, may be NULL), with the raw value and
 * its mod_revision; fn returns 0 to go on, nonzero to stop (that code is
 * returned).  Reads past this transaction's own writes and guards nothing:
 * it is for passes that decode only what they need (the scheduler). */
typedef store_scan_fn tx_scan_fn;
rd_code tx_scan(rd_tx *tx, const char *prefix, tx_scan_fn fn, void *data, int64_t *revision, rd_err *err);

/* Records a guarded read made elsewhere (tx_scan): commit then holds only if
 * key still has mod_revision rev (0: missing).  doc is the document as read
 * (a new reference is taken; NULL when missing), the audit trail's "before". */
rd_code tx_guard(rd_tx *tx, const char *key, json_t *doc, int64_t rev, rd_err *err);

/* The store revision of this handle's last successful commit that wrote
 * something (0 if none), and how many such commits it made; tx_reset keeps
 * both, so a long command can prove no one else wrote in between. */
int64_t tx_last_revision(const rd_tx *tx);
size_t tx_commit_count(const rd_tx *tx);

/* Formats a key into buf (RD_KEY_MAX bytes) from printf arguments. */
const char *tx_key(char buf[RD_KEY_MAX], const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
