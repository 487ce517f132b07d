/* gcp_auth.c - OAuth 2.0 for service accounts: the signed JWT assertion, its
 * exchange at the key's token_uri, and a per-process token cache.
 *
 * A token is kept until shortly before the lifetime the token server gave
 * it; when the API still answers 401, the API call (gcp_api.c) drops it
 * (only if no other caller has replaced it meanwhile) and asks once for a
 * new one.  The token request goes over plain HTTP (gcp_http.c), which
 * never calls back here.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "gcp_int.h"

#define TOKEN_LIFETIME_S 3600
#define TOKEN_MARGIN_S 60
#define CACHE_SLOTS 16
#define TOKEN_ATTEMPTS 4

/* ---- base64url and the JWT ------------------------------------------- */

char *gcp_base64url(const unsigned char *data, size_t len)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    char *out = malloc(len / 3 * 4 + 5), *p = out;
    if (!out)
        return NULL;
    size_t i = 0;
    for (; i + 2 < len; i += 3) {
        unsigned v = (unsigned)data[i] << 16 | (unsigned)data[i + 1] << 8 | data[i + 2];
        *p++ = abc[v >> 18 & 63];
        *p++ = abc[v >> 12 & 63];
        *p++ = abc[v >> 6 & 63];
        *p++ = abc[v & 63];
    }
    if (i + 1 == len) {
        unsigned v = (unsigned)data[i] << 16;
        *p++ = abc[v >> 18 & 63];
        *p++ = abc[v >> 12 & 63];
    } else if (i + 2 == len) {
        unsigned v = (unsigned)data[i] << 16 | (unsigned)data[i + 1] << 8;
        *p++ = abc[v >> 18 & 63];
        *p++ = abc[v >> 12 & 63];
        *p++ = abc[v >> 6 & 63];
    }
    *p = '\0';
    return out;
}

static char *b64_json(const json_t *doc)
{
    char *text = json_dumps(doc, JSON_COMPACT);
    if (!text)
        return NULL;
    char *b = gcp_base64url((const unsigned char *)text, strlen(text));
    free(text);
    return b;
}

static int no_passphrase(char *buf, int size, int rwflag, void *u)
{
    (void)buf;
    (void)size;
    (void)rwflag;
    (void)u;
    return -1;
}

/* RS256: an RSASSA-PKCS1-v1_5 signature over SHA-256 of data. */
static rd_code rs256(const char *pem, const char *data, unsigned char **sig, size_t *siglen, rd_err *err)
{
    BIO *bio = BIO_new_mem_buf(pem, -1);
    EVP_PKEY *pkey = bio ? PEM_read_bio_PrivateKey(bio, NULL, no_passphrase, NULL) : NULL;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    rd_code rc = RD_OK;
    *sig = NULL;
    if (!pkey || EVP_PKEY_get_base_id(pkey) != EVP_PKEY_RSA) {
        rc = rd_fail(err, RD_EINVAL, "gcp key: private_key is not an RSA private key OpenSSL can load");
    } else if (!md || EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, pkey) != 1 ||
               EVP_DigestSign(md, NULL, siglen, (const unsigned char *)data, strlen(data)) != 1 ||
               !(*sig = malloc(*siglen)) ||
               EVP_DigestSign(md, *sig, siglen, (const unsigned char *)data, strlen(data)) != 1) {
        free(*sig);
        *sig = NULL;
        rc = rd_fail(err, RD_EINVAL, "gcp key: signing the token request (RS256) failed");
    }
    EVP_MD_CTX_free(md);
    EVP_PKEY_free(pkey);
    BIO_free(bio);
    ERR_clear_error();
    return rc;
}

rd_code gcp_jwt_sign(const gcp_sa_key *key, const char *scope, int64_t now, char **jwt, rd_err *err)
{
    json_t *header = json_pack("{s:s, s:s}", "alg", "RS256", "typ", "JWT");
    json_t *claims = json_pack("{s:s, s:s, s:s, s:I, s:I}", "iss", key->client_email, "scope", scope, "aud",
                               key->token_uri, "iat", (json_int_t)now, "exp", (json_int_t)(now + TOKEN_LIFETIME_S));
    char *h = NULL, *c = NULL, *input = NULL, *s = NULL;
    unsigned char *sig = NULL;
    size_t siglen = 0;
    rd_code rc = RD_OK;
    *jwt = NULL;
    if (header && key->private_key_id && *key->private_key_id)
        json_object_set_new(header, "kid", json_string(key->private_key_id));
    if (!header || !claims || !(h = b64_json(header)) || !(c = b64_json(claims)) ||
        !(input = malloc(strlen(h) + strlen(c) + 2))) {
        rc = rd_fail(err, RD_ENOMEM, "out of memory");
        goto out;
    }
    sprintf(input, "%s.%s", h, c);
    if ((rc = rs256(key->private_key, input, &sig, &siglen, err)) != RD_OK)
        goto out;
    if (!(s = gcp_base64url(sig, siglen)) || !(*jwt = malloc(strlen(input) + strlen(s) + 2))) {
        rc = rd_fail(err, RD_ENOMEM, "out of memory");
        goto out;
    }
    sprintf(*jwt, "%s.%s", input, s);
out:
    json_decref(header);
    json_decref(claims);
    free(h);
    free(c);
    free(input);
    free(s);
    free(sig);
    return rc;
}

/* ---- the clock and the cache ----------------------------------------- */

static gcp_clock_fn clock_fn;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long fetches;

static struct {
    char *email, *uri, *token;
    int64_t good_until;
} cache[CACHE_SLOTS];

void gcp_set_clock(gcp_clock_fn fn)
{
    clock_fn = fn;
}

/* Token lifetimes are the token server's real time: see gcp.h. */
static int64_t wall_now(void)
{
    return clock_fn ? clock_fn() : (int64_t)time(NULL);
}

unsigned long gcp_token_fetches(void)
{
    pthread_mutex_lock(&cache_lock);
    unsigned long n = fetches;
    pthread_mutex_unlock(&cache_lock);
    return n;
}

static void slot_clear(size_t i)
{
    if (cache[i].token)
        OPENSSL_cleanse(cache[i].token, strlen(cache[i].token));
    free(cache[i].email);
    free(cache[i].uri);
    free(cache[i].token);
    memset(&cache[i], 0, sizeof cache[i]);
}

void gcp_token_cache_clear(void)
{
    pthread_mutex_lock(&cache_lock);
    for (size_t i = 0; i < CACHE_SLOTS; i++)
        slot_clear(i);
    pthread_mutex_unlock(&cache_lock);
}

/* The slot of this key, or -1.  Called with the lock held. */
static int slot_find(const gcp_client *c)
{
    for (int i = 0; i < CACHE_SLOTS; i++)
        if (cache[i].email && strcmp(cache[i].email, c->key.client_email) == 0 &&
            strcmp(cache[i].uri, c->key.token_uri) == 0)
            return i;
    return -1;
}

void gcp_token_invalidate(gcp_client *c, const char *bad)
{
    pthread_mutex_lock(&cache_lock);
    int i = slot_find(c);
    if (i >= 0 && cache[i].token && bad && strcmp(cache[i].token, bad) == 0)
        slot_clear((size_t)i);
    pthread_mutex_unlock(&cache_lock);
}

static void cache_store(const gcp_client *c, const char *token, int64_t expires_in)
{
    int64_t margin = expires_in >= 4 * TOKEN_MARGIN_S ? TOKEN_MARGIN_S : expires_in / 4;
    pthread_mutex_lock(&cache_lock);
    int i = slot_find(c);
    if (i < 0) {
        i = 0;
        for (int k = 0; k < CACHE_SLOTS; k++)
            if (!cache[k].email) {
                i = k;
                break;
            }
    }
    slot_clear((size_t)i);
    cache[i].email = strdup(c->key.client_email);
    cache[i].uri = strdup(c->key.token_uri);
    cache[i].token = strdup(token);
    cache[i].good_until = wall_now() + expires_in - margin;
    if (!cache[i].email || !cache[i].uri || !cache[i].token)
        slot_clear((size_t)i);
    pthread_mutex_unlock(&cache_lock);
}

/* ---- the exchange ----------------------------------------------------- */

/* POSTs the assertion to token_uri; *token and *expires_in on success. */
static rd_code token_fetch(gcp_client *c, char **token, int64_t *expires_in, gcp_fault *f, rd_err *err)
{
    char *jwt = NULL, *body = NULL, *resp = NULL, cerr[256] = "";
    long status = 0, retry_after = -1;
    struct curl_slist *hdrs = curl_slist_append(NULL, "Content-Type: application/x-www-form-urlencoded");
    rd_code rc = gcp_jwt_sign(&c->key, GCP_SCOPE, wall_now(), &jwt, err);
    static const char grant[] = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=";
    if (rc == RD_OK && (!hdrs || !(body = malloc(sizeof grant + strlen(jwt)))))
        rc = rd_fail(err, RD_ENOMEM, "out of memory");
    if (rc == RD_OK)
        sprintf(body, "%s%s", grant, jwt);   /* base64url and '.' need no escaping */
    for (int attempt = 0; rc == RD_OK; attempt++) {
        free(resp);
        resp = NULL;
        rc = gcp_http_raw(c, "POST", c->key.token_uri, hdrs, body, strlen(body), &status, &resp, &retry_after, cerr,
                          err);
        if (rc != RD_OK)
            break;
        json_t *doc = json_loads(resp, 0, NULL);
        if (status == 200) {
            const char *tok = json_string_value(json_object_get(doc, "access_token"));
            json_t *exp = json_object_get(doc, "expires_in");
            if (tok && *tok) {
                *token = strdup(tok);
                *expires_in = json_is_number(exp) ? (int64_t)json_number_value(exp) : TOKEN_LIFETIME_S;
                if (!*token)
                    rc = rd_fail(err, RD_ENOMEM, "out of memory");
            } else {
                f->status = GCP_PROTOCOL;
                f->http = status;
                snprintf(f->detail, sizeof f->detail, "the answer has no access_token");
                rc = gcp_fail(c, "token request", f, err);
            }
            json_decref(doc);
            break;
        }
        if (status == 0 || status == 429 || status >= 500) {
            if (status == 0) {
                memset(f, 0, sizeof *f);
                f->status = GCP_NETWORK;
                snprintf(f->detail, sizeof f->detail, "%s", cerr);
            } else {
                gcp_classify_http(status, doc, f);
            }
            json_decref(doc);
            if (attempt + 1 < TOKEN_ATTEMPTS) {
                gcp_sleep_ms(gcp_backoff_ms() << attempt);
                continue;
            }
            rc = gcp_fail(c, "token request", f, err);
            break;
        }
        /* 400/401/403: the token server refused this key or assertion. */
        memset(f, 0, sizeof *f);
        f->status = GCP_UNAUTHENTICATED;
        f->http = status;
        f->limit = -1;
        snprintf(f->reason, sizeof f->reason, "%s",
                 json_string_value(json_object_get(doc, "error")) ? json_string_value(json_object_get(doc, "error"))
                                                                   : "refused");
        snprintf(f->detail, sizeof f->detail, "%s",
                 json_string_value(json_object_get(doc, "error_description"))
                     ? json_string_value(json_object_get(doc, "error_description"))
                     : "");
        json_decref(doc);
        rc = gcp_fail(c, "token request", f, err);
        break;
    }
    if (jwt)
        OPENSSL_cleanse(jwt, strlen(jwt));
    free(jwt);
    free(body);
    free(resp);
    curl_slist_free_all(hdrs);
    return rc;
}

rd_code gcp_access_token(gcp_client *c, char **token, gcp_fault *f, rd_err *err)
{
    gcp_fault local;
    if (!f)
        f = &local;
    memset(f, 0, sizeof *f);
    f->limit = -1;
    *token = NULL;
    pthread_mutex_lock(&cache_lock);
    int i = slot_find(c);
    if (i >= 0 && cache[i].token && wall_now() < cache[i].good_until)
        *token = strdup(cache[i].token);
    pthread_mutex_unlock(&cache_lock);
    if (*token)
        return RD_OK;
    int64_t expires_in = 0;
    rd_code rc = token_fetch(c, token, &expires_in, f, err);
    pthread_mutex_lock(&cache_lock);
    fetches++;
    pthread_mutex_unlock(&cache_lock);
    if (rc == RD_OK)
        cache_store(c, *token, expires_in);
    return rc;
}
