/* Unit tests of GCP service-account key validation, with keys made at test time. */
#include "testutil.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <jansson.h>

#include "gcp_key.h"

static char *rsa_pem;      /* PKCS#8 "BEGIN PRIVATE KEY", as GCP issues */
static char *rsa_trad_pem; /* "BEGIN RSA PRIVATE KEY" */
static char *rsa_enc_pem;  /* passphrase-protected PKCS#8 */
static char *ec_pem;       /* an EC key: not RSA */

static char *bio_text(BIO *bio)
{
    char *data;
    long n = BIO_get_mem_data(bio, &data);
    char *s = malloc((size_t)n + 1);
    memcpy(s, data, (size_t)n);
    s[n] = '\0';
    BIO_free(bio);
    return s;
}

static int make_keys(void **state)
{
    (void)state;
    EVP_PKEY *rsa = EVP_RSA_gen(1024); /* size does not matter to the checks; small keeps valgrind quick */
    EVP_PKEY *ec = EVP_EC_gen("P-256");
    BIO *b;
    if (!rsa || !ec)
        return -1;
    b = BIO_new(BIO_s_mem());
    PEM_write_bio_PrivateKey(b, rsa, NULL, NULL, 0, NULL, NULL);
    rsa_pem = bio_text(b);
    b = BIO_new(BIO_s_mem());
    PEM_write_bio_PrivateKey_traditional(b, rsa, NULL, NULL, 0, NULL, NULL);
    rsa_trad_pem = bio_text(b);
    b = BIO_new(BIO_s_mem());
    PEM_write_bio_PrivateKey(b, rsa, EVP_aes_256_cbc(), (unsigned char *)"pass", 4, NULL, NULL);
    rsa_enc_pem = bio_text(b);
    b = BIO_new(BIO_s_mem());
    PEM_write_bio_PrivateKey(b, ec, NULL, NULL, 0, NULL, NULL);
    ec_pem = bio_text(b);
    EVP_PKEY_free(rsa);
    EVP_PKEY_free(ec);
    return 0;
}

static int free_keys(void **state)
{
    (void)state;
    free(rsa_pem);
    free(rsa_trad_pem);
    free(rsa_enc_pem);
    free(ec_pem);
    return 0;
}

/* A service-account key file; then field=value overrides (NULL value deletes). */
static char *key_file(const char *field, json_t *value)
{
    json_t *doc = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "type", "service_account", "project_id",
                            "lab-project", "private_key_id", "abc123", "private_key", rsa_pem, "client_email",
                            "rigdeck@lab-project.iam.gserviceaccount.com", "client_id", "1234567890",
                            "token_uri", "https://oauth2.googleapis.com/token");
    if (field) {
        if (value)
            json_object_set_new(doc, field, value);
        else
            json_object_del(doc, field);
    }
    char *text = json_dumps(doc, 0);
    json_decref(doc);
    return text;
}

/* A body line of the RSA key, to prove messages never carry key material. */
static void assert_no_key_material(const char *msg)
{
    char line[40];
    const char *body = strchr(rsa_pem, '\n') + 1;
    memcpy(line, body, 32);
    line[32] = '\0';
    assert_null(strstr(msg, line));
    assert_null(strstr(msg, "PRIVATE KEY"));
}

static void refuse(const char *field, json_t *value, const char *want)
{
    char *text = key_file(field, value);
    gcp_sa_key k;
    rd_err err;
    rd_code rc = gcp_key_parse(text, strlen(text), &k, &err);
    if (rc != RD_EINVAL || !strstr(err.msg, want))
        fail_msg("%s: rc %d, message '%s', wanted '%s'", field, rc, rc ? err.msg : "", want);
    assert_no_key_material(err.msg);
    assert_null(k.project_id);
    assert_null(k.private_key);
    free(text);
}

static void accept(const char *field, json_t *value)
{
    char *text = key_file(field, value);
    gcp_sa_key k;
    rd_err err;
    if (gcp_key_parse(text, strlen(text), &k, &err) != RD_OK)
        fail_msg("%s: refused: %s", field, err.msg);
    gcp_key_free(&k);
    free(text);
}

static void test_valid_key_fields(void **state)
{
    (void)state;
    char *text = key_file(NULL, NULL);
    gcp_sa_key k;
    rd_err err;
    assert_int_equal(gcp_key_parse(text, strlen(text), &k, &err), RD_OK);
    assert_string_equal(k.project_id, "lab-project");
    assert_string_equal(k.client_email, "rigdeck@lab-project.iam.gserviceaccount.com");
    assert_string_equal(k.private_key_id, "abc123");
    assert_string_equal(k.private_key, rsa_pem);
    assert_string_equal(k.token_uri, "https://oauth2.googleapis.com/token");
    gcp_key_free(&k);
    assert_null(k.private_key);
    gcp_key_free(&k); /* twice is harmless */
    gcp_key_free(NULL);
    free(text);
}

static void test_defaults_for_optional_fields(void **state)
{
    (void)state;
    char *text = key_file("token_uri", NULL);
    gcp_sa_key k;
    rd_err err;
    assert_int_equal(gcp_key_parse(text, strlen(text), &k, &err), RD_OK);
    assert_string_equal(k.token_uri, GCP_KEY_DEFAULT_TOKEN_URI);
    gcp_key_free(&k);
    free(text);
    text = key_file("private_key_id", NULL);
    assert_int_equal(gcp_key_parse(text, strlen(text), &k, &err), RD_OK);
    assert_string_equal(k.private_key_id, "");
    gcp_key_free(&k);
    free(text);
}

static void test_type_must_be_service_account(void **state)
{
    (void)state;
    refuse("type", json_string("authorized_user"),
           "gcp key: \"type\" must be \"service_account\"");
    refuse("type", NULL, "gcp key: \"type\" is missing");
    refuse("type", json_integer(1), "gcp key: \"type\" must be a string");
}

static void test_project_and_email(void **state)
{
    (void)state;
    refuse("project_id", NULL, "\"project_id\" is missing");
    refuse("project_id", json_string(""), "\"project_id\" is empty");
    refuse("client_email", NULL, "\"client_email\" is missing");
    const char *bad[] = { "nobody", "@lab.iam.gserviceaccount.com", "a@b", "a@@b.com", "a b@c.com", "a@b.",
                          "a@.com", "a@b.com\n" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        refuse("client_email", json_string(bad[i]), "is not an email address");
    accept("client_email", json_string("x@y.z"));
}

static void test_private_key_must_load_as_rsa(void **state)
{
    (void)state;
    const char *want = "gcp key: private_key is not an RSA private key OpenSSL can load";
    refuse("private_key", json_string(ec_pem), want);
    refuse("private_key", json_string("not a key"), want);
    refuse("private_key", json_string(""), "\"private_key\" is empty");
    refuse("private_key", NULL, "\"private_key\" is missing");
    /* encrypted keys are refused without asking for a passphrase */
    refuse("private_key", json_string(rsa_enc_pem), want);
    /* a PEM cut in half */
    char *half = strdup(rsa_pem);
    half[strlen(half) / 2] = '\0';
    refuse("private_key", json_string(half), want);
    free(half);
    /* the traditional RSA PEM form is fine too */
    accept("private_key", json_string(rsa_trad_pem));
}

static void test_token_uri(void **state)
{
    (void)state;
    accept("token_uri", json_string("https://oauth2.example.test/token"));
    accept("token_uri", json_string("http://127.0.0.1:8089/token"));
    accept("token_uri", json_string("http://localhost/token"));
    accept("token_uri", json_string("http://localhost:9000"));
    accept("token_uri", json_string("http://[::1]:9000/token"));
    accept("token_uri", json_string("HTTP://127.0.0.1:8089/token"));   /* the scheme is case-blind */
    accept("token_uri", json_string("http://127.1:8089/token"));       /* libcurl connects to 127.0.0.1 */
    const char *bad[] = { "http://oauth2.googleapis.com/token", "http://localhost.evil.test/token",
                          "http://127.0.0.1.evil.test/", "ftp://x/token", "https://", "https:///path", "token",
                          "https://a b/",
                          /* a user name and password that look like a loopback host: the host is 192.0.2.2 */
                          "http://localhost:1@192.0.2.2:8089/token", "http://127.0.0.1:1@192.0.2.2/token",
                          "http://localhost@192.0.2.2/token", "http://[::1]@192.0.2.2/token",
                          "HTTP://localhost:1@192.0.2.2:8089/token", "http://127.0.0.1\\@192.0.2.2/token",
                          "http://localhost./token", "http://[::ffff:127.0.0.1]/token",
                          /* no userinfo on https either: Google's token_uri has none */
                          "https://user:pw@oauth2.googleapis.com/token" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        refuse("token_uri", json_string(bad[i]), "token_uri");
    refuse("token_uri", json_string("http://localhost:1@192.0.2.2:8089/token"),
           "must not hold a user name or password before the host (its host is \"192.0.2.2\")");
    refuse("token_uri", json_string("http://127.0.0.1.evil.test/"),
           "plain http:// is only for a test server on 127.0.0.1, [::1] or localhost, its host is "
           "\"127.0.0.1.evil.test\"");
    refuse("token_uri", json_true(), "\"token_uri\" must be a string");
}

static void test_not_json_or_not_object(void **state)
{
    gcp_sa_key k;
    rd_err err;
    (void)state;
    assert_int_equal(gcp_key_parse("[]", 2, &k, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "must be a JSON object"));
    assert_int_equal(gcp_key_parse("", 0, &k, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "gcp key: not valid JSON"));
    assert_int_equal(gcp_key_parse("type: service_account\n", 22, &k, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "not valid JSON at line 1"));
    /* a broken file whose error sits inside the key must not echo it */
    char broken[4096];
    snprintf(broken, sizeof broken, "{\"type\": \"service_account\", \"private_key\": \"%.*s", 200, rsa_pem);
    assert_int_equal(gcp_key_parse(broken, strlen(broken), &k, &err), RD_EINVAL);
    assert_no_key_material(err.msg);
    /* jansson quotes a short token (up to 20 characters) near the error:
     * here, a piece of the key itself */
    char piece[16];
    memcpy(piece, strchr(rsa_pem, '\n') + 1, 12);
    piece[12] = '\0';
    snprintf(broken, sizeof broken, "{\"private_key\": \"%s\\q\"}", piece);
    assert_int_equal(gcp_key_parse(broken, strlen(broken), &k, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "invalid escape"));
    assert_null(strstr(err.msg, piece));
    snprintf(broken, sizeof broken, "{\"private_key\": %.*s\"}", 60, strchr(rsa_pem, '\n') + 1);
    assert_int_equal(gcp_key_parse(broken, strlen(broken), &k, &err), RD_EINVAL);
    assert_no_key_material(err.msg);
    /* duplicate keys are ambiguous: refused, even when the last one would do */
    char *good = key_file(NULL, NULL);
    char *dup = malloc(strlen(good) + 64);
    sprintf(dup, "{\"project_id\": \"other\", %s", good + 1);
    assert_int_equal(gcp_key_parse(dup, strlen(dup), &k, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "duplicate"));
    assert_null(k.project_id);
    free(dup);
    free(good);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_key_fields),
        cmocka_unit_test(test_defaults_for_optional_fields),
        cmocka_unit_test(test_type_must_be_service_account),
        cmocka_unit_test(test_project_and_email),
        cmocka_unit_test(test_private_key_must_load_as_rsa),
        cmocka_unit_test(test_token_uri),
        cmocka_unit_test(test_not_json_or_not_object),
    };
    return cmocka_run_group_tests(tests, make_keys, free_keys);
}
