/* find.c - '/' search in views, n/N in views and tables (find.h). */
#define NCURSES_WIDECHAR 1
#include "find.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "keycode.h"
#include "panes.h"

textview *find_view_of(session *c, con_mode m)
{
    switch (m) {
    case MODE_VIEW: return &c->details.text;
    case MODE_HELP: return &c->help;
    case MODE_LOGS: return &c->logs.tv;
    default: return NULL;
    }
}

act_result find_open(session *c)
{
    c->find_from = c->mode;
    ledit_set(&c->edit, "");
    c->mode = MODE_FIND;
    return ACT_REDRAW;
}

/* Goes to the next match of c->find in tv from line from (at: from
 * itself may match) and says where it went. */
static void find_go(session *c, textview *tv, size_t from, int dir, int at)
{
    int wrapped = 0;
    long line = textview_find(tv, c->find, from, dir, at, &wrapped);
    if (line < 0) {
        tv->has_found = 0;
        session_set_error(c, "pattern not found: %s", c->find);
        return;
    }
    textview_show_line(tv, (size_t)line, session_page_rows(c));
    if (c->mode == MODE_LOGS)
        c->logs.follow = 0;     /* stay on the match while output grows */
    if (wrapped)
        session_set_status(c, dir > 0 ? "search hit BOTTOM, continuing at TOP: %s (line %ld)"
                                      : "search hit TOP, continuing at BOTTOM: %s (line %ld)", c->find, line + 1);
    else
        session_set_status(c, "/%s: line %ld of %zu (n next, N previous)", c->find, line + 1, tv->count);
}

act_result find_key(session *c, int key)
{
    if (key == CK_ESC) {
        c->mode = c->find_from;
        return ACT_REDRAW;
    }
    if (!keycode_is_enter(key)) {
        keycode_edit_line(&c->edit, key, NULL);
        return ACT_REDRAW;
    }
    c->mode = c->find_from;
    textview *tv = find_view_of(c, c->mode);
    if (!c->edit.buf[0]) {
        c->find[0] = '\0';
        if (tv)
            tv->has_found = 0;
        session_set_status(c, "search cleared");
        return ACT_REDRAW;
    }
    snprintf(c->find, sizeof c->find, "%.*s", (int)sizeof c->find - 1, c->edit.buf);
    if (tv)
        find_go(c, tv, tv->top, 1, 1);
    return ACT_REDRAW;
}

act_result find_step(session *c, con_mode m, int dir)
{
    textview *tv = find_view_of(c, m);
    if (!tv)
        return ACT_NONE;
    if (!c->find[0]) {
        session_set_error(c, "no search yet: / searches");
        return ACT_REDRAW;
    }
    find_go(c, tv, tv->has_found ? tv->found : tv->top, dir, !tv->has_found);
    return ACT_REDRAW;
}

act_result find_table_step(session *c, int key)
{
    grid *g = &session_current_table(c)->g;
    int dir = key == 'N' ? -1 : 1;
    if (!g->query[0] && !g->filter[0]) {
        session_set_error(c, "no filter: / filters the rows, then n and N step through them");
        return ACT_REDRAW;
    }
    if (g->nview == 0) {
        session_set_error(c, "no row matches \"%s\"", g->query[0] ? g->query : g->filter);
        return ACT_REDRAW;
    }
    int wrapped = grid_step_wrap(g, dir, session_page_rows(c));
    if (wrapped && dir > 0)
        session_set_status(c, "search hit BOTTOM, continuing at TOP: row 1 of %zu", g->nview);
    else if (wrapped)
        session_set_status(c, "search hit TOP, continuing at BOTTOM: row %zu of %zu", g->nview, g->nview);
    else
        session_set_status(c, "match %zu of %zu (\"%s\")", g->cursor + 1, g->nview, g->query[0] ? g->query : g->filter);
    return ACT_REDRAW;
}

int find_set_table_filter(session *c, const char *text)
{
    const pane_view *v = pane_view_get(c->pane, c->screens[c->pane].view);
    const char *headers[COLSET_MAX];
    size_t n = v->ncols < COLSET_MAX ? v->ncols : COLSET_MAX;
    char err[700];
    for (size_t i = 0; i < n; i++)
        headers[i] = v->cols[i].header;
    if (!grid_set_query(&session_current_table(c)->g, text, headers, n, err, sizeof err)) {
        session_set_error(c, "%s", err);
        return 0;
    }
    return 1;
}
