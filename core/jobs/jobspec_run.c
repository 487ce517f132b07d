/* jobspec_run.c - what a job runs: the workers section (worker count and
 * commands) and the endpoint section (a start command, or routes served by
 * the built-in server with their request-body parameters).
 *
 * Seed 001: worker commands exist for training and inference jobs, and
 * only a training job may have more than one worker; commands are one for
 * all workers or one per worker.  Endpoint routes are POST only, unique by verb and path,
 * and a route's parameters are unique by name, an optional one needing a
 * default.
 */
#include "jobspec.h"
#include "jobspec_int.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#define COMMAND_MAX 4096
#define ROUTES_MAX 64
#define PARAMS_MAX 64
#define ROUTE_PATH_MAX 256
#define FILE_MAX 512
#define DEFAULT_MAX 1024

/* ---- workers ------------------------------------------------------------------ */

static rd_code commands(js_ctx *c, const json_t *v, json_t *workers)
{
    const char *path = "workers.commands";
    json_t *arr;
    size_t n;
    rd_code rc;

    if (!v)
        return js_fail(c->err, path, "is required for %s jobs: one command for all workers, or one per worker",
                       c->type);
    /* A single string is the one command every worker runs. */
    if (json_is_string(v))
        n = 1;
    else if ((rc = js_want_list(v, path, JOBSPEC_WORKERS_MAX, c->err)) != RD_OK)
        return rc;
    else
        n = json_array_size(v);
    if (n == 0)
        return js_fail(c->err, path, "must hold one command for all workers, or one per worker");
    if (n != 1 && (int64_t)n != c->workers)
        return js_fail(c->err, path, "must hold one command for all workers or exactly one per worker (%lld), got %zu",
                       (long long)c->workers, n);
    if (!(arr = json_array()) || json_object_set_new(workers, "commands", arr) != 0)
        return js_nomem(c->err);
    /* Stored one per worker, so whoever starts worker i reads commands[i]. */
    for (int64_t i = 0; i < c->workers; i++) {
        const json_t *cmd = json_is_string(v) ? v : json_array_get(v, n == 1 ? 0 : (size_t)i);
        char item[JS_PATH];
        const char *s;
        if (json_is_string(v))
            snprintf(item, sizeof item, "%s", path);
        else
            js_item(item, path, n == 1 ? 0 : (size_t)i);
        if ((rc = js_want_string(cmd, item, 1, COMMAND_MAX, 1, &s, c->err)) != RD_OK)
            return rc;
        if (strspn(s, " \t\n") == strlen(s))
            return js_fail(c->err, item, "must not be blank");
        if ((rc = js_push(arr, json_string(s), c->err)) != RD_OK)
            return rc;
    }
    return RD_OK;
}

rd_code js_workers(js_ctx *c, const json_t *v, json_t **out)
{
    static const char *const keys[] = { "count", "commands", NULL };
    int training = strcmp(c->type, "training") == 0, runs = training || strcmp(c->type, "inference") == 0;
    json_t *workers;
    int64_t count = 1;
    rd_code rc;

    *out = NULL;
    if (v && ((rc = js_want_object(v, "workers", c->err)) != RD_OK || (rc = js_keys(v, "workers", keys, c->err)) != RD_OK))
        return rc;
    if (v && js_get(v, "count")) {
        /* Other job types get the "must be 1" message below, not a range. */
        if ((rc = js_want_int(js_get(v, "count"), "workers.count", training ? 1 : INT64_MIN,
                              training ? JOBSPEC_WORKERS_MAX : INT64_MAX, NULL, &count, c->err)) != RD_OK)
            return rc;
        if (!training && count != 1)
            return js_fail(c->err, "workers.count", "must be 1 for %s jobs (only training jobs run several "
                                                    "workers), got %lld", c->type, (long long)count);
    }
    /* Seed 001 shows worker commands for training and inference jobs only:
     * a notebook is used interactively, an endpoint runs a server. */
    if (!runs && v && js_get(v, "commands"))
        return js_fail(c->err, "workers.commands", "is only for training and inference jobs, not %s jobs%s", c->type,
                       strcmp(c->type, "endpoint") == 0 ? " (use endpoint.start_command or endpoint.routes)" : "");
    c->workers = count;
    if (!(workers = json_pack("{s:I}", "count", (json_int_t)count)))
        return js_nomem(c->err);
    if (!runs)
        rc = js_put(workers, "commands", json_array(), c->err);
    else
        rc = commands(c, v ? js_get(v, "commands") : NULL, workers);
    if (rc != RD_OK) {
        json_decref(workers);
        return rc;
    }
    *out = workers;
    return RD_OK;
}

/* ---- endpoint ----------------------------------------------------------------- */

static int is_identifier(const char *s)
{
    static const char *const keywords[] = {
        "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def",
        "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is",
        "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield", NULL
    };
    if (!(isalpha((unsigned char)*s) || *s == '_'))
        return 0;
    for (const char *p = s; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_'))
            return 0;
    for (const char *const *k = keywords; *k; k++)
        if (strcmp(*k, s) == 0)
            return 0;
    return 1;
}

/* A Python identifier: the function's name, or the keyword argument a
 * request-body attribute is passed as. */
static rd_code identifier(rd_err *err, const json_t *v, const char *path, const char *what, const char **out)
{
    char rule[128];
    rd_code rc;

    if ((rc = js_want_string(v, path, 1, 128, 0, out, err)) != RD_OK)
        return rc;
    if (is_identifier(*out))
        return RD_OK;
    snprintf(rule, sizeof rule, "%s: a Python identifier (letters, digits and _, not a keyword)", what);
    return js_fail_got(err, path, v, rule);
}

/* "subdir1/subdir2/file.py": relative to the model code, Python only. */
static rd_code route_file(rd_err *err, const json_t *v, const char *path, const char **out)
{
    const char *s, *p;
    size_t n;
    rd_code rc;

    if ((rc = js_want_string(v, path, 1, FILE_MAX, 0, out, err)) != RD_OK)
        return rc;
    s = *out;
    n = strlen(s);
    if (n < 4 || strcmp(s + n - 3, ".py") != 0 || s[0] == '/' || strchr(s, '\\'))
        goto bad;
    for (p = s; *p;) {
        size_t seg = strcspn(p, "/");
        if (seg == 0 || (seg == 1 && p[0] == '.') || (seg == 2 && p[0] == '.' && p[1] == '.'))
            goto bad;
        p += seg;
        p += *p == '/';
    }
    return RD_OK;
bad:
    return js_fail_got(err, path, v, "a Python file (.py) relative to the model code's root, e.g. serve.py or "
                                     "subdir/serve.py");
}

static rd_code route_path(rd_err *err, const json_t *v, const char *path, const char **out)
{
    rd_code rc;
    if ((rc = js_want_string(v, path, 1, ROUTE_PATH_MAX, 0, out, err)) != RD_OK)
        return rc;
    /* { and } would make the route server's FastAPI read a path parameter
     * (/items/{id}): routes take their params from the JSON body only */
    if ((*out)[0] != '/' || strpbrk(*out, " ?#{}"))
        return js_fail_got(err, path, v, "a URL path starting with / (without spaces, ?, #, { or })");
    return RD_OK;
}

/* A default is Python source: the seed's own example is None rather than
 * null or undefined, so the JavaScript/JSON spellings are refused. */
static rd_code param_default(rd_err *err, const json_t *v, const char *path, json_t **out)
{
    static const char *const foreign[][2] = { { "null", "None" },   { "undefined", "None" }, { "nil", "None" },
                                              { "true", "True" },   { "false", "False" },    { NULL, NULL } };
    char text[32];
    const char *s;
    rd_code rc;

    if (json_is_integer(v)) {
        snprintf(text, sizeof text, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return (*out = json_string(text)) ? RD_OK : js_nomem(err);
    }
    if (!json_is_string(v))
        return js_fail_got(err, path, v, "Python source as a string, e.g. \"5\", \"None\" or \"'text'\"");
    if ((rc = js_want_string(v, path, 1, DEFAULT_MAX, 0, &s, err)) != RD_OK)
        return rc;
    for (size_t i = 0; foreign[i][0]; i++)
        if (strcmp(s, foreign[i][0]) == 0)
            return js_fail(err, path, "must be valid Python: write %s, not %s", foreign[i][1], s);
    return (*out = json_string(s)) ? RD_OK : js_nomem(err);
}

static rd_code param(rd_err *err, const json_t *v, const char *path, json_t **out)
{
    static const char *const keys[] = { "name", "type", "optional", "default", NULL };
    static const char *const types[] = { "string", "integer", "float", "boolean", "object", "list", NULL };
    char f[JS_PATH], lower[16];
    const char *name, *type;
    json_t *p, *dflt = NULL;
    int optional = 0;
    rd_code rc;

    *out = NULL;
    if ((rc = js_want_object(v, path, err)) != RD_OK || (rc = js_keys(v, path, keys, err)) != RD_OK)
        return rc;
    js_join(f, path, "name");
    if (!js_get(v, "name"))
        return js_fail(err, f, "is required: the attribute's name in the request body");
    if ((rc = identifier(err, js_get(v, "name"), f, "the keyword argument's name", &name)) != RD_OK)
        return rc;
    js_join(f, path, "type");
    if (!js_get(v, "type"))
        return js_fail(err, f, "is required: string, integer, float, boolean, object or list");
    /* The seed writes the types capitalised ("String"); either spelling. */
    type = json_string_value(js_get(v, "type"));
    if (type && strlen(type) < sizeof lower) {
        size_t i = 0;
        for (; type[i]; i++)
            lower[i] = (char)tolower((unsigned char)type[i]);
        lower[i] = '\0';
        for (const char *const *t = types; *t; t++)
            if (strcmp(*t, lower) == 0) {
                type = *t;
                goto type_ok;
            }
    }
    return js_fail_got(err, f, js_get(v, "type"), "one of string, integer, float, boolean, object, list");
type_ok:
    js_join(f, path, "optional");
    if (js_get(v, "optional") && (rc = js_want_bool(js_get(v, "optional"), f, &optional, err)) != RD_OK)
        return rc;
    js_join(f, path, "default");
    if (!optional && js_get(v, "default"))
        return js_fail(err, f, "is only for optional parameters (a required one always comes in the request)");
    if (optional && !js_get(v, "default"))
        return js_fail(err, f, "is required: an optional parameter needs a default value (Python, e.g. \"None\")");
    if (optional && (rc = param_default(err, js_get(v, "default"), f, &dflt)) != RD_OK)
        return rc;
    if (!(p = json_pack("{s:s, s:s, s:b, s:o}", "name", name, "type", type, "optional", optional, "default",
                        dflt ? dflt : json_null())))
        return js_nomem(err);
    *out = p;
    return RD_OK;
}

static rd_code route(rd_err *err, const json_t *v, const char *path, json_t **out)
{
    static const char *const keys[] = { "verb", "path", "file", "function", "positional", "params", NULL };
    char f[JS_PATH];
    const char *rpath, *file, *function, *verb;
    const json_t *params;
    json_t *r, *arr;
    int positional = 0;
    rd_code rc;

    *out = NULL;
    if ((rc = js_want_object(v, path, err)) != RD_OK || (rc = js_keys(v, path, keys, err)) != RD_OK)
        return rc;
    /* "Currently, only POST requests are supported"; so POST is also the
     * default when no verb is written. */
    js_join(f, path, "verb");
    if (js_get(v, "verb")) {
        if ((rc = js_want_string(js_get(v, "verb"), f, 1, 16, 0, &verb, err)) != RD_OK)
            return rc;
        if (strcasecmp(verb, "POST") != 0)
            return js_fail_got(err, f, js_get(v, "verb"), "POST (the only HTTP verb routes serve)");
    }
    js_join(f, path, "path");
    if (!js_get(v, "path"))
        return js_fail(err, f, "is required: the URL path the route answers, e.g. /predict");
    if ((rc = route_path(err, js_get(v, "path"), f, &rpath)) != RD_OK)
        return rc;
    js_join(f, path, "file");
    if (!js_get(v, "file"))
        return js_fail(err, f, "is required: the Python file with the route's function");
    if ((rc = route_file(err, js_get(v, "file"), f, &file)) != RD_OK)
        return rc;
    js_join(f, path, "function");
    if (!js_get(v, "function"))
        return js_fail(err, f, "is required: the Python function called for each request");
    if ((rc = identifier(err, js_get(v, "function"), f, "the function's name", &function)) != RD_OK)
        return rc;
    js_join(f, path, "positional");
    if (js_get(v, "positional") && (rc = js_want_bool(js_get(v, "positional"), f, &positional, err)) != RD_OK)
        return rc;
    js_join(f, path, "params");
    params = js_get(v, "params");
    if (params && (rc = js_want_list(params, f, PARAMS_MAX, err)) != RD_OK)
        return rc;
    if (!(r = json_pack("{s:s, s:s, s:s, s:s, s:b, s:[]}", "verb", "POST", "path", rpath, "file", file, "function",
                        function, "positional", positional, "params")))
        return js_nomem(err);
    arr = json_object_get(r, "params");
    for (size_t i = 0; i < json_array_size(params); i++) {
        char item[JS_PATH];
        json_t *p;
        js_item(item, f, i);
        if ((rc = param(err, json_array_get(params, i), item, &p)) != RD_OK)
            goto fail;
        for (size_t j = 0; j < i; j++)
            if (json_equal(json_object_get(p, "name"), json_object_get(json_array_get(arr, j), "name"))) {
                json_decref(p);
                rc = js_fail(err, item, "name is used twice (also %s[%zu]): no two parameters may share a name",
                             f, j);
                goto fail;
            }
        if ((rc = js_push(arr, p, err)) != RD_OK)
            goto fail;
    }
    *out = r;
    return RD_OK;
fail:
    json_decref(r);
    return rc;
}

rd_code js_endpoint(js_ctx *c, const json_t *v, json_t **out)
{
    static const char *const keys[] = { "start_command", "routes", NULL };
    const char *start = NULL;
    const json_t *routes;
    json_t *ep, *arr;
    rd_code rc;

    *out = NULL;
    /* Required for endpoint jobs, refused on any other: seed 001 shows the
     * section only for endpoints, and job-spec.md marks it "endpoint jobs
     * only".  Stored on another job it would describe routes nothing ever
     * serves, so a spec that carries it most likely has the wrong type. */
    if (strcmp(c->type, "endpoint") != 0) {
        if (v)
            return js_fail(c->err, "endpoint", "is only for endpoint jobs, not %s jobs (type: endpoint to serve routes)",
                           c->type);
        return (*out = json_null()) ? RD_OK : js_nomem(c->err);
    }
    if (v && ((rc = js_want_object(v, "endpoint", c->err)) != RD_OK ||
              (rc = js_keys(v, "endpoint", keys, c->err)) != RD_OK))
        return rc;
    routes = v ? js_get(v, "routes") : NULL;
    if (v && js_get(v, "start_command")) {
        /* "Manually Specify Server Command ... instead of configuring the
         * built-in server": the two are alternatives. */
        if (routes)
            return js_fail(c->err, "endpoint.routes", "cannot be used with endpoint.start_command: a server you "
                                                      "start yourself replaces the built-in server's routes");
        if ((rc = js_want_string(js_get(v, "start_command"), "endpoint.start_command", 1, COMMAND_MAX, 1, &start,
                                 c->err)) != RD_OK)
            return rc;
        return (*out = json_pack("{s:s, s:[]}", "start_command", start, "routes")) ? RD_OK : js_nomem(c->err);
    }
    if (!routes)
        return js_fail(c->err, "endpoint", "is required for endpoint jobs: endpoint.routes for the built-in "
                                           "server, or endpoint.start_command for your own (listening on $PORT)");
    if ((rc = js_want_list(routes, "endpoint.routes", ROUTES_MAX, c->err)) != RD_OK)
        return rc;
    if (json_array_size(routes) == 0)
        return js_fail(c->err, "endpoint.routes", "must hold at least one route");
    if (!(ep = json_pack("{s:n, s:[]}", "start_command", "routes")))
        return js_nomem(c->err);
    arr = json_object_get(ep, "routes");
    for (size_t i = 0; i < json_array_size(routes); i++) {
        char item[JS_PATH];
        json_t *r;
        js_item(item, "endpoint.routes", i);
        if ((rc = route(c->err, json_array_get(routes, i), item, &r)) != RD_OK)
            goto fail;
        /* "You cannot have two routes with the same verb and path." */
        for (size_t j = 0; j < i; j++) {
            json_t *o = json_array_get(arr, j);
            if (json_equal(json_object_get(o, "verb"), json_object_get(r, "verb")) &&
                json_equal(json_object_get(o, "path"), json_object_get(r, "path"))) {
                rc = js_fail(c->err, item, "repeats the verb and path of endpoint.routes[%zu]: no two routes may "
                             "have the same verb and path", j);
                json_decref(r);
                goto fail;
            }
        }
        if ((rc = js_push(arr, r, c->err)) != RD_OK)
            goto fail;
    }
    *out = ep;
    return RD_OK;
fail:
    json_decref(ep);
    return rc;
}
