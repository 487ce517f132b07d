/* store_compact.c - the compaction policy: how much history a store keeps.
 *
 * Owns STORE_COMPACTION_KEY (the saved policy, the last compaction and a
 * few (revision, unix time) samples) and the reading of the watch
 * registrations under STORE_WATCHERS_PREFIX (written by store.c).  History
 * is forgotten up to min(revision - keep_revisions + 1, the newest revision
 * sampled at least keep_seconds ago, the oldest revision a live watch
 * needs).  The store has no clock of revisions, so the policy builds one:
 * every run samples (current revision, now); a revision is "an hour old"
 * once a sample taken an hour ago is at or after it.  Until then nothing is
 * compacted by time, which errs on keeping history.
 *
 * Who runs it: `store compact` (operators, cron), and every writing process
 * through store_compact_maybe(), which store_close calls when one of the
 * handle's writes landed on a multiple of STORE_COMPACT_CHECK revisions: two
 * reads, and a run when the policy's `every` revisions have passed since
 * the last one.  At close, not in the middle of a command: the run's own
 * writes never show up between a caller's txn and its next read.  Both backends
 * implement store_compact itself; this file is backend-neutral.
 *
 * Runs also delete the etcd backend's retry markers (STORE_MARKERS_PREFIX,
 * one per writing handle, kept without a lease so that a process costs no
 * revision at exit) once a sample shows them idle for STORE_MARKER_IDLE:
 * one revision per 64 markers instead of one per process.
 */
#include "doc.h"
#include "store_backend.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_SAMPLES = 64, RUN_TRIES = 3, MARKER_BATCH = 64 };

static const store_retention defaults = { STORE_KEEP_REVISIONS, STORE_KEEP_SECONDS, STORE_COMPACT_EVERY };

/* The saved state (a new object; empty when there is none) and its key's
 * mod_revision (0: missing). */
static rd_code state_read(store_t *st, json_t **state, int64_t *mod_rev, rd_err *err)
{
    store_kv kv;
    int found = 0;
    rd_code rc = store_get(st, STORE_COMPACTION_KEY, &kv, &found, NULL, err);
    if (rc)
        return rc;
    *mod_rev = found ? kv.mod_revision : 0;
    *state = found ? json_loadb(kv.value, kv.value_len, 0, NULL) : NULL;
    store_kv_free(&kv);
    if (!json_is_object(*state)) {
        json_decref(*state);
        *state = json_object();
    }
    return *state ? RD_OK : rd_fail(err, RD_ENOMEM, "store: out of memory");
}

static store_retention state_policy(const json_t *state)
{
    store_retention p = {
        doc_int_or(state, "keep_revisions", defaults.keep_revisions),
        doc_int_or(state, "keep_seconds", defaults.keep_seconds),
        doc_int_or(state, "every", defaults.every),
    };
    return p;
}

typedef struct {
    int64_t oldest, count;
} watch_need;

static int watcher_one(store_kv *kv, void *data)
{
    watch_need *w = data;
    json_t *doc = json_loadb(kv->value, kv->value_len, 0, NULL);
    /* A registration that cannot be read still holds compaction back: to
     * the revision it was written at, which it surely needed. */
    int64_t need = doc_int_or(doc, "revision", kv->create_revision);
    json_decref(doc);
    if (need < 1)
        need = 1;
    if (!w->oldest || need < w->oldest)
        w->oldest = need;
    w->count++;
    return 0;
}

/* The oldest revision a registered watch needs (0: none) and how many there are. */
static rd_code watchers_scan(store_t *st, int64_t *oldest, int64_t *count, int64_t *rev, rd_err *err)
{
    watch_need w = { 0, 0 };
    *rev = 0;
    rd_code rc = store_scan(st, STORE_WATCHERS_PREFIX, rev, watcher_one, &w, err);
    *oldest = w.oldest;
    *count = w.count;
    return rc;
}

/* The newest sampled revision at least keep_seconds old (0: none yet). */
static int64_t samples_bound(const json_t *samples, int64_t now, int64_t keep_seconds)
{
    int64_t best = 0;
    for (size_t i = 0; i < json_array_size(samples); i++) {
        const json_t *s = json_array_get(samples, i);
        int64_t rev = json_integer_value(json_array_get(s, 0)), at = json_integer_value(json_array_get(s, 1));
        if (at <= now - keep_seconds && rev > best)
            best = rev;
    }
    return best;
}

/* The samples to keep: the one that bounds by time now (older ones can
 * never matter again), the younger ones, and (rev, now); at most
 * MAX_SAMPLES, dropping the oldest (which only makes the bound later). */
static json_t *samples_next(const json_t *samples, int64_t rev, int64_t now, int64_t keep_seconds)
{
    int64_t bound = samples_bound(samples, now, keep_seconds);
    json_t *out = json_array();
    for (size_t i = 0; out && i < json_array_size(samples); i++) {
        json_t *s = json_array_get(samples, i);
        int64_t srev = json_integer_value(json_array_get(s, 0));
        if (srev >= bound && srev < rev)
            json_array_append(out, s);
    }
    if (out)
        json_array_append_new(out, json_pack("[I, I]", (json_int_t)rev, (json_int_t)now));
    while (json_array_size(out) > MAX_SAMPLES)
        json_array_remove(out, 0);
    return out;
}


/* Deletes retry markers last written at or before revision bound, 64 to a
 * txn, each guarded by the mod_revision seen so that a marker written again
 * meanwhile stays (then its whole batch waits for the next run). */
static rd_code markers_delete(store_t *st, int64_t bound, int64_t *deleted, rd_err *err)
{
    store_range_result res;
    char *after = NULL;
    rd_code rc = RD_OK;
    *deleted = 0;
    if (bound < 1)
        return RD_OK;
    for (;;) {
        store_cmp cmps[MARKER_BATCH];
        store_op ops[MARKER_BATCH];
        size_t n = 0;
        if ((rc = store_range(st, STORE_MARKERS_PREFIX, after, MARKER_BATCH, 0, &res, err)) != RD_OK)
            break;
        for (size_t i = 0; i < res.count; i++) {
            if (res.kvs[i].mod_revision > bound)
                continue;
            store_cmp c = { res.kvs[i].key, STORE_CMP_MOD_REVISION, STORE_CMP_EQUAL, res.kvs[i].mod_revision, NULL, 0 };
            store_op o = { STORE_OP_DELETE, res.kvs[i].key, NULL, 0, 0 };
            cmps[n] = c;
            ops[n++] = o;
        }
        store_txn_result tr = { 0, 0 };
        if (n && (rc = store_txn(st, cmps, n, ops, n, NULL, 0, &tr, err)) == RD_OK && tr.succeeded)
            *deleted += (int64_t)n;
        free(after);
        after = res.count ? strdup(res.kvs[res.count - 1].key) : NULL;
        int more = res.more && res.count;
        store_range_free(&res);
        if (rc == RD_OK && more && !after)   /* not from the first marker again */
            rc = rd_fail(err, RD_ENOMEM, "out of memory");
        if (rc != RD_OK || !more)
            break;
    }
    free(after);
    return rc;
}

/* 1 when revision can no longer be read: someone compacted further than
 * this policy (any etcd user may run `etcdctl compaction`, whatever
 * rigdeck's watchers registered).  Compacting to it again would be
 * refused, run after run, until the policy caught up: taken as done. */
static int gone_already(store_t *st, int64_t revision)
{
    store_range_result r = { 0 };
    rd_err err = { 0 };
    rd_code rc = store_range(st, STORE_COMPACTION_KEY, NULL, 1, revision, &r, &err);
    if (rc == RD_OK)
        store_range_free(&r);
    return rc == RD_EINVAL && strstr(err.msg, "compacted") != NULL;
}

static rd_code run_once(store_t *st, const store_retention *override, int64_t now,
                        store_compact_report *out, rd_err *err)
{
    json_t *state = NULL;
    int64_t mod_rev = 0;
    rd_code rc = state_read(st, &state, &mod_rev, err);
    if (rc)
        return rc;
    memset(out, 0, sizeof *out);
    store_retention p = state_policy(state);
    if (override && override->keep_revisions >= 0)
        p.keep_revisions = override->keep_revisions;
    if (override && override->keep_seconds >= 0)
        p.keep_seconds = override->keep_seconds;
    if (override && override->every >= 0)
        p.every = override->every;
    if (p.keep_revisions < 1)
        p.keep_revisions = 1;
    out->policy = p;
    out->previous = doc_int_or(state, "compacted", 0);
    if ((rc = watchers_scan(st, &out->oldest_watch, &out->watchers, &out->revision, err)) != RD_OK) {
        json_decref(state);
        return rc;
    }
    int64_t r = out->revision;
    json_t *samples = json_object_get(state, "samples");
    out->by_count = r - p.keep_revisions + 1;
    out->by_time = p.keep_seconds ? samples_bound(samples, now, p.keep_seconds) : r;
    int64_t marker_bound = samples_bound(samples, now, STORE_MARKER_IDLE);
    int64_t target = out->by_count < out->by_time ? out->by_count : out->by_time;
    if (out->oldest_watch && out->oldest_watch < target)
        target = out->oldest_watch;
    out->compacted = target > out->previous ? target : out->previous;

    /* Save first, compact second: a run that stops in between has only
     * recorded a compaction that the next run repeats (compacting to the
     * same revision again is allowed). */
    json_t *next = json_pack("{s:I, s:I, s:I, s:I, s:o}", "keep_revisions", (json_int_t)p.keep_revisions,
                             "keep_seconds", (json_int_t)p.keep_seconds, "every", (json_int_t)p.every,
                             "compacted", (json_int_t)out->compacted, "samples",
                             samples_next(samples, r, now, p.keep_seconds));
    json_decref(state);
    char *text = next ? json_dumps(next, JSON_COMPACT) : NULL;
    json_decref(next);
    if (!text)
        return rd_fail(err, RD_ENOMEM, "store: out of memory");
    store_cmp guard = { STORE_COMPACTION_KEY, STORE_CMP_MOD_REVISION, STORE_CMP_EQUAL, mod_rev, NULL, 0 };
    store_op put = { STORE_OP_PUT, STORE_COMPACTION_KEY, text, strlen(text), 0 };
    store_txn_result res;
    rc = store_txn(st, &guard, 1, &put, 1, NULL, 0, &res, err);
    free(text);
    if (rc == RD_OK && !res.succeeded)
        rc = rd_fail(err, RD_ECONFLICT, "store compact: another compaction ran at the same time; try again");
    if (rc == RD_OK && out->compacted > out->previous && gone_already(st, out->compacted))
        out->by_others = 1;
    else if (rc == RD_OK && out->compacted > out->previous)
        rc = store_compact(st, out->compacted, err);
    if (rc == RD_OK)
        rc = markers_delete(st, marker_bound, &out->markers_deleted, err);
    return rc;
}

rd_code store_compact_run(store_t *st, const store_retention *override, int64_t now,
                          store_compact_report *out, rd_err *err)
{
    rd_code rc;
    int was = st->in_housekeeping;
    st->in_housekeeping = 1;   /* its own writes must not trigger another run */
    for (int i = 0; i < RUN_TRIES; i++)
        if ((rc = run_once(st, override, now, out, err)) != RD_ECONFLICT)
            break;
    st->in_housekeeping = was;
    return rc;
}

/* Automatic runs happen as the store's own physical time passes, like lease
 * expiry, not on the injected business clock (which may be --now). */
static int64_t unix_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec;
}

void store_compact_maybe(store_t *st)
{
    json_t *state = NULL;
    int64_t mod_rev = 0, revision = 0;
    rd_err err;
    if (st->in_housekeeping)
        return;
    st->in_housekeeping = 1;
    if (store_revision(st, &revision, &err) == RD_OK && state_read(st, &state, &mod_rev, &err) == RD_OK) {
        store_retention p = state_policy(state);
        const json_t *samples = json_object_get(state, "samples");
        const json_t *last = json_array_get(samples, json_array_size(samples) - 1);
        int64_t last_rev = last ? (int64_t)json_integer_value(json_array_get(last, 0)) : 0;
        store_compact_report rep;
        /* Best effort: a failed run leaves history longer, never wrong. */
        if (p.every > 0 && revision - last_rev >= p.every)
            store_compact_run(st, NULL, unix_now(), &rep, &err);
    }
    json_decref(state);
    st->in_housekeeping = 0;
}
