/* mouse.c - mouse events: the pure mapping of a position to an action on
 * the layout the screen was drawn by, and the actions, which return the
 * reactions keys return (or name the key that does the same). */
#define NCURSES_WIDECHAR 1
#include "mouse.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "keycode.h"
#include "panes.h"
#include "text.h"

void mouse_geom_make(mouse_geom *g, const lay_screen *s, const int (*tab_cols)[3], const int *ord, const int *width,
                     int n, int table)
{
    memset(g, 0, sizeof *g);
    g->s = *s;
    g->table = table;
    layout_tabs(tab_cols, PANE_COUNT, s->tabs.w, g->tab_x, g->tab_w);
    g->ncols = n < MOUSE_MAX_COLS ? n : MOUSE_MAX_COLS;
    /* as draw_table: the mark, a blank, then each shown column and a blank */
    int x = s->table.x + 2;
    for (int i = 0; i < g->ncols; i++) {
        g->col_x[i] = x;
        g->col_w[i] = width[i];
        g->col_of[i] = ord[i];
        if (width[i])
            x += width[i] + 1;
    }
}

static int inside(int v, int from, int len)
{
    return v >= from && v < from + len;
}

mouse_action mouse_map(const mouse_geom *g, int y, int x, mouse_button b)
{
    mouse_action a = { MOUSE_NONE, 0 };
    const lay_screen *s = &g->s;
    if (s->too_small || b == MOUSE_OTHER)
        return a;
    if (b == MOUSE_WHEEL_UP || b == MOUSE_WHEEL_DOWN) {
        a.kind = MOUSE_WHEEL;
        a.arg = b == MOUSE_WHEEL_UP ? -MOUSE_WHEEL_ROWS : MOUSE_WHEEL_ROWS;
        return a;
    }
    if (y == s->tabs.y && s->tabs.h > 0) {
        for (int p = 0; p < PANE_COUNT; p++)
            if (g->tab_w[p] && inside(x - s->tabs.x, g->tab_x[p], g->tab_w[p])) {
                a.kind = MOUSE_TAB;
                a.arg = p;
            }
        return a;
    }
    if (!g->table || s->table.h <= 0 || !inside(x, s->table.x, s->table.w) || !inside(y, s->table.y, s->table.h))
        return a;
    if (y == s->table.y) {
        /* a column's header, or the blank after it */
        for (int i = 0; i < g->ncols; i++)
            if (g->col_w[i] && inside(x, g->col_x[i], g->col_w[i] + 1)) {
                a.kind = MOUSE_HEADER;
                a.arg = g->col_of[i];
            }
        return a;
    }
    a.kind = MOUSE_ROW;
    a.arg = y - s->table.y - 1;
    return a;
}

void mouse_start(session *c)
{
    const char *off = getenv("RIGDECK_NO_MOUSE");
    c->mouse = 0;
    if (off && *off)
        return;
    /* Presses, not clicks: a click waits mouseinterval() for a release to
     * tell it from a double click, and a click should act at once. */
    mmask_t want = BUTTON1_PRESSED | BUTTON4_PRESSED;
#ifdef BUTTON5_PRESSED
    want |= BUTTON5_PRESSED;
#endif
    mouseinterval(0);
    c->mouse = mousemask(want, NULL) != 0 && has_mouse();
}

_Static_assert(MOUSE_MAX_COLS >= DRAW_MAX_COLS, "a click must reach every column drawn");

/* The geometry the screen was last drawn by. */
static void current_geom(session *c, mouse_geom *g)
{
    int rows, cols, tab_cols[PANE_COUNT][3], ord[DRAW_MAX_COLS], width[DRAW_MAX_COLS];
    getmaxyx(stdscr, rows, cols);
    lay_screen s = draw_layout(c, rows, cols);
    for (int p = 0; p < PANE_COUNT; p++) {
        tab_cols[p][0] = text_cols(pane_get(p)->name);
        tab_cols[p][1] = text_cols(pane_get(p)->mid);
        tab_cols[p][2] = text_cols(pane_get(p)->tiny);
    }
    int table = c->pane != PANE_DASHBOARD && pane_view_get(c->pane, c->screens[c->pane].view)->ncols > 0;
    int n = table && s.table.w > 2 ? (int)draw_table_columns(c, s.table, ord, width) : 0;
    mouse_geom_make(g, &s, (const int (*)[3])tab_cols, ord, width, n, table);
}

/* A header click: sorts by that column, ascending; again: descending. */
static act_result sort_by(session *c, int col)
{
    grid *g = &session_current_table(c)->g;
    const pane_view *v = pane_view_get(c->pane, c->screens[c->pane].view);
    if (g->sort_col == col) {
        g->sort_desc = !g->sort_desc;
    } else {
        g->sort_col = col;
        g->sort_desc = 0;
    }
    grid_apply(g);
    session_set_status(c, "sorted by %s %s", v->cols[col].header, g->sort_desc ? "descending" : "ascending");
    return ACT_REDRAW;
}

/* A row click: selects the row shown there. */
static act_result select_row(session *c, int row)
{
    grid *g = &session_current_table(c)->g;
    size_t at = g->top + (size_t)row;
    if (row < 0 || at >= g->nview)
        return ACT_NONE;
    g->cursor = at;
    grid_move(g, 0, session_page_rows(c));
    return ACT_REDRAW;
}

act_result mouse_event(session *c, int *key, int *times)
{
    MEVENT ev;
    *key = 0;
    *times = 0;
    if (getmouse(&ev) != OK)
        return ACT_NONE;
    mouse_button b = MOUSE_OTHER;
    if (ev.bstate & BUTTON1_PRESSED)
        b = MOUSE_PRESS;
    else if (ev.bstate & BUTTON4_PRESSED)
        b = MOUSE_WHEEL_UP;
#ifdef BUTTON5_PRESSED
    else if (ev.bstate & BUTTON5_PRESSED)
        b = MOUSE_WHEEL_DOWN;
#endif
    mouse_geom g;
    current_geom(c, &g);
    mouse_action a = mouse_map(&g, ev.y, ev.x, b);
    /* The wheel scrolls wherever Up and Down do: a table, a view, the
     * logs; in a form, a question or a line being typed it does nothing
     * (Up there is history, or the previous field). */
    if (a.kind == MOUSE_WHEEL && (c->mode == MODE_NORMAL || c->mode == MODE_VIEW || c->mode == MODE_HELP ||
                                  c->mode == MODE_LOGS)) {
        *key = a.arg < 0 ? CK_FN(KEY_UP) : CK_FN(KEY_DOWN);
        *times = abs(a.arg);
        return ACT_NONE;
    }
    /* Clicks act on the table and tabs, as keys of normal mode do. */
    if (c->mode != MODE_NORMAL)
        return ACT_NONE;
    switch (a.kind) {
    case MOUSE_TAB:
        *key = pane_key(a.arg);
        *times = 1;
        return ACT_NONE;
    case MOUSE_HEADER: return sort_by(c, a.arg);
    case MOUSE_ROW: return select_row(c, a.arg);
    default: return ACT_NONE;
    }
}
