/* bench_etcd_raw.h - raw etcd for the benchmarks: JSON posted straight to
 * the v3 gateway (/v3/kv/put, /v3/kv/txn, /v3/kv/deleterange) with libcurl
 * on one kept-alive connection, nothing else: the floor the store layer is
 * measured against (bench_store, bench_sched, bench_ledger).
 *
 * Each benchmark is its own program (see the Makefile), so this is a header
 * of static inline functions.  Build a body with raw_etcd_txn_begin / _txn_put /
 * _txn_end (or raw_etcd_put_body), then raw_etcd_post it.
 */
#ifndef RD_BENCH_ETCD_RAW_H
#define RD_BENCH_ETCD_RAW_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

typedef struct {
    CURL *h;
    struct curl_slist *hdrs;
    char base[256];             /* http://HOST:PORT of the first member */
    char put_url[300], txn_url[300], del_url[300];
    char *body;                 /* the request being built */
    size_t len, cap;
    long nputs;                 /* puts in the txn being built */
    long ncmps;                 /* compares in it */
    int in_success;             /* its compares are closed */
} raw_etcd;

static inline size_t raw_etcd_discard(char *p, size_t size, size_t n, void *ud)
{
    (void)p;
    (void)ud;
    return size * n;
}

/* Padded base64 of s[0, n) into out (4 * ((n + 2) / 3) + 1 bytes); its length. */
static inline size_t raw_etcd_b64(char *out, const char *s, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *p = (const unsigned char *)s;
    char *o = out;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        *o++ = tab[v >> 18 & 63];
        *o++ = tab[v >> 12 & 63];
        *o++ = i + 1 < n ? tab[v >> 6 & 63] : '=';
        *o++ = i + 2 < n ? tab[v & 63] : '=';
    }
    *o = '\0';
    return (size_t)(o - out);
}

/* Room for `more` bytes (and a NUL) after the body; exits when out of memory. */
static inline void raw_etcd_reserve(raw_etcd *r, size_t more)
{
    if (r->len + more + 1 <= r->cap)
        return;
    size_t cap = r->cap ? r->cap : 4096;
    while (cap < r->len + more + 1)
        cap *= 2;
    char *b = realloc(r->body, cap);
    if (!b) {
        fprintf(stderr, "raw etcd: out of memory\n");
        exit(1);
    }
    r->body = b;
    r->cap = cap;
}

/* Appends printf-style text to the body. */
static inline void raw_etcd_cat(raw_etcd *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    raw_etcd_reserve(r, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(r->body + r->len, r->cap - r->len, fmt, ap);
    va_end(ap);
    r->len += (size_t)n;
}

/* Appends the base64 of s[0, n) to the body. */
static inline void raw_etcd_cat_b64(raw_etcd *r, const char *s, size_t n)
{
    raw_etcd_reserve(r, 4 * ((n + 2) / 3));
    r->len += raw_etcd_b64(r->body + r->len, s, n);
}

/* Opens a connection to the first member of url (etcd://HOST:PORT[,...]);
 * 0, or -1 when url is not etcd:// or curl cannot start. */
static inline int raw_etcd_open(raw_etcd *r, const char *url)
{
    memset(r, 0, sizeof *r);
    if (strncmp(url, "etcd://", 7) != 0)
        return -1;
    const char *hp = url + 7;
    int n = (int)strcspn(hp, ",/?");
    snprintf(r->base, sizeof r->base, "http://%.*s", n, hp);
    snprintf(r->put_url, sizeof r->put_url, "%s/v3/kv/put", r->base);
    snprintf(r->txn_url, sizeof r->txn_url, "%s/v3/kv/txn", r->base);
    snprintf(r->del_url, sizeof r->del_url, "%s/v3/kv/deleterange", r->base);
    r->h = curl_easy_init();
    r->hdrs = curl_slist_append(NULL, "Content-Type: application/json");
    if (!r->h || !r->hdrs)
        return -1;
    raw_etcd_reserve(r, 4096);
    curl_easy_setopt(r->h, CURLOPT_HTTPHEADER, r->hdrs);
    curl_easy_setopt(r->h, CURLOPT_WRITEFUNCTION, raw_etcd_discard);
    curl_easy_setopt(r->h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(r->h, CURLOPT_PROXY, "");
    return 0;
}

static inline void raw_etcd_close(raw_etcd *r)
{
    curl_easy_cleanup(r->h);
    curl_slist_free_all(r->hdrs);
    free(r->body);
    memset(r, 0, sizeof *r);
}

/* Posts the body to url; NULL when etcd answered 200, else what went wrong.
 * The body is emptied either way. */
static inline const char *raw_etcd_post(raw_etcd *r, const char *url)
{
    long status = 0;
    curl_easy_setopt(r->h, CURLOPT_URL, url);
    curl_easy_setopt(r->h, CURLOPT_POSTFIELDS, r->body);
    curl_easy_setopt(r->h, CURLOPT_POSTFIELDSIZE, (long)r->len);
    CURLcode cc = curl_easy_perform(r->h);
    curl_easy_getinfo(r->h, CURLINFO_RESPONSE_CODE, &status);
    r->len = 0;
    r->nputs = 0;
    if (cc != CURLE_OK)
        return curl_easy_strerror(cc);
    return status == 200 ? NULL : "HTTP status is not 200";
}

/* The body of a /v3/kv/put of one key. */
static inline void raw_etcd_put_body(raw_etcd *r, const char *key, const char *value, size_t value_len)
{
    r->len = 0;
    raw_etcd_cat(r, "{\"key\":\"");
    raw_etcd_cat_b64(r, key, strlen(key));
    raw_etcd_cat(r, "\",\"value\":\"");
    raw_etcd_cat_b64(r, value, value_len);
    raw_etcd_cat(r, "\"}");
}

/* Starts a /v3/kv/txn body.  marker NULL: no compares but those added
 * with raw_etcd_txn_compare.  Else the shape the store layer sends for a txn
 * whose failure branch is empty (docs/etcd.md, "Safe retries"): a guard
 * compare on the marker key, and at raw_etcd_txn_end the marker put and its
 * read-back on failure. */
static inline void raw_etcd_txn_begin(raw_etcd *r, const char *marker)
{
    r->len = 0;
    r->nputs = r->ncmps = 0;
    r->in_success = 0;
    raw_etcd_cat(r, "{\"compare\":[");
    if (marker) {
        raw_etcd_cat(r, "{\"key\":\"");
        raw_etcd_cat_b64(r, marker, strlen(marker));
        raw_etcd_cat(r, "\",\"target\":\"MOD\",\"result\":\"LESS\",\"mod_revision\":\"9223372036854775807\"}");
        r->ncmps++;
    }
}

/* Adds a compare that always holds (key's mod_revision below the largest
 * revision), costing etcd what a guard on the key costs; before any put. */
static inline void raw_etcd_txn_compare(raw_etcd *r, const char *key)
{
    raw_etcd_cat(r, "%s{\"key\":\"", r->ncmps++ ? "," : "");
    raw_etcd_cat_b64(r, key, strlen(key));
    raw_etcd_cat(r, "\",\"target\":\"MOD\",\"result\":\"LESS\",\"mod_revision\":\"9223372036854775807\"}");
}

static inline void raw_etcd_txn_success(raw_etcd *r)
{
    if (!r->in_success)
        raw_etcd_cat(r, "],\"success\":[");
    r->in_success = 1;
}

/* Adds a put of (key, value) to the txn being built. */
static inline void raw_etcd_txn_put(raw_etcd *r, const char *key, const char *value, size_t value_len)
{
    raw_etcd_txn_success(r);
    raw_etcd_cat(r, "%s{\"request_put\":{\"key\":\"", r->nputs++ ? "," : "");
    raw_etcd_cat_b64(r, key, strlen(key));
    raw_etcd_cat(r, "\",\"value\":\"");
    raw_etcd_cat_b64(r, value, value_len);
    raw_etcd_cat(r, "\"}}");
}

/* Ends the txn body begun with the same marker. */
static inline void raw_etcd_txn_end(raw_etcd *r, const char *marker)
{
    raw_etcd_txn_success(r);
    if (!marker) {
        raw_etcd_cat(r, "],\"failure\":[]}");
        return;
    }
    raw_etcd_cat(r, "%s{\"request_put\":{\"key\":\"", r->nputs ? "," : "");
    raw_etcd_cat_b64(r, marker, strlen(marker));
    raw_etcd_cat(r, "\",\"value\":\"MTIzcw==\"}}],\"failure\":[{\"request_range\":{\"key\":\"");
    raw_etcd_cat_b64(r, marker, strlen(marker));
    raw_etcd_cat(r, "\"}}]}");
}

typedef struct {
    char *buf;
    size_t len, cap;
} raw_etcd_text;

static inline size_t raw_etcd_keep(char *p, size_t size, size_t n, void *ud)
{
    raw_etcd_text *t = ud;
    if (t->len + size * n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 65536;
        while (cap < t->len + size * n + 1)
            cap *= 2;
        char *b = realloc(t->buf, cap);
        if (!b)
            return 0;
        t->buf = b;
        t->cap = cap;
    }
    memcpy(t->buf + t->len, p, size * n);
    t->len += size * n;
    t->buf[t->len] = '\0';
    return size * n;
}

/* How many requests of each kind the member has served (its /metrics:
 * grpc_server_handled_total with code OK; the JSON gateway goes through
 * gRPC): *range and *txn, -1 when they cannot be read.  Diagnostics. */
static inline void raw_etcd_served(raw_etcd *r, long *range, long *txn)
{
    raw_etcd_text t = { 0 };
    char url[320];
    long status = 0;
    *range = *txn = -1;
    snprintf(url, sizeof url, "%s/metrics", r->base);
    curl_easy_setopt(r->h, CURLOPT_URL, url);
    curl_easy_setopt(r->h, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(r->h, CURLOPT_WRITEFUNCTION, raw_etcd_keep);
    curl_easy_setopt(r->h, CURLOPT_WRITEDATA, &t);
    CURLcode cc = curl_easy_perform(r->h);
    curl_easy_getinfo(r->h, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_setopt(r->h, CURLOPT_WRITEFUNCTION, raw_etcd_discard);
    curl_easy_setopt(r->h, CURLOPT_WRITEDATA, NULL);
    if (cc == CURLE_OK && status == 200 && t.buf) {
        static const char *const what[2] = { "grpc_method=\"Range\"", "grpc_method=\"Txn\"" };
        long *out[2] = { range, txn };
        for (int i = 0; i < 2; i++)
            for (const char *l = t.buf; (l = strstr(l, "grpc_server_handled_total{grpc_code=\"OK\",")); l++) {
                const char *eol = strchr(l, '\n'), *m = strstr(l, what[i]);
                if (m && (!eol || m < eol)) {
                    const char *sp = strchr(m, ' ');
                    if (sp && (!eol || sp < eol))
                        *out[i] = (long)strtod(sp + 1, NULL);   /* large counts come as 1.2e+06 */
                    break;
                }
            }
    }
    free(t.buf);
}

/* Deletes every key starting with prefix (not empty, its last byte below
 * 0xff); NULL, or what went wrong. */
static inline const char *raw_etcd_delete_prefix(raw_etcd *r, const char *prefix)
{
    char end[256];
    size_t n = strlen(prefix);
    if (n == 0 || n >= sizeof end || (unsigned char)prefix[n - 1] == 0xff)
        return "raw_etcd_delete_prefix: unsupported prefix";
    memcpy(end, prefix, n);
    end[n - 1] = (char)((unsigned char)end[n - 1] + 1);
    r->len = 0;
    raw_etcd_cat(r, "{\"key\":\"");
    raw_etcd_cat_b64(r, prefix, n);
    raw_etcd_cat(r, "\",\"range_end\":\"");
    raw_etcd_cat_b64(r, end, n);
    raw_etcd_cat(r, "\"}");
    return raw_etcd_post(r, r->del_url);
}

#endif
