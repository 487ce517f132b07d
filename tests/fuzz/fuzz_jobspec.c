/* fuzz_jobspec.c - fuzz target (fuzz.h): job spec files (`job submit FILE`,
 * core/jobs/jobspec.c) - YAML or JSON from any member.
 *
 * Promises checked: a spec is accepted with a document or refused with one
 * message and no document, and the accepted document serialises. */
#include "fuzz.h"

#include <string.h>

#include <jansson.h>

#include "jobspec.h"

const char *const fuzz_target_seed_dirs[] = { "tests/specs", NULL };

const unsigned long fuzz_target_runs = 2000;

const char *const fuzz_target_dict[] = {
    "name:", "type: training", "type: inference", "type: notebook", "resources:", "gpu_count:", "gpu_type:",
    "disk_size:", "cpu_count:", "workers:", "commands:", "image:", "framework:", "env:", "datasets:",
    "parameters:", "default:", "input:", "output:", "model:", "endpoint:", "max_price:", "checkpoints:",
    "python:", "packages:", "local:", "regional:", "\n  - ", "\n    ", "a100", "0.25", "1.005", "/opt/ml/input",
    "../", "${", "s3://", "rigdeck://", "wasabi://", NULL,
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *job = NULL;
    rd_err err;
    rd_err_clear(&err);
    rd_code rc = jobspec_parse((const char *)data, size, "fuzz.yaml", &job, &err);
    if (rc == RD_OK) {
        FUZZ_CHECK(json_is_object(job));
        char *s = json_dumps(job, JSON_COMPACT);
        FUZZ_CHECK(s != NULL);
        free(s);
    } else {
        FUZZ_CHECK(job == NULL);
        FUZZ_CHECK(err.msg[0] != '\0');
    }
    json_decref(job);
    return 0;
}
