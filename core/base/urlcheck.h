/* urlcheck.h - where a URL sends a request, read by libcurl's own URL
 * parser (curl_url), for every check that decides whether rigdeck may send
 * one there: a GCP key's token_uri, an alert's webhook.
 *
 * Comparing the text's prefix is not enough: in
 * "http://localhost:1@192.0.2.2/token" the host is 192.0.2.2 ("localhost:1"
 * is a user name and password), and "http://127.1/" is 127.0.0.1.  Asking
 * the parser that libcurl uses to send the request gives the check the same
 * host as the connection.
 */
#ifndef RD_URLCHECK_H
#define RD_URLCHECK_H

#include "err.h"

typedef struct {
    char scheme[16];   /* lower case: "http", "https" */
    char host[256];    /* as libcurl connects: "127.0.0.1" (also for 127.1), "[::1]", a name as written */
    int userinfo;      /* a user name or password before '@' */
} urlcheck_parts;

/* Reads url into *out.  RD_EINVAL, the message starting "FIELD: ", when it
 * holds spaces or control characters, libcurl cannot read it (no scheme, a
 * bad host or port), or it names no host ("https:///path", which libcurl
 * would take as the host "path"). */
rd_code urlcheck_parse(const char *field, const char *url, urlcheck_parts *out, rd_err *err);

/* urlcheck_parse for schemes libcurl itself does not speak (s3://, gs://):
 * the same reading of host and user, any scheme. */
rd_code urlcheck_parse_any(const char *field, const char *url, urlcheck_parts *out, rd_err *err);

/* 1 when host (urlcheck_parts.host) is this machine as the loopback
 * rules name it: 127.0.0.1, [::1] or localhost (in any case). */
int urlcheck_host_is_loopback(const char *host);

/* 1 when url is plain http:// to a loopback host: such a request must go
 * straight there, never through a proxy from the environment. */
int urlcheck_is_loopback_http(const char *url);

/* 1 for the scp-like form git takes for SSH ("git@github.com:org/repo.git"):
 * user@host:path, the path starting with neither '/' nor '-' (never an
 * option to ssh or git), no blanks, control characters or backslashes. */
int urlcheck_scp_like(const char *s);

#endif
