/* jump.c - '>' jumps from a row to the row it names in another pane, '<'
 * returns: the jump history is a stack of places in the session
 * (session.h, jump_place).  A jump reads the relation from the row's own
 * cells, as loaded, and changes nothing in the store. */
#include "jump.h"

#include <stdio.h>
#include <string.h>

#include "panes.h"

/* Where a jump goes: a row of a table (key), or the Jobs table filtered
 * to a node (filter). */
typedef struct {
    int pane, view;
    char key[256];
    char filter[GRID_FILTER_MAX];
    const char *kind;       /* "node", "region": how the status line names the row */
} jump_target;

/* The column of a view that shows a JSON field, or -1. */
static int field_col(const pane_view *v, const char *field)
{
    for (size_t i = 0; i < v->ncols; i++)
        if (strcmp(v->cols[i].field, field) == 0)
            return (int)i;
    return -1;
}

/* A row of a table by its key, shown or filtered out; NULL when gone. */
static const grid_row *row_by_key(const grid *g, const char *key)
{
    for (size_t i = 0; i < g->nrows; i++)
        if (strcmp(g->rows[i].key, key) == 0)
            return &g->rows[i];
    return NULL;
}

/* The text of the field's cell in the row key of pane/view, into out;
 * 0 (and the reason in the status line) when there is none. */
static int cell_of(session *c, int pane, int view, const char *key, const char *field, const char *what,
                   char *out, size_t len)
{
    const pane_view *v = pane_view_get(pane, view);
    const grid_row *r = row_by_key(&c->screens[pane].tables[view].g, key);
    int col = field_col(v, field);
    if (!r || col < 0) {
        session_set_error(c, "%s %s is no longer listed", what, key);
        return 0;
    }
    const char *cell = r->cells[col];
    if (!cell[0] || strcmp(cell, "-") == 0) {
        session_set_error(c, "%s %s has no %s%s", what, key, field,
                          pane == PANE_JOBS ? ": it is not placed on a node" : "");
        return 0;
    }
    snprintf(out, len, "%s", cell);
    return 1;
}

/* The target of a jump from row key of pane/view; 0 (said why) when none. */
static int target_of(session *c, int pane, int view, const char *key, jump_target *t)
{
    memset(t, 0, sizeof *t);
    if (pane == PANE_JOBS && view == 0) {
        *t = (jump_target){ .pane = PANE_NODES, .kind = "node" };
        return cell_of(c, pane, view, key, "node", "job", t->key, sizeof t->key);
    }
    if (pane == PANE_ALERTS) {
        *t = (jump_target){ .pane = PANE_NODES, .kind = "node" };
        return cell_of(c, pane, view, key, "node", "alert", t->key, sizeof t->key);
    }
    if (pane == PANE_DEVICES) {
        *t = (jump_target){ .pane = PANE_REGIONS, .kind = "region" };
        return cell_of(c, pane, view, key, "region", view == 0 ? "device" : "configuration", t->key,
                       sizeof t->key);
    }
    if (pane == PANE_FLEET && strncmp(key, "device ", 7) == 0) {
        /* the map's device cells are keyed "device NAME" (pane_fleet.c) */
        *t = (jump_target){ .pane = PANE_REGIONS, .kind = "region" };
        return cell_of(c, pane, view, key, "region", "device", t->key, sizeof t->key);
    }
    if (pane == PANE_NODES || pane == PANE_DASHBOARD || pane == PANE_FLEET) {
        *t = (jump_target){ .pane = PANE_JOBS, .kind = "jobs on" };
        snprintf(t->filter, sizeof t->filter, "%s", key);
        return 1;
    }
    session_set_error(c, "> jumps from a job, a node, an alert or a device (or a Fleet map cell): not from %s",
                      pane_view_get(pane, view)->title);
    return 0;
}

/* Pushes a place on the history, dropping the oldest when it is full. */
static void push_place(session *c, const jump_place *p)
{
    if (c->njumps == JUMP_MAX) {
        memmove(&c->jumps[0], &c->jumps[1], (JUMP_MAX - 1) * sizeof c->jumps[0]);
        c->njumps--;
    }
    c->jumps[c->njumps++] = *p;
}

/* The target table, read if it never was (or was changed since): whether
 * its row is there must be known before anything moves.  The Jobs table,
 * read in pages in idle time, is taken as far as it has got. */
static pane_state *target_table(session *c, const jump_target *t)
{
    pane_state *ps = &c->screens[t->pane].tables[t->view];
    if (t->pane == PANE_JOBS ? !ps->loaded && !ps->loading : !ps->loaded || ps->stale)
        pane_load(c, t->pane, t->view);
    return ps;
}

/* Restores a filter as it was typed (column:value terms and all) on the
 * table of pane/view; a saved query always parses again, but should it not,
 * its text stays a plain filter. */
static void set_query(grid *g, int pane, int view, const char *text)
{
    const pane_view *v = pane_view_get(pane, view);
    const char *headers[COLSET_MAX];
    size_t n = v->ncols < COLSET_MAX ? v->ncols : COLSET_MAX;
    for (size_t i = 0; i < n; i++)
        headers[i] = v->cols[i].header;
    if (!grid_set_query(g, text, headers, n, NULL, 0))
        grid_set_filter(g, text);
}

/* Moves to the target, remembering where from; nothing moves when the
 * target row is not there. */
static act_result jump_to(session *c, int pane, int view, const char *from_key, const char *what,
                          const jump_target *t)
{
    pane_state *ps = target_table(c, t);
    grid *g = &ps->g;
    jump_place here = { .pane = pane, .view = view, .to_pane = t->pane, .to_view = t->view };
    /* the Dashboard's place is the Nodes pane's selection and filter */
    const grid *from = &c->screens[pane == PANE_DASHBOARD ? PANE_NODES : pane].tables[view].g;
    const grid_row *cur = grid_current(from);
    snprintf(here.filter, sizeof here.filter, "%s", from->query);
    snprintf(here.key, sizeof here.key, "%s", cur ? cur->key : from_key);
    snprintf(here.to_filter, sizeof here.to_filter, "%s", g->query);
    const char *title = pane_view_get(t->pane, t->view)->title;
    if (t->filter[0]) {
        grid_set_filter(g, t->filter);
        if (g->nview == 0) {
            set_query(g, t->pane, t->view, here.to_filter);
            session_set_error(c, "no job in %s names %s %s: nothing to jump to", title, what, from_key);
            return ACT_REDRAW;
        }
        grid_move_edge(g, 0, session_page_rows(c));
    } else if (!grid_select_key(g, t->key)) {
        if (row_by_key(g, t->key))
            session_set_error(c, "%s %s is filtered out of %s (filter \"%s\"): / changes it", t->kind, t->key,
                              title, g->query);
        else
            session_set_error(c, "%s %s is not in %s", t->kind, t->key, title);
        return ACT_REDRAW;
    }
    push_place(c, &here);
    c->pane = t->pane;
    c->screens[t->pane].view = t->view;
    c->details.text.open = 0;
    c->mode = MODE_NORMAL;
    grid_move(g, 0, session_page_rows(c));
    /* "alert-1f2e", not "alert alert-1f2e" */
    size_t wl = strlen(what);
    int named = strncmp(from_key, what, wl) == 0 && from_key[wl] == '-';
    if (t->filter[0]) {
        /* The filter is a substring of any cell: "gpu-1" also shows the
         * jobs of gpu-10.  Say how many rows are that node's own. */
        int col = field_col(pane_view_get(t->pane, t->view), "node");
        size_t own = 0;
        for (size_t i = 0; col >= 0 && i < g->nview; i++)
            own += strcmp(g->rows[g->view[i]].cells[col], t->filter) == 0;
        char more[96] = "";
        if (own < g->nview)
            snprintf(more, sizeof more, ", %zu more row%s naming it", g->nview - own, g->nview - own == 1 ? "" : "s");
        session_set_status(c, "%s%s%s: %zu job%s on it%s (< goes back)", named ? "" : what, named ? "" : " ",
                           from_key, own, own == 1 ? "" : "s", more);
    } else {
        session_set_status(c, "%s%s%s -> %s %s (< goes back)", named ? "" : what, named ? "" : " ", from_key,
                           t->kind, t->key);
    }
    return ACT_REDRAW;
}

/* The word for a row of pane in the status line. */
static const char *row_word(int pane)
{
    switch (pane) {
    case PANE_JOBS: return "job";
    case PANE_NODES: case PANE_DASHBOARD: case PANE_FLEET: return "node";
    case PANE_ALERTS: return "alert";
    case PANE_DEVICES: return "device";
    default: return "row";
    }
}

static act_result jump_from(session *c, int pane, int view, const char *key)
{
    jump_target t;
    if (!target_of(c, pane, view, key, &t))
        return ACT_REDRAW;
    if (pane == PANE_FLEET && strncmp(key, "device ", 7) == 0)
        return jump_to(c, pane, view, key + 7, "device", &t);   /* said as "device cam-01" */
    return jump_to(c, pane, view, key, pane == PANE_DEVICES && view == 1 ? "configuration" : row_word(pane), &t);
}

act_result jump_from_row(session *c)
{
    /* The Dashboard shows the Nodes pane's selected node. */
    int pane = c->pane == PANE_DASHBOARD ? PANE_NODES : c->pane;
    int view = c->pane == PANE_DASHBOARD ? 0 : c->screens[c->pane].view;
    const grid_row *r = grid_current(&c->screens[pane].tables[view].g);
    if (!r) {
        session_set_error(c, "nothing selected");
        return ACT_REDRAW;
    }
    char key[256];
    snprintf(key, sizeof key, "%s", r->key);
    return jump_from(c, c->pane == PANE_DASHBOARD ? PANE_DASHBOARD : pane, view, key);
}

act_result jump_from_details(session *c)
{
    if (!c->details.key[0]) {
        session_set_error(c, "> jumps from a row's details, not from a command's result");
        return ACT_REDRAW;
    }
    char key[256];
    snprintf(key, sizeof key, "%s", c->details.key);
    return jump_from(c, c->details.pane, c->details.view, key);
}

act_result jump_back(session *c)
{
    if (c->njumps == 0) {
        session_set_error(c, "no jump to go back from (> jumps)");
        return ACT_REDRAW;
    }
    const jump_place *p = &c->jumps[--c->njumps];
    /* the jump's target first: it may be the very table returned to */
    grid *to = &c->screens[p->to_pane].tables[p->to_view].g;
    if (strcmp(to->query, p->to_filter) != 0)
        set_query(to, p->to_pane, p->to_view, p->to_filter);
    c->pane = p->pane;
    c->screens[p->pane].view = p->view;
    c->details.text.open = 0;
    c->mode = MODE_NORMAL;
    int view = p->pane == PANE_DASHBOARD ? 0 : p->view;
    int from_pane = p->pane == PANE_DASHBOARD ? PANE_NODES : p->pane;
    grid *g = &c->screens[from_pane].tables[view].g;
    if (strcmp(g->query, p->filter) != 0)
        set_query(g, from_pane, view, p->filter);
    if (p->key[0])
        grid_select_key(g, p->key);
    grid_move(g, 0, session_page_rows(c));
    session_set_status(c, "back to %s%s%s", pane_view_get(p->pane, p->view)->title, p->key[0] ? " " : "", p->key);
    return ACT_REDRAW;
}
