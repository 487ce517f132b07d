/* jobspec.c - the job spec's entry point, its top-level fields (name, type,
 * project), the resources section and the computed fields (env_job_name,
 * system_env, mounts).
 *
 * Sections live in jobspec_data.c (data, model), jobspec_run.c (workers,
 * endpoint) and jobspec_env.c (environment, regional); the typed getters
 * every section uses are jobspec_read.c's.
 */
#include "jobspec.h"
#include "jobspec_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "names.h"
#include "num.h"
#include "yamljson.h"

/* 1,000,000 credits per GPU-hour: far above any price, low enough that a
 * typo of a dozen zeros is caught. */
#define MAX_PRICE_UCR (1000000LL * NUM_UCR_PER_CREDIT)

/* ---- resources ---------------------------------------------------------------- */

static rd_code gpu_types(js_ctx *c, const json_t *v, json_t *res)
{
    const char *path = "resources.gpu_types";
    json_t *arr;
    int has_cpu = 0;
    rd_code rc;

    if (!v)
        return js_fail(c->err, path, "is required: the GPU types that satisfy the job, e.g. [rtx3090, a100], "
                                     "or [cpu] for a CPU-only job");
    if ((rc = js_want_list(v, path, catalog_gpu_count(), c->err)) != RD_OK)
        return rc;
    if (json_array_size(v) == 0)
        return js_fail(c->err, path, "must name at least one GPU type (or [cpu] for a CPU-only job)");
    if (!(arr = json_array()) || json_object_set_new(res, "gpu_types", arr) != 0)
        return js_nomem(c->err);
    for (size_t i = 0; i < json_array_size(v); i++) {
        char item[JS_PATH];
        const char *id;
        js_item(item, path, i);
        if ((rc = js_want_string(json_array_get(v, i), item, 1, 64, 0, &id, c->err)) != RD_OK ||
            (rc = catalog_check_gpu(item, id, c->err)) != RD_OK)
            return rc;
        for (size_t j = 0; j < i; j++)
            if (strcmp(id, json_string_value(json_array_get(v, j))) == 0)
                return js_fail(c->err, item, "is listed twice (also %s[%zu])", path, j);
        has_cpu |= strcmp(id, "cpu") == 0;
        if ((rc = js_push(arr, json_string(id), c->err)) != RD_OK)
            return rc;
    }
    /* A job either attaches GPUs or does not ("None (CPU-Only)" is one
     * choice of the GPU type list, not one more type). */
    if (has_cpu && json_array_size(v) > 1)
        return js_fail(c->err, path, "cannot mix cpu (CPU-only) with GPU types");
    c->cpu_only = has_cpu;
    return RD_OK;
}

/* Whole GPUs, or a share of one GPU: 0.5 of a GPU is a slice of one card
 * on a node that allows sharing, but 1.5 would need half of a second card
 * on the same worker, which no node can promise. */
static rd_code gpu_count(js_ctx *c, const json_t *v, json_t *res)
{
    const char *path = "resources.gpu_count";
    const char *rule = "a whole number of GPUs from 1 to 64, or a fraction of one GPU from 0.01 to 0.99 in "
                       "steps of 0.01";
    char text[64];
    int64_t x100 = 100;
    rd_err scratch;

    if (v) {
        if (js_decimal_text(v, text, sizeof text) != 0 ||
            num_parse_fixed(path, text, 2, c->cpu_only ? 0 : 1, JOBSPEC_GPUS_MAX_X100, &x100, &scratch) != RD_OK)
            return js_fail_got(c->err, path, v, c->cpu_only ? "0 or absent for a CPU-only job (gpu_types: [cpu])"
                                                             : rule);
        if (c->cpu_only && x100 != 0)
            return js_fail_got(c->err, path, v, "0 or absent for a CPU-only job (gpu_types: [cpu])");
        if (x100 > 100 && x100 % 100 != 0)
            return js_fail_got(c->err, path, v, rule);
    } else if (c->cpu_only)
        x100 = 0;
    if (!c->cpu_only && x100 == 0)
        return js_fail_got(c->err, path, v, rule);
    return js_put(res, "gpus_x100", json_integer(x100), c->err);
}

static rd_code cpu_count(js_ctx *c, const json_t *v, json_t *res)
{
    const char *path = "resources.cpu_count";
    char got[96];
    int64_t n;
    rd_code rc;

    if (!v) {
        if (c->cpu_only)
            return js_fail(c->err, path, "is required for a CPU-only job: vCPUs per worker, a multiple of 4");
        return js_put(res, "cpu_count", json_null(), c->err);
    }
    if ((rc = js_want_int(v, path, JOBSPEC_CPU_QUANTUM, JOBSPEC_CPU_MAX, "vCPUs", &n, c->err)) != RD_OK)
        return rc;
    if (n % JOBSPEC_CPU_QUANTUM != 0)
        return js_fail(c->err, path, "must be a multiple of %d, got %s", JOBSPEC_CPU_QUANTUM,
                       js_show(v, got, sizeof got));
    return js_put(res, "cpu_count", json_integer(n), c->err);
}

static rd_code max_price(js_ctx *c, const json_t *v, json_t *res)
{
    const char *path = "resources.max_price";
    char text[64];
    int64_t ucr;
    rd_code rc;

    /* Absent means no limit: seed 001 describes max_price as a filter that
     * keeps a job waiting, not as a field every job must set. */
    if (!v)
        return js_put(res, "max_price_ucr", json_null(), c->err);
    if (js_decimal_text(v, text, sizeof text) != 0)
        return js_fail_got(c->err, path, v,
                           "credits per GPU-hour, a number such as 2.5 (quote numbers with more than 15 digits)");
    if ((rc = num_parse_credits(path, text, 1, MAX_PRICE_UCR, &ucr, c->err)) != RD_OK)
        return rc;
    return js_put(res, "max_price_ucr", json_integer(ucr), c->err);
}

rd_code js_resources(js_ctx *c, const json_t *v, json_t **out)
{
    static const char *const keys[] = { "gpu_types", "gpu_count", "cpu_count", "max_price", "disk_size", NULL };
    json_t *res;
    int64_t disk;
    rd_code rc;

    *out = NULL;
    if (!v)
        return js_fail(c->err, "resources", "is required for every job type (gpu_types and disk_size at least)");
    if ((rc = js_want_object(v, "resources", c->err)) != RD_OK ||
        (rc = js_keys(v, "resources", keys, c->err)) != RD_OK)
        return rc;
    if (!(res = json_object()))
        return js_nomem(c->err);
    if ((rc = gpu_types(c, js_get(v, "gpu_types"), res)) != RD_OK ||
        (rc = gpu_count(c, js_get(v, "gpu_count"), res)) != RD_OK ||
        (rc = cpu_count(c, js_get(v, "cpu_count"), res)) != RD_OK ||
        (rc = max_price(c, js_get(v, "max_price"), res)) != RD_OK)
        goto fail;
    if (!js_get(v, "disk_size")) {
        rc = js_fail(c->err, "resources.disk_size", "is required: GB of working storage per worker, %d to %d",
                     JOBSPEC_DISK_MIN_GB, JOBSPEC_DISK_MAX_GB);
        goto fail;
    }
    if ((rc = js_want_int(js_get(v, "disk_size"), "resources.disk_size", JOBSPEC_DISK_MIN_GB, JOBSPEC_DISK_MAX_GB,
                          "GB", &disk, c->err)) != RD_OK ||
        (rc = js_put(res, "disk_size", json_integer(disk), c->err)) != RD_OK)
        goto fail;
    *out = res;
    return RD_OK;
fail:
    json_decref(res);
    return rc;
}

/* ---- top level ---------------------------------------------------------------- */

static rd_code job_type(js_ctx *c, const json_t *v)
{
    static const char *const types[] = { "notebook", "training", "inference", "endpoint", NULL };
    const char *s;

    if (!v)
        return js_fail(c->err, "type", "is required: notebook, training, inference or endpoint");
    if (json_is_string(v)) {
        s = json_string_value(v);
        for (const char *const *t = types; *t; t++)
            if (strcmp(s, *t) == 0) {
                c->type = *t;
                return RD_OK;
            }
    }
    return js_fail_got(c->err, "type", v, "one of notebook, training, inference, endpoint");
}

/* NAME, or OWNER/NAME for a project another account shared. */
static rd_code project(js_ctx *c, const json_t *v, const char **out)
{
    const char *s, *slash;
    char owner[NAMES_MAX + 2];
    rd_code rc;

    *out = NULL;
    if (!v)
        return RD_OK;
    if ((rc = js_want_string(v, "project", 1, 2 * NAMES_MAX + 1, 0, &s, c->err)) != RD_OK)
        return rc;
    if ((slash = strchr(s, '/'))) {
        if ((size_t)(slash - s) > NAMES_MAX)
            return js_fail_got(c->err, "project", v, "NAME or OWNER/NAME");
        memcpy(owner, s, (size_t)(slash - s));
        owner[slash - s] = '\0';
        if ((rc = js_check_name("project owner", owner, c->err)) != RD_OK ||
            (rc = js_check_name("project", slash + 1, c->err)) != RD_OK)
            return rc;
    } else if ((rc = js_check_name("project", s, c->err)) != RD_OK)
        return rc;
    *out = s;
    return RD_OK;
}

/* One mount entry {what, name, path}. */
static rd_code mount(json_t *mounts, const char *what, const char *name, const char *path, rd_err *err)
{
    json_t *m = json_pack("{s:s, s:s, s:s}", "what", what, "name", name, "path", path);
    return js_push(mounts, m, err);
}

/* Seed 001: one dataset (checkpoint) is mounted at the base directory
 * itself; several each get base/<name with spaces as underscores>.  shared
 * is how many entries the base directory holds in all. */
static rd_code mount_list(json_t *mounts, const char *what, const json_t *names, size_t shared, const char *base,
                          rd_err *err)
{
    rd_code rc;

    for (size_t i = 0; i < json_array_size(names); i++) {
        const char *name = json_string_value(json_array_get(names, i));
        char dir[JOBSPEC_NAME_MAX + 1], path[sizeof JOBSPEC_CHECKPOINT_DIR + JOBSPEC_NAME_MAX + 2];
        if (shared == 1)
            snprintf(path, sizeof path, "%s", base);
        else
            snprintf(path, sizeof path, "%s/%s", base, jobspec_dir_name(name, dir, sizeof dir));
        if ((rc = mount(mounts, what, name, path, err)) != RD_OK)
            return rc;
    }
    return RD_OK;
}

static rd_code computed(const char *name, json_t *doc, rd_err *err)
{
    json_t *data = json_object_get(doc, "data"), *model = json_object_get(doc, "model");
    json_t *input = json_object_get(data, "input"), *output = json_object_get(data, "output");
    char env_name[JOBSPEC_NAME_MAX + 1];
    size_t ndatasets;
    json_t *mounts;
    rd_code rc;

    jobspec_dir_name(name, env_name, sizeof env_name);
    if ((rc = js_put(doc, "env_job_name", json_string(env_name), err)) != RD_OK ||
        (rc = js_put(doc, "system_env",
                     json_pack("{s:s, s:s}", JOBSPEC_ENV_JOB_NAME, env_name, JOBSPEC_ENV_OUTPUT, JOBSPEC_OUTPUT_DIR),
                     err)) != RD_OK)
        return rc;
    if (!(mounts = json_array()) || json_object_set_new(doc, "mounts", mounts) != 0)
        return js_nomem(err);
    /* Input data is downloaded where a dataset would be mounted.  An
     * inference job has no datasets; a training job with both keeps the
     * seed's dataset mounts and takes the download at JOBSPEC_INPUT_DATA_DIR. */
    ndatasets = json_array_size(json_object_get(data, "datasets"));
    if ((rc = mount_list(mounts, "dataset", json_object_get(data, "datasets"), ndatasets, JOBSPEC_INPUT_DIR, err)) !=
        RD_OK)
        return rc;
    if (json_is_object(input) &&
        (rc = mount(mounts, "input", json_string_value(json_object_get(input, "path")),
                    ndatasets ? JOBSPEC_INPUT_DATA_DIR : JOBSPEC_INPUT_DIR, err)) != RD_OK)
        return rc;
    if ((rc = mount_list(mounts, "checkpoint", json_object_get(model, "checkpoints"),
                         json_array_size(json_object_get(model, "checkpoints")), JOBSPEC_CHECKPOINT_DIR, err)) != RD_OK)
        return rc;
    if (json_is_string(json_object_get(model, "location")) &&
        (rc = mount(mounts, "model", json_string_value(json_object_get(model, "location")), JOBSPEC_MODEL_DIR,
                    err)) != RD_OK)
        return rc;
    if (json_is_object(output) &&
        (rc = mount(mounts, "output", json_string_value(json_object_get(output, "path")), JOBSPEC_OUTPUT_DIR,
                    err)) != RD_OK)
        return rc;
    return RD_OK;
}

/* Rules between sections, checked once every section is valid on its own. */
static rd_code cross_rules(json_t *doc, rd_err *err)
{
    static const char *const slots[] = { "input", "output" };
    json_t *data = json_object_get(doc, "data");
    int has_datastore = json_is_string(json_object_get(json_object_get(doc, "regional"), "datastore"));

    for (size_t i = 0; i < 2; i++) {
        const char *type = json_string_value(json_object_get(json_object_get(data, slots[i]), "type"));
        if (type && strcmp(type, "regional") == 0 && !has_datastore)
            return rd_fail(err, RD_EINVAL,
                           "data.%s.type regional needs regional.datastore: the datastore whose path it names",
                           slots[i]);
    }
    return RD_OK;
}

static rd_code parse_doc(const json_t *v, json_t **out, rd_err *err)
{
    static const char *const keys[] = { "name",     "type",        "project",  "resources", "data", "model",
                                        "workers",  "endpoint",    "environment", "regional", NULL };
    static const struct {
        const char *key;
        rd_code (*parse)(js_ctx *, const json_t *, json_t **);
    } sections[] = {
        { "resources", js_resources }, { "data", js_data },         { "model", js_model },
        { "workers", js_workers },     { "endpoint", js_endpoint }, { "environment", js_environment },
        { "regional", js_regional },
    };
    js_ctx c = { .err = err, .workers = 1 };
    const char *name, *proj;
    json_t *doc;
    rd_code rc;

    if (!json_is_object(v))
        return js_fail_got(err, "the job spec", v, "a mapping with name, type, resources and the other sections");
    if ((rc = js_keys(v, "", keys, err)) != RD_OK)
        return rc;
    if (!js_get(v, "name"))
        return js_fail(err, "name", "is required: a friendly name for the job");
    if ((rc = js_check_display_name(js_get(v, "name"), "name", &name, err)) != RD_OK ||
        (rc = job_type(&c, js_get(v, "type"))) != RD_OK || (rc = project(&c, js_get(v, "project"), &proj)) != RD_OK)
        return rc;
    if (!(doc = json_pack("{s:s, s:s, s:o}", "name", name, "type", c.type, "project", js_str_or_null(proj))))
        return js_nomem(err);
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
        json_t *sec = NULL;
        if ((rc = sections[i].parse(&c, js_get(v, sections[i].key), &sec)) != RD_OK ||
            (rc = js_put(doc, sections[i].key, sec, err)) != RD_OK)
            goto fail;
    }
    if ((rc = cross_rules(doc, err)) != RD_OK || (rc = computed(name, doc, err)) != RD_OK)
        goto fail;
    *out = doc;
    return RD_OK;
fail:
    json_decref(doc);
    return rc;
}

rd_code jobspec_parse(const char *text, size_t len, const char *source, json_t **out, rd_err *err)
{
    json_t *v = NULL;
    rd_err inner;
    rd_code rc;

    *out = NULL;
    if (!source)
        source = "job spec";
    /* yamljson's messages already carry "SOURCE:LINE:COLUMN". */
    if ((rc = yamljson_parse(text, len, source, &v, err)) != RD_OK)
        return rc;
    rd_err_clear(&inner);
    rc = parse_doc(v, out, &inner);
    json_decref(v);
    if (rc != RD_OK)
        return rd_fail(err, rc, "%s: %s", source, inner.msg);
    rd_err_clear(err);
    return RD_OK;
}
