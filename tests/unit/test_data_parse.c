/* Unit tests of the data objects' parsers (core/data/): source URLs with
 * the key types and endpoints that fit them (datasrc.c), and key files of
 * every type (datakey_file.c), whose refusals never quote the file. */
#include "testutil.h"

#include "data.h"

#define SECRET "s3cr3t-Value-9f8e7d"

static void source_is(const char *url, datasrc_type want, const char *ds, const char *path)
{
    datasrc s;
    rd_err err;
    if (datasrc_parse("--source", url, &s, &err) != RD_OK)
        fail_msg("'%s' refused: %s", url, err.msg);
    if (s.type != want)
        fail_msg("'%s' read as %s", url, datasrc_type_name(s.type));
    if (ds)
        assert_string_equal(s.datastore, ds);
    if (path)
        assert_string_equal(s.path, path);
    datasrc_free(&s);
}

static void source_refused(const char *url, const char *want)
{
    datasrc s;
    rd_err err;
    if (datasrc_parse("--source", url, &s, &err) != RD_EINVAL)
        fail_msg("'%s' accepted", url);
    datasrc_free(&s);
    if (!strstr(err.msg, want))
        fail_msg("'%s': message '%s' lacks '%s'", url, err.msg, want);
}

static void test_source_forms(void **state)
{
    (void)state;
    source_is("s3://bucket/prefix/", DATASRC_S3, NULL, NULL);
    source_is("gs://my_bucket/x", DATASRC_GS, NULL, NULL);
    source_is("https://example.com/data.tar.gz", DATASRC_HTTPS, NULL, NULL);
    source_is("http://127.0.0.1:8000/d.zip", DATASRC_HTTP, NULL, NULL);
    source_is("ftp://ftp.example.com/pub/x", DATASRC_FTP, NULL, NULL);
    source_is("ftps://ftp.example.com/pub/x", DATASRC_FTPS, NULL, NULL);
    source_is("https://github.com/org/repo.git", DATASRC_GIT_HTTP, NULL, NULL);
    source_is("http://127.0.0.1:9/repo.git/", DATASRC_GIT_HTTP, NULL, NULL);
    source_is("git@github.com:org/repo.git", DATASRC_GIT_SSH, NULL, NULL);
    source_is("ssh://git@example.com:2222/org/repo.git", DATASRC_GIT_SSH, NULL, NULL);
    source_is("datastore:lab-nfs/a//b/./c/", DATASRC_DATASTORE, "lab-nfs", "/a/b/c");
    source_is("datastore:lab-nfs", DATASRC_DATASTORE, "lab-nfs", "/");
    assert_string_equal(datasrc_type_name(DATASRC_GIT_SSH), "git");
}

static void test_source_refusals(void **state)
{
    (void)state;
    source_refused("/abs/path", "must be an s3://");
    source_refused("bucket/x", "must be an s3://");
    source_refused("git@github.com:-oProxyCommand=x", "must be an s3://");
    source_refused("rsync://h/x", "scheme 'rsync' is not a source");
    source_refused("https://u:p@example.com/x", "a user name or password");
    source_refused("https://token@example.com/x", "a user name or password");
    source_refused("ssh://git:pw@example.com/r.git", "a user name or password");
    source_refused("s3://ab/x", "the bucket of an s3:// URL");
    source_refused("https:///x", "names no host");
    source_refused("https://e.com/a b", "spaces and control characters");
    source_refused("datastore:/x", "names a datastore");
    source_refused("datastore:Lab/x", "datastore name must be");
    source_refused("datastore:lab/../etc", "not usable");
    source_refused("datastore:lab/%2e%2e", "not usable");
}

static rd_code key_fits(const char *url, const char *type)
{
    datasrc s;
    rd_err err;
    assert_int_equal(datasrc_parse("--source", url, &s, &err), RD_OK);
    rd_code rc = datasrc_check_key(&s, "--key", "k", type, &err);
    datasrc_free(&s);
    return rc;
}

/* The table of docs/operations.md, row by row. */
static void test_key_table(void **state)
{
    (void)state;
    static const struct {
        const char *url;
        const char *fits[3];
    } rows[] = {
        { "s3://bkt/x", { "aws", "wasabi", NULL } },
        { "gs://bkt/x", { "gcp", NULL } },
        { "https://acct.blob.core.windows.net/c/x", { "azure", "huggingface", NULL } },
        { "http://example.com/x", { NULL } },
        { "ftp://example.com/x", { NULL } },
        { "ftps://example.com/x", { NULL } },
        { "https://huggingface.co/o/r.git", { "huggingface", NULL } },
        { "git@github.com:o/r.git", { "git", NULL } },
        { "datastore:ds/x", { NULL } },
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++)
        for (const char *const *t = datakey_types; *t; t++) {
            int want = 0;
            for (const char *const *f = rows[r].fits; *f; f++)
                want |= strcmp(*f, *t) == 0;
            if ((key_fits(rows[r].url, *t) == RD_OK) != want)
                fail_msg("%s with a %s key: %s", rows[r].url, *t, want ? "refused" : "accepted");
        }
}

static void test_endpoints(void **state)
{
    (void)state;
    datasrc s3, web;
    rd_err err;
    assert_int_equal(datasrc_parse("--source", "s3://bkt/x", &s3, &err), RD_OK);
    assert_int_equal(datasrc_parse("--source", "https://e.com/x", &web, &err), RD_OK);
    assert_int_equal(datasrc_check_endpoint(&s3, "--endpoint", NULL, "aws", &err), RD_OK);
    assert_int_equal(datasrc_check_endpoint(&s3, "--endpoint", "http://127.0.0.1:9000", NULL, &err), RD_OK);
    assert_int_equal(datasrc_check_endpoint(&s3, "--endpoint", NULL, "wasabi", &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "required with a wasabi key"));
    assert_int_equal(datasrc_check_endpoint(&s3, "--endpoint", "ftp://e.com", "aws", &err), RD_EINVAL);
    assert_int_equal(datasrc_check_endpoint(&s3, "--endpoint", "https://a:b@e.com", "aws", &err), RD_EINVAL);
    assert_int_equal(datasrc_check_endpoint(&web, "--endpoint", "https://e.com", NULL, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "only for s3:// sources"));
}

static void key_ok(const char *type, const char *text)
{
    rd_err err;
    if (datakey_file_check(type, "--file F", text, strlen(text), &err) != RD_OK)
        fail_msg("%s key refused: %s", type, err.msg);
}

static void key_refused(const char *type, const char *text, const char *want)
{
    rd_err err;
    if (datakey_file_check(type, "--file F", text, strlen(text), &err) != RD_EINVAL)
        fail_msg("%s key accepted: %s", type, text);
    if (!strstr(err.msg, want))
        fail_msg("%s key: message '%s' lacks '%s'", type, err.msg, want);
    if (strstr(err.msg, SECRET))
        fail_msg("%s key: message '%s' quotes the file", type, err.msg);
}

static void test_key_files(void **state)
{
    (void)state;
    key_ok("aws", "AWS_ACCESS_KEY_ID=AKID\nAWS_SECRET_ACCESS_KEY=" SECRET "\n");
    key_ok("wasabi", "# c\r\n\r\nAWS_SECRET_ACCESS_KEY=" SECRET "\r\nAWS_ACCESS_KEY_ID=W\r\nAWS_REGION=us-east-1");
    key_ok("huggingface", "hf_" SECRET "\n\n");
    key_ok("wandb", SECRET);
    key_ok("azure", "AccountName=a;AccountKey=" SECRET ";EndpointSuffix=core.windows.net\n");
    key_ok("azure", "BlobEndpoint=https://a.blob.core.windows.net;SharedAccessSignature=sig=" SECRET);
    key_ok("env", "A=1\n_B=\nC=x=y " SECRET "\n");
    key_ok("git", "-----BEGIN OPENSSH PRIVATE KEY-----\n" SECRET "\n-----END OPENSSH PRIVATE KEY-----\n");
    key_ok("git", "-----BEGIN EC PRIVATE KEY-----\n" SECRET "\n-----END EC PRIVATE KEY-----");

    key_refused("aws", "AWS_SECRET_ACCESS_KEY=" SECRET "\n", "aws keys need an AWS_ACCESS_KEY_ID=... line");
    key_refused("aws", "AWS_ACCESS_KEY_ID=A\nAWS_SECRET_ACCESS_KEY=" SECRET "\nAWS_ACCESS_KEY_ID=B\n",
                "line 3: the variable of line 1 is set again");
    key_refused("aws", "AWS_ACCESS_KEY_ID=A\n" SECRET "\n", "line 2: not a NAME=VALUE line");
    key_refused("wasabi", "AWS_ACCESS_KEY_ID=A\nPASSWORD=" SECRET "\n", "line 2: wasabi keys take only");
    key_refused("aws", "AWS_ACCESS_KEY_ID=\nAWS_SECRET_ACCESS_KEY=" SECRET, "line 1: the value is empty");
    key_refused("huggingface", "", "the file is empty");
    key_refused("huggingface", SECRET "\n" SECRET "\n", "line 2: the file must hold the token on one line only");
    key_refused("wandb", "ab " SECRET, "column 3");
    key_refused("azure", "AccountName=a;" SECRET, "Name=Value parts");
    key_refused("azure", "AccountName=a;AccountKey=", "with AccountName= and AccountKey=");
    key_refused("env", "9X=" SECRET, "line 1: not a NAME=VALUE line");
    key_refused("env", "A-B=" SECRET, "line 1: not a NAME=VALUE line");
    key_refused("env", "A=\x01" SECRET, "line 1: the value holds a control character");
    key_refused("env", "# only a comment\n", "at least one NAME=VALUE line");
    key_refused("env", "A=1\nRIGDECK_JOB_NAME=" SECRET, "line 2: RIGDECK_* and ML_*_PATH variables are rigdeck's own");
    key_refused("env", "ML_OUTPUT_PATH=/" SECRET, "line 1: RIGDECK_* and ML_*_PATH variables are rigdeck's own");
    key_ok("env", "ML_FLAG=1\nMY_PATH=/x\n");
    key_refused("git", "ssh-rsa AAAA" SECRET " me@host\n", "line 1: this is a public key");
    key_refused("git", SECRET "\n", "line 1: a git key starts with");
    key_refused("git", "-----BEGIN OPENSSH PRIVATE KEY-----\n" SECRET "\n", "no matching END line");
    key_refused("git", "-----BEGIN OPENSSH PRIVATE KEY-----\n-----END OPENSSH PRIVATE KEY-----\n", "no body");
    key_refused("git", "-----BEGIN ENCRYPTED PRIVATE KEY-----\n" SECRET "\n-----END ENCRYPTED PRIVATE KEY-----\n",
                "line 1: the private key is encrypted");
    key_refused("git",
                "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n" SECRET "\n-----END RSA PRIVATE KEY-----\n",
                "line 2: the private key is encrypted");
    key_refused("git", "-----BEGIN EC PRIVATE KEY-----\nx\n-----END EC PRIVATE KEY-----\n" SECRET "\n",
                "line 4: text after the key's END line");
    key_refused("gcp", "{\"type\": \"service_account\", \"private_key\": \"" SECRET "\"", "not valid JSON");
    key_refused("gcp", "[\"" SECRET "\"]", "must be a JSON object");
    key_refused("gcp", "{\"type\": \"" SECRET "\"}", "\"type\" must be \"service_account\"");
    key_refused("ssh", SECRET, "--type must be one of");

    rd_err err;
    static const char nul[] = "A=1\0B=" SECRET;
    assert_int_equal(datakey_file_check("env", "--file F", nul, sizeof nul - 1, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "NUL byte"));
    assert_true(datakey_type_known("huggingface"));
    assert_false(datakey_type_known("HuggingFace"));
    assert_false(datakey_type_known(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_source_forms),
        cmocka_unit_test(test_source_refusals),
        cmocka_unit_test(test_key_table),
        cmocka_unit_test(test_endpoints),
        cmocka_unit_test(test_key_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
