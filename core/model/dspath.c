/* dspath.c - datastore root + requested path, normalised and confined. */
#include "dspath.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A printable copy of s for messages: control bytes become '?'. */
static const char *show(const char *s, char *buf, size_t len)
{
    snprintf(buf, len, "%s", s);
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return buf;
}

static int is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Length of the UTF-8 sequence at s, or 0 when it is invalid (overlong,
 * surrogate, beyond U+10FFFF, truncated) or a C1 control character. */
static size_t utf8_len(const unsigned char *s)
{
    unsigned cp;
    size_t n;

    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        n = 2, cp = s[0] & 0x1fu;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        n = 3, cp = s[0] & 0x0fu;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        n = 4, cp = s[0] & 0x07u;
    else
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3fu);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff) ||
        (cp >= 0x80 && cp <= 0x9f))
        return 0;
    return n;
}

/* Refuses the characters a server could decode into something else. */
static rd_code check_chars(const char *field, const char *s, rd_err *err)
{
    const char *rule = NULL;

    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = utf8_len(p);
        if (*p < 0x20 || *p == 0x7f)
            rule = "must not contain control characters";
        else if (*p == '\\')
            rule = "must not contain backslashes";
        else if (*p == '%' && is_hex((char)p[1]) && is_hex((char)p[2]))
            rule = "must not contain percent-encoded characters (such as %2e or %2f)";
        else if (n == 0)
            rule = "must be valid UTF-8 without control characters";
        if (rule)
            return rd_fail(err, RD_EINVAL, "%s %s", field, rule);
        p += n;
    }
    return RD_OK;
}

/* Only dots and spaces: "..", "...", ". ." - a parent reference to some
 * servers (Windows/SMB strips trailing dots and spaces). */
static int is_dots_and_spaces(const char *seg, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (seg[i] != '.' && seg[i] != ' ')
            return 0;
    return 1;
}

/* Writes the normalised form of absolute path s ("/" or "/a/b") to buf. */
static rd_code normalise(const char *field, const char *s, char *buf, size_t len, rd_err *err)
{
    size_t used = 0;
    const char *p = s;

    while (*p) {
        const char *seg;
        size_t n;
        while (*p == '/')
            p++;
        seg = p;
        n = strcspn(p, "/");
        p += n;
        if (n == 0 || (n == 1 && seg[0] == '.'))
            continue;
        if (is_dots_and_spaces(seg, n))
            return rd_fail(err, RD_EINVAL, "%s must not contain '..' segments: it may not reach above the "
                                           "datastore root", field);
        if (seg[0] == '~')
            return rd_fail(err, RD_EINVAL, "%s must not start a segment with '~' (home directories are "
                                           "outside the datastore)", field);
        if (used + 1 + n >= len)
            return rd_fail(err, RD_EINVAL, "%s is longer than %d characters", field, DSPATH_MAX);
        buf[used++] = '/';
        memcpy(buf + used, seg, n);
        used += n;
    }
    if (used == 0)
        buf[used++] = '/';
    buf[used] = '\0';
    return RD_OK;
}

rd_code dspath_resolve(const char *root, const char *path, char **out, rd_err *err)
{
    char r[DSPATH_MAX + 1], q[DSPATH_MAX + 1], shown[128];
    size_t rlen;
    rd_code rc;
    char *res;

    *out = NULL;
    if (!root || root[0] != '/')
        return rd_fail(err, RD_EINVAL, "datastore root must be an absolute path starting with '/', got '%s'",
                       show(root ? root : "", shown, sizeof shown));
    if (!path || path[0] != '/')
        return rd_fail(err, RD_EINVAL,
                       "datastore path must start with '/' (it is relative to the datastore root; '/' is the "
                       "root itself), got '%s'", show(path ? path : "", shown, sizeof shown));
    if ((rc = check_chars("datastore root", root, err)) != RD_OK ||
        (rc = check_chars("datastore path", path, err)) != RD_OK ||
        (rc = normalise("datastore root", root, r, sizeof r, err)) != RD_OK ||
        (rc = normalise("datastore path", path, q, sizeof q, err)) != RD_OK)
        return rc;
    rlen = strcmp(r, "/") == 0 ? 0 : strlen(r);
    if (rlen + strlen(q) > DSPATH_MAX)
        return rd_fail(err, RD_EINVAL, "datastore path is longer than %d characters with the root", DSPATH_MAX);
    if (!(res = malloc(rlen + strlen(q) + 1)))
        return rd_fail(err, RD_ENOMEM, "datastore path: out of memory");
    memcpy(res, r, rlen);
    /* Path "/" is the root itself: no trailing slash unless the root is "/". */
    strcpy(res + rlen, rlen && strcmp(q, "/") == 0 ? "" : q);
    /* Belt and braces: the rules above already make escape impossible. */
    if (rlen && (strncmp(res, r, rlen) != 0 || (res[rlen] != '\0' && res[rlen] != '/'))) {
        free(res);
        return rd_fail(err, RD_EINVAL, "datastore path does not stay under the root");
    }
    *out = res;
    return RD_OK;
}
