/* store_etcd_http.c - the etcd backend's transport: one request, many members.
 *
 * Owns the etcd URL grammar (members and ?query options), the curl setup
 * (timeouts, TLS files for etcds://), and etcd_call(): post one JSON request
 * to the v3 gateway, rotating across members and retrying until one gives a
 * definite answer or the operation's time is up.  Whether a failed attempt
 * may be repeated is the caller's promise (etcd_resend): reads and
 * marker-guarded txns can be resent after any failure; others only when the
 * request surely never left this host.  Also the small helpers every etcd
 * file needs: base64, int64-as-string JSON fields, KeyValue decoding.
 */
#include "store_etcd_impl.h"
#include "jsonin.h"
#include "rdtime.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
    DEFAULT_PORT = 2379,
    CONNECT_MS = 1000,
    REQUEST_MS = 3000,
    OP_MS = 10000,     /* rides out a leader election (about 1-3 s by default) */
    DEAD_MS = 1500,
    BACKOFF_MIN_MS = 50,
    BACKOFF_MAX_MS = 1000,
    STALE_HOLD_MS = 5000   /* reads stay serializable this long after a fallback */
};

/* ---- small helpers --------------------------------------------------------- */

void etcd_sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
        ;
}

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *etcd_b64(const void *p, size_t n)
{
    const unsigned char *s = p;
    char *out = malloc((n + 2) / 3 * 4 + 1), *o = out;
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)s[i] << 16;
        if (i + 1 < n)
            v |= (unsigned)s[i + 1] << 8;
        if (i + 2 < n)
            v |= s[i + 2];
        *o++ = B64[v >> 18 & 63];
        *o++ = B64[v >> 12 & 63];
        *o++ = i + 1 < n ? B64[v >> 6 & 63] : '=';
        *o++ = i + 2 < n ? B64[v & 63] : '=';
    }
    *o = '\0';
    return out;
}

static int b64_val(unsigned char ch)
{
    if (ch >= 'A' && ch <= 'Z')
        return ch - 'A';
    if (ch >= 'a' && ch <= 'z')
        return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9')
        return ch - '0' + 52;
    if (ch == '+' || ch == '-')
        return 62;
    if (ch == '/' || ch == '_')
        return 63;
    return -1;
}

char *etcd_unb64(const char *s, size_t *n)
{
    size_t len = strlen(s);
    char *out = malloc(len / 4 * 3 + 4), *o = out;
    unsigned v = 0;
    int bits = 0;
    if (!out)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        int d = b64_val((unsigned char)s[i]);
        if (d < 0)
            continue;   /* padding (and nothing else: etcd sends clean base64) */
        v = (v << 6) | (unsigned)d;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            *o++ = (char)(v >> bits & 0xff);
        }
    }
    *o = '\0';
    *n = (size_t)(o - out);
    return out;
}

json_t *etcd_range_end(const char *prefix)
{
    /* store_prefix_end() is NULL both for "no bound" and out of memory */
    if (strspn(prefix, "\xff") == strlen(prefix))
        return etcd_jb64("", 1);   /* etcd's "\0": every key from key on */
    char *end = store_prefix_end(prefix);
    json_t *j = end ? etcd_jb64(end, strlen(end)) : NULL;
    free(end);
    return j;
}

json_t *etcd_range_key(const char *prefix)
{
    return *prefix ? etcd_jb64(prefix, strlen(prefix)) : etcd_jb64("", 1);   /* etcd refuses an empty key */
}

json_t *etcd_jb64(const void *p, size_t n)
{
    char *s = etcd_b64(p, n);
    json_t *j = s ? json_string(s) : NULL;
    free(s);
    return j;
}

int64_t etcd_i64(const json_t *obj, const char *field)
{
    const json_t *v = json_object_get(obj, field);
    if (json_is_integer(v))
        return (int64_t)json_integer_value(v);
    if (json_is_string(v))
        return (int64_t)strtoll(json_string_value(v), NULL, 10);
    return 0;
}

json_t *etcd_ji64(int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)v);
    return json_string(buf);
}

rd_code etcd_kv_from_json(const json_t *j, store_kv *kv, rd_err *err)
{
    const char *k = json_string_value(json_object_get(j, "key"));
    const char *v = json_string_value(json_object_get(j, "value"));
    size_t klen = 0;
    memset(kv, 0, sizeof *kv);
    kv->key = etcd_unb64(k ? k : "", &klen);
    kv->value = etcd_unb64(v ? v : "", &kv->value_len);   /* an empty value is omitted */
    if (!kv->key || !kv->value) {
        store_kv_free(kv);
        return rd_fail(err, RD_ENOMEM, "store: out of memory");
    }
    kv->create_revision = etcd_i64(j, "create_revision");
    kv->mod_revision = etcd_i64(j, "mod_revision");
    kv->version = etcd_i64(j, "version");
    kv->lease = etcd_i64(j, "lease");
    return RD_OK;
}

/* ---- URL ------------------------------------------------------------------- */

/* %XX decoding for query values (file paths may hold odd characters). */
static char *url_unescape(const char *s, size_t n)
{
    char *d = malloc(n + 1), *o = d;
    if (!d)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%' && i + 2 < n && isxdigit((unsigned char)s[i + 1]) &&
            isxdigit((unsigned char)s[i + 2])) {
            char hex[3] = { s[i + 1], s[i + 2], '\0' };
            *o++ = (char)strtol(hex, NULL, 16);
            i += 2;
            continue;
        }
        *o++ = s[i];
    }
    *o = '\0';
    return d;
}

static rd_code add_member(etcd_conn *c, const char *url, const char *s, size_t n, rd_err *err)
{
    const char *colon = NULL;
    if (n == 0)
        return rd_fail(err, RD_EUSAGE, "store %s: an empty member in the member list", url);
    if (s[0] == '[') {
        const char *close = memchr(s, ']', n);
        if (!close)
            return rd_fail(err, RD_EUSAGE, "store %s: unclosed '[' in a member address", url);
        if (close + 1 < s + n) {
            if (close[1] != ':')
                return rd_fail(err, RD_EUSAGE, "store %s: expected ':PORT' after ']'", url);
            colon = close + 1;
        }
    } else {
        colon = memchr(s, ':', n);
    }
    size_t hostlen = colon ? (size_t)(colon - s) : n;
    long port = DEFAULT_PORT;
    if (hostlen == 0)
        return rd_fail(err, RD_EUSAGE, "store %s: a member has no host", url);
    if (colon) {
        char num[8];
        size_t plen = n - hostlen - 1;
        char *end;
        if (plen == 0 || plen >= sizeof num)
            return rd_fail(err, RD_EUSAGE, "store %s: bad port in '%.*s'", url, (int)n, s);
        memcpy(num, colon + 1, plen);
        num[plen] = '\0';
        port = strtol(num, &end, 10);
        if (*end || port < 1 || port > 65535)
            return rd_fail(err, RD_EUSAGE, "store %s: bad port in '%.*s'", url, (int)n, s);
    }
    etcd_member *ms = realloc(c->members, (c->nmembers + 1) * sizeof *ms);
    if (!ms)
        return rd_fail(err, RD_ENOMEM, "store: out of memory");
    c->members = ms;
    etcd_member *m = &ms[c->nmembers];
    size_t cap = hostlen + 64;
    m->name = malloc(cap);
    m->base = malloc(cap);
    if (!m->name || !m->base) {
        free(m->name);
        free(m->base);
        return rd_fail(err, RD_ENOMEM, "store: out of memory");
    }
    snprintf(m->name, cap, "%.*s:%ld", (int)hostlen, s, port);
    snprintf(m->base, cap, "%s://%.*s:%ld/v3/", c->tls ? "https" : "http", (int)hostlen, s, port);
    c->nmembers++;
    return RD_OK;
}

static rd_code set_query(etcd_conn *c, const char *url, const char *q, char **pwfile_out, rd_err *err)
{
    char *pwfile = NULL;
    while (*q) {
        size_t n = strcspn(q, "&");
        const char *eq = memchr(q, '=', n);
        if (!eq)
            return rd_fail(err, RD_EUSAGE, "store %s: query item '%.*s' has no '='", url, (int)n, q);
        size_t klen = (size_t)(eq - q);
        char *val = url_unescape(eq + 1, n - klen - 1);
        char **slot = NULL;
        long *num = NULL;
        if (!val)
            return rd_fail(err, RD_ENOMEM, "store: out of memory");
        if (klen == 6 && !strncmp(q, "cacert", 6))
            slot = &c->cacert;
        else if (klen == 4 && !strncmp(q, "cert", 4))
            slot = &c->cert;
        else if (klen == 3 && !strncmp(q, "key", 3))
            slot = &c->key;
        else if (klen == 4 && !strncmp(q, "user", 4))
            slot = &c->user;
        else if (klen == 13 && !strncmp(q, "password-file", 13))
            slot = &pwfile;
        else if (klen == 10 && !strncmp(q, "connect_ms", 10))
            num = &c->t.connect_ms;
        else if (klen == 10 && !strncmp(q, "request_ms", 10))
            num = &c->t.request_ms;
        else if (klen == 5 && !strncmp(q, "op_ms", 5))
            num = &c->t.op_ms;
        if (slot == &pwfile) {
            free(*pwfile_out);
            *pwfile_out = val;
        } else if (slot) {
            free(*slot);
            *slot = val;
        } else {
            char *end;
            long v = num ? strtol(val, &end, 10) : 0;
            int bad = !num || *end || v < 1 || !*val;
            free(val);
            if (bad)
                return rd_fail(err, RD_EUSAGE,
                               "store %s: unknown or bad query item '%.*s' (known: cacert, cert, key, user, "
                               "password-file, connect_ms, request_ms, op_ms)", url, (int)n, q);
            *num = v;
        }
        q += n;
        if (*q == '&')
            q++;
    }
    return RD_OK;
}

static rd_code take_opt(char **slot, const char *v, rd_err *err)
{
    if (!v)
        return RD_OK;
    free(*slot);
    *slot = strdup(v);
    return *slot ? RD_OK : rd_fail(err, RD_ENOMEM, "store: out of memory");
}

/* A failed append (out of memory) stops the transfer: curl reports a
 * write error, an attempt like any broken one. */
static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    strbuf *b = ud;
    strbuf_append(b, p, size * n);
    return b->failed ? 0 : size * n;
}

void etcd_curl_setup(const etcd_conn *c, CURL *h, long total_ms)
{
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, c->t.connect_ms);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, total_ms);
    curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, c->hdrs);
    curl_easy_setopt(h, CURLOPT_PROXY, "");   /* members are never reached through a proxy */
    if (c->tls) {
        if (c->cacert)
            curl_easy_setopt(h, CURLOPT_CAINFO, c->cacert);
        if (c->cert)
            curl_easy_setopt(h, CURLOPT_SSLCERT, c->cert);
        if (c->key)
            curl_easy_setopt(h, CURLOPT_SSLKEY, c->key);
    }
}

rd_code etcd_conn_headers(etcd_conn *c, rd_err *err)
{
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json"), *t = h;
    if (t)
        t = curl_slist_append(h, "Expect:");
    if (t && c->token) {
        size_t len = strlen(c->token) + 32;
        char *line = malloc(len);
        if (line) {
            snprintf(line, len, "Authorization: %s", c->token);
            t = curl_slist_append(h, line);
            free(line);
        } else {
            t = NULL;
        }
    }
    if (!t) {
        curl_slist_free_all(h);
        return rd_fail(err, RD_ENOMEM, "store: out of memory");
    }
    /* A watch copies the headers when it connects, so freeing the old
     * list cannot pull them from under a stream. */
    curl_slist_free_all(c->hdrs);
    c->hdrs = h;
    etcd_curl_setup(c, c->easy, c->t.request_ms);
    return RD_OK;
}

rd_code etcd_conn_init(etcd_conn *c, const char *url, const store_opts *opts, rd_err *err)
{
    static int curl_ready;
    rd_code rc;
    char *pwfile = NULL;
    memset(c, 0, sizeof *c);
    c->t = (etcd_timing){ CONNECT_MS, REQUEST_MS, OP_MS, DEAD_MS };
    /* Thread-safe in the curl we build against (>= 7.84); done once, never
     * undone, because OpenSSL cannot be set up again after a cleanup. */
    if (!curl_ready) {
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
            return rd_fail(err, RD_ESTORE, "store %s: cannot initialise libcurl", url);
        curl_ready = 1;
    }
    if (!strncmp(url, "etcds://", 8))
        c->tls = 1;
    else if (strncmp(url, "etcd://", 7))
        return rd_fail(err, RD_EUSAGE, "store %s: not an etcd:// or etcds:// URL", url);
    const char *p = url + (c->tls ? 8 : 7);
    size_t hosts = strcspn(p, "/?");
    const char *rest = p + hosts;
    if (*rest == '/')
        rest++;
    if (*rest && *rest != '?') {
        rc = rd_fail(err, RD_EUSAGE, "store %s: etcd URLs take no path", url);
        goto fail;
    }
    for (size_t i = 0; i < hosts;) {
        size_t n = strcspn(p + i, ",");
        if (n > hosts - i)
            n = hosts - i;
        if ((rc = add_member(c, url, p + i, n, err)) != RD_OK)
            goto fail;
        i += n + 1;
    }
    if (c->nmembers == 0) {
        rc = rd_fail(err, RD_EUSAGE, "store %s: no member given (etcd://HOST:PORT[,HOST:PORT...])", url);
        goto fail;
    }
    if (*rest == '?' && (rc = set_query(c, url, rest + 1, &pwfile, err)) != RD_OK)
        goto fail;
    if (opts && ((rc = take_opt(&c->cacert, opts->cacert, err)) || (rc = take_opt(&c->cert, opts->cert, err)) ||
                 (rc = take_opt(&c->key, opts->key, err)) || (rc = take_opt(&c->user, opts->user, err)) ||
                 (rc = take_opt(&pwfile, opts->password_file, err))))
        goto fail;
    if (!c->user != !pwfile) {
        rc = rd_fail(err, RD_EUSAGE, "store %s: --etcd-user and --etcd-password-file go together", url);
        goto fail;
    }
    c->password_file = pwfile;
    pwfile = NULL;
    if (!c->tls && (c->cacert || c->cert || c->key)) {
        rc = rd_fail(err, RD_EUSAGE, "store %s: TLS files need an etcds:// URL", url);
        goto fail;
    }
    if (c->t.dead_ms > c->t.op_ms)
        c->t.dead_ms = c->t.op_ms;
    size_t names_len = 1;
    for (size_t i = 0; i < c->nmembers; i++)
        names_len += strlen(c->members[i].name) + 1;
    c->names = malloc(names_len);
    c->easy = curl_easy_init();
    if (!c->names || !c->easy) {
        rc = rd_fail(err, RD_ENOMEM, "store: out of memory");
        goto fail;
    }
    c->names[0] = '\0';
    for (size_t i = 0; i < c->nmembers; i++) {
        if (i)
            strcat(c->names, ",");
        strcat(c->names, c->members[i].name);
    }
    if ((rc = etcd_conn_headers(c, err)) != RD_OK)
        goto fail;
    curl_easy_setopt(c->easy, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c->easy, CURLOPT_WRITEDATA, &c->resp);
    return RD_OK;
fail:
    free(pwfile);
    etcd_conn_free(c);
    return rc;
}

void etcd_conn_free(etcd_conn *c)
{
    for (size_t i = 0; i < c->nmembers; i++) {
        free(c->members[i].name);
        free(c->members[i].base);
    }
    free(c->members);
    free(c->names);
    free(c->cacert);
    free(c->cert);
    free(c->key);
    free(c->user);
    free(c->password_file);
    if (c->password) {
        explicit_bzero(c->password, strlen(c->password));
        free(c->password);
    }
    free(c->token);
    if (c->easy)
        curl_easy_cleanup(c->easy);
    curl_slist_free_all(c->hdrs);
    strbuf_free(&c->resp);
    memset(c, 0, sizeof *c);
}

/* ---- one request ----------------------------------------------------------- */

void etcd_reply_free(etcd_reply *r)
{
    json_decref(r->body);
    r->body = NULL;
}

/* What one attempt at one member came to. */
typedef enum {
    TRY_ANSWER,      /* definite: success or a non-transient gRPC error */
    TRY_UNSENT,      /* failed before the request left (connect refused, ...) */
    TRY_UNSURE,      /* failed after it may have been sent: etcd may have applied it */
    TRY_FATAL        /* a configuration problem no retry will fix (bad TLS files) */
} try_result;

/* Transient on the server side: worth asking (another member) again. */
static int transient_code(int code)
{
    return code == GRPC_UNAVAILABLE || code == GRPC_UNKNOWN || code == GRPC_DEADLINE ||
           code == GRPC_CANCELED || code == GRPC_RESOURCE_EXHAUSTED;
}

/* Reads a gateway error: {"error":"..","message":"..","code":N} for unary
 * calls, {"error":{"grpc_code":N,"message":".."}} on streaming ones. */
static int grpc_error(const json_t *j, char *msg, size_t cap)
{
    const json_t *e = json_object_get(j, "error");
    const json_t *code = json_object_get(j, "code");
    const char *m = json_string_value(json_object_get(j, "message"));
    if (json_is_object(e)) {
        code = json_object_get(e, "grpc_code");
        m = json_string_value(json_object_get(e, "message"));
    } else if (!e || !json_is_integer(code)) {
        return 0;
    }
    if (!m)
        m = json_string_value(e);
    snprintf(msg, cap, "%s", m ? m : "unknown error");
    int n = (int)json_integer_value(code);
    return n ? n : GRPC_UNKNOWN;
}

/* *alive is set when the member showed signs of life without serving the
 * request (slow, or "no leader"): worth waiting for; a member whose
 * connection just breaks is treated like one that refuses it. */
static try_result try_member(etcd_conn *c, const etcd_member *m, const char *path, const char *body,
                             size_t body_len, long total_ms, etcd_reply *reply, char *last, size_t cap,
                             int *alive)
{
    char url[512], ebuf[CURL_ERROR_SIZE] = "";
    long status = 0;
    snprintf(url, sizeof url, "%s%s", m->base, path);
    strbuf_clear(&c->resp);
    curl_easy_setopt(c->easy, CURLOPT_URL, url);
    curl_easy_setopt(c->easy, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
    curl_easy_setopt(c->easy, CURLOPT_TIMEOUT_MS, total_ms);
    curl_easy_setopt(c->easy, CURLOPT_ERRORBUFFER, ebuf);
    CURLcode cc = curl_easy_perform(c->easy);
    curl_easy_setopt(c->easy, CURLOPT_ERRORBUFFER, NULL);
    if (cc != CURLE_OK) {
        curl_off_t pre = 0;
        snprintf(last, cap, "%s: %s", m->name, *ebuf ? ebuf : curl_easy_strerror(cc));
        switch (cc) {
        case CURLE_SSL_CERTPROBLEM:
        case CURLE_SSL_CACERT_BADFILE:
        case CURLE_SSL_CRL_BADFILE:
        case CURLE_SSL_ENGINE_NOTFOUND:
        case CURLE_SSL_ENGINE_SETFAILED:
        case CURLE_SSL_CIPHER:
        case CURLE_PEER_FAILED_VERIFICATION:
        case CURLE_URL_MALFORMAT:
        case CURLE_OUT_OF_MEMORY:
            return TRY_FATAL;
        case CURLE_COULDNT_RESOLVE_HOST:
        case CURLE_COULDNT_CONNECT:
        case CURLE_SSL_CONNECT_ERROR:
            return TRY_UNSENT;
        case CURLE_OPERATION_TIMEDOUT:
            /* a connect that timed out never sent anything */
            curl_easy_getinfo(c->easy, CURLINFO_PRETRANSFER_TIME_T, &pre);
            *alive = pre > 0;
            return pre > 0 ? TRY_UNSURE : TRY_UNSENT;
        default:
            return TRY_UNSURE;
        }
    }
    curl_easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &status);
    /* The gateway's answer is one object: the fast decoder takes it whole,
     * else jansson decides as it always did. */
    json_t *j = c->resp.len ? jsonin_loadb(c->resp.text, c->resp.len) : NULL;
    if (!j && c->resp.len)
        j = json_loadb(c->resp.text, c->resp.len, JSON_DISABLE_EOF_CHECK, NULL);
    if (!json_is_object(j)) {
        json_decref(j);
        snprintf(last, cap, "%s: HTTP %ld with %s", m->name, status,
                 c->resp.len ? "a body that is not a JSON object" : "an empty body");
        /* a 4xx without a gRPC error means this is no etcd v3 gateway */
        *alive = 1;
        return status >= 400 && status < 500 ? TRY_FATAL : TRY_UNSURE;
    }
    int code = grpc_error(j, reply->msg, sizeof reply->msg);
    if (code && transient_code(code)) {
        snprintf(last, cap, "%s: %s (code %d)", m->name, reply->msg, code);
        json_decref(j);
        *alive = 1;
        return TRY_UNSURE;
    }
    if (code) {
        json_decref(j);
        reply->code = code;
        return TRY_ANSWER;
    }
    reply->body = j;
    return TRY_ANSWER;
}

rd_code etcd_call(etcd_conn *c, const char *path, json_t *req, etcd_resend resend,
                  etcd_reply *reply, rd_err *err)
{
    char last[400] = "no attempt was made";
    int64_t start = rdtime_mono_ms();
    long backoff = BACKOFF_MIN_MS;
    int round_connected = 0, any_connected = 0, serializable = 0;
    size_t tried = 0;
    int is_range = !strcmp(path, "kv/range");
    memset(reply, 0, sizeof *reply);
    c->last_read_stale = 0;
    /* Once a read had to fall back, the next ones go straight to the
     * fallback for a while instead of each waiting request_ms first. */
    if (is_range && c->serializable_fallback && c->stale_at && start - c->stale_at < STALE_HOLD_MS) {
        json_object_set_new(req, "serializable", json_true());
        serializable = 1;
    }
    char *body = json_dumps(req, JSON_COMPACT);
    if (!body)
        return rd_fail(err, RD_ENOMEM, "store: out of memory");
    size_t body_len = strlen(body);
    for (;;) {
        int64_t left = start + c->t.op_ms - rdtime_mono_ms();
        if (left <= 0)
            break;
        const etcd_member *m = &c->members[c->cur];
        int alive = 0;
        try_result r = try_member(c, m, path, body, body_len, left < c->t.request_ms ? (long)left : c->t.request_ms,
                                  reply, last, sizeof last, &alive);
        if (r == TRY_ANSWER) {
            free(body);
            c->last_read_stale = serializable;
            if (serializable && reply->maybe_sent_before)
                c->stale_at = rdtime_mono_ms();
            return RD_OK;
        }
        if (r == TRY_FATAL) {
            free(body);
            return rd_fail(err, RD_ESTORE, "etcd %s: %s", c->names, last);
        }
        if (alive)
            round_connected = any_connected = 1;
        if (r == TRY_UNSURE) {
            if (resend == ETCD_ONCE) {
                free(body);
                return rd_fail(err, RD_ESTORE,
                               "etcd %s: the write's outcome is unknown, not retried (%s)", c->names, last);
            }
            reply->maybe_sent_before = 1;
            /* Without quorum a linearizable read cannot be served; the
             * console may accept one member's possibly stale view instead. */
            if (is_range && c->serializable_fallback && !serializable) {
                json_object_set_new(req, "serializable", json_true());
                char *b2 = json_dumps(req, JSON_COMPACT);
                if (b2) {
                    free(body);
                    body = b2;
                    body_len = strlen(body);
                    serializable = 1;
                    continue;   /* the same member may well answer that */
                }
            }
        }
        c->cur = (c->cur + 1) % c->nmembers;
        if (++tried % c->nmembers == 0) {
            /* A whole round failed: a cluster where nothing even listens is
             * reported soon; one that answers without a leader gets the
             * whole op_ms to elect one. */
            if (!round_connected && rdtime_mono_ms() - start >= c->t.dead_ms)
                break;
            round_connected = 0;
            left = start + c->t.op_ms - rdtime_mono_ms();
            etcd_sleep_ms(backoff < left ? backoff : (long)(left > 0 ? left : 0));
            backoff = backoff * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : backoff * 2;
        }
    }
    free(body);
    if (any_connected)
        return rd_fail(err, RD_ESTORE, "etcd %s: no member could serve the request, no quorum? (last error: %s)",
                       c->names, last);
    return rd_fail(err, RD_ESTORE, "etcd %s: no member reachable (last error: %s)", c->names, last);
}

/* ---- requests as the backend makes them ---------------------------------- */

const char *etcd_short_msg(const char *m)
{
    return strncmp(m, "etcdserver: ", 12) ? m : m + 12;
}

rd_code etcd_fail_grpc(const etcd_conn *c, const etcd_reply *r, const char *what, rd_err *err)
{
    if (r->code == GRPC_PERMISSION_DENIED)
        return rd_fail(err, RD_EPERM, "store %s: permission denied to etcd user '%s' (the store is secured)", what,
                       c->user ? c->user : "(none)");
    if (strstr(r->msg, "user name is empty") || r->code == GRPC_UNAUTHENTICATED)
        return rd_fail(err, RD_ESTORE, "etcd %s: the store is secured: give --etcd-user and --etcd-password-file",
                       c->names);
    if (r->code == GRPC_INVALID_ARGUMENT || r->code == GRPC_OUT_OF_RANGE)
        return rd_fail(err, RD_EINVAL, "store %s: %s", what, etcd_short_msg(r->msg));
    return rd_fail(err, RD_ESTORE, "etcd %s: %s: %s (code %d)", c->names, what, etcd_short_msg(r->msg), r->code);
}
