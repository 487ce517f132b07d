/* Unit tests of the runtimes behind runtime_ops (core/agent/runtime*.c):
 * the registry, each container runtime's argv (docker's too: no dockerd
 * runs on these machines), the check that runs a trivial container before
 * a runtime is chosen (with stand-in clients on PATH that answer as podman
 * and docker do when they cannot run), and how a container that never
 * started is told apart: image_pull_failed or runtime_error. */
#include "testutil.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "runner.h"
#include "runner_int.h"
#include "runtime.h"

static char root[1024];

/* Writes text to path (mode). */
static void put(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    chmod(path, mode);
}

static int argv_has(char **argv, const char *a, const char *b)
{
    for (size_t i = 0; argv && argv[i]; i++)
        if (strcmp(argv[i], a) == 0 && (!b || (argv[i + 1] && strcmp(argv[i + 1], b) == 0)))
            return 1;
    return 0;
}

/* A directory of stand-in clients, first on PATH. */
static void fake_clients(const char *podman, const char *docker)
{
    char bin[1200], path[1300], newpath[4096];
    snprintf(bin, sizeof bin, "%s/bin", root);
    mkdir(bin, 0755);
    snprintf(path, sizeof path, "%s/podman", bin);
    put(path, podman, 0755);
    snprintf(path, sizeof path, "%s/docker", bin);
    put(path, docker, 0755);
    snprintf(newpath, sizeof newpath, "%s:/usr/bin:/bin", bin);
    setenv("PATH", newpath, 1);
    setenv("RIGDECK_BUSYBOX", "/bin/sh", 1);   /* any file: the stand-ins never run it */
}

static void test_registry(void **state)
{
    (void)state;
    assert_null(runtime_find(RUNNER_AUTO));
    for (int k = RUNNER_PROCESS; k <= RUNNER_DOCKER; k++) {
        const runtime_ops *rt = runtime_find((runner_kind)k);
        assert_non_null(rt);
        assert_int_equal(rt->kind, k);
        assert_string_equal(rt->name, runner_kind_name((runner_kind)k));
        assert_non_null(rt->check);
        assert_non_null(rt->plan);
        assert_int_equal(rt->container, k != RUNNER_PROCESS);
        assert_int_equal(rt->stop != NULL, k != RUNNER_PROCESS);
        assert_int_equal(rt->pull != NULL, k != RUNNER_PROCESS);
    }
    char *argv[8] = { 0 };
    runtime_find(RUNNER_DOCKER)->stop("/usr/bin/docker", "rigdeck-j-0", argv);
    assert_string_equal(argv[0], "/usr/bin/docker");
    assert_string_equal(argv[1], "kill");
    assert_string_equal(argv[4], "rigdeck-j-0");
    assert_null(argv[5]);
}

static runner_spec spec_of(runner_kind kind, const char *gpus)
{
    runner_spec s;
    memset(&s, 0, sizeof s);
    s.kind = kind;
    s.dir = "/w/job-1/0";
    s.job_id = "job-1";
    s.command = "python train.py";
    s.image = "docker.io/library/busybox:1";
    s.gpus = gpus;
    return s;
}

static void test_docker_and_podman_argv(void **state)
{
    (void)state;
    fake_clients("#!/bin/sh\nexit 0\n", "#!/bin/sh\nexit 0\n");
    runner_spec s = spec_of(RUNNER_DOCKER, "0,2");
    runner_plan p;
    rd_err err;
    assert_int_equal(runner_plan_build(&s, &p, &err), RD_OK);
    assert_string_equal(p.argv[0], "docker");
    assert_non_null(strstr(p.path, "/bin/docker"));
    assert_true(argv_has(p.argv, "run", NULL) && argv_has(p.argv, "--rm", NULL) && argv_has(p.argv, "--init", NULL));
    assert_false(argv_has(p.argv, "--replace", NULL));
    assert_true(argv_has(p.argv, "--gpus", "\"device=0,2\""));
    assert_false(argv_has(p.argv, "--device", NULL));
    assert_true(argv_has(p.argv, "--pull=never", NULL));
    assert_true(argv_has(p.argv, "-v", "/w/job-1/0/.rigdeck/ctl:/.rigdeck:rw"));
    assert_true(argv_has(p.argv, "-e", "CUDA_VISIBLE_DEVICES"));
    assert_true(argv_has(p.argv, "docker.io/library/busybox:1", "/bin/sh"));
    assert_true(argv_has(p.argv, RUNTIME_ENTRY, "rigdeck"));
    /* the pull step: inspect, else pull; client and image as arguments */
    assert_non_null(p.pull_argv);
    assert_string_equal(p.pull_path, "/bin/sh");
    assert_non_null(strstr(p.pull_argv[2], "image inspect"));
    assert_non_null(strstr(p.pull_argv[2], "pull"));
    assert_string_equal(p.pull_argv[4], p.path);
    assert_string_equal(p.pull_argv[5], "docker.io/library/busybox:1");
    assert_null(p.pull_argv[6]);
    assert_non_null(strstr(p.record, "kind docker\n"));
    assert_false(argv_has(p.argv, "-p", NULL));   /* nothing published unless it serves */
    runner_plan_free(&p);

    /* a serving worker's port is published (agent_serve.c) */
    s = spec_of(RUNNER_PODMAN, "1");
    s.publish = "127.0.0.1:41733:80";
    assert_int_equal(runner_plan_build(&s, &p, &err), RD_OK);
    assert_true(argv_has(p.argv, "-p", "127.0.0.1:41733:80"));
    runner_plan_free(&p);

    s = spec_of(RUNNER_PODMAN, "1");
    assert_int_equal(runner_plan_build(&s, &p, &err), RD_OK);
    assert_true(argv_has(p.argv, "--replace", NULL));
    assert_true(argv_has(p.argv, "--device", "nvidia.com/gpu=1"));
    assert_false(argv_has(p.argv, "--gpus", NULL));
    assert_non_null(strstr(p.pull_argv[2], "image exists"));
    runner_plan_free(&p);

    /* the process runtime has no container, no pull, no control folder */
    s = spec_of(RUNNER_PROCESS, "");
    assert_int_equal(runner_plan_build(&s, &p, &err), RD_OK);
    assert_string_equal(p.path, "/bin/sh");
    assert_null(p.pull_argv);
    assert_null(p.ctl);
    runner_plan_free(&p);
}

/* podman answering `info` but unable to make a container, as crun does on
 * a cgroups v1/v2 hybrid host; docker without its daemon. */
#define BROKEN_PODMAN "#!/bin/sh\n[ \"$1\" = info ] && exit 0\necho 'Error: OCI runtime error: crun: cgroups in hybrid mode not supported' >&2\nexit 126\n"
#define BROKEN_DOCKER "#!/bin/sh\necho 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?' >&2\nexit 1\n"

static char notes[2048];

static void note(void *data, const runtime_ops *rt, const char *why)
{
    (void)data;
    size_t n = strlen(notes);
    snprintf(notes + n, sizeof notes - n, "%s: %s\n", rt->name, why);
}

static void test_pick(void **state)
{
    char scratch[1200], line[2048];
    runner_kind k = RUNNER_AUTO;
    rd_err err;
    (void)state;
    snprintf(scratch, sizeof scratch, "%s/check", root);
    mkdir(scratch, 0700);

    fake_clients(BROKEN_PODMAN, BROKEN_DOCKER);
    notes[0] = '\0';
    assert_int_equal(runtime_pick(RUNNER_AUTO, scratch, note, NULL, &k, &err), RD_OK);
    assert_int_equal(k, RUNNER_PROCESS);
    assert_non_null(strstr(notes, "podman: Error: OCI runtime error: crun: cgroups in hybrid mode not supported\n"));
    assert_non_null(strstr(notes, "docker: Cannot connect to the Docker daemon"));
    /* named: the runtime's own words stop the agent */
    assert_int_equal(runtime_pick(RUNNER_PODMAN, scratch, note, NULL, &k, &err), RD_EINVAL);
    assert_string_equal(err.msg, "--runtime podman cannot run a container here: Error: OCI runtime error: crun: "
                                 "cgroups in hybrid mode not supported");
    assert_int_equal(runtime_pick(RUNNER_DOCKER, scratch, note, NULL, &k, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "--runtime docker cannot run a container here: Cannot connect"));
    assert_int_equal(runtime_pick(RUNNER_PROCESS, scratch, note, NULL, &k, &err), RD_OK);
    assert_int_equal(k, RUNNER_PROCESS);

    /* a podman that runs the trivial container from the root file system */
    snprintf(line, sizeof line, "#!/bin/sh\necho \"$@\" >>%s/podman.args\nexit 0\n", root);
    fake_clients(line, BROKEN_DOCKER);
    assert_int_equal(runtime_pick(RUNNER_AUTO, scratch, note, NULL, &k, &err), RD_OK);
    assert_int_equal(k, RUNNER_PODMAN);
    {
        char path[1300], got[2048] = "", want[1400];
        snprintf(path, sizeof path, "%s/podman.args", root);
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        assert_non_null(fgets(got, sizeof got, f));
        fclose(f);
        snprintf(want, sizeof want, "run --rm --init --sig-proxy=true --rootfs %s/rootfs /bin/sh -c exit 0\n", scratch);
        assert_string_equal(got, want);
        struct stat st;
        snprintf(path, sizeof path, "%s/rootfs/bin/sh", scratch);
        assert_int_equal(lstat(path, &st), 0);
        assert_true(S_ISLNK(st.st_mode));
    }

    /* a docker that imports and runs: named docker passes; import first */
    snprintf(line, sizeof line, "#!/bin/sh\necho \"$1 $2 $3 $4\" >>%s/docker.args\nexit 0\n", root);
    fake_clients(BROKEN_PODMAN, line);
    assert_int_equal(runtime_pick(RUNNER_DOCKER, scratch, note, NULL, &k, &err), RD_OK);
    assert_int_equal(k, RUNNER_DOCKER);
    {
        char path[1300], got[2048] = "", want[1400];
        snprintf(path, sizeof path, "%s/docker.args", root);
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        assert_non_null(fgets(got, sizeof got, f));
        snprintf(want, sizeof want, "import %s/rootfs.tar rigdeck/runtime-check:1 \n", scratch);
        assert_string_equal(got, want);
        assert_non_null(fgets(got, sizeof got, f));
        assert_string_equal(got, "run --rm --init --sig-proxy=true\n");
        fclose(f);
    }

    /* podman not installed at all: skipped at once, saying so */
    fake_clients(BROKEN_PODMAN, BROKEN_DOCKER);
    {
        char path[1300];
        snprintf(path, sizeof path, "%s/bin/podman", root);
        unlink(path);
        snprintf(path, sizeof path, "%s/bin", root);
        setenv("PATH", path, 1);   /* nor the host's own podman */
    }
    notes[0] = '\0';
    assert_int_equal(runtime_pick(RUNNER_AUTO, scratch, note, NULL, &k, &err), RD_OK);
    assert_non_null(strstr(notes, "podman: podman is not installed (not on PATH)\n"));
}

/* A worker dir whose client ended at step (NULL: none) with log. */
static const char *failed_dir(const char *name, const char *step, const char *log)
{
    static char dir[1200];
    char path[1400];
    snprintf(dir, sizeof dir, "%s/%s", root, name);
    mkdir(dir, 0700);
    snprintf(path, sizeof path, "%s/.rigdeck", dir);
    mkdir(path, 0700);
    if (step) {
        snprintf(path, sizeof path, "%s/.rigdeck/step", dir);
        put(path, step, 0600);
    }
    snprintf(path, sizeof path, "%s/.rigdeck/output.log", dir);
    put(path, log, 0600);
    return dir;
}

static void test_failure_reasons(void **state)
{
    char msg[1024];
    runner_status_t st;
    (void)state;
    memset(&st, 0, sizeof st);
    st.state = RUNNER_EXITED;
    st.exit_code = 125;

    const char *d = failed_dir("pull", "pull\n",
                               "Trying to pull docker.io/rdtest/x:1...\n"
                               "time=\"...\" level=warning msg=\"Failed, retrying in 1s ... (1/3). Error: initializing source\"\n"
                               "Error: initializing source docker://rdtest/x:1: pinging container registry registry-1.docker.io: no such host\n");
    assert_string_equal(runtime_failure(d, &st, msg, sizeof msg), "image_pull_failed");
    assert_string_equal(msg, "Error: initializing source docker://rdtest/x:1: pinging container registry "
                             "registry-1.docker.io: no such host");

    st.exit_code = 126;
    d = failed_dir("crun", "run\n", "Error: OCI runtime error: crun: cgroups in hybrid mode not supported\n");
    assert_string_equal(runtime_failure(d, &st, msg, sizeof msg), "runtime_error");
    assert_string_equal(msg, "Error: OCI runtime error: crun: cgroups in hybrid mode not supported");

    /* the run step saying the image is not there is still the image's */
    st.exit_code = 125;
    d = failed_dir("gone", "run\n", "docker: Error response from daemon: No such image: rdtest/x:1.\n");
    assert_string_equal(runtime_failure(d, &st, msg, sizeof msg), "image_pull_failed");
    assert_string_equal(msg, "docker: Error response from daemon: No such image: rdtest/x:1.");

    /* an image without a shell: the runtime could not start the entry */
    st.exit_code = 127;
    d = failed_dir("nosh", "run\n", "Error: crun: executable file `/bin/sh` not found in $PATH: No such file or directory: OCI runtime attempted to invoke a command that was not found\n");
    assert_string_equal(runtime_failure(d, &st, msg, sizeof msg), "runtime_error");

    /* nothing said: the client's exit is the message */
    d = failed_dir("silent", "run\n", "");
    assert_string_equal(runtime_failure(d, &st, msg, sizeof msg), "runtime_error");
    assert_string_equal(msg, "the runtime's client exited 127 before the container started");
}

int main(void)
{
    testutil_tmpdir(root, sizeof root);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_docker_and_podman_argv),
        cmocka_unit_test(test_pick),
        cmocka_unit_test(test_failure_reasons),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
