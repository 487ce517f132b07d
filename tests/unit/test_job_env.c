/* Unit tests of job environment values sealed at rest (job_env.c): what
 * job submit stores, what output shows, what the agent opens. */
#include "testutil.h"

#include <sys/stat.h>

#include "job_env.h"
#include "secret.h"

static char tmp[256];

static int setup(void **state)
{
    (void)state;
    testutil_tmpdir(tmp, sizeof tmp);
    return 0;
}

static json_t *job_with(const char *env_json)
{
    json_t *env = json_loads(env_json, 0, NULL);
    assert_non_null(env);
    json_t *job = json_pack("{s:s, s:{s:s, s:o}}", "id", "job-0000abcd", "environment", "python", "3.9", "env", env);
    assert_non_null(job);
    return job;
}

static const char *env_value(const json_t *job, const char *name)
{
    return json_string_value(json_object_get(json_object_get(json_object_get(job, "environment"), "env"), name));
}

static const char *sealed_text(const json_t *job)
{
    return json_string_value(json_object_get(json_object_get(job, "environment"), "secret_env"));
}

/* The job as the store holds it, in one string. */
static char *stored(const json_t *job)
{
    char *s = json_dumps(job, JSON_COMPACT);
    assert_non_null(s);
    return s;
}

/* Seals job with the key at path; the key file is made on first use. */
static void seal(json_t *job, const char *path)
{
    cmd_ctx ctx;
    rd_err err = { 0 };
    memset(&ctx, 0, sizeof ctx);
    ctx.master_key_path = path;
    if (job_env_seal(&ctx, job, &err) != RD_OK)
        fail_msg("seal: %s", err.msg);
}

static void key_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", tmp, name);
}

static void test_seal_hides_values_and_opens_them(void **state)
{
    char path[512];
    const char *reason = "unset";
    json_t *vars = NULL;
    rd_err err = { 0 };
    struct stat st;
    (void)state;

    key_path(path, sizeof path, "master.key");
    json_t *job = job_with("{\"TOKEN\": \"tok-55aa-secret\", \"SPACED\": \"two words\\nand a line\", \"EMPTY\": \"\"}");
    seal(job, path);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);

    /* names stay, values are the marker, the sealed text holds them all */
    assert_string_equal(env_value(job, "TOKEN"), JOB_ENV_REDACTED);
    assert_string_equal(env_value(job, "SPACED"), JOB_ENV_REDACTED);
    assert_string_equal(env_value(job, "EMPTY"), JOB_ENV_REDACTED);
    assert_non_null(sealed_text(job));
    assert_int_equal(strncmp(sealed_text(job), "rdsec1:", 7), 0);
    char *s = stored(job);
    assert_null(strstr(s, "tok-55aa-secret"));
    assert_null(strstr(s, "two words"));
    free(s);

    assert_int_equal(job_env_open(path, job, &vars, &reason, &err), RD_OK);
    assert_null(reason);
    assert_int_equal(json_object_size(vars), 3);
    assert_string_equal(json_string_value(json_object_get(vars, "TOKEN")), "tok-55aa-secret");
    assert_string_equal(json_string_value(json_object_get(vars, "SPACED")), "two words\nand a line");
    assert_string_equal(json_string_value(json_object_get(vars, "EMPTY")), "");
    json_decref(vars);
    json_decref(job);
}

static void test_no_variables_need_no_key(void **state)
{
    char path[512];
    const char *reason = NULL;
    json_t *vars = NULL;
    rd_err err = { 0 };
    struct stat st;
    (void)state;

    key_path(path, sizeof path, "never/master.key");
    json_t *job = job_with("{}");
    seal(job, path);
    assert_int_equal(stat(path, &st), -1);
    assert_null(sealed_text(job));
    assert_int_equal(job_env_open(path, job, &vars, &reason, &err), RD_OK);
    assert_int_equal(json_object_size(vars), 0);
    json_decref(vars);
    json_decref(job);
}

/* Documents from before sealing: plain values, run as they are. */
static void test_old_plain_document_runs_as_is(void **state)
{
    char path[512];
    const char *reason = NULL;
    json_t *vars = NULL;
    rd_err err = { 0 };
    (void)state;

    key_path(path, sizeof path, "absent.key");   /* no key is needed for it */
    json_t *job = job_with("{\"OLD\": \"plain-old\", \"LOOKS\": \"rdsec1:not-sealed\"}");
    assert_int_equal(job_env_open(path, job, &vars, &reason, &err), RD_OK);
    assert_string_equal(json_string_value(json_object_get(vars, "OLD")), "plain-old");
    assert_string_equal(json_string_value(json_object_get(vars, "LOOKS")), "rdsec1:not-sealed");
    json_decref(vars);

    job_env_redact(job);
    assert_string_equal(env_value(job, "OLD"), JOB_ENV_REDACTED);
    char *s = stored(job);
    assert_null(strstr(s, "plain-old"));
    free(s);
    json_decref(job);

    /* a document without any environment section runs with nothing */
    job = json_pack("{s:s}", "id", "job-1");
    assert_int_equal(job_env_open(path, job, &vars, &reason, &err), RD_OK);
    assert_int_equal(json_object_size(vars), 0);
    json_decref(vars);
    json_decref(job);
}

static void expect_refused(const char *path, const json_t *job, const char *want_reason, const char *want_msg)
{
    const char *reason = NULL;
    json_t *vars = (json_t *)1;
    rd_err err = { 0 };
    assert_int_not_equal(job_env_open(path, job, &vars, &reason, &err), RD_OK);
    assert_null(vars);
    assert_non_null(reason);
    assert_string_equal(reason, want_reason);
    if (!strstr(err.msg, want_msg) || !strstr(err.msg, "job-0000abcd"))
        fail_msg("message '%s' lacks '%s' or the job id", err.msg, want_msg);
}

static void test_wrong_or_missing_key_refused(void **state)
{
    char path[512], other[512], missing[512];
    (void)state;

    key_path(path, sizeof path, "right.key");
    key_path(other, sizeof other, "other.key");
    key_path(missing, sizeof missing, "missing.key");
    json_t *job = job_with("{\"TOKEN\": \"tok\"}");
    seal(job, path);
    {
        unsigned char key[SECRET_KEY_LEN];
        rd_err err = { 0 };
        assert_int_equal(secret_master_key_load(other, 1, key, &err), RD_OK);   /* another admin host's */
    }
    expect_refused(other, job, "env_wrong_master_key", "different master key");
    expect_refused(missing, job, "env_no_master_key", "no usable master key");
    json_decref(job);
}

static void test_damaged_refused(void **state)
{
    char path[512];
    (void)state;

    key_path(path, sizeof path, "master.key");
    json_t *job = job_with("{\"TOKEN\": \"tok-damaged\"}");
    seal(job, path);
    json_t *env = json_object_get(job, "environment");

    /* one character changed in the ciphertext */
    char *text = strdup(sealed_text(job));
    size_t at = strlen(text) - 8;
    text[at] = text[at] == 'A' ? 'B' : 'A';
    json_object_set_new(env, "secret_env", json_string(text));
    expect_refused(path, job, "env_damaged", "damaged");
    free(text);

    json_object_set_new(env, "secret_env", json_integer(7));
    expect_refused(path, job, "env_damaged", "not a sealed text");

    /* sealed with the right key, but not the object job submit seals */
    {
        unsigned char key[SECRET_KEY_LEN];
        char *sealed = NULL;
        rd_err err = { 0 };
        assert_int_equal(secret_master_key_load(path, 0, key, &err), RD_OK);
        assert_int_equal(secret_seal(key, "[\"A=1\"]", 7, &sealed, &err), RD_OK);
        json_object_set_new(env, "secret_env", json_string(sealed));
        expect_refused(path, job, "env_damaged", "not a JSON object");
        free(sealed);
        assert_int_equal(secret_seal(key, "{\"A\": 1}", 8, &sealed, &err), RD_OK);
        json_object_set_new(env, "secret_env", json_string(sealed));
        expect_refused(path, job, "env_damaged", "A is not a string");
        free(sealed);
    }
    json_decref(job);
}

/* More than one sealed text may hold is refused at submit, by name. */
static void test_too_much_refused(void **state)
{
    char path[512], name[16];
    cmd_ctx ctx;
    rd_err err = { 0 };
    (void)state;

    key_path(path, sizeof path, "master.key");
    memset(&ctx, 0, sizeof ctx);
    ctx.master_key_path = path;
    char *big = malloc(8193);
    assert_non_null(big);
    memset(big, 'x', 8192);
    big[8192] = '\0';
    json_t *job = job_with("{}"), *env = json_object_get(json_object_get(job, "environment"), "env");
    for (int i = 0; i < 130; i++) {
        snprintf(name, sizeof name, "V%d", i);
        json_object_set_new(env, name, json_string(big));
    }
    free(big);
    assert_int_equal(job_env_seal(&ctx, job, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "environment.env: the variables take"));
    assert_null(sealed_text(job));
    json_decref(job);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seal_hides_values_and_opens_them),
        cmocka_unit_test(test_no_variables_need_no_key),
        cmocka_unit_test(test_old_plain_document_runs_as_is),
        cmocka_unit_test(test_wrong_or_missing_key_refused),
        cmocka_unit_test(test_damaged_refused),
        cmocka_unit_test(test_too_much_refused),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
