/* store.h - the store contract: etcd v3 semantics on every backend.
 *
 * A flat, ordered key space.  Keys are NUL-free byte strings (C strings);
 * values are byte buffers (always NUL-terminated in results for convenience,
 * but may contain NULs; use value_len).  Every successful write bumps one
 * store-wide revision: a txn that changes several keys creates exactly one
 * new revision, and every key it writes gets that revision as mod_revision.
 * Each key carries create_revision, mod_revision, version (1 on create, +1
 * per put, reset by delete) and an optional lease.  Keys attached to a lease
 * vanish (a DELETE event at a new revision) once the lease expires.
 *
 * Backends: "sqlite:PATH" or a bare PATH (store_sqlite.c); later "etcd://"
 * and "etcds://" (store_etcd.c).  All of them must pass tests/conformance.
 *
 * Every function returns RD_OK or an error code with a message in err.
 * RD_ESTORE means the store could not be reached, opened or written.
 * Results allocated by the store are freed with the matching *_free call.
 */
#ifndef RD_STORE_H
#define RD_STORE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

typedef struct store store_t;

typedef struct {
    char *key;
    char *value;             /* NUL-terminated copy; value_len excludes the NUL */
    size_t value_len;
    int64_t create_revision;
    int64_t mod_revision;
    int64_t version;
    int64_t lease;           /* 0: none */
} store_kv;

/* ---- opening ---------------------------------------------------------- */

/* Options that only some backends use (TLS for etcds://).  May be NULL. */
typedef struct {
    const char *cacert;
    const char *cert;
    const char *key;
    const char *user;           /* etcd authentication: the user name ... */
    const char *password_file;  /* ... and a file (mode 0600) holding its password */
    int cache_kib;              /* SQLite: the connection's page cache in KiB; 0: the default (128 MiB).
                                 * The console, which reads each page once, asks for less */
} store_opts;

/* Opens the store named by url, creating an embedded store if missing. */
rd_code store_open(const char *url, const store_opts *opts, store_t **out, rd_err *err);

/* Opening an SQLite file written by an older rigdeck upgrades it in place,
 * once; on a large fleet that takes seconds, so the front end is told
 * before (done 0) and after (done 1, with the time it took) and can say
 * why the open is slow.  Process-wide; fn NULL: nobody is told. */
typedef void (*store_notice_fn)(void *data, int done, const char *msg);
void store_set_notice(store_notice_fn fn, void *data);

/* Tells the front end's store_notice_fn, if any (store_notice.c): the
 * schema upgrade of a file, and the one-time upgrades of documents the
 * executor makes before a store's first write (cmd_ctx_upgrade). */
void store_notice(int done, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Closes the store and frees it; NULL is fine. */
void store_close(store_t *st);

/* The URL the store was opened with, for display.  Callers never pick
 * behaviour by its scheme: they ask store_caps_get. */
const char *store_url(const store_t *st);

/* What a backend can and cannot do, declared once in its table
 * (store_backend.h) so that callers ask instead of reading the URL. */
typedef struct {
    size_t txn_ops_max;   /* most ops one store_txn branch may carry (also the most compares);
                           * 0: no limit.  rigdeck's own retry guard may take a few (store_etcd.c) */
    int authenticates;    /* users, roles and passwords (store_auth, store_login): `store secure` works */
    int shared;           /* a network service other machines reach: a cloud instance's agent can use it */
} store_caps;

/* The capabilities of st's backend; never NULL for an open store. */
const store_caps *store_caps_get(const store_t *st);

/* ---- reads ------------------------------------------------------------ */

/* Reads one key at the current revision. *found is 0 when it is missing
 * (then out is zeroed).  *revision (may be NULL) receives the store revision
 * the read saw. */
rd_code store_get(store_t *st, const char *key, store_kv *out, int *found,
                  int64_t *revision, rd_err *err);

/* Reads n keys as store_get would each (out[i], found[i]); on etcd in one
 * request per 128 keys, on SQLite in one read transaction.  *revision (may be NULL): the revision the last
 * request saw.  On failure nothing is left to free. */
rd_code store_get_many(store_t *st, const char *const *keys, size_t n, store_kv *out, int *found,
                       int64_t *revision, rd_err *err);

typedef struct {
    store_kv *kvs;
    size_t count;
    int more;                /* 1: more keys follow; ask again with after = last key */
    int64_t revision;        /* the revision this page was read at */
} store_range_result;

/* Lists keys starting with prefix in key order, after the key `after` (NULL:
 * from the start), at most limit of them (0: no limit), as of revision
 * at_rev (0: current).  Paging with the returned revision as at_rev gives a
 * consistent view.  A revision that has been compacted away is RD_EINVAL. */
rd_code store_range(store_t *st, const char *prefix, const char *after, size_t limit,
                    int64_t at_rev, store_range_result *out, rd_err *err);

/* Calls fn for every key under prefix, in key order, paging through
 * store_range at one revision: *revision in is the revision to read at (0:
 * current), out the revision read.  fn returns 0 to go on; anything else
 * stops the scan and is returned.  fn may keep kv->value (malloc'ed,
 * NUL-terminated) by setting it to NULL: a reader that keeps most values
 * (the scheduler's queue) then copies none. */
typedef int (*store_scan_fn)(store_kv *kv, void *data);
rd_code store_scan(store_t *st, const char *prefix, int64_t *revision, store_scan_fn fn, void *data, rd_err *err);

/* Frees a store_kv's strings and zeroes it. */
void store_kv_free(store_kv *kv);

/* Frees a range result's contents and zeroes it. */
void store_range_free(store_range_result *res);

/* ---- transactions ----------------------------------------------------- */

typedef enum {
    STORE_CMP_VALUE,
    STORE_CMP_VERSION,
    STORE_CMP_MOD_REVISION,
    STORE_CMP_CREATE_REVISION
} store_cmp_target;

typedef enum { STORE_CMP_EQUAL, STORE_CMP_NOT_EQUAL, STORE_CMP_LESS, STORE_CMP_GREATER } store_cmp_op;

/* A compare against one key.  A missing key has version, mod_revision and
 * create_revision 0; a VALUE compare against a missing key is false. */
typedef struct {
    const char *key;
    store_cmp_target target;
    store_cmp_op op;
    int64_t number;          /* for VERSION, MOD_REVISION, CREATE_REVISION */
    const char *value;       /* for VALUE */
    size_t value_len;
} store_cmp;

typedef enum { STORE_OP_PUT, STORE_OP_DELETE, STORE_OP_DELETE_PREFIX } store_op_kind;

typedef struct {
    store_op_kind kind;
    const char *key;         /* DELETE_PREFIX: every key starting with key */
    const char *value;       /* PUT only */
    size_t value_len;
    int64_t lease;           /* PUT only; 0: none */
} store_op;

typedef struct {
    int succeeded;           /* 1: all compares held and success ops ran */
    int64_t revision;        /* store revision after the txn */
} store_txn_result;

/* Atomically: if every compare holds, apply success ops, else failure ops.
 * A txn whose applied op list is empty (or changes nothing) does not create a
 * revision.  Putting with a lease that does not exist is RD_EINVAL. */
rd_code store_txn(store_t *st, const store_cmp *cmps, size_t ncmps,
                  const store_op *success, size_t nsuccess,
                  const store_op *failure, size_t nfailure,
                  store_txn_result *res, rd_err *err);

/* Convenience: one unconditional put. */
rd_code store_put(store_t *st, const char *key, const char *value, size_t value_len,
                  int64_t lease, rd_err *err);

/* Convenience: one unconditional delete; deleting a missing key is fine. */
rd_code store_delete(store_t *st, const char *key, rd_err *err);

/* ---- leases ----------------------------------------------------------- */

/* Grants a lease of ttl seconds (>= 1); *id receives its nonzero id. */
rd_code store_lease_grant(store_t *st, int64_t ttl, int64_t *id, rd_err *err);

/* Renews a lease to its full TTL; *ttl_left (may be NULL) gets the TTL.
 * An expired or unknown lease is RD_ENOTFOUND. */
rd_code store_lease_keepalive(store_t *st, int64_t id, int64_t *ttl_left, rd_err *err);

/* How long a lease has left without renewal: *ttl_left (whole seconds,
 * rounded up) and *granted (its TTL as granted; may be NULL).  Reads only:
 * no revision.  An expired or unknown lease is RD_ENOTFOUND. */
rd_code store_lease_ttl(store_t *st, int64_t id, int64_t *ttl_left, int64_t *granted, rd_err *err);

/* Revokes a lease, deleting its keys at one new revision.
 * An unknown lease is RD_ENOTFOUND. */
rd_code store_lease_revoke(store_t *st, int64_t id, rd_err *err);

/* ---- watch ------------------------------------------------------------ */

typedef enum { STORE_EVENT_PUT, STORE_EVENT_DELETE } store_event_type;

typedef struct {
    store_event_type type;
    store_kv kv;             /* DELETE: key and mod_revision (the delete's revision) */
} store_event;

typedef struct store_watch store_watch;

/* Starts watching keys with prefix for events at revisions > after_rev
 * (0: from now on).  A compacted after_rev is RD_EINVAL. */
rd_code store_watch_open(store_t *st, const char *prefix, int64_t after_rev,
                         store_watch **out, rd_err *err);

/* Waits up to timeout_ms for events; fills *events (caller frees with
 * store_events_free) and *count (0 on timeout).  Events arrive in revision
 * order, each exactly once. */
rd_code store_watch_next(store_watch *w, int timeout_ms, store_event **events,
                         size_t *count, rd_err *err);

/* Stops a watch; NULL is fine. */
void store_watch_close(store_watch *w);

/* Frees an event array returned by store_watch_next. */
void store_events_free(store_event *events, size_t count);

/* A one-off read of history: every event of revisions (after_rev,
 * upto_rev], in revision order, without registering a watch.  More than max
 * events (*count = 0, *more = 1) or history that is no longer there
 * (compacted: RD_EINVAL) tell the caller to read the state instead; a
 * backend gets at most timeout_ms to deliver them (else RD_ECONFLICT). */
rd_code store_history(store_t *st, int64_t after_rev, int64_t upto_rev, size_t max, int timeout_ms,
                      store_event **events, size_t *count, int *more, rd_err *err);

/* ---- housekeeping ----------------------------------------------------- */

/* The current store revision. */
rd_code store_revision(store_t *st, int64_t *revision, rd_err *err);

/* Forgets history at revisions < revision: reads and watches below it are
 * refused afterwards.  Current values are never lost. */
rd_code store_compact(store_t *st, int64_t revision, rd_err *err);

/* Live watches register, under a lease renewed by store_watch_next and
 * revoked by store_watch_close, the oldest revision they still need:
 * STORE_WATCHERS_PREFIX + "<identity>/" (store_identity, when there is
 * one) + a random id, value {"revision": N, "lease": L}.  The compaction
 * policy reads the whole prefix, both layouts, and never compacts past one.
 * Like the etcd backend's retry markers these keys live outside "/", out of
 * rigdeck's key space. */
#define STORE_WATCHERS_PREFIX "~rigdeck/watchers/"
/* Where a backend with a retry guard (etcd, store_etcd.c) keeps each
 * handle's retry marker, under its user's name: `store credentials` lets
 * each user write its own (access/secure.c). */
#define STORE_MARKERS_PREFIX "~rigdeck/txn/"
/* The compaction policy and its clock samples: {"keep_revisions",
 * "keep_seconds", "every", "compacted", "samples": [[rev, unix time]...]}. */
#define STORE_COMPACTION_KEY "~rigdeck/compaction"

enum {
    STORE_KEEP_REVISIONS = 10000,   /* default: the newest 10,000 revisions stay readable */
    STORE_KEEP_SECONDS = 3600,      /* default: and every revision of the last hour */
    STORE_COMPACT_EVERY = 1000,     /* default: run the policy every 1,000 revisions */
    STORE_COMPACT_CHECK = 100       /* writers look at the policy every 100 revisions */
};

/* A retention policy; -1 in a field of an override means "as saved". */
typedef struct {
    int64_t keep_revisions;  /* >= 1 */
    int64_t keep_seconds;    /* >= 0; 0: no time bound */
    int64_t every;           /* revisions between automatic runs; 0: never */
} store_retention;

typedef struct {
    store_retention policy;  /* the policy in force (saved by this run) */
    int64_t revision;        /* the store revision the run read */
    int64_t previous;        /* the compaction revision before the run (0: none) */
    int64_t compacted;       /* the compaction revision after it */
    int64_t oldest_watch;    /* the oldest revision a live watch needs; 0: none */
    int64_t watchers;        /* live watch registrations */
    int64_t by_count, by_time; /* the bounds from keep_revisions and keep_seconds */
    int64_t markers_deleted; /* idle etcd retry markers removed */
    int by_others;           /* the store was compacted past `compacted` already (on etcd any
                              * user may compact): nothing was left to compact */
} store_compact_report;

/* One run of the compaction policy at unix time now: compacts to
 * min(revision - keep_revisions + 1, the newest revision sampled at least
 * keep_seconds ago, the oldest revision a live watch needs), never
 * backwards; records a clock sample; deletes retry markers (etcd) idle for
 * ten minutes; saves the policy (override fields
 * >= 0 replace the saved ones; NULL keeps them).  RD_ECONFLICT when another
 * run changed the policy key meanwhile. */
rd_code store_compact_run(store_t *st, const store_retention *override, int64_t now,
                          store_compact_report *out, rd_err *err);

/* ---- reading without quorum (the console) ----------------------------- */

/* Lets reads fall back to one member's possibly stale view when the
 * cluster has no quorum (etcd; a no-op on SQLite, which is always current). */
void store_allow_stale_reads(store_t *st, int on);

/* The user the store authenticated this handle as (etcd with
 * authentication on), or NULL: then nobody vouches for who is acting and
 * the store's own access (a file's permissions, an open etcd) is the only
 * boundary. */
const char *store_identity(const store_t *st);

/* The field of a credentials record (KEY_CREDENTIALS, and `store
 * credentials`' result) naming the store user an account acts as.  Stored
 * documents carry this spelling, so it stays; callers outside core/store
 * name it only through this define. */
#define STORE_USER_FIELD "etcd_user"

/* Calls the store's user and role administration: op is the etcd auth
 * method ("user/add", "role/grant", "enable", ...), req its JSON request
 * (borrowed); *resp (may be NULL) gets the answer.  RD_EINVAL on a store
 * without users (SQLite); etcd's refusals come back as RD_EINVAL or RD_EPERM
 * with its message. */
rd_code store_auth(store_t *st, const char *op, const json_t *req, json_t **resp, rd_err *err);

/* Authenticates this handle afresh as user with password (after `store
 * secure` turned authentication on under it). */
rd_code store_login(store_t *st, const char *user, const char *password, rd_err *err);

/* 1 when the last read was served from such a stale view. */
int store_last_read_stale(const store_t *st);

/* ---- helpers shared by callers and backends --------------------------- */

/* The smallest key greater than every key with this prefix (etcd range_end);
 * returns a malloc'd string, or NULL when the prefix is empty/all 0xff. */
char *store_prefix_end(const char *prefix);

#endif
