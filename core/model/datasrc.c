/* datasrc.c - the source URL of a dataset, checkpoint or model, the keys
 * that may fetch from it and the S3 endpoint it may name (datasrc.h).
 *
 * URLs are read by libcurl's own parser (urlcheck.c), the one staging will
 * send requests with, so the host checked here is the host connected to.
 * Credentials never ride in a URL: "https://user:pw@host/x" is refused,
 * they go in a key (sealed), not in a document every viewer of the object
 * reads.  The key table below is the one docs/operations.md shows.
 */
#include "datasrc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dspath.h"
#include "names.h"
#include "urlcheck.h"

static const char *const type_names[] = {
    [DATASRC_S3] = "s3",       [DATASRC_GS] = "gs",           [DATASRC_HTTPS] = "https",
    [DATASRC_HTTP] = "http",   [DATASRC_FTP] = "ftp",         [DATASRC_FTPS] = "ftps",
    [DATASRC_GIT_HTTP] = "git", [DATASRC_GIT_SSH] = "git",    [DATASRC_DATASTORE] = "datastore",
};

/* Which key types fetch from which source; NULL: no key (a public server,
 * or a datastore, which carries its own credentials).  Plain http:// takes
 * no key: a token must not cross the network in clear. */
static const struct {
    const char *fits[3];
    const char *words;   /* for the refusal */
} key_fits[] = {
    [DATASRC_S3] = { { "aws", "wasabi", NULL }, "aws or wasabi" },
    [DATASRC_GS] = { { "gcp", NULL }, "gcp" },
    [DATASRC_HTTPS] = { { "azure", "huggingface", NULL }, "azure or huggingface" },
    [DATASRC_HTTP] = { { NULL }, "none (plain http sends no credentials)" },
    [DATASRC_FTP] = { { NULL }, "none (a public server)" },
    [DATASRC_FTPS] = { { NULL }, "none (a public server)" },
    [DATASRC_GIT_HTTP] = { { "huggingface", NULL }, "huggingface (an SSH clone URL takes a git key)" },
    [DATASRC_GIT_SSH] = { { "git", NULL }, "git" },
    [DATASRC_DATASTORE] = { { NULL }, "none (the datastore has its own credentials)" },
};

const char *datasrc_type_name(datasrc_type t)
{
    return type_names[t];
}

static int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int ends(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* 1 when an ssh:// URL carries a password: "user:pw@" before the host. */
static int ssh_password(const char *url)
{
    const char *auth = strstr(url, "://") + 3;
    size_t n = strcspn(auth, "/?#");
    const char *at = memchr(auth, '@', n);
    return at && memchr(auth, ':', (size_t)(at - auth)) != NULL;
}

/* datastore:NAME/PATH (PATH may be empty: the whole datastore). */
static rd_code parse_datastore(const char *field, const char *url, datasrc *out, rd_err *err)
{
    const char *name = url + strlen("datastore:"), *slash = strchr(name, '/');
    size_t n = slash ? (size_t)(slash - name) : strlen(name);
    char path[DSPATH_MAX + 2];
    rd_err inner;
    if (n == 0 || n >= sizeof out->datastore)
        return rd_fail(err, RD_EINVAL, "%s: datastore:NAME/PATH names a datastore (1-63 characters) before the first '/'",
                       field);
    memcpy(out->datastore, name, n);
    out->datastore[n] = '\0';
    if (names_check("datastore name", out->datastore, &inner) != RD_OK)
        return rd_fail(err, RD_EINVAL, "%s: %s", field, inner.msg);
    snprintf(path, sizeof path, "/%s", slash ? slash + 1 : "");
    if (dspath_resolve("/", path, &out->path, &inner) != RD_OK)
        return rd_fail(err, RD_EINVAL, "%s: the path inside datastore '%s' is not usable: %s", field, out->datastore,
                       inner.msg);
    return RD_OK;
}

rd_code datasrc_parse(const char *field, const char *url, datasrc *out, rd_err *err)
{
    static const struct {
        const char *scheme;
        datasrc_type type;
    } schemes[] = {
        { "s3", DATASRC_S3 },     { "gs", DATASRC_GS },   { "https", DATASRC_HTTPS },
        { "http", DATASRC_HTTP }, { "ftp", DATASRC_FTP }, { "ftps", DATASRC_FTPS },
        { "ssh", DATASRC_GIT_SSH },
    };
    urlcheck_parts parts;
    rd_code rc;
    memset(out, 0, sizeof *out);
    if (strlen(url) > 2048)
        return rd_fail(err, RD_EINVAL, "%s: a source URL is at most 2048 characters", field);
    if (starts(url, "datastore:")) {
        out->type = DATASRC_DATASTORE;
        return parse_datastore(field, url, out, err);
    }
    if (!strstr(url, "://") && urlcheck_scp_like(url)) {
        out->type = DATASRC_GIT_SSH;
        return RD_OK;
    }
    if (!strstr(url, "://"))
        return rd_fail(err, RD_EINVAL, "%s must be an s3://, gs://, https://, http://, ftp:// or ftps:// URL, a git "
                       "clone URL (https://...git, ssh://... or user@host:path) or datastore:NAME/PATH, got '%.200s'",
                       field, url);
    if ((rc = urlcheck_parse_any(field, url, &parts, err)) != RD_OK)
        return rc;
    /* ssh://git@host/... names the user to log in as (a git key is the
     * credential); every other user name or password is a credential */
    if (parts.userinfo && !(strcmp(parts.scheme, "ssh") == 0 && !ssh_password(url)))
        return rd_fail(err, RD_EINVAL, "%s: a user name or password in the URL is not allowed; put credentials in a "
                       "key (key add) and give --key", field);
    for (size_t i = 0; i < sizeof schemes / sizeof schemes[0]; i++)
        if (strcmp(parts.scheme, schemes[i].scheme) == 0) {
            out->type = schemes[i].type;
            if ((out->type == DATASRC_HTTPS || out->type == DATASRC_HTTP) && (ends(url, ".git") || ends(url, ".git/")))
                out->type = DATASRC_GIT_HTTP;
            /* bucket names: S3's and GCS's rules share these characters */
            if ((out->type == DATASRC_S3 || out->type == DATASRC_GS) &&
                (strlen(parts.host) < 3 || strlen(parts.host) > 222 ||
                 parts.host[strspn(parts.host, "abcdefghijklmnopqrstuvwxyz0123456789.-_")]))
                return rd_fail(err, RD_EINVAL, "%s: the bucket of an %s:// URL is 3-222 characters of a-z, 0-9, '.', "
                               "'-' and '_', got '%.200s'", field, parts.scheme, parts.host);
            return RD_OK;
        }
    return rd_fail(err, RD_EINVAL, "%s: scheme '%s' is not a source; use s3://, gs://, https://, http://, ftp://, "
                   "ftps://, a git clone URL or datastore:NAME/PATH", field, parts.scheme);
}

void datasrc_free(datasrc *s)
{
    free(s->path);
    s->path = NULL;
}

rd_code datasrc_check_key(const datasrc *src, const char *field, const char *key_name, const char *key_type,
                          rd_err *err)
{
    for (const char *const *f = key_fits[src->type].fits; *f; f++)
        if (strcmp(*f, key_type) == 0)
            return RD_OK;
    return rd_fail(err, RD_EINVAL, "%s: key '%s' is of type %s; %s sources take a key of type %s", field, key_name,
                   key_type, datasrc_type_name(src->type), key_fits[src->type].words);
}

rd_code datasrc_check_endpoint(const datasrc *src, const char *field, const char *endpoint, const char *key_type,
                               rd_err *err)
{
    urlcheck_parts parts;
    rd_code rc;
    if (!endpoint) {
        if (key_type && strcmp(key_type, "wasabi") == 0)
            return rd_fail(err, RD_EINVAL, "%s is required with a wasabi key: the service URL of the bucket, e.g. "
                           "https://s3.us-east-1.wasabisys.com", field);
        return RD_OK;
    }
    if (src->type != DATASRC_S3)
        return rd_fail(err, RD_EINVAL, "%s is only for s3:// sources (the service URL of an S3-compatible store), "
                       "not %s", field, datasrc_type_name(src->type));
    if ((rc = urlcheck_parse(field, endpoint, &parts, err)) != RD_OK)
        return rc;
    if (strcmp(parts.scheme, "https") != 0 && strcmp(parts.scheme, "http") != 0)
        return rd_fail(err, RD_EINVAL, "%s must be an http:// or https:// service URL, got scheme '%s'", field,
                       parts.scheme);
    if (parts.userinfo)
        return rd_fail(err, RD_EINVAL, "%s: a user name or password in the URL is not allowed; the key carries the "
                       "credentials", field);
    return RD_OK;
}
