/* jobspec_int.h - shared between the jobspec_*.c files only: the parse
 * context, the typed getters that produce path-naming messages, and the
 * section parsers.  Not part of the public API (see jobspec.h). */
#ifndef RD_JOBSPEC_INT_H
#define RD_JOBSPEC_INT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "err.h"

#define JS_PATH 160 /* longest field path: "endpoint.routes[99].params[99].optional" */

/* What one section needs to know about the others while it is parsed. */
typedef struct {
    rd_err *err;
    const char *type;  /* notebook | training | inference | endpoint */
    int cpu_only;      /* resources.gpu_types is [cpu] */
    int64_t workers;   /* workers.count (1 unless a training job says more) */
    int custom_image;  /* environment.image is given */
} js_ctx;

/* ---- paths and messages (jobspec.c) ---------------------------------------- */

/* "parent.key" (or "key" at the top) into buf[JS_PATH]. */
void js_join(char *buf, const char *parent, const char *key);
/* "parent[i]" into buf[JS_PATH]. */
void js_item(char *buf, const char *parent, size_t i);
/* What a refusal says of v: a number as it is, anything else by its kind
 * ("a string"), never the text of the spec, which may be any file
 * (yamljson_describe). */
const char *js_show(const json_t *v, char *buf, size_t len);
/* names_check's rule for a name at path, with a message that does not
 * quote it. */
rd_code js_check_name(const char *path, const char *s, rd_err *err);
/* RD_EINVAL "PATH RULE" (just RULE when path is ""). */
rd_code js_fail(rd_err *err, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* RD_EINVAL "PATH must be RULE, got VALUE". */
rd_code js_fail_got(rd_err *err, const char *path, const json_t *v, const char *rule);
/* RD_ENOMEM. */
rd_code js_nomem(rd_err *err);

/* ---- typed access ---------------------------------------------------------- */

/* The value of key in obj; NULL when absent or null (`key:` and `key: null`
 * both mean "not given"). */
const json_t *js_get(const json_t *obj, const char *key);
/* Refuses any key of obj not in allowed (NULL-terminated):
 * "environment.pyton: unknown key (allowed: ...)". */
rd_code js_keys(const json_t *obj, const char *path, const char *const *allowed, rd_err *err);
/* v must be a mapping. */
rd_code js_want_object(const json_t *v, const char *path, rd_err *err);
/* v must be a list of at most max items. */
rd_code js_want_list(const json_t *v, const char *path, size_t max, rd_err *err);
/* v must be a string of minlen..maxlen bytes without NUL or control
 * characters (multiline allows newlines and tabs). */
rd_code js_want_string(const json_t *v, const char *path, size_t minlen, size_t maxlen, int multiline,
                       const char **out, rd_err *err);
/* v must be true or false. */
rd_code js_want_bool(const json_t *v, const char *path, int *out, rd_err *err);
/* v must be a whole number in [min, max]; unit ("GB") goes in the range
 * message when non-NULL. */
rd_code js_want_int(const json_t *v, const char *path, int64_t min, int64_t max, const char *unit, int64_t *out,
                    rd_err *err);
/* The exact decimal text of a number or numeric string ("2.5" for the YAML
 * scalar 2.5, never "2.5000000000000000001"), so that money and GPU
 * fractions are read without floating point.  0 on success; -1 when v is
 * not a number or string, or has more digits than a YAML number keeps. */
int js_decimal_text(const json_t *v, char *buf, size_t len);
/* A friendly name (job, dataset, checkpoint, stored model): 1 to
 * JOBSPEC_NAME_MAX bytes, no control characters, '/' or '\', not "." or
 * "..", no space at either end.  It becomes a directory or file name. */
rd_code js_check_display_name(const json_t *v, const char *path, const char **out, rd_err *err);
/* A list of display names without duplicates, also after spaces become
 * underscores (two names may not share one mount directory). */
rd_code js_name_list(const json_t *v, const char *path, size_t max, json_t **out, rd_err *err);

/* Sets / appends, stealing val; RD_ENOMEM when val is NULL or on failure. */
rd_code js_put(json_t *obj, const char *key, json_t *val, rd_err *err);
rd_code js_push(json_t *arr, json_t *val, rd_err *err);
/* json_string(s), or json_null() when s is NULL. */
json_t *js_str_or_null(const char *s);

/* ---- sections -------------------------------------------------------------- */

rd_code js_resources(js_ctx *c, const json_t *v, json_t **out);                  /* jobspec.c */
rd_code js_data(js_ctx *c, const json_t *v, json_t **out);                       /* jobspec_data.c */
rd_code js_model(js_ctx *c, const json_t *v, json_t **out);                      /* jobspec_data.c */
rd_code js_workers(js_ctx *c, const json_t *v, json_t **out);                    /* jobspec_run.c */
rd_code js_endpoint(js_ctx *c, const json_t *v, json_t **out);                   /* jobspec_run.c */
rd_code js_environment(js_ctx *c, const json_t *v, json_t **out);                /* jobspec_env.c */
rd_code js_regional(js_ctx *c, const json_t *v, json_t **out);                   /* jobspec_env.c */

#endif
