/* webhook.c - the webhook delivery thread and its bounded queue (see
 * webhook.h).
 *
 * One thread, one change at a time, in the order they happened: receivers
 * see an alert's firing before its resolution.  A failed try (no answer
 * within the timeout, a connection refused, a status other than 2xx) is
 * retried after webhook_backoff_ms; the last failure gives the change up.
 * Each outcome is one log line.  Stopping interrupts a request in flight
 * (curl's progress callback) and a backoff wait (the condition variable),
 * so SIGTERM never waits for a receiver.
 */
#include "webhook.h"

#include <curl/curl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { DEFAULT_CAPACITY = 256, DEFAULT_ATTEMPTS = 5, DEFAULT_FIRST_MS = 1000, DEFAULT_TIMEOUT_MS = 5000,
       MAX_BACKOFF_MS = 60000 };

typedef struct {
    char *url, *body;
} hook_item;

struct webhook_queue {
    webhook_opts o;
    const dlog_sink *log;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    hook_item *items;        /* ring of o.capacity */
    size_t head, count;
    int stop, started, busy;   /* busy: a change is being delivered */
    pthread_t thread;
};

int64_t webhook_backoff_ms(int attempt, int64_t first_ms)
{
    if (attempt <= 1)
        return 0;
    int64_t ms = first_ms;
    for (int i = 2; i < attempt && ms < MAX_BACKOFF_MS; i++)
        ms *= 2;
    return ms < MAX_BACKOFF_MS ? ms : MAX_BACKOFF_MS;
}

webhook_queue *webhook_new(const webhook_opts *opts, const dlog_sink *log)
{
    webhook_queue *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    if (opts)
        q->o = *opts;
    if (!q->o.capacity)
        q->o.capacity = DEFAULT_CAPACITY;
    if (q->o.attempts <= 0)
        q->o.attempts = DEFAULT_ATTEMPTS;
    if (q->o.first_retry_ms <= 0)
        q->o.first_retry_ms = DEFAULT_FIRST_MS;
    if (q->o.timeout_ms <= 0)
        q->o.timeout_ms = DEFAULT_TIMEOUT_MS;
    q->log = log;
    q->items = calloc(q->o.capacity, sizeof *q->items);
    if (!q->items) {
        free(q);
        return NULL;
    }
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->cv, NULL);
    return q;
}

static void item_free(hook_item *it)
{
    free(it->url);
    free(it->body);
    it->url = it->body = NULL;
}

void webhook_post(webhook_queue *q, const char *url, const json_t *payload)
{
    if (!q || !url || !payload)
        return;
    hook_item it = { strdup(url), json_dumps(payload, JSON_COMPACT | JSON_SORT_KEYS) };
    if (!it.url || !it.body) {
        dlog(q->log, "webhook", NULL, "out of memory: a change for %s dropped", url);
        item_free(&it);
        return;
    }
    pthread_mutex_lock(&q->mu);
    if (q->count == q->o.capacity) {
        hook_item *old = &q->items[q->head];
        dlog(q->log, "webhook", NULL, "queue full (%zu): dropped the oldest change for %s: %s", q->o.capacity,
             old->url, old->body);
        item_free(old);
        q->head = (q->head + 1) % q->o.capacity;
        q->count--;
    }
    q->items[(q->head + q->count) % q->o.capacity] = it;
    q->count++;
    pthread_cond_broadcast(&q->cv);   /* the thread, not only a drain waiter */
    pthread_mutex_unlock(&q->mu);
}

size_t webhook_pending(webhook_queue *q)
{
    pthread_mutex_lock(&q->mu);
    size_t n = q->count;
    pthread_mutex_unlock(&q->mu);
    return n;
}

static const hook_item *pending_at(webhook_queue *q, size_t i)
{
    return i < q->count ? &q->items[(q->head + i) % q->o.capacity] : NULL;
}

const char *webhook_pending_url(webhook_queue *q, size_t i)
{
    const hook_item *it = pending_at(q, i);
    return it ? it->url : NULL;
}

const char *webhook_pending_body(webhook_queue *q, size_t i)
{
    const hook_item *it = pending_at(q, i);
    return it ? it->body : NULL;
}

/* ---- delivery --------------------------------------------------------------- */

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static int curl_ready;

static void curl_init_once(void)
{
    /* Never undone: OpenSSL cannot be set up again after a cleanup. */
    curl_ready = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
}

static size_t discard_body(char *ptr, size_t size, size_t n, void *data)
{
    (void)ptr;
    (void)data;
    return size * n;
}

static int stop_requested(webhook_queue *q)
{
    pthread_mutex_lock(&q->mu);
    int stop = q->stop;
    pthread_mutex_unlock(&q->mu);
    return stop;
}

static int abort_on_stop(void *data, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
    (void)a, (void)b, (void)c, (void)d;
    return stop_requested(data);
}

/* One try: 1 on a 2xx answer; else 0 with why in buf. */
static int post_once(webhook_queue *q, const hook_item *it, char *why, size_t whylen)
{
    CURL *c = curl_easy_init();
    if (!c) {
        snprintf(why, whylen, "cannot start a request");
        return 0;
    }
    struct curl_slist *hdr = curl_slist_append(NULL, "Content-Type: application/json");
    curl_easy_setopt(c, CURLOPT_URL, it->url);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, it->body);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "rigdeck-alerts");
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)q->o.timeout_ms);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard_body);
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, abort_on_stop);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, q);
    CURLcode cc = curl_easy_perform(c);
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(hdr);
    curl_easy_cleanup(c);
    if (cc != CURLE_OK) {
        snprintf(why, whylen, "%s", curl_easy_strerror(cc));
        return 0;
    }
    if (status < 200 || status > 299) {
        snprintf(why, whylen, "HTTP %ld", status);
        return 0;
    }
    return 1;
}

/* Sleeps ms unless stop comes first; 1 when stopping. */
static int wait_or_stop(webhook_queue *q, int64_t ms)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += (time_t)(ms / 1000);
    until.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&q->mu);
    while (!q->stop && pthread_cond_timedwait(&q->cv, &q->mu, &until) == 0)
        ;   /* a post woke us: keep waiting out the backoff */
    int stop = q->stop;
    pthread_mutex_unlock(&q->mu);
    return stop;
}

static void deliver(webhook_queue *q, hook_item *it)
{
    char why[256] = "";
    for (int attempt = 1; attempt <= q->o.attempts; attempt++) {
        if (attempt > 1 && wait_or_stop(q, webhook_backoff_ms(attempt, q->o.first_retry_ms))) {
            dlog(q->log, "webhook", NULL, "stopping: abandoned a change for %s after %d tries: %s", it->url,
                 attempt - 1, it->body);
            return;
        }
        if (post_once(q, it, why, sizeof why)) {
            dlog(q->log, "webhook", NULL, "delivered to %s (try %d): %s", it->url, attempt, it->body);
            return;
        }
        if (stop_requested(q)) {
            dlog(q->log, "webhook", NULL, "stopping: abandoned a change for %s during try %d: %s", it->url, attempt,
                 it->body);
            return;
        }
        if (attempt < q->o.attempts)
            dlog(q->log, "webhook", NULL, "try %d of %d to %s failed (%s); next in %lld ms", attempt, q->o.attempts,
                 it->url, why, (long long)webhook_backoff_ms(attempt + 1, q->o.first_retry_ms));
    }
    dlog(q->log, "webhook", NULL, "gave up on %s after %d tries (%s): %s", it->url, q->o.attempts, why, it->body);
}

static void *delivery_thread(void *data)
{
    webhook_queue *q = data;
    for (;;) {
        pthread_mutex_lock(&q->mu);
        while (!q->stop && q->count == 0)
            pthread_cond_wait(&q->cv, &q->mu);
        if (q->stop) {
            pthread_mutex_unlock(&q->mu);
            return NULL;
        }
        hook_item it = q->items[q->head];
        q->items[q->head].url = q->items[q->head].body = NULL;
        q->head = (q->head + 1) % q->o.capacity;
        q->count--;
        q->busy = 1;
        pthread_mutex_unlock(&q->mu);
        deliver(q, &it);
        item_free(&it);
        pthread_mutex_lock(&q->mu);
        q->busy = 0;
        pthread_cond_broadcast(&q->cv);
        pthread_mutex_unlock(&q->mu);
    }
}

rd_code webhook_start(webhook_queue *q, rd_err *err)
{
    pthread_once(&curl_once, curl_init_once);
    if (!curl_ready)
        return rd_fail(err, RD_ENOMEM, "webhooks: libcurl could not be initialised");
    /* SIGTERM and SIGINT are the main loop's: the thread never takes them */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGINT);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int failed = pthread_create(&q->thread, NULL, delivery_thread, q) != 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (failed)
        return rd_fail(err, RD_ENOMEM, "webhooks: cannot start the delivery thread");
    q->started = 1;
    return RD_OK;
}

int webhook_drain(webhook_queue *q, int64_t timeout_ms)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += (time_t)(timeout_ms / 1000);
    until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&q->mu);
    int rc = 0;
    while (q->started && !q->stop && (q->count || q->busy) && rc == 0)
        rc = pthread_cond_timedwait(&q->cv, &q->mu, &until);
    int done = !q->count && !q->busy;
    pthread_mutex_unlock(&q->mu);
    return done;
}

void webhook_stop(webhook_queue *q)
{
    if (!q)
        return;
    pthread_mutex_lock(&q->mu);
    q->stop = 1;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
    if (q->started)
        pthread_join(q->thread, NULL);
    if (q->count)
        dlog(q->log, "webhook", NULL, "stopping: dropped %zu undelivered change(s)", q->count);
    for (size_t i = 0; i < q->count; i++)
        item_free(&q->items[(q->head + i) % q->o.capacity]);
    free(q->items);
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->cv);
    free(q);
}
