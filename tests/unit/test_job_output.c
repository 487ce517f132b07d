/* Unit tests of where a worker's output archive goes (job_output.c): the
 * zip names of seed 001 and the upload URL per output type. */
#include "testutil.h"

#include "job_output.h"

/* The upload URL of worker w of the job given as JSON (NULL: none). */
static void url_is(const char *job_json, size_t w, const char *want)
{
    json_t *job = json_loads(job_json, 0, NULL);
    assert_non_null(job);
    char *got = job_output_url(job, w);
    if (!want && got)
        fail_msg("%s: wanted no URL, got '%s'", job_json, got);
    if (want && (!got || strcmp(got, want) != 0))
        fail_msg("%s: wanted '%s', got '%s'", job_json, want, got ? got : "(none)");
    free(got);
    json_decref(job);
}

static void test_one_worker(void **state)
{
    (void)state;
    url_is("{\"name\": \"sweep\", \"workers\": [{}], \"data\": {\"output\": {\"type\": \"aws\", \"path\": "
           "\"s3://b/results\"}}}", 0, "s3://b/results/sweep.zip");
    /* a path ending in / is not doubled */
    url_is("{\"name\": \"sweep\", \"workers\": [{}], \"data\": {\"output\": {\"type\": \"gcp\", \"path\": "
           "\"gs://b/r/\"}}}", 0, "gs://b/r/sweep.zip");
    /* the name as the worker sees it (RIGDECK_JOB_NAME): spaces as _ */
    url_is("{\"name\": \"res net\", \"env_job_name\": \"res_net\", \"workers\": [{}], \"data\": {\"output\": "
           "{\"type\": \"wasabi\", \"path\": \"s3://b\"}}}", 0, "s3://b/res_net.zip");
}

static void test_several_workers(void **state)
{
    (void)state;
    url_is("{\"name\": \"p\", \"workers\": [{}, {}], \"data\": {\"output\": {\"type\": \"aws\", \"path\": "
           "\"s3://b/x\"}}}", 1, "s3://b/x/p_1.zip");
    /* the agent's work view carries workers_spec, not the workers */
    url_is("{\"name\": \"p\", \"workers_spec\": {\"count\": 3}, \"data\": {\"output\": {\"type\": \"aws\", "
           "\"path\": \"s3://b/x\"}}}", 0, "s3://b/x/p_0.zip");
}

static void test_types(void **state)
{
    (void)state;
    /* rigdeck: the artifacts location frozen at submit, then the job's id */
    url_is("{\"id\": \"job-1\", \"name\": \"n\", \"workers\": [{}], \"data\": {\"output\": {\"type\": \"rigdeck\", "
           "\"path\": \"dataset\"}}, \"data_refs\": {\"output\": {\"source\": \"s3://art/r\"}}}", 0,
           "s3://art/r/job-1/n.zip");
    url_is("{\"id\": \"job-1\", \"name\": \"n\", \"workers\": [{}], \"data\": {\"output\": {\"type\": \"rigdeck\", "
           "\"path\": \"dataset\"}}}", 0, NULL);
    /* mounted in place, or not an upload */
    url_is("{\"name\": \"n\", \"data\": {\"output\": {\"type\": \"regional\", \"path\": \"/x\"}}}", 0, NULL);
    url_is("{\"name\": \"n\", \"data\": {\"output\": {\"type\": \"local\", \"path\": \"/x\"}}}", 0, NULL);
    url_is("{\"name\": \"n\", \"data\": {\"output\": null}}", 0, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_worker),
        cmocka_unit_test(test_several_workers),
        cmocka_unit_test(test_types),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
