/* store_etcd_watch.c - etcd watches: one streamed HTTP response per watch.
 *
 * Owns the watch handle.  POST /v3/watch with a create_request answers with
 * a never-ending body of newline-delimited JSON objects ({"result":{...}}),
 * read here through a curl multi handle that store_watch_next() drives for
 * at most its timeout; no threads.  Events are buffered in arrival order.
 * The handle remembers the first revision it has not received yet, so when
 * the member serving the stream dies it reconnects to another member from
 * that revision: events stay in order and each is returned exactly once
 * (etcd never splits one revision's events over two messages).  A start
 * revision that was compacted away ends in RD_EINVAL, at open or next.
 * store_etcd.c opens it with what it needs of the store handle (the
 * connection, the start revision), so nothing here calls back into it.
 */
#include "grow.h"
#include "store_etcd_impl.h"
#include "jsonin.h"
#include "rdtime.h"

#include <stdlib.h>
#include <string.h>

enum { POLL_SLICE_MS = 100, BACKOFF_MS = 100 };

typedef struct {
    store_watch base;
    etcd_conn *conn;        /* the store's: members, TLS, timing (it outlives us) */
    json_t *create;         /* the create_request minus start_revision */
    int64_t next_rev;       /* the first revision not received yet */
    size_t member;
    CURLM *multi;
    CURL *easy;             /* the current stream; NULL when down */
    char *body;             /* its request body (curl keeps a pointer) */
    struct curl_slist *hdrs;/* its own copy of the headers (a login may replace the store's) */
    strbuf line;            /* an incomplete NDJSON line */
    int created, broken;    /* the stream said "created" / failed or ended */
    int auth_lapsed;        /* it ended because etcd no longer takes our token */
    char why[300];          /* why it broke, for messages */
    store_event *q;
    size_t qn, qcap;
    rd_code fail;           /* sticky: a compacted start revision, out of memory */
    char fail_msg[300];
} etcd_watch;

static rd_code wfail(etcd_watch *w, rd_code code, const char *msg)
{
    if (!w->fail) {
        w->fail = code;
        snprintf(w->fail_msg, sizeof w->fail_msg, "%s", msg);
    }
    return code;
}

/* ---- reading the stream ------------------------------------------------------ */

static int queue_event(etcd_watch *w, const json_t *ev)
{
    if (grow_array(&w->q, &w->qcap, w->qn + 1, sizeof *w->q) != 0)
        return 0;
    store_event *e = &w->q[w->qn];
    rd_err err;
    const char *type = json_string_value(json_object_get(ev, "type"));   /* omitted for PUT */
    e->type = type && !strcmp(type, "DELETE") ? STORE_EVENT_DELETE : STORE_EVENT_PUT;
    if (etcd_kv_from_json(json_object_get(ev, "kv"), &e->kv, &err) != RD_OK)
        return 0;
    w->qn++;
    return 1;
}

static void handle_message(etcd_watch *w, const json_t *msg)
{
    const json_t *res = json_object_get(msg, "result");
    const json_t *error = json_object_get(msg, "error");
    if (error || !json_is_object(res)) {
        const char *m = json_string_value(json_object_get(error, "message"));
        snprintf(w->why, sizeof w->why, "%s", m ? m : "unexpected message on the watch stream");
        w->auth_lapsed |= m && strstr(m, "auth token") != NULL;
        w->broken = 1;
        return;
    }
    if (json_is_true(json_object_get(res, "created")))
        w->created = 1;
    if (json_is_true(json_object_get(res, "canceled"))) {
        int64_t compact = etcd_i64(res, "compact_revision");
        if (compact > 0) {
            char m[200];
            snprintf(m, sizeof m, "watch: revision %lld has been compacted (oldest available: %lld)",
                     (long long)w->next_rev, (long long)compact);
            wfail(w, RD_EINVAL, m);
        } else {
            const char *why = json_string_value(json_object_get(res, "cancel_reason"));
            snprintf(w->why, sizeof w->why, "watch canceled: %s", why && *why ? why : "no reason given");
            /* a restarted member forgot every token: it accepts the stream,
             * then cancels it; reconnecting with the same token would go on
             * forever */
            w->auth_lapsed |= why && strstr(why, "auth token") != NULL;
            w->broken = 1;
        }
        return;
    }
    const json_t *events = json_object_get(res, "events");
    int64_t top = 0;
    for (size_t i = 0; i < json_array_size(events); i++) {
        const json_t *ev = json_array_get(events, i);
        int64_t rev = etcd_i64(json_object_get(ev, "kv"), "mod_revision");
        if (rev < w->next_rev)
            continue;   /* already delivered by the stream before a reconnect */
        if (!queue_event(w, ev)) {
            wfail(w, RD_ENOMEM, "store: out of memory");
            return;
        }
        top = rev > top ? rev : top;
    }
    if (top)
        w->next_rev = top + 1;
}

static size_t on_stream(char *p, size_t size, size_t n, void *ud)
{
    etcd_watch *w = ud;
    size_t len = size * n;
    strbuf_append(&w->line, p, len);
    if (w->line.failed) {
        wfail(w, RD_ENOMEM, "store: out of memory");
        return 0;
    }
    char *start = w->line.text, *nl;
    while ((nl = memchr(start, '\n', w->line.len - (size_t)(start - w->line.text)))) {
        if (nl > start) {
            json_t *msg = jsonin_loadb_any(start, (size_t)(nl - start), NULL);
            if (msg)
                handle_message(w, msg);
            else if (strspn(start, " \r\t") < (size_t)(nl - start)) {
                snprintf(w->why, sizeof w->why, "unreadable message on the watch stream");
                w->broken = 1;
            }
            json_decref(msg);
        }
        start = nl + 1;
    }
    strbuf_drop(&w->line, (size_t)(start - w->line.text));
    return len;
}

/* ---- the stream's connection ---------------------------------------------------- */

static void stream_stop(etcd_watch *w)
{
    if (w->easy) {
        curl_multi_remove_handle(w->multi, w->easy);
        curl_easy_cleanup(w->easy);
        w->easy = NULL;
    }
    free(w->body);
    w->body = NULL;
    curl_slist_free_all(w->hdrs);
    w->hdrs = NULL;
    strbuf_clear(&w->line);
    w->created = w->broken = 0;
}

/* Drives the multi handle for up to ms; notices the end of the stream. */
static void pump(etcd_watch *w, long ms)
{
    int running = 0, left = 0;
    curl_multi_poll(w->multi, NULL, 0, ms > 0 ? (int)ms : 0, NULL);
    curl_multi_perform(w->multi, &running);
    CURLMsg *msg;
    while ((msg = curl_multi_info_read(w->multi, &left)))
        if (msg->msg == CURLMSG_DONE && msg->easy_handle == w->easy) {
            if (!w->broken)
                snprintf(w->why, sizeof w->why, "%s",
                         msg->data.result == CURLE_OK ? "the member ended the watch stream"
                                                      : curl_easy_strerror(msg->data.result));
            w->broken = 1;
        }
}

/* Connects one member and waits for "created" (or a failure). */
static int stream_try(etcd_watch *w, const etcd_member *m)
{
    char url[512];
    stream_stop(w);
    json_t *req = json_deep_copy(w->create);
    json_t *wrap = req ? json_pack("{s:o}", "create_request", req) : NULL;
    if (!wrap || json_object_set_new(req, "start_revision", etcd_ji64(w->next_rev)) ||
        !(w->body = json_dumps(wrap, JSON_COMPACT)) || !(w->easy = curl_easy_init())) {
        json_decref(wrap);
        wfail(w, RD_ENOMEM, "store: out of memory");
        return 0;
    }
    json_decref(wrap);
    snprintf(url, sizeof url, "%swatch", m->base);
    etcd_curl_setup(w->conn, w->easy, 0);   /* no total timeout: the stream lasts */
    for (const struct curl_slist *h = w->conn->hdrs; h; h = h->next) {
        struct curl_slist *t = curl_slist_append(w->hdrs, h->data);
        if (!t) {
            wfail(w, RD_ENOMEM, "store: out of memory");
            return 0;
        }
        w->hdrs = t;
    }
    curl_easy_setopt(w->easy, CURLOPT_HTTPHEADER, w->hdrs);
    curl_easy_setopt(w->easy, CURLOPT_URL, url);
    curl_easy_setopt(w->easy, CURLOPT_POSTFIELDS, w->body);
    curl_easy_setopt(w->easy, CURLOPT_WRITEFUNCTION, on_stream);
    curl_easy_setopt(w->easy, CURLOPT_WRITEDATA, w);
    /* notice a member that vanished without closing the connection */
    curl_easy_setopt(w->easy, CURLOPT_TCP_KEEPIDLE, 5L);
    curl_easy_setopt(w->easy, CURLOPT_TCP_KEEPINTVL, 5L);
    if (curl_multi_add_handle(w->multi, w->easy) != CURLM_OK) {
        curl_easy_cleanup(w->easy);
        w->easy = NULL;
        wfail(w, RD_ENOMEM, "store: cannot start a watch transfer");
        return 0;
    }
    int64_t until = rdtime_mono_ms() + w->conn->t.request_ms;
    while (!w->created && !w->broken && !w->fail && rdtime_mono_ms() < until)
        pump(w, POLL_SLICE_MS);
    if (w->created || w->fail)
        return 1;
    if (!w->broken)
        snprintf(w->why, sizeof w->why, "no answer within %ld ms", w->conn->t.request_ms);
    return 0;
}

/* (Re)establishes the stream from next_rev, rotating across members. */
static rd_code stream_up(etcd_watch *w, rd_err *err)
{
    char last[400] = "";
    int64_t start = rdtime_mono_ms();
    size_t n = w->conn->nmembers;
    for (size_t tried = 1;; tried++) {
        const etcd_member *m = &w->conn->members[w->member];
        if (stream_try(w, m))
            return RD_OK;
        if (w->fail)
            return RD_OK;
        snprintf(last, sizeof last, "%s: %s", m->name, w->why);
        stream_stop(w);
        w->member = (w->member + 1) % n;
        if (tried % n == 0) {
            if (rdtime_mono_ms() - start >= w->conn->t.op_ms)
                break;
            etcd_sleep_ms(BACKOFF_MS);
        }
    }
    return rd_fail(err, RD_ESTORE, "etcd %s: cannot keep a watch open, no member reachable (last error: %s)",
                   w->conn->names, last);
}

/* ---- the calls store_etcd.c's backend table makes ------------------------------- */

rd_code etcd_watch_open(store_t *st, etcd_conn *conn, size_t member, const char *prefix, int64_t after_rev,
                        store_watch **out, rd_err *err)
{
    *out = NULL;
    if (after_rev < 0)
        return rd_fail(err, RD_EINVAL, "store watch: revision %lld is negative", (long long)after_rev);
    if (!prefix)
        prefix = "";
    etcd_watch *w = calloc(1, sizeof *w);
    if (!w)
        return rd_fail(err, RD_ENOMEM, "store: out of memory");
    w->conn = conn;
    w->member = member;
    w->base.st = st;
    rd_code rc = RD_OK;
    w->next_rev = after_rev + 1;
    w->create = json_object();
    w->multi = curl_multi_init();
    if (!rc && (!w->create || !w->multi || json_object_set_new(w->create, "key", etcd_range_key(prefix)) ||
                json_object_set_new(w->create, "range_end", etcd_range_end(prefix))))
        rc = rd_fail(err, RD_ENOMEM, "store: out of memory");
    if (!rc)
        rc = stream_up(w, err);
    if (!rc && w->fail)
        rc = rd_fail(err, w->fail, "%s", w->fail_msg);
    if (rc) {
        etcd_watch_close(&w->base);
        return rc;
    }
    *out = &w->base;
    return RD_OK;
}

rd_code etcd_watch_next(store_watch *sw, int timeout_ms, store_event **events, size_t *count, rd_err *err)
{
    etcd_watch *w = (etcd_watch *)sw;
    int64_t deadline = rdtime_mono_ms() + (timeout_ms > 0 ? timeout_ms : 0);
    for (;;) {
        if (w->qn) {
            *events = w->q;
            *count = w->qn;
            w->q = NULL;
            w->qn = w->qcap = 0;
            return RD_OK;
        }
        if (w->fail)
            return rd_fail(err, w->fail, "%s", w->fail_msg);
        if (!w->easy || w->broken) {
            stream_stop(w);
            w->member = (w->member + 1) % w->conn->nmembers;
            if (w->auth_lapsed && w->conn->token) {
                /* log in again (as etcd_conn_call does for a request); a
                 * failure shows in the reconnection's own error */
                rd_err ignored = { 0 };
                etcd_conn_login(w->conn, &ignored);
            }
            w->auth_lapsed = 0;
            rd_code rc = stream_up(w, err);
            if (rc)
                return rc;
            /* a stream that keeps breaking must not keep the caller here
             * past its timeout: it has rounds of its own to run */
            if (timeout_ms >= 0 && rdtime_mono_ms() >= deadline && !w->qn && !w->fail)
                return RD_OK;
            continue;
        }
        int64_t left = deadline - rdtime_mono_ms();
        if (timeout_ms >= 0 && left <= 0)
            return RD_OK;
        pump(w, timeout_ms < 0 || left > POLL_SLICE_MS ? POLL_SLICE_MS : (long)left);
    }
}

void etcd_watch_close(store_watch *sw)
{
    etcd_watch *w = (etcd_watch *)sw;
    if (!w)
        return;
    stream_stop(w);
    if (w->multi)
        curl_multi_cleanup(w->multi);
    json_decref(w->create);
    strbuf_free(&w->line);
    store_events_free(w->q, w->qn);
    free(w);
}
