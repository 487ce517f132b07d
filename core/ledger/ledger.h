/* ledger.h - the double-entry credit ledger (after TigerBeetle).
 *
 * Owns the ledger's documents and every invariant over them:
 *   /rigdeck/ledger/accounts/<account id>     running sums per ledger account
 *   /rigdeck/ledger/transfers/<transfer id>   one immutable transfer each
 *   /rigdeck/ledger/by-account/<account id>/<at>/<transfer id>
 *       a copy of each transfer under each tenant account it touches
 *       (wallet:X, earnings:X), so one account's entries, statements and
 *       balance-as-of reads are one prefix range instead of a full scan.
 *       `platform` and `external` are in nearly every transfer, so they are
 *       not indexed: their entries come from a scan of all transfers.
 *
 * Ledger account ids: `wallet:<account>` (what the tenant spends),
 * `earnings:<account>` (provider earnings held until the daily payout),
 * `platform` (the installation's revenue), `external` (the outside world).
 * Each holds debits/credits posted and pending, in µcr; balance = credits
 * posted - debits posted, so the balances of all accounts sum to zero.
 *
 * Every function stages into an rd_tx and never commits: the ledger writes
 * commit with whatever else the caller's command changes, so transfers
 * staged in one transaction (a linked group) commit all or none, and a
 * concurrent stage of the same id makes one of the two commits conflict.
 * After an error the caller must drop the transaction (cmd.c does).
 */
#ifndef RD_LEDGER_H
#define RD_LEDGER_H

#include <jansson.h>
#include <stdint.h>

#include "err.h"
#include "keyspace.h"
#include "rdtime.h"
#include "store.h"
#include "tx.h"

#define LEDGER_ACCOUNTS_PREFIX KEY_LEDGER_ACCOUNTS
#define LEDGER_TRANSFERS_PREFIX KEY_LEDGER_TRANSFERS
#define LEDGER_INDEX_PREFIX KEY_LEDGER_INDEX

#define LEDGER_ID_MAX 256      /* transfer ids */
#define LEDGER_ACCOUNT_MAX 80  /* "earnings:" + a 63-character name */
#define LEDGER_REF_MAX 256

/* The largest amount one transfer may move (10^9 credits): far below what
 * would let account sums overflow int64 in any realistic lifetime; sums are
 * still checked. */
#define LEDGER_AMOUNT_MAX 1000000000000000LL

typedef struct {
    const char *id;        /* deterministic from what it pays for: "device_fee/alice/2026-11-01" */
    const char *debit;     /* ledger account id the amount leaves */
    const char *credit;    /* ledger account id the amount reaches */
    int64_t amount_ucr;    /* > 0 */
    const char *kind;      /* deposit|usage_fee|gpu_rental|federated_fee|device_fee|payout */
    rd_time at;            /* when it happened (not compared for idempotency) */
    const char *ref;       /* what it pays for, free text; may be NULL */
} ledger_transfer;

/* ---- naming ------------------------------------------------------------ */

/* 1 when kind is one of the transfer kinds. */
int ledger_kind_valid(const char *kind);

/* The kinds, "deposit|usage_fee|...", for option help and messages. */
extern const char ledger_kinds[];

/* Checks a ledger account id: platform, external, wallet:<name>,
 * earnings:<name>.  field names it in the message. */
rd_code ledger_account_check(const char *field, const char *id, rd_err *err);

/* The tenant behind wallet:X or earnings:X ("X"), or NULL for platform and
 * external.  Points into id. */
const char *ledger_account_owner(const char *id);

/* Formats "wallet:<name>" / "earnings:<name>" into buf. */
const char *ledger_wallet_id(char buf[LEDGER_ACCOUNT_MAX], const char *name);
const char *ledger_earnings_id(char buf[LEDGER_ACCOUNT_MAX], const char *name);

/* Checks a transfer id: 1..LEDGER_ID_MAX characters of A-Z a-z 0-9 . _ - :
 * and '/' separating non-empty segments. */
rd_code ledger_id_check(const char *id, rd_err *err);

/* ---- posting ----------------------------------------------------------- */

/* Stages a posted transfer.  The id is read (guarded): when it exists with
 * the same debit, credit, amount, kind, ref and pending flag this is a
 * no-op and *duplicate (may be NULL) is 1; with other fields it is
 * RD_EINVAL ("transfer X exists with different fields ...").  Otherwise
 * the transfer, both account updates and the index entries are staged.
 * A ledger account is created on first use; a tenant's must name an
 * existing account. */
rd_code ledger_stage(rd_tx *tx, const ledger_transfer *t, int *duplicate, rd_err *err);

/* Stages a pending transfer (a hold): it moves the amount into the two
 * accounts' pending sums until ledger_post_pending or ledger_void_pending. */
rd_code ledger_stage_pending(rd_tx *tx, const ledger_transfer *t, int *duplicate, rd_err *err);

/* Stages n posted transfers as one linked group: every one is checked
 * before any is staged; the group is a duplicate (*duplicates = n) only
 * when all of it exists already, and RD_EINVAL when only part of it does
 * (a group commits all or none, so a partial one was posted differently).
 * *duplicates (may be NULL) counts the members that existed. */
rd_code ledger_stage_linked(rd_tx *tx, const ledger_transfer *t, size_t n, size_t *duplicates, rd_err *err);

/* Posts a pending transfer in full at time `at`.  Posting one that is
 * posted already is a no-op with *duplicate = 1; a voided one, a missing
 * one or a transfer that was never pending is refused. */
rd_code ledger_post_pending(rd_tx *tx, const char *id, rd_time at, int *duplicate, rd_err *err);

/* Voids a pending transfer (releases the hold); voiding a voided one is a
 * no-op with *duplicate = 1; a posted one is refused. */
rd_code ledger_void_pending(rd_tx *tx, const char *id, rd_time at, int *duplicate, rd_err *err);

/* Adds to set (a JSON object used as a set of keys) every store key that
 * staging t may read or write: the transfer, both account documents, the
 * tenants' account documents and the index copies.  For callers that must
 * keep one transaction under a backend's limit on compares and ops (each
 * key costs at most one of each).  RD_ENOMEM on failure. */
rd_code ledger_keys_add(json_t *set, const ledger_transfer *t, rd_err *err);

/* Reads the keys staging t[0..n) will read (each transfer id, both
 * accounts) in one tx_prefetch: one round trip on etcd instead of two or
 * three per transfer.  Staging after it reads and decides exactly as
 * without it. */
rd_code ledger_prefetch(rd_tx *tx, const ledger_transfer *t, size_t n, rd_err *err);

/* ---- reading ----------------------------------------------------------- */

/* Reads transfer id (guarded) into *doc, NULL when it does not exist. */
rd_code ledger_transfer_get(rd_tx *tx, const char *id, json_t **doc, rd_err *err);

/* Reads the account's posted balance and net pending amount (credits
 * pending - debits pending), guarded; 0 and 0 for an account never used. */
rd_code ledger_balance(rd_tx *tx, const char *account_id, int64_t *balance, int64_t *pending, rd_err *err);

/* The posted balance of a tenant account (wallet:X or earnings:X) counting
 * only transfers with at < before (a pending transfer counts from its
 * resolved_at once posted).  Sees this transaction's own staged writes;
 * not guarded.  RD_EINVAL for platform and external (not indexed). */
rd_code ledger_balance_before(rd_tx *tx, const char *account_id, rd_time before, int64_t *balance, rd_err *err);

/* Calls fn for every document under prefix whose key sorts after `after`
 * (NULL: all), in key order, as of one store revision (*rev: 0 for the
 * current one; receives the revision used).  Committed state only; pages
 * through the store so that a million documents never sit in memory at
 * once.  fn returns 0 to go on, LEDGER_SCAN_STOP to stop early, or an
 * rd_code (with err filled) to fail the scan with it. */
#define LEDGER_SCAN_STOP (-1)
typedef int (*ledger_scan_fn)(const char *key, json_t *doc, void *data, rd_err *err);
rd_code ledger_scan(store_t *st, const char *prefix, const char *after, int64_t *rev,
                    ledger_scan_fn fn, void *data, rd_err *err);

/* ---- checking ---------------------------------------------------------- */

/* Recomputes every account from the transfers as of one store revision
 * (committed state: run it outside a transaction with pending writes) and
 * checks: each transfer is well-formed (amount > 0, kind, accounts, state
 * consistent with its pending flag); both its accounts exist; each account
 * document equals the sums of its transfers and holds no negative sum; the
 * balances and the pending amounts each total zero; each tenant side has
 * exactly its index copy.  *report gets {"ok", "revision", "transfers",
 * "accounts", "total_balance_ucr", "total_pending_ucr", "violations": [...]}
 * (at most 100 violations listed, "violation_count" counts all).  Returns
 * RD_OK even when violations are found; only store errors fail. */
rd_code ledger_verify(rd_tx *tx, json_t **report, rd_err *err);

#endif
