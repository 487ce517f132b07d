/* gcp_key.c - validation of GCP service-account key files. */
#include "gcp_key.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "urlcheck.h"

/* The string field name of doc, or NULL when absent; a present non-string
 * is refused. */
static rd_code get_string(const json_t *doc, const char *name, int required, const char **out, rd_err *err)
{
    const json_t *v = json_object_get(doc, name);

    *out = NULL;
    if (!v || json_is_null(v)) {
        if (required)
            return rd_fail(err, RD_EINVAL, "gcp key: \"%s\" is missing", name);
        return RD_OK;
    }
    if (!json_is_string(v))
        return rd_fail(err, RD_EINVAL, "gcp key: \"%s\" must be a string", name);
    if (required && json_string_length(v) == 0)
        return rd_fail(err, RD_EINVAL, "gcp key: \"%s\" is empty", name);
    *out = json_string_value(v);
    return RD_OK;
}

/* local@domain.tld with no spaces or control characters, one '@'. */
static int looks_like_email(const char *s)
{
    const char *at = strchr(s, '@'), *dot;

    if (!at || at == s || strchr(at + 1, '@'))
        return 0;
    for (const char *p = s; *p; p++)
        if ((unsigned char)*p <= 0x20 || *p == 0x7f)
            return 0;
    dot = strrchr(at + 1, '.');
    return dot && dot > at + 1 && dot[1] != '\0';
}

/* https:// to any host; plain http:// only to this machine (test servers,
 * never a real endpoint); no user name or password before the host, the
 * shape of "http://localhost:1@192.0.2.2/" that sends the signed assertion
 * to 192.0.2.2.  The host is libcurl's reading of the URL, the one it
 * connects to. */
static rd_code check_token_uri(const char *uri, rd_err *err)
{
    urlcheck_parts p;
    rd_code rc = urlcheck_parse("gcp key: token_uri", uri, &p, err);
    if (rc != RD_OK)
        return rc;
    if (p.userinfo)
        return rd_fail(err, RD_EINVAL,
                       "gcp key: token_uri must not hold a user name or password before the host "
                       "(its host is \"%.80s\")", p.host);
    if (strcmp(p.scheme, "https") == 0)
        return RD_OK;
    if (strcmp(p.scheme, "http") == 0 && !urlcheck_host_is_loopback(p.host))
        return rd_fail(err, RD_EINVAL,
                       "gcp key: token_uri: plain http:// is only for a test server on 127.0.0.1, [::1] "
                       "or localhost, its host is \"%.80s\" (use https://)", p.host);
    if (strcmp(p.scheme, "http") == 0)
        return RD_OK;
    return rd_fail(err, RD_EINVAL,
                   "gcp key: token_uri must start with https:// (or http://127.0.0.1 or "
                   "http://localhost for a test server)");
}

/* Never prompt on a terminal for a passphrase: core/ has no terminal. */
static int no_passphrase(char *buf, int size, int rwflag, void *u)
{
    (void)buf;
    (void)size;
    (void)rwflag;
    (void)u;
    return -1;
}

static rd_code check_private_key(const char *pem, rd_err *err)
{
    BIO *bio = BIO_new_mem_buf(pem, -1);
    EVP_PKEY *pkey = NULL;
    rd_code rc = RD_OK;

    if (!bio)
        return rd_fail(err, RD_ENOMEM, "gcp key: out of memory");
    pkey = PEM_read_bio_PrivateKey(bio, NULL, no_passphrase, NULL);
    if (!pkey || EVP_PKEY_get_base_id(pkey) != EVP_PKEY_RSA)
        rc = rd_fail(err, RD_EINVAL, "gcp key: private_key is not an RSA private key OpenSSL can load");
    EVP_PKEY_free(pkey);
    BIO_free(bio);
    ERR_clear_error(); /* leave no stale errors for the next OpenSSL user */
    return rc;
}

static char *dup_or(const char *s, const char *fallback)
{
    return strdup(s ? s : fallback);
}

void gcp_key_free(gcp_sa_key *k)
{
    if (!k)
        return;
    if (k->private_key) {
        OPENSSL_cleanse(k->private_key, strlen(k->private_key));
        free(k->private_key);
    }
    free(k->project_id);
    free(k->client_email);
    free(k->private_key_id);
    free(k->token_uri);
    memset(k, 0, sizeof *k);
}

static rd_code parse_doc(const json_t *doc, gcp_sa_key *out, rd_err *err)
{
    const char *type, *project, *email, *kid, *pem, *uri;
    rd_code rc;

    if (!json_is_object(doc))
        return rd_fail(err, RD_EINVAL, "gcp key: the file must be a JSON object (a service-account key file)");
    if ((rc = get_string(doc, "type", 1, &type, err)) != RD_OK)
        return rc;
    if (strcmp(type, "service_account") != 0)
        return rd_fail(err, RD_EINVAL, "gcp key: \"type\" must be \"service_account\"");
    if ((rc = get_string(doc, "project_id", 1, &project, err)) != RD_OK ||
        (rc = get_string(doc, "client_email", 1, &email, err)) != RD_OK ||
        (rc = get_string(doc, "private_key_id", 0, &kid, err)) != RD_OK ||
        (rc = get_string(doc, "private_key", 1, &pem, err)) != RD_OK ||
        (rc = get_string(doc, "token_uri", 0, &uri, err)) != RD_OK)
        return rc;
    if (!looks_like_email(email))
        return rd_fail(err, RD_EINVAL, "gcp key: client_email is not an email address");
    if (uri && (rc = check_token_uri(uri, err)) != RD_OK)
        return rc;
    if ((rc = check_private_key(pem, err)) != RD_OK)
        return rc;
    out->project_id = strdup(project);
    out->client_email = strdup(email);
    out->private_key_id = dup_or(kid, "");
    out->private_key = strdup(pem);
    out->token_uri = dup_or(uri, GCP_KEY_DEFAULT_TOKEN_URI);
    if (!out->project_id || !out->client_email || !out->private_key_id || !out->private_key || !out->token_uri)
        return rd_fail(err, RD_ENOMEM, "gcp key: out of memory");
    return RD_OK;
}

rd_code gcp_key_parse(const char *text, size_t len, gcp_sa_key *out, rd_err *err)
{
    json_error_t jerr;
    json_t *doc;
    rd_code rc;

    memset(out, 0, sizeof *out);
    doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!doc) {
        /* jansson's text may quote a token "near '...'": that could be key
         * material, so keep only the part before it. */
        char *near = strstr(jerr.text, " near ");
        if (near)
            *near = '\0';
        return rd_fail(err, RD_EINVAL, "gcp key: not valid JSON at line %d, column %d: %s", jerr.line, jerr.column,
                       jerr.text);
    }
    rc = parse_doc(doc, out, err);
    /* jansson would free its copy of the key unwiped; the buffer is ours to
     * overwrite since doc is about to go. */
    const json_t *pk = json_is_object(doc) ? json_object_get(doc, "private_key") : NULL;
    if (json_is_string(pk))
        OPENSSL_cleanse((char *)json_string_value(pk), json_string_length(pk));
    json_decref(doc);
    if (rc != RD_OK)
        gcp_key_free(out);
    return rc;
}
