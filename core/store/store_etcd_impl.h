/* store_etcd_impl.h - internals shared by the etcd backend's files (not an API).
 *
 * store_etcd.c      the backend table: reads, txns (with the retry marker),
 *                   revision, compaction
 * store_etcd_lease.c leases
 * store_etcd_http.c endpoints, URL options, one request with member rotation
 *                   and retries, gRPC error classes, base64 and JSON helpers
 * store_etcd_watch.c watches as streamed HTTP responses (curl multi)
 */
#ifndef RD_STORE_ETCD_IMPL_H
#define RD_STORE_ETCD_IMPL_H

#include <curl/curl.h>
#include <jansson.h>

#include "store_backend.h"
#include "strbuf.h"

/* gRPC status codes that the gateway puts in "code". */
enum {
    GRPC_CANCELED = 1,
    GRPC_UNKNOWN = 2,
    GRPC_INVALID_ARGUMENT = 3,
    GRPC_DEADLINE = 4,
    GRPC_NOT_FOUND = 5,
    GRPC_RESOURCE_EXHAUSTED = 8,
    GRPC_FAILED_PRECONDITION = 9,
    GRPC_OUT_OF_RANGE = 11,
    GRPC_PERMISSION_DENIED = 7,
    GRPC_UNAVAILABLE = 14,
    GRPC_UNAUTHENTICATED = 16
};

typedef struct {
    long connect_ms;   /* TCP (+TLS) connect to one member */
    long request_ms;   /* one whole request to one member */
    long op_ms;        /* one operation across members and retries */
    long dead_ms;      /* give up sooner when no member even accepts a connection */
} etcd_timing;

typedef struct {
    char *name;        /* "host:port" as given, for messages */
    char *base;        /* "http://host:port/v3/" */
} etcd_member;

/* Everything needed to talk to the cluster: shared by the store handle and
 * (as a copy of the settings) by each watch. */
typedef struct {
    etcd_member *members;
    size_t nmembers;
    size_t cur;                 /* the member tried first next time */
    char *names;                /* "h1:p1,h2:p2" for messages */
    int tls;
    char *cacert, *cert, *key;
    char *user, *password;      /* etcd authentication, or NULL */
    char *password_file;        /* where the password is read from at open */
    char *token;                /* the current auth token, or NULL */
    etcd_timing t;
    CURL *easy;                 /* reused so that connections stay open */
    struct curl_slist *hdrs;
    strbuf resp;                /* the answer being received */
    int serializable_fallback;  /* reads may fall back to one member's view */
    int last_read_stale;        /* the last read was served that way */
    int64_t stale_at;           /* when a read last had to fall back (monotonic ms) */
} etcd_conn;

/* How a request may be repeated after a failure that might have reached etcd. */
typedef enum {
    ETCD_RESEND,     /* harmless to repeat (reads, marker-guarded txns, leases) */
    ETCD_ONCE        /* repeat only when it surely never left this host */
} etcd_resend;

/* A definite answer from some member. */
typedef struct {
    json_t *body;          /* the parsed response (owned); NULL for an error */
    int code;              /* gRPC code: 0 success */
    char msg[256];         /* the gRPC error message when code != 0 */
    int maybe_sent_before; /* an earlier attempt may have reached etcd */
} etcd_reply;

/* ---- store_etcd_http.c ---- */

/* Parses "etcd[s]://h1:p1,h2:p2[/][?cacert=F&cert=F&key=F]" and the TLS
 * options into c (opts win over the query), and sets up curl. */
rd_code etcd_conn_init(etcd_conn *c, const char *url, const store_opts *opts, rd_err *err);

/* Frees everything c holds. */
void etcd_conn_free(etcd_conn *c);

/* Posts req (JSON) to path (e.g. "kv/range") on some member, rotating and
 * retrying within c->t.op_ms.  RD_OK with *reply filled when a member gave a
 * definite answer (success or a non-transient gRPC error); RD_ESTORE when
 * none did.  A /kv/range request may be retried serializably (see
 * serializable_fallback). */
rd_code etcd_call(etcd_conn *c, const char *path, json_t *req, etcd_resend resend,
                  etcd_reply *reply, rd_err *err);

/* The error for a definite gRPC answer the caller did not handle itself. */
rd_code etcd_fail_grpc(const etcd_conn *c, const etcd_reply *r, const char *what, rd_err *err);

/* etcd's message without its "etcdserver: " prefix. */
const char *etcd_short_msg(const char *m);

/* ---- store_etcd_lease.c ---- */

/* Leases as the store API has them (store.h): grant, keepalive, time to
 * live, revoke; an expired or unknown lease is RD_ENOTFOUND. */
rd_code etcd_lease_grant(etcd_conn *c, int64_t ttl, int64_t *id, rd_err *err);
rd_code etcd_lease_keepalive(etcd_conn *c, int64_t id, int64_t *ttl_left, rd_err *err);
rd_code etcd_lease_ttl(etcd_conn *c, int64_t id, int64_t *left, int64_t *granted, rd_err *err);
rd_code etcd_lease_revoke(etcd_conn *c, int64_t id, rd_err *err);

/* ---- store_etcd_auth.c ---- */

/* Reads the password file (mode 0600, one line) into c->password. */
rd_code etcd_conn_read_password(etcd_conn *c, const char *path, rd_err *err);

/* Reads c->password_file and logs in as c->user (store open). */
rd_code etcd_conn_authenticate(etcd_conn *c, rd_err *err);

/* Asks for a token as c->user and puts it in every request's headers. */
rd_code etcd_conn_login(etcd_conn *c, rd_err *err);

/* etcd_call taking req (NULL: out of memory) and logging in again once
 * when the token lapsed (etcd drops idle ones). */
rd_code etcd_conn_call(etcd_conn *c, const char *path, json_t *req, etcd_resend resend, etcd_reply *r, rd_err *err);

/* The request headers: JSON, no Expect, and the token when there is one. */
rd_code etcd_conn_headers(etcd_conn *c, rd_err *err);

/* Frees a reply's body. */
void etcd_reply_free(etcd_reply *r);

/* Applies c's TLS files and timeouts to a curl easy handle. */
void etcd_curl_setup(const etcd_conn *c, CURL *h, long total_ms);

/* Base64 (standard, padded) of n bytes; malloc'd, NULL when out of memory. */
char *etcd_b64(const void *p, size_t n);

/* Decodes base64 into a malloc'd NUL-terminated buffer, *n its length. */
char *etcd_unb64(const char *s, size_t *n);

/* A JSON base64 string of n bytes (a new reference), NULL when out of memory. */
json_t *etcd_jb64(const void *p, size_t n);

/* For a prefix: the range_end (base64 JSON) etcd wants, "\0" when it has
 * no bound; NULL when out of memory. */
json_t *etcd_range_end(const char *prefix);

/* For a prefix: the first key (base64 JSON), "\0" for the empty prefix. */
json_t *etcd_range_key(const char *prefix);

/* An int64 field that etcd sends as a string (or a number); 0 when absent. */
int64_t etcd_i64(const json_t *obj, const char *field);

/* A JSON string for an int64, as etcd expects. */
json_t *etcd_ji64(int64_t v);

/* Fills kv from an etcd KeyValue object. */
rd_code etcd_kv_from_json(const json_t *j, store_kv *kv, rd_err *err);

/* Sleeps ms milliseconds. */
void etcd_sleep_ms(long ms);

/* ---- store_etcd_watch.c (called by store_etcd.c, never calls it back) ---- */

/* A watch of prefix on st's members (conn, which outlives it), streaming
 * from conn's member `member` first, delivering the events after revision
 * after_rev (>= 0; store_etcd.c turns "from now on" into the current
 * revision first). */
rd_code etcd_watch_open(store_t *st, etcd_conn *conn, size_t member, const char *prefix,
                        int64_t after_rev, store_watch **out, rd_err *err);
rd_code etcd_watch_next(store_watch *w, int timeout_ms, store_event **events,
                        size_t *count, rd_err *err);
void etcd_watch_close(store_watch *w);

#endif
