/* table.c - the batch table renderer.
 *
 * Scripts read this output too, so it never truncates: columns are padded to
 * their widest cell and separated by two spaces.  Money fields (names ending
 * in _ucr) are shown in credits under a header without the suffix, or with
 * _cr instead when the bare name is another field (a count beside its sum).
 */
#include "table.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

char *table_format_credits(long long ucr, char *buf, size_t len)
{
    unsigned long long mag = ucr < 0 ? 0ULL - (unsigned long long)ucr : (unsigned long long)ucr;
    char frac[8];
    snprintf(frac, sizeof frac, "%06llu", mag % 1000000ULL);
    for (int i = 5; i >= 0 && frac[i] == '0'; i--)
        frac[i] = '\0';
    snprintf(buf, len, "%s%llu%s%s", ucr < 0 ? "-" : "", mag / 1000000ULL, frac[0] ? "." : "", frac);
    return buf;
}

static int is_money(const char *key)
{
    size_t n = strlen(key);
    return n > 4 && strcmp(key + n - 4, "_ucr") == 0;
}

/* Has `key` without its _ucr suffix as a key of obj (or a name in cols)? */
static int bare_name_taken(const char *key, const json_t *obj, const json_t *cols)
{
    char bare[128];
    snprintf(bare, sizeof bare, "%.*s", (int)(strlen(key) - 4), key);
    if (obj && json_object_get(obj, bare))
        return 1;
    for (size_t c = 0; cols && c < json_array_size(cols); c++)
        if (strcmp(json_string_value(json_array_get(cols, c)), bare) == 0)
            return 1;
    return 0;
}

/* The name a field is shown under: money in credits loses the _ucr. */
static void name_of(const char *key, const json_t *obj, const json_t *cols, char *buf, size_t len)
{
    size_t n = strlen(key);
    if (!is_money(key))
        snprintf(buf, len, "%s", key);
    else if (bare_name_taken(key, obj, cols))
        snprintf(buf, len, "%.*s_cr", (int)(n - 4), key);
    else
        snprintf(buf, len, "%.*s", (int)(n - 4), key);
}

static void header_of(const char *key, const json_t *cols, char *buf, size_t len)
{
    name_of(key, NULL, cols, buf, len);
    for (char *p = buf; *p; p++)
        *p = (char)toupper((unsigned char)*p);
}

/* A one-line rendering of any JSON value (malloc'd). */
static char *cell_of(const char *key, const json_t *v)
{
    char buf[64];
    if (!v || json_is_null(v))
        return strdup("-");
    if (json_is_string(v))
        return strdup(json_string_value(v));
    if (json_is_true(v))
        return strdup("yes");
    if (json_is_false(v))
        return strdup("no");
    if (json_is_integer(v) && is_money(key))
        return strdup(table_format_credits(json_integer_value(v), buf, sizeof buf));
    if (json_is_integer(v)) {
        snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(v));
        return strdup(buf);
    }
    if (json_is_real(v)) {
        /* %.4g keeps small figures short (0.25, 19.5) but would print
         * 12070.5 GPU-hours as 1.207e+04: from 100 up, two decimals */
        double d = json_real_value(v);
        if (d >= 100 || d <= -100) {
            snprintf(buf, sizeof buf, "%.2f", d);
            size_t n = strlen(buf);
            while (n && buf[n - 1] == '0')
                buf[--n] = '\0';
            if (n && buf[n - 1] == '.')
                buf[--n] = '\0';
        } else {
            snprintf(buf, sizeof buf, "%.4g", d);
        }
        return strdup(buf);
    }
    if (json_is_array(v)) {
        size_t i, len = 1;
        json_t *e;
        char **parts = calloc(json_array_size(v) + 1, sizeof *parts);
        if (!parts)
            return NULL;
        json_array_foreach(v, i, e) {
            if (json_is_object(e) && json_object_get(e, "object") && json_object_get(e, "action")) {
                char *o = cell_of("", json_object_get(e, "object"));
                char *act = cell_of("", json_object_get(e, "action"));
                size_t n = strlen(o) + strlen(act) + 2;
                parts[i] = malloc(n);
                if (parts[i])
                    snprintf(parts[i], n, "%s %s", act, o);
                free(o);
                free(act);
            } else if (json_is_object(e) && json_object_get(e, "name")) {
                parts[i] = cell_of("", json_object_get(e, "name"));
            } else {
                parts[i] = cell_of(key, e);
            }
            len += (parts[i] ? strlen(parts[i]) : 0) + 2;
        }
        char *s = malloc(len);
        if (s) {
            s[0] = '\0';
            for (i = 0; i < json_array_size(v); i++) {
                if (i)
                    strcat(s, ", ");
                if (parts[i])
                    strcat(s, parts[i]);
            }
        }
        for (i = 0; i < json_array_size(v); i++)
            free(parts[i]);
        free(parts);
        return s;
    }
    return json_dumps(v, JSON_COMPACT | JSON_REAL_PRECISION(15));
}

char *table_cell_text(const char *key, const json_t *v)
{
    return cell_of(key, v);
}

/* The value of column key in item: a field, or for "a.b" (a list's
 * `--fields workers.state`) b of a, or the list of b of each element of a
 * (a new reference; NULL when absent). */
static json_t *value_of(const json_t *item, const char *key)
{
    const char *dot = strchr(key, '.');
    if (!dot)
        return json_incref(json_object_get(item, key));
    char head[128];
    snprintf(head, sizeof head, "%.*s", (int)(dot - key), key);
    const json_t *v = json_object_get(item, head), *e;
    if (json_is_object(v))
        return json_incref(json_object_get(v, dot + 1));
    if (!json_is_array(v))
        return NULL;
    json_t *parts = json_array();
    size_t i;
    json_array_foreach(v, i, e) {
        json_t *sub = json_is_object(e) ? json_object_get(e, dot + 1) : NULL;
        json_array_append(parts, sub ? sub : json_null());
    }
    return parts;
}

/* Columns: the given list (each name once, in its order), or every key of
 * every item in first-seen order. */
static json_t *columns_of(const json_t *items, const char *columns)
{
    json_t *cols = json_array();
    if (columns && *columns) {
        for (const char *p = columns; *p;) {
            size_t n = strcspn(p, ","), c;
            for (c = 0; c < json_array_size(cols); c++) {
                const char *seen = json_string_value(json_array_get(cols, c));
                if (strlen(seen) == n && strncmp(seen, p, n) == 0)
                    break;
            }
            if (c == json_array_size(cols))
                json_array_append_new(cols, json_stringn(p, n));
            p += n;
            if (*p == ',')
                p++;
        }
        return cols;
    }
    size_t i;
    json_t *item;
    json_array_foreach(items, i, item) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)item, k, v) {
            int seen = 0;
            for (size_t c = 0; c < json_array_size(cols); c++)
                seen |= strcmp(json_string_value(json_array_get(cols, c)), k) == 0;
            if (!seen)
                json_array_append_new(cols, json_string(k));
        }
    }
    return cols;
}

static int print_items(FILE *out, const json_t *items, const char *columns, const char *indent)
{
    json_t *cols = columns_of(items, columns);
    size_t ncols = json_array_size(cols), nrows = json_array_size(items);
    char ***cells = calloc(nrows + 1, sizeof *cells);
    size_t *width = calloc(ncols ? ncols : 1, sizeof *width);
    int failed = !cols;
    if (!cells || !width) {
        failed = 1;
        goto out;
    }
    for (size_t r = 0; r <= nrows; r++) {
        cells[r] = calloc(ncols ? ncols : 1, sizeof **cells);
        if (!cells[r]) {
            failed = 1;
            goto out;
        }
        for (size_t c = 0; c < ncols; c++) {
            const char *key = json_string_value(json_array_get(cols, c));
            if (r == 0) {
                char h[128];
                header_of(key, cols, h, sizeof h);
                cells[r][c] = strdup(h);
            } else {
                json_t *v = value_of(json_array_get(items, r - 1), key);
                cells[r][c] = cell_of(key, v);
                json_decref(v);
            }
            failed |= !cells[r][c];
            size_t w = cells[r][c] ? strlen(cells[r][c]) : 0;
            if (w > width[c])
                width[c] = w;
        }
    }
    for (size_t r = 0; r <= nrows; r++) {
        fputs(indent, out);
        for (size_t c = 0; c < ncols; c++) {
            const char *s = cells[r][c] ? cells[r][c] : "";
            if (c + 1 < ncols)
                fprintf(out, "%-*s  ", (int)width[c], s);
            else
                fputs(s, out);
        }
        fputc('\n', out);
    }
out:
    if (cells)
        for (size_t r = 0; r <= nrows; r++) {
            if (cells[r])
                for (size_t c = 0; c < ncols; c++)
                    free(cells[r][c]);
            free(cells[r]);
        }
    free(cells);
    free(width);
    json_decref(cols);
    return failed ? -1 : 0;
}

static int is_object_list(const json_t *v)
{
    return json_is_array(v) && json_array_size(v) > 0 && json_is_object(json_array_get(v, 0));
}

/* An object as "field  value" lines, then each list of objects as a table
 * (its "items" in columns, when given: a page of a list) and each object
 * as key/value rows. */
static int print_object(FILE *out, const json_t *obj, const char *columns)
{
    const char *k;
    json_t *v;
    size_t width = 0;
    int failed = 0;
    json_object_foreach((json_t *)obj, k, v) {
        char h[128];
        name_of(k, obj, NULL, h, sizeof h);
        if (!is_object_list(v) && !json_is_object(v) && strlen(h) > width)
            width = strlen(h);
    }
    json_object_foreach((json_t *)obj, k, v) {
        if (is_object_list(v) || json_is_object(v))
            continue;
        char *cell = cell_of(k, v);
        char name[128];
        name_of(k, obj, NULL, name, sizeof name);
        fprintf(out, "%-*s  %s\n", (int)width, name, cell ? cell : "");
        failed |= !cell;
        free(cell);
    }
    json_object_foreach((json_t *)obj, k, v) {
        if (is_object_list(v)) {
            fprintf(out, "%s:\n", k);
            failed |= print_items(out, v, strcmp(k, "items") == 0 ? columns : NULL, "  ") != 0;
        } else if (json_is_object(v)) {
            fprintf(out, "%s:\n", k);
            json_t *rows = json_array();
            const char *sk;
            json_t *sv;
            json_object_foreach(v, sk, sv) {
                /* a nested money field (resources.max_price_ucr) is shown in
                 * credits too: the cell's column is "value", not its name */
                if (is_money(sk) && json_is_integer(sv)) {
                    char name[128], credits[64];
                    name_of(sk, v, NULL, name, sizeof name);
                    table_format_credits(json_integer_value(sv), credits, sizeof credits);
                    json_array_append_new(rows, json_pack("{s:s, s:s}", "key", name, "value", credits));
                } else {
                    json_array_append_new(rows, json_pack("{s:s, s:O}", "key", sk, "value", sv));
                }
            }
            failed |= print_items(out, rows, "key,value", "  ") != 0;
            json_decref(rows);
        }
    }
    return failed ? -1 : 0;
}

int table_print(FILE *out, const json_t *result, const char *columns)
{
    if (!result)
        return 0;
    const json_t *items = json_object_get(result, "items");
    if (json_is_array(items) && json_object_size(result) == 1)
        return print_items(out, items, columns, "");
    return print_object(out, result, columns);
}

/* ---- CSV ---------------------------------------------------------------- */

/* One CSV field: quoted when it holds a comma, quote or line break. */
static void csv_field(FILE *out, const char *s)
{
    if (!s[strcspn(s, ",\"\r\n")]) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void csv_header(FILE *out, const json_t *cols)
{
    for (size_t c = 0; c < json_array_size(cols); c++) {
        const char *key = json_string_value(json_array_get(cols, c));
        char name[128];
        name_of(key, NULL, cols, name, sizeof name);
        if (c)
            fputc(',', out);
        csv_field(out, name);
    }
    fputc('\n', out);
}

static int csv_row(FILE *out, const json_t *cols, const json_t *item)
{
    int failed = 0;
    for (size_t c = 0; c < json_array_size(cols); c++) {
        const char *key = json_string_value(json_array_get(cols, c));
        json_t *v = value_of(item, key);
        char *cell = v && !json_is_null(v) ? cell_of(key, v) : strdup("");
        json_decref(v);
        if (c)
            fputc(',', out);
        csv_field(out, cell ? cell : "");
        failed |= !cell;
        free(cell);
    }
    fputc('\n', out);
    return failed ? -1 : 0;
}

int table_print_csv(FILE *out, const json_t *result, const char *columns)
{
    int failed = 0;
    if (!result)
        return 0;
    const json_t *items = json_object_get(result, "items");
    if (json_is_array(items) && json_object_size(result) == 1) {
        json_t *cols = columns_of(items, columns);
        size_t i;
        json_t *item;
        csv_header(out, cols);
        json_array_foreach(items, i, item)
            failed |= csv_row(out, cols, item) != 0;
        json_decref(cols);
        return failed || !cols ? -1 : 0;
    }
    /* Any other object becomes one table: a row per scalar field (section =
     * its name, in "value") and a row per element of each list of objects
     * (section = the list's name), over the union of their columns. */
    json_t *rows = json_array(), *all = json_array();
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)result, k, v) {
        if (is_object_list(v)) {
            size_t i;
            json_t *e;
            json_array_foreach(v, i, e) {
                json_t *row = json_deep_copy(e);
                json_object_set_new(row, "section", json_string(k));
                json_array_append_new(rows, row);
            }
        } else if (!json_is_object(v) && !json_is_array(v)) {
            char name[128], credits[64];
            snprintf(name, sizeof name, "%s", k);
            json_t *row;
            if (is_money(k) && json_is_integer(v)) {
                name[strlen(k) - 4] = '\0';
                table_format_credits(json_integer_value(v), credits, sizeof credits);
                row = json_pack("{s:s, s:s}", "section", name, "value", credits);
            } else {
                row = json_pack("{s:s, s:O}", "section", name, "value", v);
            }
            json_array_append_new(rows, row);
        }
    }
    json_array_append_new(all, json_string("section"));
    /* a page of a list (items and next): the list's columns first */
    json_t *cols = columns_of(rows, NULL), *asked = json_is_array(items) ? columns_of(items, columns) : json_array();
    size_t i, c;
    json_array_foreach(asked, i, v)
        json_array_append(all, v);
    json_array_foreach(cols, i, v) {
        for (c = 0; c < json_array_size(all); c++)
            if (strcmp(json_string_value(json_array_get(all, c)), json_string_value(v)) == 0)
                break;
        if (c == json_array_size(all))
            json_array_append(all, v);
    }
    json_decref(asked);
    csv_header(out, all);
    json_t *row;
    json_array_foreach(rows, i, row)
        failed |= csv_row(out, all, row) != 0;
    json_decref(cols);
    json_decref(all);
    json_decref(rows);
    return failed ? -1 : 0;
}
