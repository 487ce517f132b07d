/* panes.c - the panes' common machinery over the registry (pane_list.h):
 * looking a pane up, setting up and freeing their screens, which changes
 * make which table stale, loading a table (at once or in steps), the row
 * under the cursor, and names for completion.  What a pane shows is its
 * own file's record (tui/panes/pane_NAME.c).
 *
 * A loader runs command lines through session_exec_line() and turns the
 * result items into grid rows (panes_cells.c).
 */
#include "panes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dash.h"
#include "panes_int.h"

/* The records, in the registry's order (pane_list.h). */
#define PANE_PTR(name, id) [id] = &pane_##name,
static const pane_def *const panes[PANE_COUNT] = { PANE_LIST(PANE_PTR) };
#undef PANE_PTR

int pane_key(int i)
{
    return i >= 0 && i < PANE_COUNT ? panes[i]->key : 0;
}

int pane_of_key(int key)
{
    for (int i = 0; i < PANE_COUNT; i++)
        if (panes[i]->key == key)
            return i;
    return -1;
}

/* What each table shows is its view's `kinds` and `births` (LK_*).  Nodes
 * are patched row by row where they can be (panes_patch_nodes). */
void panes_follow(session *c, const live_state *l)
{
    pane_state *nodes = &c->screens[PANE_NODES].tables[0];
    int was_stale = nodes->stale;
    int patched = !(l->kinds & LK_NODES) || panes_patch_nodes(c, l);
    for (int p = 0; p < PANE_COUNT; p++)
        for (size_t v = 0; v < panes[p]->nviews; v++)
            if ((l->kinds & panes[p]->views[v].kinds) || (l->births & panes[p]->views[v].births))
                c->screens[p].tables[v].stale = 1;
    if (patched)
        nodes->stale = was_stale;
    c->dirty = 1;
}

const pane_def *pane_get(int i)
{
    return i >= 0 && i < PANE_COUNT ? panes[i] : NULL;
}

const pane_view *pane_view_get(int pane, int view)
{
    const pane_def *p = pane_get(pane);
    if (!p || view < 0 || (size_t)view >= p->nviews)
        return NULL;
    return &p->views[view];
}

int panes_init(session *c)
{
    int ok = 1;
    for (int p = 0; p < PANE_COUNT; p++) {
        c->screens[p].own = panes[p]->own_new ? panes[p]->own_new() : NULL;
        ok &= !panes[p]->own_new || c->screens[p].own;
        for (size_t v = 0; v < PANE_MAX_VIEWS; v++) {
            pane_state *ps = &c->screens[p].tables[v];
            memset(ps, 0, sizeof *ps);
            const pane_view *pv = pane_view_get(p, (int)v);
            grid_init(&ps->g, pv ? pv->ncols : 0);
            if (pv) {
                ps->g.sort_col = pv->sort_by - 1;
                ps->g.sort_desc = pv->sort_desc;
            }
            ps->stale = 1;
        }
    }
    return ok;
}

void panes_free(session *c)
{
    for (int p = 0; p < PANE_COUNT; p++) {
        for (int v = 0; v < PANE_MAX_VIEWS; v++) {
            panes_forget_shown(&c->screens[p].tables[v]);
            panes_jobs_abandon(&c->screens[p].tables[v]);
            grid_free(&c->screens[p].tables[v].g);
            json_decref(c->screens[p].tables[v].items);
            c->screens[p].tables[v].items = NULL;
        }
        if (panes[p]->own_free)
            panes[p]->own_free(c->screens[p].own);
        c->screens[p].own = NULL;
    }
}

/* What every load ends with, at once or in steps. */
static void panes_finish_load(const pane_view *v, pane_state *ps, int pane)
{
    if (ps->g.nrows == 0 && !ps->note[0])
        panes_set_note(ps, 0, v->empty_note);
    if (pane == PANE_NODES)
        panes_node_summary(ps);
    grid_apply(&ps->g);
    ps->stale = 0;
    ps->loaded = 1;
}

void pane_load(session *c, int pane, int view)
{
    const pane_view *v = pane_view_get(pane, view);
    if (!v)
        return;
    pane_state *ps = &c->screens[pane].tables[view];
    /* the Dashboard follows the Nodes pane's selected node */
    if (pane == PANE_DASHBOARD && !c->screens[PANE_NODES].tables[0].loaded)
        pane_load(c, PANE_NODES, 0);
    panes_jobs_abandon(ps);
    grid_clear_rows(&ps->g);
    panes_forget_shown(ps);
    ps->summary[0] = '\0';
    panes_set_note(ps, 0, "");
    if (v->load)
        v->load(c, v, ps);
    else
        panes_load_list(c, v, ps);
    panes_finish_load(v, ps, pane);
}

int pane_load_start(session *c, int pane, int view)
{
    const pane_view *v = pane_view_get(pane, view);
    pane_state *ps = v ? &c->screens[pane].tables[view] : NULL;
    if (!v || v->load != panes_load_jobs || !panes_jobs_begin(v, ps))
        return 0;
    /* A change from now on needs another read after this one. */
    ps->stale = 0;
    panes_set_note(ps, 0, "");
    return 1;
}

int panes_prefetch(session *c)
{
    /* Once the first table is on screen, so that Jobs is usually read
     * before '6' is pressed (100,000 jobs take seconds).  A Jobs table read
     * before and stale since waits to be shown: on a busy fleet it is stale
     * most of the time, and reading it again and again would keep a CPU
     * busy for nothing. */
    pane_state *jobs = &c->screens[PANE_JOBS].tables[0];
    if (jobs->loaded || jobs->loading || !jobs->stale || !session_current_table(c)->loaded)
        return 0;
    return pane_load_start(c, PANE_JOBS, 0);
}

int panes_loading(const session *c)
{
    return panes_jobs_loading(&c->screens[PANE_JOBS].tables[0], NULL);
}

int panes_load_step(session *c, long long budget_ms)
{
    pane_state *ps = &c->screens[PANE_JOBS].tables[0];
    const pane_view *v = pane_view_get(PANE_JOBS, 0);
    if (!ps->loading)
        return 0;
    int shown = c->pane == PANE_JOBS && c->screens[PANE_JOBS].view == 0;
    int r = panes_jobs_step(c, v, ps, budget_ms, shown);
    if (r & PANES_STEP_DONE) {
        /* A change while it read (panes_follow) asks for another read. */
        int stale = ps->stale;
        panes_finish_load(v, ps, PANE_JOBS);
        ps->stale = stale;
    }
    return shown ? r : r & PANES_STEP_DONE;
}

int panes_view_projected(const pane_view *v)
{
    return v->list_cmd && strstr(v->list_cmd, " --fields ") != NULL;
}

/* The row's whole document from the view's show command, kept until the
 * table changes (a projected table's items lack what forms and views read). */
static const json_t *shown_item(session *c, const pane_view *v, pane_state *ps, const char *key)
{
    if (ps->shown && strcmp(ps->shown_key, key) == 0)
        return ps->shown;
    char line[512];
    json_t *res = NULL;
    rd_err err;
    snprintf(line, sizeof line, "%s ", v->show_cmd);
    pane_append_key(v, key, line, sizeof line);
    if (session_exec_line(c, line, &res, &err) != RD_OK)
        return NULL;
    panes_forget_shown(ps);
    ps->shown = res;
    snprintf(ps->shown_key, sizeof ps->shown_key, "%s", key);
    return res;
}

const char *pane_owner_field(int pane, int view)
{
    const pane_view *v = pane_view_get(pane, view);
    return v ? v->owner_field : NULL;
}

const json_t *pane_row_item(const session *c, const char *key)
{
    const pane_view *v = pane_view_get(c->pane, c->screens[c->pane].view);
    size_t i;
    const json_t *item;
    json_array_foreach(v && key ? c->screens[c->pane].tables[c->screens[c->pane].view].items : NULL, i, item) {
        char k[256];
        pane_item_key(v, item, k, sizeof k);
        if (strcmp(k, key) == 0)
            return item;
    }
    return NULL;
}

const json_t *pane_current_item(session *c)
{
    pane_state *ps = session_current_table(c);
    const pane_view *v = pane_view_get(c->pane, c->screens[c->pane].view);
    const grid_row *r = grid_current(&ps->g);
    size_t i;
    const json_t *item;
    if (!r || !v)
        return NULL;
    if (panes_view_projected(v) && v->show_cmd)
        return shown_item(c, v, ps, r->key);
    json_array_foreach(ps->items, i, item) {
        char key[256];
        pane_item_key(v, item, key, sizeof key);
        if (strcmp(key, r->key) == 0)
            return item;
    }
    return NULL;
}

/* Names from a list command's items (catalogs the panes do not show). */
static void listed_names(session *c, const char *line, const char *field,
                         void (*add)(const char *name, void *data), void *data)
{
    json_t *res = NULL;
    rd_err err;
    size_t i;
    const json_t *m;
    if (session_exec_line(c, line, &res, &err) != RD_OK)
        return;
    json_array_foreach(json_object_get(res, "items"), i, m)
        if (json_is_string(json_object_get(m, field)))
            add(json_string_value(json_object_get(m, field)), data);
    json_decref(res);
}

void panes_names(names_kind kind, void (*add)(const char *name, void *data), void *data, void *ctx)
{
    session *c = ctx;
    /* an account's data objects by bare name: what --key K and a job spec take */
    static const char *const data_lists[] = { "key list", "dataset list", "checkpoint list", "model list" };
    if (kind >= NAMES_DATAKEY && kind <= NAMES_DATAMODEL) {
        listed_names(c, data_lists[kind - NAMES_DATAKEY], "name", add, data);
        return;
    }
    if (kind == NAMES_MODEL || kind == NAMES_GPU_TYPE || kind == NAMES_ENVIRONMENT) {
        listed_names(c, kind == NAMES_MODEL ? "device models" : kind == NAMES_GPU_TYPE ? "gpu list" :
                     "environment list", kind == NAMES_GPU_TYPE ? "id" : "name", add, data);
        return;
    }
    for (int p = 0; p < PANE_COUNT; p++)
        for (size_t vi = 0; vi < panes[p]->nviews; vi++) {
            const pane_view *v = &panes[p]->views[vi];
            if (v->names != kind)
                continue;
            pane_state *ps = &c->screens[p].tables[vi];
            if (!ps->loaded)
                pane_load(c, p, (int)vi);
            /* A configuration is named within its region: offer the bare name. */
            if (v->key_prefix && v->key_sep == ' ') {
                size_t k;
                const json_t *item;
                json_array_foreach(ps->items, k, item)
                    if (json_is_string(json_object_get(item, v->key_field)))
                        add(json_string_value(json_object_get(item, v->key_field)), data);
                continue;
            }
            for (size_t r = 0; r < ps->g.nrows; r++)
                add(ps->g.rows[r].key, data);
        }
}
