/* store.c - forwards every store call to the handle's backend.
 *
 * A backend is known here only by the table of its handle (store_backend.h),
 * so the backends can call the helpers here (store_kv_free ...) without a
 * loop.  Opening by URL and closing (which may run the compaction policy,
 * itself a user of these calls) are store_open.c.  Also here, for every
 * backend alike: the registration of live watches that keeps compaction
 * behind them, and the revision-count compaction trigger (marked here, run
 * at close).
 */
#include "rdtime.h"
#include "store_backend.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

enum {
    WATCH_REG_TTL = 60,          /* seconds a dead watcher holds compaction back */
    WATCH_REG_RENEW_MS = 20000   /* renewed when a third of it has passed */
};

/* Remembers whether the store answered the last call: after a failure to
 * reach it, closing a watch does not wait on it again. */
static rd_code seen(store_t *st, rd_code rc)
{
    st->unreachable = rc == RD_ESTORE;
    return rc;
}

const char *store_url(const store_t *st)
{
    return st->url;
}

const store_caps *store_caps_get(const store_t *st)
{
    return &st->be->caps;
}

rd_code store_get(store_t *st, const char *key, store_kv *out, int *found,
                  int64_t *revision, rd_err *err)
{
    return seen(st, st->be->get(st, key, out, found, revision, err));
}

rd_code store_get_many(store_t *st, const char *const *keys, size_t n, store_kv *out, int *found,
                       int64_t *revision, rd_err *err)
{
    if (st->be->get_many)
        return seen(st, st->be->get_many(st, keys, n, out, found, revision, err));
    rd_code rc = RD_OK;
    size_t i = 0;
    for (; i < n && rc == RD_OK; i++)
        rc = store_get(st, keys[i], &out[i], &found[i], revision, err);
    if (rc != RD_OK)
        while (i-- > 0)
            if (found[i])
                store_kv_free(&out[i]);
    return rc;
}

rd_code store_range(store_t *st, const char *prefix, const char *after, size_t limit,
                    int64_t at_rev, store_range_result *out, rd_err *err)
{
    return seen(st, st->be->range(st, prefix, after, limit, at_rev, out, err));
}

rd_code store_scan(store_t *st, const char *prefix, int64_t *revision, store_scan_fn fn, void *data, rd_err *err)
{
    char *after = NULL;
    int64_t at_rev = *revision;
    rd_code rc = RD_OK;
    for (;;) {
        store_range_result res;
        if ((rc = store_range(st, prefix, after, 1000, at_rev, &res, err)) != RD_OK)
            break;
        at_rev = res.revision;
        int stop = 0;
        for (size_t i = 0; i < res.count && !stop; i++)
            stop = fn(&res.kvs[i], data);
        free(after);
        after = res.count ? strdup(res.kvs[res.count - 1].key) : NULL;
        int more = res.more && res.count > 0 && !stop;
        store_range_free(&res);
        if (stop)
            rc = stop;
        if (!more || rc != RD_OK)
            break;
        if (!after) {
            rc = rd_fail(err, RD_ENOMEM, "out of memory");
            break;
        }
    }
    free(after);
    *revision = at_rev;
    return rc;
}

rd_code store_txn(store_t *st, const store_cmp *cmps, size_t ncmps,
                  const store_op *success, size_t nsuccess,
                  const store_op *failure, size_t nfailure,
                  store_txn_result *res, rd_err *err)
{
    store_txn_result local;
    if (!res)
        res = &local;
    rd_code rc = seen(st, st->be->txn(st, cmps, ncmps, success, nsuccess, failure, nfailure, res, err));
    if (rc == RD_OK && (res->succeeded ? nsuccess : nfailure) > 0 && res->revision % STORE_COMPACT_CHECK == 0)
        st->compact_due = 1;
    return rc;
}

rd_code store_put(store_t *st, const char *key, const char *value, size_t value_len,
                  int64_t lease, rd_err *err)
{
    store_op op = { STORE_OP_PUT, key, value, value_len, lease };
    return store_txn(st, NULL, 0, &op, 1, NULL, 0, NULL, err);
}

rd_code store_delete(store_t *st, const char *key, rd_err *err)
{
    store_op op = { STORE_OP_DELETE, key, NULL, 0, 0 };
    return store_txn(st, NULL, 0, &op, 1, NULL, 0, NULL, err);
}

rd_code store_lease_grant(store_t *st, int64_t ttl, int64_t *id, rd_err *err)
{
    if (ttl < 1)
        return rd_fail(err, RD_EINVAL, "lease ttl must be at least 1 second, got %lld", (long long)ttl);
    return seen(st, st->be->lease_grant(st, ttl, id, err));
}

rd_code store_lease_keepalive(store_t *st, int64_t id, int64_t *ttl_left, rd_err *err)
{
    int64_t local;
    return seen(st, st->be->lease_keepalive(st, id, ttl_left ? ttl_left : &local, err));
}

rd_code store_lease_ttl(store_t *st, int64_t id, int64_t *ttl_left, int64_t *granted, rd_err *err)
{
    int64_t local;
    return seen(st, st->be->lease_ttl(st, id, ttl_left, granted ? granted : &local, err));
}

rd_code store_lease_revoke(store_t *st, int64_t id, rd_err *err)
{
    return seen(st, st->be->lease_revoke(st, id, err));
}

/* Writes the watch's registration: the oldest revision it still needs. */
static rd_code watch_reg_put(store_t *st, store_watch *w, int64_t needed, rd_err *err)
{
    json_t *doc = json_pack("{s:I, s:I}", "revision", (json_int_t)needed, "lease", (json_int_t)w->reg_lease);
    char *text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    if (!text)
        return rd_fail(err, RD_ENOMEM, "store: out of memory");
    rd_code rc = store_put(st, w->reg_key, text, strlen(text), w->reg_lease, err);
    free(text);
    if (rc == RD_OK)
        w->reg_needed = needed;
    return rc;
}

/* Registers a new watch under a fresh lease: at STORE_WATCHERS_PREFIX
 * <identity>/<id> when the store knows who this handle is (so an etcd role
 * can be given its own registrations only), else at the prefix's top. */
static rd_code watch_reg_open(store_t *st, store_watch *w, int64_t needed, rd_err *err)
{
    uint64_t id = 0;
    const char *who = store_identity(st);
    if (getrandom(&id, sizeof id, 0) != (ssize_t)sizeof id)
        id = (uint64_t)rdtime_mono_ms() * 2654435761u ^ (uint64_t)(uintptr_t)w;
    int n = snprintf(w->reg_key, sizeof w->reg_key, STORE_WATCHERS_PREFIX "%s%s%016llx", who ? who : "",
                     who ? "/" : "", (unsigned long long)id);
    rd_code rc = n < 0 || (size_t)n >= sizeof w->reg_key
                     ? rd_fail(err, RD_EINVAL, "store watch: user name '%s' is too long to register a watch", who)
                     : store_lease_grant(st, WATCH_REG_TTL, &w->reg_lease, err);
    if (rc == RD_OK && (rc = watch_reg_put(st, w, needed, err)) != RD_OK) {
        rd_err ignored;
        store_lease_revoke(st, w->reg_lease, &ignored);
    }
    if (rc != RD_OK)
        w->reg_lease = 0;
    w->reg_renewed_ms = rdtime_mono_ms();
    return rc;
}

/* Keeps the registration alive and moves it up to what was delivered. */
static rd_code watch_reg_renew(store_watch *w, rd_err *err)
{
    int64_t now = rdtime_mono_ms();
    if (now - w->reg_renewed_ms < WATCH_REG_RENEW_MS)
        return RD_OK;
    w->reg_renewed_ms = now;
    rd_code rc = store_lease_keepalive(w->st, w->reg_lease, NULL, err);
    if (rc == RD_ENOTFOUND)   /* expired while we were stopped: register anew */
        return watch_reg_open(w->st, w, w->pos, err);
    if (rc == RD_OK && w->pos > w->reg_needed)
        rc = watch_reg_put(w->st, w, w->pos, err);
    return rc;
}

rd_code store_watch_open(store_t *st, const char *prefix, int64_t after_rev,
                         store_watch **out, rd_err *err)
{
    store_watch reg = { 0 };
    int64_t from = after_rev;
    *out = NULL;
    if (after_rev < 0)
        return rd_fail(err, RD_EINVAL, "store watch: revision %lld is negative", (long long)after_rev);
    /* Registered before the watch starts, at a revision no later than the
     * one it will start from, so no compaction can slip in between. */
    rd_code rc = after_rev ? RD_OK : store_revision(st, &from, err);
    if (rc == RD_OK)
        rc = watch_reg_open(st, &reg, from + 1, err);
    if (rc == RD_OK)
        rc = st->be->watch_open(st, prefix, after_rev, out, err);
    if (rc != RD_OK) {
        rd_err ignored;
        if (reg.reg_lease)
            store_lease_revoke(st, reg.reg_lease, &ignored);
        return rc;
    }
    store_watch *w = *out;
    w->st = st;
    w->reg_lease = reg.reg_lease;
    memcpy(w->reg_key, reg.reg_key, sizeof w->reg_key);
    w->reg_needed = reg.reg_needed;
    w->reg_renewed_ms = reg.reg_renewed_ms;
    w->pos = from + 1;
    return RD_OK;
}

rd_code store_watch_next(store_watch *w, int timeout_ms, store_event **events,
                         size_t *count, rd_err *err)
{
    *events = NULL;
    *count = 0;
    rd_code rc = w->st->be->watch_next(w, timeout_ms, events, count, err);
    if (rc == RD_OK && *count && (*events)[*count - 1].kv.mod_revision + 1 > w->pos)
        w->pos = (*events)[*count - 1].kv.mod_revision + 1;
    if (rc == RD_OK && (rc = watch_reg_renew(w, err)) != RD_OK) {
        store_events_free(*events, *count);
        *events = NULL;
        *count = 0;
    }
    if (rc == RD_ESTORE)
        w->reg_failed = 1;
    else
        seen(w->st, rc);
    return rc;
}

void store_watch_close(store_watch *w)
{
    if (!w)
        return;
    store_t *st = w->st;
    int64_t lease = w->reg_failed || st->unreachable ? 0 : w->reg_lease;
    st->be->watch_close(w);
    /* Drops the registration now rather than at expiry; not once the store
     * failed to answer (the watch or the handle's last call), when close
     * must not hang: the lease then expires by itself.  A watch refused for
     * a compacted revision is revoked. */
    if (lease) {
        rd_err ignored;
        store_lease_revoke(st, lease, &ignored);
    }
}

/* Appends src to *dst (taking its events); 0 when out of memory. */
static int events_append(store_event **dst, size_t *n, store_event *src, size_t m)
{
    if (m == 0) {   /* a poll that brought nothing wanted (or nothing yet) */
        free(src);
        return 1;
    }
    store_event *p = realloc(*dst, (*n + m) * sizeof *p);
    if (!p)
        return 0;
    memcpy(p + *n, src, m * sizeof *p);
    *dst = p;
    *n += m;
    free(src);
    return 1;
}

rd_code store_history(store_t *st, int64_t after_rev, int64_t upto_rev, size_t max, int timeout_ms,
                      store_event **events, size_t *count, int *more, rd_err *err)
{
    store_watch *w = NULL;
    int64_t seen_rev = after_rev;
    int waited = 0;
    *events = NULL;
    *count = 0;
    *more = 0;
    if (after_rev < 0 || upto_rev < after_rev)
        return rd_fail(err, RD_EINVAL, "store history: revisions %lld..%lld are out of order", (long long)after_rev,
                       (long long)upto_rev);
    if (upto_rev == after_rev)
        return RD_OK;
    /* No registration: the read is over before a compaction would matter,
     * and one that happens anyway only makes the read fail.  The whole key
     * space, so that every revision has events. */
    rd_code rc = seen(st, st->be->watch_open(st, "", after_rev, &w, err));
    if (rc == RD_OK)
        w->st = st;
    /* Every event of one revision arrives in one batch (etcd never splits a
     * revision between watch responses), so once the last wanted revision
     * is seen, everything up to it is here. */
    while (rc == RD_OK && seen_rev < upto_rev && !*more) {
        store_event *ev = NULL;
        size_t n = 0, keep = 0;
        int slice = timeout_ms - waited < 100 ? timeout_ms - waited : 100;
        if (slice <= 0) {
            rc = rd_fail(err, RD_ECONFLICT, "store history: revisions up to %lld did not arrive in %d ms",
                         (long long)upto_rev, timeout_ms);
            break;
        }
        rc = seen(st, st->be->watch_next(w, slice, &ev, &n, err));
        waited += n ? 0 : slice;
        while (keep < n && ev[keep].kv.mod_revision <= upto_rev)
            keep++;
        if (n)
            seen_rev = ev[n - 1].kv.mod_revision;
        for (size_t i = keep; i < n; i++)   /* past upto_rev: not wanted */
            store_kv_free(&ev[i].kv);
        if (rc == RD_OK && *count + keep > max) {
            *more = 1;
            store_events_free(ev, keep);
        } else if (rc != RD_OK || !events_append(events, count, ev, keep)) {
            store_events_free(ev, keep);
            if (rc == RD_OK)
                rc = rd_fail(err, RD_ENOMEM, "out of memory");
        }
    }
    if (w)
        st->be->watch_close(w);
    if (rc != RD_OK || *more) {
        store_events_free(*events, *count);
        *events = NULL;
        *count = 0;
    }
    return rc;
}

rd_code store_revision(store_t *st, int64_t *revision, rd_err *err)
{
    return seen(st, st->be->revision(st, revision, err));
}

rd_code store_compact(store_t *st, int64_t revision, rd_err *err)
{
    return seen(st, st->be->compact(st, revision, err));
}

/* Optional in the table: a backend whose reads are always current (SQLite)
 * leaves both NULL, and then this is a no-op and no read is stale. */
void store_allow_stale_reads(store_t *st, int on)
{
    if (st && st->be->allow_stale_reads)
        st->be->allow_stale_reads(st, on);
}

const char *store_identity(const store_t *st)
{
    return st && st->be->identity ? st->be->identity(st) : NULL;
}

rd_code store_auth(store_t *st, const char *op, const json_t *req, json_t **resp, rd_err *err)
{
    if (resp)
        *resp = NULL;
    if (!st->be->auth)
        return rd_fail(err, RD_EINVAL, "the %s store has no users: its file's permissions are the only boundary",
                       st->be->name);
    return st->be->auth(st, op, req, resp, err);
}

rd_code store_login(store_t *st, const char *user, const char *password, rd_err *err)
{
    if (!st->be->login)
        return rd_fail(err, RD_EINVAL, "the %s store has no users", st->be->name);
    return st->be->login(st, user, password, err);
}

int store_last_read_stale(const store_t *st)
{
    return st && st->be->last_read_stale ? st->be->last_read_stale(st) : 0;
}

void store_kv_free(store_kv *kv)
{
    if (!kv)
        return;
    free(kv->key);
    free(kv->value);
    memset(kv, 0, sizeof *kv);
}

void store_range_free(store_range_result *res)
{
    if (!res)
        return;
    for (size_t i = 0; i < res->count; i++)
        store_kv_free(&res->kvs[i]);
    free(res->kvs);
    memset(res, 0, sizeof *res);
}

void store_events_free(store_event *events, size_t count)
{
    for (size_t i = 0; i < count; i++)
        store_kv_free(&events[i].kv);
    free(events);
}

char *store_prefix_end(const char *prefix)
{
    size_t n = strlen(prefix);
    char *end = malloc(n + 1);
    if (!end)
        return NULL;
    memcpy(end, prefix, n + 1);
    while (n > 0) {
        unsigned char c = (unsigned char)end[n - 1];
        if (c < 0xff) {
            end[n - 1] = (char)(c + 1);
            end[n] = '\0';
            return end;
        }
        n--;
    }
    free(end);
    return NULL;
}
