/* pick.c - the sort picker and the column chooser (pick.h). */
#define NCURSES_WIDECHAR 1
#include "pick.h"

#include <curses.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "keycode.h"
#include "panes.h"
#include "text.h"

static size_t view_headers(const pane_view *v, const char **out)
{
    size_t n = v->ncols < COLSET_MAX ? v->ncols : COLSET_MAX;
    for (size_t i = 0; i < n; i++)
        out[i] = v->cols[i].header;
    return n;
}

/* "nodes/Nodes": the table's line in the config file. */
static void table_key(int pane, int view, char *out, size_t len)
{
    size_t n = (size_t)snprintf(out, len, "%s/%s", pane_get(pane)->name, pane_view_get(pane, view)->title);
    for (size_t i = 0; i < n && i < len; i++)
        out[i] = out[i] == ' ' ? '_' : (char)tolower((unsigned char)out[i]);
}

colset *pick_columns(session *c, int pane, int view)
{
    colset *s = &c->screens[pane].tables[view].cols;
    const pane_view *v = pane_view_get(pane, view);
    if (s->n || v->ncols == 0)
        return s;
    const char *headers[COLSET_MAX];
    size_t n = view_headers(v, headers);
    char path[4096], key[256], spec[COLPREFS_LINE_MAX];
    table_key(pane, view, key, sizeof key);
    if (colprefs_path(path, sizeof path) && colprefs_load(path, key, spec, sizeof spec))
        colset_parse(s, spec, headers, n);
    else
        colset_default(s, n);
    return s;
}

static void columns_save(session *c)
{
    int view = c->screens[c->pane].view;
    const pane_view *v = pane_view_get(c->pane, view);
    const char *headers[COLSET_MAX];
    view_headers(v, headers);
    char path[4096], key[256], spec[COLPREFS_LINE_MAX], err[4400];
    table_key(c->pane, view, key, sizeof key);
    colset_format(pick_columns(c, c->pane, view), headers, spec, sizeof spec);
    if (!colprefs_path(path, sizeof path)) {
        session_set_error(c, "columns not saved: neither XDG_CONFIG_HOME nor HOME is set");
        return;
    }
    if (!colprefs_save(path, key, spec, err, sizeof err))
        session_set_error(c, "columns not saved: %s", err);
    else
        session_set_status(c, "columns of %s saved in %s", v->title, path);
}

static act_result pick_open(session *c, pick_kind kind)
{
    colset *s = pick_columns(c, c->pane, c->screens[c->pane].view);
    grid *g = &session_current_table(c)->g;
    c->pick.kind = kind;
    c->pick.n = 0;
    c->pick.cursor = 0;
    for (int i = 0; i < s->n; i++) {
        /* The sort picker lists the columns shown; the chooser all. */
        if (kind == PICK_SORT && s->hidden[i])
            continue;
        if (kind == PICK_SORT && s->order[i] == g->sort_col)
            c->pick.cursor = c->pick.n;
        c->pick.items[c->pick.n++] = kind == PICK_SORT ? s->order[i] : i;
    }
    c->mode = MODE_PICK;
    return ACT_REDRAW;
}

act_result pick_open_sort(session *c, int key)
{
    (void)key;
    return pick_open(c, PICK_SORT);
}

act_result pick_open_columns(session *c, int key)
{
    (void)key;
    return pick_open(c, PICK_COLUMNS);
}

void pick_item_text(session *c, int i, char *out, size_t len)
{
    const pane_view *v = pane_view_get(c->pane, c->screens[c->pane].view);
    grid *g = &session_current_table(c)->g;
    if (c->pick.kind == PICK_SORT) {
        int col = c->pick.items[i];
        snprintf(out, len, "%s %s", v->cols[col].header,
                 g->sort_col == col ? text_glyph(g->sort_desc ? GL_SORT_DOWN : GL_SORT_UP) : "");
        return;
    }
    colset *s = pick_columns(c, c->pane, c->screens[c->pane].view);
    int at = c->pick.items[i];
    snprintf(out, len, "[%s] %s", s->hidden[at] ? " " : "x", v->cols[s->order[at]].header);
}

static act_result pick_sort_key(session *c, int key)
{
    grid *g = &session_current_table(c)->g;
    const pane_view *v = pane_view_get(c->pane, c->screens[c->pane].view);
    if (!keycode_is_enter(key) && key != ' ')
        return ACT_REDRAW;
    int col = c->pick.items[c->pick.cursor];
    grid_sort_by(g, col);
    grid_move(g, 0, session_page_rows(c));
    session_set_status(c, "sorted by %s %s", v->cols[col].header, g->sort_desc ? "descending" : "ascending");
    c->mode = MODE_NORMAL;
    return ACT_REDRAW;
}

static act_result pick_columns_key(session *c, int key)
{
    colset *s = pick_columns(c, c->pane, c->screens[c->pane].view);
    int at = c->pick.items[c->pick.cursor];
    if (key == ' ' || key == 'x') {
        int shown = 0;
        for (int i = 0; i < s->n; i++)
            shown += !s->hidden[i];
        if (!s->hidden[at] && shown == 1) {
            session_set_error(c, "the last column shown stays");
            return ACT_REDRAW;
        }
        s->hidden[at] = !s->hidden[at];
    } else if (key == '+' || key == '-' || key == 'K' || key == 'J') {
        int to = key == '-' || key == 'K' ? at - 1 : at + 1;
        if (to < 0 || to >= s->n)
            return ACT_REDRAW;
        int o = s->order[at];
        unsigned char h = s->hidden[at];
        s->order[at] = s->order[to];
        s->hidden[at] = s->hidden[to];
        s->order[to] = o;
        s->hidden[to] = h;
        c->pick.cursor = to;
    } else if (keycode_is_enter(key)) {
        c->mode = MODE_NORMAL;
        columns_save(c);
    } else if (key == 'd') {
        const pane_view *v = pane_view_get(c->pane, c->screens[c->pane].view);
        colset_default(s, v->ncols);
    }
    return ACT_REDRAW;
}

act_result pick_key(session *c, int key)
{
    switch (key) {
    case CK_ESC: case 'q':
        if (c->pick.kind == PICK_COLUMNS) {
            /* What was changed is shown already: Esc keeps it, as Enter. */
            c->mode = MODE_NORMAL;
            columns_save(c);
        } else {
            c->mode = MODE_NORMAL;
        }
        return ACT_REDRAW;
    case CK_FN(KEY_UP): case 'k':
        if (c->pick.cursor > 0)
            c->pick.cursor--;
        return ACT_REDRAW;
    case CK_FN(KEY_DOWN): case 'j':
        if (c->pick.cursor + 1 < c->pick.n)
            c->pick.cursor++;
        return ACT_REDRAW;
    default:
        return c->pick.kind == PICK_SORT ? pick_sort_key(c, key) : pick_columns_key(c, key);
    }
}
