/* metrics_http.h - the agent's Prometheus endpoint: `rigdeck agent
 * --metrics-listen HOST:PORT` serves the latest vital stats at GET /metrics
 * in the Prometheus text exposition format 0.0.4 (metrics_http.c;
 * spec/operations.md, "Vital stats").
 *
 * Every stat of metrics.h's table is a gauge named rigdeck_<stat>, labelled
 * node="NAME" and, for a GPU stat, gpu="INDEX"; rigdeck_up is 1 while the
 * agent serves, rigdeck_sample_timestamp_seconds is the Unix time of the
 * reading shown.  A stat without a reading (null) is left out.
 *
 * The server is libmicrohttpd with its own thread.  The agent's loop hands
 * each new stats object to metrics_http_publish, which renders the text and
 * swaps it in under a mutex; a scrape copies the text out under the same
 * mutex, so the thread never touches the agent's JSON.
 */
#ifndef RD_METRICS_HTTP_H
#define RD_METRICS_HTTP_H

#include <sys/socket.h>

#include <jansson.h>

#include "err.h"
#include "rdtime.h"

enum { METRICS_HTTP_ADDR_MAX = 80 };   /* "[v6 address]:port" and a NUL */

typedef struct metrics_http metrics_http;

/* Parses a --metrics-listen value into a socket address: "IPV4:PORT",
 * "[IPV6]:PORT", "HOSTNAME:PORT" (its first address) or ":PORT" (every IPv4
 * interface).  PORT is 1-65535: a scrape target needs a fixed port, so 0 is
 * refused.  RD_EUSAGE with a message starting "--metrics-listen: " on bad
 * input. */
rd_code metrics_http_parse_listen(const char *text, struct sockaddr_storage *addr, socklen_t *len, rd_err *err);

/* The exposition text for node's stats (sample_stats's object, taken at
 * sampled_at), malloc'd; NULL only when out of memory.  stats NULL (no
 * reading yet) gives rigdeck_up alone.  Pure: same input, same text. */
char *metrics_http_format(const char *node, const json_t *stats, rd_time sampled_at);

/* Listens on listen (a --metrics-listen value) and serves node's metrics
 * from a thread of its own until metrics_http_stop.  A bad value is
 * RD_EUSAGE; an address that cannot be bound (in use, not ours) is
 * RD_EINVAL naming the address and the reason. */
rd_code metrics_http_start(const char *listen, const char *node, metrics_http **out, rd_err *err);

/* The address it listens on, e.g. "127.0.0.1:9400" or "[::1]:9400". */
const char *metrics_http_address(const metrics_http *h);

/* Serves stats (copied: the caller keeps its object) from now on. */
void metrics_http_publish(metrics_http *h, const json_t *stats, rd_time sampled_at);

/* Stops the thread, closes the socket and frees h; NULL is fine. */
void metrics_http_stop(metrics_http *h);

#endif
