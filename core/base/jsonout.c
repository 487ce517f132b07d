/* jsonout.c - compact JSON text of a document, byte for byte what
 * json_dumps(doc, JSON_COMPACT) writes, in a fifth of its time.
 *
 * Why it exists: every document a transaction writes is encoded at commit,
 * and jansson's encoder (a callback per token, a UTF-8 check per
 * character) costs about four times what SQLite takes to store the result
 * (bench_sched, bench_ledger).  Strings inside a json_t are valid UTF-8
 * already (jansson checks them on the way in), so bytes are copied as they
 * are and only '"', '\\' and control characters are escaped, as jansson
 * does.  Keys come in the object's own order, as jansson's do.  Reals are
 * left to jansson (its formatting rules are its own): a document holding
 * one is answered NULL and the caller falls back to json_dumps.
 */
#include "jsonout.h"

#include <stdlib.h>
#include <string.h>

enum { DEPTH_MAX = 2048 };   /* jansson's own nesting limit for decoding */

typedef struct {
    char *buf;
    size_t len, cap;
    int failed;
} out_buf;

/* Makes room for more bytes; 0 when memory ran out (o->failed). */
static int out_grow(out_buf *o, size_t more)
{
    if (o->failed)
        return 0;
    size_t cap = o->cap ? o->cap : 256;
    while (cap < o->len + more)
        cap *= 2;
    char *p = realloc(o->buf, cap);
    if (!p) {
        o->failed = 1;
        return 0;
    }
    o->buf = p;
    o->cap = cap;
    return 1;
}

/* The common case, room already there, stays in the caller. */
static inline void out_put(out_buf *o, const char *s, size_t n)
{
    if (o->len + n > o->cap && !out_grow(o, n))
        return;
    memcpy(o->buf + o->len, s, n);
    o->len += n;
}

static inline void out_char(out_buf *o, char c)
{
    if (o->len + 1 > o->cap && !out_grow(o, 1))
        return;
    o->buf[o->len++] = c;
}

/* A JSON string: runs of plain bytes are copied whole. */
static void out_string(out_buf *o, const char *s, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";   /* jansson writes \u001F */
    out_char(o, '"');
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        out_put(o, s + run, i - run);
        run = i + 1;
        char esc[6] = { '\\', 0, 0, 0, 0, 0 };
        size_t elen = 2;
        switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        default:
            memcpy(esc + 1, "u00", 3);
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            elen = 6;
        }
        out_put(o, esc, elen);
    }
    out_put(o, s + run, n - run);
    out_char(o, '"');
}

/* Decimal digits of n (jansson prints "%lld"; snprintf costs more than
 * the rest of a small document). */
static void out_integer(out_buf *o, json_int_t n)
{
    char num[24], *p = num + sizeof num;
    unsigned long long u = n < 0 ? 0ULL - (unsigned long long)n : (unsigned long long)n;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (n < 0)
        *--p = '-';
    out_put(o, p, (size_t)(num + sizeof num - p));
}

/* 0 when the value holds a real (or nests too deep): the caller falls back. */
static int out_value(out_buf *o, const json_t *v, int depth)
{
    if (depth > DEPTH_MAX)
        return 0;
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        void *first = json_object_iter((json_t *)v);
        out_char(o, '{');
        for (void *it = first; it; it = json_object_iter_next((json_t *)v, it)) {
            if (it != first)
                out_char(o, ',');
            out_string(o, json_object_iter_key(it), json_object_iter_key_len(it));
            out_char(o, ':');
            if (!out_value(o, json_object_iter_value(it), depth + 1))
                return 0;
        }
        out_char(o, '}');
        return 1;
    }
    case JSON_ARRAY: {
        size_t n = json_array_size(v);
        out_char(o, '[');
        for (size_t i = 0; i < n; i++) {
            if (i)
                out_char(o, ',');
            if (!out_value(o, json_array_get(v, i), depth + 1))
                return 0;
        }
        out_char(o, ']');
        return 1;
    }
    case JSON_STRING:
        out_string(o, json_string_value(v), json_string_length(v));
        return 1;
    case JSON_INTEGER:
        out_integer(o, json_integer_value(v));
        return 1;
    case JSON_TRUE:
        out_put(o, "true", 4);
        return 1;
    case JSON_FALSE:
        out_put(o, "false", 5);
        return 1;
    case JSON_NULL:
        out_put(o, "null", 4);
        return 1;
    case JSON_REAL:
    default:
        return 0;
    }
}

char *jsonout_dumps(const json_t *doc, size_t *len)
{
    out_buf o = { 0 };
    if (!doc || !out_value(&o, doc, 0) || o.failed) {
        free(o.buf);
        return NULL;
    }
    out_char(&o, '\0');
    if (o.failed) {
        free(o.buf);
        return NULL;
    }
    if (len)
        *len = o.len - 1;
    return o.buf;
}

char *jsonout_dumps_any(const json_t *doc, size_t *len)
{
    char *s = jsonout_dumps(doc, len);
    if (s || !doc)
        return s;
    s = json_dumps(doc, JSON_COMPACT | JSON_ENCODE_ANY);
    if (s && len)
        *len = strlen(s);
    return s;
}
