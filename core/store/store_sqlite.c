/* store_sqlite.c - the embedded store backend: etcd v3 semantics on one SQLite file.
 *
 * Owns reads (current and at old revisions), leases, polling watches and
 * compaction, the SQL for them, and the store_sqlite_backend table; what a
 * write transaction does inside (compares, puts and their history, deletes,
 * the revision, reaping expired leases) is store_sqlite_write.c's.
 * Several processes may share one file: every write is a single BEGIN
 * IMMEDIATE transaction, every read that needs a consistent view runs
 * inside one read transaction (a WAL snapshot), and lock
 * contention is waited out, never reported as an error unless it lasts for
 * RETRY_MS.  The schema is described in store_sqlite_int.h; opening a
 * connection, creating the schema, busy handling and statement plumbing are
 * in store_sqlite_conn.c.
 */
#include "store_sqlite_int.h"
#include "rdtime.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

enum { WATCH_POLL_MS = 25 };

typedef struct {
    store_t base;
    sqlite_conn c;
} sqlite_store;

#define CONN(st) (&((sqlite_store *)(st))->c)

typedef struct {
    store_watch base;
    sqlite_conn c;          /* its own connection, so a watch never disturbs a txn */
    char *prefix;
    char *end;              /* NULL: no upper bound */
    int64_t last;           /* every event at a revision <= last has been returned */
} sqlite_watch;

/* ---- SQL ------------------------------------------------------------------ */

static const char SQL_BEGIN[] = "BEGIN";
static const char SQL_SET_COMPACT[] = "UPDATE meta SET compact_rev = ?1 WHERE id = 1";
static const char SQL_LEASE_TTL[] = "SELECT ttl FROM lease WHERE id = ?1";
static const char SQL_LEASE_EXPIRES[] = "SELECT expires_at FROM lease WHERE id = ?1";
static const char SQL_LEASE_ADD[] = "INSERT INTO lease (id, ttl, expires_at) VALUES (?1, ?2, ?3)";
static const char SQL_LEASE_RENEW[] = "UPDATE lease SET expires_at = ?2 WHERE id = ?1";
static const char SQL_LEASE_DROP[] = "DELETE FROM lease WHERE id = ?1";

/* One read of one key at the current revision, in one statement (so one
 * snapshot): the revision, whether a lease has expired (then the slow path
 * reaps it first), and the key's row if it exists. */
static const char SQL_GET[] =
    "SELECT m.rev, EXISTS (SELECT 1 FROM lease WHERE expires_at <= ?2), " KV_COLS
    " FROM meta AS m LEFT JOIN kv ON kv.key = ?1 WHERE m.id = 1";

static const char SQL_GET_KEY[] = "SELECT " KV_COLS " FROM kv WHERE key = ?1";

static const char *const SQL_RANGE_NOW[2] = {
    "SELECT " KV_COLS " FROM kv WHERE " W_FROM " ORDER BY key LIMIT ?3",
    "SELECT " KV_COLS " FROM kv WHERE " W_RANGE " ORDER BY key LIMIT ?3",
};

/* History below ?1 goes, except each key's newest row at or below ?1 when it
 * is a PUT: that row is the key's state as of ?1, so reads at ?1 still work.
 * A row goes when the row that replaced it is at or below ?1 (rows above
 * the last compaction, ?2, are the ones not yet looked at), and with it the
 * value that row kept for it; a DELETE event goes once it is below ?1. */
static const char SQL_COMPACT_SUPERSEDED[] =
    "DELETE FROM kv_log WHERE (rev, sub) IN (SELECT prev_rev, prev_sub FROM kv_log"
    " WHERE rev > ?2 AND rev <= ?1 AND prev_rev IS NOT NULL)";
static const char SQL_COMPACT_VALUES[] =
    "UPDATE kv_log SET prev_value = NULL WHERE rev > ?2 AND rev <= ?1 AND prev_value IS NOT NULL";
static const char SQL_COMPACT_DELETES[] =
    "DELETE FROM kv_log WHERE rev >= ?2 AND rev < ?1 AND type = 1";

/* ---- read transactions ---------------------------------------------------- */

/* Opens a read transaction on a snapshot in which no lease has expired, so a
 * read never returns a key that should already be gone. */
static rd_code begin_read(sqlite_conn *c, int64_t *rev, int64_t *compact, rd_err *err)
{
    for (;;) {
        int found = 0;
        rd_code rc = sqlite_conn_exec(c, SQL_BEGIN, err, "");
        if (rc)
            return rc;
        rc = sqlite_write_find_expired(c, &found, err);
        if (rc == RD_OK && !found)
            rc = sqlite_conn_read_meta(c, rev, compact, err);
        if (rc || !found)
            return rc ? sqlite_conn_finish_txn(c, rc, err) : RD_OK;
        sqlite_conn_finish_txn(c, RD_ECONFLICT, err);   /* just the rollback */
        if ((rc = sqlite_write_begin(c, rev, err)) || (rc = sqlite_conn_finish_txn(c, RD_OK, err)))
            return rc;
    }
}

static rd_code compacted(int64_t rev, int64_t compact, rd_err *err)
{
    return rd_fail(err, RD_EINVAL, "revision %lld has been compacted (oldest available: %lld)",
                   (long long)rev, (long long)compact);
}

/* ---- reads ---------------------------------------------------------------- */

/* Keys in [lo, hi) (hi NULL: no bound) as of at_rev (0: current). */
static rd_code range_impl(sqlite_conn *c, const char *lo, size_t lo_len, const char *hi,
                          size_t hi_len, size_t limit, int64_t at_rev, store_range_result *out,
                          rd_err *err)
{
    int64_t rev, compact, lim = limit && limit < (size_t)INT64_MAX ? (int64_t)limit + 1 : -1;
    size_t cap = 0;
    sqlite3_stmt *q = NULL;
    memset(out, 0, sizeof *out);
    rd_code rc = begin_read(c, &rev, &compact, err);
    if (rc)
        return rc;
    if (at_rev == 0)
        at_rev = rev;
    if (at_rev < compact)
        rc = compacted(at_rev, compact, err);
    else if (at_rev > rev)
        rc = rd_fail(err, RD_EINVAL, "revision %lld is in the future (current: %lld)",
                     (long long)at_rev, (long long)rev);
    else if (at_rev < rev)
        rc = sqlite_past_range(c, lo, lo_len, hi, hi_len, limit, at_rev, out, err);
    else
        rc = sqlite_conn_prep(c, SQL_RANGE_NOW[hi != NULL], &q, err, "bbi", lo, lo_len, hi, hi_len, lim);
    while (q && rc == RD_OK && sqlite_conn_step(c, q, &rc, err)) {
        store_kv *slot = sqlite_conn_range_slot(out, &cap, limit, &rc, err);
        if (!slot)
            break;
        if ((rc = sqlite_conn_copy_kv(q, 0, slot, err)) == RD_OK)
            out->count++;
    }
    sqlite3_reset(q);
    if ((rc = sqlite_conn_finish_txn(c, rc, err)))
        store_range_free(out);
    else
        out->revision = at_rev;
    return rc;
}

/* The common read: one statement.  *slow = 1 (nothing filled in) when a
 * lease has expired and the key might be one that should be gone. */
static rd_code get_fast(sqlite_conn *c, const char *key, store_kv *out, int *found,
                        int64_t *revision, int *slow, rd_err *err)
{
    sqlite3_stmt *q;
    rd_code rc = sqlite_conn_prep(c, SQL_GET, &q, err, "ki", key, sqlite_conn_wall_ms());
    if (rc)
        return rc;
    if (!sqlite_conn_step(c, q, &rc, err)) {
        if (rc == RD_OK)
            rc = rd_fail(err, RD_ECORRUPT, "store %s: the meta row is missing", c->path);
    } else if ((*slow = sqlite3_column_int(q, 1))) {
        ;
    } else {
        if (revision)
            *revision = sqlite3_column_int64(q, 0);
        if (sqlite3_column_type(q, 2) != SQLITE_NULL &&
            (rc = sqlite_conn_copy_kv(q, 2, out, err)) == RD_OK)
            *found = 1;
    }
    sqlite3_reset(q);
    return rc;
}

static rd_code sqlite_store_get(store_t *st, const char *key, store_kv *out, int *found,
                                int64_t *revision, rd_err *err)
{
    sqlite_conn *c = CONN(st);
    store_range_result rr;
    rd_code rc;
    memset(out, 0, sizeof *out);
    *found = 0;
    if (!key || !*key)
        return rd_fail(err, RD_EINVAL, "store get: the key is empty");
    int slow = 0;
    RETRY(c, get_fast(c, key, out, found, revision, &slow, err));
    if (rc || !slow)
        return rc;
    /* A lease has expired: the range path reaps it before reading.  Keys are
     * NUL-free, so [key, key + NUL) holds exactly the key. */
    RETRY(c, range_impl(c, key, strlen(key), key, strlen(key) + 1, 1, 0, &rr, err));
    if (rc)
        return rc;
    if (rr.count) {
        *out = rr.kvs[0];
        *found = 1;
        rr.count = 0;
    }
    if (revision)
        *revision = rr.revision;
    store_range_free(&rr);
    return RD_OK;
}

/* Many keys in one read transaction: one snapshot, one lease check, and no
 * transaction begun and ended per key (a ledger step reads thousands). */
static rd_code get_many_impl(sqlite_conn *c, const char *const *keys, size_t n, store_kv *out, int *found,
                             int64_t *revision, rd_err *err)
{
    int64_t rev, compact;
    size_t i = 0;
    rd_code rc = begin_read(c, &rev, &compact, err);
    if (rc)
        return rc;
    for (; i < n && rc == RD_OK; i++) {
        sqlite3_stmt *q;
        found[i] = 0;
        if (!keys[i] || !*keys[i]) {
            rc = rd_fail(err, RD_EINVAL, "store get: the key is empty");
            break;
        }
        if ((rc = sqlite_conn_prep(c, SQL_GET_KEY, &q, err, "k", keys[i])) != RD_OK)
            break;
        if (sqlite_conn_step(c, q, &rc, err) && (rc = sqlite_conn_copy_kv(q, 0, &out[i], err)) == RD_OK)
            found[i] = 1;
        sqlite3_reset(q);
    }
    if ((rc = sqlite_conn_finish_txn(c, rc, err)) != RD_OK) {
        while (i-- > 0)
            if (found[i]) {
                store_kv_free(&out[i]);
                found[i] = 0;
            }
    } else if (revision) {
        *revision = rev;
    }
    return rc;
}

static rd_code sqlite_store_get_many(store_t *st, const char *const *keys, size_t n, store_kv *out, int *found,
                                     int64_t *revision, rd_err *err)
{
    sqlite_conn *c = CONN(st);
    rd_code rc;
    memset(out, 0, n * sizeof *out);
    memset(found, 0, n * sizeof *found);
    RETRY(c, get_many_impl(c, keys, n, out, found, revision, err));
    return rc;
}

static rd_code sqlite_store_range(store_t *st, const char *prefix, const char *after,
                                  size_t limit, int64_t at_rev, store_range_result *out,
                                  rd_err *err)
{
    sqlite_conn *c = CONN(st);
    char *end = NULL;
    rd_code rc;
    memset(out, 0, sizeof *out);
    if (at_rev < 0)
        return rd_fail(err, RD_EINVAL, "store range: revision %lld is negative", (long long)at_rev);
    prefix = prefix ? prefix : "";
    const char *lo = prefix;
    size_t lo_len = strlen(prefix);
    /* `after` plus its NUL is the smallest key past `after`. */
    if (after && sqlite_conn_compare_bytes(after, strlen(after) + 1, lo, lo_len) > 0) {
        lo = after;
        lo_len = strlen(after) + 1;
    }
    if ((rc = sqlite_conn_find_prefix_end(prefix, &end, err)))
        return rc;
    RETRY(c, range_impl(c, lo, lo_len, end, end ? strlen(end) : 0, limit, at_rev, out, err));
    free(end);
    return rc;
}

/* ---- transactions --------------------------------------------------------- */

static rd_code sqlite_store_txn(store_t *st, const store_cmp *cmps, size_t ncmps,
                                const store_op *success, size_t nsuccess,
                                const store_op *failure, size_t nfailure,
                                store_txn_result *res, rd_err *err)
{
    sqlite_conn *c = CONN(st);
    rd_code rc;
    memset(res, 0, sizeof *res);
    for (size_t i = 0; i < ncmps; i++) {
        const store_cmp *m = &cmps[i];
        if (!m->key || !*m->key || (unsigned)m->target > STORE_CMP_CREATE_REVISION ||
            (unsigned)m->op > STORE_CMP_GREATER || (!m->value && m->value_len))
            return rd_fail(err, RD_EINVAL, "store txn: compare %zu is malformed (empty key?)", i);
    }
    for (size_t i = 0; i < nsuccess + nfailure; i++) {
        const store_op *o = i < nsuccess ? &success[i] : &failure[i - nsuccess];
        if (!o->key || (!*o->key && o->kind != STORE_OP_DELETE_PREFIX) ||
            (unsigned)o->kind > STORE_OP_DELETE_PREFIX ||
            (o->kind == STORE_OP_PUT && ((!o->value && o->value_len) || o->lease < 0)))
            return rd_fail(err, RD_EINVAL, "store txn: op %zu is malformed (empty key?)", i);
    }
    RETRY(c, sqlite_write_txn(c, cmps, ncmps, success, nsuccess, failure, nfailure, res, err));
    return rc;
}

/* ---- leases --------------------------------------------------------------- */

static int64_t new_lease_id(void)
{
    uint64_t x = 0;
    if (getrandom(&x, sizeof x, 0) != (ssize_t)sizeof x) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        x = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 40);
    }
    return (int64_t)(x & (uint64_t)INT64_MAX);
}

static rd_code grant_impl(sqlite_conn *c, int64_t ttl, int64_t *id, rd_err *err)
{
    int64_t rev, seen, cand = 0;
    int found = 1;
    rd_code rc = sqlite_write_begin(c, &rev, err);
    if (rc)
        return rc;
    while (rc == RD_OK && found)
        if ((cand = new_lease_id()) != 0)
            rc = sqlite_conn_query_int(c, SQL_LEASE_TTL, &seen, &found, err, "i", cand);
    if (rc == RD_OK)
        rc = sqlite_conn_exec(c, SQL_LEASE_ADD, err, "iii", cand, ttl,
                              sqlite_conn_wall_ms() + ttl * 1000);
    if ((rc = sqlite_conn_finish_txn(c, rc, err)) == RD_OK)
        *id = cand;
    return rc;
}

static rd_code sqlite_store_lease_grant(store_t *st, int64_t ttl, int64_t *id, rd_err *err)
{
    sqlite_conn *c = CONN(st);
    rd_code rc;
    if (ttl < 1 || ttl > INT64_MAX / 4000)
        return rd_fail(err, RD_EINVAL, "lease ttl %lld is out of range", (long long)ttl);
    RETRY(c, grant_impl(c, ttl, id, err));
    return rc;
}

/* revoke == 0: keepalive (renew, report the ttl); 1: revoke. */
static rd_code lease_impl(sqlite_conn *c, int64_t id, int revoke, int64_t *ttl, rd_err *err)
{
    int64_t rev, sub = 0;
    int found = 0;
    rd_code rc = sqlite_write_begin(c, &rev, err);
    if (rc)
        return rc;
    rc = sqlite_conn_query_int(c, SQL_LEASE_TTL, ttl, &found, err, "i", id);
    if (rc == RD_OK && !found)
        rc = rd_fail(err, RD_ENOTFOUND, "lease %lld does not exist (expired or revoked)",
                     (long long)id);
    if (rc == RD_OK && !revoke)
        rc = sqlite_conn_exec(c, SQL_LEASE_RENEW, err, "ii", id,
                              sqlite_conn_wall_ms() + *ttl * 1000);
    if (rc == RD_OK && revoke) {
        rc = sqlite_write_delete_keys(c, DEL_LEASE, NULL, 0, NULL, 0, id, rev + 1, &sub, err);
        if (rc == RD_OK)
            rc = sqlite_conn_exec(c, SQL_LEASE_DROP, err, "i", id);
        if (rc == RD_OK)
            rc = sqlite_write_bump_rev(c, &rev, sub, err);
    }
    return sqlite_conn_finish_txn(c, rc, err);
}

static rd_code sqlite_store_lease_keepalive(store_t *st, int64_t id, int64_t *ttl_left,
                                            rd_err *err)
{
    rd_code rc;
    RETRY(CONN(st), lease_impl(CONN(st), id, 0, ttl_left, err));
    return rc;
}

/* Two plain reads: a renewal between them only makes the answer fresher. */
static rd_code lease_ttl_impl(sqlite_conn *c, int64_t id, int64_t *left, int64_t *granted, rd_err *err)
{
    int64_t expires = 0;
    int found = 0;
    rd_code rc = sqlite_conn_query_int(c, SQL_LEASE_TTL, granted, &found, err, "i", id);
    if (rc == RD_OK && found)
        rc = sqlite_conn_query_int(c, SQL_LEASE_EXPIRES, &expires, &found, err, "i", id);
    if (rc != RD_OK)
        return rc;
    int64_t ms = expires - sqlite_conn_wall_ms();
    if (!found || ms <= 0)
        return rd_fail(err, RD_ENOTFOUND, "lease %lld does not exist (expired or revoked)", (long long)id);
    *left = (ms + 999) / 1000;
    return RD_OK;
}

static rd_code sqlite_store_lease_ttl(store_t *st, int64_t id, int64_t *left, int64_t *granted, rd_err *err)
{
    rd_code rc;
    RETRY(CONN(st), lease_ttl_impl(CONN(st), id, left, granted, err));
    return rc;
}

static rd_code sqlite_store_lease_revoke(store_t *st, int64_t id, rd_err *err)
{
    int64_t ttl;
    rd_code rc;
    RETRY(CONN(st), lease_impl(CONN(st), id, 1, &ttl, err));
    return rc;
}

/* ---- watch ---------------------------------------------------------------- */

static rd_code poll_impl(sqlite_watch *w, store_event **events, size_t *count, rd_err *err)
{
    sqlite_conn *c = &w->c;
    int64_t rev, compact;
    *events = NULL;
    *count = 0;
    rd_code rc = begin_read(c, &rev, &compact, err);
    if (rc)
        return rc;
    if (w->last + 1 < compact)
        rc = compacted(w->last + 1, compact, err);
    else if (rev > w->last)
        rc = sqlite_past_events(c, w->prefix, w->end, w->last, events, count, err);
    if ((rc = sqlite_conn_finish_txn(c, rc, err))) {
        store_events_free(*events, *count);
        *events = NULL;
        *count = 0;
    } else if (rev > w->last) {
        w->last = rev;
    }
    return rc;
}

/* timeout_ms < 0 waits until something happens. */
static rd_code sqlite_store_watch_next(store_watch *sw, int timeout_ms, store_event **events,
                                       size_t *count, rd_err *err)
{
    sqlite_watch *w = (sqlite_watch *)sw;
    int64_t deadline = rdtime_mono_ms() + (timeout_ms > 0 ? timeout_ms : 0);
    rd_code rc;
    for (;;) {
        RETRY(&w->c, poll_impl(w, events, count, err));
        if (rc || *count)
            return rc;
        int64_t left = deadline - rdtime_mono_ms();
        if (timeout_ms >= 0 && left <= 0)
            return RD_OK;
        int64_t nap = timeout_ms < 0 || left > WATCH_POLL_MS ? WATCH_POLL_MS : left;
        sqlite_conn_sleep_us(nap * 1000L);
    }
}

static void sqlite_store_watch_close(store_watch *sw)
{
    sqlite_watch *w = (sqlite_watch *)sw;
    if (!w)
        return;
    sqlite_conn_close(&w->c);
    free(w->prefix);
    free(w->end);
    free(w);
}

static rd_code watch_start(sqlite_watch *w, int64_t after_rev, rd_err *err)
{
    int64_t rev, compact;
    rd_code rc = begin_read(&w->c, &rev, &compact, err);
    if (rc || (rc = sqlite_conn_finish_txn(&w->c, RD_OK, err)))
        return rc;
    if (after_rev > 0 && after_rev + 1 < compact)
        return compacted(after_rev + 1, compact, err);
    w->last = after_rev > 0 ? after_rev : rev;
    return RD_OK;
}

static rd_code sqlite_store_watch_open(store_t *st, const char *prefix, int64_t after_rev,
                                       store_watch **out, rd_err *err)
{
    sqlite_store *s = (sqlite_store *)st;
    rd_code rc;
    *out = NULL;
    if (after_rev < 0)
        return rd_fail(err, RD_EINVAL, "store watch: revision %lld is negative", (long long)after_rev);
    sqlite_watch *w = calloc(1, sizeof *w);
    if (!w || !(w->prefix = strdup(prefix ? prefix : ""))) {
        free(w);
        return sqlite_conn_fail_oom(err);
    }
    if ((rc = sqlite_conn_find_prefix_end(w->prefix, &w->end, err)) == RD_OK &&
        (rc = sqlite_conn_open(&w->c, s->c.path, s->c.cache_kib, err)) == RD_OK)
        RETRY(&w->c, watch_start(w, after_rev, err));
    if (rc) {
        sqlite_store_watch_close(&w->base);
        return rc;
    }
    w->base.st = st;
    *out = &w->base;
    return RD_OK;
}

/* ---- housekeeping --------------------------------------------------------- */

static rd_code sqlite_store_revision(store_t *st, int64_t *revision, rd_err *err)
{
    int64_t compact, t0 = 0;
    rd_code rc;
    do
        if ((rc = begin_read(CONN(st), revision, &compact, err)) == RD_OK)
            rc = sqlite_conn_finish_txn(CONN(st), RD_OK, err);
    while (sqlite_conn_should_retry(CONN(st), rc, &t0));
    return rc;
}

static rd_code compact_impl(sqlite_conn *c, int64_t at, rd_err *err)
{
    int64_t rev, compact;
    rd_code rc = sqlite_write_begin(c, &rev, err);
    if (rc || (rc = sqlite_conn_read_meta(c, &rev, &compact, err)))
        return rc ? sqlite_conn_finish_txn(c, rc, err) : rc;
    if (at > rev)
        rc = rd_fail(err, RD_EINVAL, "cannot compact to revision %lld: the current revision is %lld",
                     (long long)at, (long long)rev);
    else if (at < compact)
        rc = compacted(at, compact, err);
    else if (at > compact && (rc = sqlite_conn_exec(c, SQL_COMPACT_SUPERSEDED, err, "ii", at, compact)) == RD_OK &&
             (rc = sqlite_conn_exec(c, SQL_COMPACT_VALUES, err, "ii", at, compact)) == RD_OK &&
             (rc = sqlite_conn_exec(c, SQL_COMPACT_DELETES, err, "ii", at, compact)) == RD_OK)
        rc = sqlite_conn_exec(c, SQL_SET_COMPACT, err, "i", at);
    return sqlite_conn_finish_txn(c, rc, err);
}

static rd_code sqlite_store_compact(store_t *st, int64_t revision, rd_err *err)
{
    sqlite_conn *c = CONN(st);
    rd_code rc;
    if (revision < 1)
        return rd_fail(err, RD_EINVAL, "cannot compact to revision %lld", (long long)revision);
    RETRY(c, compact_impl(c, revision, err));
    return rc;
}

/* ---- open / close --------------------------------------------------------- */

static rd_code sqlite_store_open(const char *location, const store_opts *opts, store_t **out,
                                 rd_err *err)
{
    *out = NULL;
    sqlite_store *s = calloc(1, sizeof *s);
    if (!s)
        return sqlite_conn_fail_oom(err);
    rd_code rc = sqlite_conn_open(&s->c, location, opts ? opts->cache_kib : 0, err);
    if (rc) {
        free(s);
        return rc;
    }
    *out = &s->base;
    return RD_OK;
}

static void sqlite_store_close(store_t *st)
{
    sqlite_store *s = (sqlite_store *)st;
    sqlite_conn_close(&s->c);
    free(s);
}

const store_backend store_sqlite_backend = {
    .name = "sqlite",
    /* One file on this host, one trust domain (its permissions are the
     * boundary), and a txn of any size. */
    .caps = { .txn_ops_max = 0, .authenticates = 0, .shared = 0 },
    .open = sqlite_store_open,
    .close = sqlite_store_close,
    .get = sqlite_store_get,
    .get_many = sqlite_store_get_many,
    .range = sqlite_store_range,
    .txn = sqlite_store_txn,
    .lease_grant = sqlite_store_lease_grant,
    .lease_keepalive = sqlite_store_lease_keepalive,
    .lease_revoke = sqlite_store_lease_revoke,
    .lease_ttl = sqlite_store_lease_ttl,
    .watch_open = sqlite_store_watch_open,
    .watch_next = sqlite_store_watch_next,
    .watch_close = sqlite_store_watch_close,
    .revision = sqlite_store_revision,
    .compact = sqlite_store_compact,
};
