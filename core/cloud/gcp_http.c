/* gcp_http.c - the transport under the GCE client: one libcurl exchange,
 * the classification of GCP's error answers and their one-line messages,
 * and the tuning knobs (poll interval, backoff) the callers share.
 *
 * Plain HTTP only: nothing here knows about tokens or retries, so that the
 * token fetch (gcp_auth.c) and the authenticated API call (gcp_api.c) can
 * both sit on top of it without either being called back from here.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "gcp_int.h"
#include "urlcheck.h"
#include "strbuf.h"

#define CONNECT_TIMEOUT_MS 10000L
#define REQUEST_TIMEOUT_MS 60000L
#define RESPONSE_MAX (8L * 1024 * 1024)

/* ---- tuning knobs and sleeping --------------------------------------- */

static long env_ms(const char *name, long dflt)
{
    const char *v = getenv(name);
    char *end = NULL;
    if (!v || !*v)
        return dflt;
    long n = strtol(v, &end, 10);
    return end && *end == '\0' && n >= 0 && n <= 600000 ? n : dflt;
}

long gcp_poll_ms(void)
{
    return env_ms("RIGDECK_GCP_POLL_MS", 1000);
}

long gcp_backoff_ms(void)
{
    return env_ms("RIGDECK_GCP_BACKOFF_MS", 500);
}

void gcp_sleep_ms(long ms)
{
    if (ms <= 0)
        return;
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
        ;
}

/* ---- statuses and messages ------------------------------------------- */

static const char *const status_names[GCP_NSTATUS] = {
    "ok", "quota_exceeded", "zone_exhausted", "already_exists", "not_found", "unauthenticated",
    "permission_denied", "rate_limited", "unavailable", "network", "bad_request", "timeout", "protocol",
};

const char *gcp_status_name(gcp_status s)
{
    return s < GCP_NSTATUS ? status_names[s] : "unknown";
}

int gcp_status_transient(gcp_status s)
{
    return s == GCP_ZONE_EXHAUSTED || s == GCP_RATE_LIMITED || s == GCP_UNAVAILABLE || s == GCP_NETWORK ||
           s == GCP_TIMEOUT;
}

static void copy_trim(char *dst, size_t len, const char *src)
{
    size_t j = 0;
    int space = 0;
    for (const char *p = src ? src : ""; *p && j + 1 < len; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch <= ' ') {
            space = j > 0;
            continue;
        }
        if (space && j + 2 < len)
            dst[j++] = ' ';
        space = 0;
        dst[j++] = (char)ch;
    }
    dst[j] = '\0';
}

/* "Quota 'NVIDIA_A100_GPUS' exceeded.  Limit: 1.0 in region us-central1." */
static void parse_quota_message(const char *msg, gcp_fault *f)
{
    const char *q = msg ? strstr(msg, "Quota '") : NULL;
    if (q) {
        q += 7;
        size_t n = strcspn(q, "'");
        if (n < sizeof f->metric) {
            memcpy(f->metric, q, n);
            f->metric[n] = '\0';
        }
    }
    const char *l = msg ? strstr(msg, "Limit: ") : NULL;
    if (l)
        f->limit = strtod(l + 7, NULL);
}

/* quotaInfo of errorDetails: {"metricName": ".../nvidia_a100_gpus", "limit": 1} */
static void parse_quota_info(const json_t *e, gcp_fault *f)
{
    size_t i;
    json_t *d;
    json_array_foreach(json_object_get(e, "errorDetails"), i, d) {
        json_t *qi = json_object_get(d, "quotaInfo");
        if (!qi)
            continue;
        const char *m = json_string_value(json_object_get(qi, "metricName"));
        if (m && !*f->metric) {
            const char *slash = strrchr(m, '/');
            copy_trim(f->metric, sizeof f->metric, slash ? slash + 1 : m);
            for (char *p = f->metric; *p; p++)
                if (*p >= 'a' && *p <= 'z')
                    *p = (char)(*p - 'a' + 'A');
        }
        if (json_is_number(json_object_get(qi, "limit")))
            f->limit = json_number_value(json_object_get(qi, "limit"));
    }
}

/* Looks at one {"code"|"reason", "message"} entry for the reasons that
 * decide what to do; returns 1 when it decided. */
static int classify_entry(const json_t *e, gcp_fault *f)
{
    const char *code = json_string_value(json_object_get(e, "code"));
    const char *reason = json_string_value(json_object_get(e, "reason"));
    const char *msg = json_string_value(json_object_get(e, "message"));
    const char *word = code ? code : reason;
    if (!word)
        return 0;
    if (strcmp(word, "QUOTA_EXCEEDED") == 0 || strcmp(word, "quotaExceeded") == 0 ||
        (msg && strstr(msg, "Quota '") && strstr(msg, "exceeded"))) {
        f->status = GCP_QUOTA_EXCEEDED;
        snprintf(f->reason, sizeof f->reason, "QUOTA_EXCEEDED");
        parse_quota_message(msg, f);
        parse_quota_info(e, f);
    } else if (strncmp(word, "ZONE_RESOURCE_POOL_EXHAUSTED", 28) == 0 ||
               (msg && strstr(msg, "does not have enough resources available"))) {
        f->status = GCP_ZONE_EXHAUSTED;
        snprintf(f->reason, sizeof f->reason, "ZONE_RESOURCE_POOL_EXHAUSTED");
    } else if (strcmp(word, "RESOURCE_ALREADY_EXISTS") == 0 || strcmp(word, "alreadyExists") == 0) {
        f->status = GCP_ALREADY_EXISTS;
        snprintf(f->reason, sizeof f->reason, "ALREADY_EXISTS");
    } else if (strcmp(word, "RESOURCE_NOT_FOUND") == 0 || strcmp(word, "notFound") == 0) {
        f->status = GCP_NOT_FOUND;
        snprintf(f->reason, sizeof f->reason, "NOT_FOUND");
    } else if (strcmp(word, "rateLimitExceeded") == 0 || strcmp(word, "userRateLimitExceeded") == 0 ||
               strcmp(word, "RATE_LIMIT_EXCEEDED") == 0) {
        f->status = GCP_RATE_LIMITED;
        snprintf(f->reason, sizeof f->reason, "RATE_LIMIT_EXCEEDED");
    } else {
        copy_trim(f->reason, sizeof f->reason, word);
        return 0;
    }
    return 1;
}

void gcp_classify_http(long http, const json_t *body, gcp_fault *f)
{
    memset(f, 0, sizeof *f);
    f->http = http;
    f->limit = -1;
    const json_t *e = json_object_get(body, "error");
    const char *msg = json_string_value(json_object_get(e, "message"));
    copy_trim(f->detail, sizeof f->detail, msg ? msg : json_string_value(json_object_get(body, "error_description")));
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(e, "errors"), i, x)
        if (classify_entry(x, f)) {
            if (f->status == GCP_QUOTA_EXCEEDED && !*f->metric)
                parse_quota_message(msg, f);   /* the top-level message names it */
            return;
        }
    json_t *top = json_pack("{s:s?, s:s?}", "reason", json_string_value(json_object_get(e, "status")), "message", msg);
    int decided = top && classify_entry(top, f);
    json_decref(top);
    if (decided)
        return;
    if (!*f->reason && json_string_value(json_object_get(e, "status")))
        copy_trim(f->reason, sizeof f->reason, json_string_value(json_object_get(e, "status")));
    if (http == 401)
        f->status = GCP_UNAUTHENTICATED;
    else if (http == 403)
        f->status = GCP_PERMISSION_DENIED;
    else if (http == 404)
        f->status = GCP_NOT_FOUND;
    else if (http == 409)
        f->status = GCP_ALREADY_EXISTS;
    else if (http == 429)
        f->status = GCP_RATE_LIMITED;
    else if (http >= 500)
        f->status = GCP_UNAVAILABLE;
    else if (http >= 400)
        f->status = GCP_BAD_REQUEST;
    else
        f->status = GCP_PROTOCOL;
}

void gcp_classify_operation(const json_t *op, gcp_fault *f)
{
    memset(f, 0, sizeof *f);
    f->limit = -1;
    const json_t *errors = json_object_get(json_object_get(op, "error"), "errors");
    if (!json_array_size(errors))
        return;
    json_t *http = json_object_get(op, "httpErrorStatusCode");
    f->http = json_is_integer(http) ? (long)json_integer_value(http) : 0;
    const json_t *first = json_array_get(errors, 0);
    copy_trim(f->detail, sizeof f->detail, json_string_value(json_object_get(first, "message")));
    size_t i;
    json_t *x;
    json_array_foreach(errors, i, x)
        if (classify_entry(x, f)) {
            copy_trim(f->detail, sizeof f->detail, json_string_value(json_object_get(x, "message")));
            return;
        }
    f->status = f->http == 403 ? GCP_PERMISSION_DENIED : f->http >= 500 ? GCP_UNAVAILABLE : GCP_BAD_REQUEST;
}

const char *gcp_fault_text(const gcp_fault *f, char *buf, size_t len)
{
    switch (f->status) {
    case GCP_QUOTA_EXCEEDED:
        if (*f->metric && f->limit >= 0)
            snprintf(buf, len, "QUOTA_EXCEEDED %s (limit %.0f)", f->metric, f->limit);
        else if (*f->metric)
            snprintf(buf, len, "QUOTA_EXCEEDED %s", f->metric);
        else
            snprintf(buf, len, "QUOTA_EXCEEDED: %s", f->detail);
        break;
    case GCP_ZONE_EXHAUSTED:
        snprintf(buf, len, "ZONE_RESOURCE_POOL_EXHAUSTED (the zone has no capacity for this machine now)");
        break;
    case GCP_UNAUTHENTICATED:
        snprintf(buf, len, "%ld %s%s%s (the service-account key was refused: is it deleted or disabled?)", f->http,
                 *f->reason ? f->reason : "UNAUTHENTICATED", *f->detail ? ": " : "", f->detail);
        break;
    case GCP_PERMISSION_DENIED:
        snprintf(buf, len, "403 PERMISSION_DENIED%s%s (grant the service account Compute Admin and enable the Compute Engine API)",
                 *f->detail ? ": " : "", f->detail);
        break;
    case GCP_RATE_LIMITED:
        snprintf(buf, len, "%ld RATE_LIMIT_EXCEEDED, still after %d attempts with backoff", f->http ? f->http : 429,
                 GCP_API_ATTEMPTS);
        break;
    case GCP_UNAVAILABLE:
        snprintf(buf, len, "%ld %s, still after %d attempts with backoff%s%s", f->http,
                 *f->reason ? f->reason : "server error", GCP_API_ATTEMPTS, *f->detail ? ": " : "", f->detail);
        break;
    case GCP_NETWORK:
        snprintf(buf, len, "no answer (%s), still after %d attempts", f->detail, GCP_API_ATTEMPTS);
        break;
    case GCP_TIMEOUT:
        snprintf(buf, len, "not DONE in time%s%s (it may still finish; the next cloud sync looks again)",
                 *f->detail ? ": " : "", f->detail);
        break;
    default:
        snprintf(buf, len, "%s", *f->reason ? f->reason : gcp_status_name(f->status));
        if (f->http)
            snprintf(buf + strlen(buf), len - strlen(buf), " (HTTP %ld)", f->http);
        if (*f->detail)
            snprintf(buf + strlen(buf), len - strlen(buf), ": %s", f->detail);
        break;
    }
    return buf;
}

rd_code gcp_fail(gcp_client *c, const char *what, const gcp_fault *f, rd_err *err)
{
    char text[400];
    static const rd_code codes[GCP_NSTATUS] = {
        RD_OK, RD_EINVAL, RD_EINVAL, RD_EEXISTS, RD_ENOTFOUND, RD_EPERM, RD_EPERM,
        RD_EINVAL, RD_EINVAL, RD_EINVAL, RD_EINVAL, RD_EINVAL, RD_EINVAL,
    };
    rd_code code = f->status < GCP_NSTATUS && f->status != GCP_OK ? codes[f->status] : RD_EINVAL;
    return rd_fail(err, code, "%s: %s failed: %s", c->label, what, gcp_fault_text(f, text, sizeof text));
}

/* ---- one exchange ----------------------------------------------------- */

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static int curl_ok;

static void curl_init_once(void)
{
    /* Never undone: OpenSSL cannot be set up again after a cleanup. */
    curl_ok = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
}

rd_code gcp_curl_ready(rd_err *err)
{
    pthread_once(&curl_once, curl_init_once);
    return curl_ok ? RD_OK : rd_fail(err, RD_ENOMEM, "gcp: cannot initialise libcurl");
}

typedef struct {
    strbuf body;
    int too_big;
    long retry_after;
} http_resp;

static size_t on_body(char *data, size_t size, size_t n, void *user)
{
    http_resp *r = user;
    size_t add = size * n;
    if (r->body.len + add > (size_t)RESPONSE_MAX) {
        r->too_big = 1;
        return 0;
    }
    strbuf_append(&r->body, data, add);
    return r->body.failed ? 0 : add;   /* out of memory: curl stops with a write error */
}

static size_t on_header(char *data, size_t size, size_t n, void *user)
{
    http_resp *r = user;
    size_t len = size * n;
    if (len > 12 && strncasecmp(data, "Retry-After:", 12) == 0)
        r->retry_after = strtol(data + 12, NULL, 10);
    return len;
}

rd_code gcp_http_raw(gcp_client *c, const char *method, const char *url, struct curl_slist *headers,
                     const char *body, size_t body_len, long *status, char **resp, long *retry_after_s,
                     char cerr[256], rd_err *err)
{
    http_resp r = { .retry_after = -1 };
    *status = 0;
    *resp = NULL;
    *retry_after_s = -1;
    cerr[0] = '\0';
    if (!c->curl && !(c->curl = curl_easy_init()))
        return rd_fail(err, RD_ENOMEM, "%s: cannot start a libcurl handle", c->label);
    CURL *h = c->curl;
    curl_easy_reset(h);
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, CONNECT_TIMEOUT_MS);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, REQUEST_TIMEOUT_MS);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    /* Plain http is only ever to this machine (a test server): an
     * http_proxy from the environment must not carry it, and the signed
     * assertion in it, off the machine. */
    if (urlcheck_is_loopback_http(url))
        curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, cerr);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &r);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &r);
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
    if (headers)
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    if (body) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
    } else if (strcmp(method, "GET") == 0) {
        curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    }
    CURLcode cc = curl_easy_perform(h);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, NULL);
    if (cc == CURLE_OK) {
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
    } else {
        if (!cerr[0])
            snprintf(cerr, 256, "%s", curl_easy_strerror(cc));
        if (r.too_big)
            snprintf(cerr, 256, "the answer is larger than %ld bytes", RESPONSE_MAX);
        strbuf_free(&r.body);
    }
    *resp = r.body.text ? r.body.text : strdup("");
    *retry_after_s = r.retry_after;
    if (!*resp)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    return RD_OK;
}
