/* panes_cells.c - from command results to table rows, for every pane:
 * cell text (money in credits, bools yes/no; a computed cell such as
 * "@gpus" is its view's `cell`, in the pane's file), row keys, notes, and
 * the default loader (one row per item of the list command).  Computed
 * cells derive display text from fields the core returned, never from the
 * store.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panes_int.h"
#include "table.h"

static int is_money(const char *field)
{
    size_t n = strlen(field);
    return n > 4 && strcmp(field + n - 4, "_ucr") == 0;
}

/* "2.5" for 2.5, "4" for 4.0: GPU counts may be fractional. */
void panes_number_text(double d, char *out, size_t len)
{
    /* Whole numbers, nearly every cell of 10,000 nodes: "%lld" is several
     * times cheaper than "%.2f" and the trimming, and prints the same. */
    if (d > -1e15 && d < 1e15 && d == (double)(long long)d) {
        snprintf(out, len, "%lld", (long long)d);
        return;
    }
    snprintf(out, len, "%.2f", d);
    char *p = out + strlen(out) - 1;
    while (p > out && *p == '0')
        *p-- = '\0';
    if (*p == '.')
        *p = '\0';
}

void panes_value_text(const json_t *v, const char *field, char *out, size_t len)
{
    if (!v || json_is_null(v)) {
        snprintf(out, len, "-");
    } else if (json_is_string(v)) {
        /* A copy, cut at len like snprintf: most cells are strings. */
        size_t n = json_string_length(v);
        if (len == 0)
            return;
        if (n >= len)
            n = len - 1;
        memcpy(out, json_string_value(v), n);
        out[n] = '\0';
    } else if (json_is_boolean(v)) {
        snprintf(out, len, "%s", json_is_true(v) ? "yes" : "no");
    } else if (json_is_integer(v) && is_money(field)) {
        table_format_credits(json_integer_value(v), out, len);
    } else if (json_is_number(v)) {
        panes_number_text(json_number_value(v), out, len);
    } else if (json_is_array(v)) {
        size_t i, used = 0;
        const json_t *e;
        out[0] = '\0';
        json_array_foreach(v, i, e) {
            char part[128];
            panes_value_text(json_is_object(e) ? json_object_get(e, "name") : e, "", part, sizeof part);
            if (used < len)
                used += (size_t)snprintf(out + used, len - used, "%s%s", i ? ", " : "", part);
        }
    } else if (json_is_object(v)) {
        /* {"a100": 2, "v100": 3} -> "a100 2  v100 3" */
        size_t used = 0;
        const char *k;
        const json_t *e;
        out[0] = '\0';
        json_object_foreach((json_t *)v, k, e) {
            char part[64];
            panes_value_text(e, k, part, sizeof part);
            if (used < len)
                used += (size_t)snprintf(out + used, len - used, "%s%s %s", used ? "  " : "", k, part);
        }
    }
}

void panes_agent_text(const json_t *agent, char *out, size_t len)
{
    /* `node list` says "online"; `node show` (a patched row) says
     * {"state": "online", "last_heartbeat": ...}. */
    const json_t *state = json_is_object(agent) ? json_object_get(agent, "state") : agent;
    snprintf(out, len, "%s", json_is_string(state) && *json_string_value(state) ? json_string_value(state) : "-");
}

double panes_number_of(const json_t *item, const char *field)
{
    const json_t *v = json_object_get(item, field);
    return json_is_number(v) ? json_number_value(v) : 0;
}

void pane_item_key(const pane_view *v, const json_t *item, char *out, size_t len)
{
    char name[200], prefix[200];
    panes_value_text(json_object_get(item, v->key_field), "", name, sizeof name);
    if (!v->key_prefix) {
        snprintf(out, len, "%s", name);
        return;
    }
    panes_value_text(json_object_get(item, v->key_prefix), "", prefix, sizeof prefix);
    snprintf(out, len, "%s%c%s", prefix, v->key_sep, name);
}

void pane_append_key(const pane_view *v, const char *key, char *line, size_t len)
{
    const char *sp = v && v->key_prefix && v->key_sep == ' ' ? strchr(key, ' ') : NULL;
    if (!sp) {
        prompt_quote_word(line, len, key);
        return;
    }
    /* "REGION NAME": two arguments, each quoted on its own. */
    char first[256];
    snprintf(first, sizeof first, "%.*s", (int)(sp - key), key);
    prompt_quote_word(line, len, first);
    size_t used = strlen(line);
    snprintf(line + used, len - used, " ");
    prompt_quote_word(line, len, sp + 1);
}

void panes_fill_row(const pane_view *v, grid *g, const json_t *item)
{
    const char *cells[16];
    char buf[16][256];
    double bar = -1;
    for (size_t k = 0; k < v->ncols && k < 16; k++) {
        const pane_col *col = &v->cols[k];
        if (col->field[0] == '@' && v->cell)
            v->cell(item, col->field, buf[k], sizeof buf[k], &bar);
        else if (col->field[0] == '@')
            snprintf(buf[k], sizeof buf[k], "?");
        else
            panes_value_text(json_object_get(item, col->field), col->field, buf[k], sizeof buf[k]);
        cells[k] = buf[k];
    }
    char key[256];
    pane_item_key(v, item, key, sizeof key);
    grid_row *r = grid_add_row(g, key, cells);
    if (r)
        r->bar = bar;
}

/* One grid row per item. */
void panes_fill_rows(const pane_view *v, pane_state *ps, const json_t *items)
{
    size_t i;
    const json_t *item;
    json_array_foreach(items, i, item)
        panes_fill_row(v, &ps->g, item);
}

void panes_set_note(pane_state *ps, int error, const char *text)
{
    snprintf(ps->note, sizeof ps->note, "%s", text);
    ps->note_error = error;
}

/* Runs a line; on failure notes the core's message in the table. */
json_t *panes_run(session *c, pane_state *ps, const char *line)
{
    json_t *res = NULL;
    rd_err err;
    rd_err_clear(&err);
    if (session_exec_line(c, line, &res, &err) != RD_OK) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s: %s", line, err.msg);
        panes_set_note(ps, 1, msg);
        return NULL;
    }
    return res;
}

json_t *panes_run_row(session *c, pane_state *ps, const char *line, int *refused)
{
    json_t *res = NULL;
    rd_err err;
    rd_err_clear(&err);
    rd_code rc = session_exec_line(c, line, &res, &err);
    *refused = rc == RD_EPERM;
    if (rc != RD_OK && !*refused) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s: %s", line, err.msg);
        panes_set_note(ps, 1, msg);
    }
    return rc == RD_OK ? res : NULL;
}

void panes_adopt_items(pane_state *ps, json_t *items)
{
    json_decref(ps->items);
    ps->items = items;
    panes_forget_shown(ps);
}

void panes_forget_shown(pane_state *ps)
{
    json_decref(ps->shown);
    ps->shown = NULL;
    ps->shown_key[0] = '\0';
}

void panes_load_list(session *c, const pane_view *v, pane_state *ps)
{
    json_t *res = panes_run(c, ps, v->list_cmd);
    if (!res)
        return;
    json_t *items = json_object_get(res, "items");
    panes_fill_rows(v, ps, items);
    panes_adopt_items(ps, json_incref(items));
    json_decref(res);
}
