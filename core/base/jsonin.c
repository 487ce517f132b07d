/* jsonin.c - documents read back from the store, decoded in a third of
 * jansson's time, to exactly the values json_loadb(text, len, 0) gives.
 *
 * Why it exists: every read through a transaction, every list and every
 * scheduling pass decodes stored documents, and jansson's decoder (a lexer
 * that copies every token, a UTF-8 check per byte) costs more than SQLite
 * takes to find and hand over the bytes.  Stored documents are what
 * jsonout.c wrote: compact ASCII with few escapes.  This decoder takes
 * exactly that common case and gives up, without a word, on anything else:
 * a byte above 0x7f, a \u escape, a number with a fraction or an exponent,
 * a number that does not fit json_int_t, nesting deeper than jansson
 * allows, or anything jansson would refuse.  jsonin_loadb_any then asks
 * jansson, so every value, order, duplicate-key rule and error message is
 * jansson's own.
 */
#include "jsonin.h"
#include "jsonscan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { DEPTH_MAX = 2048 };   /* jansson's JSON_PARSER_MAX_DEPTH */

typedef struct {
    const char *p, *end;
    char *scratch;            /* unescaped string bytes */
    size_t scratch_cap;
} parser;

static void skip_space(parser *ps)
{
    ps->p = jsonscan_ws(ps->p, ps->end);
}

/* The bytes of a string whose opening quote was consumed: *s points into
 * the text when it holds no escape, else into ps->scratch.  0: give up. */
static int read_string(parser *ps, const char **s, size_t *n)
{
    const char *start = ps->p;
    while (ps->p < ps->end && *ps->p != '"' && *ps->p != '\\') {
        unsigned char c = (unsigned char)*ps->p;
        if (c < 0x20 || c > 0x7e)
            return 0;
        ps->p++;
    }
    if (ps->p >= ps->end)
        return 0;
    if (*ps->p == '"') {
        *s = start;
        *n = (size_t)(ps->p - start);
        ps->p++;
        return 1;
    }
    size_t len = 0, need = (size_t)(ps->end - start);
    if (need > ps->scratch_cap) {
        char *b = realloc(ps->scratch, need);
        if (!b)
            return 0;
        ps->scratch = b;
        ps->scratch_cap = need;
    }
    for (ps->p = start; ps->p < ps->end && *ps->p != '"'; ps->p++) {
        unsigned char c = (unsigned char)*ps->p;
        if (c < 0x20 || c > 0x7e)
            return 0;
        if (c != '\\') {
            ps->scratch[len++] = (char)c;
            continue;
        }
        if (++ps->p >= ps->end)
            return 0;
        switch (*ps->p) {
        case '"': ps->scratch[len++] = '"'; break;
        case '\\': ps->scratch[len++] = '\\'; break;
        case '/': ps->scratch[len++] = '/'; break;
        case 'b': ps->scratch[len++] = '\b'; break;
        case 'f': ps->scratch[len++] = '\f'; break;
        case 'n': ps->scratch[len++] = '\n'; break;
        case 'r': ps->scratch[len++] = '\r'; break;
        case 't': ps->scratch[len++] = '\t'; break;
        default: return 0;   /* \u and anything else: jansson's */
        }
    }
    if (ps->p >= ps->end)
        return 0;
    ps->p++;
    *s = ps->scratch;
    *n = len;
    return 1;
}

/* An integer in JSON's grammar; NULL for a real, a bad number or one
 * json_int_t cannot hold. */
static json_t *read_integer(parser *ps)
{
    int neg = 0;
    uint64_t v = 0;
    const char *digits;
    if (*ps->p == '-') {
        neg = 1;
        ps->p++;
    }
    digits = ps->p;
    while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
        unsigned d = (unsigned)(*ps->p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return NULL;
        v = v * 10 + d;
        ps->p++;
    }
    size_t ndigits = (size_t)(ps->p - digits);
    if (ndigits == 0 || (ndigits > 1 && *digits == '0'))
        return NULL;
    if (ps->p < ps->end && (*ps->p == '.' || *ps->p == 'e' || *ps->p == 'E'))
        return NULL;
    if (neg ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX)
        return NULL;
    return json_integer(neg ? (json_int_t)(0 - v) : (json_int_t)v);
}

static int literal(parser *ps, const char *word, size_t n)
{
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
        return 0;
    ps->p += n;
    return 1;
}

static json_t *read_value(parser *ps, int depth);

static json_t *read_object(parser *ps, int depth)
{
    json_t *obj = json_object();
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == '}') {
        ps->p++;
        return obj;
    }
    while (obj) {
        const char *key;
        size_t klen;
        skip_space(ps);
        if (ps->p >= ps->end || *ps->p != '"')
            break;
        ps->p++;
        if (!read_string(ps, &key, &klen))
            break;
        /* the key may sit in the scratch buffer, which the value reuses */
        char small[128], *copy = klen < sizeof small ? small : malloc(klen + 1);
        if (!copy)
            break;
        memcpy(copy, key, klen);
        skip_space(ps);
        json_t *v = NULL;
        if (ps->p < ps->end && *ps->p == ':') {
            ps->p++;
            v = read_value(ps, depth + 1);
        }
        int ok = v && json_object_setn_new_nocheck(obj, copy, klen, v) == 0;
        if (copy != small)
            free(copy);
        if (!ok)
            break;
        skip_space(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == '}') {
            ps->p++;
            return obj;
        }
        break;
    }
    json_decref(obj);
    return NULL;
}

static json_t *read_array(parser *ps, int depth)
{
    json_t *arr = json_array();
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == ']') {
        ps->p++;
        return arr;
    }
    while (arr) {
        json_t *v = read_value(ps, depth + 1);
        if (!v || json_array_append_new(arr, v) != 0)
            break;
        skip_space(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == ']') {
            ps->p++;
            return arr;
        }
        break;
    }
    json_decref(arr);
    return NULL;
}

static json_t *read_value(parser *ps, int depth)
{
    const char *s;
    size_t n;
    if (depth > DEPTH_MAX)
        return NULL;
    skip_space(ps);
    if (ps->p >= ps->end)
        return NULL;
    switch (*ps->p) {
    case '{':
        ps->p++;
        return read_object(ps, depth);
    case '[':
        ps->p++;
        return read_array(ps, depth);
    case '"':
        ps->p++;
        return read_string(ps, &s, &n) ? json_stringn_nocheck(s, n) : NULL;
    case 't':
        return literal(ps, "true", 4) ? json_true() : NULL;
    case 'f':
        return literal(ps, "false", 5) ? json_false() : NULL;
    case 'n':
        return literal(ps, "null", 4) ? json_null() : NULL;
    default:
        return (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9')) ? read_integer(ps) : NULL;
    }
}

json_t *jsonin_loadb(const char *text, size_t len)
{
    parser ps = { text, text + len, NULL, 0 };
    json_t *doc = NULL;
    skip_space(&ps);
    if (text && ps.p < ps.end && (*ps.p == '{' || *ps.p == '['))
        doc = read_value(&ps, 1);
    skip_space(&ps);
    if (doc && ps.p != ps.end) {   /* jansson: "end of file expected" */
        json_decref(doc);
        doc = NULL;
    }
    free(ps.scratch);
    return doc;
}

json_t *jsonin_loadb_any(const char *text, size_t len, json_error_t *jerr)
{
    json_t *doc = jsonin_loadb(text, len);
    return doc ? doc : json_loadb(text, len, 0, jerr);
}
