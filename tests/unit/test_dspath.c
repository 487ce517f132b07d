/* Unit tests of datastore path resolution: joining, normalising, and every
 * escape attempt we could think of. */
#include "testutil.h"

#include "dspath.h"

static void resolves(const char *root, const char *path, const char *want)
{
    char *out = NULL;
    rd_err err;
    if (dspath_resolve(root, path, &out, &err) != RD_OK)
        fail_msg("'%s' + '%s' refused: %s", root, path, err.msg);
    if (strcmp(out, want) != 0)
        fail_msg("'%s' + '%s' gave '%s', wanted '%s'", root, path, out, want);
    free(out);
}

static void refused(const char *root, const char *path, const char *want)
{
    char *out = (char *)1;
    rd_err err;
    rd_code rc = dspath_resolve(root, path, &out, &err);
    if (rc != RD_EINVAL)
        fail_msg("'%s' + '%s' accepted as '%s'", root, path, rc == RD_OK ? out : "?");
    assert_null(out);
    if (!strstr(err.msg, want))
        fail_msg("'%s' + '%s': message '%s' lacks '%s'", root, path, err.msg, want);
}

static void test_seed_example(void **state)
{
    (void)state;
    resolves("/dir2", "/subdir2", "/dir2/subdir2");
    resolves("/", "/subdir2", "/subdir2");
    resolves("/dir2", "/", "/dir2");
    resolves("/", "/", "/");
}

static void test_normalisation(void **state)
{
    (void)state;
    resolves("/dir2/", "/subdir2/", "/dir2/subdir2");
    resolves("//dir2//", "//a///b//", "/dir2/a/b");
    resolves("/dir2", "/./a/./b/.", "/dir2/a/b");
    resolves("/./dir2/.", "/.", "/dir2");
    resolves("/", "//", "/");
    resolves("/exports/data", "/PASCAL VOC/train", "/exports/data/PASCAL VOC/train");
    /* names that only look special are ordinary */
    resolves("/d", "/a..b/.hidden/..x/x../not~at-start/50%off/%zz", "/d/a..b/.hidden/..x/x../not~at-start/50%off/%zz");
    resolves("/d", "/caf\xc3\xa9/\xe6\x97\xa5\xe6\x9c\xac", "/d/caf\xc3\xa9/\xe6\x97\xa5\xe6\x9c\xac");
}

static void test_path_must_start_with_slash(void **state)
{
    (void)state;
    refused("/dir2", "subdir2", "datastore path must start with '/'");
    refused("/dir2", "", "must start with '/'");
    refused("/dir2", "./subdir2", "must start with '/'");
    refused("/dir2", NULL, "must start with '/'");
}

static void test_root_must_be_absolute(void **state)
{
    (void)state;
    refused("dir2", "/x", "datastore root must be an absolute path");
    refused("", "/x", "datastore root must be an absolute path");
    refused(NULL, "/x", "datastore root must be an absolute path");
    refused("/a/../b", "/x", "datastore root must not contain '..'");
    refused("/a%2e%2e", "/x", "datastore root");
}

static void test_dot_dot_segments_refused(void **state)
{
    (void)state;
    const char *paths[] = { "/..", "/../", "/../dir1", "/subdir2/../../dir1", "/a/..", "/a/../b", "//..//",
                            "/./../", "/...", "/. .", "/.. ", "/ ..", "/a/ /b", "/..../x" };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        refused("/dir2", paths[i], "must not contain '..' segments");
}

static void test_percent_encoding_refused(void **state)
{
    (void)state;
    const char *paths[] = { "/%2e%2e/dir1", "/%2E%2E/dir1", "/%2f..", "/a%2fb", "/a%5cb", "/%252e%252e",
                            "/%c0%ae%c0%ae/", "/x%00", "/%41" };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        refused("/dir2", paths[i], "must not contain percent-encoded characters");
}

static void test_backslashes_refused(void **state)
{
    (void)state;
    refused("/dir2", "/..\\dir1", "must not contain backslashes");
    refused("/dir2", "/a\\b", "must not contain backslashes");
    refused("/dir2", "\\", "must start with '/'");
    refused("/dir\\2", "/a", "datastore root must not contain backslashes");
}

static void test_control_characters_refused(void **state)
{
    (void)state;
    refused("/dir2", "/a\nb", "must not contain control characters");
    refused("/dir2", "/a\tb", "must not contain control characters");
    refused("/dir2", "/a\x7f", "must not contain control characters");
    refused("/dir2", "/\x1b[2J", "must not contain control characters");
    refused("/dir\r", "/a", "datastore root");
    /* the message shows the path without the raw control character */
    char *out;
    rd_err err;
    assert_int_equal(dspath_resolve("/d", "/a\nb", &out, &err), RD_EINVAL);
    assert_null(strchr(err.msg, '\n'));
}

static void test_invalid_utf8_refused(void **state)
{
    (void)state;
    /* overlong encodings of '.' and '/' that lax decoders turn into ../ */
    refused("/dir2", "/\xc0\xae\xc0\xae/dir1", "must be valid UTF-8");
    refused("/dir2", "/\xe0\x80\xae\xe0\x80\xae", "must be valid UTF-8");
    refused("/dir2", "/..\xc0\xaf", "must be valid UTF-8");
    refused("/dir2", "/\xed\xa0\x80", "must be valid UTF-8");   /* surrogate */
    refused("/dir2", "/\xf4\x90\x80\x80", "must be valid UTF-8"); /* > U+10FFFF */
    refused("/dir2", "/\xc2\x85", "must be valid UTF-8");         /* C1 control NEL */
    refused("/dir2", "/\xff", "must be valid UTF-8");
    refused("/dir2", "/abc\xe6\x97", "must be valid UTF-8");      /* truncated */
}

static void test_tilde_segment_refused(void **state)
{
    (void)state;
    refused("/dir2", "/~", "must not start a segment with '~'");
    refused("/dir2", "/~root/.ssh", "must not start a segment with '~'");
    refused("/dir2", "/a/~/b", "must not start a segment with '~'");
    refused("/dir2", "~/x", "must start with '/'");
}

static void test_length_limit(void **state)
{
    (void)state;
    char *big = malloc(3 * DSPATH_MAX);
    big[0] = '/';
    memset(big + 1, 'a', 3 * DSPATH_MAX - 2);
    big[3 * DSPATH_MAX - 1] = '\0';
    refused("/d", big, "longer than 4096");
    refused(big, "/", "longer than 4096");
    /* exactly at the limit with the root */
    big[DSPATH_MAX - 2] = '\0'; /* "/" + 4093 a's = 4094, + "/d" = 4096 */
    char *out;
    rd_err err;
    assert_int_equal(dspath_resolve("/d", big, &out, &err), RD_OK);
    assert_int_equal(strlen(out), DSPATH_MAX);
    free(out);
    big[DSPATH_MAX - 2] = 'a';
    big[DSPATH_MAX] = '\0'; /* 4096 characters: fits alone, not with the root */
    assert_int_equal(strlen(big), DSPATH_MAX);
    refused("/d", big, "longer than 4096");
    free(big);
}

static void test_result_stays_under_root(void **state)
{
    (void)state;
    /* a battery of mixed attempts: none may resolve outside /srv/data */
    const char *attempts[] = { "/../etc/passwd", "/./../etc", "/a/b/../../../etc", "/%2e%2e/etc", "/..%2fetc",
                               "/..\\etc", "/\xc0\xae\xc0\xae/etc", "/~/etc", "/....//etc", "/. ./etc",
                               "/%252e%252e/etc", "/a/./../..", "/..;/etc" };
    for (size_t i = 0; i < sizeof attempts / sizeof attempts[0]; i++) {
        char *out = NULL;
        rd_err err;
        if (dspath_resolve("/srv/data", attempts[i], &out, &err) == RD_OK) {
            /* only harmless forms may pass, and then they stay under the root */
            if (strncmp(out, "/srv/data/", 10) != 0)
                fail_msg("'%s' escaped to '%s'", attempts[i], out);
            free(out);
        }
    }
    /* "..;" is an ordinary name to NFS/SMB, and stays under the root */
    resolves("/srv/data", "/..;/etc", "/srv/data/..;/etc");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_example),
        cmocka_unit_test(test_normalisation),
        cmocka_unit_test(test_path_must_start_with_slash),
        cmocka_unit_test(test_root_must_be_absolute),
        cmocka_unit_test(test_dot_dot_segments_refused),
        cmocka_unit_test(test_percent_encoding_refused),
        cmocka_unit_test(test_backslashes_refused),
        cmocka_unit_test(test_control_characters_refused),
        cmocka_unit_test(test_invalid_utf8_refused),
        cmocka_unit_test(test_tilde_segment_refused),
        cmocka_unit_test(test_length_limit),
        cmocka_unit_test(test_result_stays_under_root),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
