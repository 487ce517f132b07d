/* Unit tests of the agent's Prometheus endpoint: the exact exposition text
 * for a stats object (nulls left out, label values escaped, numbers in
 * their shortest form), the --metrics-listen parser and its refusals, and
 * the real server on a loopback port: 200 with the text format's content
 * type, a new reading served after publish, 404, 405, a port in use. */
#include "testutil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>

#include "metrics.h"
#include "metrics_http.h"

/* HELP and TYPE lines of stat name, as the table says. */
static void put_family(char *buf, size_t len, const char *name)
{
    const metrics_stat *st = metrics_stat_find(name);
    assert_non_null(st);
    size_t n = strlen(buf);
    snprintf(buf + n, len - n, "# HELP rigdeck_%s %s\n# TYPE rigdeck_%s gauge\n", name, st->help, name);
}

static void append(char *buf, size_t len, const char *text)
{
    size_t n = strlen(buf);
    snprintf(buf + n, len - n, "%s", text);
}

static const char up_n1[] = "# HELP rigdeck_up 1 while the node's agent serves its vital stats.\n"
                            "# TYPE rigdeck_up gauge\n"
                            "rigdeck_up{node=\"n1\"} 1\n";

static void expect_text(const char *got, const char *want)
{
    if (!got || strcmp(got, want) != 0) {
        print_error("got:\n%s\nwant:\n%s\n", got ? got : "(NULL)", want);
        fail();
    }
}

static void test_format_exact(void **state)
{
    (void)state;
    /* cpu_util and the net rates null (first reading), disk rates absent
     * (no diskstats); GPU 1 has no temperature (N/A). */
    json_t *stats = json_loads("{\"cpu_util\": null, \"mem_used_gb\": 12.3, \"disk_used_gb\": 0.1,"
                               " \"net_rx_bps\": null, \"net_tx_bps\": 1234567.8,"
                               " \"gpus\": [{\"index\": 0, \"gpu_util\": 99.5, \"gpu_mem_used_gb\": 39.99,"
                               "             \"gpu_temp_c\": 71, \"gpu_power_w\": 301.2, \"gpu_ecc_errors\": 0},"
                               "            {\"index\": 1, \"gpu_util\": 0.0, \"gpu_mem_used_gb\": 0.0,"
                               "             \"gpu_temp_c\": null, \"gpu_power_w\": 61.0, \"gpu_ecc_errors\": 3}]}",
                               0, NULL);
    assert_non_null(stats);
    char want[8192];
    snprintf(want, sizeof want, "%s", up_n1);
    append(want, sizeof want,
           "# HELP rigdeck_sample_timestamp_seconds Unix time of the vital-stats reading shown.\n"
           "# TYPE rigdeck_sample_timestamp_seconds gauge\n"
           "rigdeck_sample_timestamp_seconds{node=\"n1\"} 1793491200\n");
    put_family(want, sizeof want, "mem_used_gb");
    append(want, sizeof want, "rigdeck_mem_used_gb{node=\"n1\"} 12.3\n");
    put_family(want, sizeof want, "disk_used_gb");
    append(want, sizeof want, "rigdeck_disk_used_gb{node=\"n1\"} 0.1\n");
    put_family(want, sizeof want, "net_tx_bps");
    append(want, sizeof want, "rigdeck_net_tx_bps{node=\"n1\"} 1234567.8\n");
    put_family(want, sizeof want, "gpu_util");
    append(want, sizeof want, "rigdeck_gpu_util{node=\"n1\",gpu=\"0\"} 99.5\nrigdeck_gpu_util{node=\"n1\",gpu=\"1\"} 0\n");
    put_family(want, sizeof want, "gpu_mem_used_gb");
    append(want, sizeof want,
           "rigdeck_gpu_mem_used_gb{node=\"n1\",gpu=\"0\"} 39.99\nrigdeck_gpu_mem_used_gb{node=\"n1\",gpu=\"1\"} 0\n");
    put_family(want, sizeof want, "gpu_temp_c");
    append(want, sizeof want, "rigdeck_gpu_temp_c{node=\"n1\",gpu=\"0\"} 71\n");
    put_family(want, sizeof want, "gpu_power_w");
    append(want, sizeof want,
           "rigdeck_gpu_power_w{node=\"n1\",gpu=\"0\"} 301.2\nrigdeck_gpu_power_w{node=\"n1\",gpu=\"1\"} 61\n");
    put_family(want, sizeof want, "gpu_ecc_errors");
    append(want, sizeof want,
           "rigdeck_gpu_ecc_errors{node=\"n1\",gpu=\"0\"} 0\nrigdeck_gpu_ecc_errors{node=\"n1\",gpu=\"1\"} 3\n");
    char *got = metrics_http_format("n1", stats, 1793491200);
    expect_text(got, want);
    assert_null(strstr(got, "NaN"));
    assert_null(strstr(got, "cpu_util"));
    free(got);
    json_decref(stats);
}

static void test_format_no_reading_yet(void **state)
{
    (void)state;
    char *got = metrics_http_format("n1", NULL, 0);
    expect_text(got, up_n1);
    free(got);
    /* every GPU stat null and no node stat: no family is announced empty */
    json_t *stats = json_loads("{\"cpu_util\": null, \"gpus\": [{\"index\": 0, \"gpu_temp_c\": null}]}", 0, NULL);
    got = metrics_http_format("n1", stats, 5);
    expect_text(got, "# HELP rigdeck_up 1 while the node's agent serves its vital stats.\n"
                     "# TYPE rigdeck_up gauge\n"
                     "rigdeck_up{node=\"n1\"} 1\n"
                     "# HELP rigdeck_sample_timestamp_seconds Unix time of the vital-stats reading shown.\n"
                     "# TYPE rigdeck_sample_timestamp_seconds gauge\n"
                     "rigdeck_sample_timestamp_seconds{node=\"n1\"} 5\n");
    free(got);
    json_decref(stats);
}

static void test_format_escapes_labels(void **state)
{
    (void)state;
    char *got = metrics_http_format("a\"b\\c\nd", NULL, 0);
    assert_non_null(strstr(got, "rigdeck_up{node=\"a\\\"b\\\\c\\nd\"} 1\n"));
    free(got);
}

static void test_format_shortest_numbers(void **state)
{
    (void)state;
    json_t *stats = json_pack("{s:f, s:f, s:I, s:f, s:f, s:f}", "cpu_util", 0.1 + 0.2, "mem_used_gb", 1e-7,
                              "disk_used_gb", (json_int_t)123456789012LL, "net_rx_bps", 60.0, "net_tx_bps", 1e20,
                              "disk_read_bps", -0.0);
    char *got = metrics_http_format("n", stats, 0);
    assert_non_null(strstr(got, "rigdeck_cpu_util{node=\"n\"} 0.30000000000000004\n"));
    /* plain decimals, as exporters write them: never an exponent */
    assert_non_null(strstr(got, "rigdeck_mem_used_gb{node=\"n\"} 0.0000001\n"));
    assert_non_null(strstr(got, "rigdeck_disk_used_gb{node=\"n\"} 123456789012\n"));
    assert_non_null(strstr(got, "rigdeck_net_rx_bps{node=\"n\"} 60\n"));
    assert_non_null(strstr(got, "rigdeck_net_tx_bps{node=\"n\"} 100000000000000000000\n"));
    assert_non_null(strstr(got, "rigdeck_disk_read_bps{node=\"n\"} 0\n"));
    assert_null(strstr(got, "e+"));
    assert_null(strstr(got, "e-"));
    free(got);
    json_decref(stats);
}

static void parse_ok(const char *text, int family, const char *ip, unsigned port)
{
    struct sockaddr_storage ss;
    socklen_t len = 0;
    rd_err err = { 0 };
    char buf[INET6_ADDRSTRLEN] = "";
    if (metrics_http_parse_listen(text, &ss, &len, &err) != RD_OK)
        fail_msg("%s: %s", text, err.msg);
    assert_int_equal(ss.ss_family, family);
    if (family == AF_INET) {
        struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
        inet_ntop(AF_INET, &s4->sin_addr, buf, sizeof buf);
        assert_int_equal(ntohs(s4->sin_port), port);
    } else {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
        inet_ntop(AF_INET6, &s6->sin6_addr, buf, sizeof buf);
        assert_int_equal(ntohs(s6->sin6_port), port);
    }
    assert_string_equal(buf, ip);
}

static void parse_refused(const char *text, const char *msg)
{
    struct sockaddr_storage ss;
    socklen_t len = 0;
    rd_err err = { 0 };
    assert_int_equal(metrics_http_parse_listen(text, &ss, &len, &err), RD_EUSAGE);
    if (strncmp(err.msg, "--metrics-listen: ", 18) != 0 || !strstr(err.msg, msg))
        fail_msg("'%s': message '%s' lacks '%s'", text ? text : "(NULL)", err.msg, msg);
}

static void test_parse_listen(void **state)
{
    (void)state;
    parse_ok("127.0.0.1:9400", AF_INET, "127.0.0.1", 9400);
    parse_ok("0.0.0.0:1", AF_INET, "0.0.0.0", 1);
    parse_ok(":65535", AF_INET, "0.0.0.0", 65535);
    parse_ok("[::1]:9400", AF_INET6, "::1", 9400);
    parse_ok("[::]:80", AF_INET6, "::", 80);
    parse_refused(NULL, "expected HOST:PORT");
    parse_refused("", "expected HOST:PORT");
    parse_refused("9400", "expected HOST:PORT");
    parse_refused("127.0.0.1:", "has no port");
    parse_refused("127.0.0.1:0", "port must be 1-65535");
    parse_refused("127.0.0.1:65536", "port must be 1-65535");
    parse_refused("127.0.0.1:99999999999999999999", "port must be a number 1-65535");
    parse_refused("127.0.0.1:94x0", "port must be a number");
    parse_refused("127.0.0.1:-1", "port must be a number");
    parse_refused("::1:9400", "an IPv6 address goes in brackets");
    parse_refused("[::1]9400", "expected [IPV6]:PORT");
    parse_refused("[::1:9400", "expected [IPV6]:PORT");
    parse_refused("[]:9400", "bad IPv6 address");
    parse_refused("[127.0.0.1]:9400", "is not an IPv6 address");
}

/* ---- the server ----------------------------------------------------------- */

/* A port nobody listens on right now (bound to 0, read back, closed). */
static unsigned free_port(void)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    close(fd);
    return ntohs(a.sin_port);
}

/* One HTTP/1.0 request; the whole reply (headers and body), malloc'd. */
static char *http(unsigned port, const char *method, const char *path)
{
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct timeval tv = { 30, 0 };   /* a generous deadline, never a wait */
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0)
        fail_msg("connect to port %u: %s", port, strerror(errno));
    char req[256];
    int n = snprintf(req, sizeof req, "%s %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", method, path);
    assert_int_equal(write(fd, req, (size_t)n), n);
    size_t cap = 65536, len = 0;
    char *buf = malloc(cap);
    ssize_t got;
    while ((got = read(fd, buf + len, cap - 1 - len)) > 0)
        len += (size_t)got;
    buf[len] = '\0';
    close(fd);
    return buf;
}

static void expect_reply(char *reply, const char *status_line, const char *has)
{
    if (strncmp(reply, status_line, strlen(status_line)) != 0 || !strstr(reply, has))
        fail_msg("reply lacks '%s' or '%s':\n%s", status_line, has, reply);
    free(reply);
}

static void test_server(void **state)
{
    (void)state;
    char listen[64];
    unsigned port = free_port();
    snprintf(listen, sizeof listen, "127.0.0.1:%u", port);
    metrics_http *h = NULL, *h2 = NULL;
    rd_err err = { 0 };
    if (metrics_http_start(listen, "n1", &h, &err) != RD_OK)
        fail_msg("start on %s: %s", listen, err.msg);
    assert_string_equal(metrics_http_address(h), listen);

    /* before the first reading: rigdeck_up alone */
    char *r = http(port, "GET", "/metrics");
    assert_non_null(strstr(r, "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"));
    assert_null(strstr(r, "rigdeck_sample_timestamp_seconds"));
    expect_reply(r, "HTTP/1.1 200", "\r\n\r\n# HELP rigdeck_up ");

    json_t *stats = json_pack("{s:f, s:[{s:i, s:i}]}", "cpu_util", 42.5, "gpus", "index", 3, "gpu_temp_c", 88);
    metrics_http_publish(h, stats, 1000);
    json_decref(stats);   /* the server kept its own rendering */
    r = http(port, "GET", "/metrics");
    assert_non_null(strstr(r, "rigdeck_cpu_util{node=\"n1\"} 42.5\n"));
    expect_reply(r, "HTTP/1.1 200", "rigdeck_gpu_temp_c{node=\"n1\",gpu=\"3\"} 88\n");

    expect_reply(http(port, "GET", "/"), "HTTP/1.1 404", "/metrics");
    expect_reply(http(port, "GET", "/metrics/x"), "HTTP/1.1 404", "/metrics");
    expect_reply(http(port, "POST", "/metrics"), "HTTP/1.1 405", "Allow: GET, HEAD");
    expect_reply(http(port, "DELETE", "/metrics"), "HTTP/1.1 405", "Allow: GET, HEAD");
    r = http(port, "HEAD", "/metrics");
    assert_null(strstr(r, "rigdeck_up"));
    expect_reply(r, "HTTP/1.1 200", "Content-Type: text/plain; version=0.0.4");

    /* the port is ours: a second server is refused with the reason */
    assert_int_equal(metrics_http_start(listen, "n2", &h2, &err), RD_EINVAL);
    assert_null(h2);
    if (!strstr(err.msg, "Address already in use") || !strstr(err.msg, listen))
        fail_msg("message: %s", err.msg);

    /* stopped, the port is free again at once */
    metrics_http_stop(h);
    if (metrics_http_start(listen, "n1", &h, &err) != RD_OK)
        fail_msg("restart on %s: %s", listen, err.msg);
    metrics_http_stop(h);
    metrics_http_stop(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_exact),
        cmocka_unit_test(test_format_no_reading_yet),
        cmocka_unit_test(test_format_escapes_labels),
        cmocka_unit_test(test_format_shortest_numbers),
        cmocka_unit_test(test_parse_listen),
        cmocka_unit_test(test_server),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
