/* cmd_help.c - the answer to `help` and `help COMMAND` over the commands
 * it is shown, each command's usage line, and their text for a reader:
 * wrapped to a width the front end chooses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "wrap.h"

char *cmd_usage(const cmd_def *def)
{
    size_t len = strlen(def->words) + (def->args ? strlen(def->args) : 0) + 4;
    for (const cmd_flag *f = def->flags; f && f->name; f++)
        len += strlen(f->name) + (f->value ? strlen(f->value) : 0) + 12;
    char *s = malloc(len);
    if (!s)
        return NULL;
    char *p = s;
    p += sprintf(p, "%s", def->words);
    if (def->args && *def->args)
        p += sprintf(p, " %s", def->args);
    for (const cmd_flag *f = def->flags; f && f->name; f++) {
        int req = f->flags & CMD_FLAG_REQUIRED;
        p += sprintf(p, " %s--%s%s%s%s%s", req ? "" : "[", f->name,
                     f->value ? " " : "", f->value ? f->value : "", req ? "" : "]",
                     f->flags & CMD_FLAG_REPEAT ? "..." : "");
    }
    return s;
}

typedef struct {
    const cmd_args *args;
    json_t *items;
    const cmd_def *exact;
    size_t matched;
} help_state;

/* 1 when the given words are a prefix of def's words ("node" of "node add"). */
static int words_prefix(const cmd_def *def, const cmd_args *a, int *exact)
{
    const char *p = def->words;
    for (size_t i = 0; i < cmd_arg_count(a); i++) {
        const char *w = cmd_arg(a, i);
        size_t n = strcspn(p, " ");
        if (strlen(w) != n || strncmp(w, p, n) != 0)
            return 0;
        p += n;
        while (*p == ' ')
            p++;
    }
    *exact = *p == '\0';
    return 1;
}

static void help_collect(const cmd_def *def, void *data)
{
    help_state *hs = data;
    int exact = 0;
    if (!words_prefix(def, hs->args, &exact))
        return;
    if (exact)
        hs->exact = def;
    hs->matched++;
    char *usage = cmd_usage(def);
    json_array_append_new(hs->items, json_pack("{s:s, s:s, s:s}", "name", def->words, "command",
                                               usage ? usage : def->words, "help", def->help));
    free(usage);
}

const char *const *cmd_note_of(const char *words)
{
    const cmd_hooks *h = cmd_get_hooks();
    for (size_t t = 0; h && t < h->nnotes; t++)
        for (const cmd_note *n = h->notes[t]; n->words; n++)
            if (strcmp(n->words, words) == 0)
                return n->lines;
    return NULL;
}

static json_t *help_detail(const cmd_def *def)
{
    char *usage = cmd_usage(def);
    json_t *flags = json_array();
    for (const cmd_flag *f = def->flags; f && f->name; f++)
        json_array_append_new(flags, json_pack("{s:s+, s:s}", "flag", "--", f->name, "help", f->help));
    json_t *doc = json_pack("{s:s, s:s, s:s, s:o, s:b}", "name", def->words, "usage",
                            usage ? usage : def->words, "help", def->help, "flags", flags,
                            "mutates", (def->options & CMD_MUTATES) != 0);
    const char *const *note = cmd_note_of(def->words);
    if (doc && note) {
        json_t *lines = json_array();
        for (; *note; note++)
            json_array_append_new(lines, json_string(*note));
        json_object_set_new(doc, "notes", lines);
    }
    free(usage);
    return doc;
}

rd_code cmd_help_answer(void (*foreach)(void (*fn)(const cmd_def *def, void *data), void *data), const cmd_args *a,
                        json_t **result, rd_err *err)
{
    help_state hs = { a, json_array(), NULL, 0 };
    foreach(help_collect, &hs);
    if (hs.matched == 0) {
        json_decref(hs.items);
        return rd_fail(err, RD_EUSAGE, "help: no command starts with '%s' (see 'help')", cmd_arg(a, 0));
    }
    if (hs.exact && hs.matched == 1) {
        json_decref(hs.items);
        *result = help_detail(hs.exact);
        return RD_OK;
    }
    *result = json_pack("{s:o}", "items", hs.items);
    return RD_OK;
}


/* ---- text ---------------------------------------------------------------- */

#define HELP_MIN_WIDTH 20

/* The column where descriptions start beside names of up to `widest`
 * columns: the table's own (name + 2) when every row fits on one line at
 * that width, else at most 2/5 of the width so descriptions keep room;
 * a name too long for it puts its description on the next line. */
static size_t help_desc_column(size_t lead, size_t widest, size_t longest_desc, size_t width)
{
    size_t full = lead + widest + 2, cap = width * 2 / 5;
    if (full + longest_desc <= width || full <= cap)
        return full;
    return cap > lead + 4 ? cap : lead + 4;
}

/* One row: name (wrapped, keeping [...] groups together) then its
 * description from column desc_col, continuation lines indented under it.
 * The description shares the name's line only when the name took one line
 * and ends two columns short of desc_col. */
static void help_row(strbuf *b, size_t lead, const char *name, const char *desc,
                     size_t desc_col, size_t width)
{
    size_t col = lead, start = b->len;
    wrap_pad(b, lead);
    wrap_text(b, name, &col, lead + 4, width, 1);
    int wrapped = b->text && memchr(b->text + start, '\n', b->len - start) != NULL;
    if (desc && *desc) {
        if (!wrapped && col + 2 <= desc_col) {
            wrap_pad(b, desc_col - col);
        } else {
            strbuf_puts(b, "\n");
            wrap_pad(b, desc_col);
        }
        col = desc_col;
        wrap_text(b, desc, &col, desc_col, width, 0);
    }
    strbuf_puts(b, "\n");
}

/* The widest value of field `key` (at least the header's) and the longest
 * of field `desc` over a list of objects. */
static void help_measure(const json_t *list, const char *key, const char *desc, size_t *widest,
                         size_t *longest)
{
    size_t i;
    const json_t *item;
    json_array_foreach(list, i, item) {
        const char *k = json_string_value(json_object_get(item, key));
        const char *d = json_string_value(json_object_get(item, desc));
        if (k && wrap_cols(k) > *widest)
            *widest = wrap_cols(k);
        if (d && wrap_cols(d) > *longest)
            *longest = wrap_cols(d);
    }
}

/* A list of objects as two columns under a header, from column lead. */
static void help_table(strbuf *b, const json_t *list, size_t lead, const char *key,
                       const char *desc, const char *key_head, const char *desc_head, size_t width)
{
    size_t widest = strlen(key_head), longest = strlen(desc_head);
    help_measure(list, key, desc, &widest, &longest);
    size_t col = help_desc_column(lead, widest, longest, width);
    help_row(b, lead, key_head, desc_head, col, width);
    size_t i;
    const json_t *item;
    json_array_foreach(list, i, item)
        help_row(b, lead, json_string_value(json_object_get(item, key)),
                 json_string_value(json_object_get(item, desc)), col, width);
}

/* Prints a run of "FIELD\tTEXT" rows (the first the header) as a table
 * like the flags'. */
static void help_note_table(strbuf *b, const json_t *rows, size_t width)
{
    const json_t *head = json_array_get(rows, 0);
    json_t *body = json_array();
    for (size_t i = 1; i < json_array_size(rows); i++)
        json_array_append(body, json_array_get(rows, i));
    help_table(b, body, 2, "k", "v", json_string_value(json_object_get(head, "k")),
               json_string_value(json_object_get(head, "v")), width);
    json_decref(body);
}

/* A command's notes (cmd_note): paragraphs wrapped from column 0, each run
 * of "FIELD\tTEXT" rows as a table, examples as they are (wrapped 4
 * columns in only where a line is wider than the width). */
static void help_notes_text(strbuf *b, const json_t *notes, size_t width)
{
    json_t *rows = NULL;
    size_t i;
    const json_t *l;
    json_array_foreach(notes, i, l) {
        const char *line = json_string_value(l) ? json_string_value(l) : "";
        const char *tab = strchr(line, '\t');
        if (tab) {
            if (!rows)
                rows = json_array();
            json_array_append_new(rows, json_pack("{s:s%, s:s}", "k", line, (size_t)(tab - line), "v", tab + 1));
            continue;
        }
        if (rows) {
            help_note_table(b, rows, width);
            json_decref(rows);
            rows = NULL;
        }
        size_t col = 0;
        int example = strncmp(line, "  ", 2) == 0;
        if (example && wrap_cols(line) <= width)
            strbuf_puts(b, line);
        else
            wrap_text(b, line, &col, example ? 4 : 0, width, 0);
        strbuf_puts(b, "\n");
    }
    if (rows)
        help_note_table(b, rows, width);
    json_decref(rows);
}

/* One command's details: its fields, then its flags as a table, then its
 * notes. */
static void help_detail_text(strbuf *b, const json_t *doc, size_t width)
{
    static const char *const fields[] = { "name", "usage", "help", "mutates" };
    const size_t label = strlen("mutates") + 2;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        const json_t *v = json_object_get(doc, fields[i]);
        const char *text = json_is_boolean(v) ? (json_is_true(v) ? "yes" : "no") : json_string_value(v);
        size_t col = label;
        strbuf_puts(b, fields[i]);
        wrap_pad(b, label - strlen(fields[i]));
        wrap_text(b, text, &col, label, width, strcmp(fields[i], "usage") == 0);
        strbuf_puts(b, "\n");
    }
    const json_t *flags = json_object_get(doc, "flags");
    if (json_array_size(flags) > 0) {
        strbuf_puts(b, "flags:\n");
        help_table(b, flags, 2, "flag", "help", "FLAG", "HELP", width);
    }
    const json_t *notes = json_object_get(doc, "notes");
    if (json_is_array(notes)) {
        strbuf_puts(b, "\n");
        help_notes_text(b, notes, width);
    }
}

char *cmd_help_text(const json_t *result, size_t width)
{
    strbuf b = { 0 };
    const json_t *items = json_object_get(result, "items");
    if (width < HELP_MIN_WIDTH)
        width = HELP_MIN_WIDTH;
    if (json_is_array(items))
        help_table(&b, items, 0, "command", "help", "COMMAND", "HELP", width);
    else if (json_is_string(json_object_get(result, "usage")))
        help_detail_text(&b, result, width);
    else
        return NULL;
    return b.text;
}
