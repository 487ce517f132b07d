/* environment.c - built-in environments (environment.h): `environment
 * add/list/remove` for administering accounts, the defaults a new store
 * lists, and the match `job submit` makes for a job without an image.
 *
 * Seed 001: a built-in environment is chosen by Python version, framework
 * and framework version; Python 3.8 and 3.9 are the only ones a job may
 * ask for, so every default below ships one of them (docs/environments.md
 * cites where each image's tag and Python come from).
 */
#include "environment.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "doc.h"
#include "jobspec.h"
#include "keyspace.h"
#include "names.h"

static const char *const frameworks[] = { "deep_learning", "pytorch", "tensorflow", "mxnet", NULL };

/* ---- versions ---------------------------------------------------------------- */

int environment_version_cmp(const char *a, const char *b, int *prefix)
{
    if (prefix)
        *prefix = 0;
    for (;;) {
        unsigned long x, y;
        char *ea, *eb;
        if (!*a) {
            if (prefix)
                *prefix = 1;
            return *b ? -1 : 0;
        }
        if (!*b)
            return 1;
        x = strtoul(a, &ea, 10);
        y = strtoul(b, &eb, 10);
        if (ea == a || eb == b) {   /* not a number: the rest as text */
            int c = strcmp(a, b);
            return (c > 0) - (c < 0);
        }
        if (x != y)
            return x < y ? -1 : 1;
        a = *ea == '.' ? ea + 1 : ea;
        b = *eb == '.' ? eb + 1 : eb;
    }
}

/* "2", "1.13", "2.11.0": 1 to 3 numbers joined by '.'. */
static int version_shape(const char *s)
{
    int parts = 0;
    while (isdigit((unsigned char)*s)) {
        while (isdigit((unsigned char)*s))
            s++;
        parts++;
        if (*s != '.')
            break;
        s++;
    }
    return !*s && parts >= 1 && parts <= 3 && s[-1] != '.';
}

/* ---- the stored list ---------------------------------------------------------- */

/* Every environment, by name; on an older store not yet given its
 * defaults (no mark, none stored), the defaults it will get, so that the
 * list already shows what a job would run. */
static rd_code load_all(cmd_ctx *ctx, json_t **items, rd_err *err)
{
    json_t *meta = NULL;
    rd_code rc = tx_list(ctx->tx, KEY_ENVIRONMENTS, items, err);
    if (rc == RD_OK && json_array_size(*items) == 0)
        rc = tx_get(ctx->tx, KEY_META_STORE, &meta, err);
    if (rc == RD_OK && meta && !json_is_true(json_object_get(meta, ENVIRONMENT_SEEDED_MARK))) {
        json_t *d = environment_defaults(ctx->now);
        json_array_extend(*items, d);
        json_decref(d);
    }
    json_decref(meta);
    return rc;
}

/* ---- matching ----------------------------------------------------------------- */

/* 1 when env (an environment) serves framework fw, version ver (NULL: any)
 * and python py. */
static int serves(const json_t *env, const char *fw, const char *ver, const char *py)
{
    int prefix = 0;
    if (strcmp(doc_str(env, "framework"), fw) != 0)
        return 0;
    if (*doc_str(env, "python") && strcmp(doc_str(env, "python"), py) != 0)
        return 0;
    if (!ver)
        return 1;
    environment_version_cmp(ver, doc_str(env, "framework_version"), &prefix);
    return prefix;
}

/* 1 when a is a better match than b: its own Python over one without, then
 * the newer version, then the first name. */
static int better(const json_t *a, const json_t *b)
{
    int pa = *doc_str(a, "python") != 0, pb = *doc_str(b, "python") != 0, c;
    if (pa != pb)
        return pa > pb;
    c = environment_version_cmp(doc_str(a, "framework_version"), doc_str(b, "framework_version"), NULL);
    if (c)
        return c > 0;
    return strcmp(doc_str(a, "name"), doc_str(b, "name")) < 0;
}

/* The refusal: what exists for fw, or that nothing does. */
static rd_code no_match(const json_t *items, const char *fw, const char *ver, const char *py, rd_err *err)
{
    char have[400] = "";
    size_t i, at = 0;
    const json_t *e;
    json_array_foreach(items, i, e) {
        if (strcmp(doc_str(e, "framework"), fw) != 0 || at + 80 >= sizeof have)
            continue;
        at += (size_t)snprintf(have + at, sizeof have - at, "%s%s (%s%spython %s)", at ? ", " : "",
                               doc_str(e, "name"), doc_str(e, "framework_version"),
                               *doc_str(e, "framework_version") ? ", " : "",
                               *doc_str(e, "python") ? doc_str(e, "python") : "any");
    }
    if (!at)
        return rd_fail(err, RD_EINVAL, "environment: no environment runs framework %s (environment list shows "
                       "every framework and version there is)", fw);
    return rd_fail(err, RD_EINVAL, "environment: no environment runs framework %s%s%s with python %s; %s has %s",
                   fw, ver ? " " : "", ver ? ver : "", py, fw, have);
}

rd_code environment_resolve(cmd_ctx *ctx, json_t *job, rd_err *err)
{
    json_t *env = json_object_get(job, "environment"), *items = NULL;
    const json_t *e, *best = NULL;
    size_t i;
    if (!env)
        return RD_OK;
    if (*doc_str(env, "image"))   /* a customer image is the whole environment */
        return json_object_set_new(env, "base", json_null()) == 0 ? RD_OK : rd_fail(err, RD_ENOMEM, "out of memory");
    const char *fw = *doc_str(env, "framework") ? doc_str(env, "framework") : "deep_learning";
    const char *ver = *doc_str(env, "framework_version") ? doc_str(env, "framework_version") : NULL;
    const char *py = *doc_str(env, "python") ? doc_str(env, "python") : "3.9";
    rd_code rc = environment_upgrade(ctx->tx, ctx->now, err);
    if (rc == RD_OK)
        rc = load_all(ctx, &items, err);
    json_array_foreach(items, i, e)
        if (rc == RD_OK && serves(e, fw, ver, py) && (!best || better(e, best)))
            best = e;
    if (rc == RD_OK && !best)
        rc = no_match(items, fw, ver, py, err);
    if (rc == RD_OK) {
        json_t *base = json_pack("{s:s, s:s, s:s, s:o, s:o}", "name", doc_str(best, "name"), "image",
                                 doc_str(best, "image"), "framework", fw, "framework_version",
                                 json_deep_copy(json_object_get(best, "framework_version")), "python",
                                 json_deep_copy(json_object_get(best, "python")));
        if (!base || json_object_set_new(env, "base", base) != 0)
            rc = rd_fail(err, RD_ENOMEM, "out of memory");
    }
    json_decref(items);
    return rc;
}

/* ---- commands ----------------------------------------------------------------- */

static rd_code environment_list_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *items = NULL;
    (void)a;
    rd_code rc = load_all(ctx, &items, err);
    if (rc == RD_OK && !(*result = json_pack("{s:o}", "items", items)))
        return rd_fail(err, RD_ENOMEM, "out of memory");
    if (rc != RD_OK)
        json_decref(items);
    return rc;
}

static rd_code require_admin(cmd_ctx *ctx, const char *verb, rd_err *err)
{
    if (!access_actor_is_admin(ctx))
        return rd_fail(err, RD_EPERM, "environment %s: environments are changed by an administering account; "
                       "--as is '%s'", verb, ctx->actor);
    return RD_OK;
}

/* The flags of `environment add`, checked; *fw, *ver, *py point into a. */
static rd_code check_flags(const cmd_args *a, const char **fw, const char **ver, const char **py, rd_err *err)
{
    const char *const *f = frameworks;
    rd_code rc = jobspec_check_image("--image", cmd_opt(a, "image"), err);
    if (rc != RD_OK)
        return rc;
    *fw = cmd_opt(a, "framework") ? cmd_opt(a, "framework") : "deep_learning";
    for (; *f && strcmp(*f, *fw) != 0; f++)
        ;
    if (!*f)
        return rd_fail(err, RD_EINVAL, "--framework must be one of deep_learning, pytorch, tensorflow, mxnet, "
                       "got '%s'", *fw);
    *ver = cmd_opt(a, "framework-version");
    if (strcmp(*fw, "deep_learning") == 0 && *ver)
        return rd_fail(err, RD_EINVAL, "--framework-version does not apply to framework deep_learning (it has "
                       "the latest of each framework)");
    if (strcmp(*fw, "deep_learning") != 0 && !*ver)
        return rd_fail(err, RD_EINVAL, "--framework-version is required for framework %s (jobs pick the newest "
                       "by it)", *fw);
    if (*ver && (!version_shape(*ver) || strlen(*ver) > 32))
        return rd_fail(err, RD_EINVAL, "--framework-version must be a version such as 1.13 or 2.11.0, got '%s'",
                       *ver);
    *py = cmd_opt(a, "python");
    if (*py && strcmp(*py, "3.8") != 0 && strcmp(*py, "3.9") != 0)
        return rd_fail(err, RD_EINVAL, "--python must be 3.8 or 3.9 (the Python versions a job spec may ask "
                       "for), got '%s'", *py);
    return RD_OK;
}

static rd_code environment_add_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *name = cmd_arg(a, 0), *fw = NULL, *ver = NULL, *py = NULL;
    char key[RD_KEY_MAX], ts[RDTIME_BUFLEN];
    json_t *old = NULL, *items = NULL, *doc;
    const json_t *e;
    size_t i;
    rd_code rc = names_check("NAME", name, err);
    if (rc == RD_OK)
        rc = require_admin(ctx, "add", err);
    if (rc == RD_OK)
        rc = check_flags(a, &fw, &ver, &py, err);
    if (rc == RD_OK)
        rc = environment_upgrade(ctx->tx, ctx->now, err);
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, tx_key(key, KEY_ENVIRONMENTS "%s", name), &old, err);
    if (rc == RD_OK && old)
        rc = rd_fail(err, RD_EEXISTS, "NAME %s must be unique: it is already an environment (see environment list)",
                     name);
    if (rc == RD_OK)
        rc = load_all(ctx, &items, err);
    /* Two environments for one framework, version and Python would make a
     * job's match depend on their names. */
    json_array_foreach(items, i, e)
        if (rc == RD_OK && strcmp(doc_str(e, "framework"), fw) == 0 &&
            strcmp(doc_str(e, "framework_version"), ver ? ver : "") == 0 &&
            strcmp(doc_str(e, "python"), py ? py : "") == 0)
            rc = rd_fail(err, RD_EEXISTS, "environment %s runs framework %s%s%s with python %s already: one "
                         "environment per framework, version and Python", doc_str(e, "name"), fw, ver ? " " : "",
                         ver ? ver : "", py ? py : "(any)");
    json_decref(old);
    json_decref(items);
    if (rc != RD_OK)
        return rc;
    doc = json_pack("{s:s, s:s, s:s, s:s?, s:s?, s:b, s:s}", "name", name, "image", cmd_opt(a, "image"), "framework",
                    fw, "framework_version", ver, "python", py, "default", 0, "created_at",
                    rdtime_format(ctx->now, ts));
    if (!doc)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    *result = json_incref(doc);
    return tx_put(ctx->tx, key, doc, err);
}

static rd_code environment_remove_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *name = cmd_arg(a, 0);
    char key[RD_KEY_MAX];
    json_t *old = NULL;
    rd_code rc = names_check("NAME", name, err);
    if (rc == RD_OK)
        rc = require_admin(ctx, "remove", err);
    if (rc == RD_OK)
        rc = environment_upgrade(ctx->tx, ctx->now, err);
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, tx_key(key, KEY_ENVIRONMENTS "%s", name), &old, err);
    if (rc == RD_OK && !old)
        rc = rd_fail(err, RD_ENOTFOUND, "NAME %s is not an environment (see environment list)", name);
    json_decref(old);
    if (rc != RD_OK)
        return rc;
    /* Jobs keep the image they were given (environment.base): removing an
     * environment changes only what later submissions match. */
    if (!(*result = json_pack("{s:s, s:b}", "name", name, "removed", 1)))
        return rd_fail(err, RD_ENOMEM, "out of memory");
    return tx_delete(ctx->tx, key, err);
}

static const cmd_flag environment_add_flags[] = {
    { "image", "IMAGE", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED,
      "the image (Docker Hub, *.dkr.ecr.*.amazonaws.com, *.azurecr.io, *-docker.pkg.dev or nvcr.io)" },
    { "framework", "deep_learning|pytorch|tensorflow|mxnet", CMD_FLAG_VALUE, "its framework (default deep_learning)" },
    { "framework-version", "V", CMD_FLAG_VALUE, "the framework's version, e.g. 1.13.1 (not for deep_learning)" },
    { "python", "3.8|3.9", CMD_FLAG_VALUE, "the image's Python (default: any; a job asks for 3.8 or 3.9)" },
    { 0 }
};

const cmd_def environment_cmd_table[] = {
    { .words = "environment list", .args = "",
      .help = "the built-in environments jobs without an image run, by framework and Python",
      .columns = "name,framework,framework_version,python,image", .run = environment_list_cmd },
    { .words = "environment add", .args = "NAME", .flags = environment_add_flags, .options = CMD_MUTATES,
      .help = "add an environment: the image of a framework, version and Python (administering accounts)",
      .run = environment_add_cmd, .access = CMD_ACCESS_ADMIN, .access_why = "may change the environments" },
    { .words = "environment remove", .args = "NAME", .options = CMD_MUTATES,
      .help = "remove an environment (jobs already submitted keep their image)", .run = environment_remove_cmd,
      .access = CMD_ACCESS_ADMIN, .access_why = "may change the environments" },
    { 0 }
};
