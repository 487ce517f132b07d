/* gpu_cmd.c - the GPU catalog as commands: `gpu list` (catalog_gpu.c's
 * built-in types and the store's added ones) and `gpu add/set/remove`, which
 * keep an operator's types under /rigdeck/gpus/<id> (execution.md §1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "catalog.h"
#include "cmd.h"
#include "doc.h"
#include "job_state.h"
#include "keyspace.h"

#define GPU_ID_MAX 31

static rd_code gpu_list_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *items = json_array();
    (void)ctx;
    (void)a;
    for (size_t i = 0; i < catalog_gpu_count(); i++)
        json_array_append_new(items, catalog_gpu_json(catalog_gpu_at(i)));
    *result = json_pack("{s:o}", "items", items);
    return *result ? RD_OK : rd_fail(err, RD_ENOMEM, "out of memory");
}

/* ---- checks --------------------------------------------------------------- */

static rd_code check_id(const char *id, rd_err *err)
{
    size_t n = strlen(id);
    if (n < 1 || n > GPU_ID_MAX || strspn(id, "abcdefghijklmnopqrstuvwxyz0123456789-") != n)
        return rd_fail(err, RD_EINVAL, "ID must be 1-%d characters of a-z, 0-9 and -, got '%s'", GPU_ID_MAX, id);
    return RD_OK;
}

/* A positive decimal with at most one digit after the point, in tenths. */
static rd_code parse_tflops(const char *flag, const char *s, int *x10, rd_err *err)
{
    long whole = 0;
    int tenth = 0;
    const char *p = s;
    if (*p < '0' || *p > '9')
        goto bad;
    while (*p >= '0' && *p <= '9' && whole < 1000000)
        whole = whole * 10 + (*p++ - '0');
    if (*p == '.' && p[1] >= '0' && p[1] <= '9') {
        tenth = p[1] - '0';
        p += 2;
    }
    if (*p || whole >= 100000 || whole * 10 + tenth <= 0)
        goto bad;
    *x10 = (int)(whole * 10 + tenth);
    return RD_OK;
bad:
    return rd_fail(err, RD_EINVAL, "--%s must be a positive number of TFLOPS below 100000 with at most one decimal, got '%s'",
                   flag, s);
}

static rd_code parse_count(const char *flag, const char *s, int max, int *out, rd_err *err)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s < '0' || *s > '9' || *end || v <= 0 || v > max)
        return rd_fail(err, RD_EINVAL, "--%s must be a whole number from 1 to %d, got '%s'", flag, max, s);
    *out = (int)v;
    return RD_OK;
}

/* Applies the flags given to doc (a new type's, or a copy of a stored one);
 * a flag not given keeps doc's value. */
static rd_code apply_flags(const cmd_args *a, const char *id, json_t *doc, rd_err *err)
{
    const char *v;
    int n;
    rd_code rc;

    size_t nnames = cmd_opt_count(a, "nvidia-name");
    if (nnames) {
        json_t *names = json_array();
        for (size_t i = 0; i < nnames; i++) {
            const char *name = cmd_opt_at(a, "nvidia-name", i);
            const gpu_type *other = catalog_gpu_by_nvidia_name(name);
            size_t len = strlen(name), k;
            for (k = 0; k < len && name[k] >= ' ' && name[k] <= '~'; k++)
                ;
            if (len == 0 || len > 96 || k < len || name[0] == ' ') {
                json_decref(names);
                return rd_fail(err, RD_EINVAL, "--nvidia-name must be 1-96 printable ASCII characters, not starting with a blank");
            }
            if (other && strcmp(other->id, id) != 0) {
                json_decref(names);
                return rd_fail(err, RD_EINVAL, "--nvidia-name '%s' must be unique: GPU type %s lists it", name, other->id);
            }
            for (size_t k = 0; k < i; k++)
                if (catalog_nvidia_name_equal(name, cmd_opt_at(a, "nvidia-name", k))) {
                    json_decref(names);
                    return rd_fail(err, RD_EINVAL, "--nvidia-name '%s' must be unique: given twice", name);
                }
            json_array_append_new(names, json_string(name));
        }
        json_object_set_new(doc, "nvidia_names", names);
    }
    if ((v = cmd_opt(a, "memory-gb"))) {
        if ((rc = parse_count("memory-gb", v, 100000, &n, err)) != RD_OK)
            return rc;
        json_object_set_new(doc, "memory_gb", json_integer(n));
    }
    if ((v = cmd_opt(a, "fp32"))) {
        if ((rc = parse_tflops("fp32", v, &n, err)) != RD_OK)
            return rc;
        json_object_set_new(doc, "fp32_tflops_x10", json_integer(n));
    }
    if ((v = cmd_opt(a, "fp16"))) {
        if ((rc = parse_tflops("fp16", v, &n, err)) != RD_OK)
            return rc;
        json_object_set_new(doc, "fp16_tflops_x10", json_integer(n));
    }
    if ((v = cmd_opt(a, "class"))) {
        if (catalog_class_parse(v) == GPU_CLASS_NONE)
            return rd_fail(err, RD_EINVAL, "--class must be one of development, professional, datacenter, got '%s'", v);
        json_object_set_new(doc, "class", json_string(v));
    }
    if ((v = cmd_opt(a, "form"))) {
        if (strcmp(v, "pcie") != 0 && strcmp(v, "sxm") != 0)
            return rd_fail(err, RD_EINVAL, "--form must be pcie or sxm, got '%s'", v);
        json_object_set_new(doc, "form", json_string(v));
    }
    static const char *const gcp[] = { "gcp-accelerator", "gcp-quota", "gcp-cpus-per-gpu" };
    int given = 0;
    for (int i = 0; i < 3; i++)
        given += cmd_opt(a, gcp[i]) != NULL;
    if (given && given != 3)
        return rd_fail(err, RD_EINVAL, "--gcp-accelerator, --gcp-quota and --gcp-cpus-per-gpu must be given together");
    if (given) {
        if ((rc = parse_count("gcp-cpus-per-gpu", cmd_opt(a, "gcp-cpus-per-gpu"), 1024, &n, err)) != RD_OK)
            return rc;
        for (int i = 0; i < 2; i++) {
            v = cmd_opt(a, gcp[i]);
            if (!*v || strlen(v) > 63 || strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != strlen(v))
                return rd_fail(err, RD_EINVAL, "--%s must be 1-63 letters, digits, - or _, got '%s'", gcp[i], v);
        }
        json_object_set_new(doc, "gcp_accelerator", json_string(cmd_opt(a, "gcp-accelerator")));
        json_object_set_new(doc, "gcp_quota", json_string(cmd_opt(a, "gcp-quota")));
        json_object_set_new(doc, "gcp_cpus_per_gpu", json_integer(n));
    }
    return RD_OK;
}

/* RD_OK when the actor administers accounts and id names no built-in type. */
static rd_code check_change(cmd_ctx *ctx, const char *verb, const char *id, rd_err *err)
{
    rd_code rc = check_id(id, err);
    const gpu_type *g = rc == RD_OK ? catalog_gpu(id) : NULL;
    if (rc != RD_OK)
        return rc;
    if (!access_actor_is_admin(ctx))
        return rd_fail(err, RD_EPERM, "gpu %s: the GPU catalog is changed by an administering account; --as is '%s'",
                       verb, ctx->actor);
    if (g && g->builtin)
        return rd_fail(err, RD_EINVAL, "ID %s is a built-in GPU type: built-in types cannot be changed or removed", id);
    return RD_OK;
}

/* The stored type at id (guarded), or NULL; RD_ENOTFOUND when must_exist. */
static rd_code read_type(cmd_ctx *ctx, const char *id, int must_exist, json_t **doc, rd_err *err)
{
    char key[RD_KEY_MAX];
    rd_code rc = tx_get(ctx->tx, tx_key(key, KEY_GPUS "%s", id), doc, err);
    if (rc == RD_OK && must_exist && !*doc)
        rc = rd_fail(err, RD_ENOTFOUND, "ID %s is not a GPU type (see gpu list)", id);
    return rc;
}

static rd_code store_type(cmd_ctx *ctx, const char *id, json_t *doc, json_t **result, rd_err *err)
{
    char key[RD_KEY_MAX], ts[RDTIME_BUFLEN];
    json_t *all = NULL;
    json_object_set_new(doc, "updated_at", json_string(rdtime_format(ctx->now, ts)));
    rd_code rc = tx_put(ctx->tx, tx_key(key, KEY_GPUS "%s", id), doc, err);
    /* the answer shows the type as gpu list will: the list merges this write */
    if (rc == RD_OK)
        rc = tx_list(ctx->tx, KEY_GPUS, &all, err);
    if (rc == RD_OK) {
        catalog_gpu_load_added(all);
        *result = catalog_gpu(id) ? catalog_gpu_json(catalog_gpu(id)) : NULL;
        if (!*result)
            rc = rd_fail(err, RD_ENOMEM, "out of memory");
    }
    json_decref(all);
    return rc;
}

static rd_code gpu_add_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *id = cmd_arg(a, 0);
    json_t *doc = NULL;
    rd_code rc = check_id(id, err);
    if (rc == RD_OK && catalog_gpu(id))
        rc = rd_fail(err, RD_EINVAL, "ID %s must be unique: it is already a GPU type (see gpu list)", id);
    if (rc == RD_OK)
        rc = check_change(ctx, "add", id, err);
    if (rc == RD_OK && (rc = read_type(ctx, id, 0, &doc, err)) == RD_OK && doc)
        rc = rd_fail(err, RD_EINVAL, "ID %s must be unique: it is already a GPU type (see gpu list)", id);
    json_decref(doc);
    if (rc != RD_OK)
        return rc;
    static const char *const needed[] = { "nvidia-name", "memory-gb", "fp32", "fp16", "class" };
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
        if (!cmd_opt(a, needed[i]))
            return rd_fail(err, RD_EINVAL, "--%s is required: gpu add needs every figure", needed[i]);
    doc = json_pack("{s:s}", "name", id);
    if ((rc = apply_flags(a, id, doc, err)) != RD_OK) {
        json_decref(doc);
        return rc;
    }
    return store_type(ctx, id, doc, result, err);
}

static rd_code gpu_set_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *id = cmd_arg(a, 0);
    json_t *doc = NULL;
    rd_code rc = check_change(ctx, "set", id, err);
    if (rc == RD_OK)
        rc = read_type(ctx, id, 1, &doc, err);
    if (rc == RD_OK)
        rc = apply_flags(a, id, doc, err);
    if (rc != RD_OK) {
        json_decref(doc);
        return rc;
    }
    return store_type(ctx, id, doc, result, err);
}

/* The first node with the type (a removed node keeps its document, not the
 * type), or job not ended asking for it, into what. */
static rd_code type_in_use(cmd_ctx *ctx, const char *id, char *what, size_t len, rd_err *err)
{
    json_t *items = NULL, *it, *t;
    size_t i, k;
    rd_code rc = tx_list(ctx->tx, KEY_NODES, &items, err);
    what[0] = '\0';
    json_array_foreach(items, i, it)
        if (!what[0] && strcmp(doc_str(it, "state"), "removed") != 0 && doc_str(it, "gpu_type") &&
            strcmp(doc_str(it, "gpu_type"), id) == 0)
            snprintf(what, len, "node %s has it", doc_str(it, "name"));
    json_decref(items);
    items = NULL;
    if (rc == RD_OK && !what[0])
        rc = tx_list(ctx->tx, KEY_JOBS, &items, err);
    json_array_foreach(items, i, it) {
        if (what[0] || job_state_ended(doc_str(it, "state")))
            continue;
        json_array_foreach(json_object_get(json_object_get(it, "resources"), "gpu_types"), k, t)
            if (json_string_value(t) && strcmp(json_string_value(t), id) == 0) {
                snprintf(what, len, "job %s (%s) asks for it", doc_str(it, "name"), doc_str(it, "state"));
                break;
            }
    }
    json_decref(items);
    return rc;
}

static rd_code gpu_remove_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *id = cmd_arg(a, 0);
    char key[RD_KEY_MAX], what[200];
    json_t *doc = NULL;
    rd_code rc = check_change(ctx, "remove", id, err);
    if (rc == RD_OK)
        rc = read_type(ctx, id, 1, &doc, err);
    if (rc == RD_OK)
        rc = type_in_use(ctx, id, what, sizeof what, err);
    if (rc == RD_OK && what[0])
        rc = rd_fail(err, RD_EINVAL, "ID %s is in use and cannot be removed: %s", id, what);
    json_decref(doc);
    if (rc != RD_OK)
        return rc;
    *result = json_pack("{s:s, s:b}", "id", id, "removed", 1);
    return tx_delete(ctx->tx, tx_key(key, KEY_GPUS "%s", id), err);
}

#define GPU_FLAGS                                                                                        \
    { "nvidia-name", "NAME", CMD_FLAG_VALUE | CMD_FLAG_REPEAT, "a name nvidia-smi prints for it (repeatable)" }, \
    { "memory-gb", "N", CMD_FLAG_VALUE, "memory per GPU in GB" },                                              \
    { "fp32", "TFLOPS", CMD_FLAG_VALUE, "FP32 TFLOPS (one decimal at most)" },                                \
    { "fp16", "TFLOPS", CMD_FLAG_VALUE, "FP16 TFLOPS (one decimal at most)" },                                \
    { "class", "development|professional|datacenter", CMD_FLAG_VALUE, "fee class: 0.05, 0.10, 0.25 credits per GPU-hour" }, \
    { "form", "pcie|sxm", CMD_FLAG_VALUE, "form factor" },                                                     \
    { "gcp-accelerator", "TYPE", CMD_FLAG_VALUE, "GCE acceleratorType (with --gcp-quota, --gcp-cpus-per-gpu)" }, \
    { "gcp-quota", "METRIC", CMD_FLAG_VALUE, "GCP quota metric" },                                             \
    { "gcp-cpus-per-gpu", "N", CMD_FLAG_VALUE, "vCPUs per GPU on GCP" },                                       \
    { 0 }

static const cmd_flag gpu_flags[] = { GPU_FLAGS };

const cmd_def gpu_cmd_table[] = {
    { .words = "gpu list", .args = "", .help = "the GPU catalog: memory, TFLOPS, class, usage fee and nvidia-smi names",
      .columns = "id,memory_gb,fp32_tflops,fp16_tflops,class,usage_fee_ucr,builtin,nvidia_names", .run = gpu_list_cmd },
    { .words = "gpu add", .args = "ID", .flags = gpu_flags, .options = CMD_MUTATES,
      .help = "add a GPU type to the catalog (administering accounts)", .run = gpu_add_cmd,
      .access = CMD_ACCESS_ADMIN, .access_why = "may change the GPU catalog" },
    { .words = "gpu set", .args = "ID", .flags = gpu_flags, .options = CMD_MUTATES,
      .help = "change an added GPU type's figures or names", .run = gpu_set_cmd, .access = CMD_ACCESS_ADMIN,
      .access_why = "may change the GPU catalog" },
    { .words = "gpu remove", .args = "ID", .options = CMD_MUTATES,
      .help = "remove an added GPU type no node or unfinished job uses", .run = gpu_remove_cmd,
      .access = CMD_ACCESS_ADMIN, .access_why = "may change the GPU catalog" },
    { 0 }
};
