/* store_sqlite_int.h - internals shared by the SQLite backend's files (not an API).
 *
 * store_sqlite.c      the backend table: reads, leases, watches, revision
 *                     and compaction, and their SQL
 * store_sqlite_write.c inside a write transaction: reaping expired leases,
 *                     compares, puts and their history, deletes, the revision
 * store_sqlite_past.c reads at an older revision: walking history back
 * store_sqlite_conn.c one connection: open (pragmas, schema, upgrades),
 *                     busy handling and retry, cached statements and
 *                     binding, COMMIT or ROLLBACK, column copying, the
 *                     clocks, key helpers
 * (store_sqlite.c calls into the others, store_sqlite_write.c and
 * store_sqlite_past.c into the connection only: calls go one way,
 * tests/batch/test_layers.sh checks)
 *
 * Schema (PRAGMA user_version = 4); keys and values are BLOBs so that every
 * comparison and ORDER BY is bytewise:
 *   meta(id = 1, rev, compact_rev)  current revision, oldest readable one
 *   kv(key, value, create_rev, mod_rev, version, lease, mod_sub)   live
 *       keys; (mod_rev, mod_sub) is the key's newest history row; only
 *       keys with a lease are indexed by lease
 *   kv_log(rev, sub, key, type, create_rev, version, lease, prev_rev,
 *          prev_sub, prev_value)
 *       one row per PUT (type 0) or DELETE (type 1); sub orders the rows of
 *       one revision; mod_revision of a row is its rev.  (prev_rev,
 *       prev_sub) links a row to the row it replaced and prev_value holds
 *       that row's value: a PUT links to the key's previous PUT (none when
 *       it created the key), a DELETE to the PUT it ended.  Each value is
 *       kept once: a live key's in kv, a replaced one in the row that
 *       replaced it (compaction drops it once no read can reach it).  A
 *       write appends its row and changes no other; only DELETE events are
 *       indexed by key (kv_log_del).  Version 3 moved the old value into
 *       the replaced row at each overwrite and indexed that row by key: two
 *       more pages touched per overwrite, which made a random-order rewrite
 *       write about three times the bytes
 *   lease(id, ttl, expires_at)      expires_at in wall-clock milliseconds
 */
#ifndef RD_STORE_SQLITE_INT_H
#define RD_STORE_SQLITE_INT_H

#include <stdint.h>

#include <sqlite3.h>

#include "store_backend.h"

/* Every connection's settings.  WAL with synchronous = NORMAL: a commit is
 * atomic and survives a crash of the process; a power loss may lose the
 * last commits but never corrupts the file.  A 128 MiB page cache (grown
 * only as used) keeps the B-tree pages of a busy ledger in memory, and a
 * checkpoint every 10000 WAL pages (not 1000) writes a page that many
 * commits touch (an account, the end of an index) to the file once, not
 * after every commit.  The ledger benchmark's raw baseline opens its file
 * with these too. */
#define RD_SQLITE_PRAGMAS "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -131072; PRAGMA wal_autocheckpoint = 10000;"

enum { RD_SQLITE_NCACHE = 48 };   /* prepared statements one connection keeps */

typedef struct {
    sqlite3 *db;
    char *path;
    int busy;               /* the last sqlite failure was lock contention */
    int cache_kib;          /* page cache size asked for (0: RD_SQLITE_PRAGMAS's) */
    int64_t busy_start;
    const char *sql[RD_SQLITE_NCACHE];
    sqlite3_stmt *st[RD_SQLITE_NCACHE];
} sqlite_conn;

/* Runs `call` (which sets the caller's rd_code rc) until it succeeds, fails
 * for a reason other than lock contention, or contention outlasts RETRY_MS. */
#define RETRY(c, call)                                   \
    do {                                                 \
        int64_t t0_ = 0;                                 \
        do                                               \
            rc = (call);                                 \
        while (sqlite_conn_should_retry((c), rc, &t0_)); \
    } while (0)

/* Opens (creating if need be) the store file at path: WAL, the busy handler,
 * the schema; a page cache of cache_kib KiB when above 0.  On failure c
 * holds nothing. */
rd_code sqlite_conn_open(sqlite_conn *c, const char *path, int cache_kib, rd_err *err);

/* Finalizes c's statements and closes it; c is zeroed. */
void sqlite_conn_close(sqlite_conn *c);

/* RD_ENOMEM with the store's message. */
rd_code sqlite_conn_fail_oom(rd_err *err);

/* Whether a failed operation should run again: lock contention that outlasts
 * the busy handler (or bypasses it) is retried, never reported at once.
 * *start is 0 before the first attempt; sleeps a little before saying yes. */
int sqlite_conn_should_retry(sqlite_conn *c, rd_code rc, int64_t *start);

/* Prepares sql and binds ?1, ?2, ... by fmt: 'i' int64_t, 'k' C string as a
 * blob (NULL: left unbound), 'b' bytes (pointer, size_t), '_' skip.  A
 * parameter that sql does not use is ignored, so variants share one list.
 * Prepared statements are cached by the address of their SQL text, so sql
 * must be a static string. */
rd_code sqlite_conn_prep(sqlite_conn *c, const char *sql, sqlite3_stmt **q, rd_err *err,
                         const char *fmt, ...);

/* Steps q: 1 with a row ready, 0 at the end or on error (then *rc is set). */
int sqlite_conn_step(sqlite_conn *c, sqlite3_stmt *q, rd_code *rc, rd_err *err);

/* Runs a statement for its effect; arguments as for sqlite_conn_prep. */
rd_code sqlite_conn_exec(sqlite_conn *c, const char *sql, rd_err *err, const char *fmt, ...);

/* The first column of the first row; *found = 0 when there is no row. */
rd_code sqlite_conn_query_int(sqlite_conn *c, const char *sql, int64_t *v, int *found,
                              rd_err *err, const char *fmt, ...);

/* Ends the open transaction: COMMIT when rc is RD_OK, else ROLLBACK, so that
 * no failure leaves anything half-applied.  Returns the outcome. */
rd_code sqlite_conn_finish_txn(sqlite_conn *c, rd_code rc, rd_err *err);

/* Columns c0..c0+5: key, value, create_rev, mod_rev, version, lease. */
rd_code sqlite_conn_copy_kv(sqlite3_stmt *q, int c0, store_kv *kv, rd_err *err);

/* The meta row: the current revision and the oldest readable one. */
rd_code sqlite_conn_read_meta(sqlite_conn *c, int64_t *rev, int64_t *compact, rd_err *err);

/* Milliseconds on the wall clock, which leases expire by. */
int64_t sqlite_conn_wall_ms(void);

/* Sleeps us microseconds, through signals. */
void sqlite_conn_sleep_us(long us);

/* The slot for the next key of a range being read, or NULL: when limit
 * (0: none) keys are in already (then out->more is set and *rc stays as it
 * was) or memory ran out (*rc says so). */
store_kv *sqlite_conn_range_slot(store_range_result *out, size_t *cap, size_t limit, rd_code *rc, rd_err *err);

/* ---- SQL fragments, and key helpers (store_sqlite_conn.c) ------------------ */

#define KV_COLS "key, value, create_rev, mod_rev, version, lease"
/* kv_log's columns, for CREATE TABLE (a new file and the upgrade to 4). */
#define KV_LOG_COLUMNS                                                                          \
    "(rev INTEGER NOT NULL, sub INTEGER NOT NULL, key BLOB NOT NULL, type INTEGER NOT NULL,"    \
    " create_rev INTEGER NOT NULL, version INTEGER NOT NULL, lease INTEGER NOT NULL,"           \
    " prev_rev INTEGER, prev_sub INTEGER, prev_value BLOB, PRIMARY KEY (rev, sub))"
/* Key ranges: [?1, ?2) or, when the prefix has no upper bound, [?1, end). */
#define W_FROM "key >= ?1"
#define W_RANGE "key >= ?1 AND key < ?2"

/* memcmp order on byte strings, a shorter prefix first (SQLite's BLOB order). */
int sqlite_conn_compare_bytes(const void *a, size_t alen, const void *b, size_t blen);

/* *end: the first key past every key starting with prefix, NULL when there
 * is none (prefix all 0xff bytes); RD_ENOMEM when it cannot be made. */
rd_code sqlite_conn_find_prefix_end(const char *prefix, char **end, rd_err *err);

/* ---- write transactions (store_sqlite_write.c) ---------------------------- */

/* Which keys sqlite_write_delete_keys deletes: [lo, end), [lo, hi), those
 * of leases expired at arg (wall ms), those of lease arg. */
enum { DEL_FROM, DEL_RANGE, DEL_EXPIRED, DEL_LEASE };

/* BEGIN IMMEDIATE, then *rev (the current revision) and every expired
 * lease reaped (its keys deleted at a revision of their own).  On failure
 * nothing is left open. */
rd_code sqlite_write_begin(sqlite_conn *c, int64_t *rev, rd_err *err);

/* *found = 1 when some lease has expired by the wall clock (its keys are
 * still there until a write transaction reaps them). */
rd_code sqlite_write_find_expired(sqlite_conn *c, int *found, rd_err *err);

/* Deletes the keys `which` picks (lo, hi, arg as DEL_* says) at revision
 * rev, one DELETE event each; *sub counts the rows logged at rev so far. */
rd_code sqlite_write_delete_keys(sqlite_conn *c, int which, const char *lo, size_t lo_len,
                                 const char *hi, size_t hi_len, int64_t arg, int64_t rev,
                                 int64_t *sub, rd_err *err);

/* Moves the store to *rev + 1 when sub > 0 rows were logged there. */
rd_code sqlite_write_bump_rev(sqlite_conn *c, int64_t *rev, int64_t sub, rd_err *err);

/* ---- reads at an older revision (store_sqlite_past.c) -------------------- */

/* Appends to out (empty) the keys in [lo, hi) (hi NULL: no bound) as they
 * were at revision at, below the current one and not compacted, in key
 * order, at most limit (0: all; out->more says there were more).  Runs
 * inside the caller's read transaction. */
rd_code sqlite_past_range(sqlite_conn *c, const char *lo, size_t lo_len, const char *hi, size_t hi_len,
                          size_t limit, int64_t at, store_range_result *out, rd_err *err);

/* Every write after revision `after` to keys in [lo, hi) (hi NULL: no
 * bound), one event each, in revision order, into *events (*count of them;
 * NULL and 0 on failure).  Runs inside the caller's read transaction. */
rd_code sqlite_past_events(sqlite_conn *c, const char *lo, const char *hi, int64_t after, store_event **events,
                           size_t *count, rd_err *err);

/* One whole txn (store_txn's contract, arguments already validated): a
 * write transaction, committed or rolled back. */
rd_code sqlite_write_txn(sqlite_conn *c, const store_cmp *cmps, size_t ncmps,
                         const store_op *success, size_t nsuccess, const store_op *failure,
                         size_t nfailure, store_txn_result *res, rd_err *err);

#endif
