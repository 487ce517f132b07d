/* Unit tests of the agent's machine discovery: nvidia-smi's CSV, its names,
 * running it (stand-in scripts), and a fixture /proc + /sys turned into the
 * exact inventory hwreq accepts. */
#include "testutil.h"

#include <errno.h>
#include <sys/stat.h>

#include "catalog.h"
#include "hwreq.h"
#include "probe.h"

static char tmp[256];

static void write_file(const char *path, const char *text, int mode)
{
    FILE *f = fopen(path, "w");
    if (!f)
        fail_msg("cannot write %s: %s", path, strerror(errno));
    fputs(text, f);
    fclose(f);
    if (mode && chmod(path, (mode_t)mode) != 0)
        fail_msg("chmod %s failed", path);
}

/* Creates every directory of rel under tmp and writes text to tmp/rel. */
static void put(const char *root, const char *rel, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
    write_file(path, text, 0);
}

static void mkdirs(const char *root, const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/", root, rel);
    for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
}

/* A stand-in nvidia-smi that prints csv when given exactly the query. */
static void script(const char *path, const char *body)
{
    char text[4096];
    snprintf(text, sizeof text,
             "#!/bin/sh\n"
             "[ \"$#\" -eq 2 ] && [ \"$1\" = '%s' ] && [ \"$2\" = '%s' ] || { echo \"bad args: $*\" >&2; exit 9; }\n"
             "%s",
             PROBE_NVIDIA_SMI_QUERY, PROBE_NVIDIA_SMI_FORMAT, body);
    write_file(path, text, 0755);
}

/* ---- the CSV -------------------------------------------------------------- */

static void test_parse_sxm_with_na_pcie(void **state)
{
    probe_gpu *g;
    size_t n;
    rd_err err;
    (void)state;
    assert_int_equal(probe_gpus_parse("0, NVIDIA A100-SXM4-40GB, 40960, [N/A], [N/A], 87, 30123, 64, 312.45, 0\n"
                                      "1, NVIDIA A100-SXM4-40GB, 40960, [N/A], [N/A], 0, 4, 33, 55.00, 2\n",
                                      &g, &n, &err),
                     RD_OK);
    assert_int_equal(n, 2);
    assert_int_equal(g[0].index, 0);
    assert_string_equal(g[0].name, "NVIDIA A100-SXM4-40GB");
    assert_string_equal(g[0].model, "a100");
    assert_int_equal(g[0].memory_mib, 40960);
    assert_int_equal(g[0].pcie_gen, 0);
    assert_int_equal(g[0].pcie_lanes, 0);
    assert_int_equal(g[0].util_pct, 87);
    assert_int_equal(g[0].mem_used_mib, 30123);
    assert_int_equal(g[0].temp_c, 64);
    assert_int_equal(g[0].power_mw, 312450);
    assert_int_equal(g[0].ecc_errors, 0);
    assert_int_equal(g[1].index, 1);
    assert_int_equal(g[1].power_mw, 55000);
    assert_int_equal(g[1].ecc_errors, 2);
    assert_int_equal(probe_gpu_memory_gb(&g[0]), 40);
    free(g);
}

static void test_parse_consumer_not_supported(void **state)
{
    probe_gpu *g;
    size_t n;
    rd_err err;
    (void)state;
    /* no spaces, CRLF, a blank line: all tolerated */
    assert_int_equal(probe_gpus_parse("\n0,NVIDIA GeForce RTX 3090,24576,4,16,3,1,35,[Not Supported],[N/A]\r\n"
                                      "1 ,  NVIDIA GeForce RTX 3090 , 24576 , 3 , 8 , [N/A] , [N/A] , [N/A] , 21.5 , "
                                      "[Not Supported]\n\n",
                                      &g, &n, &err),
                     RD_OK);
    assert_int_equal(n, 2);
    assert_string_equal(g[0].name, "NVIDIA GeForce RTX 3090");
    assert_string_equal(g[0].model, "rtx3090");
    assert_int_equal(g[0].pcie_gen, 4);
    assert_int_equal(g[0].pcie_lanes, 16);
    assert_int_equal(g[0].power_mw, -1);
    assert_int_equal(g[0].ecc_errors, -1);
    assert_int_equal(g[1].index, 1);
    assert_string_equal(g[1].name, "NVIDIA GeForce RTX 3090");
    assert_int_equal(g[1].pcie_gen, 3);
    assert_int_equal(g[1].pcie_lanes, 8);
    assert_int_equal(g[1].util_pct, -1);
    assert_int_equal(g[1].mem_used_mib, -1);
    assert_int_equal(g[1].temp_c, -1);
    assert_int_equal(g[1].power_mw, 21500);
    assert_int_equal(g[1].ecc_errors, -1);
    assert_int_equal(probe_gpu_memory_gb(&g[0]), 24);
    free(g);

    /* nothing at all: no GPUs, not an error */
    assert_int_equal(probe_gpus_parse("", &g, &n, &err), RD_OK);
    assert_int_equal(n, 0);
    assert_null(g);
}

static void test_parse_unknown_name_keeps_readings(void **state)
{
    probe_gpu *g;
    size_t n;
    rd_err err;
    (void)state;
    assert_int_equal(probe_gpus_parse("0, NVIDIA Z9 Prototype 80GB, 81559, 5, 16, 1, 2, 30, 70.123, 0\n", &g, &n, &err),
                     RD_OK);
    assert_int_equal(n, 1);
    assert_string_equal(g[0].model, "");
    assert_int_equal(g[0].power_mw, 70123);
    free(g);
}

/* Issue 28: a driver that prints an ECC count of 2^63-1 (the fuzzer's
 * value) reads as PROBE_ECC_MAX, 10^12: still "more than before" for GPU
 * health, and never a number that overflows the history's sums. */
static void test_parse_ecc_beyond_bound(void **state)
{
    probe_gpu *g;
    size_t n;
    rd_err err;
    (void)state;
    assert_int_equal(probe_gpus_parse("0, NVIDIA A100-SXM4-40GB, 40960, 4, 16, 20, 1024, 41, 95.50, 9223372036854775807\n"
                                      "1, NVIDIA A100-SXM4-40GB, 40960, 4, 16, 0, 4, 37, 61.00, 1000000000000\n"
                                      "2, NVIDIA A100-SXM4-40GB, 40960, 4, 16, 0, 4, 37, 61.00, 999999999999\n",
                                      &g, &n, &err),
                     RD_OK);
    assert_int_equal(n, 3);
    assert_true(g[0].ecc_errors == PROBE_ECC_MAX);
    assert_true(g[1].ecc_errors == PROBE_ECC_MAX);
    assert_true(g[2].ecc_errors == PROBE_ECC_MAX - 1);
    free(g);
}

static void expect_bad(const char *csv, const char *want)
{
    probe_gpu *g = (probe_gpu *)1;
    size_t n = 7;
    rd_err err;
    assert_int_equal(probe_gpus_parse(csv, &g, &n, &err), RD_EINVAL);
    assert_null(g);
    assert_int_equal(n, 0);
    if (!strstr(err.msg, want))
        fail_msg("error '%s' lacks '%s'", err.msg, want);
}

static void test_parse_malformed_names_line_and_column(void **state)
{
    static const char good[] = "0, Tesla T4, 15360, 3, 16, 0, 0, 30, 27.81, 0\n";
    char csv[512];
    (void)state;
    snprintf(csv, sizeof csv, "%s1, Tesla T4, 15360, 3, 16, 0, 0, 30\n", good);
    expect_bad(csv, "line 2 has 8 columns, must have 10");
    snprintf(csv, sizeof csv, "%s\n1, Tesla T4, 15 GiB, 3, 16, 0, 0, 30, 27.81, 0\n", good);
    expect_bad(csv, "line 3 column 3 (memory.total) must be a whole number of MiB 1..1048576 or [N/A], got '15 GiB'");
    expect_bad("x, Tesla T4, 15360, 3, 16, 0, 0, 30, 27.81, 0", "line 1 column 1 (index)");
    expect_bad("0, 0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789,"
               " 15360, 3, 16, 0, 0, 30, 27.81, 0", "line 1 column 2 (name)");
    expect_bad("0, Tesla T4, 15360, three, 16, 0, 0, 30, 27.81, 0", "line 1 column 4 (pcie.link.gen.max)");
    expect_bad("0, Tesla T4, 15360, 3, 16, 0, 0, 30, 27.81W, 0", "line 1 column 9 (power.draw) must be watts");
    expect_bad("0, Tesla T4, 15360, 3, 16, 0, 0, 30, 27.81, -1",
               "line 1 column 10 (ecc.errors.uncorrected.volatile.total)");
    expect_bad("0, Tesla T4, 15360, 3, 16, 0, 0, 30, 27.81, 0, extra", "line 1 has 11 columns");
    expect_bad("index, name, memory.total [MiB]", "line 1 has 3 columns");
}

/* ---- names ---------------------------------------------------------------- */

static void test_gpu_names_map_to_catalog_ids(void **state)
{
    static const struct {
        const char *name;
        int mib;
        const char *id;
    } cases[] = {
        { "A100-SXM4-40GB", 40960, "a100" },
        { "NVIDIA A100-SXM4-40GB", 40960, "a100" },
        { "NVIDIA A100-PCIE-40GB", 40960, "a100" },
        { "NVIDIA A100 80GB PCIe", 81920, "a100-80gb" },
        { "NVIDIA A100-SXM4-80GB", 81920, "a100-80gb" },
        { "NVIDIA A100", 81920, "a100-80gb" },       /* the name does not say: memory decides */
        { "NVIDIA A100", 40960, "a100" },
        { "NVIDIA A100-PCIE", 81251, "a100-80gb" },
        { "Tesla T4", 15360, "t4" },
        { "Tesla V100-SXM2-16GB", 16160, "v100" },
        { "Tesla V100-PCIE-32GB", 32510, "v100" },
        { "Tesla P100-PCIE-16GB", 16280, "p100" },
        { "NVIDIA GeForce RTX 3090", 24576, "rtx3090" },
        { "NVIDIA GeForce RTX 2080 Ti", 11264, "rtx2080ti" },
        { "GeForce RTX 2080 Ti", 11264, "rtx2080ti" },
        { "NVIDIA GeForce RTX 2070 SUPER", 8192, "rtx2070s" },
        { "NVIDIA GeForce RTX 2060 SUPER", 8192, "rtx2060s" },
        { "NVIDIA GeForce GTX 1060 6GB", 6144, "gtx1060" },
        { "NVIDIA RTX A4000", 16376, "rtx-a4000" },
        { "NVIDIA RTX A6000", 49140, "rtx-a6000" },
        /* near misses are unknown, not the nearest id */
        { "NVIDIA GeForce RTX 3090 Ti", 24564, NULL },
        { "NVIDIA GeForce RTX 2070", 8192, NULL },
        { "NVIDIA GeForce RTX 2060", 6144, NULL },
        { "Tesla V100S-PCIE-32GB", 32510, NULL },
        { "NVIDIA Z9 Prototype 80GB", 81559, NULL },
        { "NVIDIA RTX A4000 Laptop GPU", 8192, NULL },
        /* the catalog's own nvidia-smi names: any case, "NVIDIA " optional */
        { "NVIDIA H100 80GB HBM3", 81559, "h100" },
        { "NVIDIA H100 PCIe", 81559, "h100" },
        { "nvidia h100 nvl", 95830, "h100-nvl" },
        { "H200", 143771, "h200" },
        { "NVIDIA RTX 6000 Ada Generation", 49140, "rtx-6000-ada" },
        { "NVIDIA GeForce RTX 4090", 24564, "rtx4090" },
        { "NVIDIA A10G", 23028, "a10g" },
        { "NVIDIA L40S", 46068, "l40s" },
        { "NVIDIA RTX A5000", 24564, "rtx-a5000" },
        /* older drivers' spellings, read only through the records' names */
        { "Tesla V100", 16160, "v100" },
        { "Tesla P100-PCIE", 16280, "p100" },
        { "NVIDIA V100-PCIE-16GB", 16160, "v100" },
        { "Quadro RTX A4000", 16376, "rtx-a4000" },
        { "NVIDIA GeForce RTX 2080", 8192, NULL },   /* not the Ti: a word more is no match */
        { "", 1, NULL },
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = probe_gpu_model(cases[i].name, cases[i].mib);
        if (cases[i].id == NULL ? got != NULL : got == NULL || strcmp(got, cases[i].id) != 0)
            fail_msg("'%s' (%d MiB) mapped to %s, want %s", cases[i].name, cases[i].mib, got ? got : "NULL",
                     cases[i].id ? cases[i].id : "NULL");
    }
    assert_null(probe_gpu_model(NULL, 0));
}

static void expect_model(const char *name, int mib, const char *want)
{
    const char *got = probe_gpu_model(name, mib);
    if (!got || strcmp(got, want) != 0)
        fail_msg("'%s' (%d MiB) mapped to %s, want %s", name, mib, got ? got : "NULL", want);
}

/* An added type's nvidia-smi names are read as listed (any case, with or
 * without "NVIDIA "), never by the looser rule of the shipped types' older
 * spellings: the operator wrote them. */
static void test_gpu_names_of_added_types(void **state)
{
    (void)state;
    json_t *docs = json_loads("[{\"name\": \"z9\", \"nvidia_names\": [\"NVIDIA Z9-SXM4-64GB\"], \"memory_gb\": 64,"
                              " \"fp32_tflops_x10\": 125, \"fp16_tflops_x10\": 500, \"class\": \"datacenter\"},"
                              " {\"name\": \"z9-128\", \"nvidia_names\": [\"NVIDIA Z9-SXM4-128GB\"], \"memory_gb\": 128,"
                              " \"fp32_tflops_x10\": 125, \"fp16_tflops_x10\": 500, \"class\": \"datacenter\"}]",
                              0, NULL);
    assert_non_null(docs);
    assert_null(probe_gpu_model("NVIDIA Z9", 65536));
    catalog_gpu_load_added(docs);
    json_decref(docs);
    expect_model("NVIDIA Z9-SXM4-64GB", 65536, "z9");
    expect_model("nvidia z9-sxm4-128gb", 131072, "z9-128");
    expect_model("Z9-SXM4-64GB", 65536, "z9");
    assert_null(probe_gpu_model("Tesla Z9-PCIE-128GB", 131072));
    assert_null(probe_gpu_model("NVIDIA Z9", 65000));
    assert_null(probe_gpu_model("NVIDIA Z9 Ti", 65536));
    catalog_gpu_load_added(NULL);
    assert_null(probe_gpu_model("NVIDIA Z9", 65536));
}

static void test_gpu_memory_gb(void **state)
{
    static const struct {
        const char *model;
        int mib, gb;
    } cases[] = {
        { "a100", 40960, 40 },     { "a100-80gb", 81920, 80 }, { "a100-80gb", 81251, 80 },
        { "t4", 15360, 16 },       { "t4", 15109, 16 },        { "v100", 16160, 16 },
        { "v100", 32510, 32 },     /* a 32 GB V100 is bigger than the catalog's, and says so */
        { "rtx-a6000", 49140, 48 }, { "rtx2080ti", 11264, 11 }, { "gtx1060", 6144, 6 },
        { "", 12000, 12 },         { "", 100, 1 },
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        probe_gpu g;
        memset(&g, 0, sizeof g);
        snprintf(g.model, sizeof g.model, "%s", cases[i].model);
        g.memory_mib = cases[i].mib;
        if (probe_gpu_memory_gb(&g) != cases[i].gb)
            fail_msg("%s with %d MiB gave %d GB, want %d", cases[i].model, cases[i].mib, probe_gpu_memory_gb(&g),
                     cases[i].gb);
    }
}

/* ---- running nvidia-smi --------------------------------------------------- */

static void test_read_runs_exact_query(void **state)
{
    char path[512];
    probe_gpu *g;
    size_t n;
    int present = -1;
    rd_err err;
    (void)state;
    snprintf(path, sizeof path, "%s/smi-ok", tmp);
    script(path, "echo '0, Tesla T4, 15360, 3, 16, 5, 300, 45, 27.81, 0'\n"
                 "echo '1, Tesla T4, 15360, 3, 16, 6, 301, 46, 28.00, [N/A]'\n");
    assert_int_equal(probe_gpus_read(path, &g, &n, &present, &err), RD_OK);
    assert_int_equal(present, 1);
    assert_int_equal(n, 2);
    assert_string_equal(g[1].model, "t4");
    assert_int_equal(g[1].temp_c, 46);
    assert_int_equal(g[1].ecc_errors, -1);
    free(g);

    /* NULL: $RIGDECK_NVIDIA_SMI names the program */
    setenv("RIGDECK_NVIDIA_SMI", path, 1);
    assert_int_equal(probe_gpus_read(NULL, &g, &n, &present, &err), RD_OK);
    assert_int_equal(n, 2);
    free(g);
    unsetenv("RIGDECK_NVIDIA_SMI");
}

static void test_read_shipped_stand_in(void **state)
{
    static const char fake[] = "tests/agent/fake-nvidia-smi";
    char csv[512];
    probe_gpu *g;
    size_t n;
    int present;
    rd_err err;
    (void)state;
    if (access(fake, X_OK) != 0)
        skip();
    assert_int_equal(probe_gpus_read(fake, &g, &n, &present, &err), RD_OK);
    assert_int_equal(n, 2);
    assert_string_equal(g[0].model, "a100");
    assert_int_equal(g[1].index, 1);
    assert_int_equal(g[1].pcie_gen, 0);
    free(g);

    snprintf(csv, sizeof csv, "%s/fake.csv", tmp);
    write_file(csv, "0, NVIDIA RTX A6000, 49140, 4, 16, 1, 2, 3, 4.5, 0\n", 0);
    setenv("FAKE_NVIDIA_SMI_CSV", csv, 1);
    assert_int_equal(probe_gpus_read(fake, &g, &n, &present, &err), RD_OK);
    unsetenv("FAKE_NVIDIA_SMI_CSV");
    assert_int_equal(n, 1);
    assert_string_equal(g[0].model, "rtx-a6000");
    free(g);
}

static void test_read_absent_program(void **state)
{
    char path[512];
    const char *old = getenv("PATH");
    char *saved = old ? strdup(old) : NULL;
    probe_gpu *g = (probe_gpu *)1;
    size_t n = 5;
    int present = -1;
    rd_err err;
    (void)state;
    snprintf(path, sizeof path, "%s/no-such-nvidia-smi", tmp);
    assert_int_equal(probe_gpus_read(path, &g, &n, &present, &err), RD_OK);
    assert_int_equal(present, 0);
    assert_int_equal(n, 0);
    assert_null(g);

    /* searched on PATH and not found there */
    setenv("PATH", tmp, 1);
    assert_int_equal(probe_gpus_read("nvidia-smi", &g, &n, &present, &err), RD_OK);
    assert_int_equal(present, 0);
    /* found on PATH */
    snprintf(path, sizeof path, "%s/nvidia-smi", tmp);
    script(path, "echo '0, Tesla T4, 15360, 3, 16, 0, 0, 30, 27.81, 0'\n");
    assert_int_equal(probe_gpus_read("nvidia-smi", &g, &n, &present, &err), RD_OK);
    assert_int_equal(present, 1);
    assert_int_equal(n, 1);
    free(g);
    unlink(path);
    if (saved)
        setenv("PATH", saved, 1);
    free(saved);

    /* there but not executable: a broken install, said so */
    snprintf(path, sizeof path, "%s/smi-noexec", tmp);
    write_file(path, "#!/bin/sh\n", 0644);
    assert_int_equal(probe_gpus_read(path, &g, &n, &present, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "is not an executable file"));
}

static void test_read_failures(void **state)
{
    char path[512];
    probe_gpu *g;
    size_t n;
    int present;
    rd_err err;
    (void)state;
    snprintf(path, sizeof path, "%s/smi-fail", tmp);
    script(path, "echo 'partial' ; echo 'NVIDIA-SMI has failed because it could not communicate' >&2; exit 1\n");
    assert_int_equal(probe_gpus_read(path, &g, &n, &present, &err), RD_EINVAL);
    assert_int_equal(present, 1);
    assert_int_equal(n, 0);
    assert_non_null(strstr(err.msg, "failed with exit status 1: NVIDIA-SMI has failed because it could not"));

    /* no stderr: its stdout's first line */
    script(path, "printf '\\nNo devices were found\\n'; exit 6\n");
    assert_int_equal(probe_gpus_read(path, &g, &n, &present, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "exit status 6: No devices were found"));

    /* other arguments than the query: the script's own exit 9 */
    write_file(path, "#!/bin/sh\n[ \"$1\" = '--query-gpu=index,name' ] || { echo \"bad args: $1\" >&2; exit 9; }\n",
               0755);
    assert_int_equal(probe_gpus_read(path, &g, &n, &present, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "exit status 9: bad args: --query-gpu=index,name,memory.total"));

    /* garbage output is a parse error */
    script(path, "echo 'hello'\n");
    assert_int_equal(probe_gpus_read(path, &g, &n, &present, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "line 1 has 1 columns"));
}

static void test_read_timeout_kills(void **state)
{
    char path[512];
    probe_gpu *g;
    size_t n;
    int present;
    rd_err err;
    (void)state;
    snprintf(path, sizeof path, "%s/smi-hang", tmp);
    script(path, "echo '0, Tesla T4, 15360, 3, 16, 0, 0, 30, 27.81, 0'\nsleep 30\n");
    assert_int_equal(probe_gpus_read_within(path, 300, &g, &n, &present, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "did not finish within 300 ms and was killed"));
    assert_int_equal(n, 0);
}

/* ---- the inventory -------------------------------------------------------- */

static void make_fixture(const char *root)
{
    char text[4096];
    size_t used = 0;
    /* 2 sockets x 2 cores x 2 hyperthreads = 8 logical, 4 physical */
    for (int cpu = 0; cpu < 8; cpu++)
        used += (size_t)snprintf(text + used, sizeof text - used,
                                 "processor\t: %d\nvendor_id\t: GenuineIntel\nphysical id\t: %d\n"
                                 "siblings\t: 4\ncore id\t\t: %d\ncpu cores\t: 2\n\n",
                                 cpu, cpu / 4, (cpu / 2) % 2);
    put(root, "proc/cpuinfo", text);
    put(root, "proc/meminfo", "MemTotal:       263855192 kB\nMemFree:        1000 kB\n");
    put(root, "sys/block/nvme0n1/size", "3750748848\n"); /* 1920 GB */
    put(root, "sys/block/nvme0n1/queue/rotational", "0\n");
    mkdirs(root, "sys/block/nvme0n1/device");
    put(root, "sys/block/sda/size", "7814037168\n"); /* 4000 GB */
    put(root, "sys/block/sda/queue/rotational", "1\n");
    put(root, "sys/block/sda/removable", "0\n");
    mkdirs(root, "sys/block/sda/device");
    put(root, "sys/block/sdb/size", "1000215216\n"); /* 512 GB SSD */
    put(root, "sys/block/sdb/queue/rotational", "0\n");
    mkdirs(root, "sys/block/sdb/device");
    put(root, "sys/block/sdc/size", "62521344\n"); /* a USB stick */
    put(root, "sys/block/sdc/removable", "1\n");
    mkdirs(root, "sys/block/sdc/device");
    put(root, "sys/block/loop0/size", "1000000000\n");
    put(root, "sys/block/dm-0/size", "1000000000\n");
    mkdirs(root, "sys/block/dm-0/device");
    put(root, "sys/block/vdz/size", "1000000000\n"); /* no device link: virtual */
    put(root, "sys/class/tpm/tpm0/tpm_version_major", "2\n");
    put(root, "sys/class/net/eth0/speed", "25000\n");
    mkdirs(root, "sys/class/net/eth0/device");
    put(root, "sys/class/net/eth1/speed", "-1\n");
    mkdirs(root, "sys/class/net/eth1/device");
    put(root, "sys/class/net/lo/speed", "100000\n");
    put(root, "sys/class/net/veth0/speed", "100000\n"); /* virtual: no device link */
}

static char *dump(const json_t *v)
{
    char *s = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER);
    assert_non_null(s);
    return s;
}

static void test_inventory_from_fixture(void **state)
{
    char root[512], smi[512], *s;
    json_t *inv, *problems;
    hw_inventory hw;
    rd_err err;
    (void)state;
    snprintf(root, sizeof root, "%s/machine", tmp);
    mkdir(root, 0755);
    make_fixture(root);
    snprintf(smi, sizeof smi, "%s/smi-mixed", tmp);
    script(smi, "cat <<'EOF'\n"
                "0, NVIDIA A100-SXM4-40GB, 40960, [N/A], [N/A], 0, 0, 30, 50.0, 0\n"
                "1, NVIDIA Z9 Prototype 80GB, 81559, 5, 16, 0, 0, 30, 50.0, 0\n"
                "2, NVIDIA A100-SXM4-40GB, 40960, [N/A], [N/A], 0, 0, 30, 50.0, 0\n"
                "3, NVIDIA A100-PCIE-40GB, 40960, 4, 16, 0, 0, 30, 50.0, 0\n"
                "4, NVIDIA A100-PCIE-40GB, 40960, 4, 8, 0, 0, 30, 50.0, 0\n"
                "EOF\n");
    assert_int_equal(probe_inventory(root, smi, &inv, &problems, &err), RD_OK);
    s = dump(inv);
    assert_string_equal(s, "{\"gpus\":[{\"model\":\"a100\",\"count\":2,\"memory_gb\":40,\"sxm\":true},"
                           "{\"model\":\"a100\",\"count\":1,\"memory_gb\":40,\"pcie_gen\":4,\"pcie_lanes\":16},"
                           "{\"model\":\"a100\",\"count\":1,\"memory_gb\":40,\"pcie_gen\":4,\"pcie_lanes\":8}],"
                           "\"cpu_cores\":4,\"memory_gb\":270,\"nvme\":[{\"size_gb\":1920}],"
                           "\"sata\":[{\"size_gb\":4000,\"kind\":\"hdd\"},{\"size_gb\":512,\"kind\":\"ssd\"}],"
                           "\"tpm\":\"2.0\",\"network_gbps\":25}");
    free(s);
    s = dump(problems);
    assert_string_equal(s, "[\"gpu 1: unknown GPU name 'NVIDIA Z9 Prototype 80GB' (not in the catalog; see `gpu list`)\"]");
    free(s);
    assert_int_equal(hwreq_inventory_from_json(inv, &hw, &err), RD_OK);
    assert_int_equal(hwreq_gpu_total(&hw), 4);
    json_decref(inv);
    json_decref(problems);
}

static void test_inventory_fallbacks(void **state)
{
    char root[512], smi[512], *s;
    json_t *inv, *problems;
    rd_err err;
    (void)state;
    /* no core ids (ARM-style cpuinfo), no TPM version, no /sys/block, no
     * link speed, no nvidia-smi: still a valid inventory */
    snprintf(root, sizeof root, "%s/small", tmp);
    mkdir(root, 0755);
    put(root, "proc/cpuinfo", "processor\t: 0\nBogoMIPS\t: 50.00\n\nprocessor\t: 1\nBogoMIPS\t: 50.00\n\n"
                              "processor\t: 2\n\nHardware\t: foo\n");
    put(root, "proc/meminfo", "MemTotal:         400000 kB\n");
    mkdirs(root, "sys/class/tpm/tpm0");
    put(root, "sys/class/net/eth0/speed", "100\n");
    mkdirs(root, "sys/class/net/eth0/device");
    snprintf(smi, sizeof smi, "%s/absent-smi", tmp);
    assert_int_equal(probe_inventory(root, smi, &inv, &problems, &err), RD_OK);
    s = dump(inv);
    assert_string_equal(s, "{\"gpus\":[],\"cpu_cores\":3,\"memory_gb\":1,\"nvme\":[],\"sata\":[],\"tpm\":null,"
                           "\"network_gbps\":1}");
    free(s);
    s = dump(problems);
    assert_string_equal(s, "[\"tpm: tpm0 has no readable tpm_version_major (1 or 2); TPM version unknown\"]");
    free(s);
    json_decref(inv);
    json_decref(problems);

    /* no meminfo: an error naming the field and file, no documents */
    snprintf(root, sizeof root, "%s/broken", tmp);
    mkdir(root, 0755);
    put(root, "proc/cpuinfo", "processor\t: 0\n");
    inv = problems = (json_t *)1;
    assert_int_equal(probe_inventory(root, smi, &inv, &problems, &err), RD_EINVAL);
    assert_null(inv);
    assert_null(problems);
    assert_non_null(strstr(err.msg, "memory_gb: cannot read"));
    assert_non_null(strstr(err.msg, "/broken/proc/meminfo"));

    /* a failing nvidia-smi fails the probe: a GPU machine is not reported as a CPU one */
    put(root, "proc/meminfo", "MemTotal:         400000 kB\n");
    snprintf(smi, sizeof smi, "%s/smi-down", tmp);
    script(smi, "echo 'driver not loaded' >&2; exit 2\n");
    assert_int_equal(probe_inventory(root, smi, &inv, &problems, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "driver not loaded"));
}

static void test_inventory_real_machine(void **state)
{
    char smi[512];
    json_t *inv, *problems;
    hw_inventory hw;
    rd_err err;
    (void)state;
    snprintf(smi, sizeof smi, "%s/definitely-no-nvidia-smi", tmp);
    if (probe_inventory(NULL, smi, &inv, &problems, &err) != RD_OK)
        fail_msg("probe of this machine failed: %s", err.msg);
    if (hwreq_inventory_from_json(inv, &hw, &err) != RD_OK)
        fail_msg("hwreq refused this machine's inventory: %s", err.msg);
    assert_true(hw.cpu_cores >= 1);
    assert_true(hw.memory_gb >= 1);
    assert_int_equal(hw.ngroups, 0);
    assert_true(json_is_array(problems));
    json_decref(inv);
    json_decref(problems);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_sxm_with_na_pcie),
        cmocka_unit_test(test_parse_consumer_not_supported),
        cmocka_unit_test(test_parse_unknown_name_keeps_readings),
        cmocka_unit_test(test_parse_ecc_beyond_bound),
        cmocka_unit_test(test_parse_malformed_names_line_and_column),
        cmocka_unit_test(test_gpu_names_map_to_catalog_ids),
        cmocka_unit_test(test_gpu_names_of_added_types),
        cmocka_unit_test(test_gpu_memory_gb),
        cmocka_unit_test(test_read_runs_exact_query),
        cmocka_unit_test(test_read_shipped_stand_in),
        cmocka_unit_test(test_read_absent_program),
        cmocka_unit_test(test_read_failures),
        cmocka_unit_test(test_read_timeout_kills),
        cmocka_unit_test(test_inventory_from_fixture),
        cmocka_unit_test(test_inventory_fallbacks),
        cmocka_unit_test(test_inventory_real_machine),
    };
    testutil_tmpdir(tmp, sizeof tmp);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
