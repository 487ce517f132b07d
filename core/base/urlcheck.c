/* urlcheck.c - URL scheme and host as libcurl reads them (urlcheck.h). */
#include "urlcheck.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

/* A part of u copied into buf; "" when absent.  0 when it does not fit. */
static int get_part(CURLU *u, CURLUPart what, char *buf, size_t len)
{
    char *s = NULL;
    buf[0] = '\0';
    if (curl_url_get(u, what, &s, 0) != CURLUE_OK || !s)
        return 1;
    int fits = strlen(s) < len;
    if (fits)
        memcpy(buf, s, strlen(s) + 1);
    curl_free(s);
    return fits;
}

static int has_part(CURLU *u, CURLUPart what)
{
    char *s = NULL;
    int has = curl_url_get(u, what, &s, 0) == CURLUE_OK && s;
    curl_free(s);
    return has;
}

static rd_code parse_with(const char *field, const char *url, unsigned flags, urlcheck_parts *out, rd_err *err)
{
    memset(out, 0, sizeof *out);
    for (const char *p = url; *p; p++)
        if ((unsigned char)*p <= ' ' || *p == 0x7f)
            return rd_fail(err, RD_EINVAL, "%s: spaces and control characters are not allowed in a URL", field);
    /* libcurl reads "https:///path" as the host "path"; a URL names its
     * host right after "//". */
    const char *slashes = strstr(url, "://");
    if (slashes && slashes[3] == '/')
        return rd_fail(err, RD_EINVAL, "%s: names no host: '%.200s'", field, url);
    CURLU *u = curl_url();
    if (!u)
        return rd_fail(err, RD_ENOMEM, "%s: out of memory", field);
    CURLUcode uc = curl_url_set(u, CURLUPART_URL, url, flags);
    rd_code rc = RD_OK;
    if (uc == CURLUE_NO_HOST)
        rc = rd_fail(err, RD_EINVAL, "%s: names no host: '%.200s'", field, url);
    else if (uc != CURLUE_OK)
        rc = rd_fail(err, RD_EINVAL, "%s: '%.200s' is not a URL (%s)", field, url, curl_url_strerror(uc));
    else if (!get_part(u, CURLUPART_SCHEME, out->scheme, sizeof out->scheme) ||
             !get_part(u, CURLUPART_HOST, out->host, sizeof out->host))
        rc = rd_fail(err, RD_EINVAL, "%s: the scheme or host of '%.200s' is too long", field, url);
    else if (!out->host[0])
        rc = rd_fail(err, RD_EINVAL, "%s: names no host: '%.200s'", field, url);
    else
        out->userinfo = has_part(u, CURLUPART_USER) || has_part(u, CURLUPART_PASSWORD);
    /* The scheme comes back in lower case; make sure of it all the same. */
    for (char *p = out->scheme; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    curl_url_cleanup(u);
    return rc;
}

rd_code urlcheck_parse(const char *field, const char *url, urlcheck_parts *out, rd_err *err)
{
    return parse_with(field, url, 0, out, err);
}

rd_code urlcheck_parse_any(const char *field, const char *url, urlcheck_parts *out, rd_err *err)
{
    return parse_with(field, url, CURLU_NON_SUPPORT_SCHEME, out, err);
}

int urlcheck_host_is_loopback(const char *host)
{
    return strcmp(host, "127.0.0.1") == 0 || strcmp(host, "[::1]") == 0 || strcasecmp(host, "localhost") == 0;
}

int urlcheck_is_loopback_http(const char *url)
{
    urlcheck_parts p;
    rd_err err;
    return urlcheck_parse("url", url, &p, &err) == RD_OK && strcmp(p.scheme, "http") == 0 &&
           urlcheck_host_is_loopback(p.host);
}

/* A letter, digit, or one of extra. */
static int scp_char(char ch, const char *extra)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           (ch && strchr(extra, ch));
}

/* "git@github.com:org/repo.git", the scp-like form GitHub shows for SSH:
 * user@host:path, the path not starting with '/' or '-' (never an option
 * to ssh or git). */
int urlcheck_scp_like(const char *s)
{
    const char *p = s;
    if (!scp_char(*p, ""))
        return 0;
    while (scp_char(*p, "._-"))
        p++;
    if (*p++ != '@' || !scp_char(*p, ""))
        return 0;
    while (scp_char(*p, ".-"))
        p++;
    if (*p != ':' || p[1] == '\0' || p[1] == '-' || p[1] == '/')
        return 0;
    for (p++; *p; p++)
        if ((unsigned char)*p <= ' ' || *p == 0x7f || *p == '\\')
            return 0;
    return 1;
}
