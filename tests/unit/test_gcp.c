/* Unit tests of the GCE client: base64url, the RS256 JWT (verified with the
 * public key), error classification and messages, instance names, machine
 * types, the instances.insert body, and - against a tiny HTTP server in a
 * thread - the token cache: one refresh on 401, expiry, retries on 5xx. */
#include "testutil.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <jansson.h>

#include "gcp.h"

static EVP_PKEY *rsa;
static char *rsa_pem;

static int make_key(void **state)
{
    (void)state;
    rsa = EVP_RSA_gen(1024);   /* small keeps valgrind quick; the algorithm is the same */
    BIO *b = BIO_new(BIO_s_mem());
    PEM_write_bio_PrivateKey(b, rsa, NULL, NULL, 0, NULL, NULL);
    char *data;
    long n = BIO_get_mem_data(b, &data);
    rsa_pem = strndup(data, (size_t)n);
    BIO_free(b);
    return rsa && rsa_pem ? 0 : -1;
}

static int free_key(void **state)
{
    (void)state;
    EVP_PKEY_free(rsa);
    free(rsa_pem);
    gcp_token_cache_clear();
    return 0;
}

/* ---- base64url and the JWT ---------------------------------------------- */

static void test_base64url(void **state)
{
    (void)state;
    static const struct { const char *in; size_t len; const char *out; } v[] = {
        { "", 0, "" }, { "f", 1, "Zg" }, { "fo", 2, "Zm8" }, { "foo", 3, "Zm9v" },
        { "foob", 4, "Zm9vYg" }, { "\xfb\xff", 2, "-_8" }, { "\xff\xfe\xfd", 3, "__79" },
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char *s = gcp_base64url((const unsigned char *)v[i].in, v[i].len);
        assert_string_equal(s, v[i].out);
        free(s);
    }
}

static unsigned char *b64url_decode(const char *s, size_t len, size_t *out_len)
{
    char *std = calloc(1, len + 4);
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        std[n++] = s[i] == '-' ? '+' : s[i] == '_' ? '/' : s[i];
    while (n % 4)
        std[n++] = '=';
    unsigned char *out = malloc(n);
    int got = EVP_DecodeBlock(out, (unsigned char *)std, (int)n);
    free(std);
    *out_len = (size_t)got - (len % 4 == 2 ? 2 : len % 4 == 3 ? 1 : 0);
    return out;
}

static json_t *decode_part(const char *s, size_t len)
{
    size_t n;
    unsigned char *raw = b64url_decode(s, len, &n);
    json_t *doc = json_loadb((char *)raw, n, 0, NULL);
    free(raw);
    return doc;
}

static int verify(const char *jwt)
{
    const char *dot2 = strrchr(jwt, '.');
    size_t siglen;
    unsigned char *sig = b64url_decode(dot2 + 1, strlen(dot2 + 1), &siglen);
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int ok = EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, rsa) == 1 &&
             EVP_DigestVerify(md, sig, siglen, (const unsigned char *)jwt, (size_t)(dot2 - jwt)) == 1;
    EVP_MD_CTX_free(md);
    free(sig);
    return ok;
}

static void test_jwt(void **state)
{
    (void)state;
    gcp_sa_key key = { "p1", "sa@p1.iam.gserviceaccount.com", "k1", rsa_pem, "https://oauth2.googleapis.com/token" };
    char *jwt = NULL;
    rd_err err;
    assert_int_equal(gcp_jwt_sign(&key, GCP_SCOPE, 1000, &jwt, &err), RD_OK);
    const char *dot1 = strchr(jwt, '.'), *dot2 = strrchr(jwt, '.');
    assert_non_null(dot1);
    assert_true(dot2 > dot1);
    json_t *h = decode_part(jwt, (size_t)(dot1 - jwt));
    json_t *c = decode_part(dot1 + 1, (size_t)(dot2 - dot1 - 1));
    assert_string_equal(json_string_value(json_object_get(h, "alg")), "RS256");
    assert_string_equal(json_string_value(json_object_get(h, "typ")), "JWT");
    assert_string_equal(json_string_value(json_object_get(h, "kid")), "k1");
    assert_string_equal(json_string_value(json_object_get(c, "iss")), key.client_email);
    assert_string_equal(json_string_value(json_object_get(c, "aud")), key.token_uri);
    assert_string_equal(json_string_value(json_object_get(c, "scope")), GCP_SCOPE);
    assert_int_equal(json_integer_value(json_object_get(c, "iat")), 1000);
    assert_int_equal(json_integer_value(json_object_get(c, "exp")), 4600);
    assert_true(verify(jwt));
    jwt[dot1 - jwt + 2] ^= 1;   /* a changed claim no longer matches the signature */
    assert_false(verify(jwt));
    json_decref(h);
    json_decref(c);
    free(jwt);

    gcp_sa_key bad = key;
    bad.private_key = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n";
    assert_int_equal(gcp_jwt_sign(&bad, GCP_SCOPE, 1000, &jwt, &err), RD_EINVAL);
    assert_null(jwt);
    assert_non_null(strstr(err.msg, "not an RSA private key"));
}

/* ---- classification ----------------------------------------------------- */

static gcp_fault classify(long http, const char *body)
{
    gcp_fault f;
    json_t *doc = json_loads(body, 0, NULL);
    gcp_classify_http(http, doc, &f);
    json_decref(doc);
    return f;
}

static void test_classify_http(void **state)
{
    (void)state;
    char text[400];
    gcp_fault f = classify(403, "{\"error\": {\"code\": 403, \"message\": \"Quota 'NVIDIA_A100_GPUS' exceeded.  Limit: 1.0 "
                                "in region us-central1.\", \"errors\": [{\"message\": \"x\", \"domain\": \"usageLimits\", "
                                "\"reason\": \"quotaExceeded\"}]}}");
    assert_int_equal(f.status, GCP_QUOTA_EXCEEDED);
    assert_string_equal(f.metric, "NVIDIA_A100_GPUS");
    assert_string_equal(gcp_fault_text(&f, text, sizeof text), "QUOTA_EXCEEDED NVIDIA_A100_GPUS (limit 1)");
    assert_false(gcp_status_transient(f.status));

    static const struct { long http; const char *body; gcp_status want; int transient; } v[] = {
        { 401, "{\"error\": {\"code\": 401, \"status\": \"UNAUTHENTICATED\", \"errors\": [{\"reason\": \"authError\"}]}}",
          GCP_UNAUTHENTICATED, 0 },
        { 403, "{\"error\": {\"code\": 403, \"message\": \"Required 'compute.instances.create' permission\", \"errors\": "
               "[{\"reason\": \"forbidden\"}]}}", GCP_PERMISSION_DENIED, 0 },
        { 403, "{\"error\": {\"code\": 403, \"errors\": [{\"reason\": \"rateLimitExceeded\"}]}}", GCP_RATE_LIMITED, 1 },
        { 404, "{\"error\": {\"code\": 404, \"errors\": [{\"reason\": \"notFound\"}]}}", GCP_NOT_FOUND, 0 },
        { 409, "{\"error\": {\"code\": 409, \"errors\": [{\"reason\": \"alreadyExists\"}]}}", GCP_ALREADY_EXISTS, 0 },
        { 429, "{\"error\": {\"code\": 429, \"status\": \"RESOURCE_EXHAUSTED\"}}", GCP_RATE_LIMITED, 1 },
        { 503, "{\"error\": {\"code\": 503, \"errors\": [{\"reason\": \"backendError\"}]}}", GCP_UNAVAILABLE, 1 },
        { 502, "<html>bad gateway</html>", GCP_UNAVAILABLE, 1 },
        { 400, "{\"error\": {\"code\": 400, \"errors\": [{\"reason\": \"invalid\"}]}}", GCP_BAD_REQUEST, 0 },
        { 503, "{\"error\": {\"code\": 503, \"errors\": [{\"reason\": \"ZONE_RESOURCE_POOL_EXHAUSTED\"}]}}",
          GCP_ZONE_EXHAUSTED, 1 },
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        f = classify(v[i].http, v[i].body);
        assert_int_equal(f.status, v[i].want);
        assert_int_equal(gcp_status_transient(f.status), v[i].transient);
        assert_int_equal(f.http, v[i].http);
    }
    f = classify(403, "{\"error\": {\"code\": 403, \"message\": \"Required 'compute.instances.list' permission\"}}");
    assert_non_null(strstr(gcp_fault_text(&f, text, sizeof text), "403 PERMISSION_DENIED: Required"));
    assert_non_null(strstr(text, "Compute Admin"));
}

static void test_classify_operation(void **state)
{
    (void)state;
    gcp_fault f;
    char text[400];
    json_t *op = json_loads("{\"status\": \"DONE\"}", 0, NULL);
    gcp_classify_operation(op, &f);
    assert_int_equal(f.status, GCP_OK);
    json_decref(op);

    op = json_loads("{\"status\": \"DONE\", \"httpErrorStatusCode\": 503, \"error\": {\"errors\": [{\"code\": "
                    "\"ZONE_RESOURCE_POOL_EXHAUSTED\", \"message\": \"The zone 'projects/p/zones/us-central1-a' does "
                    "not have enough resources available to fulfill the request.\"}]}}", 0, NULL);
    gcp_classify_operation(op, &f);
    assert_int_equal(f.status, GCP_ZONE_EXHAUSTED);
    assert_int_equal(f.http, 503);
    assert_non_null(strstr(gcp_fault_text(&f, text, sizeof text), "ZONE_RESOURCE_POOL_EXHAUSTED"));
    json_decref(op);

    op = json_loads("{\"status\": \"DONE\", \"error\": {\"errors\": [{\"code\": \"QUOTA_EXCEEDED\", \"message\": "
                    "\"over\", \"errorDetails\": [{\"quotaInfo\": {\"metricName\": \"compute.googleapis.com/"
                    "nvidia_t4_gpus\", \"limitName\": \"NVIDIA-T4-GPUS-per-project-region\", \"limit\": 4}}]}]}}",
                    0, NULL);
    gcp_classify_operation(op, &f);
    assert_int_equal(f.status, GCP_QUOTA_EXCEEDED);
    assert_string_equal(gcp_fault_text(&f, text, sizeof text), "QUOTA_EXCEEDED NVIDIA_T4_GPUS (limit 4)");
    json_decref(op);
}

/* ---- names, machine types, bodies -------------------------------------- */

static int valid_gce_name(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > 63 || s[0] < 'a' || s[0] > 'z' || s[n - 1] == '-')
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
            return 0;
    return 1;
}

static void test_instance_name(void **state)
{
    (void)state;
    char a[64], b[64];
    gcp_instance_name("burst-a100-1234abcd-0", a);
    assert_string_equal(a, "rigdeck-burst-a100-1234abcd-0");
    gcp_instance_name("a_b", a);
    gcp_instance_name("a-b", b);
    assert_string_not_equal(a, b);   /* sanitising never merges two nodes */
    assert_true(valid_gce_name(a));
    gcp_instance_name("a_b", b);
    assert_string_equal(a, b);       /* stable */
    const char *longest = "abcdefghij-abcdefghij-abcdefghij-abcdefghij-abcdefghij-abcdefgh";
    assert_int_equal(strlen(longest), 63);
    gcp_instance_name(longest, a);
    assert_true(valid_gce_name(a));
    assert_int_equal(strncmp(a, "rigdeck-", 8), 0);
    gcp_instance_name("gpu.node-", a);
    assert_true(valid_gce_name(a));
}

static void test_machine_type(void **state)
{
    (void)state;
    char buf[64];
    int gpus;
    assert_string_equal(gcp_machine_type("nvidia-tesla-a100", 1, 12, buf, &gpus), "a2-highgpu-1g");
    assert_int_equal(gpus, 1);
    assert_string_equal(gcp_machine_type("nvidia-tesla-a100", 3, 12, buf, &gpus), "a2-highgpu-4g");
    assert_int_equal(gpus, 4);
    assert_string_equal(gcp_machine_type("nvidia-a100-80gb", 2, 12, buf, &gpus), "a2-ultragpu-2g");
    assert_string_equal(gcp_machine_type("nvidia-tesla-t4", 1, 8, buf, &gpus), "custom-8-53248");
    assert_int_equal(gpus, 1);
    assert_string_equal(gcp_machine_type("nvidia-tesla-p100", 1, 6, buf, &gpus), "custom-6-39936");
}

static void test_instance_body(void **state)
{
    (void)state;
    gcp_instance_spec spec = { "rigdeck-n1", "us-central1-a", "n1", "burst", "compute", "custom-16-106496",
                               "nvidia-tesla-t4", 2, 2, 0, "projects/p1/global/images/family/rigdeck-node",
                               "#!/bin/sh\nexec rigdeck agent --runtime auto --node n1\n" };
    json_t *b = gcp_instance_body(&spec);
    assert_non_null(b);
    assert_string_equal(json_string_value(json_object_get(b, "name")), "rigdeck-n1");
    assert_string_equal(json_string_value(json_object_get(b, "machineType")),
                        "zones/us-central1-a/machineTypes/custom-16-106496");
    json_t *acc = json_array_get(json_object_get(b, "guestAccelerators"), 0);
    assert_string_equal(json_string_value(json_object_get(acc, "acceleratorType")),
                        "zones/us-central1-a/acceleratorTypes/nvidia-tesla-t4");
    assert_int_equal(json_integer_value(json_object_get(acc, "acceleratorCount")), 2);
    assert_string_equal(json_string_value(json_object_get(json_object_get(b, "scheduling"), "onHostMaintenance")),
                        "TERMINATE");
    json_t *disks = json_object_get(b, "disks");
    assert_int_equal(json_array_size(disks), 3);
    assert_true(json_is_true(json_object_get(json_array_get(disks, 0), "boot")));
    for (size_t i = 1; i < 3; i++) {
        json_t *d = json_array_get(disks, i);
        assert_string_equal(json_string_value(json_object_get(d, "type")), "SCRATCH");
        assert_string_equal(json_string_value(json_object_get(json_object_get(d, "initializeParams"), "diskType")),
                            "zones/us-central1-a/diskTypes/local-ssd");
    }
    assert_string_equal(json_string_value(json_object_get(json_object_get(b, "labels"), "managed-by")), "rigdeck");
    json_t *meta = json_array_get(json_object_get(json_object_get(b, "metadata"), "items"), 0);
    assert_string_equal(json_string_value(json_object_get(meta, "value")), "n1");
    /* the node's agent: its startup script, on the region's image */
    json_t *script = json_array_get(json_object_get(json_object_get(b, "metadata"), "items"), 2);
    assert_string_equal(json_string_value(json_object_get(script, "key")), "startup-script");
    assert_non_null(strstr(json_string_value(json_object_get(script, "value")), "rigdeck agent"));
    assert_string_equal(json_string_value(json_object_get(json_object_get(json_array_get(disks, 0), "initializeParams"),
                                                          "sourceImage")),
                        "projects/p1/global/images/family/rigdeck-node");
    json_decref(b);

    gcp_instance_spec storage = { "rigdeck-s", "us-east1-b", "s", "r", "storage", "n2-standard-4", NULL, 0, 0, 2000, NULL, NULL };
    b = gcp_instance_body(&storage);
    assert_null(json_object_get(b, "guestAccelerators"));
    assert_int_equal(json_array_size(json_object_get(json_object_get(b, "metadata"), "items")), 2);   /* no script */
    json_t *data = json_array_get(json_object_get(b, "disks"), 1);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(data, "initializeParams"), "diskSizeGb")), 2000);
    assert_string_equal(json_string_value(json_object_get(json_object_get(data, "initializeParams"), "diskType")),
                        "zones/us-east1-b/diskTypes/pd-ssd");
    json_decref(b);
}

/* ---- the token cache against a tiny server ----------------------------- */

typedef struct {
    int fd, port;
    pthread_t thread;
    pthread_mutex_t lock;
    int tokens_issued;
    int api_calls;
    int reject_first_token;   /* 401 for "tok1" */
    int reject_all;           /* 401 for every token */
    int fail_5xx;             /* answer 503 this many times */
} mini_server;

static void answer(int c, int code, const char *body)
{
    char head[256];
    int n = snprintf(head, sizeof head, "HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
                     "Connection: close\r\n\r\n", code, strlen(body));
    if (write(c, head, (size_t)n) < 0 || write(c, body, strlen(body)) < 0)
        return;
}

static void *serve(void *arg)
{
    mini_server *s = arg;
    for (;;) {
        int c = accept(s->fd, NULL, NULL);
        if (c < 0)
            return NULL;
        char req[8192];
        size_t len = 0;
        ssize_t got;
        while (len < sizeof req - 1 && (got = read(c, req + len, sizeof req - 1 - len)) > 0) {
            len += (size_t)got;
            req[len] = '\0';
            char *end = strstr(req, "\r\n\r\n");
            char *cl = strstr(req, "Content-Length: ");
            if (end && (!cl || len >= (size_t)(end + 4 - req) + strtoul(cl + 16, NULL, 10)))
                break;
        }
        req[len] = '\0';
        pthread_mutex_lock(&s->lock);
        if (strncmp(req, "GET /quit", 9) == 0) {
            answer(c, 200, "{}");
            close(c);
            pthread_mutex_unlock(&s->lock);
            return NULL;
        }
        if (strncmp(req, "POST /token", 11) == 0) {
            char body[128];
            s->tokens_issued++;
            snprintf(body, sizeof body, "{\"access_token\": \"tok%d\", \"expires_in\": 3600, \"token_type\": \"Bearer\"}",
                     s->tokens_issued);
            answer(c, 200, body);
        } else {
            s->api_calls++;
            const char *auth = strstr(req, "Authorization: Bearer ");
            int tok1 = auth && strncmp(auth + 22, "tok1\r", 5) == 0;
            if (!auth || s->reject_all || (s->reject_first_token && tok1))
                answer(c, 401, "{\"error\": {\"code\": 401, \"message\": \"Request had invalid authentication "
                               "credentials.\", \"status\": \"UNAUTHENTICATED\"}}");
            else if (s->fail_5xx > 0 && s->fail_5xx--)
                answer(c, 503, "{\"error\": {\"code\": 503, \"message\": \"try again\", \"status\": \"UNAVAILABLE\"}}");
            else
                answer(c, 200, "{\"name\": \"us-central1\", \"quotas\": [{\"metric\": \"CPUS\", \"limit\": 24.0, "
                               "\"usage\": 4.0}, {\"metric\": \"NVIDIA_T4_GPUS\", \"limit\": 2.0, \"usage\": 0.0}]}");
        }
        pthread_mutex_unlock(&s->lock);
        close(c);
    }
}

static void server_start(mini_server *s)
{
    struct sockaddr_in a = { 0 };
    socklen_t alen = sizeof a;
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->lock, NULL);
    s->fd = socket(AF_INET, SOCK_STREAM, 0);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(s->fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(s->fd, 16), 0);
    getsockname(s->fd, (struct sockaddr *)&a, &alen);
    s->port = ntohs(a.sin_port);
    pthread_create(&s->thread, NULL, serve, s);
}

static void server_stop(mini_server *s, gcp_client *c)
{
    /* Any request to /quit ends the thread; reuse the client's plumbing. */
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/quit", s->port);
    (void)c;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { 0 };
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)s->port);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0 && write(fd, "GET /quit HTTP/1.1\r\n\r\n", 22) > 0) {
        char buf[256];
        while (read(fd, buf, sizeof buf) > 0)
            ;
    }
    close(fd);
    pthread_join(s->thread, NULL);
    close(s->fd);
    pthread_mutex_destroy(&s->lock);
}

static int64_t fake_now;
static int64_t fake_clock(void)
{
    return fake_now;
}

static char *key_json(int port)
{
    json_t *k = json_pack("{s:s, s:s, s:s, s:s, s:s}", "type", "service_account", "project_id", "p1", "client_email",
                          "sa@p1.iam.gserviceaccount.com", "private_key", rsa_pem, "token_uri", "");
    char uri[96];
    snprintf(uri, sizeof uri, "http://127.0.0.1:%d/token", port);
    json_object_set_new(k, "token_uri", json_string(uri));
    char *text = json_dumps(k, 0);
    json_decref(k);
    return text;
}

static void test_token_cache(void **state)
{
    (void)state;
    mini_server s;
    gcp_client *c = NULL;
    json_t *metrics = NULL;
    gcp_fault f;
    rd_err err;
    char ep[96];
    server_start(&s);
    snprintf(ep, sizeof ep, "http://127.0.0.1:%d/compute/v1", s.port);
    setenv("RIGDECK_GCP_ENDPOINT", ep, 1);
    setenv("RIGDECK_GCP_BACKOFF_MS", "1", 1);
    char *kj = key_json(s.port);
    assert_int_equal(gcp_client_new(kj, strlen(kj), "gcp us-central1", &c, &err), RD_OK);
    free(kj);
    gcp_token_cache_clear();
    fake_now = 1000000;
    gcp_set_clock(fake_clock);

    /* The first token is refused: exactly one refresh, then success. */
    s.reject_first_token = 1;
    unsigned long before = gcp_token_fetches();
    assert_int_equal(gcp_region_quotas(c, "us-central1", &metrics, &f, &err), RD_OK);
    assert_int_equal(gcp_token_fetches() - before, 2);
    assert_int_equal(s.api_calls, 2);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(metrics, "CPUS"), "limit")), 24);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(metrics, "CPUS"), "usage")), 4);
    json_decref(metrics);

    /* Cached: no new token. */
    assert_int_equal(gcp_region_quotas(c, "us-central1", &metrics, &f, &err), RD_OK);
    json_decref(metrics);
    assert_int_equal(gcp_token_fetches() - before, 2);

    /* Near expiry: fetched again before use. */
    fake_now += 3600 - 30;
    assert_int_equal(gcp_region_quotas(c, "us-central1", &metrics, &f, &err), RD_OK);
    json_decref(metrics);
    assert_int_equal(gcp_token_fetches() - before, 3);

    /* 5xx is retried with backoff. */
    s.fail_5xx = 2;
    int calls = s.api_calls;
    assert_int_equal(gcp_region_quotas(c, "us-central1", &metrics, &f, &err), RD_OK);
    json_decref(metrics);
    assert_int_equal(s.api_calls - calls, 3);

    /* Refused whatever the token: one refresh, then a clear failure. */
    s.reject_all = 1;
    calls = s.api_calls;
    unsigned long t = gcp_token_fetches();
    metrics = NULL;
    assert_int_equal(gcp_region_quotas(c, "us-central1", &metrics, &f, &err), RD_EPERM);
    assert_null(metrics);
    assert_int_equal(f.status, GCP_UNAUTHENTICATED);
    assert_int_equal(gcp_token_fetches() - t, 1);
    assert_int_equal(s.api_calls - calls, 2);
    assert_non_null(strstr(err.msg, "gcp us-central1: regions.get us-central1 failed: 401 UNAUTHENTICATED"));

    server_stop(&s, c);
    gcp_client_free(c);
    gcp_set_clock(NULL);
    gcp_token_cache_clear();
}

static void test_unreachable(void **state)
{
    (void)state;
    gcp_client *c = NULL;
    char *token = NULL;
    gcp_fault f;
    rd_err err;
    setenv("RIGDECK_GCP_BACKOFF_MS", "1", 1);
    char *kj = key_json(1);   /* nothing listens on port 1 */
    assert_int_equal(gcp_client_new(kj, strlen(kj), "gcp test", &c, &err), RD_OK);
    free(kj);
    gcp_token_cache_clear();
    assert_int_equal(gcp_access_token(c, &token, &f, &err), RD_EINVAL);
    assert_null(token);
    assert_int_equal(f.status, GCP_NETWORK);
    assert_non_null(strstr(err.msg, "gcp test: token request failed: no answer"));
    gcp_client_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_base64url),
        cmocka_unit_test(test_jwt),
        cmocka_unit_test(test_classify_http),
        cmocka_unit_test(test_classify_operation),
        cmocka_unit_test(test_instance_name),
        cmocka_unit_test(test_machine_type),
        cmocka_unit_test(test_instance_body),
        cmocka_unit_test(test_token_cache),
        cmocka_unit_test(test_unreachable),
    };
    return cmocka_run_group_tests(tests, make_key, free_key);
}
