/* fuzz_nvidia_smi.c - fuzz target (fuzz.h): nvidia-smi's CSV as the agent
 * reads it (core/agent/probe_gpu.c), and the GPU readings' way on from
 * there: the stats document (sample.c), the history (metrics_agg.c) and
 * the Prometheus text (metrics_http.c).
 *
 * Promises checked: a parsed GPU's readings are within the ranges
 * probe.h documents; two samples in one minute and a third in the next
 * fold into points whose average lies between minimum and maximum and
 * whose numbers are within each stat's range (issue 28: an ECC count of
 * 2^63-1 overflowed the sums). */
#include "fuzz.h"

#include <string.h>

#include "fuzz_metrics_check.h"
#include "metrics_http.h"
#include "probe.h"
#include "sample.h"

const char *const fuzz_target_seed_dirs[] = { NULL };

const unsigned long fuzz_target_runs = 2000;

const char *const fuzz_target_dict[] = {
    "[N/A]", "[Not Supported]", "[Unknown Error]", "N/A", "NVIDIA A100-SXM4-40GB", "Tesla V100-PCIE-16GB",
    "NVIDIA GeForce RTX 3090", ", ", "40960", "81920", "1048576", "1048577", "1023", "1024", "250", "251",
    "100", "101", "95.37", "68.5249", "0.0005", "1000000.999", "9223372036854775807", "1000000000000",
    "1000000000001", "GPU is lost", "fallen off the bus", "Unable to determine the device handle for GPU ",
    "GPU 1: ", "0000:3B:00.0", NULL,
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* run_capture hands the parser a NUL-terminated buffer */
    char *csv = fuzz_strdup(data, size);
    probe_gpu *gpus = NULL;
    size_t n = 0;
    rd_err err;
    rd_err_clear(&err);
    rd_code rc = probe_gpus_parse(csv, &gpus, &n, &err);
    /* The same bytes as a failing run's stdout and stderr: whatever they
     * say, the answer is read (the agent must outlive any driver). */
    for (int status = 0; status <= 15; status += 15) {
        probe_gpu *lost = NULL;
        size_t nlost = 0;
        probe_smi res;
        rd_err aerr;
        FUZZ_CHECK(probe_gpus_answer(csv, csv, status, &lost, &nlost, &res, &aerr) == RD_OK);
        FUZZ_CHECK(!res.answered || (status == 0 && !res.lost && res.detail[0] == '\0'));
        FUZZ_CHECK(nlost == 0 || res.answered || res.lost);
        FUZZ_CHECK(strlen(res.detail) < sizeof res.detail);
        free(lost);
    }
    free(csv);
    if (rc != RD_OK) {
        FUZZ_CHECK(!gpus && n == 0 && err.msg[0]);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        const probe_gpu *g = &gpus[i];
        FUZZ_CHECK(g->index >= 0 && g->index <= 1023 && g->name[0]);
        FUZZ_CHECK(g->memory_mib >= 0 && g->memory_mib <= 1024 * 1024);   /* 0: no reading */
        FUZZ_CHECK(g->util_pct >= -1 && g->util_pct <= 100 && g->temp_c >= -1 && g->temp_c <= 250);
        FUZZ_CHECK(g->mem_used_mib >= -1 && g->power_mw >= -1);
        FUZZ_CHECK(g->ecc_errors >= -1 && g->ecc_errors <= PROBE_ECC_MAX);
        FUZZ_CHECK(probe_gpu_memory_gb(g) >= 1);
    }
    /* The agent's sample: the GPUs as read, CPU counters that moved. */
    sample_counters prev, cur;
    memset(&prev, 0, sizeof prev);
    memset(&cur, 0, sizeof cur);
    prev.cpu_total = 1000;
    cur.mono_ms = 10000;
    cur.cpu_total = 2000;
    cur.cpu_busy = 500;
    cur.mem_used_bytes = UINT64_MAX;   /* a counter at its end: bounded too */
    cur.gpus = gpus;
    cur.ngpus = n;
    json_t *stats = sample_stats(&prev, &cur);
    FUZZ_CHECK(stats != NULL);
    metrics_agg *m = metrics_agg_new("n1");
    FUZZ_CHECK(m != NULL);
    const rd_time t0 = 1795996800;   /* a UTC midnight: the third sample closes a minute, a block, an hour */
    metrics_agg_add(m, stats, t0 - 20);
    metrics_agg_add(m, stats, t0 - 10);
    metrics_agg_add(m, stats, t0 + 5);
    fuzz_check_agg(m);
    char *text = metrics_http_format("n1", stats, t0);
    FUZZ_CHECK(text != NULL);
    free(text);
    metrics_agg_free(m);
    json_decref(stats);
    free(gpus);
    return 0;
}
