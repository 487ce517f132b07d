/* fuzz_metrics_http.c - fuzz target (fuzz.h): HTTP requests to the agent's
 * /metrics endpoint (core/agent/metrics_http.c), through a real socket to
 * the real server on 127.0.0.1.  libmicrohttpd parses the HTTP; what is
 * fuzzed is what rigdeck does with the path, method and headers it hands
 * on, and with the stats it renders.
 *
 * An input that starts with '{' is a stats document (sample_stats's shape)
 * that the agent publishes before a plain GET; any other input is sent as
 * it is, as one request (the client then closes its side).  Promises
 * checked: every reply is an HTTP status line with 200, 404 or 405 (or
 * libmicrohttpd's own 4xx for what it cannot parse, or nothing at all), a
 * 200 is the exposition text of the published stats and nothing else, and
 * the rendering of any stats is text lines the format allows. */
#include "fuzz.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>

#include "metrics_http.h"

const char *const fuzz_target_seed_dirs[] = { NULL };
const unsigned long fuzz_target_runs = 600;   /* a socket and a thread's turn each: slower than most */

const char *const fuzz_target_dict[] = {
    "GET ", "HEAD ", "POST ", "OPTIONS ", "/metrics", "/metrics?x=1", "/metrics/", "//metrics", "/%6detrics",
    "/../metrics", " HTTP/1.1\r\n", " HTTP/1.0\r\n", " HTTP/2.0\r\n", "Host: x\r\n", "\r\n", "\r\n\r\n",
    "Content-Length: 5\r\n", "Content-Length: 18446744073709551615\r\n", "Transfer-Encoding: chunked\r\n",
    "Expect: 100-continue\r\n", "Connection: keep-alive\r\n", "Accept-Encoding: gzip\r\n", "0\r\n\r\n",
    "\"cpu_util\"", "\"gpus\"", "\"index\"", "\"gpu_temp_c\"", "\"gpu_ecc_errors\"", NULL,
};

static metrics_http *server;
static int port;
static int patience_ms = 250;   /* for a reply to start; longer under valgrind */

/* At exit: the server's thread and socket go (valgrind counts them). */
static void stop_server(void)
{
    metrics_http_stop(server);
    server = NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* A free loopback port: ask the kernel for one, then let the server
     * take it (again on the rare clash with another program). */
    for (int tries = 0; tries < 50 && !server; tries++) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a;
        socklen_t len = sizeof a;
        memset(&a, 0, sizeof a);
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || getsockname(fd, (struct sockaddr *)&a, &len) != 0)
            abort();
        close(fd);
        char listen[64];
        rd_err err;
        port = ntohs(a.sin_port);
        snprintf(listen, sizeof listen, "127.0.0.1:%d", port);
        if (metrics_http_start(listen, "n1", &server, &err) != RD_OK)
            server = NULL;
    }
    FUZZ_CHECK(server != NULL);
    atexit(stop_server);
    if (getenv("RIGDECK_WRAP") && *getenv("RIGDECK_WRAP"))
        patience_ms = 3000;
    json_t *stats = json_pack("{s:f, s:f, s:[{s:i, s:f, s:i}]}", "cpu_util", 12.5, "mem_used_gb", 40.0, "gpus", "index", 0,
                              "gpu_util", 97.0, "gpu_temp_c", 71);
    metrics_http_publish(server, stats, 1795996800);
    json_decref(stats);
    return 0;
}

/* Sends req, closes the sending side and reads the reply (at most cap - 1
 * bytes, NUL-terminated) until the server closes; its length. */
static size_t exchange(const char *req, size_t len, char *reply, size_t cap, int first_ms)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)port);
    FUZZ_CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0);
    for (size_t off = 0; off < len;) {
        ssize_t w = send(fd, req + off, len - off, MSG_NOSIGNAL);
        if (w <= 0)
            break;   /* the server may answer and close before reading it all */
        off += (size_t)w;
    }
    shutdown(fd, SHUT_WR);
    size_t n = 0;
    for (;;) {
        struct pollfd pf = { fd, POLLIN, 0 };
        /* A request libmicrohttpd has not seen the end of gets no reply
         * (it drops the client after its 10 s timeout, not at EOF): when
         * nothing came within first_ms, reset the connection,
         * which frees its slot at once.  A reply that started and has not
         * ended in 20 s is a hang. */
        int ready = poll(&pf, 1, n ? 20000 : first_ms);
        if (ready == 0 && n == 0) {
            struct linger rst = { 1, 0 };
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &rst, sizeof rst);
            break;
        }
        FUZZ_CHECK(ready == 1);
        char buf[4096];
        ssize_t r = recv(fd, buf, sizeof buf, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        size_t keep = (size_t)r < cap - 1 - n ? (size_t)r : cap - 1 - n;
        memcpy(reply + n, buf, keep);
        n += keep;
    }
    reply[n] = '\0';
    close(fd);
    return n;
}

/* The exposition text: lines of printable characters, each a comment or
 * `name{labels} value`. */
static void check_text(const char *text)
{
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        FUZZ_CHECK(nl != NULL);
        FUZZ_CHECK(*p == '#' || strncmp(p, "rigdeck_", 8) == 0);
        for (const char *q = p; q < nl; q++)
            FUZZ_CHECK((unsigned char)*q >= 0x20 && *q != 0x7f);
        p = nl + 1;
    }
}

static char reply[1 << 20];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 0 && data[0] == '{') {
        json_t *stats = json_loadb((const char *)data, size, 0, NULL);
        char *text = metrics_http_format("n1", stats, 1795996800);
        FUZZ_CHECK(text != NULL);
        check_text(text);
        metrics_http_publish(server, stats, 1795996800);
        static const char get[] = "GET /metrics HTTP/1.0\r\n\r\n";
        size_t n = exchange(get, sizeof get - 1, reply, sizeof reply, 20000);
        FUZZ_CHECK(n > 12 && strncmp(reply, "HTTP/1.", 7) == 0 && atoi(reply + 9) == 200);
        const char *body = strstr(reply, "\r\n\r\n");
        FUZZ_CHECK(body && strcmp(body + 4, text) == 0);
        free(text);
        json_decref(stats);
        return 0;
    }
    size_t n = exchange((const char *)data, size, reply, sizeof reply, patience_ms);
    if (n == 0) {
        /* no reply: the server must still answer a plain scrape */
        static const char get[] = "GET /metrics HTTP/1.0\r\n\r\n";
        char ok[64];
        FUZZ_CHECK(exchange(get, sizeof get - 1, ok, sizeof ok, 20000) > 12 && atoi(ok + 9) == 200);
        return 0;
    }
    FUZZ_CHECK(strncmp(reply, "HTTP/1.", 7) == 0 && n >= 12);
    int status = atoi(reply + 9);
    FUZZ_CHECK(status == 200 || status == 404 || status == 405 || (status >= 400 && status < 600));
    if (status == 200 && size >= 4 && memcmp(data, "GET ", 4) == 0) {
        /* the body of the first reply: Content-Length bytes after the
         * headers (a pipelined second request's reply may follow) */
        const char *body = strstr(reply, "\r\n\r\n"), *cl = strcasestr(reply, "\r\nContent-Length:");
        FUZZ_CHECK(body != NULL && cl != NULL && cl < body);
        size_t blen = strtoul(cl + 17, NULL, 10);
        body += 4;
        FUZZ_CHECK(blen <= strlen(body));
        char *copy = fuzz_strdup((const uint8_t *)body, blen);
        check_text(copy);
        free(copy);
    }
    return 0;
}
