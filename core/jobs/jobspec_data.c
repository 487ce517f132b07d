/* jobspec_data.c - the data and model sections of a job spec: datasets,
 * input and output storage, model code and checkpoints.
 *
 * Seed 001 gives each storage type the exact form its path must take, and
 * a different list of types for input, output and model code; the tables
 * here are those lists, the checks those forms.  Which job types may carry
 * datasets, input or output is also the seed's: persistent datasets are for
 * notebook and training jobs, a one-time input download for inference jobs
 * (and, as spec/job-spec.md shows, training jobs), result upload for
 * training and inference jobs.
 */
#include "jobspec.h"
#include "jobspec_int.h"
#include "urlcheck.h"

#include <stdlib.h>
#include <string.h>

#include "dspath.h"

#define LOCATION_MAX 2048
#define LIST_MAX 64 /* datasets or checkpoints on one job */

typedef enum { SLOT_INPUT, SLOT_OUTPUT, SLOT_MODEL } slot;

/* Storage types per slot, in the seed's order. */
static const char *const input_types[] = { "aws", "azure", "gcp", "local", "regional", "wasabi", "web", NULL };
static const char *const output_types[] = { "aws", "azure", "gcp", "local", "regional", "rigdeck", "wasabi", NULL };
static const char *const model_types[] = { "aws", "azure", "gcp", "git", "local", "rigdeck", "wasabi", "web", NULL };

static int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* s starts with one of the schemes and names something after it (a bucket,
 * a host): "s3://" alone points nowhere. */
static int url_with(const char *s, const char *const *schemes)
{
    for (; *schemes; schemes++)
        if (starts(s, *schemes))
            return s[strlen(*schemes)] != '\0' && s[strlen(*schemes)] != '/';
    return 0;
}

static int has_space(const char *s)
{
    return strpbrk(s, " \t\n\r") != NULL;
}

/* Local paths: "/" (absolute), "~/" (home directory) or "$" followed by a
 * variable name ("$HOME/data", "${DATA}/x").  "./x" and "x" are refused:
 * relative to what, on the operator's machine, is not knowable here. */
static int local_path(const char *s)
{
    if (s[0] == '/' || starts(s, "~/"))
        return 1;
    if (s[0] != '$')
        return 0;
    s += s[1] == '{' ? 2 : 1;
    return (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_';
}

/* "The HTTP(S) or SSH git clone url": https://, http://, ssh://, or the
 * scp-like form user@host:path that GitHub shows for SSH. */
static int git_url(const char *s)
{
    static const char *const schemes[] = { "https://", "http://", "ssh://", NULL };
    return url_with(s, schemes) || urlcheck_scp_like(s);
}

/* Checks location s of storage type type in slot; path names the field. */
static rd_code check_location(rd_err *err, slot where, const char *type, const json_t *v, const char *path)
{
    static const char *const s3[] = { "s3://", NULL }, *const https[] = { "https://", NULL },
                             *const gs[] = { "gs://", NULL },
                             *const web[] = { "http://", "https://", "ftp://", "ftps://", NULL };
    const char *s = json_string_value(v);
    char got[96];
    rd_code rc;

    if (strcmp(type, "regional") == 0) {
        /* A subdirectory of the datastore ("/" is all of it); the same
         * resolver the datastore uses refuses anything that could climb
         * above its root. */
        char *resolved = NULL;
        rd_err inner;
        if (s[0] != '/')
            return js_fail_got(err, path, v, "a path inside the datastore starting with / (/ is the whole datastore)");
        rc = dspath_resolve("/", s, &resolved, &inner);
        free(resolved);
        if (rc == RD_ENOMEM)
            return js_nomem(err);
        return rc == RD_OK ? RD_OK : js_fail(err, path, "is not usable: %s", inner.msg);
    }
    if (strcmp(type, "rigdeck") == 0) {
        if (where == SLOT_OUTPUT) {
            if (strcmp(s, "model") == 0 || strcmp(s, "dataset") == 0 || strcmp(s, "checkpoint") == 0)
                return RD_OK;
            return js_fail_got(err, path, v, "model, dataset or checkpoint for type rigdeck (what the results become)");
        }
        /* Model code from the built-in store: the stored model's name. */
        return js_check_display_name(v, path, &s, err);
    }
    if (strcmp(type, "local") != 0 && has_space(s))
        return js_fail_got(err, path, v, "a URL without spaces (percent-encode them)");
    if (strcmp(type, "aws") == 0 || strcmp(type, "wasabi") == 0) {
        if (!url_with(s, s3))
            return js_fail(err, path, "must begin with s3:// and a bucket for type %s, got %s", type,
                           js_show(v, got, sizeof got));
    } else if (strcmp(type, "azure") == 0) {
        if (!url_with(s, https))
            return js_fail(err, path, "must begin with https:// and the blob storage account for type azure, got %s",
                           js_show(v, got, sizeof got));
    } else if (strcmp(type, "gcp") == 0) {
        if (!url_with(s, gs))
            return js_fail(err, path, "must begin with gs:// and a bucket for type gcp, got %s",
                           js_show(v, got, sizeof got));
    } else if (strcmp(type, "web") == 0) {
        if (!url_with(s, web))
            return js_fail(err, path, "must begin with http://, https://, ftp:// or ftps:// for type web, got %s",
                           js_show(v, got, sizeof got));
    } else if (strcmp(type, "git") == 0) {
        if (!git_url(s))
            return js_fail(err, path,
                           "must be a git clone URL for type git: https://..., ssh://... or git@host:org/repo.git, "
                           "got %s", js_show(v, got, sizeof got));
    } else if (strcmp(type, "local") == 0) {
        if (!local_path(s))
            return js_fail(err, path,
                           "must begin with / (absolute), ~/ (home directory) or $ (an environment variable) for "
                           "type local; relative paths such as ./data are not supported, got %s",
                           js_show(v, got, sizeof got));
    }
    return RD_OK;
}

static rd_code check_type(rd_err *err, const char *const *allowed, const json_t *v, const char *path,
                          const char **out)
{
    char rule[160];
    size_t used = 0;
    rd_code rc;

    if ((rc = js_want_string(v, path, 1, 32, 0, out, err)) != RD_OK)
        return rc;
    for (const char *const *a = allowed; *a; a++)
        if (strcmp(*a, *out) == 0)
            return RD_OK;
    used += (size_t)snprintf(rule, sizeof rule, "one of ");
    for (const char *const *a = allowed; *a && used < sizeof rule; a++)
        used += (size_t)snprintf(rule + used, sizeof rule - used, "%s%s", a == allowed ? "" : ", ", *a);
    return js_fail_got(err, path, v, rule);
}

/* "Endpoint (Wasabi Only): The service URL of the Wasabi bucket". */
static rd_code wasabi_endpoint(rd_err *err, const char *type, const json_t *v, const char *parent, json_t *out)
{
    static const char *const http[] = { "https://", "http://", NULL };
    char path[JS_PATH];
    const char *s;
    rd_code rc;

    js_join(path, parent, "endpoint");
    if (strcmp(type, "wasabi") != 0) {
        if (v)
            return js_fail(err, path, "is only for type wasabi (the service URL of a Wasabi bucket)");
        return js_put(out, "endpoint", json_null(), err);
    }
    if (!v)
        return js_fail(err, path, "is required for type wasabi: the service URL of the bucket, e.g. "
                                  "https://s3.us-east-1.wasabisys.com");
    if ((rc = js_want_string(v, path, 1, LOCATION_MAX, 0, &s, err)) != RD_OK)
        return rc;
    if (has_space(s) || !url_with(s, http))
        return js_fail_got(err, path, v, "an http:// or https:// service URL");
    return js_put(out, "endpoint", json_string(s), err);
}

/* data.input or data.output: {type, path, endpoint}. */
static rd_code storage(js_ctx *c, slot where, const json_t *v, const char *parent, json_t **out)
{
    static const char *const keys[] = { "type", "path", "endpoint", NULL };
    char tpath[JS_PATH], ppath[JS_PATH];
    const char *type, *s;
    json_t *o;
    rd_code rc;

    *out = NULL;
    js_join(tpath, parent, "type");
    js_join(ppath, parent, "path");
    if ((rc = js_want_object(v, parent, c->err)) != RD_OK || (rc = js_keys(v, parent, keys, c->err)) != RD_OK)
        return rc;
    if (!js_get(v, "type"))
        return js_fail(c->err, tpath, "is required");
    if ((rc = check_type(c->err, where == SLOT_INPUT ? input_types : output_types, js_get(v, "type"), tpath,
                         &type)) != RD_OK)
        return rc;
    if (!js_get(v, "path"))
        return js_fail(c->err, ppath, "is required");
    if ((rc = js_want_string(js_get(v, "path"), ppath, 1, LOCATION_MAX, 0, &s, c->err)) != RD_OK ||
        (rc = check_location(c->err, where, type, js_get(v, "path"), ppath)) != RD_OK)
        return rc;
    if (!(o = json_pack("{s:s, s:s}", "type", type, "path", s)))
        return js_nomem(c->err);
    if ((rc = wasabi_endpoint(c->err, type, js_get(v, "endpoint"), parent, o)) != RD_OK) {
        json_decref(o);
        return rc;
    }
    *out = o;
    return RD_OK;
}

static int type_is(const js_ctx *c, const char *a, const char *b)
{
    return strcmp(c->type, a) == 0 || (b && strcmp(c->type, b) == 0);
}

rd_code js_data(js_ctx *c, const json_t *v, json_t **out)
{
    static const char *const keys[] = { "datasets", "input", "output", NULL };
    const json_t *datasets = NULL, *input = NULL, *output = NULL;
    json_t *data, *sec = NULL;
    rd_code rc;

    *out = NULL;
    if (v) {
        if ((rc = js_want_object(v, "data", c->err)) != RD_OK || (rc = js_keys(v, "data", keys, c->err)) != RD_OK)
            return rc;
        datasets = js_get(v, "datasets");
        input = js_get(v, "input");
        output = js_get(v, "output");
    }
    /* An empty list asks for nothing, so it is no breach of these. */
    if (datasets && !(json_is_array(datasets) && json_array_size(datasets) == 0) &&
        !type_is(c, "notebook", "training"))
        return js_fail(c->err, "data.datasets", "is only for notebook and training jobs, not %s jobs%s", c->type,
                       strcmp(c->type, "inference") == 0 ? " (an inference job downloads data.input instead)" : "");
    /* Seed 001 describes input data for inference jobs; spec/job-spec.md
     * shows it on a training job too.  Both run workers that read it. */
    if (input && !type_is(c, "training", "inference"))
        return js_fail(c->err, "data.input", "is only for training and inference jobs, not %s jobs%s", c->type,
                       type_is(c, "notebook", NULL) ? " (attach data.datasets instead)" : "");
    if (output && !type_is(c, "training", "inference"))
        return js_fail(c->err, "data.output", "is only for training and inference jobs, not %s jobs", c->type);
    /* A regional input is the datastore mounted read-only at the input
     * folder: the datasets' folders could not be made inside it. */
    if (input && json_is_object(input) && json_is_string(js_get(input, "type")) &&
        strcmp(json_string_value(js_get(input, "type")), "regional") == 0 && json_is_array(datasets) &&
        json_array_size(datasets) > 0)
        return js_fail(c->err, "data.datasets", "cannot go with a regional data.input: the datastore is mounted "
                                                "read-only at " JOBSPEC_INPUT_DIR "; read it there, or drop one");
    if (!(data = json_object()))
        return js_nomem(c->err);
    if ((rc = js_name_list(datasets, "data.datasets", LIST_MAX, &sec, c->err)) != RD_OK ||
        (rc = js_put(data, "datasets", sec, c->err)) != RD_OK)
        goto fail;
    sec = NULL;
    if (input && (rc = storage(c, SLOT_INPUT, input, "data.input", &sec)) != RD_OK)
        goto fail;
    if ((rc = js_put(data, "input", sec ? sec : json_null(), c->err)) != RD_OK)
        goto fail;
    sec = NULL;
    if (output && (rc = storage(c, SLOT_OUTPUT, output, "data.output", &sec)) != RD_OK)
        goto fail;
    if ((rc = js_put(data, "output", sec ? sec : json_null(), c->err)) != RD_OK)
        goto fail;
    *out = data;
    return RD_OK;
fail:
    json_decref(data);
    return rc;
}

rd_code js_model(js_ctx *c, const json_t *v, json_t **out)
{
    static const char *const keys[] = { "source", "location", "endpoint", "checkpoints", NULL };
    const json_t *source = NULL, *location = NULL, *checkpoints = NULL;
    const char *type = NULL, *s = NULL;
    json_t *model, *sec = NULL;
    rd_code rc;

    *out = NULL;
    if (v) {
        if ((rc = js_want_object(v, "model", c->err)) != RD_OK || (rc = js_keys(v, "model", keys, c->err)) != RD_OK)
            return rc;
        source = js_get(v, "source");
        location = js_get(v, "location");
        checkpoints = js_get(v, "checkpoints");
    }
    if (location && !source)
        return js_fail(c->err, "model.source", "is required with model.location: one of aws, azure, gcp, git, "
                                               "local, rigdeck, wasabi, web");
    if (source) {
        if ((rc = check_type(c->err, model_types, source, "model.source", &type)) != RD_OK)
            return rc;
        if (!location)
            return js_fail(c->err, "model.location", "is required with model.source: where the model code is");
        if ((rc = js_want_string(location, "model.location", 1, LOCATION_MAX, 0, &s, c->err)) != RD_OK ||
            (rc = check_location(c->err, SLOT_MODEL, type, location, "model.location")) != RD_OK)
            return rc;
    }
    if (!(model = json_pack("{s:o, s:o}", "source", js_str_or_null(type), "location", js_str_or_null(s))))
        return js_nomem(c->err);
    if (type)
        rc = wasabi_endpoint(c->err, type, js_get(v, "endpoint"), "model", model);
    else if (v && js_get(v, "endpoint"))
        rc = js_fail(c->err, "model.endpoint", "is only for model.source wasabi");
    else
        rc = js_put(model, "endpoint", json_null(), c->err);
    if (rc != RD_OK)
        goto fail;
    /* "All jobs allow you to attach checkpoints". */
    if ((rc = js_name_list(checkpoints, "model.checkpoints", LIST_MAX, &sec, c->err)) != RD_OK ||
        (rc = js_put(model, "checkpoints", sec, c->err)) != RD_OK)
        goto fail;
    *out = model;
    return RD_OK;
fail:
    json_decref(model);
    return rc;
}
