/* jobspec_env.c - where a job runs: the environment section (built-in
 * Python/framework environment or a customer image, packages, environment
 * variables, third-party keys) and the regional section (the datastore and
 * port reservation that pin a job to one region).
 *
 * Seed 001: only Python 3.8 and 3.9 environments exist; the frameworks are
 * Deep Learning (everything at its latest version, so no version to pick),
 * PyTorch, Tensorflow and MXNet; a customer image replaces the built-in
 * environment and must come from one of five registries; packages must not
 * be used to change a major framework's version.  Existence and region of
 * the datastore and reservation are the scheduler's to check.
 */
#include "jobspec.h"
#include "jobspec_int.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "names.h"

#define IMAGE_MAX 255
#define PACKAGES_MAX 256
#define PACKAGE_LEN_MAX 256
#define ENV_MAX 256
#define ENV_NAME_MAX 128
#define ENV_VALUE_MAX 8192
#define KEYS_MAX 32

#define DEFAULT_PYTHON "3.9"
#define DEFAULT_FRAMEWORK "deep_learning"

/* ---- customer images ------------------------------------------------------------ */

static int ends(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* The five registries of seed 001: Docker Hub, AWS Elastic Container
 * Registry, Azure Container Registry, Google Artifact Registry, NVIDIA NGC. */
static int known_registry(const char *host, size_t n)
{
    static const char *const exact[] = { "docker.io", "index.docker.io", "registry-1.docker.io", "nvcr.io", NULL };
    for (const char *const *e = exact; *e; e++)
        if (strlen(*e) == n && memcmp(host, *e, n) == 0)
            return 1;
    if (ends(host, n, ".azurecr.io") || ends(host, n, "-docker.pkg.dev"))
        return 1;
    /* ACCOUNT.dkr.ecr.REGION.amazonaws.com */
    return ends(host, n, ".amazonaws.com") && memmem(host, n, ".dkr.ecr.", 9) != NULL;
}

/* One repository path component: [a-z0-9]+ joined by '.', '_' or '-'. */
static int repo_component(const char *s, size_t n)
{
    if (n == 0 || !isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || strchr("._-", s[i])))
            return 0;
    return 1;
}

/* [REGISTRY/]REPO[/REPO...][:TAG][@sha256:HEX] */
static rd_code image(rd_err *err, const json_t *v, const char *path, const char **out)
{
    const char *s, *name_end, *at, *p, *last_slash, *colon;
    char got[96];
    rd_code rc;

    if ((rc = js_want_string(v, path, 1, IMAGE_MAX, 0, out, err)) != RD_OK)
        return rc;
    s = *out;
    if (strpbrk(s, " \t"))
        goto bad;
    if ((at = strchr(s, '@'))) {
        if (strncmp(at + 1, "sha256:", 7) != 0 || strlen(at + 8) != 64 || strspn(at + 8, "0123456789abcdef") != 64)
            goto bad;
    }
    name_end = at ? at : s + strlen(s);
    last_slash = NULL;
    for (p = s; p < name_end; p++)
        if (*p == '/')
            last_slash = p;
    colon = memchr(last_slash ? last_slash : s, ':', (size_t)(name_end - (last_slash ? last_slash : s)));
    if (colon) {
        size_t tn = (size_t)(name_end - colon - 1);
        if (tn == 0 || tn > 128 || colon[1] == '.' || colon[1] == '-')
            goto bad;
        for (p = colon + 1; p < name_end; p++)
            if (!(isalnum((unsigned char)*p) || strchr("_.-", *p)))
                goto bad;
        name_end = colon;
    }
    p = s;
    if (last_slash) {
        size_t hn = strcspn(s, "/");
        /* The first component names a registry when it looks like a host. */
        if (memchr(s, '.', hn) || memchr(s, ':', hn) || (hn == 9 && memcmp(s, "localhost", 9) == 0)) {
            if (!known_registry(s, hn))
                return js_fail(err, path, "must come from Docker Hub, AWS ECR (*.dkr.ecr.*.amazonaws.com), Azure "
                                          "(*.azurecr.io), Google Artifact Registry (*-docker.pkg.dev) or NVIDIA "
                                          "NGC (nvcr.io), got %s", js_show(v, got, sizeof got));
            p = s + hn + 1;
        }
    }
    while (p < name_end) {
        size_t cn = strcspn(p, "/");
        if (p + cn > name_end)
            cn = (size_t)(name_end - p);
        if (!repo_component(p, cn))
            goto bad;
        p += cn;
        if (p < name_end && ++p == name_end)
            goto bad;
    }
    if (p == s)
        goto bad;
    return RD_OK;
bad:
    return js_fail_got(err, path, v, "a full image name such as pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime or "
                                     "nvcr.io/nvidia/pytorch:23.10-py3 (lower-case repository, optional :tag or "
                                     "@sha256:digest)");
}

rd_code jobspec_check_image(const char *field, const char *text, rd_err *err)
{
    const char *out;
    json_t *v = json_string(text ? text : "");
    rd_code rc = v ? image(err, v, field, &out) : js_nomem(err);
    json_decref(v);
    /* a flag's value is the operator's own: say which, not "a string" */
    size_t n = err ? strlen(err->msg) : 0, k = strlen(", got a string");
    if (rc == RD_EINVAL && n >= k && strcmp(err->msg + n - k, ", got a string") == 0)
        snprintf(err->msg + n - k + 6, sizeof err->msg - (n - k + 6), "'%.80s'", text ? text : "");
    return rc;
}

/* ---- packages ----------------------------------------------------------------------- */

/* Package specs are handed to installers in the worker (runner_packages.c),
 * so only the shapes seed 001 describes pass: never an option ("-r file",
 * "--index-url"), a URL, a path or a shell character.  Each returns 1 when
 * s has its installer's shape. */
static int span(const char *s, const char *set)
{
    size_t n = 0;
    while (s[n] && (isalnum((unsigned char)s[n]) || strchr(set, s[n])))
        n++;
    return (int)n;
}

/* pip: NAME[EXTRA,...] then comparisons joined by ',' (PEP 440 operators). */
static int pip_spec(const char *s)
{
    static const char *const ops[] = { "===", "==", ">=", "<=", "!=", "~=", ">", "<", NULL };
    int n = span(s, "._-");
    if (n == 0 || !isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
        return 0;
    s += n;
    if (*s == '[') {
        do {
            s++;
            n = span(s, "._-");
            if (n == 0)
                return 0;
            s += n;
        } while (*s == ',');
        if (*s++ != ']')
            return 0;
    }
    while (*s) {
        const char *const *op = ops;
        for (; *op && strncmp(s, *op, strlen(*op)) != 0; op++)
            ;
        if (!*op)
            return 0;
        s += strlen(*op);
        if ((n = span(s, ".*+!_-")) == 0)
            return 0;
        s += n;
        if (*s == ',' && s[1])
            s++;
        else if (*s)
            return 0;
    }
    return 1;
}

/* apt: NAME[=VERSION] (Debian: a lower-case name of 2+ characters). */
static int apt_spec(const char *s)
{
    int n = 0;
    while (s[n] && ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= '0' && s[n] <= '9') || strchr("+.-", s[n])))
        n++;
    if (n < 2 || !isalnum((unsigned char)s[0]))
        return 0;
    s += n;
    if (!*s)
        return 1;
    return *s == '=' && (n = span(s + 1, ".+~:_-")) > 0 && !s[1 + n];
}

/* conda: NAME[=VERSION[=BUILD]] or NAME followed by one comparison. */
static int conda_spec(const char *s)
{
    static const char *const ops[] = { "==", ">=", "<=", "!=", "=", ">", "<", NULL };
    int n = span(s, "._-");
    if (n == 0 || !isalnum((unsigned char)s[0]))
        return 0;
    s += n;
    if (!*s)
        return 1;
    const char *const *op = ops;
    for (; *op && strncmp(s, *op, strlen(*op)) != 0; op++)
        ;
    if (!*op)
        return 0;
    s += strlen(*op);
    if ((n = span(s, ".*+_-")) == 0)
        return 0;
    s += n;
    if (*s == '=' && (n = span(s + 1, "._-")) > 0)
        s += 1 + n;
    return *s == '\0';
}

/* The package a pip/conda spec installs: "Torch==1.12" -> "torch",
 * "tensorflow_gpu>=2" -> "tensorflow-gpu" (names compare like PyPI's). */
static void package_name(const char *spec, char *buf, size_t len)
{
    size_t i = 0;
    for (; spec[i] && !strchr("=<>!~[;@ ", spec[i]) && i + 1 < len; i++)
        buf[i] = spec[i] == '_' ? '-' : (char)tolower((unsigned char)spec[i]);
    buf[i] = '\0';
}

static const char *major_framework(const char *name)
{
    static const char *const names[][2] = { { "torch", "pytorch" },          { "pytorch", "pytorch" },
                                            { "tensorflow", "tensorflow" },  { "tensorflow-gpu", "tensorflow" },
                                            { "tensorflow-cpu", "tensorflow" }, { "mxnet", "mxnet" },
                                            { NULL, NULL } };
    for (size_t i = 0; names[i][0]; i++)
        if (strcmp(name, names[i][0]) == 0)
            return names[i][1];
    return strncmp(name, "mxnet-cu", 8) == 0 ? "mxnet" : NULL;
}

static rd_code packages(js_ctx *c, const json_t *v, json_t **out)
{
    static const char *const keys[] = { "apt", "conda", "pip", NULL };
    json_t *pk;
    rd_code rc;

    *out = NULL;
    if (v && ((rc = js_want_object(v, "environment.packages", c->err)) != RD_OK ||
              (rc = js_keys(v, "environment.packages", keys, c->err)) != RD_OK))
        return rc;
    if (!(pk = json_object()))
        return js_nomem(c->err);
    for (const char *const *k = keys; *k; k++) {
        const json_t *list = v ? js_get(v, *k) : NULL;
        char path[JS_PATH];
        json_t *arr;
        js_join(path, "environment.packages", *k);
        if (list && (rc = js_want_list(list, path, PACKAGES_MAX, c->err)) != RD_OK)
            goto fail;
        if ((rc = js_put(pk, *k, arr = json_array(), c->err)) != RD_OK)
            goto fail;
        for (size_t i = 0; i < json_array_size(list); i++) {
            char item[JS_PATH], name[64];
            const json_t *e = json_array_get(list, i);
            const char *s, *fw;
            js_item(item, path, i);
            if ((rc = js_want_string(e, item, 1, PACKAGE_LEN_MAX, 0, &s, c->err)) != RD_OK)
                goto fail;
            /* "Each package should be added on its own line." */
            if (strpbrk(s, " \t")) {
                rc = js_fail_got(c->err, item, e, "one package (name or name=version) without spaces");
                goto fail;
            }
            if (strcmp(*k, "pip") == 0 ? !pip_spec(s) : strcmp(*k, "apt") == 0 ? !apt_spec(s) : !conda_spec(s)) {
                rc = js_fail_got(c->err, item, e,
                                 strcmp(*k, "pip") == 0 ? "a pip requirement: NAME, NAME[EXTRA] or NAME==VERSION "
                                                          "(letters, digits, . _ -; operators == >= <= != ~= > <), "
                                                          "no option, URL or path" :
                                 strcmp(*k, "apt") == 0 ? "an apt package: NAME or NAME=VERSION (a lower-case name "
                                                          "of a-z, 0-9, + . -), no option or path" :
                                                          "a conda package: NAME, NAME=VERSION or NAME=VERSION=BUILD, "
                                                          "no option, channel URL or path");
                goto fail;
            }
            package_name(s, name, sizeof name);
            if (strcmp(*k, "apt") != 0 && !c->custom_image && (fw = major_framework(name))) {
                rc = js_fail(c->err, item, "would change the %s framework: choose environment.framework and "
                             "environment.framework_version instead of installing it as a package", fw);
                goto fail;
            }
            if ((rc = js_push(arr, json_string(s), c->err)) != RD_OK)
                goto fail;
        }
    }
    *out = pk;
    return RD_OK;
fail:
    json_decref(pk);
    return rc;
}

/* ---- environment variables and keys ------------------------------------------------- */

static int env_name(const char *s)
{
    if (!(isalpha((unsigned char)*s) || *s == '_'))
        return 0;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return 0;
    return 1;
}

static rd_code env_vars(js_ctx *c, const json_t *v, json_t **out)
{
    const char *key;
    json_t *val, *env;
    rd_code rc;

    *out = NULL;
    if (v && (rc = js_want_object(v, "environment.env", c->err)) != RD_OK)
        return rc;
    if (v && json_object_size(v) > ENV_MAX)
        return js_fail(c->err, "environment.env", "must hold at most %d variables, got %zu", ENV_MAX,
                       json_object_size(v));
    if (!(env = json_object()))
        return js_nomem(c->err);
    json_object_foreach((json_t *)v, key, val) {
        char path[JS_PATH];
        const char *s;
        /* an invalid name is not quoted: only a valid one names the field */
        int valid = strlen(key) <= ENV_NAME_MAX && env_name(key);
        snprintf(path, sizeof path, "environment.env%s%s", valid ? "." : ": a key", valid ? key : "");
        if (!valid) {
            rc = js_fail(c->err, path, "is not a valid variable name: letters, digits and _, not starting with a "
                                       "digit, at most %d characters", ENV_NAME_MAX);
            goto fail;
        }
        /* rigdeck sets these itself in every worker (system_env). */
        if (strncmp(key, "RIGDECK_", 8) == 0 || strcmp(key, JOBSPEC_ENV_OUTPUT) == 0) {
            rc = js_fail(c->err, path, "is set by rigdeck in every worker and cannot be overridden");
            goto fail;
        }
        /* A YAML plain scalar is not what was typed once it is a number or
         * a boolean (007 is 7, True is true): values must be quoted.  The
         * message names the kind, not the value: values may be secrets. */
        if (!json_is_string(val)) {
            rc = js_fail(c->err, path, "must be a string (quote numbers and booleans, e.g. \"8080\"), got %s",
                         json_is_number(val) ? "a number" : json_is_boolean(val) ? "a boolean" :
                         json_is_null(val) ? "nothing (write \"\" for an empty value)" :
                         json_is_array(val) ? "a list" : "a mapping");
            goto fail;
        }
        if ((rc = js_want_string(val, path, 0, ENV_VALUE_MAX, 1, &s, c->err)) != RD_OK ||
            (rc = js_put(env, key, json_string(s), c->err)) != RD_OK)
            goto fail;
    }
    *out = env;
    return RD_OK;
fail:
    json_decref(env);
    return rc;
}

static rd_code keys_list(js_ctx *c, const json_t *v, json_t **out)
{
    json_t *arr;
    rd_code rc;

    *out = NULL;
    if (v && (rc = js_want_list(v, "environment.keys", KEYS_MAX, c->err)) != RD_OK)
        return rc;
    if (!(arr = json_array()))
        return js_nomem(c->err);
    for (size_t i = 0; i < json_array_size(v); i++) {
        char item[JS_PATH];
        const char *s;
        js_item(item, "environment.keys", i);
        if ((rc = js_want_string(json_array_get(v, i), item, 1, NAMES_MAX, 0, &s, c->err)) != RD_OK ||
            (rc = js_check_name(item, s, c->err)) != RD_OK)
            goto fail;
        for (size_t j = 0; j < i; j++)
            if (strcmp(s, json_string_value(json_array_get(arr, j))) == 0) {
                rc = js_fail(c->err, item, "is listed twice (also environment.keys[%zu])", j);
                goto fail;
            }
        if ((rc = js_push(arr, json_string(s), c->err)) != RD_OK)
            goto fail;
    }
    *out = arr;
    return RD_OK;
fail:
    json_decref(arr);
    return rc;
}

/* ---- the base environment ------------------------------------------------------------ */

/* "3.8" or "3.9", quoted or not (an unquoted 3.9 is a YAML number). */
static rd_code python(rd_err *err, const json_t *v, const char **out)
{
    char text[16];
    *out = DEFAULT_PYTHON;
    if (!v)
        return RD_OK;
    if ((json_is_string(v) || json_is_real(v)) && js_decimal_text(v, text, sizeof text) == 0) {
        if (strcmp(text, "3.8") == 0)
            return (*out = "3.8"), RD_OK;
        if (strcmp(text, "3.9") == 0)
            return (*out = "3.9"), RD_OK;
    }
    return js_fail_got(err, "environment.python", v, "\"3.8\" or \"3.9\" (the only Python environments)");
}

static rd_code framework(rd_err *err, const json_t *v, const json_t *ver, const char **fw, const char **version)
{
    static const char *const names[] = { "deep_learning", "pytorch", "tensorflow", "mxnet", NULL };
    const char *s;
    rd_code rc;

    *fw = DEFAULT_FRAMEWORK;
    *version = NULL;
    if (v) {
        s = NULL;
        for (const char *const *n = names; json_is_string(v) && *n && !s; n++)
            if (strcmp(json_string_value(v), *n) == 0)
                s = *n;
        if (!s)
            return js_fail_got(err, "environment.framework", v, "one of deep_learning, pytorch, tensorflow, mxnet");
        *fw = s;
    }
    if (!ver)
        return RD_OK;
    if (strcmp(*fw, "deep_learning") == 0)
        return js_fail(err, "environment.framework_version",
                       "does not apply to framework deep_learning (it installs the latest version of each "
                       "framework); choose pytorch, tensorflow or mxnet to pin a version");
    /* Unquoted, 1.10 would be read as the number 1.1. */
    if (!json_is_string(ver))
        return js_fail_got(err, "environment.framework_version", ver, "a quoted version such as \"1.13\"");
    if ((rc = js_want_string(ver, "environment.framework_version", 1, 32, 0, &s, err)) != RD_OK)
        return rc;
    {
        int parts = 0;
        const char *p = s;
        while (isdigit((unsigned char)*p)) {
            while (isdigit((unsigned char)*p))
                p++;
            parts++;
            if (*p != '.')
                break;
            p++;
        }
        if (*p || parts < 2 || parts > 3 || p[-1] == '.')
            return js_fail_got(err, "environment.framework_version", ver, "a version such as \"1.13\" or \"2.11.0\"");
    }
    *version = s;
    return RD_OK;
}

rd_code js_environment(js_ctx *c, const json_t *v, json_t **out)
{
    static const char *const keys[] = { "python", "framework", "framework_version", "image", "packages", "env",
                                        "keys", NULL };
    const char *img = NULL, *py = NULL, *fw = NULL, *ver = NULL;
    json_t *env, *sec;
    rd_code rc;

    *out = NULL;
    if (v && ((rc = js_want_object(v, "environment", c->err)) != RD_OK ||
              (rc = js_keys(v, "environment", keys, c->err)) != RD_OK))
        return rc;
    if (v && js_get(v, "image")) {
        if ((rc = image(c->err, js_get(v, "image"), "environment.image", &img)) != RD_OK)
            return rc;
        c->custom_image = 1;
        /* A customer image is the whole environment, Python included. */
        for (const char *const *k = keys; k < keys + 3; k++)
            if (js_get(v, *k))
                return js_fail(c->err, "environment", "has both image and %s: a customer image replaces the "
                                                      "built-in environment (python, framework, framework_version)",
                               *k);
    } else if ((rc = python(c->err, v ? js_get(v, "python") : NULL, &py)) != RD_OK ||
               (rc = framework(c->err, v ? js_get(v, "framework") : NULL, v ? js_get(v, "framework_version") : NULL,
                               &fw, &ver)) != RD_OK)
        return rc;
    if (!(env = json_pack("{s:o, s:o, s:o, s:o}", "python", js_str_or_null(py), "framework", js_str_or_null(fw),
                          "framework_version", js_str_or_null(ver), "image", js_str_or_null(img))))
        return js_nomem(c->err);
    if ((rc = packages(c, v ? js_get(v, "packages") : NULL, &sec)) != RD_OK ||
        (rc = js_put(env, "packages", sec, c->err)) != RD_OK ||
        (rc = env_vars(c, v ? js_get(v, "env") : NULL, &sec)) != RD_OK ||
        (rc = js_put(env, "env", sec, c->err)) != RD_OK ||
        (rc = keys_list(c, v ? js_get(v, "keys") : NULL, &sec)) != RD_OK ||
        (rc = js_put(env, "keys", sec, c->err)) != RD_OK) {
        json_decref(env);
        return rc;
    }
    *out = env;
    return RD_OK;
}

/* ---- regional ---------------------------------------------------------------------- */

rd_code js_regional(js_ctx *c, const json_t *v, json_t **out)
{
    static const char *const keys[] = { "datastore", "reservation", NULL };
    const char *ds = NULL, *res = NULL;
    rd_code rc;

    *out = NULL;
    if (v) {
        if ((rc = js_want_object(v, "regional", c->err)) != RD_OK ||
            (rc = js_keys(v, "regional", keys, c->err)) != RD_OK)
            return rc;
        if (js_get(v, "datastore") &&
            ((rc = js_want_string(js_get(v, "datastore"), "regional.datastore", 1, NAMES_MAX, 0, &ds, c->err)) !=
                 RD_OK ||
             (rc = js_check_name("regional.datastore", ds, c->err)) != RD_OK))
            return rc;
        /* Any job type: seed 000 lets "jobs" host services on a reserved
         * port, and spec/job-spec.md shows one on a training job. */
        if (js_get(v, "reservation") &&
            ((rc = js_want_string(js_get(v, "reservation"), "regional.reservation", 1, NAMES_MAX, 0, &res,
                                  c->err)) != RD_OK ||
             (rc = js_check_name("regional.reservation", res, c->err)) != RD_OK))
            return rc;
    }
    *out = json_pack("{s:o, s:o}", "datastore", js_str_or_null(ds), "reservation", js_str_or_null(res));
    return *out ? RD_OK : js_nomem(c->err);
}
