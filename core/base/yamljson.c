/* yamljson.c - libyaml's event stream folded into jansson values.
 *
 * A recursive descent over parser events: each node function receives the
 * event that opens its node and consumes events up to the matching end.  The
 * subset (no aliases, no custom tags, one document) keeps inputs unambiguous:
 * what an operator reads in the file is exactly the value rigdeck sees.
 */
#include "yamljson.h"

#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#define YJ_MAX_DEPTH 100

#define TAG_STR "tag:yaml.org,2002:str"
#define TAG_MAP "tag:yaml.org,2002:map"
#define TAG_SEQ "tag:yaml.org,2002:seq"

typedef struct {
    yaml_parser_t parser;
    const char *source;
    rd_err *err;
} yj_ctx;

/* ---- messages -------------------------------------------------------------- */

/* The line and column say where; the text there is never quoted. */
static rd_code fail_at(yj_ctx *c, yaml_mark_t mark, const char *what)
{
    return rd_fail(c->err, RD_EINVAL, "%s:%zu:%zu: %s", c->source, mark.line + 1, mark.column + 1, what);
}

const char *yamljson_describe_key(const char *key, char *buf, size_t len)
{
    size_t n = strlen(key);
    int field = n > 0 && n <= 32 && ((key[0] >= 'a' && key[0] <= 'z') || key[0] == '_');
    for (size_t i = 0; field && i < n; i++)
        field = (key[i] >= 'a' && key[i] <= 'z') || (key[i] >= '0' && key[i] <= '9') || key[i] == '_' || key[i] == '-';
    snprintf(buf, len, "%s", field ? key : "a key");
    return buf;
}

const char *yamljson_describe(const json_t *v, char *buf, size_t len)
{
    if (json_is_integer(v))
        snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, len, "%.15g%s", json_real_value(v),
                 json_real_value(v) == (double)(long long)json_real_value(v) ? ".0" : "");
    else
        snprintf(buf, len, "%s", json_is_true(v) ? "true" : json_is_false(v) ? "false" : json_is_string(v) ? "a string"
                 : json_is_array(v) ? "a list" : json_is_object(v) ? "a mapping" : "nothing");
    return buf;
}

static rd_code fail_parser(yj_ctx *c)
{
    yaml_parser_t *p = &c->parser;
    const char *problem = p->problem ? p->problem : "syntax error";

    switch (p->error) {
    case YAML_MEMORY_ERROR:
        return rd_fail(c->err, RD_ENOMEM, "%s: out of memory while parsing", c->source);
    case YAML_READER_ERROR:
        /* The reader (encoding) stage has only a byte offset, no line. */
        return rd_fail(c->err, RD_EINVAL, "%s: byte %zu: %s", c->source, p->problem_offset, problem);
    default:
        return fail_at(c, p->problem_mark, problem);
    }
}

static rd_code next_event(yj_ctx *c, yaml_event_t *ev)
{
    if (!yaml_parser_parse(&c->parser, ev))
        return fail_parser(c);
    return RD_OK;
}

/* ---- plain scalar resolution (YAML 1.2 core schema) ------------------------- */

static int word_is(const char *v, size_t n, const char *const *words)
{
    for (; *words; words++)
        if (strlen(*words) == n && memcmp(v, *words, n) == 0)
            return 1;
    return 0;
}

static int is_digit_in_base(char ch, int base, int *digit)
{
    int d;
    if (ch >= '0' && ch <= '9')
        d = ch - '0';
    else if (ch >= 'a' && ch <= 'f')
        d = ch - 'a' + 10;
    else if (ch >= 'A' && ch <= 'F')
        d = ch - 'A' + 10;
    else
        return 0;
    if (d >= base)
        return 0;
    *digit = d;
    return 1;
}

/* Returns 1 when v is an integer literal (value in *out, or *overflow set),
 * 0 when it is not an integer at all. */
static int resolve_int(const char *v, size_t n, json_int_t *out, int *overflow)
{
    size_t i = 0;
    int neg = 0, base = 10;
    uint64_t acc = 0, limit;

    *overflow = 0;
    if (n >= 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'o')) {
        base = v[1] == 'x' ? 16 : 8;
        i = 2;
    } else if (n > 0 && (v[0] == '-' || v[0] == '+')) {
        neg = v[0] == '-';
        i = 1;
    }
    if (i == n)
        return 0;
    limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; i < n; i++) {
        int d;
        if (!is_digit_in_base(v[i], base, &d))
            return 0;
        if (acc > (limit - (uint64_t)d) / (uint64_t)base)
            *overflow = 1;
        else
            acc = acc * (uint64_t)base + (uint64_t)d;
    }
    if (!*overflow)
        *out = neg ? (json_int_t)(0 - acc) : (json_int_t)acc;
    return 1;
}

static int is_float_literal(const char *v, size_t n)
{
    size_t i = 0, digits = 0;
    int dot = 0;

    if (i < n && (v[i] == '-' || v[i] == '+'))
        i++;
    for (; i < n && v[i] >= '0' && v[i] <= '9'; i++)
        digits++;
    if (i < n && v[i] == '.') {
        dot = 1;
        for (i++; i < n && v[i] >= '0' && v[i] <= '9'; i++)
            digits++;
    }
    if (digits == 0)
        return 0;
    if (i < n && (v[i] == 'e' || v[i] == 'E')) {
        size_t start;
        i++;
        if (i < n && (v[i] == '-' || v[i] == '+'))
            i++;
        start = i;
        for (; i < n && v[i] >= '0' && v[i] <= '9'; i++)
            ;
        if (i == start)
            return 0;
        dot = 1;
    }
    return i == n && dot;
}

/* strtod under the "C" locale: the TUI may set a locale whose decimal
 * separator is a comma, and "1.5" in a file must mean one and a half.
 * (glibc hands out its static C locale here: no allocation per call.) */
static double strtod_c(const char *s)
{
    locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    double d;

    if (!c)
        return strtod(s, NULL);
    d = strtod_l(s, NULL, c);
    freelocale(c);
    return d;
}

static rd_code new_string(yj_ctx *c, yaml_mark_t mark, const char *v, size_t n, json_t **out)
{
    json_t *s = json_stringn(v, n);
    if (!s) {
        json_t *probe = json_stringn_nocheck(v, n);
        if (!probe)
            return rd_fail(c->err, RD_ENOMEM, "%s: out of memory", c->source);
        json_decref(probe);
        return fail_at(c, mark, "the string is not valid UTF-8");
    }
    *out = s;
    return RD_OK;
}

static rd_code resolve_plain(yj_ctx *c, yaml_mark_t mark, const char *v, size_t n, json_t **out)
{
    static const char *const nulls[] = { "~", "null", "Null", "NULL", NULL };
    static const char *const trues[] = { "true", "True", "TRUE", NULL };
    static const char *const falses[] = { "false", "False", "FALSE", NULL };
    static const char *const specials[] = { ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf",
                                            "-.Inf", "-.INF", ".nan", ".NaN", ".NAN", NULL };
    json_int_t i;
    int overflow;

    if (n == 0 || word_is(v, n, nulls))
        *out = json_null();
    else if (word_is(v, n, trues))
        *out = json_true();
    else if (word_is(v, n, falses))
        *out = json_false();
    else if (word_is(v, n, specials))
        return fail_at(c, mark, "infinity and NaN cannot be represented; quote the value to make it a string");
    else if (resolve_int(v, n, &i, &overflow)) {
        if (overflow)
            return fail_at(c, mark, "integer out of range (64-bit signed)");
        *out = json_integer(i);
    } else if (is_float_literal(v, n)) {
        double d = strtod_c(v);
        if (!isfinite(d))
            return fail_at(c, mark, "number out of range");
        *out = json_real(d);
    } else
        return new_string(c, mark, v, n, out);
    if (!*out)
        return rd_fail(c->err, RD_ENOMEM, "%s: out of memory", c->source);
    return RD_OK;
}

/* ---- nodes ---------------------------------------------------------------- */

static rd_code refuse_anchor_tag(yj_ctx *c, yaml_event_t *ev, const yaml_char_t *anchor, const yaml_char_t *tag,
                                 const char *allowed_tag)
{
    if (anchor)
        return fail_at(c, ev->start_mark, "anchors (&name) are not supported");
    if (tag && strcmp((const char *)tag, allowed_tag) != 0 && strcmp((const char *)tag, "!") != 0)
        return fail_at(c, ev->start_mark, "tags are not supported");
    return RD_OK;
}

static rd_code parse_node(yj_ctx *c, yaml_event_t *ev, int depth, json_t **out);

static rd_code parse_scalar(yj_ctx *c, yaml_event_t *ev, json_t **out)
{
    const char *v = (const char *)ev->data.scalar.value;
    size_t n = ev->data.scalar.length;
    rd_code rc = refuse_anchor_tag(c, ev, ev->data.scalar.anchor, ev->data.scalar.tag, TAG_STR);

    if (rc != RD_OK)
        return rc;
    if (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !ev->data.scalar.tag)
        return resolve_plain(c, ev->start_mark, v, n, out);
    return new_string(c, ev->start_mark, v, n, out);
}

static rd_code parse_sequence(yj_ctx *c, yaml_event_t *start, int depth, json_t **out)
{
    rd_code rc = refuse_anchor_tag(c, start, start->data.sequence_start.anchor, start->data.sequence_start.tag,
                                   TAG_SEQ);
    json_t *arr;

    if (rc != RD_OK)
        return rc;
    if (!(arr = json_array()))
        return rd_fail(c->err, RD_ENOMEM, "%s: out of memory", c->source);
    for (;;) {
        yaml_event_t ev;
        json_t *item = NULL;
        if ((rc = next_event(c, &ev)) != RD_OK)
            break;
        if (ev.type == YAML_SEQUENCE_END_EVENT) {
            yaml_event_delete(&ev);
            *out = arr;
            return RD_OK;
        }
        rc = parse_node(c, &ev, depth + 1, &item);
        if (rc != RD_OK)
            break;
        if (json_array_append_new(arr, item) != 0) {
            rc = rd_fail(c->err, RD_ENOMEM, "%s: out of memory", c->source);
            break;
        }
    }
    json_decref(arr);
    return rc;
}

/* A key must be a plain string jansson can hold; the event stays owned by the
 * caller. */
static rd_code check_key(yj_ctx *c, yaml_event_t *ev)
{
    rd_code rc;
    if (ev->type == YAML_ALIAS_EVENT)
        return fail_at(c, ev->start_mark, "aliases (*name) are not supported");
    if (ev->type != YAML_SCALAR_EVENT)
        return fail_at(c, ev->start_mark, "mapping keys must be scalars, not a mapping or a sequence");
    if ((rc = refuse_anchor_tag(c, ev, ev->data.scalar.anchor, ev->data.scalar.tag, TAG_STR)) != RD_OK)
        return rc;
    if (strlen((const char *)ev->data.scalar.value) != ev->data.scalar.length)
        return fail_at(c, ev->start_mark, "mapping keys must not contain NUL characters");
    return RD_OK;
}

static rd_code parse_mapping(yj_ctx *c, yaml_event_t *start, int depth, json_t **out)
{
    rd_code rc = refuse_anchor_tag(c, start, start->data.mapping_start.anchor, start->data.mapping_start.tag,
                                   TAG_MAP);
    json_t *obj;

    if (rc != RD_OK)
        return rc;
    if (!(obj = json_object()))
        return rd_fail(c->err, RD_ENOMEM, "%s: out of memory", c->source);
    for (;;) {
        yaml_event_t kev, vev;
        json_t *val = NULL;
        const char *key;

        if ((rc = next_event(c, &kev)) != RD_OK)
            break;
        if (kev.type == YAML_MAPPING_END_EVENT) {
            yaml_event_delete(&kev);
            *out = obj;
            return RD_OK;
        }
        if ((rc = check_key(c, &kev)) != RD_OK) {
            yaml_event_delete(&kev);
            break;
        }
        key = (const char *)kev.data.scalar.value;
        if (json_object_get(obj, key)) {
            rc = fail_at(c, kev.start_mark, "duplicate key: each key may appear once in a mapping");
            yaml_event_delete(&kev);
            break;
        }
        if ((rc = next_event(c, &vev)) == RD_OK)
            rc = parse_node(c, &vev, depth + 1, &val);
        if (rc == RD_OK && json_object_set_new(obj, key, val) != 0) {
            rc = fail_at(c, kev.start_mark, "the key is not valid UTF-8");
        }
        yaml_event_delete(&kev);
        if (rc != RD_OK)
            break;
    }
    json_decref(obj);
    return rc;
}

/* Consumes ev (deletes it) and builds the node it opens. */
static rd_code parse_node(yj_ctx *c, yaml_event_t *ev, int depth, json_t **out)
{
    rd_code rc;

    *out = NULL;
    if (depth > YJ_MAX_DEPTH) {
        rc = fail_at(c, ev->start_mark, "nesting is deeper than 100 levels");
    } else {
        switch (ev->type) {
        case YAML_SCALAR_EVENT:
            rc = parse_scalar(c, ev, out);
            break;
        case YAML_SEQUENCE_START_EVENT:
            rc = parse_sequence(c, ev, depth, out);
            break;
        case YAML_MAPPING_START_EVENT:
            rc = parse_mapping(c, ev, depth, out);
            break;
        case YAML_ALIAS_EVENT:
            rc = fail_at(c, ev->start_mark, "aliases (*name) are not supported");
            break;
        default:
            rc = fail_at(c, ev->start_mark, "unexpected YAML event");
            break;
        }
    }
    yaml_event_delete(ev);
    return rc;
}

/* ---- documents ------------------------------------------------------------ */

/* Reads one event and requires it to be of type want. */
static rd_code expect_event(yj_ctx *c, yaml_event_type_t want, yaml_event_t *ev)
{
    rd_code rc = next_event(c, ev);
    if (rc != RD_OK)
        return rc;
    if (ev->type != want) {
        rc = ev->type == YAML_DOCUMENT_START_EVENT
                 ? fail_at(c, ev->start_mark, "more than one document (---) is not supported")
                 : fail_at(c, ev->start_mark, "unexpected content after the document");
        yaml_event_delete(ev);
    }
    return rc;
}

static rd_code parse_stream(yj_ctx *c, json_t **out)
{
    yaml_event_t ev;
    json_t *root = NULL;
    int empty;
    rd_code rc;

    if ((rc = expect_event(c, YAML_STREAM_START_EVENT, &ev)) != RD_OK)
        return rc;
    yaml_event_delete(&ev);
    if ((rc = next_event(c, &ev)) != RD_OK)
        return rc;
    if (ev.type == YAML_STREAM_END_EVENT) {
        yaml_event_delete(&ev);
        return rd_fail(c->err, RD_EINVAL, "%s: the document is empty", c->source);
    }
    yaml_event_delete(&ev); /* DOCUMENT_START: the parser guarantees the order */
    if ((rc = next_event(c, &ev)) != RD_OK)
        return rc;
    /* "---" alone is an empty plain scalar: empty, not a null value. */
    empty = ev.type == YAML_SCALAR_EVENT && ev.data.scalar.length == 0 &&
            ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !ev.data.scalar.tag && !ev.data.scalar.anchor;
    if ((rc = parse_node(c, &ev, 0, &root)) != RD_OK)
        return rc;
    if ((rc = expect_event(c, YAML_DOCUMENT_END_EVENT, &ev)) == RD_OK) {
        yaml_event_delete(&ev);
        if ((rc = expect_event(c, YAML_STREAM_END_EVENT, &ev)) == RD_OK)
            yaml_event_delete(&ev);
    }
    if (rc == RD_OK && empty)
        rc = rd_fail(c->err, RD_EINVAL, "%s: the document is empty", c->source);
    if (rc != RD_OK) {
        json_decref(root);
        return rc;
    }
    *out = root;
    return RD_OK;
}

rd_code yamljson_parse(const char *text, size_t len, const char *source, json_t **out, rd_err *err)
{
    yj_ctx c;
    rd_code rc;

    *out = NULL;
    c.source = source ? source : "input";
    c.err = err;
    if (!yaml_parser_initialize(&c.parser))
        return rd_fail(err, RD_ENOMEM, "%s: out of memory", c.source);
    yaml_parser_set_input_string(&c.parser, (const unsigned char *)(text ? text : ""), text ? len : 0);
    rc = parse_stream(&c, out);
    yaml_parser_delete(&c.parser);
    if (rc == RD_OK)
        rd_err_clear(err);
    return rc;
}
