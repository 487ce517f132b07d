/* Unit tests of what an edge device's container is given
 * (agent_device_passthrough, core/agent/agent_device.c): the Jetson's
 * accelerator nodes and every video* node of a stand-in /dev
 * ($RIGDECK_DEV_DIR), or the CDI name nvidia.com/gpu=all where a spec
 * names it, and the `--device` words podman and docker get for them
 * (runtime_common.c).  No /dev/video* exists on the test machines. */
#include "testutil.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "agent_device.h"
#include "runner.h"
#include "runner_int.h"

static char root[1024];

static void touch(const char *rel)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/dev/%s", root, rel);
    int fd = open(path, O_WRONLY | O_CREAT, 0600);
    assert_true(fd >= 0);
    close(fd);
}

/* A /dev of a Jetson Orin: two cameras, host1x engines, nvmap, the igpu
 * nodes under nvgpu/, and what a container must not get (a disk, a tty). */
static void fake_dev(void)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/dev", root);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/dev/nvgpu", root);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/dev/nvgpu/igpu0", root);
    mkdir(path, 0755);
    touch("video1");
    touch("video0");
    touch("nvhost-ctrl-gpu");
    touch("nvhost-as-gpu");
    touch("nvmap");
    touch("nvgpu/igpu0/ctrl");
    touch("sda");
    touch("tty0");
    snprintf(path, sizeof path, "%s/dev", root);
    setenv("RIGDECK_DEV_DIR", path, 1);
}

static const char *at(const json_t *a, size_t i, char *buf, size_t len)
{
    const char *s = json_string_value(json_array_get(a, i));
    assert_non_null(s);
    /* relative to the stand-in /dev, for the comparisons */
    size_t n = strlen(root) + 5;   /* root + "/dev/" */
    snprintf(buf, len, "%s", strncmp(s, root, strlen(root)) == 0 ? s + n : s);
    return buf;
}

static void test_nodes_of_a_jetson(void **state)
{
    (void)state;
    char b[256];
    fake_dev();
    json_t *out = json_array(), *cdi = json_pack("[s]", "0");
    /* podman without a CDI spec naming "all": the nodes themselves */
    assert_int_equal(agent_device_passthrough(NULL, RUNNER_PODMAN, cdi, out), 6);
    assert_string_equal(at(out, 0, b, sizeof b), "nvgpu/igpu0/ctrl");
    assert_string_equal(at(out, 1, b, sizeof b), "nvhost-as-gpu");
    assert_string_equal(at(out, 2, b, sizeof b), "nvhost-ctrl-gpu");
    assert_string_equal(at(out, 3, b, sizeof b), "nvmap");
    assert_string_equal(at(out, 4, b, sizeof b), "video0");
    assert_string_equal(at(out, 5, b, sizeof b), "video1");
    json_decref(out);

    /* JetPack 6's CDI spec: the accelerator by name, cameras by node */
    out = json_array();
    json_array_append_new(cdi, json_string("all"));
    assert_int_equal(agent_device_passthrough(NULL, RUNNER_PODMAN, cdi, out), 3);
    assert_string_equal(at(out, 0, b, sizeof b), "video0");
    assert_string_equal(at(out, 1, b, sizeof b), "video1");
    assert_string_equal(at(out, 2, b, sizeof b), "nvidia.com/gpu=all");
    json_decref(out);

    /* docker takes no CDI names: the nodes */
    out = json_array();
    assert_int_equal(agent_device_passthrough(NULL, RUNNER_DOCKER, cdi, out), 6);
    json_decref(out);

    /* the process runtime's command sees /dev as it is */
    out = json_array();
    assert_int_equal(agent_device_passthrough(NULL, RUNNER_PROCESS, cdi, out), 0);
    assert_int_equal(json_array_size(out), 0);
    json_decref(out);
    json_decref(cdi);
}

static int argv_has(char **argv, const char *a, const char *b)
{
    for (size_t i = 0; argv && argv[i]; i++)
        if (strcmp(argv[i], a) == 0 && (!b || (argv[i + 1] && strcmp(argv[i + 1], b) == 0)))
            return 1;
    return 0;
}

static void test_device_argv(void **state)
{
    (void)state;
    char v0[1200], v1[1200], nvmap[1200];
    fake_dev();
    json_t *out = json_array();
    agent_device_passthrough(NULL, RUNNER_PODMAN, NULL, out);
    const char *devs[8] = { 0 };
    for (size_t i = 0; i < json_array_size(out) && i < 7; i++)
        devs[i] = json_string_value(json_array_get(out, i));
    snprintf(v0, sizeof v0, "%s/dev/video0", root);
    snprintf(v1, sizeof v1, "%s/dev/video1", root);
    snprintf(nvmap, sizeof nvmap, "%s/dev/nvmap", root);
    for (int k = RUNNER_PODMAN; k <= RUNNER_DOCKER; k++) {
        runner_spec s;
        runner_plan p;
        rd_err err;
        memset(&s, 0, sizeof s);
        s.kind = (runner_kind)k;
        s.dir = "/w/device-cam/1";
        s.job_id = "device-cam";
        s.command = "python run.py";
        s.image = "nvcr.io/acme/detect:1";
        s.gpus = "";
        s.devices = devs;
        assert_int_equal(runner_plan_build(&s, &p, &err), RD_OK);
        assert_true(argv_has(p.argv, "--device", v0));
        assert_true(argv_has(p.argv, "--device", v1));
        assert_true(argv_has(p.argv, "--device", nvmap));
        runner_plan_free(&p);
    }
    /* a word that could be taken for an option is refused */
    const char *bad[] = { "-v/:/host", NULL };
    runner_spec s;
    runner_plan p;
    rd_err err;
    memset(&s, 0, sizeof s);
    s.kind = RUNNER_PODMAN;
    s.dir = "/w/device-cam/1";
    s.job_id = "device-cam";
    s.command = "true";
    s.image = "img:1";
    s.devices = bad;
    assert_int_equal(runner_plan_build(&s, &p, &err), RD_EINVAL);
    json_decref(out);
}

int main(void)
{
    testutil_tmpdir(root, sizeof root);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nodes_of_a_jetson),
        cmocka_unit_test(test_device_argv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
