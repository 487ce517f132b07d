/* Unit tests of the stager's parts (stage_fetch.c): which names are
 * archives, which archive entries would leave their folder (and that
 * extraction refuses them, writing nothing outside), and the exact rclone
 * command line and variables for S3 and GCS sources: credentials only in
 * the environment, never on the command line. */
#include "testutil.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent_stage.h"

static void test_archive_names(void **state)
{
    (void)state;
    assert_true(stage_is_archive("d.zip"));
    assert_true(stage_is_archive("d.tar"));
    assert_true(stage_is_archive("d.tar.gz"));
    assert_true(stage_is_archive("d.tgz"));
    assert_true(stage_is_archive("d.bz2"));
    assert_false(stage_is_archive("d.txt"));
    assert_false(stage_is_archive(".zip"));
    assert_false(stage_is_archive("zip"));
}

static void test_path_escapes(void **state)
{
    (void)state;
    assert_false(stage_path_escapes("a/b.txt"));
    assert_false(stage_path_escapes("a/..b/c"));
    assert_false(stage_path_escapes("./a"));
    assert_true(stage_path_escapes("/etc/passwd"));
    assert_true(stage_path_escapes("../x"));
    assert_true(stage_path_escapes("a/../../x"));
    assert_true(stage_path_escapes("a/.."));
}

/* Writes a tar of (name, symlink target or NULL) entries. */
static void make_tar(const char *path, const char *name, const char *link)
{
    struct archive *a = archive_write_new();
    struct archive_entry *e = archive_entry_new();
    archive_write_set_format_pax_restricted(a);
    assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
    archive_entry_set_pathname(e, name);
    archive_entry_set_perm(e, 0644);
    if (link) {
        archive_entry_set_filetype(e, AE_IFLNK);
        archive_entry_set_symlink(e, link);
        archive_write_header(a, e);
    } else {
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_size(e, 3);
        archive_write_header(a, e);
        archive_write_data(a, "hi\n", 3);
    }
    archive_entry_free(e);
    archive_write_close(a);
    archive_write_free(a);
}

static void test_extract_refuses_escapes(void **state)
{
    char dir[] = "/tmp/rdstageXXXXXX", tar[256], dest[256], path[300], why[512];
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(tar, sizeof tar, "%s/t.tar", dir);
    snprintf(dest, sizeof dest, "%s/in/sub", dir);
    snprintf(path, sizeof path, "%s/in", dir);
    mkdir(path, 0700);
    mkdir(dest, 0700);

    make_tar(tar, "ok/file.txt", NULL);
    assert_int_equal(stage_extract(tar, dest, why, sizeof why), 0);
    snprintf(path, sizeof path, "%s/ok/file.txt", dest);
    assert_int_equal(access(path, F_OK), 0);

    make_tar(tar, "../up.txt", NULL);
    assert_int_equal(stage_extract(tar, dest, why, sizeof why), -1);
    assert_non_null(strstr(why, "'../up.txt' would land outside"));
    snprintf(path, sizeof path, "%s/in/up.txt", dir);
    assert_int_not_equal(access(path, F_OK), 0);

    make_tar(tar, "/abs.txt", NULL);
    assert_int_equal(stage_extract(tar, dest, why, sizeof why), -1);

    make_tar(tar, "a/l", "../../x");   /* a/l -> ../../x climbs out */
    assert_int_equal(stage_extract(tar, dest, why, sizeof why), -1);
    make_tar(tar, "a/l2", "/etc");
    assert_int_equal(stage_extract(tar, dest, why, sizeof why), -1);
    make_tar(tar, "a/l3", "../ok/file.txt");   /* stays inside */
    assert_int_equal(stage_extract(tar, dest, why, sizeof why), 0);

    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_rclone_s3(void **state)
{
    char *env[8], src[256];
    const char *argv[12];
    (void)state;
    unsetenv("AWS_CA_BUNDLE");
    assert_int_equal(stage_rclone_env("s3", "s3://bkt/pre/", "http://127.0.0.1:9000", "aws",
                                      "AWS_ACCESS_KEY_ID=AKID\nAWS_SECRET_ACCESS_KEY=SECRET\n", NULL, env, 8), 0);
    const char *want[] = { "RCLONE_S3_PROVIDER=Other", "RCLONE_S3_ENDPOINT=http://127.0.0.1:9000",
                           "RCLONE_S3_ENV_AUTH=false", "RCLONE_S3_ACCESS_KEY_ID=AKID",
                           "RCLONE_S3_SECRET_ACCESS_KEY=SECRET", NULL };
    for (int i = 0; want[i]; i++)
        assert_string_equal(env[i], want[i]);
    assert_null(env[5]);
    for (int i = 0; env[i]; i++)
        free(env[i]);
    int n = stage_rclone_argv("s3", "s3://bkt/pre/", "/w/opt/ml/input", src, sizeof src, argv);
    const char *line[] = { "rclone", "copy", "--config", "/dev/null", "--error-on-no-transfer", ":s3:bkt/pre/",
                           "/w/opt/ml/input", NULL };
    assert_int_equal(n, 7);
    for (int i = 0; line[i]; i++)
        assert_string_equal(argv[i], line[i]);
    assert_null(argv[7]);
    for (int i = 0; argv[i]; i++)   /* never a secret on the command line */
        assert_null(strstr(argv[i], "SECRET"));

    /* no endpoint: AWS itself; no key: anonymous */
    assert_int_equal(stage_rclone_env("s3", "s3://bkt/pre/", NULL, NULL, NULL, NULL, env, 8), 0);
    assert_string_equal(env[0], "RCLONE_S3_PROVIDER=AWS");
    assert_string_equal(env[1], "RCLONE_S3_ENV_AUTH=false");
    assert_null(env[2]);
    for (int i = 0; env[i]; i++)
        free(env[i]);

    setenv("AWS_CA_BUNDLE", "/etc/ca.pem", 1);
    n = stage_rclone_argv("s3", "s3://bkt/x.tar.gz", "/d", src, sizeof src, argv);
    assert_int_equal(n, 9);
    assert_string_equal(argv[5], "--ca-cert");
    assert_string_equal(argv[6], "/etc/ca.pem");
    assert_string_equal(argv[7], ":s3:bkt/x.tar.gz");
    unsetenv("AWS_CA_BUNDLE");
}

static void test_rclone_gcs(void **state)
{
    char *env[8], src[256];
    const char *argv[12];
    (void)state;
    assert_int_equal(stage_rclone_env("gs", "gs://b/p", NULL, "gcp", "{}", "/w/.stage/gcp_key.json", env, 8), 0);
    assert_string_equal(env[0], "RCLONE_GCS_SERVICE_ACCOUNT_FILE=/w/.stage/gcp_key.json");
    free(env[0]);
    assert_int_equal(stage_rclone_env("gs", "gs://b/p", NULL, NULL, NULL, NULL, env, 8), 0);
    assert_string_equal(env[0], "RCLONE_GCS_ANONYMOUS=true");
    free(env[0]);
    stage_rclone_argv("gs", "gs://b/p", "/d", src, sizeof src, argv);
    assert_string_equal(src, ":gcs:b/p");
    /* no key file for a gcp key, or another kind of key: anonymous */
    assert_int_equal(stage_rclone_env("gs", "gs://b/p", NULL, "aws", "x", NULL, env, 8), 0);
    assert_string_equal(env[0], "RCLONE_GCS_ANONYMOUS=true");
    assert_null(env[1]);
    free(env[0]);
    const char *line[] = { "rclone", "copy", "--config", "/dev/null", "--error-on-no-transfer", ":gcs:b/p", "/d", NULL };
    for (int i = 0; line[i]; i++)
        assert_string_equal(argv[i], line[i]);
    assert_null(argv[7]);
    assert_int_equal(stage_rclone_env("webdav", "x://y", NULL, NULL, NULL, NULL, env, 8), -1);
}

/* rclone's obscured password: what `rclone reveal` reads back (this vector,
 * IV 00..0f, was checked with `rclone reveal`). */
static void test_rclone_obscure(void **state)
{
    unsigned char iv[16];
    char out[128], again[128];
    (void)state;
    for (int i = 0; i < 16; i++)
        iv[i] = (unsigned char)i;
    assert_int_equal(stage_rclone_obscure("anonymous", iv, out, sizeof out), 0);
    assert_string_equal(out, "AAECAwQFBgcICQoLDA0OD2DxCEt-vy__vg");
    assert_int_equal(stage_rclone_obscure("anonymous", NULL, out, sizeof out), 0);   /* a random IV each time */
    assert_int_equal(stage_rclone_obscure("anonymous", NULL, again, sizeof again), 0);
    assert_string_not_equal(out, again);
    assert_int_equal(stage_rclone_obscure("anonymous", iv, out, 10), -1);   /* does not fit */
}

/* ftp:// and ftps:// folders: host, port and an anonymous login in the
 * environment, the decoded path as the remote's */
static void test_rclone_ftp(void **state)
{
    char *env[8], src[256];
    const char *argv[12];
    (void)state;
    unsetenv("AWS_CA_BUNDLE");
    assert_int_equal(stage_rclone_env("ftp", "ftp://127.0.0.1:2121/pub/my%20data/", NULL, NULL, NULL, NULL, env, 8), 0);
    assert_string_equal(env[0], "RCLONE_FTP_HOST=127.0.0.1");
    assert_string_equal(env[1], "RCLONE_FTP_PORT=2121");
    assert_string_equal(env[2], "RCLONE_FTP_USER=anonymous");
    assert_true(strncmp(env[3], "RCLONE_FTP_PASS=", 16) == 0);
    assert_string_not_equal(env[3] + 16, "anonymous");   /* obscured, as rclone wants it */
    assert_null(env[4]);
    for (int i = 0; env[i]; i++)
        free(env[i]);
    int n = stage_rclone_argv("ftp", "ftp://127.0.0.1:2121/pub/my%20data/", "/w/opt/ml/input", src, sizeof src, argv);
    const char *line[] = { "rclone", "copy", "--config", "/dev/null", "--error-on-no-transfer", ":ftp:/pub/my data/",
                           "/w/opt/ml/input", NULL };
    assert_int_equal(n, 7);
    for (int i = 0; line[i]; i++)
        assert_string_equal(argv[i], line[i]);

    /* ftps: implicit TLS (as libcurl reads ftps:// for one file); no port:
     * rclone's default; an IPv6 literal without its brackets */
    assert_int_equal(stage_rclone_env("ftps", "ftps://[::1]/d/", NULL, NULL, NULL, NULL, env, 8), 0);
    assert_string_equal(env[0], "RCLONE_FTP_HOST=::1");
    assert_string_equal(env[1], "RCLONE_FTP_USER=anonymous");
    assert_string_equal(env[3], "RCLONE_FTP_TLS=true");
    assert_null(env[4]);
    for (int i = 0; env[i]; i++)
        free(env[i]);
    stage_rclone_argv("ftps", "ftps://[::1]/d/", "/d", src, sizeof src, argv);
    assert_string_equal(src, ":ftp:/d/");
    assert_int_equal(stage_rclone_env("ftp", "ftp:///nohost/", NULL, NULL, NULL, NULL, env, 8), -1);
}

/* an Azure Blob URL with an azure key: account and key, or a SAS-only
 * connection string as the container's SAS URL; CONTAINER/PATH as the
 * remote's path */
static void test_rclone_azureblob(void **state)
{
    char *env[8], src[256];
    const char *argv[12];
    const char *url = "https://acct1.blob.core.windows.net/data/voc/train.tar.gz";
    (void)state;
    unsetenv("AWS_CA_BUNDLE");
    assert_true(stage_azure_blob(url));
    assert_true(stage_azure_blob("https://acct1.blob.core.windows.net/data/"));
    assert_false(stage_azure_blob("https://acct1.blob.core.windows.net/"));
    assert_false(stage_azure_blob("https://example.com/x.blob.core.windows.net/data/f"));
    assert_false(stage_azure_blob("http://acct1.blob.core.windows.net/data/f"));
    assert_int_equal(stage_rclone_env("azureblob", url, NULL, "azure",
                                      "DefaultEndpointsProtocol=https;AccountName=acct1;AccountKey=a2V5==;"
                                      "EndpointSuffix=core.windows.net", NULL, env, 8), 0);
    assert_string_equal(env[0], "RCLONE_AZUREBLOB_ACCOUNT=acct1");
    assert_string_equal(env[1], "RCLONE_AZUREBLOB_KEY=a2V5==");
    assert_null(env[2]);
    for (int i = 0; env[i]; i++)
        free(env[i]);
    assert_int_equal(stage_rclone_env("azureblob", url, NULL, "azure",
                                      "BlobEndpoint=https://acct1.blob.core.windows.net/;SharedAccessSignature=sv=2022&sig=S1G",
                                      NULL, env, 8), 0);
    assert_string_equal(env[0], "RCLONE_AZUREBLOB_SAS_URL=https://acct1.blob.core.windows.net/data?sv=2022&sig=S1G");
    assert_null(env[1]);
    free(env[0]);
    int n = stage_rclone_argv("azureblob", url, "/d", src, sizeof src, argv);
    assert_int_equal(n, 7);
    assert_string_equal(argv[5], ":azureblob:data/voc/train.tar.gz");
    for (int i = 0; argv[i]; i++)   /* never a secret on the command line */
        assert_null(strstr(argv[i], "a2V5"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_archive_names),
        cmocka_unit_test(test_path_escapes),
        cmocka_unit_test(test_extract_refuses_escapes),
        cmocka_unit_test(test_rclone_s3),
        cmocka_unit_test(test_rclone_gcs),
        cmocka_unit_test(test_rclone_obscure),
        cmocka_unit_test(test_rclone_ftp),
        cmocka_unit_test(test_rclone_azureblob),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
