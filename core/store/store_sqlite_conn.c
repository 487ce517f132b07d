/* store_sqlite_conn.c - the SQLite store's connection plumbing.
 *
 * Owns one connection to the store file: opening it (WAL, synchronous =
 * NORMAL), creating or checking the schema (the table text lives here; its
 * layout is described in store_sqlite_int.h), the busy handler and the retry
 * rule for lock contention, the prepared-statement cache, parameter binding,
 * stepping, COMMIT/ROLLBACK, reading the meta row it creates, and copying
 * result columns into store_kv.  Also the clocks the backend runs on and
 * two key helpers (BLOB order, the end of a prefix) both other files use.  What
 * the rows mean (revisions, history, leases, watches) is the business of
 * store_sqlite.c and store_sqlite_write.c, not this file's.
 */
#include "store_sqlite_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grow.h"
#include "rdtime.h"

enum {
    SCHEMA_VERSION = 4,
    BUSY_WAIT_MS = 10000,   /* how long one lock wait may last inside sqlite */
    RETRY_MS = 30000        /* how long a whole operation is retried on contention */
};

/* ---- SQL ------------------------------------------------------------------ */

static const char SQL_SCHEMA[] =
    "CREATE TABLE IF NOT EXISTS meta (id INTEGER PRIMARY KEY CHECK (id = 1),"
    " rev INTEGER NOT NULL, compact_rev INTEGER NOT NULL);"
    "INSERT OR IGNORE INTO meta (id, rev, compact_rev) VALUES (1, 1, 0);"
    "CREATE TABLE IF NOT EXISTS kv (key BLOB PRIMARY KEY, value BLOB NOT NULL,"
    " create_rev INTEGER NOT NULL, mod_rev INTEGER NOT NULL, version INTEGER NOT NULL,"
    " lease INTEGER NOT NULL, mod_sub INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;"
    "CREATE INDEX IF NOT EXISTS kv_by_lease ON kv (lease) WHERE lease != 0;"
    "CREATE TABLE IF NOT EXISTS kv_log " KV_LOG_COLUMNS " WITHOUT ROWID;"
    "CREATE INDEX IF NOT EXISTS kv_log_del ON kv_log (key, rev) WHERE type = 1;"
    "CREATE TABLE IF NOT EXISTS lease (id INTEGER PRIMARY KEY, ttl INTEGER NOT NULL,"
    " expires_at INTEGER NOT NULL);"
    "CREATE INDEX IF NOT EXISTS lease_by_expiry ON lease (expires_at);"
    "PRAGMA user_version = 4;";

/* Version 1 indexed every key by lease and kept a copy of the current value
 * in the newest history row; version 2 indexes only keys with a lease and
 * leaves the newest row's value NULL (it is the one in kv).  Both changes
 * are made here, in the transaction that opens the file. */
static const char SQL_UPGRADE_1[] =
    "DROP INDEX IF EXISTS kv_by_lease;"
    "CREATE INDEX kv_by_lease ON kv (lease) WHERE lease != 0;"
    "UPDATE kv_log SET value = NULL WHERE type = 0 AND (key, rev) IN (SELECT key, mod_rev FROM kv)"
    " AND sub = (SELECT max(sub) FROM kv_log AS m WHERE m.key = kv_log.key AND m.rev = kv_log.rev);"
    "PRAGMA user_version = 2;";

/* Version 3 points from each live key to its newest history row and
 * indexes by key only the rows that are not a live key's newest. */
static const char SQL_UPGRADE_2[] =
    "ALTER TABLE kv ADD COLUMN mod_sub INTEGER NOT NULL DEFAULT 0;"
    "UPDATE kv SET mod_sub = coalesce((SELECT max(sub) FROM kv_log INDEXED BY kv_log_by_key"
    " WHERE kv_log.key = kv.key AND kv_log.rev = kv.mod_rev), 0);"
    "DROP INDEX kv_log_by_key;"
    "CREATE INDEX kv_log_old_by_key ON kv_log (key, rev) WHERE value IS NOT NULL OR type = 1;"
    "PRAGMA user_version = 3;";

/* Version 4 keeps each value once: the live one in kv, a replaced one in
 * the history row of the write that replaced it (prev_value), beside a
 * link to the replaced row (prev_rev, prev_sub).  A write appends one row
 * and changes no other, and only DELETE events are indexed by key.  The
 * upgrade builds the new table in revision order: each row takes the
 * revision, sub and value of the row before it of the same key (a version
 * 3 history row has its own value unless it is its key's newest), a PUT
 * only from a PUT (after a DELETE the key began anew). */
static const char SQL_UPGRADE_3[] =
    "CREATE TABLE kv_log_4 " KV_LOG_COLUMNS " WITHOUT ROWID;"
    "INSERT INTO kv_log_4 (rev, sub, key, type, create_rev, version, lease, prev_rev, prev_sub, prev_value)"
    " SELECT rev, sub, key, type, create_rev, version, lease, CASE WHEN p_type = 0 THEN p_rev END,"
    " CASE WHEN p_type = 0 THEN p_sub END, CASE WHEN p_type = 0 THEN p_value END FROM"
    " (SELECT rev, sub, key, type, create_rev, version, lease, lag(rev) OVER w AS p_rev, lag(sub) OVER w AS p_sub,"
    " lag(type) OVER w AS p_type, lag(value) OVER w AS p_value FROM kv_log"
    " WINDOW w AS (PARTITION BY key ORDER BY rev, sub)) ORDER BY rev, sub;"
    "DROP TABLE kv_log;"
    "ALTER TABLE kv_log_4 RENAME TO kv_log;"
    "CREATE INDEX kv_log_del ON kv_log (key, rev) WHERE type = 1;"
    "PRAGMA user_version = 4;";

static const char SQL_COMMIT[] = "COMMIT";
static const char SQL_META[] = "SELECT rev, compact_rev FROM meta WHERE id = 1";

/* ---- time ----------------------------------------------------------------- */

static int64_t clock_ms(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Leases expire by the store's own physical clock, as etcd's lessor does.
 * This is the only place in core that reads the real-time clock. */
int64_t sqlite_conn_wall_ms(void)
{
    return clock_ms(CLOCK_REALTIME);
}

void sqlite_conn_sleep_us(long us)
{
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
        ;
}

/* Spreads out competing processes so that they do not retry in lockstep. */
static long jitter_us(long base, long spread)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return base + (ts.tv_nsec / 1000) % spread;
}

/* ---- connection plumbing -------------------------------------------------- */

rd_code sqlite_conn_fail_oom(rd_err *err)
{
    return rd_fail(err, RD_ENOMEM, "store: out of memory");
}

static rd_code db_fail(sqlite_conn *c, const char *what, rd_err *err)
{
    int code = sqlite3_errcode(c->db) & 0xff;
    c->busy = code == SQLITE_BUSY || code == SQLITE_LOCKED;
    if (code == SQLITE_NOMEM)
        return sqlite_conn_fail_oom(err);
    return rd_fail(err, RD_ESTORE, "store %s: %s: %s", c->path, what, sqlite3_errmsg(c->db));
}

int sqlite_conn_should_retry(sqlite_conn *c, rd_code rc, int64_t *start)
{
    int busy = c->busy;
    c->busy = 0;
    if (rc != RD_ESTORE || !busy)
        return 0;
    if (*start == 0)
        *start = rdtime_mono_ms();
    if (rdtime_mono_ms() - *start > RETRY_MS)
        return 0;
    sqlite_conn_sleep_us(jitter_us(500, 4000));
    return 1;
}

/* sqlite's own busy handler sleeps up to 100 ms per round, which starves a
 * writer among several hot ones; short jittered sleeps keep the queue moving. */
static int busy_wait(void *arg, int n)
{
    sqlite_conn *c = arg;
    int64_t now = rdtime_mono_ms();
    if (n == 0)
        c->busy_start = now;
    if (now - c->busy_start >= BUSY_WAIT_MS)
        return 0;
    sqlite_conn_sleep_us(jitter_us(100, n < 20 ? 400 : 2000));
    return 1;
}

/* Prepared statements are cached by the address of their SQL text. */
static rd_code stmt(sqlite_conn *c, const char *sql, sqlite3_stmt **q, rd_err *err)
{
    int i = 0;
    for (; i < RD_SQLITE_NCACHE && c->sql[i]; i++) {
        if (c->sql[i] == sql) {
            sqlite3_reset(c->st[i]);
            sqlite3_clear_bindings(c->st[i]);
            *q = c->st[i];
            return RD_OK;
        }
    }
    if (i == RD_SQLITE_NCACHE)
        return rd_fail(err, RD_ESTORE, "store %s: statement cache is full", c->path);
    if (sqlite3_prepare_v3(c->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &c->st[i], NULL) != SQLITE_OK) {
        rd_code rc = db_fail(c, "prepare", err);
        sqlite3_finalize(c->st[i]);
        c->st[i] = NULL;
        return rc;
    }
    c->sql[i] = sql;
    *q = c->st[i];
    return RD_OK;
}

static void bind_bytes(sqlite3_stmt *q, int i, const void *p, size_t n)
{
    /* A NULL pointer would bind SQL NULL, not an empty blob. */
    sqlite3_bind_blob64(q, i, n ? p : "", n, SQLITE_STATIC);
}

/* Prepares sql and binds by fmt (see sqlite_conn_prep in store_sqlite_int.h). */
static rd_code vprep(sqlite_conn *c, const char *sql, sqlite3_stmt **q, rd_err *err,
                     const char *fmt, va_list ap)
{
    rd_code rc = stmt(c, sql, q, err);
    for (int i = 1; rc == RD_OK && fmt[i - 1]; i++) {
        if (fmt[i - 1] == 'i') {
            sqlite3_bind_int64(*q, i, va_arg(ap, int64_t));
        } else if (fmt[i - 1] == 'k') {
            const char *k = va_arg(ap, const char *);
            if (k)
                bind_bytes(*q, i, k, strlen(k));
        } else if (fmt[i - 1] == 'b') {
            const void *p = va_arg(ap, const void *);
            bind_bytes(*q, i, p, va_arg(ap, size_t));
        }
    }
    return rc;
}

rd_code sqlite_conn_prep(sqlite_conn *c, const char *sql, sqlite3_stmt **q, rd_err *err,
                         const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rd_code rc = vprep(c, sql, q, err, fmt, ap);
    va_end(ap);
    return rc;
}

int sqlite_conn_step(sqlite_conn *c, sqlite3_stmt *q, rd_code *rc, rd_err *err)
{
    int r = sqlite3_step(q);
    if (r == SQLITE_ROW)
        return 1;
    if (r != SQLITE_DONE)
        *rc = db_fail(c, "query", err);
    return 0;
}

rd_code sqlite_conn_exec(sqlite_conn *c, const char *sql, rd_err *err, const char *fmt, ...)
{
    sqlite3_stmt *q;
    va_list ap;
    va_start(ap, fmt);
    rd_code rc = vprep(c, sql, &q, err, fmt, ap);
    va_end(ap);
    if (rc == RD_OK) {
        sqlite_conn_step(c, q, &rc, err);
        sqlite3_reset(q);
    }
    return rc;
}

rd_code sqlite_conn_query_int(sqlite_conn *c, const char *sql, int64_t *v, int *found,
                              rd_err *err, const char *fmt, ...)
{
    sqlite3_stmt *q;
    va_list ap;
    va_start(ap, fmt);
    rd_code rc = vprep(c, sql, &q, err, fmt, ap);
    va_end(ap);
    *found = 0;
    if (rc == RD_OK) {
        if ((*found = sqlite_conn_step(c, q, &rc, err)))
            *v = sqlite3_column_int64(q, 0);
        sqlite3_reset(q);
    }
    return rc;
}

rd_code sqlite_conn_finish_txn(sqlite_conn *c, rd_code rc, rd_err *err)
{
    if (rc == RD_OK && (rc = sqlite_conn_exec(c, SQL_COMMIT, err, "")) == RD_OK)
        return RD_OK;
    if (!sqlite3_get_autocommit(c->db))
        sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

rd_code sqlite_conn_read_meta(sqlite_conn *c, int64_t *rev, int64_t *compact, rd_err *err)
{
    sqlite3_stmt *q;
    rd_code rc = sqlite_conn_prep(c, SQL_META, &q, err, "");
    if (rc)
        return rc;
    if (sqlite_conn_step(c, q, &rc, err)) {
        *rev = sqlite3_column_int64(q, 0);
        *compact = sqlite3_column_int64(q, 1);
    } else if (rc == RD_OK) {
        rc = rd_fail(err, RD_ECORRUPT, "store %s: the meta row is missing", c->path);
    }
    sqlite3_reset(q);
    return rc;
}

static char *col_dup(sqlite3_stmt *q, int col, size_t *len)
{
    size_t n = (size_t)sqlite3_column_bytes(q, col);
    const void *p = sqlite3_column_blob(q, col);
    char *s = (n && !p) ? NULL : malloc(n + 1);
    if (!s)
        return NULL;
    if (n)
        memcpy(s, p, n);
    s[n] = '\0';
    if (len)
        *len = n;
    return s;
}

rd_code sqlite_conn_copy_kv(sqlite3_stmt *q, int c0, store_kv *kv, rd_err *err)
{
    memset(kv, 0, sizeof *kv);
    kv->key = col_dup(q, c0, NULL);
    kv->value = col_dup(q, c0 + 1, &kv->value_len);
    if (!kv->key || !kv->value) {
        store_kv_free(kv);
        return sqlite_conn_fail_oom(err);
    }
    kv->create_revision = sqlite3_column_int64(q, c0 + 2);
    kv->mod_revision = sqlite3_column_int64(q, c0 + 3);
    kv->version = sqlite3_column_int64(q, c0 + 4);
    kv->lease = sqlite3_column_int64(q, c0 + 5);
    return RD_OK;
}

store_kv *sqlite_conn_range_slot(store_range_result *out, size_t *cap, size_t limit, rd_code *rc, rd_err *err)
{
    if (limit && out->count == limit) {
        out->more = 1;
        return NULL;
    }
    if (grow_array(&out->kvs, cap, out->count + 1, sizeof *out->kvs) != 0) {
        *rc = sqlite_conn_fail_oom(err);
        return NULL;
    }
    return &out->kvs[out->count];
}

/* ---- keys ----------------------------------------------------------------- */

int sqlite_conn_compare_bytes(const void *a, size_t alen, const void *b, size_t blen)
{
    size_t m = alen < blen ? alen : blen;
    int d = m ? memcmp(a, b, m) : 0;
    return d ? d : (alen > blen) - (alen < blen);
}

/* store_prefix_end returns NULL both for "no bound" and for out of memory. */
rd_code sqlite_conn_find_prefix_end(const char *prefix, char **end, rd_err *err)
{
    *end = store_prefix_end(prefix);
    if (*end)
        return RD_OK;
    for (const unsigned char *p = (const unsigned char *)prefix; *p; p++)
        if (*p != 0xff)
            return sqlite_conn_fail_oom(err);
    return RD_OK;
}

/* ---- open / close --------------------------------------------------------- */

void sqlite_conn_close(sqlite_conn *c)
{
    for (int i = 0; i < RD_SQLITE_NCACHE && c->sql[i]; i++)
        sqlite3_finalize(c->st[i]);
    sqlite3_close_v2(c->db);
    free(c->path);
    memset(c, 0, sizeof *c);
}

/* WAL mode, then the schema: created when the file is new, refused when a
 * newer rigdeck has written it. */
static rd_code setup(sqlite_conn *c, rd_err *err)
{
    int64_t v = 0;
    int found = 0;
    rd_code rc = RD_OK;
    if (sqlite3_exec(c->db, RD_SQLITE_PRAGMAS " BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return db_fail(c, "cannot open", err);
    /* A smaller cache where the opener asked for one (store_opts.cache_kib):
     * the console reads most pages once, and a 128 MiB cache would keep
     * every one of them resident. */
    int kib = c->cache_kib;
    if (kib > 0) {
        char pragma[64];
        snprintf(pragma, sizeof pragma, "PRAGMA cache_size = -%d", kib);
        if (sqlite3_exec(c->db, pragma, NULL, NULL, NULL) != SQLITE_OK)
            return sqlite_conn_finish_txn(c, db_fail(c, "cannot size the page cache", err), err);
    }
    /* Inside BEGIN IMMEDIATE, so two processes creating one new file take turns. */
    static const char user_version[] = "PRAGMA user_version";
    if ((rc = sqlite_conn_query_int(c, user_version, &v, &found, err, "")) == RD_OK &&
        v > SCHEMA_VERSION)
        rc = rd_fail(err, RD_ESTORE, "store %s: schema version %lld is newer than this rigdeck (%d)",
                     c->path, (long long)v, SCHEMA_VERSION);
    int64_t from = 0, t0 = 0;
    if (rc == RD_OK && v >= 1 && v < SCHEMA_VERSION) {
        from = v;
        t0 = rdtime_mono_ms();
        store_notice(0, "store %s: upgrading the file from schema version %lld to %d (once; a large store takes a while)",
                     c->path, (long long)v, SCHEMA_VERSION);
    }
    if (rc == RD_OK && v == 1 && sqlite3_exec(c->db, SQL_UPGRADE_1, NULL, NULL, NULL) != SQLITE_OK)
        rc = db_fail(c, "cannot upgrade the schema", err);
    else if (rc == RD_OK && v == 1)
        v = 2;
    if (rc == RD_OK && v == 2 && sqlite3_exec(c->db, SQL_UPGRADE_2, NULL, NULL, NULL) != SQLITE_OK)
        rc = db_fail(c, "cannot upgrade the schema", err);
    else if (rc == RD_OK && v == 2)
        v = 3;
    if (rc == RD_OK && v == 3 && sqlite3_exec(c->db, SQL_UPGRADE_3, NULL, NULL, NULL) != SQLITE_OK)
        rc = db_fail(c, "cannot upgrade the schema", err);
    else if (rc == RD_OK && v < 1 && sqlite3_exec(c->db, SQL_SCHEMA, NULL, NULL, NULL) != SQLITE_OK)
        rc = db_fail(c, "cannot create the schema", err);
    rc = sqlite_conn_finish_txn(c, rc, err);
    if (rc == RD_OK && from)
        store_notice(1, "store %s: upgraded from schema version %lld to %d in %lld ms", c->path, (long long)from,
                     SCHEMA_VERSION, (long long)(rdtime_mono_ms() - t0));
    return rc;
}

rd_code sqlite_conn_open(sqlite_conn *c, const char *path, int cache_kib, rd_err *err)
{
    memset(c, 0, sizeof *c);
    c->cache_kib = cache_kib > 0 ? cache_kib : 0;
    if (!(c->path = strdup(path)))
        return sqlite_conn_fail_oom(err);
    /* No mutex of its own: a store handle (its statement cache, its busy
     * state) is used by one thread at a time anyway (the core is not
     * thread-safe, docs/architecture.md), and taking and releasing the
     * lock in every call costs about 5% of a put's instructions. */
    int r = sqlite3_open_v2(path, &c->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                            NULL);
    rd_code rc = r == SQLITE_NOMEM ? RD_ENOMEM : RD_ESTORE;
    if (r != SQLITE_OK) {
        rd_fail(err, rc, "store %s: cannot open: %s", path,
                c->db ? sqlite3_errmsg(c->db) : sqlite3_errstr(r));
        sqlite_conn_close(c);
        return rc;
    }
    sqlite3_busy_handler(c->db, busy_wait, c);
    RETRY(c, setup(c, err));
    if (rc != RD_OK)
        sqlite_conn_close(c);
    return rc;
}
