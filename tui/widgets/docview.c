/* docview.c - a document as readable sections for the details view
 * (textview_add_doc, textview.h): nested documents are indented
 * "key: value" lines and lists one element per line, where the batch
 * printer, which scripts read, puts them on one line as JSON. */
#include "textview.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

static int is_scalar(const json_t *v)
{
    return !json_is_object(v) && !json_is_array(v);
}

/* A value the batch printer shows well: a scalar, a list of scalars, or
 * a list of objects whose fields are all scalars (a table). */
static int is_flat(const json_t *v)
{
    size_t i;
    json_t *e;
    if (is_scalar(v))
        return 1;
    if (!json_is_array(v))
        return 0;
    json_array_foreach(v, i, e) {
        if (json_is_array(e))
            return 0;
        if (json_is_object(e)) {
            const char *k;
            json_t *f;
            json_object_foreach(e, k, f)
                if (!is_scalar(f))
                    return 0;
        }
    }
    return 1;
}

/* One line: indent blanks (or, when *lead is set, the list's "- " in its
 * last two), then text. */
static void doc_line(textview *tv, int indent, int *lead, const char *text)
{
    char line[2048];
    snprintf(line, sizeof line, "%*s%s%s", *lead ? indent - 2 : indent, "", *lead ? "- " : "", text);
    *lead = 0;
    textview_add_text(tv, line);
}

static void doc_value(textview *tv, const char *key, const json_t *v, int indent, int *lead);

static void doc_object(textview *tv, const json_t *obj, int indent, int *lead)
{
    const char *k;
    json_t *v;
    if (json_object_size(obj) == 0)
        doc_line(tv, indent, lead, "(empty)");
    json_object_foreach((json_t *)obj, k, v) {
        char text[1024];
        if (is_scalar(v)) {
            char *cell = table_cell_text(k, v);
            snprintf(text, sizeof text, "%s: %s", k, cell ? cell : "");
            free(cell);
            doc_line(tv, indent, lead, text);
        } else if (json_is_array(v) && json_array_size(v) == 0) {
            snprintf(text, sizeof text, "%s: (none)", k);
            doc_line(tv, indent, lead, text);
        } else {
            snprintf(text, sizeof text, "%s:", k);
            doc_line(tv, indent, lead, text);
            int none = 0;
            doc_value(tv, k, v, indent + 2, &none);
        }
    }
}

static void doc_value(textview *tv, const char *key, const json_t *v, int indent, int *lead)
{
    size_t i;
    json_t *e;
    if (json_is_object(v)) {
        doc_object(tv, v, indent, lead);
        return;
    }
    if (!json_is_array(v)) {
        char *cell = table_cell_text(key, v);
        doc_line(tv, indent, lead, cell ? cell : "");
        free(cell);
        return;
    }
    json_array_foreach(v, i, e) {
        /* Each element starts with "- ", its own lines two further in. */
        int first = 1;
        doc_value(tv, key, e, indent + 2, &first);
    }
}

void textview_add_doc(textview *tv, const json_t *doc)
{
    if (!json_is_object(doc)) {
        textview_add_result(tv, doc, NULL);
        return;
    }
    json_t *flat = json_object();
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)doc, k, v)
        if (is_flat(v))
            json_object_set(flat, k, v);
    textview_add_result(tv, flat, NULL);
    json_decref(flat);
    json_object_foreach((json_t *)doc, k, v) {
        if (is_flat(v))
            continue;
        char head[300];
        snprintf(head, sizeof head, "%s:", k);
        textview_add(tv, head);
        int none = 0;
        doc_value(tv, k, v, 2, &none);
    }
}
