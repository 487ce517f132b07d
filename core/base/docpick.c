/* docpick.c - picking top-level fields out of a JSON document's text (see
 * docpick.h).
 *
 * The skipping is jsonscan.c's (lexical, the rules listed there); a picked one
 * is decoded by jansson (or, for the common short scalars, the same way by
 * hand), so what the caller sees is what jansson would give.
 */
#include "docpick.h"
#include "jsonscan.h"

#include <stdlib.h>
#include <string.h>

enum { DOCPICK_MAX_SUBS = 16 };

/* A scalar in the forms that need no jansson: true, false, null, a plain
 * string, a short integer; NULL for anything else. */
static json_t *decode_simple(const char *v, size_t n)
{
    if (n == 4 && memcmp(v, "true", 4) == 0)
        return json_true();
    if (n == 5 && memcmp(v, "false", 5) == 0)
        return json_false();
    if (n == 4 && memcmp(v, "null", 4) == 0)
        return json_null();
    if (n >= 2 && v[0] == '"' && !memchr(v + 1, '\\', n - 2))
        return json_stringn(v + 1, n - 2);   /* checks UTF-8 as the decoder does */
    size_t i = v[0] == '-';
    if (n > i && n - i <= 18 && !(v[i] == '0' && n - i > 1)) {
        long long x = 0;
        for (; i < n && v[i] >= '0' && v[i] <= '9'; i++)
            x = x * 10 + (v[i] - '0');
        if (i == n)
            return json_integer(v[0] == '-' ? -x : x);
    }
    return NULL;
}

static json_t *decode_value(const char *v, size_t n)
{
    json_t *value = decode_simple(v, n);
    if (!value) {
        json_error_t jerr;
        value = json_loadb(v, n, JSON_DECODE_ANY, &jerr);
    }
    return value;
}

/* How a member is wanted: 0 not, 1 whole (its name is listed), 2 in part
 * (only "name.sub" entries are: the subs are put in subs[0..*nsubs)). */
static int wanted(const char *name, size_t len, const char *const *names, size_t n, const char **subs, size_t *nsubs)
{
    int how = 0;
    *nsubs = 0;
    for (size_t i = 0; i < n; i++) {
        /* the first byte first: most members are wanted by no name */
        if (names[i][0] != name[0] || strncmp(names[i], name, len) != 0)
            continue;
        if (names[i][len] == '\0')
            return 1;
        if (names[i][len] == '.' && *nsubs < DOCPICK_MAX_SUBS) {
            subs[(*nsubs)++] = names[i] + len + 1;
            how = 2;
        }
    }
    return how;
}

static json_t *pick_text(const char *text, size_t len, const char *const *names, size_t n, int depth);

/* A member wanted in part: of an object, the subs; of an array, the subs
 * of each object in it (other elements whole); anything else whole. */
static json_t *decode_part(const char *v, size_t n, const char *const *subs, size_t nsubs, int depth)
{
    if (depth > 1)
        return NULL;   /* "a.b" is one level; deeper is not asked for */
    if (*v == '{')
        return pick_text(v, n, subs, nsubs, depth + 1);
    if (*v != '[')
        return decode_value(v, n);
    json_t *out = json_array();
    const char *p = jsonscan_ws(v + 1, v + n), *end = v + n;
    if (p < end && *p == ']')
        return out;
    while (out) {
        const char *e = jsonscan_ws(p, end), *after = jsonscan_value(e, end);
        json_t *elem = !after ? NULL : *e == '{' ? pick_text(e, (size_t)(after - e), subs, nsubs, depth + 1)
                                                 : decode_value(e, (size_t)(after - e));
        if (!elem || json_array_append_new(out, elem) != 0)
            break;
        p = jsonscan_ws(after, end);
        if (p < end && *p == ',') {
            p++;
            continue;
        }
        if (p < end && *p == ']')
            return out;
        break;
    }
    json_decref(out);
    return NULL;
}

static json_t *pick_text(const char *text, size_t len, const char *const *names, size_t n, int depth)
{
    const char *p = text, *end = text + len;
    json_t *out = json_object();
    int plain;
    if (!out)
        return NULL;
    p = jsonscan_ws(p, end);
    if (p >= end || *p++ != '{')
        goto bad;
    p = jsonscan_ws(p, end);
    if (p < end && *p == '}') {
        p++;
        goto done;
    }
    for (;;) {
        p = jsonscan_ws(p, end);
        if (p >= end || *p != '"')
            goto bad;
        const char *name = p + 1, *after = jsonscan_string(p, end, &plain);
        if (!after || !plain)
            goto bad;   /* an escaped name: the caller decodes it all */
        size_t name_len = (size_t)(after - 1 - name);
        p = jsonscan_ws(after, end);
        if (p >= end || *p++ != ':')
            goto bad;
        p = jsonscan_ws(p, end);
        const char *v = p;
        if (!(p = jsonscan_value(p, end)))
            goto bad;
        const char *subs[DOCPICK_MAX_SUBS];
        size_t nsubs;
        int how = wanted(name, name_len, names, n, subs, &nsubs);
        if (how) {
            char key[128];
            json_t *value = name_len >= sizeof key ? NULL
                            : how == 1            ? decode_value(v, (size_t)(p - v))
                                                  : decode_part(v, (size_t)(p - v), subs, nsubs, depth);
            if (!value)
                goto bad;
            memcpy(key, name, name_len);
            key[name_len] = '\0';
            if (json_object_set_new_nocheck(out, key, value) != 0)
                goto bad;
        }
        p = jsonscan_ws(p, end);
        if (p < end && *p == ',') {
            p++;
            continue;
        }
        if (p < end && *p == '}') {
            p++;
            break;
        }
        goto bad;
    }
done:
    if (jsonscan_ws(p, end) != end)
        goto bad;
    return out;
bad:
    json_decref(out);
    return NULL;
}

json_t *docpick_fields(const char *text, size_t len, const char *const *names, size_t n)
{
    return pick_text(text, len, names, n, 1);
}

static json_t *copy_object(const json_t *obj, const char *const *names, size_t n, int depth);

/* The jansson twin of decode_part. */
static json_t *copy_part(const json_t *v, const char *const *subs, size_t nsubs, int depth)
{
    if (json_is_object(v))
        return copy_object(v, subs, nsubs, depth + 1);
    if (!json_is_array(v))
        return json_incref((json_t *)v);
    json_t *out = json_array(), *e;
    size_t i;
    json_array_foreach(v, i, e)
        json_array_append_new(out, json_is_object(e) ? copy_object(e, subs, nsubs, depth + 1) : json_incref(e));
    return out;
}

static json_t *copy_object(const json_t *obj, const char *const *names, size_t n, int depth)
{
    json_t *out = json_object(), *v;
    const char *k;
    json_object_foreach((json_t *)obj, k, v) {
        const char *subs[DOCPICK_MAX_SUBS];
        size_t nsubs;
        int how = wanted(k, strlen(k), names, n, subs, &nsubs);
        if (how == 1)
            json_object_set(out, k, v);
        else if (how == 2 && depth <= 1)
            json_object_set_new(out, k, copy_part(v, subs, nsubs, depth));
    }
    return out;
}

json_t *docpick_copy(const json_t *doc, const char *const *names, size_t n)
{
    return copy_object(doc, names, n, 1);
}
