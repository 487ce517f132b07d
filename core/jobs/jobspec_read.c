/* jobspec_read.c - the typed getters every section of a job spec reads its
 * values with, and their messages.
 *
 * Every getter names the full field path in its message, because an
 * operator reading "must be a whole number" needs to know which of forty
 * fields it was.
 */
#include "jobspec.h"
#include "jobspec_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "yamljson.h"

/* ---- paths and messages ------------------------------------------------------ */

void js_join(char *buf, const char *parent, const char *key)
{
    snprintf(buf, JS_PATH, "%s%s%s", parent, *parent ? "." : "", key);
}

void js_item(char *buf, const char *parent, size_t i)
{
    snprintf(buf, JS_PATH, "%s[%zu]", parent, i);
}

const char *js_show(const json_t *v, char *buf, size_t len)
{
    return yamljson_describe(v, buf, len);
}

rd_code js_fail(rd_err *err, const char *path, const char *fmt, ...)
{
    char rule[448];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rule, sizeof rule, fmt, ap);
    va_end(ap);
    if (!*path)
        return rd_fail(err, RD_EINVAL, "%s", rule);
    return rd_fail(err, RD_EINVAL, "%s %s", path, rule);
}

rd_code js_fail_got(rd_err *err, const char *path, const json_t *v, const char *rule)
{
    char got[96];
    return js_fail(err, path, "must be %s, got %s", rule, js_show(v, got, sizeof got));
}

rd_code js_check_name(const char *path, const char *s, rd_err *err)
{
    if (names_check(path, s, NULL) == RD_OK)
        return RD_OK;
    return js_fail(err, path, "must be 1-63 characters of a-z, 0-9, '-', '_' or '.', starting with a letter or digit");
}

rd_code js_nomem(rd_err *err)
{
    return rd_fail(err, RD_ENOMEM, "job spec: out of memory");
}

/* ---- typed access ------------------------------------------------------------ */

const json_t *js_get(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    return json_is_null(v) ? NULL : v;
}

rd_code js_keys(const json_t *obj, const char *path, const char *const *allowed, rd_err *err)
{
    const char *key;
    json_t *v;

    json_object_foreach((json_t *)obj, key, v) {
        const char *const *a;
        char list[200], shown[64];
        size_t used = 0;
        for (a = allowed; *a && strcmp(*a, key) != 0; a++)
            ;
        if (*a)
            continue;
        list[0] = '\0';
        for (a = allowed; *a && used < sizeof list; a++) {
            int w = snprintf(list + used, sizeof list - used, "%s%s", a == allowed ? "" : ", ", *a);
            used += w > 0 ? (size_t)w : 0;
        }
        yamljson_describe_key(key, shown, sizeof shown);
        if (strcmp(shown, key) != 0)   /* not quoted: it may be any file's text */
            return rd_fail(err, RD_EINVAL, "%s%sa key is not allowed here (allowed: %s)", path, *path ? ": " : "", list);
        return rd_fail(err, RD_EINVAL, "%s%s%s: unknown key (allowed: %s)", path, *path ? "." : "", key, list);
    }
    return RD_OK;
}

rd_code js_want_object(const json_t *v, const char *path, rd_err *err)
{
    return json_is_object(v) ? RD_OK : js_fail_got(err, path, v, "a mapping of keys");
}

rd_code js_want_list(const json_t *v, const char *path, size_t max, rd_err *err)
{
    if (!json_is_array(v))
        return js_fail_got(err, path, v, "a list ([a, b] or one '- item' per line)");
    if (json_array_size(v) > max)
        return js_fail(err, path, "must hold at most %zu items, got %zu", max, json_array_size(v));
    return RD_OK;
}

rd_code js_want_string(const json_t *v, const char *path, size_t minlen, size_t maxlen, int multiline,
                       const char **out, rd_err *err)
{
    const char *s;
    size_t n;

    if (!json_is_string(v))
        return js_fail_got(err, path, v, "a string");
    s = json_string_value(v);
    n = json_string_length(v);
    if (strlen(s) != n)
        return js_fail(err, path, "must not contain NUL characters");
    if (n < minlen)
        return js_fail(err, path, "must not be empty");
    if (n > maxlen)
        return js_fail(err, path, "must be at most %zu characters, got %zu", maxlen, n);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if ((*p < 0x20 && !(multiline && (*p == '\n' || *p == '\t'))) || *p == 0x7f)
            return js_fail(err, path, "must not contain control characters%s",
                           multiline ? " other than newlines and tabs" : "");
    *out = s;
    return RD_OK;
}

rd_code js_want_bool(const json_t *v, const char *path, int *out, rd_err *err)
{
    if (!json_is_boolean(v))
        return js_fail_got(err, path, v, "true or false");
    *out = json_is_true(v);
    return RD_OK;
}

rd_code js_want_int(const json_t *v, const char *path, int64_t min, int64_t max, const char *unit, int64_t *out,
                    rd_err *err)
{
    char got[96];
    if (!json_is_integer(v))
        return js_fail_got(err, path, v, "a whole number");
    if (json_integer_value(v) < min || json_integer_value(v) > max)
        return js_fail(err, path, "must be between %lld and %lld%s%s, got %s", (long long)min, (long long)max,
                       unit ? " " : "", unit ? unit : "", js_show(v, got, sizeof got));
    *out = json_integer_value(v);
    return RD_OK;
}

/* "1.5e-05" -> "0.000015": jansson prints small and large reals with an
 * exponent, which the exact decimal parsers of num.h do not read.  Pure
 * digit shuffling, no arithmetic on the value. */
static int expand_exponent(const char *s, char *buf, size_t len)
{
    const char *e = strpbrk(s, "eE"), *p = s;
    char digits[40], tmp[96];
    size_t nd = 0, used = 0;
    long point, exp;
    int intdigits = 0, dot = 0;

    if (!e) {
        if (strlen(s) >= len)
            return -1;
        memcpy(buf, s, strlen(s) + 1);
        return 0;
    }
    if (*p == '-' || *p == '+')
        tmp[used++] = *p++;
    for (; p < e; p++) {
        if (*p == '.') {
            dot = 1;
            continue;
        }
        if (*p < '0' || *p > '9' || nd >= sizeof digits)
            return -1;
        digits[nd++] = *p;
        intdigits += !dot;
    }
    exp = strtol(e + 1, NULL, 10);
    if (nd == 0 || exp > 30 || exp < -30)
        return -1;
    point = intdigits + exp;
    if (point <= 0) {
        tmp[used++] = '0';
        tmp[used++] = '.';
        for (long i = 0; i < -point; i++)
            tmp[used++] = '0';
        memcpy(tmp + used, digits, nd);
        used += nd;
    } else if ((size_t)point >= nd) {
        memcpy(tmp + used, digits, nd);
        used += nd;
        for (long i = 0; i < point - (long)nd; i++)
            tmp[used++] = '0';
    } else {
        memcpy(tmp + used, digits, (size_t)point);
        used += (size_t)point;
        tmp[used++] = '.';
        memcpy(tmp + used, digits + point, nd - (size_t)point);
        used += nd - (size_t)point;
    }
    if (used >= len)
        return -1;
    memcpy(buf, tmp, used);
    buf[used] = '\0';
    return 0;
}

int js_decimal_text(const json_t *v, char *buf, size_t len)
{
    char *dump;
    json_t *back;
    int exact;

    if (json_is_string(v)) {
        if (json_string_length(v) >= len || strlen(json_string_value(v)) != json_string_length(v))
            return -1;
        memcpy(buf, json_string_value(v), json_string_length(v) + 1);
        return 0;
    }
    if (json_is_integer(v)) {
        snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return 0;
    }
    if (!json_is_real(v))
        return -1;
    /* 15 significant digits give back exactly the decimal a person typed
     * (any decimal of up to 15 digits survives the trip through a double);
     * the round trip below refuses the rare longer literal instead of
     * guessing which decimal it was. */
    if (!(dump = json_dumps(v, JSON_ENCODE_ANY | JSON_REAL_PRECISION(15))))
        return -1;
    back = json_loads(dump, JSON_DECODE_ANY, NULL);
    exact = back && json_equal(back, (json_t *)v);
    json_decref(back);
    if (!exact || expand_exponent(dump, buf, len) != 0) {
        free(dump);
        return -1;
    }
    free(dump);
    return 0;
}

rd_code js_check_display_name(const json_t *v, const char *path, const char **out, rd_err *err)
{
    const char *s;
    rd_code rc;
    size_t n;

    if ((rc = js_want_string(v, path, 1, JOBSPEC_NAME_MAX, 0, &s, err)) != RD_OK)
        return rc;
    n = strlen(s);
    if (strpbrk(s, "/\\") || strcmp(s, ".") == 0 || strcmp(s, "..") == 0 || s[0] == ' ' || s[n - 1] == ' ')
        return js_fail_got(err, path, v,
                           "a name without '/' or '\\', not \".\" or \"..\", and without spaces at either end "
                           "(it becomes a directory or file name)");
    *out = s;
    return RD_OK;
}

rd_code js_name_list(const json_t *v, const char *path, size_t max, json_t **out, rd_err *err)
{
    json_t *arr;
    rd_code rc;

    *out = NULL;
    if (!v)
        return (*out = json_array()) ? RD_OK : js_nomem(err);
    if ((rc = js_want_list(v, path, max, err)) != RD_OK)
        return rc;
    if (!(arr = json_array()))
        return js_nomem(err);
    for (size_t i = 0; i < json_array_size(v); i++) {
        char item[JS_PATH], dir[JOBSPEC_NAME_MAX + 1], other[JOBSPEC_NAME_MAX + 1];
        const char *s;
        if ((rc = js_check_display_name(json_array_get(v, i), (js_item(item, path, i), item), &s, err)) != RD_OK)
            goto fail;
        jobspec_dir_name(s, dir, sizeof dir);
        for (size_t j = 0; j < i; j++) {
            const char *t = json_string_value(json_array_get(v, j));
            if (strcmp(s, t) == 0) {
                rc = js_fail(err, item, "is listed twice (also %s[%zu])", path, j);
                goto fail;
            }
            if (strcmp(dir, jobspec_dir_name(t, other, sizeof other)) == 0) {
                rc = js_fail(err, item, "would share its directory with %s[%zu]: names must differ "
                             "after spaces become underscores", path, j);
                goto fail;
            }
        }
        if ((rc = js_push(arr, json_string(s), err)) != RD_OK)
            goto fail;
    }
    *out = arr;
    return RD_OK;
fail:
    json_decref(arr);
    return rc;
}

rd_code js_put(json_t *obj, const char *key, json_t *val, rd_err *err)
{
    if (!val || json_object_set_new(obj, key, val) != 0)
        return js_nomem(err);
    return RD_OK;
}

rd_code js_push(json_t *arr, json_t *val, rd_err *err)
{
    if (!val || json_array_append_new(arr, val) != 0)
        return js_nomem(err);
    return RD_OK;
}

json_t *js_str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

char *jobspec_dir_name(const char *name, char *buf, size_t len)
{
    size_t i = 0;
    if (len == 0)
        return buf;
    for (; name[i] && i + 1 < len; i++)
        buf[i] = name[i] == ' ' ? '_' : name[i];
    buf[i] = '\0';
    return buf;
}
