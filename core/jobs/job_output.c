/* job_output.c - a worker's output after its command (execution.md §5,
 * "After the command"; docs/operations.md, "Data"): where its archive
 * goes, the `uploading` phase its agent reports while it uploads, and the
 * dataset, model or checkpoint an output of type rigdeck becomes.
 *
 * The agent zips and uploads (core/agent/agent_upload.c); the store keeps
 * the books.  Everything recorded here is computed from the job as
 * `job submit` froze it (data.output, data_refs.output): an agent can say
 * only *that* a worker uploads or has uploaded, never where to or what, so
 * a node's owner cannot register an object pointing anywhere else for the
 * job's creator.  Both reports go through `job report`, so they carry its
 * fences: only the node the worker is placed on (its agent, via the relay
 * on a secured store: access.c) or staff, and only for a running worker.
 */
#include "job_output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "job.h"
#include "keyspace.h"
#include "num.h"

static size_t worker_count(const json_t *job)
{
    size_t n = json_array_size(json_object_get(job, "workers"));
    if (n)
        return n;
    /* the agent's work view carries the spec, not the workers */
    json_int_t c = json_integer_value(json_object_get(json_object_get(job, "workers_spec"), "count"));
    return c > 0 ? (size_t)c : 1;
}

/* The object name: the job's own, "_<w>" after it for several workers. */
static void object_name(const json_t *job, size_t w, char *out, size_t len)
{
    if (worker_count(job) > 1)
        snprintf(out, len, "%s_%zu", doc_str(job, "name"), w);
    else
        snprintf(out, len, "%s", doc_str(job, "name"));
}

void job_output_zip_name(const json_t *job, size_t w, char *out, size_t len)
{
    const char *name = *doc_str(job, "env_job_name") ? doc_str(job, "env_job_name") : doc_str(job, "name");
    if (worker_count(job) > 1)
        snprintf(out, len, "%s_%zu.zip", name, w);
    else
        snprintf(out, len, "%s.zip", name);
}

char *job_output_url(const json_t *job, size_t w)
{
    const json_t *out = json_object_get(json_object_get(job, "data"), "output");
    const char *type = doc_str(out, "type"), *base = doc_str(out, "path"), *id = "";
    char zip[300], *url = NULL;
    if (!*type || strcmp(type, "regional") == 0 || strcmp(type, "local") == 0)
        return NULL;   /* mounted in place, or not an upload (agent_upload.c says why) */
    if (strcmp(type, "rigdeck") == 0) {
        base = doc_str(json_object_get(json_object_get(job, "data_refs"), "output"), "source");
        id = doc_str(job, "id");
        if (!*base)
            return NULL;
    }
    job_output_zip_name(job, w, zip, sizeof zip);
    size_t blen = strlen(base);
    int slash = blen && base[blen - 1] == '/';
    if (asprintf(&url, "%s%s%s%s%s", base, slash ? "" : "/", id, *id ? "/" : "", zip) < 0)
        return NULL;
    return url;
}

rd_code job_output_uploading(cmd_ctx *ctx, const cmd_args *a, json_t *job, int64_t w, json_t **result, rd_err *err)
{
    json_t *worker = json_array_get(json_object_get(job, "workers"), (size_t)w);
    const char *cur = doc_str(worker, "state");
    int64_t bytes = -1;
    rd_code rc = RD_OK;
    if (strcmp(cur, "running") != 0 && strcmp(cur, "stopping") != 0)
        rc = rd_fail(err, RD_EINVAL, "job report: worker %lld of job '%s' is %s, not running; it cannot be uploading",
                     (long long)w, doc_str(job, "id"), cur);
    else if (!json_is_object(json_object_get(json_object_get(job, "data"), "output")))
        rc = rd_fail(err, RD_EINVAL, "job report: job '%s' has no data.output; it uploads nothing", doc_str(job, "id"));
    if (rc == RD_OK && cmd_opt(a, "bytes"))
        rc = num_parse_int("--bytes", cmd_opt(a, "bytes"), 0, INT64_MAX, &bytes, err);
    if (rc == RD_OK) {
        json_object_set_new(worker, "phase", json_string("uploading"));
        json_object_set_new(worker, "phase_bytes", bytes >= 0 ? json_integer((json_int_t)bytes) : json_null());
        *result = json_incref(job);
        return job_put(ctx, job, err);   /* takes job */
    }
    json_decref(job);
    return rc;
}

rd_code job_output_register(cmd_ctx *ctx, json_t *job, size_t w, rd_err *err)
{
    const json_t *out = json_object_get(json_object_get(job, "data"), "output");
    const json_t *ref = json_object_get(json_object_get(job, "data_refs"), "output");
    const char *kind = doc_str(out, "path"), *owner = doc_str(ref, "owner");
    const char *prefix = strcmp(kind, "dataset") == 0 ? KEY_DATASETS : strcmp(kind, "model") == 0 ? KEY_MODELS :
                         strcmp(kind, "checkpoint") == 0 ? KEY_CHECKPOINTS : NULL;
    char name[300], key[RD_KEY_MAX], ts[RDTIME_BUFLEN];
    char *url = job_output_url(job, w);
    json_t *doc = NULL;
    rd_code rc = RD_OK;
    if (strcmp(doc_str(out, "type"), "rigdeck") != 0 || !prefix || !*owner || !url)
        rc = rd_fail(err, RD_EINVAL, "job report: --register is for a job whose data.output has type rigdeck; job "
                     "'%s' has none", doc_str(job, "id"));
    object_name(job, w, name, sizeof name);
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, tx_key(key, "%s%s/%s", prefix, owner, name), &doc, err);
    /* the same archive said twice (an agent restarted after the word) is
     * the same object */
    if (rc == RD_OK && doc && strcmp(doc_str(doc, "source"), url) != 0)
        rc = rd_fail(err, RD_EEXISTS, "%s '%s' of account '%s' exists already; the results stay at %s", kind, name,
                     owner, url);
    if (rc == RD_OK && !doc) {
        doc = json_pack("{s:s, s:s, s:s, s:s, s:O, s:O, s:O, s:O, s:s, s:s}", "name", name, "owner", owner, "kind",
                        kind, "source", url, "source_type", json_object_get(ref, "source_type"), "key",
                        json_object_get(ref, "key") ? json_object_get(ref, "key") : json_null(), "key_type",
                        json_object_get(ref, "key_type") ? json_object_get(ref, "key_type") : json_null(),
                        "endpoint", json_object_get(ref, "endpoint") ? json_object_get(ref, "endpoint") : json_null(),
                        "created_at", rdtime_format(ctx->now, ts), "job", doc_str(job, "id"));
        rc = doc ? tx_put(ctx->tx, key, doc, err) : rd_fail(err, RD_ENOMEM, "out of memory");   /* takes doc */
        doc = NULL;
        if (rc == RD_OK) {
            json_t *worker = json_array_get(json_object_get(job, "workers"), w);
            json_object_set_new(worker, "output_object", json_pack("{s:s, s:s}", "kind", kind, "name", name));
        }
    }
    json_decref(doc);
    free(url);
    return rc;
}
