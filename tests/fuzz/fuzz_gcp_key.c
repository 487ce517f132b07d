/* fuzz_gcp_key.c - fuzz target (fuzz.h): GCP service-account key files
 * (`provider enable gcp --key-file FILE`, core/model/gcp_key.c).
 *
 * No key is committed: @PKCS8@, @PKCS1@ and @EC@ in an input stand for the
 * JSON string of a key generated at start (RSA 1024 as PKCS#8 and PKCS#1,
 * EC P-256), and @PKCS8:N=C@ for that key with its N-th character made C,
 * so mutations reach the PEM and DER parsers too.
 *
 * Promises checked: an accepted key has every field; a refusal never
 * quotes the key material (gcp_key.h); token_uri is https, or http to this
 * machine only. */
#include "fuzz.h"

#include <string.h>

#include <jansson.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "gcp_key.h"

const char *const fuzz_target_seed_dirs[] = { NULL };

const unsigned long fuzz_target_runs = 2000;

const char *const fuzz_target_dict[] = {
    "\"type\"", "\"service_account\"", "\"project_id\"", "\"client_email\"", "\"private_key_id\"",
    "\"private_key\"", "\"token_uri\"", "https://", "http://127.0.0.1:1/token", "http://localhost:1@192.0.2.2/token",
    "http://[::1]:8/t", "https:///", "-----BEGIN PRIVATE KEY-----\\n", "-----END PRIVATE KEY-----\\n",
    "-----BEGIN RSA PRIVATE KEY-----\\n", "-----BEGIN ENCRYPTED PRIVATE KEY-----\\n", "\\n", "a@b.c", "@",
    NULL,
};

static const char *const key_names[] = { "PKCS8", "PKCS1", "EC" };
static char *keys[3];   /* the PEM texts */

static char *pem_of(EVP_PKEY *k, int traditional)
{
    BIO *b = BIO_new(BIO_s_mem());
    char *p = NULL;
    FUZZ_CHECK(b && k);
    FUZZ_CHECK((traditional ? PEM_write_bio_PrivateKey_traditional(b, k, NULL, NULL, 0, NULL, NULL)
                            : PEM_write_bio_PrivateKey(b, k, NULL, NULL, 0, NULL, NULL)) == 1);
    long n = BIO_get_mem_data(b, &p);
    char *s = fuzz_strdup((const uint8_t *)p, (size_t)n);
    BIO_free(b);
    return s;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    EVP_PKEY *rsa = EVP_RSA_gen(1024), *ec = EVP_EC_gen("P-256");
    keys[0] = pem_of(rsa, 0);
    keys[1] = pem_of(rsa, 1);
    keys[2] = pem_of(ec, 0);
    EVP_PKEY_free(rsa);
    EVP_PKEY_free(ec);
    return 0;
}

/* The placeholder at data[i] ('@'): its key's index and the index of its
 * closing '@' in *end, the character to change in *at (-1: none) and *with;
 * -1 when there is none. */
static int placeholder(const uint8_t *data, size_t size, size_t i, size_t *end, long *at, char *with)
{
    for (int k = 0; k < 3; k++) {
        size_t nl = strlen(key_names[k]), e = i + 1 + nl;
        if (e >= size || memcmp(data + i + 1, key_names[k], nl) != 0)
            continue;
        *at = -1;
        if (data[e] == ':') {   /* :N=C@ */
            long n = 0;
            for (e++; e < size && data[e] >= '0' && data[e] <= '9' && n < 100000; e++)
                n = n * 10 + (data[e] - '0');
            if (e + 2 >= size || data[e] != '=')
                return -1;
            *at = n;
            *with = (char)data[e + 1];
            e += 2;
        }
        if (data[e] != '@')
            return -1;
        *end = e;
        return k;
    }
    return -1;
}

/* The input with each placeholder replaced by its key's JSON string
 * (malloc'd, NUL-terminated); *len its length. */
static char *expand(const uint8_t *data, size_t size, size_t *len)
{
    char *out = NULL;
    FILE *f = open_memstream(&out, len);
    FUZZ_CHECK(f != NULL);
    for (size_t i = 0; i < size; i++) {
        size_t end;
        long at = -1;
        char with = 0;
        int k = data[i] == '@' ? placeholder(data, size, i, &end, &at, &with) : -1;
        if (k < 0) {
            fputc(data[i], f);
            continue;
        }
        fputc('"', f);
        for (long c = 0; keys[k][c]; c++) {
            char ch = c == at ? with : keys[k][c];
            if (ch == '\n')
                fputs("\\n", f);
            else if (ch == '"' || ch == '\\')
                fprintf(f, "\\%c", ch);
            else
                fputc(ch, f);
        }
        fputc('"', f);
        i = end;
    }
    FUZZ_CHECK(fclose(f) == 0);
    return out;
}

/* 1 when msg holds 16 characters in a row of the PEM body of the input's
 * private_key (the base64 between the BEGIN and END lines; the lines
 * themselves are no secret) that no other field of the file holds. */
static int quotes_key(const uint8_t *data, size_t size, const char *msg)
{
    json_t *doc = json_loadb((const char *)data, size, JSON_ALLOW_NUL, NULL);
    const char *pem = json_string_value(json_object_get(doc, "private_key"));
    const char *body = pem ? strstr(pem, "-----\n") : NULL;
    const char *end = body ? strstr(body + 6, "\n-----END") : NULL;
    int hit = 0;
    /* the rest of the file: a piece that is also there (a mutation copied
     * it into token_uri, say) is quoted from that field, not the key */
    json_t *rest = json_deep_copy(doc);
    json_object_del(rest, "private_key");
    char *others = rest ? json_dumps(rest, 0) : NULL;
    for (const char *p = body ? body + 6 : NULL; p && end && p + 16 <= end && !hit; p++) {
        char piece[17];
        memcpy(piece, p, 16);
        piece[16] = '\0';
        hit = !strchr(piece, '\n') && strstr(msg, piece) != NULL && !(others && strstr(others, piece));
    }
    free(others);
    json_decref(rest);
    json_decref(doc);
    return hit;
}

int LLVMFuzzerTestOneInput(const uint8_t *raw, size_t raw_size)
{
    size_t size;
    char *text = expand(raw, raw_size, &size);
    const uint8_t *data = (const uint8_t *)text;
    gcp_sa_key k;
    rd_err err;
    memset(&k, 0, sizeof k);
    rd_err_clear(&err);
    if (gcp_key_parse((const char *)data, size, &k, &err) == RD_OK) {
        FUZZ_CHECK(k.project_id && *k.project_id && k.client_email && strchr(k.client_email, '@'));
        FUZZ_CHECK(k.private_key_id && k.private_key && k.token_uri);
        FUZZ_CHECK(strncmp(k.token_uri, "https://", 8) == 0 || strncmp(k.token_uri, "http://", 7) == 0);
    } else {
        FUZZ_CHECK(!k.project_id && !k.client_email && !k.private_key && !k.token_uri);
        FUZZ_CHECK(err.msg[0] != '\0');
        FUZZ_CHECK(!quotes_key(data, size, err.msg));
    }
    gcp_key_free(&k);
    free(text);
    return 0;
}
