/* Unit tests of the output upload's rclone remote (agent_upload.c): for
 * each output type that no server on this machine can play (AWS itself,
 * Google Cloud Storage, Azure Blob), the exact on-the-fly remote and
 * RCLONE_* variables, the key's values only there; s3:// through an
 * endpoint is exercised against a real server by test_data_upload.sh. */
#include "testutil.h"

#include <jansson.h>
#include <string.h>

#include "agent_upload.h"

/* env holds exactly the "K=V" strings of want (NULL-ended), in order */
static void env_is(const json_t *env, const char *const *want)
{
    size_t n = 0;
    for (; want[n]; n++) {
        assert_true(n < json_array_size(env));
        assert_string_equal(json_string_value(json_array_get(env, n)), want[n]);
    }
    assert_int_equal(json_array_size(env), n);
}

static void test_upload_s3(void **state)
{
    char remote[256], msg[256] = "";
    json_t *env = json_array();
    (void)state;
    /* type aws: AWS itself, no endpoint; a session token when the key has one */
    assert_int_equal(agent_upload_remote("s3://results/runs/t.zip", NULL, "aws",
                                         "AWS_ACCESS_KEY_ID=AKID\nAWS_SECRET_ACCESS_KEY=SECRET\nAWS_SESSION_TOKEN=TOK\n",
                                         remote, sizeof remote, env, msg, sizeof msg),
                     1);
    assert_string_equal(remote, ":s3:results/runs/t.zip");
    const char *want[] = { "RCLONE_S3_PROVIDER=AWS", "RCLONE_S3_NO_CHECK_BUCKET=true", "RCLONE_S3_ACCESS_KEY_ID=AKID",
                           "RCLONE_S3_SECRET_ACCESS_KEY=SECRET", "RCLONE_S3_SESSION_TOKEN=TOK", NULL };
    env_is(env, want);
    json_decref(env);

    /* type wasabi: the endpoint; no key: anonymous */
    env = json_array();
    assert_int_equal(agent_upload_remote("s3://b/x.zip", "https://s3.wasabisys.com", NULL, NULL, remote,
                                         sizeof remote, env, msg, sizeof msg),
                     1);
    const char *anon[] = { "RCLONE_S3_PROVIDER=Other", "RCLONE_S3_ENDPOINT=https://s3.wasabisys.com",
                           "RCLONE_S3_NO_CHECK_BUCKET=true", NULL };
    env_is(env, anon);
    json_decref(env);
}

static void test_upload_gcs(void **state)
{
    char remote[256], msg[256] = "";
    const char *sa = "{\"type\": \"service_account\", \"private_key\": \"-----BEGIN PRIVATE KEY-----\\nX\\n\"}";
    json_t *env = json_array();
    (void)state;
    assert_int_equal(agent_upload_remote("gs://bkt/out/t_1.zip", NULL, "gcp", sa, remote, sizeof remote, env, msg,
                                         sizeof msg),
                     1);
    assert_string_equal(remote, ":gcs:bkt/out/t_1.zip");
    assert_int_equal(json_array_size(env), 2);
    assert_string_equal(json_string_value(json_array_get(env, 0)), "RCLONE_GCS_BUCKET_POLICY_ONLY=true");
    /* the service-account JSON itself, whole, in the variable rclone reads */
    const char *creds = json_string_value(json_array_get(env, 1));
    assert_true(strncmp(creds, "RCLONE_GCS_SERVICE_ACCOUNT_CREDENTIALS=", 39) == 0);
    assert_string_equal(creds + 39, sa);
    json_decref(env);
}

static void test_upload_azure(void **state)
{
    char remote[256], msg[256] = "";
    json_t *env = json_array();
    (void)state;
    assert_int_equal(agent_upload_remote("https://acct1.blob.core.windows.net/results/runs/t.zip", NULL, "azure",
                                         "DefaultEndpointsProtocol=https;AccountName=acct1;AccountKey=a2V5==;"
                                         "EndpointSuffix=core.windows.net",
                                         remote, sizeof remote, env, msg, sizeof msg),
                     1);
    assert_string_equal(remote, ":azureblob:results/runs/t.zip");
    const char *want[] = { "RCLONE_AZUREBLOB_ACCOUNT=acct1", "RCLONE_AZUREBLOB_KEY=a2V5==", NULL };
    env_is(env, want);
    json_decref(env);
}

static void test_upload_elsewhere(void **state)
{
    char remote[256], msg[256] = "";
    json_t *env = json_array();
    (void)state;
    assert_int_equal(agent_upload_remote("https://example.com/up/t.zip", NULL, NULL, NULL, remote, sizeof remote, env,
                                         msg, sizeof msg),
                     0);
    assert_non_null(strstr(msg, "cannot upload to https://example.com/up/t.zip"));
    assert_int_equal(json_array_size(env), 0);
    json_decref(env);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_upload_s3),
        cmocka_unit_test(test_upload_gcs),
        cmocka_unit_test(test_upload_azure),
        cmocka_unit_test(test_upload_elsewhere),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
