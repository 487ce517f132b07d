/* store.c - opens a store by URL and forwards calls to its backend.
 *
 * The URL grammar lives here and nowhere else: "sqlite:PATH" or a bare PATH
 * selects the embedded SQLite backend; "etcd://" and "etcds://" the etcd
 * backend (store_etcd.c), which is handed the whole URL.
 */
#include "store_backend.h"

#include <stdlib.h>
#include <string.h>

static int has_prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

rd_code store_open(const char *url, const store_opts *opts, store_t **out, rd_err *err)
{
    const store_backend *be = NULL;
    const char *location = url;

    *out = NULL;
    if (!url || !*url)
        return rd_fail(err, RD_EUSAGE, "store: the store URL is empty");
    if (has_prefix(url, "etcd://") || has_prefix(url, "etcds://"))
        be = &store_etcd_backend;
    else if (has_prefix(url, "sqlite:"))
        location = url + strlen("sqlite:");
    else if (strstr(url, "://"))
        return rd_fail(err, RD_EUSAGE, "store %s: unknown scheme (use sqlite:PATH, a path, etcd:// or etcds://)", url);
    if (!be)
        be = &store_sqlite_backend;
    if (!*location)
        return rd_fail(err, RD_EUSAGE, "store %s: the path is empty", url);

    store_t *st = NULL;
    rd_code rc = be->open(location, opts, &st, err);
    if (rc != RD_OK)
        return rc;
    st->be = be;
    st->url = strdup(url);
    if (!st->url) {
        be->close(st);
        return rd_fail(err, RD_ENOMEM, "store: out of memory");
    }
    *out = st;
    return RD_OK;
}

void store_close(store_t *st)
{
    if (!st)
        return;
    char *url = st->url;
    st->be->close(st);
    free(url);
}

const char *store_url(const store_t *st)
{
    return st->url;
}

rd_code store_get(store_t *st, const char *key, store_kv *out, int *found,
                  int64_t *revision, rd_err *err)
{
    return st->be->get(st, key, out, found, revision, err);
}

rd_code store_range(store_t *st, const char *prefix, const char *after, size_t limit,
                    int64_t at_rev, store_range_result *out, rd_err *err)
{
    return st->be->range(st, prefix, after, limit, at_rev, out, err);
}

rd_code store_txn(store_t *st, const store_cmp *cmps, size_t ncmps,
                  const store_op *success, size_t nsuccess,
                  const store_op *failure, size_t nfailure,
                  store_txn_result *res, rd_err *err)
{
    store_txn_result local;
    return st->be->txn(st, cmps, ncmps, success, nsuccess, failure, nfailure,
                       res ? res : &local, err);
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
    return st->be->lease_grant(st, ttl, id, err);
}

rd_code store_lease_keepalive(store_t *st, int64_t id, int64_t *ttl_left, rd_err *err)
{
    int64_t local;
    return st->be->lease_keepalive(st, id, ttl_left ? ttl_left : &local, err);
}

rd_code store_lease_revoke(store_t *st, int64_t id, rd_err *err)
{
    return st->be->lease_revoke(st, id, err);
}

rd_code store_watch_open(store_t *st, const char *prefix, int64_t after_rev,
                         store_watch **out, rd_err *err)
{
    rd_code rc = st->be->watch_open(st, prefix, after_rev, out, err);
    if (rc == RD_OK)
        (*out)->st = st;
    return rc;
}

rd_code store_watch_next(store_watch *w, int timeout_ms, store_event **events,
                         size_t *count, rd_err *err)
{
    *events = NULL;
    *count = 0;
    return w->st->be->watch_next(w, timeout_ms, events, count, err);
}

void store_watch_close(store_watch *w)
{
    if (w)
        w->st->be->watch_close(w);
}

rd_code store_revision(store_t *st, int64_t *revision, rd_err *err)
{
    return st->be->revision(st, revision, err);
}

rd_code store_compact(store_t *st, int64_t revision, rd_err *err)
{
    return st->be->compact(st, revision, err);
}

void store_allow_stale_reads(store_t *st, int on)
{
    store_etcd_set_serializable_fallback(st, on);   /* checks the backend itself */
}

int store_last_read_stale(const store_t *st)
{
    return store_etcd_last_read_stale(st);
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
