/* metrics_http.c - the agent's Prometheus endpoint (metrics_http.h): the
 * --metrics-listen parser, the text-format renderer and the libmicrohttpd
 * server that answers GET /metrics with the latest rendering.
 *
 * The socket is bound here rather than by libmicrohttpd so that a port in
 * use is reported with the system's reason (libmicrohttpd only says NULL);
 * the daemon takes it over with MHD_OPTION_LISTEN_SOCKET and closes it when
 * stopped.
 *
 * Slow clients cannot starve a scrape.  libmicrohttpd's timeout is idle
 * time, restarted by every byte, so a client that sends a header line every
 * few seconds would keep its connection for ever, and 32 of them would fill
 * every slot.  The guard here bounds a request's whole time
 * (REQUEST_DEADLINE_S from the connection, or from the previous answer on a
 * kept-alive one, to the answer) with a thread of its own, and when
 * CONNECTION_LIMIT connections are open a newcomer evicts the oldest one
 * still waiting for its request: a scrape, whose request arrives at once,
 * always gets in.  A connection is cut with shutdown(); libmicrohttpd then
 * sees the end of the stream and closes it itself.
 */
#include "metrics_http.h"

#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "metrics.h"
#include "rdtime.h"

enum {
    LISTEN_BACKLOG = 64,
    CONNECTION_LIMIT = 32,       /* scrapers are few; past this a newcomer evicts a waiting connection */
    CONNECTION_HARD_LIMIT = 64,  /* libmicrohttpd's own cap: room for evicted ones it has not closed yet */
    CONNECTION_TIMEOUT_S = 10,   /* a client that stalls is dropped */
    REQUEST_DEADLINE_S = 10      /* a request's whole time, however slowly it trickles in */
};

static const char CONTENT_TYPE[] = "text/plain; version=0.0.4; charset=utf-8";

/* A connection the guard watches. */
typedef struct {
    struct MHD_Connection *conn;
    int fd;
    int64_t since_ms;            /* monotonic: connected, or its previous request answered */
    int answering;               /* its request arrived whole and is being answered */
    int cut;                     /* shut down by the guard; libmicrohttpd closes it next */
} guard_slot;

struct metrics_http {
    struct MHD_Daemon *daemon;
    pthread_mutex_t lock;        /* guards text */
    char *text;                  /* the rendering served, malloc'd */
    char node[256];
    char address[METRICS_HTTP_ADDR_MAX];
    pthread_mutex_t guard_lock;  /* guards the fields below */
    pthread_cond_t guard_wake;   /* a new connection, or stopping */
    guard_slot slots[CONNECTION_HARD_LIMIT];
    size_t nslots;
    int stopping;
    pthread_t guard;
};

/* ---- HOST:PORT ------------------------------------------------------------ */

static rd_code parse_port(const char *text, const char *port, unsigned *out, rd_err *err)
{
    unsigned long n = 0;
    if (!*port)
        return rd_fail(err, RD_EUSAGE, "--metrics-listen: '%s' has no port (HOST:PORT, e.g. 127.0.0.1:9400)", text);
    for (const char *p = port; *p; p++) {
        if (*p < '0' || *p > '9' || n > 65535)
            return rd_fail(err, RD_EUSAGE, "--metrics-listen: port must be a number 1-65535, got '%s'", port);
        n = n * 10 + (unsigned long)(*p - '0');
    }
    if (n == 0 || n > 65535)
        return rd_fail(err, RD_EUSAGE, "--metrics-listen: port must be 1-65535 (Prometheus scrapes a fixed port), got '%s'",
                       port);
    *out = (unsigned)n;
    return RD_OK;
}

rd_code metrics_http_parse_listen(const char *text, struct sockaddr_storage *addr, socklen_t *len, rd_err *err)
{
    char host[256];
    const char *port;
    int bracketed = 0;
    if (!text || !*text)
        return rd_fail(err, RD_EUSAGE, "--metrics-listen: expected HOST:PORT (e.g. 127.0.0.1:9400 or [::1]:9400)");
    if (text[0] == '[') {
        const char *close = strchr(text, ']');
        if (!close || close[1] != ':')
            return rd_fail(err, RD_EUSAGE, "--metrics-listen: expected [IPV6]:PORT (e.g. [::1]:9400), got '%s'", text);
        if ((size_t)(close - text - 1) >= sizeof host || close == text + 1)
            return rd_fail(err, RD_EUSAGE, "--metrics-listen: bad IPv6 address in '%s'", text);
        memcpy(host, text + 1, (size_t)(close - text - 1));
        host[close - text - 1] = '\0';
        port = close + 2;
        bracketed = 1;
    } else {
        const char *colon = strrchr(text, ':');
        if (!colon)
            return rd_fail(err, RD_EUSAGE, "--metrics-listen: expected HOST:PORT (e.g. 127.0.0.1:9400), got '%s'", text);
        if (memchr(text, ':', (size_t)(colon - text)))
            return rd_fail(err, RD_EUSAGE, "--metrics-listen: an IPv6 address goes in brackets ([::1]:9400), got '%s'",
                           text);
        if ((size_t)(colon - text) >= sizeof host)
            return rd_fail(err, RD_EUSAGE, "--metrics-listen: host name too long in '%s'", text);
        memcpy(host, text, (size_t)(colon - text));
        host[colon - text] = '\0';
        port = colon + 1;
    }
    unsigned portno = 0;
    rd_code rc = parse_port(text, port, &portno, err);
    if (rc != RD_OK)
        return rc;

    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_family = bracketed ? AF_INET6 : host[0] ? AF_UNSPEC : AF_INET;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV | (bracketed ? AI_NUMERICHOST : 0);
    int gai = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
    if (gai != 0 || !res) {
        if (res)
            freeaddrinfo(res);
        if (bracketed)
            return rd_fail(err, RD_EUSAGE, "--metrics-listen: '%s' is not an IPv6 address", host);
        return rd_fail(err, RD_EUSAGE, "--metrics-listen: cannot resolve '%s': %s", host,
                       gai == EAI_SYSTEM ? strerror(errno) : gai_strerror(gai));
    }
    memset(addr, 0, sizeof *addr);
    memcpy(addr, res->ai_addr, res->ai_addrlen);
    *len = res->ai_addrlen;
    freeaddrinfo(res);
    return RD_OK;
}

/* "127.0.0.1:9400" or "[::1]:9400" */
static void format_address(const struct sockaddr *sa, char buf[METRICS_HTTP_ADDR_MAX])
{
    char ip[INET6_ADDRSTRLEN] = "?";
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)(const void *)sa;
        inet_ntop(AF_INET6, &s6->sin6_addr, ip, sizeof ip);
        snprintf(buf, METRICS_HTTP_ADDR_MAX, "[%s]:%u", ip, (unsigned)ntohs(s6->sin6_port));
    } else {
        const struct sockaddr_in *s4 = (const struct sockaddr_in *)(const void *)sa;
        inet_ntop(AF_INET, &s4->sin_addr, ip, sizeof ip);
        snprintf(buf, METRICS_HTTP_ADDR_MAX, "%s:%u", ip, (unsigned)ntohs(s4->sin_port));
    }
}

/* ---- the text format ---------------------------------------------------- */

/* A label value: backslash, double quote and newline escaped. */
static void put_label_value(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\\\", f);
        else if (*s == '"')
            fputs("\\\"", f);
        else if (*s == '\n')
            fputs("\\n", f);
        else
            fputc(*s, f);
    }
}

/* HELP text: backslash and newline escaped (quotes are fine there). */
static void put_help(FILE *f, const char *family, const char *help)
{
    fprintf(f, "# HELP %s ", family);
    for (const char *s = help; *s; s++) {
        if (*s == '\\')
            fputs("\\\\", f);
        else if (*s == '\n')
            fputs("\\n", f);
        else
            fputc(*s, f);
    }
    fprintf(f, "\n# TYPE %s gauge\n", family);
}

/* A plain decimal, never an exponent (60, not 6e+01; 0.0000001, not
 * 1e-07): what exporters write and people read.  Integers print as
 * integers, a fraction with the fewest decimals that read back as the
 * same double (12.3, not 12.300000000000001). */
static void put_number(FILE *f, const json_t *v)
{
    if (json_is_integer(v)) {
        fprintf(f, "%lld", (long long)json_integer_value(v));
        return;
    }
    double d = json_real_value(v);
    /* 340 decimals reach the smallest double; 400 bytes hold the largest */
    char buf[400];
    for (int decimals = 0; decimals <= 340; decimals++) {
        snprintf(buf, sizeof buf, "%.*f", decimals, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    fputs(strcmp(buf, "-0") == 0 ? "0" : buf, f);
}

/* A value the format can carry: a JSON number that is finite (null, a
 * missing stat or anything else is left out). */
static int is_reading(const json_t *v)
{
    return json_is_integer(v) || (json_is_real(v) && isfinite(json_real_value(v)));
}

static void put_sample(FILE *f, const char *family, const char *node, const json_t *gpu_index, const json_t *v)
{
    fprintf(f, "%s{node=\"", family);
    put_label_value(f, node);
    if (gpu_index)
        fprintf(f, "\",gpu=\"%lld", (long long)json_integer_value(gpu_index));
    fputs("\"} ", f);
    put_number(f, v);
    fputc('\n', f);
}

/* One family: HELP and TYPE, then a sample per reading; nothing at all
 * when no reading has a value (a family without samples says nothing). */
static void put_stat(FILE *f, const metrics_stat *st, const char *node, const json_t *stats)
{
    char family[96];
    int said = 0;
    snprintf(family, sizeof family, "rigdeck_%s", st->name);
    if (!st->per_gpu) {
        const json_t *v = json_object_get(stats, st->name);
        if (is_reading(v)) {
            put_help(f, family, st->help && *st->help ? st->help : st->name);
            put_sample(f, family, node, NULL, v);
        }
        return;
    }
    size_t i;
    const json_t *g;
    json_array_foreach(json_object_get(stats, "gpus"), i, g) {
        const json_t *idx = json_object_get(g, "index"), *v = json_object_get(g, st->name);
        if (!json_is_integer(idx) || !is_reading(v))
            continue;
        if (!said)
            put_help(f, family, st->help && *st->help ? st->help : st->name);
        said = 1;
        put_sample(f, family, node, idx, v);
    }
}

char *metrics_http_format(const char *node, const json_t *stats, rd_time sampled_at)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    json_t *one = json_integer(1);
    put_help(f, "rigdeck_up", "1 while the node's agent serves its vital stats.");
    put_sample(f, "rigdeck_up", node, NULL, one);
    json_decref(one);
    if (stats) {
        json_t *t = json_integer(sampled_at);
        put_help(f, "rigdeck_sample_timestamp_seconds", "Unix time of the vital-stats reading shown.");
        put_sample(f, "rigdeck_sample_timestamp_seconds", node, NULL, t);
        json_decref(t);
        for (size_t i = 0; i < metrics_stat_count(); i++)
            put_stat(f, metrics_stat_at(i), node, stats);
    }
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* ---- the server --------------------------------------------------------- */

static enum MHD_Result respond(struct MHD_Connection *c, unsigned status, const char *body, const char *type,
                               const char *allow)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    if (allow)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
    enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ok;
}

/* ---- the guard: whole-request deadline, eviction at the limit ------------ */

/* Under guard_lock.  shutdown(), not close(): the descriptor stays
 * libmicrohttpd's, which reads the end of the stream and closes the
 * connection; the slot goes when it says so (on_connection). */
static void guard_cut(guard_slot *s)
{
    shutdown(s->fd, SHUT_RDWR);
    s->cut = 1;
}

static guard_slot *guard_find(metrics_http *h, const struct MHD_Connection *c)
{
    for (size_t i = 0; i < h->nslots; i++)
        if (h->slots[i].conn == c)
            return &h->slots[i];
    return NULL;
}

/* Under guard_lock: cuts every connection past its deadline; the next
 * deadline (INT64_MAX when none). */
static int64_t guard_sweep(metrics_http *h, int64_t now)
{
    int64_t next = INT64_MAX;
    for (size_t i = 0; i < h->nslots; i++) {
        guard_slot *s = &h->slots[i];
        int64_t due = s->since_ms + (int64_t)REQUEST_DEADLINE_S * 1000;
        if (s->cut)
            continue;
        if (due <= now)
            guard_cut(s);
        else if (due < next)
            next = due;
    }
    return next;
}

static void *guard_main(void *data)
{
    metrics_http *h = data;
    pthread_mutex_lock(&h->guard_lock);
    while (!h->stopping) {
        int64_t next = guard_sweep(h, rdtime_mono_ms());
        if (next == INT64_MAX) {
            pthread_cond_wait(&h->guard_wake, &h->guard_lock);
            continue;
        }
        struct timespec until = { (time_t)(next / 1000), (long)(next % 1000) * 1000000L };
        pthread_cond_timedwait(&h->guard_wake, &h->guard_lock, &until);
    }
    pthread_mutex_unlock(&h->guard_lock);
    return NULL;
}

/* Before libmicrohttpd takes a new connection: make room for it.  Past
 * CONNECTION_LIMIT the oldest connection still waiting for its request goes
 * (a slow client, or an idle kept-alive one); one being answered stays. */
static enum MHD_Result on_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
    metrics_http *h = cls;
    (void)addr;
    (void)addrlen;
    pthread_mutex_lock(&h->guard_lock);
    guard_sweep(h, rdtime_mono_ms());
    size_t live = 0;
    guard_slot *oldest = NULL;
    for (size_t i = 0; i < h->nslots; i++) {
        guard_slot *s = &h->slots[i];
        if (s->cut)
            continue;
        live++;
        if (!s->answering && (!oldest || s->since_ms < oldest->since_ms))
            oldest = s;
    }
    if (live >= CONNECTION_LIMIT && oldest)
        guard_cut(oldest);
    pthread_mutex_unlock(&h->guard_lock);
    return MHD_YES;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    metrics_http *h = cls;
    (void)socket_context;
    pthread_mutex_lock(&h->guard_lock);
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (info && h->nslots < CONNECTION_HARD_LIMIT) {
            h->slots[h->nslots++] = (guard_slot){ c, info->connect_fd, rdtime_mono_ms(), 0, 0 };
            pthread_cond_signal(&h->guard_wake);
        } else if (info) {
            shutdown(info->connect_fd, SHUT_RDWR);   /* cannot be watched: not kept */
        }
    } else {
        guard_slot *s = guard_find(h, c);
        if (s)
            *s = h->slots[--h->nslots];
    }
    pthread_mutex_unlock(&h->guard_lock);
}

/* A request answered: a kept-alive connection's next request has a
 * deadline of its own. */
static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    metrics_http *h = cls;
    (void)con_cls;
    (void)toe;
    pthread_mutex_lock(&h->guard_lock);
    guard_slot *s = guard_find(h, c);
    if (s) {
        s->answering = 0;
        s->since_ms = rdtime_mono_ms();
    }
    pthread_mutex_unlock(&h->guard_lock);
}

static void mark_answering(metrics_http *h, const struct MHD_Connection *c)
{
    pthread_mutex_lock(&h->guard_lock);
    guard_slot *s = guard_find(h, c);
    if (s)
        s->answering = 1;
    pthread_mutex_unlock(&h->guard_lock);
}

static rd_code guard_init(metrics_http *h, rd_err *err)
{
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr) != 0)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    int bad = pthread_cond_init(&h->guard_wake, &attr) != 0;
    pthread_condattr_destroy(&attr);
    if (bad)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    pthread_mutex_init(&h->guard_lock, NULL);
    return RD_OK;
}

static rd_code guard_start(metrics_http *h, const char *listen, rd_err *err)
{
    /* SIGTERM and SIGINT are the agent loop's: this thread never takes them */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGINT);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int failed = pthread_create(&h->guard, NULL, guard_main, h) != 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (failed)
        return rd_fail(err, RD_ENOMEM, "--metrics-listen %s: cannot start the connection guard thread", listen);
    return RD_OK;
}

static void guard_stop(metrics_http *h)
{
    pthread_mutex_lock(&h->guard_lock);
    h->stopping = 1;
    pthread_cond_signal(&h->guard_wake);
    pthread_mutex_unlock(&h->guard_lock);
    pthread_join(h->guard, NULL);
}

static void guard_destroy(metrics_http *h)
{
    pthread_cond_destroy(&h->guard_wake);
    pthread_mutex_destroy(&h->guard_lock);
}

/* ---- requests ------------------------------------------------------------ */

/* Runs on libmicrohttpd's thread: reads only h->text, under the lock. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
    metrics_http *h = cls;
    (void)version;
    (void)upload_data;
    (void)upload_data_size;
    (void)con_cls;
    mark_answering(h, c);
    if (strcmp(url, "/metrics") != 0)
        return respond(c, MHD_HTTP_NOT_FOUND, "not found: the metrics are at /metrics\n", "text/plain; charset=utf-8",
                       NULL);
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
        return respond(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed: GET /metrics\n",
                       "text/plain; charset=utf-8", "GET, HEAD");
    pthread_mutex_lock(&h->lock);
    enum MHD_Result ok = respond(c, MHD_HTTP_OK, h->text, CONTENT_TYPE, NULL);
    pthread_mutex_unlock(&h->lock);
    return ok;
}

/* A listening socket on addr, or -1 with the reason in err. */
static int listen_on(const struct sockaddr *addr, socklen_t len, const char *what, rd_err *err)
{
    int one = 1;
    int fd = socket(addr->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        rd_fail(err, RD_EINVAL, "--metrics-listen %s: cannot open a socket: %s", what, strerror(errno));
        return -1;
    }
    /* A restarted agent takes its port back at once, even while the old
     * connections sit in TIME_WAIT; a live listener still refuses it. */
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, addr, len) != 0 || listen(fd, LISTEN_BACKLOG) != 0) {
        int e = errno;
        rd_fail(err, RD_EINVAL, "--metrics-listen %s: cannot listen: %s%s", what, strerror(e),
                e == EADDRINUSE ? " (another process serves that port)" : "");
        close(fd);
        return -1;
    }
    return fd;
}

rd_code metrics_http_start(const char *listen, const char *node, metrics_http **out, rd_err *err)
{
    struct sockaddr_storage addr;
    socklen_t len = 0;
    *out = NULL;
    rd_code rc = metrics_http_parse_listen(listen, &addr, &len, err);
    if (rc != RD_OK)
        return rc;
    metrics_http *h = calloc(1, sizeof *h);
    if (!h)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    snprintf(h->node, sizeof h->node, "%s", node);
    h->text = metrics_http_format(h->node, NULL, 0);
    if (!h->text) {
        free(h);
        return rd_fail(err, RD_ENOMEM, "out of memory");
    }
    int fd = listen_on((const struct sockaddr *)&addr, len, listen, err);
    if (fd < 0) {
        free(h->text);
        free(h);
        return RD_EINVAL;
    }
    struct sockaddr_storage bound;
    socklen_t blen = sizeof bound;
    if (getsockname(fd, (struct sockaddr *)&bound, &blen) == 0)
        format_address((const struct sockaddr *)&bound, h->address);
    else
        snprintf(h->address, sizeof h->address, "%s", listen);
    if ((rc = guard_init(h, err)) != RD_OK) {
        close(fd);
        free(h->text);
        free(h);
        return rc;
    }
    pthread_mutex_init(&h->lock, NULL);
    unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ITC | (addr.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0);
    h->daemon = MHD_start_daemon(flags, 0, on_accept, h, on_request, h, MHD_OPTION_LISTEN_SOCKET, fd,
                                 MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONNECTION_HARD_LIMIT,
                                 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONNECTION_TIMEOUT_S,
                                 MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
                                 MHD_OPTION_NOTIFY_COMPLETED, on_completed, h, MHD_OPTION_END);
    if (!h->daemon)
        close(fd);
    if (!h->daemon || (rc = guard_start(h, listen, err)) != RD_OK) {
        if (h->daemon)
            MHD_stop_daemon(h->daemon);
        else
            rc = rd_fail(err, RD_EINVAL, "--metrics-listen %s: cannot start the HTTP server", listen);
        pthread_mutex_destroy(&h->lock);
        guard_destroy(h);
        free(h->text);
        free(h);
        return rc;
    }
    *out = h;
    return RD_OK;
}

const char *metrics_http_address(const metrics_http *h)
{
    return h->address;
}

void metrics_http_publish(metrics_http *h, const json_t *stats, rd_time sampled_at)
{
    if (!h)
        return;
    /* Rendered here, on the agent's thread; the server only copies text. */
    char *text = metrics_http_format(h->node, stats, sampled_at);
    if (!text)
        return;   /* out of memory: keep serving the previous reading */
    pthread_mutex_lock(&h->lock);
    char *old = h->text;
    h->text = text;
    pthread_mutex_unlock(&h->lock);
    free(old);
}

void metrics_http_stop(metrics_http *h)
{
    if (!h)
        return;
    MHD_stop_daemon(h->daemon);   /* joins its thread, closes the listening socket */
    guard_stop(h);
    guard_destroy(h);
    pthread_mutex_destroy(&h->lock);
    free(h->text);
    free(h);
}
