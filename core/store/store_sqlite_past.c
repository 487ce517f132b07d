/* store_sqlite_past.c - the SQLite store's reads at an older revision.
 *
 * Owns finding what a range of keys held at a revision R below the current
 * one.  Schema 4 (store_sqlite_int.h) keeps a replaced value in the history
 * row of the write that replaced it, beside a link to the replaced row: a
 * PUT links to the key's previous PUT in the same life (no link when it
 * created the key), a DELETE to the PUT it ended.  No index by key is kept
 * but the DELETE events', so a write appends one history row and touches
 * no other; the price is paid here, by walking links back from a row newer
 * than R until the link reaches a row at or below R: that row is the
 * key's version at R (its revision, version, lease) and the row linking to
 * it holds its value.
 *
 * A range at R merges two streams, both in key order:
 *   live keys (kv): a key unchanged since R is kv's row; a key changed
 *       since is walked back from its newest row; a key created after R
 *       had no state at R in its present life;
 *   keys deleted after R (kv_log_del): the earliest DELETE after R ended
 *       the life that held R, if any; walking back from it gives the state.
 * No key is answered by both: if its present life began at or before R,
 * none of its DELETEs is after R.
 *
 * Compaction (store_sqlite.c) removes rows replaced at or below the
 * compacted revision C, the values kept for them and DELETE events below
 * C.  A walk for R >= C passes only rows newer than R, which keep their
 * values, and the row it ends on was replaced after R, so it is there.
 */
#include "store_sqlite_int.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "grow.h"

enum { EV_DELETE = 1 };   /* kv_log.type; 0 is PUT */

static const char SQL_LOG_ROW[] =
    "SELECT type, create_rev, version, lease, prev_rev, prev_sub, prev_value FROM kv_log"
    " WHERE rev = ?1 AND sub = ?2";
static const char *const SQL_LIVE[2] = {
    "SELECT " KV_COLS ", mod_sub FROM kv WHERE " W_FROM " ORDER BY key",
    "SELECT " KV_COLS ", mod_sub FROM kv WHERE " W_RANGE " ORDER BY key",
};
/* The index's condition (type = 1) is repeated so that the query can use it. */
static const char *const SQL_GONE[2] = {
    "SELECT key, rev, sub FROM kv_log INDEXED BY kv_log_del WHERE type = 1 AND " W_FROM
    " AND rev > ?4 ORDER BY key, rev",
    "SELECT key, rev, sub FROM kv_log INDEXED BY kv_log_del WHERE type = 1 AND " W_RANGE
    " AND rev > ?4 ORDER BY key, rev",
};

/* A copy of n bytes at p, NUL-terminated; NULL when out of memory. */
static char *bytes_dup(const void *p, size_t n)
{
    char *s = malloc(n + 1);
    if (s && n)
        memcpy(s, p, n);
    if (s)
        s[n] = '\0';
    return s;
}

/* The state at `at` of a key (key, key_len) whose chain of history rows is
 * entered at (rev, sub), a row newer than at; *found = 0 when it had none. */
static rd_code past_walk(sqlite_conn *c, const void *key, size_t key_len, int64_t rev, int64_t sub,
                         int64_t at, store_kv *out, int *found, rd_err *err)
{
    char *value = NULL;   /* the value of the row the walk ends on */
    size_t value_len = 0;
    rd_code rc = RD_OK;
    *found = 0;
    for (int end = 0; rc == RD_OK;) {
        sqlite3_stmt *q;
        if ((rc = sqlite_conn_prep(c, SQL_LOG_ROW, &q, err, "ii", rev, sub)) != RD_OK)
            break;
        int row = sqlite_conn_step(c, q, &rc, err), next = 0;
        if (row && end && sqlite3_column_int(q, 0) != EV_DELETE) {   /* the version at `at` */
            memset(out, 0, sizeof *out);
            out->key = bytes_dup(key, key_len);
            out->value = value;
            out->value_len = value_len;
            value = NULL;
            out->create_revision = sqlite3_column_int64(q, 1);
            out->mod_revision = rev;
            out->version = sqlite3_column_int64(q, 2);
            out->lease = sqlite3_column_int64(q, 3);
            if (!out->key || !out->value) {
                store_kv_free(out);
                rc = sqlite_conn_fail_oom(err);
            } else {
                *found = 1;
            }
        } else if (row && !end && sqlite3_column_type(q, 4) != SQLITE_NULL) {
            int64_t prev_rev = sqlite3_column_int64(q, 4), prev_sub = sqlite3_column_int64(q, 5);
            /* Links point strictly back; a row that does not would loop. */
            if (prev_rev > rev || (prev_rev == rev && prev_sub >= sub)) {
                rc = rd_fail(err, RD_ECORRUPT, "store %s: history row (%lld, %lld) links forward", c->path,
                             (long long)rev, (long long)sub);
            } else if (prev_rev <= at) {   /* the linked row is the version at `at`; this row has its value */
                value_len = (size_t)sqlite3_column_bytes(q, 6);
                if (!(value = bytes_dup(sqlite3_column_blob(q, 6), value_len)))
                    rc = sqlite_conn_fail_oom(err);
                end = 1;
            }
            rev = prev_rev;
            sub = prev_sub;
            next = 1;
        }
        sqlite3_reset(q);
        if (!next)
            break;   /* no link (the key began after `at`), or the walk is over */
    }
    free(value);
    return rc;
}

/* One stream of the merge: a statement and the next answer it gives. */
typedef struct {
    sqlite3_stmt *q;
    int done;           /* the statement has no more rows */
    int ready;          /* kv holds the stream's next answer */
    store_kv kv;
    char *last;         /* SQL_GONE: the key whose earliest DELETE was taken */
    size_t last_len;
} past_stream;

/* The next live key that existed at `at`, in kv order. */
static rd_code live_next(sqlite_conn *c, past_stream *s, int64_t at, rd_err *err)
{
    rd_code rc = RD_OK;
    while (!s->ready && rc == RD_OK) {
        if (!sqlite_conn_step(c, s->q, &rc, err)) {
            s->done = 1;
            return rc;
        }
        int64_t create_rev = sqlite3_column_int64(s->q, 2), mod_rev = sqlite3_column_int64(s->q, 3);
        if (create_rev > at)
            continue;   /* a later life; an earlier one, if any, is the other stream's */
        if (mod_rev <= at) {
            if ((rc = sqlite_conn_copy_kv(s->q, 0, &s->kv, err)) == RD_OK)
                s->ready = 1;
            continue;
        }
        rc = past_walk(c, sqlite3_column_blob(s->q, 0), (size_t)sqlite3_column_bytes(s->q, 0), mod_rev,
                       sqlite3_column_int64(s->q, 6), at, &s->kv, &s->ready, err);
    }
    return rc;
}

/* The next key that a DELETE after `at` ended and that existed at `at`. */
static rd_code gone_next(sqlite_conn *c, past_stream *s, int64_t at, rd_err *err)
{
    rd_code rc = RD_OK;
    while (!s->ready && rc == RD_OK) {
        if (!sqlite_conn_step(c, s->q, &rc, err)) {
            s->done = 1;
            return rc;
        }
        const void *key = sqlite3_column_blob(s->q, 0);
        size_t n = (size_t)sqlite3_column_bytes(s->q, 0);
        if (s->last && sqlite_conn_compare_bytes(key, n, s->last, s->last_len) == 0)
            continue;   /* a later DELETE of a key already answered */
        free(s->last);
        if (!(s->last = bytes_dup(key, n)))
            return sqlite_conn_fail_oom(err);
        s->last_len = n;
        rc = past_walk(c, key, n, sqlite3_column_int64(s->q, 1), sqlite3_column_int64(s->q, 2), at,
                       &s->kv, &s->ready, err);
    }
    return rc;
}

rd_code sqlite_past_range(sqlite_conn *c, const char *lo, size_t lo_len, const char *hi, size_t hi_len,
                          size_t limit, int64_t at, store_range_result *out, rd_err *err)
{
    past_stream live = { 0 }, gone = { 0 };
    size_t cap = 0;
    rd_code rc = sqlite_conn_prep(c, SQL_LIVE[hi != NULL], &live.q, err, "bb", lo, lo_len, hi, hi_len);
    if (rc == RD_OK)
        rc = sqlite_conn_prep(c, SQL_GONE[hi != NULL], &gone.q, err, "bb_i", lo, lo_len, hi, hi_len, at);
    while (rc == RD_OK) {
        if (!live.ready && !live.done && (rc = live_next(c, &live, at, err)))
            break;
        if (!gone.ready && !gone.done && (rc = gone_next(c, &gone, at, err)))
            break;
        if (!live.ready && !gone.ready)
            break;
        past_stream *s = !gone.ready ? &live : !live.ready ? &gone
                         : strcmp(live.kv.key, gone.kv.key) <= 0 ? &live : &gone;
        store_kv *slot = sqlite_conn_range_slot(out, &cap, limit, &rc, err);
        if (!slot)
            break;
        *slot = s->kv;
        out->count++;
        s->ready = 0;
    }
    if (live.ready)
        store_kv_free(&live.kv);
    if (gone.ready)
        store_kv_free(&gone.kv);
    free(gone.last);
    if (live.q)
        sqlite3_reset(live.q);
    if (gone.q)
        sqlite3_reset(gone.q);
    return rc;
}

/* ---- events since a revision ---------------------------------------------- */

/* Every history row after ?4 in the key range, in revision order, with the
 * live value of a row that is its key's newest (kv's); an older PUT's value
 * is in the row that replaced it, which comes later in the same answer. */
#define EVENTS(w)                                                                                   \
    "SELECT l.type, l.key, kv.value, l.create_rev, l.rev, l.version, l.lease, l.sub, l.prev_rev,"  \
    " l.prev_sub, l.prev_value FROM kv_log AS l LEFT JOIN kv ON kv.key = l.key AND kv.mod_rev = l.rev" \
    " AND kv.mod_sub = l.sub WHERE l.rev > ?4 AND " w " ORDER BY l.rev, l.sub"
static const char *const SQL_EVENTS[2] = { EVENTS("l.key >= ?1"), EVENTS("l.key >= ?1 AND l.key < ?2") };

typedef struct {
    int64_t sub;
    int waiting;   /* a PUT whose value is in a later row */
} event_row;

rd_code sqlite_past_events(sqlite_conn *c, const char *lo, const char *hi, int64_t after, store_event **events,
                           size_t *count, rd_err *err)
{
    sqlite3_stmt *q = NULL;
    event_row *rows = NULL;
    size_t cap = 0, rows_cap = 0;
    json_t *last = json_object();   /* key -> index of its latest event so far */
    rd_code rc = last ? RD_OK : sqlite_conn_fail_oom(err);
    *events = NULL;
    *count = 0;
    if (rc == RD_OK)
        rc = sqlite_conn_prep(c, SQL_EVENTS[hi != NULL], &q, err, "kk_i", lo, hi, after);
    while (rc == RD_OK && sqlite_conn_step(c, q, &rc, err)) {
        size_t n = *count;
        if (grow_array(events, &cap, n + 1, sizeof **events) != 0 ||
            grow_array(&rows, &rows_cap, n + 1, sizeof *rows) != 0) {
            rc = sqlite_conn_fail_oom(err);
            break;
        }
        store_event *ev = *events + n;
        ev->type = sqlite3_column_int(q, 0) == EV_DELETE ? STORE_EVENT_DELETE : STORE_EVENT_PUT;
        if ((rc = sqlite_conn_copy_kv(q, 1, &ev->kv, err)) != RD_OK)
            break;
        (*count)++;
        rows[n].sub = sqlite3_column_int64(q, 7);
        rows[n].waiting = ev->type == STORE_EVENT_PUT && sqlite3_column_type(q, 2) == SQLITE_NULL;
        /* This row replaced an earlier one of the window: that one's value is here. */
        json_t *at = sqlite3_column_type(q, 8) != SQLITE_NULL ? json_object_get(last, ev->kv.key) : NULL;
        size_t i = at ? (size_t)json_integer_value(at) : 0;
        if (at && rows[i].waiting && (*events)[i].kv.mod_revision == sqlite3_column_int64(q, 8) &&
            rows[i].sub == sqlite3_column_int64(q, 9)) {
            size_t len = (size_t)sqlite3_column_bytes(q, 10);
            char *value = bytes_dup(sqlite3_column_blob(q, 10), len);
            if (!value) {
                rc = sqlite_conn_fail_oom(err);
                break;
            }
            free((*events)[i].kv.value);
            (*events)[i].kv.value = value;
            (*events)[i].kv.value_len = len;
            rows[i].waiting = 0;
        }
        if (json_object_set_new_nocheck(last, ev->kv.key, json_integer((json_int_t)n)) != 0)
            rc = sqlite_conn_fail_oom(err);
    }
    if (q)
        sqlite3_reset(q);
    for (size_t i = 0; i < *count && rc == RD_OK; i++)
        if (rows[i].waiting)
            rc = rd_fail(err, RD_ECORRUPT, "store %s: the value of %s at revision %lld is missing from the history",
                         c->path, (*events)[i].kv.key, (long long)(*events)[i].kv.mod_revision);
    if (rc != RD_OK) {
        store_events_free(*events, *count);
        *events = NULL;
        *count = 0;
    }
    free(rows);
    json_decref(last);
    return rc;
}
