/* Unit tests of the job spec (core/jobspec*.c): one test per rule of
 * spec/job-spec.md and seed 001, each with a passing and a failing example
 * and a check that the message names the field; then every sample file in
 * tests/specs/ (name-ok.yaml must parse, bad-name.yaml must fail with the
 * text of its first line "# expect: ..."). */
#include "testutil.h"

#include <dirent.h>

#include "jobspec.h"

/* ---- helpers ------------------------------------------------------------------ */

static json_t *ok(const char *yaml)
{
    json_t *doc = NULL;
    rd_err err;
    rd_code rc = jobspec_parse(yaml, strlen(yaml), "t.yaml", &doc, &err);
    if (rc != RD_OK)
        fail_msg("expected the spec to parse, got: %s\n--- spec ---\n%s", err.msg, yaml);
    assert_non_null(doc);
    return doc;
}

static void bad(const char *yaml, const char *want)
{
    json_t *doc = (json_t *)1;
    rd_err err;
    rd_code rc = jobspec_parse(yaml, strlen(yaml), "t.yaml", &doc, &err);
    if (rc != RD_EINVAL)
        fail_msg("expected a refusal containing '%s', got code %d\n--- spec ---\n%s", want, rc, yaml);
    assert_null(doc);
    if (!strstr(err.msg, want))
        fail_msg("message '%s' lacks '%s'", err.msg, want);
    if (strncmp(err.msg, "t.yaml:", 7) != 0)
        fail_msg("message '%s' does not start with the source name", err.msg);
}

/* doc's value at a dotted path ("resources.gpus_x100"; "mounts.0.path"). */
static json_t *at(json_t *doc, const char *path)
{
    char buf[256], *save = NULL;
    json_t *v = doc;
    snprintf(buf, sizeof buf, "%s", path);
    for (char *k = strtok_r(buf, ".", &save); k && v; k = strtok_r(NULL, ".", &save))
        v = json_is_array(v) ? json_array_get(v, strtoul(k, NULL, 10)) : json_object_get(v, k);
    if (!v)
        fail_msg("no value at %s", path);
    return v;
}

static json_int_t int_at(json_t *doc, const char *path)
{
    json_t *v = at(doc, path);
    assert_true(json_is_integer(v));
    return json_integer_value(v);
}

static const char *str_at(json_t *doc, const char *path)
{
    json_t *v = at(doc, path);
    if (!json_is_string(v))
        fail_msg("%s is not a string", path);
    return json_string_value(v);
}

#define HEAD(type) "name: t\ntype: " type "\n"
#define RES "resources: {gpu_types: [t4], disk_size: 20}\n"
#define NOTEBOOK HEAD("notebook") RES

/* A refusal names the field and the rule, never the text of the file:
 * the spec may be any file, and the refusal may reach someone who may not
 * read it (docs/security.md). */
static void bad_hides(const char *yaml, const char *secret)
{
    json_t *doc = NULL;
    rd_err err;
    if (jobspec_parse(yaml, strlen(yaml), "t.yaml", &doc, &err) != RD_EINVAL)
        fail_msg("expected a refusal\n--- spec ---\n%s", yaml);
    if (strstr(err.msg, secret))
        fail_msg("message '%s' quotes '%s'", err.msg, secret);
}

static void test_refusals_never_quote_the_file(void **state)
{
    (void)state;
    bad_hides("root:$6$S3CR3T:19000:0:99999:7:::\n", "S3CR3T");
    bad_hides("S3CR3T-PASSWORD\n", "S3CR3T");
    bad_hides("[S3CR3T, x]\n", "S3CR3T");
    bad_hides("name: S3CR3T\ntype: S3CR3T\n" RES, "S3CR3T");
    bad_hides("name: S3CR3T\ntype: notebook\nproject: S3CR3T/x y\n" RES, "S3CR3T");
    bad_hides("name: t\ntype: notebook\nresources: {gpu_types: [S3CR3T]}\n", "S3CR3T");
    bad_hides(NOTEBOOK "data: {datasets: [S3CR3T, S3CR3T]}\n", "S3CR3T");
    bad_hides(NOTEBOOK "environment: {env: {S3CR3T-X: v}}\n", "S3CR3T");
    bad_hides(NOTEBOOK "environment: {keys: [S3CR3T, S3CR3T]}\n", "S3CR3T");
    bad_hides(NOTEBOOK "environment: {image: S3CR3T.example/x}\n", "S3CR3T");
    bad_hides(HEAD("training") RES "data: {input: {type: aws, location: S3CR3T}}\n", "S3CR3T");
    bad_hides(HEAD("training") RES "workers: {count: S3CR3T, commands: [x]}\n", "S3CR3T");
    bad_hides("name: t\ntype: notebook\nresources: {gpu_types: [t4], disk_size: 20, S3CR3T: 1}\n" "S3CR3T: 1\n",
              "S3CR3T:");
}

#define TRAINING HEAD("training") RES "workers: {commands: [python train.py]}\n"
#define INFERENCE HEAD("inference") RES "workers: {commands: [python infer.py]}\n"
#define ENDPOINT HEAD("endpoint") RES
#define ROUTE(params) "endpoint:\n  routes:\n    - {path: /p, file: s.py, function: f, params: " params "}\n"

/* A spec of the given type with one data.SLOT of this storage type and path. */
static void storage_spec(char *buf, size_t len, const char *head, const char *slot, const char *type,
                         const char *path, const char *extra)
{
    snprintf(buf, len, "%sdata: {%s: {type: %s, path: '%s'%s}}\nregional: {datastore: lab}\n", head, slot, type,
             path, extra ? extra : "");
}

static void storage_ok(const char *head, const char *slot, const char *type, const char *path, const char *extra)
{
    char buf[1024];
    storage_spec(buf, sizeof buf, head, slot, type, path, extra);
    json_decref(ok(buf));
}

static void storage_bad(const char *head, const char *slot, const char *type, const char *path, const char *extra,
                        const char *want)
{
    char buf[1024];
    storage_spec(buf, sizeof buf, head, slot, type, path, extra);
    bad(buf, want);
}

/* ---- the example of spec/job-spec.md ------------------------------------------------ */

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    *len = fread(buf, 1, (size_t)n, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

/* tests/specs/, found from the repository root (where make and run.sh run)
 * or from RIGDECK_SRCDIR. */
static const char *specs_dir(void)
{
    static char dir[512];
    const char *src = getenv("RIGDECK_SRCDIR");
    DIR *d;
    snprintf(dir, sizeof dir, "%s%stests/specs", src ? src : "", src ? "/" : "");
    if (!(d = opendir(dir)))
        fail_msg("cannot open %s: run from the repository root or set RIGDECK_SRCDIR", dir);
    closedir(d);
    return dir;
}

static void test_full_example_parses(void **state)
{
    char path[600];
    size_t len;
    char *text;
    json_t *doc = NULL;
    rd_err err;
    (void)state;

    snprintf(path, sizeof path, "%s/train-ok.yaml", specs_dir());
    assert_non_null(text = read_file(path, &len));
    if (jobspec_parse(text, len, "train-ok.yaml", &doc, &err) != RD_OK)
        fail_msg("the job-spec.md example was refused: %s", err.msg);
    assert_string_equal(str_at(doc, "name"), "resnet50-sweep");
    assert_string_equal(str_at(doc, "type"), "training");
    assert_string_equal(str_at(doc, "project"), "vision");
    assert_string_equal(str_at(doc, "resources.gpu_types.1"), "a100");
    assert_int_equal(int_at(doc, "resources.gpus_x100"), 100);
    assert_int_equal(int_at(doc, "resources.cpu_count"), 8);
    assert_int_equal(int_at(doc, "resources.max_price_ucr"), 2500000);
    assert_int_equal(int_at(doc, "resources.disk_size"), 50);
    assert_string_equal(str_at(doc, "data.input.path"), "s3://bucket/data/");
    assert_string_equal(str_at(doc, "data.output.type"), "gcp");
    assert_int_equal(int_at(doc, "workers.count"), 2);
    assert_string_equal(str_at(doc, "workers.commands.1"), "python train.py --lr 0.01");
    assert_true(json_is_null(at(doc, "endpoint")));
    assert_string_equal(str_at(doc, "environment.framework_version"), "1.13");
    assert_true(json_is_null(at(doc, "environment.image")));
    assert_string_equal(str_at(doc, "environment.env.WANDB_PROJECT"), "sweep");
    assert_string_equal(str_at(doc, "regional.reservation"), "inference-port");
    assert_string_equal(str_at(doc, "system_env.RIGDECK_JOB_NAME"), "resnet50-sweep");
    /* One dataset: /opt/ml/input itself (seed 001). */
    assert_string_equal(str_at(doc, "mounts.0.path"), "/opt/ml/input");
    assert_string_equal(str_at(doc, "mounts.1.what"), "input");
    assert_string_equal(str_at(doc, "mounts.1.path"), "/opt/ml/input_data");
    assert_string_equal(str_at(doc, "mounts.2.path"), "/opt/ml/checkpoint");
    assert_string_equal(str_at(doc, "mounts.3.path"), "/opt/ml/models");
    assert_string_equal(str_at(doc, "mounts.4.path"), "/opt/ml/output");
    json_decref(doc);
    free(text);
}

/* Every sample file: name-ok.yaml parses; bad-name.yaml is refused with a
 * message containing its "# expect: " line and naming the file. */
static void test_spec_files(void **state)
{
    const char *dir = specs_dir();
    struct dirent *e;
    int nok = 0, nbad = 0;
    DIR *d;
    (void)state;

    assert_non_null(d = opendir(dir));
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name), len;
        char path[800], *text, want[512];
        json_t *doc = NULL;
        rd_err err;
        rd_code rc;
        if (n < 6 || strcmp(e->d_name + n - 5, ".yaml") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        assert_non_null(text = read_file(path, &len));
        rc = jobspec_parse(text, len, e->d_name, &doc, &err);
        if (strncmp(e->d_name, "bad-", 4) == 0) {
            if (sscanf(text, "# expect: %511[^\n]", want) != 1)
                fail_msg("%s lacks its first line '# expect: ...'", e->d_name);
            if (rc != RD_EINVAL)
                fail_msg("%s: expected a refusal containing '%s', got code %d", e->d_name, want, rc);
            if (!strstr(err.msg, want))
                fail_msg("%s: message '%s' lacks '%s'", e->d_name, err.msg, want);
            if (strncmp(err.msg, e->d_name, strlen(e->d_name)) != 0)
                fail_msg("%s: message '%s' does not name the file", e->d_name, err.msg);
            nbad++;
        } else {
            if (rc != RD_OK)
                fail_msg("%s: expected to parse, got: %s", e->d_name, err.msg);
            json_decref(doc);
            nok++;
        }
        free(text);
    }
    closedir(d);
    assert_true(nok >= 9);
    assert_true(nbad >= 50);
}

/* ---- top level ------------------------------------------------------------------------ */

static void test_rule_name_required_and_usable_as_file_name(void **state)
{
    json_t *doc;
    (void)state;
    doc = ok("name: My Job 1\ntype: notebook\n" RES);
    assert_string_equal(str_at(doc, "env_job_name"), "My_Job_1");
    json_decref(doc);
    bad("type: notebook\n" RES, "name is required");
    bad("name: ''\ntype: notebook\n" RES, "name must not be empty");
    bad("name: a/b\ntype: notebook\n" RES, "name must be a name without '/'");
    bad("name: ' padded'\ntype: notebook\n" RES, "name must be a name without");
    bad("name: [x]\ntype: notebook\n" RES, "name must be a string, got a list");
    bad("name: \"a\\tb\"\ntype: notebook\n" RES, "name must not contain control characters");
}

static void test_rule_type_one_of_four(void **state)
{
    static const char *const specs[][2] = {
        { "notebook", HEAD("notebook") RES },
        { "training", HEAD("training") RES "workers: {commands: [x]}\n" },
        { "inference", HEAD("inference") RES "workers: {commands: [x]}\n" },
        { "endpoint", HEAD("endpoint") RES ROUTE("[]") },
    };
    (void)state;
    for (size_t i = 0; i < 4; i++) {
        json_t *doc = ok(specs[i][1]);
        assert_string_equal(str_at(doc, "type"), specs[i][0]);
        json_decref(doc);
    }
    bad("name: t\n" RES, "type is required");
    bad("name: t\ntype: Training\n" RES, "type must be one of notebook, training, inference, endpoint, got a string");
}

static void test_rule_project_name_or_owner_slash_name(void **state)
{
    json_t *doc;
    (void)state;
    doc = ok(NOTEBOOK "project: alice/vision\n");
    assert_string_equal(str_at(doc, "project"), "alice/vision");
    json_decref(doc);
    doc = ok(NOTEBOOK);
    assert_true(json_is_null(at(doc, "project")));
    json_decref(doc);
    bad(NOTEBOOK "project: Vision\n", "project must be 1-63 characters");
    bad(NOTEBOOK "project: Al/vision\n", "project owner must be 1-63 characters");
}

static void test_rule_unknown_keys_are_errors_everywhere(void **state)
{
    (void)state;
    bad(NOTEBOOK "environment: {pyton: '3.9'}\n", "environment.pyton: unknown key");
    bad(NOTEBOOK "gpu_count: 1\n", "gpu_count: unknown key");
    bad("name: t\ntype: notebook\nresources: {gpu_types: [t4], disk_size: 20, disk: 5}\n", "resources.disk: unknown key");
    bad(NOTEBOOK "data: {datasets: [a], inputs: []}\n", "data.inputs: unknown key");
    bad(INFERENCE "data: {input: {type: aws, path: 's3://b', uri: x}}\n", "data.input.uri: unknown key");
    bad(NOTEBOOK "model: {checkpoint: [a]}\n", "model.checkpoint: unknown key");
    bad(HEAD("training") RES "workers: {count: 1, command: x}\n", "workers.command: unknown key");
    bad(ENDPOINT "endpoint: {routes: [{path: /p, file: s.py, function: f, method: POST}]}\n",
        "endpoint.routes[0].method: unknown key");
    bad(ENDPOINT ROUTE("[{name: a, type: string, required: true}]"), "endpoint.routes[0].params[0].required: unknown key");
    bad(NOTEBOOK "environment: {packages: {npm: [x]}}\n", "environment.packages.npm: unknown key");
    bad(NOTEBOOK "regional: {region: x}\n", "regional.region: unknown key");
}

static void test_rule_wrong_types_name_the_field(void **state)
{
    (void)state;
    bad(HEAD("training") RES "workers: {count: two, commands: [x]}\n", "workers.count must be a whole number, got a string");
    bad(HEAD("training") RES "workers: {count: 2.0, commands: [x]}\n", "workers.count must be a whole number, got 2.0");
    bad("name: t\ntype: notebook\nresources: [t4]\n", "resources must be a mapping of keys, got a list");
    bad("name: t\ntype: notebook\nresources: {gpu_types: t4, disk_size: 20}\n", "resources.gpu_types must be a list");
    bad("name: t\ntype: notebook\nresources: {gpu_types: [t4], disk_size: '20'}\n",
        "resources.disk_size must be a whole number, got a string");
    bad(ENDPOINT ROUTE("[{name: a, type: string, optional: yes, default: '1'}]"),
        "endpoint.routes[0].params[0].optional must be true or false, got a string");
    bad("- a\n- b\n", "the job spec must be a mapping");
    bad(NOTEBOOK "environment: {keys: aws}\n", "environment.keys must be a list");
}

/* ---- resources --------------------------------------------------------------------------- */

static void test_rule_resources_required(void **state)
{
    (void)state;
    bad("name: t\ntype: notebook\n", "resources is required");
    bad("name: t\ntype: notebook\nresources: {disk_size: 20}\n", "resources.gpu_types is required");
}

static void test_rule_gpu_types_from_the_catalog(void **state)
{
    json_t *doc;
    (void)state;
    doc = ok("name: t\ntype: notebook\nresources: {gpu_types: [gtx1060, rtx-a6000, a100-80gb], disk_size: 20}\n");
    assert_int_equal(json_array_size(at(doc, "resources.gpu_types")), 3);
    json_decref(doc);
    bad("name: t\ntype: notebook\nresources: {gpu_types: [t4, A100], disk_size: 20}\n",
        "resources.gpu_types[1] must be a GPU type");
    bad("name: t\ntype: notebook\nresources: {gpu_types: [], disk_size: 20}\n",
        "resources.gpu_types must name at least one GPU type");
    bad("name: t\ntype: notebook\nresources: {gpu_types: [t4, t4], disk_size: 20}\n",
        "resources.gpu_types[1] is listed twice (also resources.gpu_types[0])");
}

static void test_rule_gpu_types_cpu_does_not_mix(void **state)
{
    json_t *doc;
    (void)state;
    doc = ok("name: t\ntype: notebook\nresources: {gpu_types: [cpu], cpu_count: 4, disk_size: 20}\n");
    assert_int_equal(int_at(doc, "resources.gpus_x100"), 0);
    json_decref(doc);
    bad("name: t\ntype: notebook\nresources: {gpu_types: [t4, cpu], cpu_count: 4, disk_size: 20}\n",
        "resources.gpu_types cannot mix cpu");
}

static void test_rule_gpu_count_whole_or_fraction_below_one(void **state)
{
    static const struct {
        const char *text;
        json_int_t x100;
    } good[] = { { "1", 100 }, { "2", 200 }, { "64", 6400 }, { "0.5", 50 }, { "0.25", 25 }, { "0.01", 1 },
                 { "'0.75'", 75 }, { "3.00", 300 } };
    static const char *const refused[] = { "0", "1.5", "0.125", "65", "-1", "half", "'1/2'", "2.50" };
    char buf[256];
    (void)state;
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        snprintf(buf, sizeof buf, "name: t\ntype: notebook\nresources: {gpu_types: [t4], gpu_count: %s, disk_size: 20}\n",
                 good[i].text);
        json_t *doc = ok(buf);
        assert_int_equal(int_at(doc, "resources.gpus_x100"), good[i].x100);
        json_decref(doc);
    }
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        snprintf(buf, sizeof buf, "name: t\ntype: notebook\nresources: {gpu_types: [t4], gpu_count: %s, disk_size: 20}\n",
                 refused[i]);
        bad(buf, "resources.gpu_count must be a whole number of GPUs from 1 to 64, or a fraction of one GPU from "
                 "0.01 to 0.99");
    }
    /* Absent: one GPU per worker. */
    json_t *doc = ok(NOTEBOOK);
    assert_int_equal(int_at(doc, "resources.gpus_x100"), 100);
    json_decref(doc);
    /* CPU-only jobs: absent or 0. */
    doc = ok("name: t\ntype: notebook\nresources: {gpu_types: [cpu], gpu_count: 0, cpu_count: 8, disk_size: 20}\n");
    assert_int_equal(int_at(doc, "resources.gpus_x100"), 0);
    json_decref(doc);
    bad("name: t\ntype: notebook\nresources: {gpu_types: [cpu], gpu_count: 1, cpu_count: 8, disk_size: 20}\n",
        "resources.gpu_count must be 0 or absent for a CPU-only job");
}

static void test_rule_cpu_count_multiple_of_4(void **state)
{
    json_t *doc;
    (void)state;
    doc = ok("name: t\ntype: notebook\nresources: {gpu_types: [cpu], cpu_count: 12, disk_size: 20}\n");
    assert_int_equal(int_at(doc, "resources.cpu_count"), 12);
    json_decref(doc);
    doc = ok(NOTEBOOK);
    assert_true(json_is_null(at(doc, "resources.cpu_count")));
    json_decref(doc);
    bad("name: t\ntype: notebook\nresources: {gpu_types: [cpu], cpu_count: 10, disk_size: 20}\n",
        "resources.cpu_count must be a multiple of 4, got 10");
    bad("name: t\ntype: notebook\nresources: {gpu_types: [cpu], cpu_count: 0, disk_size: 20}\n",
        "resources.cpu_count must be between 4 and 4096 vCPUs, got 0");
    bad("name: t\ntype: notebook\nresources: {gpu_types: [cpu], disk_size: 20}\n",
        "resources.cpu_count is required for a CPU-only job");
    bad("name: t\ntype: notebook\nresources: {gpu_types: [t4], cpu_count: 6, disk_size: 20}\n",
        "resources.cpu_count must be a multiple of 4, got 6");
}

static void test_rule_max_price_exact_micro_credits(void **state)
{
    static const struct {
        const char *text;
        json_int_t ucr;
    } good[] = { { "2.5", 2500000 },       { "0.1", 100000 },   { "'12.345678'", 12345678 }, { "3", 3000000 },
                 { "0.000001", 1 },        { "1e-6", 1 },       { "1.5e-5", 15 },            { "0.3", 300000 },
                 { "999999.999999", 999999999999 } };
    static const char *const refused[] = { "0", "-1", "0.0000001", "'2.5 credits'", "1000001", "[1]" };
    char buf[256];
    json_t *doc;
    (void)state;
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        snprintf(buf, sizeof buf, "name: t\ntype: notebook\nresources: {gpu_types: [t4], max_price: %s, disk_size: 20}\n",
                 good[i].text);
        doc = ok(buf);
        assert_int_equal(int_at(doc, "resources.max_price_ucr"), good[i].ucr);
        json_decref(doc);
    }
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        snprintf(buf, sizeof buf, "name: t\ntype: notebook\nresources: {gpu_types: [t4], max_price: %s, disk_size: 20}\n",
                 refused[i]);
        bad(buf, "resources.max_price must be");
    }
    /* Absent: no limit. */
    doc = ok(NOTEBOOK);
    assert_true(json_is_null(at(doc, "resources.max_price_ucr")));
    json_decref(doc);
}

static void test_rule_disk_size_10_to_1000(void **state)
{
    json_t *doc;
    (void)state;
    doc = ok("name: t\ntype: notebook\nresources: {gpu_types: [t4], disk_size: 10}\n");
    assert_int_equal(int_at(doc, "resources.disk_size"), 10);
    json_decref(doc);
    doc = ok("name: t\ntype: notebook\nresources: {gpu_types: [t4], disk_size: 1000}\n");
    assert_int_equal(int_at(doc, "resources.disk_size"), 1000);
    json_decref(doc);
    bad("name: t\ntype: notebook\nresources: {gpu_types: [t4], disk_size: 5}\n",
        "resources.disk_size must be between 10 and 1000 GB, got 5");
    bad("name: t\ntype: notebook\nresources: {gpu_types: [t4], disk_size: 1001}\n",
        "resources.disk_size must be between 10 and 1000 GB, got 1001");
    bad("name: t\ntype: notebook\nresources: {gpu_types: [t4]}\n", "resources.disk_size is required");
}

/* ---- data ----------------------------------------------------------------------------- */

static void test_rule_datasets_for_notebook_and_training_only(void **state)
{
    json_t *doc;
    (void)state;
    doc = ok(TRAINING "data: {datasets: [coco]}\n");
    assert_string_equal(str_at(doc, "data.datasets.0"), "coco");
    json_decref(doc);
    json_decref(ok(INFERENCE "data: {datasets: []}\n"));
    bad(INFERENCE "data: {datasets: [coco]}\n", "data.datasets is only for notebook and training jobs, not inference jobs");
    bad(ENDPOINT ROUTE("[]") "data: {datasets: [coco]}\n", "data.datasets is only for notebook and training jobs");
}

static void test_rule_input_for_training_and_inference_only(void **state)
{
    (void)state;
    json_decref(ok(INFERENCE "data: {input: {type: aws, path: 's3://b/in/'}}\n"));
    json_decref(ok(TRAINING "data: {input: {type: aws, path: 's3://b/in/'}}\n"));
    bad(NOTEBOOK "data: {input: {type: aws, path: 's3://b/in/'}}\n", "data.input is only for training and inference jobs");
    bad(ENDPOINT ROUTE("[]") "data: {input: {type: aws, path: 's3://b'}}\n", "data.input is only for training and inference");
}

static void test_rule_output_for_training_and_inference_only(void **state)
{
    (void)state;
    json_decref(ok(TRAINING "data: {output: {type: gcp, path: 'gs://b/out'}}\n"));
    json_decref(ok(INFERENCE "data: {output: {type: gcp, path: 'gs://b/out'}}\n"));
    bad(NOTEBOOK "data: {output: {type: gcp, path: 'gs://b/out'}}\n", "data.output is only for training and inference");
    bad(ENDPOINT ROUTE("[]") "data: {output: {type: gcp, path: 'gs://b'}}\n", "data.output is only for training and inference");
}

static void test_rule_input_path_prefix_per_type(void **state)
{
    const char *W = ", endpoint: 'https://s3.wasabisys.com'";
    (void)state;
    storage_ok(INFERENCE, "input", "aws", "s3://bucket/data/", NULL);
    storage_ok(INFERENCE, "input", "azure", "https://acct.blob.core.windows.net/c/data.zip", NULL);
    storage_ok(INFERENCE, "input", "gcp", "gs://bucket/x.tar.gz", NULL);
    storage_ok(INFERENCE, "input", "wasabi", "s3://bucket/x", W);
    storage_ok(INFERENCE, "input", "web", "http://host/x.zip", NULL);
    storage_ok(INFERENCE, "input", "web", "https://host/x.zip", NULL);
    storage_ok(INFERENCE, "input", "web", "ftp://host/x.zip", NULL);
    storage_ok(INFERENCE, "input", "web", "ftps://host/x.zip", NULL);
    storage_ok(INFERENCE, "input", "local", "/data/in", NULL);
    storage_ok(INFERENCE, "input", "regional", "/sub", NULL);
    storage_bad(INFERENCE, "input", "aws", "gs://bucket", NULL, "data.input.path must begin with s3://");
    storage_bad(INFERENCE, "input", "aws", "s3://", NULL, "data.input.path must begin with s3:// and a bucket");
    storage_bad(INFERENCE, "input", "azure", "http://acct/c", NULL, "data.input.path must begin with https://");
    storage_bad(INFERENCE, "input", "gcp", "https://storage.googleapis.com/b", NULL, "data.input.path must begin with gs://");
    storage_bad(INFERENCE, "input", "wasabi", "https://b", W, "data.input.path must begin with s3://");
    storage_bad(INFERENCE, "input", "web", "s3://b", NULL, "data.input.path must begin with http://, https://, ftp:// or ftps://");
    storage_bad(INFERENCE, "input", "aws", "s3://my bucket", NULL, "data.input.path must be a URL without spaces");
    /* Input types are the seed's list: no built-in store, no git. */
    storage_bad(INFERENCE, "input", "rigdeck", "dataset", NULL,
                "data.input.type must be one of aws, azure, gcp, local, regional, wasabi, web, got a string");
    storage_bad(INFERENCE, "input", "git", "https://h/r.git", NULL, "data.input.type must be one of");
    bad(INFERENCE "data: {input: {path: 's3://b'}}\n", "data.input.type is required");
    bad(INFERENCE "data: {input: {type: aws}}\n", "data.input.path is required");
}

static void test_rule_output_path_prefix_per_type(void **state)
{
    (void)state;
    storage_ok(TRAINING, "output", "aws", "s3://bucket/results", NULL);
    storage_ok(TRAINING, "output", "azure", "https://acct.blob.core.windows.net/c", NULL);
    storage_ok(TRAINING, "output", "gcp", "gs://bucket/results", NULL);
    storage_ok(TRAINING, "output", "wasabi", "s3://bucket/r", ", endpoint: 'https://s3.wasabisys.com'");
    storage_ok(TRAINING, "output", "local", "~/results", NULL);
    storage_ok(TRAINING, "output", "regional", "/", NULL);
    storage_ok(TRAINING, "output", "rigdeck", "model", NULL);
    storage_ok(TRAINING, "output", "rigdeck", "dataset", NULL);
    storage_ok(TRAINING, "output", "rigdeck", "checkpoint", NULL);
    storage_bad(TRAINING, "output", "rigdeck", "Model", NULL, "data.output.path must be model, dataset or checkpoint");
    storage_bad(TRAINING, "output", "web", "https://host/up", NULL,
                "data.output.type must be one of aws, azure, gcp, local, regional, rigdeck, wasabi, got a string");
    storage_bad(TRAINING, "output", "gcp", "s3://b", NULL, "data.output.path must begin with gs://");
    storage_bad(TRAINING, "output", "regional", "out", NULL, "data.output.path must be a path inside the datastore starting with /");
}

static void test_rule_local_paths_absolute_home_or_variable(void **state)
{
    static const char *const good[] = { "/abs/path", "~/home/rel", "$HOME/data", "${DATA_DIR}/x", "/with space/x" };
    static const char *const refused[] = { "./data", "data", "../up", "~user/x", "~", "$1/x", "" };
    (void)state;
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        storage_ok(INFERENCE, "input", "local", good[i], NULL);
        storage_ok(TRAINING, "output", "local", good[i], NULL);
    }
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        storage_bad(TRAINING, "output", "local", refused[i], NULL,
                    refused[i][0] ? "data.output.path must begin with / (absolute), ~/ (home directory) or $ (an "
                                    "environment variable) for type local; relative paths such as ./data are not supported"
                                  : "data.output.path must not be empty");
}

static void test_rule_regional_paths_start_with_slash_inside_datastore(void **state)
{
    (void)state;
    storage_ok(INFERENCE, "input", "regional", "/", NULL);
    storage_ok(INFERENCE, "input", "regional", "/subdir2/images", NULL);
    storage_bad(INFERENCE, "input", "regional", "subdir2", NULL, "data.input.path must be a path inside the datastore starting with /");
    storage_bad(INFERENCE, "input", "regional", "/a/../../etc", NULL, "data.input.path is not usable: datastore path");
    storage_bad(INFERENCE, "input", "regional", "/a/%2e%2e/x", NULL, "percent-encoded");
}

static void test_rule_regional_storage_needs_datastore(void **state)
{
    (void)state;
    json_decref(ok(TRAINING "data: {output: {type: regional, path: /out}}\nregional: {datastore: lab-nfs}\n"));
    bad(TRAINING "data: {output: {type: regional, path: /out}}\n", "data.output.type regional needs regional.datastore");
    bad(INFERENCE "data: {input: {type: regional, path: /in}}\n", "data.input.type regional needs regional.datastore");
}

static void test_rule_wasabi_needs_endpoint_and_only_wasabi(void **state)
{
    json_t *doc;
    (void)state;
    doc = ok(INFERENCE "data: {input: {type: wasabi, path: 's3://b', endpoint: 'https://s3.eu-central-1.wasabisys.com'}}\n");
    assert_string_equal(str_at(doc, "data.input.endpoint"), "https://s3.eu-central-1.wasabisys.com");
    json_decref(doc);
    bad(INFERENCE "data: {input: {type: wasabi, path: 's3://b'}}\n", "data.input.endpoint is required for type wasabi");
    bad(INFERENCE "data: {input: {type: wasabi, path: 's3://b', endpoint: s3.wasabisys.com}}\n",
        "data.input.endpoint must be an http:// or https:// service URL");
    bad(INFERENCE "data: {input: {type: aws, path: 's3://b', endpoint: 'https://x'}}\n",
        "data.input.endpoint is only for type wasabi");
    json_decref(ok(NOTEBOOK "model: {source: wasabi, location: 's3://m', endpoint: 'https://s3.wasabisys.com'}\n"));
    bad(NOTEBOOK "model: {source: wasabi, location: 's3://m'}\n", "model.endpoint is required for type wasabi");
    bad(NOTEBOOK "model: {endpoint: 'https://s3.wasabisys.com'}\n", "model.endpoint is only for model.source wasabi");
}

static void test_rule_dataset_and_checkpoint_names(void **state)
{
    json_t *doc;
    (void)state;
    doc = ok(NOTEBOOK "data: {datasets: [PASCAL VOC, coco]}\nmodel: {checkpoints: [My Checkpoint]}\n");
    assert_string_equal(str_at(doc, "data.datasets.0"), "PASCAL VOC");
    json_decref(doc);
    bad(NOTEBOOK "data: {datasets: [coco, coco]}\n", "data.datasets[1] is listed twice (also data.datasets[0])");
    bad(NOTEBOOK "data: {datasets: [A B, A_B]}\n", "data.datasets[1] would share its directory with data.datasets[0]");
    bad(NOTEBOOK "model: {checkpoints: [x, '..']}\n", "model.checkpoints[1] must be a name without '/'");
    bad(NOTEBOOK "model: {checkpoints: [a/b]}\n", "model.checkpoints[0] must be a name without '/'");
    bad(NOTEBOOK "data: {datasets: [1]}\n", "data.datasets[0] must be a string, got 1");
}

/* ---- model ------------------------------------------------------------------------------ */

static void test_rule_model_source_and_location(void **state)
{
    static const struct {
        const char *source, *location;
    } good[] = { { "aws", "s3://models/x" },     { "azure", "https://acct.blob.core.windows.net/m" },
                 { "gcp", "gs://models/x" },     { "git", "https://github.com/org/repo.git" },
                 { "local", "$HOME/model" },     { "rigdeck", "My Model" },
                 { "web", "ftp://host/m.zip" } };
    char buf[512];
    json_t *doc;
    (void)state;
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        snprintf(buf, sizeof buf, NOTEBOOK "model: {source: %s, location: '%s'}\n", good[i].source, good[i].location);
        doc = ok(buf);
        assert_string_equal(str_at(doc, "model.location"), good[i].location);
        json_decref(doc);
    }
    bad(NOTEBOOK "model: {source: aws, location: 'gs://m'}\n", "model.location must begin with s3://");
    bad(NOTEBOOK "model: {source: local, location: ./model}\n", "model.location must begin with / (absolute)");
    bad(NOTEBOOK "model: {source: regional, location: /m}\n",
        "model.source must be one of aws, azure, gcp, git, local, rigdeck, wasabi, web, got a string");
    bad(NOTEBOOK "model: {location: 's3://m'}\n", "model.source is required with model.location");
    bad(NOTEBOOK "model: {source: git}\n", "model.location is required with model.source");
    bad(NOTEBOOK "model: {source: rigdeck, location: 'a/b'}\n", "model.location must be a name without '/'");
}

static void test_rule_git_clone_urls_http_or_ssh(void **state)
{
    static const char *const good[] = { "https://github.com/org/repo.git", "http://git.lab/repo",
                                        "ssh://git@github.com/org/repo.git", "git@github.com:org/repo.git",
                                        "deploy.key@git.lab.local:team/repo" };
    static const char *const refused[] = { "github.com/org/repo", "git://github.com/org/repo", "/srv/repo.git",
                                           "git@github.com", "@host:repo", "https://" };
    char buf[512];
    (void)state;
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        snprintf(buf, sizeof buf, NOTEBOOK "model: {source: git, location: '%s'}\n", good[i]);
        json_decref(ok(buf));
    }
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        snprintf(buf, sizeof buf, NOTEBOOK "model: {source: git, location: '%s'}\n", refused[i]);
        bad(buf, "model.location must be a git clone URL");
    }
}

/* ---- workers ------------------------------------------------------------------------------ */

static void test_rule_workers_count_training_only(void **state)
{
    json_t *doc;
    (void)state;
    doc = ok(HEAD("training") RES "workers: {count: 3, commands: [a]}\n");
    assert_int_equal(int_at(doc, "workers.count"), 3);
    json_decref(doc);
    json_decref(ok(HEAD("inference") RES "workers: {count: 1, commands: [a]}\n"));
    json_decref(ok(NOTEBOOK "workers: {count: 1}\n"));
    bad(HEAD("inference") RES "workers: {count: 2, commands: [a]}\n", "workers.count must be 1 for inference jobs");
    bad(NOTEBOOK "workers: {count: 2}\n", "workers.count must be 1 for notebook jobs");
    bad(HEAD("inference") RES "workers: {count: 0, commands: [a]}\n", "workers.count must be 1 for inference jobs (only training jobs run several workers), got 0");
    bad(ENDPOINT ROUTE("[]") "workers: {count: 4}\n", "workers.count must be 1 for endpoint jobs");
    bad(HEAD("training") RES "workers: {count: 0, commands: [a]}\n", "workers.count must be between 1 and 100, got 0");
    bad(HEAD("training") RES "workers: {count: 101, commands: [a]}\n", "workers.count must be between 1 and 100");
}

static void test_rule_worker_commands_one_or_one_per_worker(void **state)
{
    json_t *doc;
    (void)state;
    /* One for all: stored once per worker. */
    doc = ok(HEAD("training") RES "workers: {count: 3, commands: [python train.py]}\n");
    assert_int_equal(json_array_size(at(doc, "workers.commands")), 3);
    assert_string_equal(str_at(doc, "workers.commands.2"), "python train.py");
    json_decref(doc);
    doc = ok(HEAD("training") RES "workers: {count: 2, commands: python train.py}\n");
    assert_string_equal(str_at(doc, "workers.commands.1"), "python train.py");
    json_decref(doc);
    doc = ok(HEAD("training") RES "workers: {count: 2, commands: [a --lr 1, b --lr 2]}\n");
    assert_string_equal(str_at(doc, "workers.commands.1"), "b --lr 2");
    json_decref(doc);
    bad(HEAD("training") RES "workers: {count: 3, commands: [a, b]}\n",
        "workers.commands must hold one command for all workers or exactly one per worker (3), got 2");
    bad(HEAD("training") RES "workers: {count: 1, commands: [a, b]}\n", "exactly one per worker (1), got 2");
    bad(HEAD("training") RES "workers: {commands: []}\n", "workers.commands must hold one command");
    bad(HEAD("training") RES "workers: {commands: ['  ']}\n", "workers.commands[0] must not be blank");
    bad(HEAD("training") RES "workers: {count: 2}\n", "workers.commands is required for training jobs");
    bad(HEAD("inference") RES, "workers.commands is required for inference jobs");
}

static void test_rule_notebook_and_endpoint_have_no_worker_commands(void **state)
{
    json_t *doc;
    (void)state;
    doc = ok(NOTEBOOK);
    assert_int_equal(int_at(doc, "workers.count"), 1);
    assert_int_equal(json_array_size(at(doc, "workers.commands")), 0);
    json_decref(doc);
    bad(NOTEBOOK "workers: {commands: [jupyter lab]}\n", "workers.commands is only for training and inference jobs, not notebook jobs");
    bad(ENDPOINT ROUTE("[]") "workers: {commands: [serve]}\n", "workers.commands is only for training and inference jobs, not endpoint jobs");
}

/* ---- endpoint ------------------------------------------------------------------------------ */

static void test_rule_endpoint_required_for_endpoint_jobs(void **state)
{
    json_t *doc;
    (void)state;
    doc = ok(ENDPOINT "endpoint: {start_command: 'uvicorn app:app --port 80'}\n");
    assert_string_equal(str_at(doc, "endpoint.start_command"), "uvicorn app:app --port 80");
    json_decref(doc);
    doc = ok(NOTEBOOK);
    assert_true(json_is_null(at(doc, "endpoint")));
    json_decref(doc);
    bad(ENDPOINT, "endpoint is required for endpoint jobs");
    /* and refused on every other type, routes or a server command alike */
    bad(TRAINING ROUTE("[]"), "endpoint is only for endpoint jobs, not training jobs");
    bad(INFERENCE "endpoint: {start_command: 'uvicorn app:app --port 80'}\n",
        "endpoint is only for endpoint jobs, not inference jobs");
    bad(NOTEBOOK "endpoint: {}\n", "endpoint is only for endpoint jobs, not notebook jobs");
    doc = ok(TRAINING "endpoint: null\n");
    assert_true(json_is_null(at(doc, "endpoint")));
    json_decref(doc);
    bad(ENDPOINT "endpoint: {routes: []}\n", "endpoint.routes must hold at least one route");
    bad(ENDPOINT "endpoint: {start_command: x, routes: [{path: /p, file: s.py, function: f}]}\n",
        "endpoint.routes cannot be used with endpoint.start_command");
}

static void test_rule_routes_post_only(void **state)
{
    json_t *doc;
    (void)state;
    doc = ok(ENDPOINT "endpoint: {routes: [{verb: POST, path: /a, file: s.py, function: f}, {path: /b, file: s.py, function: g}]}\n");
    assert_string_equal(str_at(doc, "endpoint.routes.1.verb"), "POST");
    json_decref(doc);
    bad(ENDPOINT "endpoint: {routes: [{verb: GET, path: /a, file: s.py, function: f}]}\n",
        "endpoint.routes[0].verb must be POST");
    bad(ENDPOINT "endpoint: {routes: [{path: /a, file: s.py, function: f}, {verb: PUT, path: /b, file: s.py, function: f}]}\n",
        "endpoint.routes[1].verb must be POST");
    /* the route server would take {id} for a path parameter */
    bad(ENDPOINT "endpoint: {routes: [{path: '/items/{id}', file: s.py, function: f}]}\n",
        "endpoint.routes[0].path must be a URL path starting with / (without spaces, ?, #, { or })");
}

/* A regional input is mounted read-only where datasets would go. */
static void test_rule_regional_input_without_datasets(void **state)
{
    (void)state;
    bad("name: t\ntype: training\nresources: {gpu_types: [cpu], cpu_count: 4, max_price: 1, disk_size: 10}\n"
        "workers: {count: 1, commands: [x]}\nregional: {datastore: ds}\n"
        "data: {datasets: [d1], input: {type: regional, path: /a}}\n",
        "data.datasets cannot go with a regional data.input");
}

static void test_rule_routes_unique_verb_and_path(void **state)
{
    (void)state;
    json_decref(ok(ENDPOINT "endpoint: {routes: [{path: /a, file: s.py, function: f}, {path: /a/b, file: s.py, function: f}]}\n"));
    bad(ENDPOINT "endpoint: {routes: [{path: /a, file: s.py, function: f}, {verb: POST, path: /a, file: t.py, function: g}]}\n",
        "endpoint.routes[1] repeats the verb and path of endpoint.routes[0]: no two routes may have the same verb and path");
}

static void test_rule_route_path_file_and_function(void **state)
{
    (void)state;
    json_decref(ok(ENDPOINT "endpoint: {routes: [{path: /v1/predict, file: subdir1/subdir2/file.py, function: _run2}]}\n"));
    bad(ENDPOINT "endpoint: {routes: [{path: predict, file: s.py, function: f}]}\n",
        "endpoint.routes[0].path must be a URL path starting with /");
    bad(ENDPOINT "endpoint: {routes: [{path: '/a?b=1', file: s.py, function: f}]}\n", "endpoint.routes[0].path must be a URL path");
    bad(ENDPOINT "endpoint: {routes: [{path: /a, file: serve.sh, function: f}]}\n", "endpoint.routes[0].file must be a Python file (.py)");
    bad(ENDPOINT "endpoint: {routes: [{path: /a, file: /abs/s.py, function: f}]}\n", "endpoint.routes[0].file must be a Python file");
    bad(ENDPOINT "endpoint: {routes: [{path: /a, file: ../s.py, function: f}]}\n", "endpoint.routes[0].file must be a Python file");
    bad(ENDPOINT "endpoint: {routes: [{path: /a, file: s.py, function: 2fast}]}\n",
        "endpoint.routes[0].function must be the function's name: a Python identifier");
    bad(ENDPOINT "endpoint: {routes: [{path: /a, file: s.py, function: lambda}]}\n", "endpoint.routes[0].function must be");
    bad(ENDPOINT "endpoint: {routes: [{path: /a, function: f}]}\n", "endpoint.routes[0].file is required");
    bad(ENDPOINT "endpoint: {routes: [{file: s.py, function: f}]}\n", "endpoint.routes[0].path is required");
    bad(ENDPOINT "endpoint: {routes: [{path: /a, file: s.py}]}\n", "endpoint.routes[0].function is required");
}

static void test_rule_params_unique_names(void **state)
{
    (void)state;
    json_decref(ok(ENDPOINT ROUTE("[{name: a, type: string}, {name: b, type: string}]")));
    bad(ENDPOINT ROUTE("[{name: a, type: string}, {name: b, type: list}, {name: a, type: integer}]"),
        "endpoint.routes[0].params[2] name is used twice (also endpoint.routes[0].params[0])");
    bad(ENDPOINT ROUTE("[{name: my-arg, type: string}]"), "endpoint.routes[0].params[0].name must be the keyword argument's name");
    bad(ENDPOINT ROUTE("[{type: string}]"), "endpoint.routes[0].params[0].name is required");
}

static void test_rule_optional_params_need_default(void **state)
{
    json_t *doc;
    (void)state;
    doc = ok(ENDPOINT ROUTE("[{name: k, type: integer, optional: true, default: 5}, {name: s, type: object, optional: true, default: None}]"));
    assert_string_equal(str_at(doc, "endpoint.routes.0.params.0.default"), "5");
    assert_string_equal(str_at(doc, "endpoint.routes.0.params.1.default"), "None");
    json_decref(doc);
    bad(ENDPOINT ROUTE("[{name: k, type: integer, optional: true}]"),
        "endpoint.routes[0].params[0].default is required: an optional parameter needs a default");
    bad(ENDPOINT ROUTE("[{name: k, type: integer, default: '5'}]"),
        "endpoint.routes[0].params[0].default is only for optional parameters");
    bad(ENDPOINT ROUTE("[{name: k, type: object, optional: true, default: undefined}]"),
        "endpoint.routes[0].params[0].default must be valid Python: write None, not undefined");
    bad(ENDPOINT ROUTE("[{name: k, type: boolean, optional: true, default: 'false'}]"), "write False, not false");
    bad(ENDPOINT ROUTE("[{name: k, type: boolean, optional: true, default: true}]"),
        "endpoint.routes[0].params[0].default must be Python source as a string");
}

static void test_rule_param_types_from_the_seed(void **state)
{
    json_t *doc;
    (void)state;
    doc = ok(ENDPOINT ROUTE("[{name: a, type: String}, {name: b, type: Integer}, {name: c, type: float}, "
                            "{name: d, type: Boolean}, {name: e, type: object}, {name: f, type: List}]"));
    assert_string_equal(str_at(doc, "endpoint.routes.0.params.0.type"), "string");
    assert_string_equal(str_at(doc, "endpoint.routes.0.params.5.type"), "list");
    json_decref(doc);
    bad(ENDPOINT ROUTE("[{name: a, type: bytes}]"),
        "endpoint.routes[0].params[0].type must be one of string, integer, float, boolean, object, list, got a string");
    bad(ENDPOINT ROUTE("[{name: a}]"), "endpoint.routes[0].params[0].type is required");
}

/* ---- environment ------------------------------------------------------------------------ */

static void test_rule_python_38_or_39(void **state)
{
    json_t *doc;
    (void)state;
    doc = ok(NOTEBOOK "environment: {python: '3.8'}\n");
    assert_string_equal(str_at(doc, "environment.python"), "3.8");
    json_decref(doc);
    doc = ok(NOTEBOOK "environment: {python: 3.9}\n");
    assert_string_equal(str_at(doc, "environment.python"), "3.9");
    json_decref(doc);
    doc = ok(NOTEBOOK);
    assert_string_equal(str_at(doc, "environment.python"), "3.9");
    assert_string_equal(str_at(doc, "environment.framework"), "deep_learning");
    json_decref(doc);
    bad(NOTEBOOK "environment: {python: '3.10'}\n", "environment.python must be \"3.8\" or \"3.9\"");
    bad(NOTEBOOK "environment: {python: 3.7}\n", "environment.python must be \"3.8\" or \"3.9\" (the only Python environments), got 3.7");
    bad(NOTEBOOK "environment: {python: 3}\n", "environment.python must be \"3.8\" or \"3.9\"");
}

static void test_rule_framework_and_version(void **state)
{
    json_t *doc;
    (void)state;
    doc = ok(NOTEBOOK "environment: {framework: tensorflow, framework_version: '2.11.0'}\n");
    assert_string_equal(str_at(doc, "environment.framework_version"), "2.11.0");
    json_decref(doc);
    json_decref(ok(NOTEBOOK "environment: {framework: mxnet}\n"));
    bad(NOTEBOOK "environment: {framework: PyTorch}\n", "environment.framework must be one of deep_learning, pytorch, tensorflow, mxnet");
    bad(NOTEBOOK "environment: {framework: deep_learning, framework_version: '1.0'}\n",
        "environment.framework_version does not apply to framework deep_learning");
    bad(NOTEBOOK "environment: {framework: pytorch, framework_version: 1.13}\n",
        "environment.framework_version must be a quoted version such as \"1.13\", got 1.13");
    bad(NOTEBOOK "environment: {framework: pytorch, framework_version: 'latest'}\n",
        "environment.framework_version must be a version such as");
}

static void test_rule_customer_image_from_five_registries(void **state)
{
    static const char *const good[] = {
        "pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime", "ubuntu", "docker.io/library/python:3.9",
        "123456789012.dkr.ecr.us-east-1.amazonaws.com/team/train:v1", "myreg.azurecr.io/img:1",
        "us-central1-docker.pkg.dev/proj/repo/img:tag", "nvcr.io/nvidia/pytorch:23.10-py3",
        "org/img@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
    };
    static const char *const registry[] = { "quay.io/org/img", "ghcr.io/org/img:1", "localhost/img",
                                            "registry.lab:5000/img" };
    static const char *const malformed[] = { "Org/Img", "img:", "img:-bad", "/img", "img//x", "img @x", "img@sha256:xyz" };
    char buf[512];
    json_t *doc;
    (void)state;
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        snprintf(buf, sizeof buf, NOTEBOOK "environment: {image: '%s'}\n", good[i]);
        doc = ok(buf);
        assert_string_equal(str_at(doc, "environment.image"), good[i]);
        assert_true(json_is_null(at(doc, "environment.python")));
        assert_true(json_is_null(at(doc, "environment.framework")));
        json_decref(doc);
    }
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++) {
        snprintf(buf, sizeof buf, NOTEBOOK "environment: {image: '%s'}\n", registry[i]);
        bad(buf, "environment.image must come from Docker Hub");
    }
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
        snprintf(buf, sizeof buf, NOTEBOOK "environment: {image: '%s'}\n", malformed[i]);
        bad(buf, "environment.image must be a full image name");
    }
    bad(NOTEBOOK "environment: {image: ubuntu, framework: pytorch}\n", "environment has both image and framework");
}

static void test_rule_packages_lists_without_framework_changes(void **state)
{
    json_t *doc;
    (void)state;
    doc = ok(NOTEBOOK "environment: {packages: {apt: ['libsm6=2:1.2.3'], conda: ['numpy=1.24'], pip: ['wandb==0.15.0', torchvision]}}\n");
    assert_string_equal(str_at(doc, "environment.packages.pip.1"), "torchvision");
    assert_int_equal(json_array_size(at(doc, "environment.packages.conda")), 1);
    json_decref(doc);
    doc = ok(NOTEBOOK);
    assert_int_equal(json_array_size(at(doc, "environment.packages.apt")), 0);
    json_decref(doc);
    /* A customer image may bring any framework. */
    json_decref(ok(NOTEBOOK "environment: {image: ubuntu, packages: {pip: [tensorflow==2.12]}}\n"));
    bad(NOTEBOOK "environment: {packages: {pip: [wandb numpy]}}\n", "environment.packages.pip[0] must be one package");
    bad(NOTEBOOK "environment: {packages: {conda: [pytorch=1.12]}}\n",
        "environment.packages.conda[0] would change the pytorch framework");
    bad(NOTEBOOK "environment: {packages: {pip: [Tensorflow_GPU>=2]}}\n", "would change the tensorflow framework");
    bad(NOTEBOOK "environment: {packages: {pip: [mxnet-cu112]}}\n", "would change the mxnet framework");
    bad(NOTEBOOK "environment: {packages: {pip: [1]}}\n", "environment.packages.pip[0] must be a string, got 1");
}

/* Package specs reach installers in the worker: only plain shapes pass. */
static void test_rule_packages_are_plain_names(void **state)
{
    (void)state;
    json_decref(ok(NOTEBOOK "environment: {packages: {pip: ['uvicorn[standard]', 'numpy>=1.20,<2', 'six~=1.16', "
                            "'a.b_c-d===1.0+local'], apt: ['g++', 'libsm6'], conda: ['numpy=1.24=py39_0', "
                            "'scipy>=1.9', 'opencv']}}\n"));
    static const char *const pip_bad[] = { "--index-url=http://evil/", "-rrequirements.txt", "git+https://x/y.git",
                                           "./local.whl", "/abs/path.whl", "x==1;touch", "x@https://h/x.whl",
                                           "x==", "x[", "x==$(id)", "x`id`", "'x'", NULL };
    char buf[512];
    for (size_t i = 0; pip_bad[i]; i++) {
        snprintf(buf, sizeof buf, NOTEBOOK "environment: {packages: {pip: [\"%s\"]}}\n", pip_bad[i]);
        bad(buf, "environment.packages.pip[0] must be a pip requirement");
    }
    static const char *const apt_bad[] = { "-oAPT::x=y", "Foo", "x", "../x.deb", "x=$(id)", "x;y", NULL };
    for (size_t i = 0; apt_bad[i]; i++) {
        snprintf(buf, sizeof buf, NOTEBOOK "environment: {packages: {apt: [\"%s\"]}}\n", apt_bad[i]);
        bad(buf, "environment.packages.apt[0] must be an apt package");
    }
    static const char *const conda_bad[] = { "conda-forge::numpy", "https://c/x", "-c", "x=1=b=c", "x=;", NULL };
    for (size_t i = 0; conda_bad[i]; i++) {
        snprintf(buf, sizeof buf, NOTEBOOK "environment: {packages: {conda: [\"%s\"]}}\n", conda_bad[i]);
        bad(buf, "environment.packages.conda[0] must be a conda package");
    }
}

static void test_rule_env_variable_names(void **state)
{
    json_t *doc;
    (void)state;
    doc = ok(NOTEBOOK "environment: {env: {BUCKET_NAME: b, _x1: '', WANDB_API_KEY: \"k\"}}\n");
    assert_string_equal(str_at(doc, "environment.env.BUCKET_NAME"), "b");
    json_decref(doc);
    bad(NOTEBOOK "environment: {env: {MY-VAR: x}}\n", "environment.env: a key is not a valid variable name");
    bad(NOTEBOOK "environment: {env: {PORT: 8080}}\n", "environment.env.PORT must be a string (quote numbers and booleans");
    /* the refusal names the kind, never the value: it may be a secret */
    bad(NOTEBOOK "environment: {env: {PIN: 918273}}\n",
        "environment.env.PIN must be a string (quote numbers and booleans, e.g. \"8080\"), got a number");
    bad(NOTEBOOK "environment: {env: {DEBUG: true}}\n", "environment.env.DEBUG must be a string (quote numbers and "
                                                        "booleans, e.g. \"8080\"), got a boolean");
    bad(NOTEBOOK "environment: {env: {RIGDECK_JOB_NAME: x}}\n", "environment.env.RIGDECK_JOB_NAME is set by rigdeck");
    bad(NOTEBOOK "environment: {env: [A]}\n", "environment.env must be a mapping");
}

static void test_rule_third_party_keys(void **state)
{
    json_t *doc;
    (void)state;
    doc = ok(NOTEBOOK "environment: {keys: [aws, wandb]}\n");
    assert_string_equal(str_at(doc, "environment.keys.1"), "wandb");
    json_decref(doc);
    bad(NOTEBOOK "environment: {keys: [aws, aws]}\n", "environment.keys[1] is listed twice (also environment.keys[0])");
    bad(NOTEBOOK "environment: {keys: [AWS]}\n", "environment.keys[0] must be 1-63 characters");
}

/* ---- regional ------------------------------------------------------------------------------ */

static void test_rule_regional_names(void **state)
{
    json_t *doc;
    (void)state;
    doc = ok(TRAINING "regional: {datastore: lab-nfs, reservation: port-8080}\n");
    assert_string_equal(str_at(doc, "regional.datastore"), "lab-nfs");
    json_decref(doc);
    doc = ok(NOTEBOOK);
    assert_true(json_is_null(at(doc, "regional.datastore")));
    assert_true(json_is_null(at(doc, "regional.reservation")));
    json_decref(doc);
    bad(NOTEBOOK "regional: {datastore: Lab NFS}\n", "regional.datastore must be 1-63 characters");
    bad(NOTEBOOK "regional: {reservation: 5}\n", "regional.reservation must be a string, got 5");
}

/* ---- computed ------------------------------------------------------------------------------ */

static void test_computed_mounts_and_environment(void **state)
{
    json_t *doc;
    (void)state;
    /* Several datasets: each under /opt/ml/input/<name with underscores>. */
    doc = ok("name: Big Sweep\ntype: training\n" RES "workers: {commands: [x]}\n"
             "data: {datasets: [PASCAL VOC, coco], output: {type: aws, path: 's3://b/o'}}\n"
             "model: {source: git, location: 'https://h/r.git', checkpoints: [My Checkpoint, base]}\n");
    assert_string_equal(str_at(doc, "env_job_name"), "Big_Sweep");
    assert_string_equal(str_at(doc, "system_env.RIGDECK_JOB_NAME"), "Big_Sweep");
    assert_string_equal(str_at(doc, "system_env.ML_OUTPUT_PATH"), "/opt/ml/output");
    assert_int_equal(json_array_size(at(doc, "mounts")), 6);
    assert_string_equal(str_at(doc, "mounts.0.path"), "/opt/ml/input/PASCAL_VOC");
    assert_string_equal(str_at(doc, "mounts.0.name"), "PASCAL VOC");
    assert_string_equal(str_at(doc, "mounts.1.path"), "/opt/ml/input/coco");
    assert_string_equal(str_at(doc, "mounts.2.what"), "checkpoint");
    assert_string_equal(str_at(doc, "mounts.2.path"), "/opt/ml/checkpoint/My_Checkpoint");
    assert_string_equal(str_at(doc, "mounts.3.path"), "/opt/ml/checkpoint/base");
    assert_string_equal(str_at(doc, "mounts.4.what"), "model");
    assert_string_equal(str_at(doc, "mounts.4.path"), "/opt/ml/models");
    assert_string_equal(str_at(doc, "mounts.5.what"), "output");
    json_decref(doc);
    /* One of each: the base directory itself. */
    doc = ok(NOTEBOOK "data: {datasets: [PASCAL VOC]}\nmodel: {checkpoints: [My Checkpoint]}\n");
    assert_string_equal(str_at(doc, "mounts.0.path"), "/opt/ml/input");
    assert_string_equal(str_at(doc, "mounts.1.path"), "/opt/ml/checkpoint");
    json_decref(doc);
    /* Inference input: downloaded to /opt/ml/input. */
    doc = ok(INFERENCE "data: {input: {type: web, path: 'https://h/x.zip'}}\n");
    assert_string_equal(str_at(doc, "mounts.0.what"), "input");
    assert_string_equal(str_at(doc, "mounts.0.path"), "/opt/ml/input");
    json_decref(doc);
    doc = ok(NOTEBOOK);
    assert_int_equal(json_array_size(at(doc, "mounts")), 0);
    json_decref(doc);
}

static void test_dir_name(void **state)
{
    char buf[8];
    (void)state;
    assert_string_equal(jobspec_dir_name("A B C", buf, sizeof buf), "A_B_C");
    assert_string_equal(jobspec_dir_name("a long name", buf, sizeof buf), "a_long_");
}

static void test_yaml_refusals_pass_through(void **state)
{
    (void)state;
    bad(NOTEBOOK "name: again\n", "duplicate key: each key may appear once");
    bad("base: &b {gpu_types: [t4], disk_size: 20}\nname: t\ntype: notebook\nresources: *b\n", "anchors");
    bad("", "the document is empty");
    bad("name: t\ntype: notebook\nresources: {gpu_types: [t4], disk_size: 20}\n\t", "t.yaml:");
    bad("name: t\x01\ntype: notebook\n" RES, "t.yaml");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_example_parses),
        cmocka_unit_test(test_spec_files),
        cmocka_unit_test(test_refusals_never_quote_the_file),
        cmocka_unit_test(test_rule_name_required_and_usable_as_file_name),
        cmocka_unit_test(test_rule_type_one_of_four),
        cmocka_unit_test(test_rule_project_name_or_owner_slash_name),
        cmocka_unit_test(test_rule_unknown_keys_are_errors_everywhere),
        cmocka_unit_test(test_rule_wrong_types_name_the_field),
        cmocka_unit_test(test_rule_resources_required),
        cmocka_unit_test(test_rule_gpu_types_from_the_catalog),
        cmocka_unit_test(test_rule_gpu_types_cpu_does_not_mix),
        cmocka_unit_test(test_rule_gpu_count_whole_or_fraction_below_one),
        cmocka_unit_test(test_rule_cpu_count_multiple_of_4),
        cmocka_unit_test(test_rule_max_price_exact_micro_credits),
        cmocka_unit_test(test_rule_disk_size_10_to_1000),
        cmocka_unit_test(test_rule_datasets_for_notebook_and_training_only),
        cmocka_unit_test(test_rule_input_for_training_and_inference_only),
        cmocka_unit_test(test_rule_output_for_training_and_inference_only),
        cmocka_unit_test(test_rule_input_path_prefix_per_type),
        cmocka_unit_test(test_rule_output_path_prefix_per_type),
        cmocka_unit_test(test_rule_local_paths_absolute_home_or_variable),
        cmocka_unit_test(test_rule_regional_paths_start_with_slash_inside_datastore),
        cmocka_unit_test(test_rule_regional_storage_needs_datastore),
        cmocka_unit_test(test_rule_wasabi_needs_endpoint_and_only_wasabi),
        cmocka_unit_test(test_rule_dataset_and_checkpoint_names),
        cmocka_unit_test(test_rule_model_source_and_location),
        cmocka_unit_test(test_rule_git_clone_urls_http_or_ssh),
        cmocka_unit_test(test_rule_workers_count_training_only),
        cmocka_unit_test(test_rule_worker_commands_one_or_one_per_worker),
        cmocka_unit_test(test_rule_notebook_and_endpoint_have_no_worker_commands),
        cmocka_unit_test(test_rule_endpoint_required_for_endpoint_jobs),
        cmocka_unit_test(test_rule_routes_post_only),
        cmocka_unit_test(test_rule_routes_unique_verb_and_path),
        cmocka_unit_test(test_rule_regional_input_without_datasets),
        cmocka_unit_test(test_rule_route_path_file_and_function),
        cmocka_unit_test(test_rule_params_unique_names),
        cmocka_unit_test(test_rule_optional_params_need_default),
        cmocka_unit_test(test_rule_param_types_from_the_seed),
        cmocka_unit_test(test_rule_python_38_or_39),
        cmocka_unit_test(test_rule_framework_and_version),
        cmocka_unit_test(test_rule_customer_image_from_five_registries),
        cmocka_unit_test(test_rule_packages_lists_without_framework_changes),
        cmocka_unit_test(test_rule_packages_are_plain_names),
        cmocka_unit_test(test_rule_env_variable_names),
        cmocka_unit_test(test_rule_third_party_keys),
        cmocka_unit_test(test_rule_regional_names),
        cmocka_unit_test(test_computed_mounts_and_environment),
        cmocka_unit_test(test_dir_name),
        cmocka_unit_test(test_yaml_refusals_pass_through),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
