/* Unit tests of the datastore mounts' exact commands (mount_argv.c): the
 * rclone mount of an SMB share (credentials only in RCLONE_SMB_*
 * variables, never on the command line; inputs read-only), the kernel's
 * `mount -t nfs4` (which no test here can run: this kernel has no NFS
 * client), the address forms, the NFS client check on /proc/filesystems
 * and the reading of /proc/self/mountinfo. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "agent_mount.h"

static void assert_argv(const char **argv, const char *const *want)
{
    size_t i = 0;
    for (; want[i]; i++) {
        assert_non_null(argv[i]);
        assert_string_equal(argv[i], want[i]);
    }
    assert_null(argv[i]);
}

static void test_address_split(void **state)
{
    (void)state;
    char host[64], port[8];
    assert_int_equal(mount_address_split("nas.lab", host, sizeof host, port, sizeof port), 0);
    assert_string_equal(host, "nas.lab");
    assert_string_equal(port, "");
    assert_int_equal(mount_address_split("127.0.0.1:4455", host, sizeof host, port, sizeof port), 0);
    assert_string_equal(host, "127.0.0.1");
    assert_string_equal(port, "4455");
    assert_int_equal(mount_address_split("[fd00::5]:2049", host, sizeof host, port, sizeof port), 0);
    assert_string_equal(host, "fd00::5");
    assert_string_equal(port, "2049");
    assert_int_equal(mount_address_split("[fd00::5]", host, sizeof host, port, sizeof port), 0);
    assert_string_equal(host, "fd00::5");
    assert_string_equal(port, "");
    assert_int_equal(mount_address_split("fd00::5", host, sizeof host, port, sizeof port), 0);
    assert_string_equal(host, "fd00::5");
    assert_string_equal(port, "");
    assert_int_equal(mount_address_split("nas:", host, sizeof host, port, sizeof port), -1);
    assert_int_equal(mount_address_split("nas:12x", host, sizeof host, port, sizeof port), -1);
    assert_int_equal(mount_address_split(":445", host, sizeof host, port, sizeof port), -1);
    assert_int_equal(mount_address_split("[fd00::5", host, sizeof host, port, sizeof port), -1);
    assert_int_equal(mount_address_split("", host, sizeof host, port, sizeof port), -1);
}

static void test_rclone_argv(void **state)
{
    (void)state;
    const char *argv[MOUNT_ARGV_MAX];
    char remote[256];
    assert_int_equal(mount_rclone_argv("/data/a", "/w/j/0/opt/ml/input", "/w/j/0/.mount/cache", 1, 0, remote,
                                       sizeof remote, argv),
                     0);
    const char *const ro[] = { "rclone", "mount", "--config", "/dev/null", "--cache-dir", "/w/j/0/.mount/cache",
                               "--vfs-cache-mode", "off", "--read-only", ":smb:data/a", "/w/j/0/opt/ml/input", NULL };
    assert_argv(argv, ro);
    assert_int_equal(mount_rclone_argv("/data/a/out", "/w/j/0/opt/ml/output", "/c", 0, 1, remote, sizeof remote, argv),
                     0);
    const char *const rw[] = { "rclone", "mount", "--config", "/dev/null", "--cache-dir", "/c", "--vfs-cache-mode",
                               "off", "--allow-other", ":smb:data/a/out", "/w/j/0/opt/ml/output", NULL };
    assert_argv(argv, rw);
    /* "/" names no share */
    assert_int_equal(mount_rclone_argv("/", "/t", "/c", 0, 0, remote, sizeof remote, argv), -1);
}

static void test_rclone_env(void **state)
{
    (void)state;
    char *env[8];
    assert_int_equal(mount_rclone_env("127.0.0.1:4455", "ml", "OBSCURED", env, 8), 0);
    assert_string_equal(env[0], "RCLONE_SMB_HOST=127.0.0.1");
    assert_string_equal(env[1], "RCLONE_SMB_PORT=4455");
    assert_string_equal(env[2], "RCLONE_SMB_USER=ml");
    assert_string_equal(env[3], "RCLONE_SMB_PASS=OBSCURED");
    assert_null(env[4]);
    for (char **e = env; *e; e++)
        free(*e);
    /* guest access: no user, no password */
    assert_int_equal(mount_rclone_env("smb.lab", NULL, NULL, env, 8), 0);
    assert_string_equal(env[0], "RCLONE_SMB_HOST=smb.lab");
    assert_string_equal(env[1], "RCLONE_SMB_USER=guest");
    assert_null(env[2]);
    for (char **e = env; *e; e++)
        free(*e);
    assert_int_equal(mount_rclone_env("smb.lab:", NULL, NULL, env, 8), -1);
    for (char **e = env; *e; e++)
        free(*e);
}

static void test_nfs_argv(void **state)
{
    (void)state;
    const char *argv[MOUNT_ARGV_MAX];
    char opts[64], spec[256];
    assert_int_equal(mount_nfs_argv("nas.lab", "/exports/ml/a", "/w/j/0/opt/ml/input", 1, opts, sizeof opts, spec,
                                    sizeof spec, argv),
                     0);
    const char *const ro[] = { "mount", "-t", "nfs4", "-o", "nosuid,nodev,ro", "nas.lab:/exports/ml/a",
                               "/w/j/0/opt/ml/input", NULL };
    assert_argv(argv, ro);
    assert_int_equal(mount_nfs_argv("[fd00::5]:2050", "/exports", "/t", 0, opts, sizeof opts, spec, sizeof spec, argv),
                     0);
    const char *const v6[] = { "mount", "-t", "nfs4", "-o", "nosuid,nodev,port=2050", "[fd00::5]:/exports", "/t",
                               NULL };
    assert_argv(argv, v6);
    assert_int_equal(mount_nfs_argv("nas:x", "/e", "/t", 0, opts, sizeof opts, spec, sizeof spec, argv), -1);
}

static void test_nfs_client(void **state)
{
    (void)state;
    /* this machine's kernel: FUSE, no NFS or CIFS */
    assert_false(mount_nfs_client_listed("nodev\tsysfs\nnodev\tproc\n\text4\n\tfuseblk\nnodev\tfuse\nnodev\tfusectl\n"));
    assert_false(mount_nfs_client_listed("nodev\tnfsd\n"));
    assert_true(mount_nfs_client_listed("nodev\tsysfs\nnodev\tnfs\nnodev\tnfs4\n"));
    assert_true(mount_nfs_client_listed("nodev\tnfs4\n"));
    assert_false(mount_nfs_client_listed(""));
}

static void test_mountinfo(void **state)
{
    (void)state;
    char point[256], type[32];
    assert_int_equal(mount_info_parse("66 27 0:40 / /tmp/w/j/0/opt/ml/input rw,nosuid,nodev,relatime - fuse.rclone "
                                      ":smb{ie9HD}:data/a rw,user_id=0,group_id=0\n",
                                      point, sizeof point, type, sizeof type),
                     0);
    assert_string_equal(point, "/tmp/w/j/0/opt/ml/input");
    assert_string_equal(type, "fuse.rclone");
    assert_true(mount_type_ours(type));
    /* optional fields, and a space escaped */
    assert_int_equal(mount_info_parse("36 35 98:0 /mnt1 /my\\040dir rw,noatime master:1 shared:7 - nfs4 nas:/e rw\n",
                                      point, sizeof point, type, sizeof type),
                     0);
    assert_string_equal(point, "/my dir");
    assert_string_equal(type, "nfs4");
    assert_true(mount_type_ours(type));
    assert_int_equal(mount_info_parse("1 0 8:1 / / rw - ext4 /dev/sda1 rw\n", point, sizeof point, type, sizeof type), 0);
    assert_false(mount_type_ours(type));
    assert_false(mount_type_ours("fuse.sshfs"));
    assert_int_equal(mount_info_parse("garbage\n", point, sizeof point, type, sizeof type), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_address_split), cmocka_unit_test(test_rclone_argv), cmocka_unit_test(test_rclone_env),
        cmocka_unit_test(test_nfs_argv),      cmocka_unit_test(test_nfs_client),  cmocka_unit_test(test_mountinfo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
