/* store_backend.h - what a store backend provides (internal to core/).
 *
 * store_open.c parses the URL and picks a backend from its registry of
 * these tables by the URL's scheme; store.c forwards every call through the
 * handle's table.  Neither names a backend's functions.  A backend's handle
 * embeds `store_t` as its first member, and its watch handle embeds
 * `store_watch` likewise.
 */
#ifndef RD_STORE_BACKEND_H
#define RD_STORE_BACKEND_H

#include "store.h"

typedef struct store_backend store_backend;

struct store {
    const store_backend *be;
    char *url;
    int in_housekeeping;     /* the compaction policy is running on this handle */
    int compact_due;         /* a write landed on a multiple of STORE_COMPACT_CHECK */
    long owner;              /* the pid that opened it: a forked copy runs nothing at close */
    int unreachable;         /* the last call failed with RD_ESTORE */
};

/* The registration that keeps compaction behind a live watch (store.c):
 * a key under STORE_WATCHERS_PREFIX, under a lease renewed by
 * store_watch_next, naming the oldest revision the watch still needs. */
struct store_watch {
    store_t *st;
    int64_t reg_lease;       /* 0: not registered */
    char reg_key[256];       /* the prefix, the store identity (a name: < 100), '/', 16 hex digits */
    int64_t reg_needed;      /* the revision registered */
    int64_t pos;             /* the oldest revision not yet delivered */
    int64_t reg_renewed_ms;  /* monotonic ms of the last renewal */
    int reg_failed;          /* the store failed: close leaves the lease to expire */
};

struct store_backend {
    const char *name;
    store_caps caps;         /* what callers may count on (store_caps_get) */
    /* location: the URL with any "scheme:" removed for sqlite, whole otherwise */
    rd_code (*open)(const char *location, const store_opts *opts, store_t **out, rd_err *err);
    void (*close)(store_t *st);
    rd_code (*get)(store_t *st, const char *key, store_kv *out, int *found,
                   int64_t *revision, rd_err *err);
    /* Optional: store_get_many then calls get for each key. */
    rd_code (*get_many)(store_t *st, const char *const *keys, size_t n, store_kv *out, int *found,
                        int64_t *revision, rd_err *err);
    rd_code (*range)(store_t *st, const char *prefix, const char *after, size_t limit,
                     int64_t at_rev, store_range_result *out, rd_err *err);
    rd_code (*txn)(store_t *st, const store_cmp *cmps, size_t ncmps,
                   const store_op *success, size_t nsuccess,
                   const store_op *failure, size_t nfailure,
                   store_txn_result *res, rd_err *err);
    rd_code (*lease_grant)(store_t *st, int64_t ttl, int64_t *id, rd_err *err);
    rd_code (*lease_keepalive)(store_t *st, int64_t id, int64_t *ttl_left, rd_err *err);
    rd_code (*lease_revoke)(store_t *st, int64_t id, rd_err *err);
    rd_code (*lease_ttl)(store_t *st, int64_t id, int64_t *ttl_left, int64_t *granted, rd_err *err);
    rd_code (*watch_open)(store_t *st, const char *prefix, int64_t after_rev,
                          store_watch **out, rd_err *err);
    rd_code (*watch_next)(store_watch *w, int timeout_ms, store_event **events,
                          size_t *count, rd_err *err);
    void (*watch_close)(store_watch *w);
    rd_code (*revision)(store_t *st, int64_t *revision, rd_err *err);
    rd_code (*compact)(store_t *st, int64_t revision, rd_err *err);
    /* Optional, NULL when every read is current anyway (SQLite): reads may
     * fall back to a possibly stale view (store_allow_stale_reads), and
     * whether the last read did (store_last_read_stale). */
    void (*allow_stale_reads)(store_t *st, int on);
    int (*last_read_stale)(const store_t *st);
    /* Optional, NULL on stores without users (SQLite): store_identity,
     * store_auth and store_login. */
    const char *(*identity)(const store_t *st);
    rd_code (*auth)(store_t *st, const char *op, const json_t *req, json_t **resp, rd_err *err);
    rd_code (*login)(store_t *st, const char *user, const char *password, rd_err *err);
};

/* The backends, for store_open.c's registry only (store_sqlite.c, store_etcd.c). */
extern const store_backend store_sqlite_backend;
extern const store_backend store_etcd_backend;

/* The compaction policy deletes retry markers (STORE_MARKERS_PREFIX,
 * store.h) idle for STORE_MARKER_IDLE seconds. */
enum { STORE_MARKER_IDLE = 600 };

/* Runs the compaction policy if the policy says it is time (store_compact.c);
 * store_close (store_open.c) calls it when one of the handle's writes
 * landed on a multiple of STORE_COMPACT_CHECK. */
void store_compact_maybe(store_t *st);


#endif
