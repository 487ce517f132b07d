/* Unit tests of what nvidia-smi's answers mean (spec/execution.md §2), on
 * the captures of tests/agent/nvidia-smi/: columns without a reading, a
 * failing driver, lost GPUs, names no catalog type lists. */
#include "testutil.h"

#include <errno.h>

#include "probe.h"

#define FIXTURES "tests/agent/nvidia-smi/"

typedef struct {
    char out[8192], err[4096];
    int status;
} capture_file;

/* Splits a fixture as tests/agent/fake-nvidia-smi replays it. */
static void load(const char *name, capture_file *c)
{
    char path[512], line[1024];
    int to_err = 0;
    snprintf(path, sizeof path, FIXTURES "%s", name);
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot read %s: %s", path, strerror(errno));
    memset(c, 0, sizeof *c);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "# exit: ", 8) == 0)
            c->status = atoi(line + 8);
        else if (strncmp(line, "# stderr", 8) == 0)
            to_err = 1;
        else if (strncmp(line, "# stdout", 8) == 0)
            to_err = 0;
        else if (line[0] != '#')
            strncat(to_err ? c->err : c->out, line, (to_err ? sizeof c->err : sizeof c->out) - 1 -
                                                    strlen(to_err ? c->err : c->out));
    }
    fclose(f);
}

static probe_gpu *answer(const char *name, size_t *n, probe_smi *res)
{
    capture_file c;
    probe_gpu *g = NULL;
    rd_err err;
    load(name, &c);
    assert_int_equal(probe_gpus_answer(c.out, c.err, c.status, &g, n, res, &err), RD_OK);
    assert_int_equal(res->present, 1);
    return g;
}

/* Real exporter captures: every row reads, N/A readings are -1. */
static void test_real_captures_answer(void **state)
{
    static const struct {
        const char *file, *name;
        int mib, util, power_mw;
        int64_t ecc;
    } cases[] = {
        { "h100-80gb-hbm3.txt", "NVIDIA H100 80GB HBM3", 81559, 0, 69850, 0 },
        { "h100-mig-util-na.txt", "NVIDIA H100 80GB HBM3", 81559, -1, 71150, 0 },
        { "h200.txt", "NVIDIA H200", 143771, 0, 77710, 0 },
        { "l40s.txt", "NVIDIA L40S", 46068, 100, 144970, 0 },
        { "rtx4080-super-ecc-na.txt", "NVIDIA GeForce RTX 4080 SUPER", 16376, 0, 26200, -1 },
        { "rtx2080-super-ecc-na.txt", "NVIDIA GeForce RTX 2080 SUPER", 8192, 0, 39170, -1 },
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        probe_smi res;
        size_t n;
        probe_gpu *g = answer(cases[i].file, &n, &res);
        if (!res.answered || n != 1)
            fail_msg("%s: answered %d with %zu rows (%s)", cases[i].file, res.answered, n, res.detail);
        assert_string_equal(g[0].name, cases[i].name);
        assert_int_equal(g[0].memory_mib, cases[i].mib);
        assert_int_equal(g[0].util_pct, cases[i].util);
        assert_int_equal(g[0].power_mw, cases[i].power_mw);
        assert_true(g[0].ecc_errors == cases[i].ecc);
        assert_string_equal(res.detail, "");
        free(g);
    }
}

/* memory.total [N/A] (and an empty column) is no reading: the catalog's size. */
static void test_memory_without_reading_takes_catalog(void **state)
{
    probe_smi res;
    size_t n;
    (void)state;
    probe_gpu *g = answer("a100-memory-na.txt", &n, &res);
    assert_true(res.answered);
    assert_int_equal(n, 2);
    assert_string_equal(g[0].model, "a100");
    assert_int_equal(g[0].memory_mib, 0);
    assert_int_equal(probe_gpu_memory_gb(&g[0]), 40);
    assert_int_equal(g[0].mem_used_mib, -1);
    assert_int_equal(g[1].util_pct, -1);   /* the empty column */
    assert_int_equal(g[1].power_mw, -1);
    assert_int_equal(g[1].temp_c, 37);
    free(g);

    /* a card no type lists, with no memory reading either */
    g = answer("gb10-memory-na.txt", &n, &res);
    assert_true(res.answered);
    assert_int_equal(n, 1);
    assert_string_equal(g[0].name, "NVIDIA GB10");
    assert_string_equal(g[0].model, "");
    assert_int_equal(probe_gpu_memory_gb(&g[0]), 1);
    free(g);
}

/* A failing driver: no rows, its exit status and first line in detail. */
static void test_driver_failures(void **state)
{
    static const struct {
        const char *file;
        int status;
        const char *detail;
    } cases[] = {
        { "driver-not-loaded-exit9.txt", 9,
          "nvidia-smi failed with exit status 9: NVIDIA-SMI has failed because it couldn't communicate" },
        { "no-devices-exit6.txt", 6, "nvidia-smi failed with exit status 6: No devices were found" },
        { "version-mismatch-exit18.txt", 18,
          "nvidia-smi failed with exit status 18: Failed to initialize NVML: Driver/library version mismatch" },
        { "no-supported-gpus-exit255.txt", 255,
          "nvidia-smi failed with exit status 255: Failed to initialize NVML: No supported GPUs were found" },
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        probe_smi res;
        size_t n = 9;
        probe_gpu *g = answer(cases[i].file, &n, &res);
        assert_null(g);
        assert_int_equal(n, 0);
        assert_false(res.answered);
        assert_false(res.lost);
        assert_int_equal(res.status, cases[i].status);
        if (!strstr(res.detail, cases[i].detail))
            fail_msg("%s: detail '%s' lacks '%s'", cases[i].file, res.detail, cases[i].detail);
    }
}

/* A lost GPU: the rows still listed are kept, the lost one named when it can be. */
static void test_lost_gpus(void **state)
{
    probe_smi res;
    size_t n;
    probe_gpu *g;
    (void)state;

    g = answer("gpu-lost-exit15.txt", &n, &res);
    assert_true(res.lost);
    assert_false(res.answered);
    assert_int_equal(n, 1);
    assert_int_equal(g[0].index, 0);
    for (int k = 0; k < PROBE_LOST_MAX; k++)
        assert_int_equal(res.lost_index[k], 0);   /* named by PCI address only */
    assert_non_null(strstr(res.detail, "exit status 15: "));
    free(g);

    g = answer("gpu-lost-alone-exit15.txt", &n, &res);
    assert_true(res.lost);
    assert_int_equal(n, 0);
    assert_null(g);

    /* "Unable to determine the device handle" with another status: still lost */
    g = answer("device-handle-unknown-error.txt", &n, &res);
    assert_true(res.lost);
    assert_int_equal(res.status, 255);
    assert_int_equal(n, 3);
    assert_int_equal(g[0].index, 0);
    assert_int_equal(g[1].index, 2);
    assert_int_equal(g[2].index, 3);
    assert_int_equal(g[1].memory_mib, 0);
    free(g);

    /* named by index, on stderr */
    g = answer("fallen-off-bus.txt", &n, &res);
    assert_true(res.lost);
    assert_int_equal(n, 1);
    assert_int_equal(res.lost_index[1], 1);
    assert_int_equal(res.lost_index[0], 0);
    free(g);
}

/* Exit 0 with a line that is no row: not an answer, the line named. */
static void test_unreadable_answer(void **state)
{
    probe_gpu *g = (probe_gpu *)1;
    probe_smi res;
    size_t n;
    rd_err err;
    (void)state;
    assert_int_equal(probe_gpus_answer("0, Tesla T4, 15360, 3, 16, 0, 0, 30, 27.81, 0\nsomething else\n", "", 0, &g,
                                       &n, &res, &err),
                     RD_OK);
    assert_false(res.answered);
    assert_false(res.lost);
    assert_null(g);
    assert_non_null(strstr(res.detail, "line 2 has 1 columns"));
}

/* The stand-in replays a fixture, with its status, through the real runner. */
static void test_query_replays_fixture(void **state)
{
    static const char fake[] = "tests/agent/fake-nvidia-smi";
    probe_gpu *g = NULL;
    probe_smi res;
    size_t n;
    rd_err err;
    (void)state;
    if (access(fake, X_OK) != 0)
        skip();
    setenv("FAKE_NVIDIA_SMI_FIXTURE", FIXTURES "driver-not-loaded-exit9.txt", 1);
    assert_int_equal(probe_gpus_query(fake, 10000, &g, &n, &res, &err), RD_OK);
    assert_true(res.present);
    assert_false(res.answered);
    assert_int_equal(res.status, 9);
    assert_non_null(strstr(res.detail, "failed with exit status 9: NVIDIA-SMI has failed"));
    /* the old entry point keeps saying it as an error */
    int present = 0;
    assert_int_equal(probe_gpus_read(fake, &g, &n, &present, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "exit status 9"));
    setenv("FAKE_NVIDIA_SMI_FIXTURE", FIXTURES "fallen-off-bus.txt", 1);
    assert_int_equal(probe_gpus_query(fake, 10000, &g, &n, &res, &err), RD_OK);
    unsetenv("FAKE_NVIDIA_SMI_FIXTURE");
    assert_true(res.lost);
    assert_int_equal(res.lost_index[1], 1);
    assert_int_equal(n, 1);
    free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_captures_answer),
        cmocka_unit_test(test_memory_without_reading_takes_catalog),
        cmocka_unit_test(test_driver_failures),
        cmocka_unit_test(test_lost_gpus),
        cmocka_unit_test(test_unreadable_answer),
        cmocka_unit_test(test_query_replays_fixture),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
