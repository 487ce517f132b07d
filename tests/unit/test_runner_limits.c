/* Unit tests of a worker's limits (core/agent/runner_limits.c, probe_cdi.c
 * and their hooks in runner_exec.c): the seed 001 arithmetic for CPU and
 * GPU jobs, MPS variables (half an A100 40 GB: 50 and 0=20480M), CPU
 * choice and lists, disk use, --cpus/--memory in the container argv, the
 * process runtime's affinity, and the CDI check on real spec samples of
 * tests/agent/cdi/. */
#include "testutil.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "err.h"
#include "probe_cdi.h"
#include "runner.h"
#include "runner_int.h"
#include "runner_limits.h"

static char root[1024];

static void test_cpu_job(void **state)
{
    limits_in in = { 0, 8, 64, 8, 40 };
    limits_out out;
    (void)state;
    limits_compute(&in, &out);
    assert_int_equal(out.cpus, 8);        /* its cpu_count */
    assert_int_equal(out.memory_gib, 32); /* 4 GiB per vCPU */
    in.cpu_count = 0;                     /* none asked: no limit */
    limits_compute(&in, &out);
    assert_int_equal(out.cpus, 0);
    assert_int_equal(out.memory_gib, 0);
}

static void test_gpu_job(void **state)
{
    /* 16 cores (32 vCPUs), 8 A100 40 GB */
    limits_in in = { 100, 0, 32, 8, 40 };
    limits_out out;
    (void)state;
    limits_compute(&in, &out);
    assert_int_equal(out.cpus, 4);
    assert_int_equal(out.memory_gib, 80);   /* twice its GPU's memory */
    in.gpus_x100 = 200;
    limits_compute(&in, &out);
    assert_int_equal(out.cpus, 8);
    assert_int_equal(out.memory_gib, 160);
    in.gpus_x100 = 50;                      /* half an A100 40 GB */
    limits_compute(&in, &out);
    assert_int_equal(out.cpus, 2);
    assert_int_equal(out.memory_gib, 40);
    in.gpus_x100 = 33;                      /* rounded down: 1.32 vCPUs, 26.4 GiB */
    limits_compute(&in, &out);
    assert_int_equal(out.cpus, 1);
    assert_int_equal(out.memory_gib, 26);
    in.cpu_count = 16;                      /* a GPU job's cpu_count does not count */
    limits_compute(&in, &out);
    assert_int_equal(out.cpus, 1);
    /* a small node: a quarter of 2 vCPUs over 8 GPUs is still one vCPU */
    limits_in small = { 25, 0, 2, 8, 1 };
    limits_compute(&small, &out);
    assert_int_equal(out.cpus, 1);
    assert_int_equal(out.memory_gib, 1);
    /* what the node did not say is no limit */
    limits_in unknown = { 100, 0, 0, 0, 0 };
    limits_compute(&unknown, &out);
    assert_int_equal(out.cpus, 0);
    assert_int_equal(out.memory_gib, 0);
}

static void test_mps_env(void **state)
{
    char pct[96], mem[96];
    (void)state;
    assert_int_equal(limits_mps_env(50, 0, 40, pct, sizeof pct, mem, sizeof mem), 2);
    assert_string_equal(pct, "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50");
    assert_string_equal(mem, "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=20480M");
    assert_int_equal(limits_mps_env(25, 3, 24, pct, sizeof pct, mem, sizeof mem), 2);
    assert_string_equal(pct, "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25");
    assert_string_equal(mem, "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=3=6144M");
    assert_int_equal(limits_mps_env(33, 1, 80, pct, sizeof pct, mem, sizeof mem), 2);
    assert_string_equal(mem, "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=1=27033M");   /* 27033.6 down */
    strcpy(pct, "untouched");
    assert_int_equal(limits_mps_env(100, 0, 40, pct, sizeof pct, mem, sizeof mem), 0);
    assert_int_equal(limits_mps_env(0, 0, 40, pct, sizeof pct, mem, sizeof mem), 0);
    assert_string_equal(pct, "untouched");
    assert_int_equal(limits_mps_env(50, 0, 0, pct, sizeof pct, mem, sizeof mem), 1);
}

static void test_pick_cpus(void **state)
{
    cpu_set_t online, taken, out;
    char list[256];
    (void)state;
    assert_int_equal(limits_cpu_list_parse("0-7", &online), 0);
    assert_int_equal(limits_cpu_list_parse("0-1", &taken), 0);
    assert_int_equal(limits_pick_cpus(4, &online, &taken, &out), 4);
    limits_cpu_list_format(&out, list, sizeof list);
    assert_string_equal(list, "2-5");
    /* not enough free: the free ones first, then the lowest taken */
    assert_int_equal(limits_cpu_list_parse("0-5", &taken), 0);
    assert_int_equal(limits_pick_cpus(4, &online, &taken, &out), 4);
    limits_cpu_list_format(&out, list, sizeof list);
    assert_string_equal(list, "0-1,6-7");
    /* fewer CPUs than asked: all of them */
    assert_int_equal(limits_cpu_list_parse("0,2", &online), 0);
    assert_int_equal(limits_pick_cpus(4, &online, NULL, &out), 2);
    limits_cpu_list_format(&out, list, sizeof list);
    assert_string_equal(list, "0,2");
}

static void test_cpu_lists(void **state)
{
    cpu_set_t s;
    char list[16];
    (void)state;
    assert_int_equal(limits_cpu_list_parse("0-3,8,10-11", &s), 0);
    assert_int_equal(CPU_COUNT(&s), 7);
    assert_true(CPU_ISSET(8, &s) && CPU_ISSET(11, &s) && !CPU_ISSET(9, &s));
    assert_int_equal(limits_cpu_list_format(&s, list, sizeof list), 0);
    assert_string_equal(list, "0-3,8,10-11");
    assert_int_equal(limits_cpu_list_format(&s, list, 5), -1);   /* too small: cut, NUL-terminated */
    assert_string_equal(list, "0-3");
    static const char *const bad[] = { "", "a", "1,", ",1", "3-1", "1-", "1--2", "99999", "0 1", NULL };
    for (const char *const *b = bad; *b; b++)
        assert_int_equal(limits_cpu_list_parse(*b, &s), -1);
}

static void write_file(const char *path, size_t bytes)
{
    char buf[4096];
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    memset(buf, 'x', sizeof buf);
    for (size_t done = 0; done < bytes; done += sizeof buf)
        assert_int_equal(write(fd, buf, sizeof buf), (ssize_t)sizeof buf);
    close(fd);
}

static void test_disk_used(void **state)
{
    char dir[1200], path[1400];
    (void)state;
    snprintf(dir, sizeof dir, "%s/du", root);
    assert_int_equal(mkdir(dir, 0700), 0);
    snprintf(path, sizeof path, "%s/.rigdeck", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/.rigdeck/output.log", dir);
    write_file(path, 512 * 1024);   /* the runner's own: not counted */
    int64_t empty = limits_disk_used(dir, 0, 1000);
    assert_true(empty >= 0 && empty < 64 * 1024);
    snprintf(path, sizeof path, "%s/sub", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/sub/data", dir);
    write_file(path, 256 * 1024);
    int64_t used = limits_disk_used(dir, 0, 1000);
    assert_true(used >= 256 * 1024 && used < 256 * 1024 + 64 * 1024);
    /* asked only "past 10 KiB?": it may stop early, but says more than 10 KiB */
    assert_true(limits_disk_used(dir, 10 * 1024, 1000) > 10 * 1024);
    assert_int_equal(limits_disk_used("/nonexistent/rigdeck", 0, 10), -1);
}

static int argv_has(char **argv, const char *a, const char *b)
{
    for (size_t i = 0; argv[i]; i++)
        if (strcmp(argv[i], a) == 0 && (!b || (argv[i + 1] && strcmp(argv[i + 1], b) == 0)))
            return 1;
    return 0;
}

static void test_plans(void **state)
{
    runner_spec s;
    runner_plan p;
    rd_err err;
    (void)state;
    memset(&s, 0, sizeof s);
    s.kind = RUNNER_PODMAN;
    s.dir = "/w/j/0";
    s.job_id = "job-1";
    s.command = "true";
    s.image = "localhost/busybox";
    s.cpus = 4;
    s.memory_gib = 80;
    assert_int_equal(runner_plan_build(&s, &p, &err), RD_OK);
    assert_true(argv_has(p.argv, "--cpus", "4") && argv_has(p.argv, "--memory", "80g"));
    assert_false(p.pin);
    runner_plan_free(&p);
    s.kind = RUNNER_DOCKER;
    s.gpus = "1";
    assert_int_equal(runner_plan_build(&s, &p, &err), RD_OK);
    assert_true(argv_has(p.argv, "--cpus", "4") && argv_has(p.argv, "--memory", "80g"));
    assert_true(argv_has(p.argv, "--gpus", "\"device=1\""));
    runner_plan_free(&p);
    s.cpus = s.memory_gib = 0;   /* no limit: no flags */
    assert_int_equal(runner_plan_build(&s, &p, &err), RD_OK);
    assert_false(argv_has(p.argv, "--cpus", NULL) || argv_has(p.argv, "--memory", NULL));
    runner_plan_free(&p);
    /* the process runtime pins; containers take --cpus instead */
    s.kind = RUNNER_PROCESS;
    s.cpu_list = "0,2-3";
    assert_int_equal(runner_plan_build(&s, &p, &err), RD_OK);
    assert_true(p.pin);
    assert_int_equal(CPU_COUNT(&p.cpus), 3);
    assert_true(CPU_ISSET(0, &p.cpus) && CPU_ISSET(3, &p.cpus) && !CPU_ISSET(1, &p.cpus));
    runner_plan_free(&p);
    s.cpu_list = "";
    assert_int_equal(runner_plan_build(&s, &p, &err), RD_OK);
    assert_false(p.pin);
    runner_plan_free(&p);
    s.cpu_list = "0-";
    assert_int_equal(runner_plan_build(&s, &p, &err), RD_EINVAL);
    s.cpu_list = NULL;
    s.cpus = -1;
    assert_int_equal(runner_plan_build(&s, &p, &err), RD_EINVAL);
}

/* A real worker under the process runtime runs on the CPUs it was given. */
static void test_process_affinity(void **state)
{
    char dir[1200], list[64];
    cpu_set_t mine;
    runner_spec s;
    runner_info info;
    runner_status_t st;
    rd_err err;
    (void)state;
    assert_int_equal(sched_getaffinity(0, sizeof mine, &mine), 0);
    int first = 0;
    while (!CPU_ISSET(first, &mine))
        first++;
    snprintf(list, sizeof list, "%d", first);
    snprintf(dir, sizeof dir, "%s/pin/0", root);
    memset(&s, 0, sizeof s);
    s.kind = RUNNER_PROCESS;
    s.dir = dir;
    s.job_id = "job-pin";
    s.command = "grep Cpus_allowed_list /proc/self/status";
    s.cpu_list = list;
    assert_int_equal(runner_start(&s, &info, &err), RD_OK);
    for (int i = 0; i < 2000; i++) {
        assert_int_equal(runner_status(dir, &st, &err), RD_OK);
        if (st.state == RUNNER_EXITED)
            break;
        usleep(10000);
    }
    assert_int_equal(st.state, RUNNER_EXITED);
    assert_int_equal(st.exit_code, 0);
    char *text = NULL, want[96];
    size_t len;
    int64_t total;
    assert_int_equal(runner_log_tail(dir, 4096, &text, &len, &total, &err), RD_OK);
    snprintf(want, sizeof want, "Cpus_allowed_list:\t%d\n", first);
    assert_non_null(strstr(text, want));
    free(text);
}

static json_t *names_of(const char *file)
{
    json_t *names = json_array(), *bad = NULL;
    FILE *f = fopen(file, "rb");
    char buf[16384];
    rd_err err;
    assert_non_null(f);
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_int_equal(probe_cdi_spec_names(buf, len, file, names, &err), RD_OK);
    json_decref(bad);
    return names;
}

static void test_cdi_specs(void **state)
{
    char detail[1024];
    rd_err err;
    (void)state;
    json_t *names = names_of("tests/agent/cdi/nvidia-ctk-index.yaml");
    assert_int_equal(json_array_size(names), 2);
    assert_string_equal(json_string_value(json_array_get(names, 0)), "0");
    assert_string_equal(json_string_value(json_array_get(names, 1)), "all");
    assert_int_equal(probe_cdi_check(names, 1, "/etc/cdi", detail, sizeof detail), 0);
    assert_string_equal(detail, "");
    /* a second GPU the spec does not name */
    assert_int_equal(probe_cdi_check(names, 2, "/etc/cdi", detail, sizeof detail), 1);
    assert_non_null(strstr(detail, "no CDI device nvidia.com/gpu=1 in the CDI specs of /etc/cdi"));
    assert_non_null(strstr(detail, "sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml"));
    json_decref(names);
    /* type-index names (gpu0) do not serve nvidia.com/gpu=0 */
    names = names_of("tests/agent/cdi/nvidia-ctk-type-index.json");
    assert_int_equal(json_array_size(names), 3);
    assert_int_equal(probe_cdi_check(names, 2, "/etc/cdi", detail, sizeof detail), 1);
    assert_non_null(strstr(detail, "no CDI device nvidia.com/gpu=0, nvidia.com/gpu=1 in"));
    assert_non_null(strstr(detail, "they name other devices"));
    json_decref(names);
    /* another vendor's kind adds nothing; not a mapping is refused */
    names = json_array();
    static const char other[] = "cdiVersion: 0.5.0\nkind: example.com/device\ndevices:\n  - name: \"0\"\n";
    assert_int_equal(probe_cdi_spec_names(other, strlen(other), "x.yaml", names, &err), RD_OK);
    assert_int_equal(json_array_size(names), 0);
    assert_int_equal(probe_cdi_spec_names("- a\n", 4, "y.yaml", names, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "y.yaml"));
    assert_int_equal(probe_cdi_check(names, 1, "/etc/cdi", detail, sizeof detail), 1);
    assert_non_null(strstr(detail, "none names an nvidia.com/gpu device"));
    json_decref(names);
}

static void test_cdi_dirs(void **state)
{
    char a[1200], b[1200], dirs[4000], path[1400];
    json_t *bad = NULL, *names;
    (void)state;
    snprintf(a, sizeof a, "%s/cdi-etc", root);
    snprintf(b, sizeof b, "%s/cdi-run", root);
    assert_int_equal(mkdir(a, 0700), 0);
    assert_int_equal(mkdir(b, 0700), 0);
    snprintf(dirs, sizeof dirs, "%s:%s:%s/absent", a, b, root);
    snprintf(path, sizeof path, "%s/nvidia.yaml", b);
    FILE *f = fopen(path, "w");
    fputs("cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n  - name: \"1\"\n  - name: 0\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/broken.json", a);
    f = fopen(path, "w");
    fputs("{\"kind\": ", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/notes.txt", a);   /* not a spec file: not read */
    f = fopen(path, "w");
    fputs("{", f);
    fclose(f);
    names = probe_cdi_names(dirs, &bad);
    assert_int_equal(json_array_size(names), 2);
    assert_int_equal(json_array_size(bad), 1);
    assert_non_null(strstr(json_string_value(json_array_get(bad, 0)), "broken.json"));
    char detail[512];
    assert_int_equal(probe_cdi_check(names, 2, dirs, detail, sizeof detail), 0);
    json_decref(names);
    json_decref(bad);
    setenv("RIGDECK_CDI_DIRS", a, 1);
    names = probe_cdi_names(NULL, &bad);
    assert_int_equal(json_array_size(names), 0);
    json_decref(names);
    json_decref(bad);
    unsetenv("RIGDECK_CDI_DIRS");
    /* the inventory's GPU count */
    snprintf(path, sizeof path, "%s/inv.yaml", root);
    f = fopen(path, "w");
    fputs("gpus:\n  - {model: a100, count: 2}\n  - {model: t4, count: 1}\ncpu_cores: 8\n", f);
    fclose(f);
    assert_int_equal(probe_cdi_inventory_gpus(path), 3);
    assert_int_equal(probe_cdi_inventory_gpus("/nonexistent"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_job),
        cmocka_unit_test(test_gpu_job),
        cmocka_unit_test(test_mps_env),
        cmocka_unit_test(test_pick_cpus),
        cmocka_unit_test(test_cpu_lists),
        cmocka_unit_test(test_disk_used),
        cmocka_unit_test(test_plans),
        cmocka_unit_test(test_process_affinity),
        cmocka_unit_test(test_cdi_specs),
        cmocka_unit_test(test_cdi_dirs),
    };
    testutil_tmpdir(root, sizeof root);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
