/* Unit tests of the master key file and of sealing secrets. */
#include "testutil.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "secret.h"

static char tmp[256];

static int setup(void **state)
{
    (void)state;
    testutil_tmpdir(tmp, sizeof tmp);
    return 0;
}

static void write_file(const char *path, const char *data, size_t len, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    close(fd);
    assert_int_equal(chmod(path, mode), 0);
}

/* ---- key path ------------------------------------------------------------- */

/* A cloud node's store password: the same for the same key and label (a
 * repeated insert), another for another label or key; hex, 64 long. */
static void test_derive_stable_and_distinct(void **state)
{
    (void)state;
    unsigned char k1[SECRET_KEY_LEN], k2[SECRET_KEY_LEN];
    char a[SECRET_DERIVED_HEX + 1], b[SECRET_DERIVED_HEX + 1], c[SECRET_DERIVED_HEX + 1], d[SECRET_DERIVED_HEX + 1];
    rd_err err;
    memset(k1, 1, sizeof k1);
    memset(k2, 2, sizeof k2);
    assert_int_equal(secret_derive(k1, "node n1\n2026-11-01T00:00:00Z", a, &err), RD_OK);
    assert_int_equal(secret_derive(k1, "node n1\n2026-11-01T00:00:00Z", b, &err), RD_OK);
    assert_int_equal(secret_derive(k1, "node n2\n2026-11-01T00:00:00Z", c, &err), RD_OK);
    assert_int_equal(secret_derive(k2, "node n1\n2026-11-01T00:00:00Z", d, &err), RD_OK);
    assert_string_equal(a, b);
    assert_string_not_equal(a, c);
    assert_string_not_equal(a, d);
    assert_int_equal(strlen(a), SECRET_DERIVED_HEX);
    assert_int_equal(strspn(a, "0123456789abcdef"), SECRET_DERIVED_HEX);
}

static void test_key_path_order(void **state)
{
    char buf[256];
    rd_err err;
    (void)state;
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    char *xdg = getenv("XDG_CONFIG_HOME") ? strdup(getenv("XDG_CONFIG_HOME")) : NULL;

    setenv("HOME", "/home/op", 1);
    setenv("XDG_CONFIG_HOME", "/cfg", 1);
    assert_int_equal(secret_master_key_path("/etc/rd.key", buf, sizeof buf, &err), RD_OK);
    assert_string_equal(buf, "/etc/rd.key");
    assert_int_equal(secret_master_key_path("", buf, sizeof buf, &err), RD_OK);
    assert_string_equal(buf, "/cfg/rigdeck/master.key");
    assert_int_equal(secret_master_key_path(NULL, buf, sizeof buf, &err), RD_OK);
    assert_string_equal(buf, "/cfg/rigdeck/master.key");
    setenv("XDG_CONFIG_HOME", "relative/cfg", 1); /* ignored, as XDG says */
    assert_int_equal(secret_master_key_path(NULL, buf, sizeof buf, &err), RD_OK);
    assert_string_equal(buf, "/home/op/.config/rigdeck/master.key");
    unsetenv("XDG_CONFIG_HOME");
    assert_int_equal(secret_master_key_path(NULL, buf, sizeof buf, &err), RD_OK);
    assert_string_equal(buf, "/home/op/.config/rigdeck/master.key");
    assert_int_equal(secret_master_key_path(NULL, buf, 10, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "longer than"));
    unsetenv("HOME");
    assert_int_equal(secret_master_key_path(NULL, buf, sizeof buf, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "--master-key"));

    if (home)
        setenv("HOME", home, 1);
    if (xdg)
        setenv("XDG_CONFIG_HOME", xdg, 1);
    free(home);
    free(xdg);
}

/* ---- key file ------------------------------------------------------------- */

static void test_key_created_private_and_stable(void **state)
{
    char path[600], dir[512];
    unsigned char k1[SECRET_KEY_LEN], k2[SECRET_KEY_LEN], zero[SECRET_KEY_LEN] = { 0 };
    struct stat st;
    rd_err err;
    (void)state;

    snprintf(dir, sizeof dir, "%s/cfg/rigdeck", tmp);
    snprintf(path, sizeof path, "%s/master.key", dir);
    assert_int_equal(secret_master_key_load(path, 1, k1, &err), RD_OK);
    assert_memory_not_equal(k1, zero, sizeof zero);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(st.st_size, 65); /* 64 hex + newline */
    assert_int_equal(stat(dir, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    /* loading again, with or without create, gives the same key */
    assert_int_equal(secret_master_key_load(path, 1, k2, &err), RD_OK);
    assert_memory_equal(k1, k2, sizeof k1);
    assert_int_equal(secret_master_key_load(path, 0, k2, &err), RD_OK);
    assert_memory_equal(k1, k2, sizeof k1);
    /* no temporary files left behind */
    DIR *d = opendir(dir);
    struct dirent *de;
    int files = 0;
    assert_non_null(d);
    while ((de = readdir(d)) != NULL)
        files += de->d_name[0] != '.';
    closedir(d);
    assert_int_equal(files, 1);
}

static void test_key_missing_without_create(void **state)
{
    char path[512];
    unsigned char k[SECRET_KEY_LEN];
    rd_err err;
    (void)state;
    snprintf(path, sizeof path, "%s/none/master.key", tmp);
    assert_int_equal(secret_master_key_load(path, 0, k, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "does not exist; the store's secrets were sealed with another admin host's key: "
                                    "copy it here (see docs)"));
    assert_non_null(strstr(err.msg, path));
    assert_int_not_equal(access(path, F_OK), 0);
}

static void test_key_file_permissions_refused(void **state)
{
    char path[512];
    unsigned char k[SECRET_KEY_LEN];
    rd_err err;
    (void)state;
    const char hex[] = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n";
    snprintf(path, sizeof path, "%s/perm.key", tmp);
    write_file(path, hex, strlen(hex), 0640);
    assert_int_equal(secret_master_key_load(path, 1, k, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "must not be readable by group or others (chmod 600)"));
    assert_int_equal(chmod(path, 0604), 0);
    assert_int_equal(secret_master_key_load(path, 0, k, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "readable by group or others"));
    assert_int_equal(chmod(path, 0620), 0);
    assert_int_equal(secret_master_key_load(path, 0, k, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "chmod 600"));
    assert_int_equal(chmod(path, 0600), 0);
    assert_int_equal(secret_master_key_load(path, 0, k, &err), RD_OK);
    assert_int_equal(k[0], 0x00);
    assert_int_equal(k[1], 0x11);
    assert_int_equal(k[31], 0xff);
    assert_int_equal(chmod(path, 0400), 0);
    assert_int_equal(secret_master_key_load(path, 0, k, &err), RD_OK);
    /* a directory is not a key file */
    assert_int_equal(secret_master_key_load(tmp, 0, k, &err), RD_EINVAL);
}

static void test_key_file_format_refused(void **state)
{
    char path[512];
    unsigned char k[SECRET_KEY_LEN];
    rd_err err;
    (void)state;
    const char *bad[] = {
        "00112233445566778899aabbccddeeff00112233445566778899aabbccddee\n",     /* 31 bytes */
        "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff00\n", /* 33 bytes */
        "zz112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n",   /* not hex */
        "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n\n", /* two newlines */
        "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeffX",    /* junk after */
        "",
    };
    snprintf(path, sizeof path, "%s/fmt.key", tmp);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_file(path, bad[i], strlen(bad[i]), 0600);
        assert_int_equal(secret_master_key_load(path, 1, k, &err), RD_EINVAL);
        assert_non_null(strstr(err.msg, "must hold exactly 64 hexadecimal characters"));
    }
    /* raw 32 bytes are not the format either */
    unsigned char raw[32];
    memset(raw, 0xab, sizeof raw);
    write_file(path, (const char *)raw, sizeof raw, 0600);
    assert_int_equal(secret_master_key_load(path, 0, k, &err), RD_EINVAL);
    /* without the newline is fine, upper case too */
    write_file(path, "00112233445566778899AABBCCDDEEFF00112233445566778899AABBCCDDEEFF", 64, 0600);
    assert_int_equal(secret_master_key_load(path, 0, k, &err), RD_OK);
    assert_int_equal(k[10], 0xaa);
}

static void test_key_concurrent_creation_agrees(void **state)
{
    char path[512];
    unsigned char mine[SECRET_KEY_LEN];
    int fds[2];
    rd_err err;
    enum { N = 8 };
    pid_t pids[N];
    (void)state;

    snprintf(path, sizeof path, "%s/race/deep/master.key", tmp);
    assert_int_equal(pipe(fds), 0);
    for (int i = 0; i < N; i++) {
        pids[i] = fork();
        assert_true(pids[i] >= 0);
        if (pids[i] == 0) {
            unsigned char k[SECRET_KEY_LEN];
            rd_err e;
            close(fds[0]);
            if (secret_master_key_load(path, 1, k, &e) != RD_OK)
                memset(k, 0xee, sizeof k);
            if (write(fds[1], k, sizeof k) != (ssize_t)sizeof k)
                _exit(2);
            _exit(0);
        }
    }
    close(fds[1]);
    for (int i = 0; i < N; i++) {
        int status;
        assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    assert_int_equal(secret_master_key_load(path, 0, mine, &err), RD_OK);
    for (int i = 0; i < N; i++) {
        unsigned char theirs[SECRET_KEY_LEN];
        assert_int_equal(read(fds[0], theirs, sizeof theirs), (ssize_t)sizeof theirs);
        assert_memory_equal(theirs, mine, sizeof mine);
    }
    close(fds[0]);
}

/* ---- sealing -------------------------------------------------------------- */

static const unsigned char key_a[SECRET_KEY_LEN] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                                     17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32 };
static const unsigned char key_b[SECRET_KEY_LEN] = { 32, 31, 30, 29 };

static void round_trip(const char *plain, size_t len)
{
    char *sealed = NULL, *out = NULL;
    size_t outlen = 0;
    rd_err err;
    assert_int_equal(secret_seal(key_a, plain, len, &sealed, &err), RD_OK);
    assert_int_equal(secret_open(key_a, sealed, &out, &outlen, &err), RD_OK);
    assert_int_equal(outlen, len);
    if (len)
        assert_memory_equal(out, plain, len);
    assert_int_equal(out[len], '\0');
    free(sealed);
    free(out);
}

static void test_seal_open_round_trip(void **state)
{
    (void)state;
    round_trip("hunter2", 7);
    round_trip("", 0);
    round_trip("a\0b\0c", 5);
    char *big = malloc(SECRET_MAX_PLAIN);
    for (size_t i = 0; i < SECRET_MAX_PLAIN; i++)
        big[i] = (char)(i * 7);
    round_trip(big, SECRET_MAX_PLAIN);
    char *sealed = (char *)1;
    rd_err err;
    assert_int_equal(secret_seal(key_a, big, SECRET_MAX_PLAIN + 1, &sealed, &err), RD_EINVAL);
    assert_null(sealed);
    free(big);
}

static void test_seal_format_and_fresh_nonce(void **state)
{
    char *s1, *s2, fp[17];
    unsigned char zero[SECRET_KEY_LEN] = { 0 };
    rd_err err;
    (void)state;

    secret_key_fingerprint(zero, fp);
    assert_string_equal(fp, "66687aadf862bd77"); /* SHA-256 of 32 zero bytes starts so */
    /* A plaintext long enough that random base64 cannot contain it by chance. */
    assert_int_equal(secret_seal(zero, "smb-password-42", 15, &s1, &err), RD_OK);
    assert_int_equal(secret_seal(zero, "smb-password-42", 15, &s2, &err), RD_OK);
    assert_int_equal(strncmp(s1, "rdsec1:66687aadf862bd77:", 24), 0);
    /* nonce 12 + 15 + tag 16 = 43 bytes -> 60 base64 characters */
    assert_int_equal(strlen(s1), 24 + 60);
    assert_string_not_equal(s1, s2);
    assert_null(strstr(s1, "smb-password"));
    free(s1);
    free(s2);
}

static void test_open_with_wrong_key(void **state)
{
    char *sealed, *out = (char *)1, fa[17], fb[17], want[200];
    size_t len = 99;
    rd_err err;
    (void)state;
    assert_int_equal(secret_seal(key_a, "secret", 6, &sealed, &err), RD_OK);
    assert_int_equal(secret_open(key_b, sealed, &out, &len, &err), RD_EINVAL);
    assert_null(out);
    assert_int_equal(len, 0);
    secret_key_fingerprint(key_a, fa);
    secret_key_fingerprint(key_b, fb);
    snprintf(want, sizeof want,
             "this secret was sealed with a different master key (fingerprint %s, yours %s): use the same key "
             "file on every admin host", fa, fb);
    assert_string_equal(err.msg, want);
    free(sealed);
}

static void expect_corrupt(const char *sealed)
{
    char *out = (char *)1;
    size_t len = 99;
    rd_err err;
    rd_code rc = secret_open(key_a, sealed, &out, &len, &err);
    if (rc != RD_ECORRUPT)
        fail_msg("<%s>: expected corrupt, got %d (%s)", sealed, rc, rc ? err.msg : "ok");
    assert_null(out);
    assert_int_equal(len, 0);
}

static void test_open_tampered_is_corrupt(void **state)
{
    char *sealed, *copy;
    rd_err err;
    (void)state;
    assert_int_equal(secret_seal(key_a, "the smb password", 16, &sealed, &err), RD_OK);
    size_t n = strlen(sealed);
    copy = strdup(sealed);
    /* every character of the payload, changed to another base64 character */
    for (size_t i = 24; i < n; i++) {
        strcpy(copy, sealed);
        if (copy[i] == '=')
            continue;
        copy[i] = copy[i] == 'A' ? 'B' : 'A';
        expect_corrupt(copy);
    }
    /* truncations, at every length, in buffers of exactly that size so
     * that ASan sees any read past the end */
    for (size_t cut = 0; cut < n; cut++) {
        char *t = strndup(sealed, cut);
        expect_corrupt(t);
        free(t);
    }
    /* garbage of other shapes */
    expect_corrupt("");
    expect_corrupt("hunter2");
    expect_corrupt("rdsec2:0000000000000000:AAAA");
    strcpy(copy, sealed);
    copy[24] = '!';
    expect_corrupt(copy);
    strcpy(copy, sealed);
    copy[30] = ' ';
    expect_corrupt(copy);
    strcpy(copy, sealed);
    copy[8] = (char)toupper((unsigned char)copy[8]) == copy[8] ? 'G' : (char)toupper((unsigned char)copy[8]);
    expect_corrupt(copy); /* fingerprint must be lower-case hex */
    char longer[512];
    snprintf(longer, sizeof longer, "%sAAAA", sealed);
    expect_corrupt(longer);
    snprintf(longer, sizeof longer, "%s    ", sealed); /* whitespace is garbling too */
    expect_corrupt(longer);
    snprintf(longer, sizeof longer, "%.24s    %s", sealed, sealed + 24);
    expect_corrupt(longer);
    free(copy);
    free(sealed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_derive_stable_and_distinct),
        cmocka_unit_test(test_key_path_order),
        cmocka_unit_test(test_key_created_private_and_stable),
        cmocka_unit_test(test_key_missing_without_create),
        cmocka_unit_test(test_key_file_permissions_refused),
        cmocka_unit_test(test_key_file_format_refused),
        cmocka_unit_test(test_key_concurrent_creation_agrees),
        cmocka_unit_test(test_seal_open_round_trip),
        cmocka_unit_test(test_seal_format_and_fresh_nonce),
        cmocka_unit_test(test_open_with_wrong_key),
        cmocka_unit_test(test_open_tampered_is_corrupt),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
