/* keys.c - the binding table, the central read-only guard, and the actions
 * of normal mode.  Mutating actions never touch the store: they build
 * command lines and hand them to a confirmation or a form. */
#define NCURSES_WIDECHAR 1
#include "keys.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "copy.h"
#include "dash.h"
#include "details.h"
#include "find.h"
#include "form.h"
#include "jump.h"
#include "layout.h"
#include "logs.h"
#include "panes.h"
#include "pick.h"
#include "text.h"

#define ALL_PANES ((1u << PANE_COUNT) - 1)
#define PANE_BIT(p) (1u << (p))
/* The panes that show a table (the Dashboard is no table: filter, sort,
 * marks and details have nothing to act on there). */
#define TABLE_PANES (ALL_PANES & ~PANE_BIT(PANE_DASHBOARD))

enum {
    KB_MUTATES = 1 << 0,    /* changes the store: refused in --read-only */
    KB_FOOTER = 1 << 1,     /* listed in the footer */
    KB_NEEDS_REMOVE = 1 << 2,   /* only where the table has a remove command */
    KB_NEEDS_ADD = 1 << 3,
    KB_NEEDS_EDIT = 1 << 4,
    KB_NEEDS_VIEWS = 1 << 5,    /* only where the pane has several tables */
    KB_NEEDS_JOBS = 1 << 6      /* only in the Jobs table (not Projects) */
};

/* One row of the table: the keys and the action they run first (as in
 * htop's keys['q'] = actionQuit), then where it applies and how the help
 * screen and footer name it. */
typedef struct {
    int keys[4];            /* 0-terminated */
    act_result (*run)(session *c, int key);
    unsigned panes;
    int flags;
    const char *name;       /* "Down/j" */
    const char *label;      /* footer word */
    const char *help;
} key_binding;

static int role_allows_rows(session *c, const char *words, const char *const *keys, size_t n);

/* ---- actions --------------------------------------------------------- */

static act_result act_pane(session *c, int key)
{
    c->pane = pane_of_key(key);
    return ACT_REDRAW;
}

static act_result act_next_pane(session *c, int key)
{
    /* A pane with a cursor of its own (the Fleet grid) moves it left and
     * right; Tab still changes pane. */
    if (key != '\t' && key != CK_FN(KEY_BTAB) && pane_get(c->pane)->cursor_key && pane_get(c->pane)->cursor_key(c, key))
        return ACT_REDRAW;
    int dir = key == CK_FN(KEY_BTAB) || key == CK_FN(KEY_LEFT) || key == 'h' ? -1 : 1;
    c->pane = (c->pane + dir + PANE_COUNT) % PANE_COUNT;
    return ACT_REDRAW;
}

static act_result act_next_view(session *c, int key)
{
    (void)key;
    c->screens[c->pane].view = (c->screens[c->pane].view + 1) % (int)pane_get(c->pane)->nviews;
    return ACT_REDRAW;
}

static act_result act_move(session *c, int key)
{
    if (pane_get(c->pane)->cursor_key && pane_get(c->pane)->cursor_key(c, key))
        return ACT_REDRAW;
    int page = session_page_rows(c);
    /* On the Dashboard the keys choose the node: the Nodes pane's
     * selection, so both panes show the same one. */
    int dash = c->pane == PANE_DASHBOARD;
    grid *g = dash ? &c->screens[PANE_NODES].tables[0].g : &session_current_table(c)->g;
    switch (key) {
    case CK_FN(KEY_UP): case 'k': grid_move(g, -1, page); break;
    case CK_FN(KEY_DOWN): case 'j': grid_move(g, 1, page); break;
    case CK_FN(KEY_PPAGE): case CK_CTRL('b'): grid_move(g, -page, page); break;
    case CK_FN(KEY_NPAGE): case CK_CTRL('f'): grid_move(g, page, page); break;
    case CK_FN(KEY_HOME): case 'g': grid_move_edge(g, 0, page); break;
    default: grid_move_edge(g, 1, page); break;
    }
    if (dash && grid_current(g) && strcmp(grid_current(g)->key, dash_of(c)->node) != 0) {
        dash_load_node(c);
        snprintf(c->screens[PANE_DASHBOARD].tables[0].summary, sizeof c->screens[PANE_DASHBOARD].tables[0].summary, "node %.200s", dash_of(c)->node);
    }
    return ACT_REDRAW;
}

/* [ ]: the Dashboard's previous or next GPU of the node. */
static act_result act_gpu(session *c, int key)
{
    if (dash_of(c)->gpus <= 0) {
        session_set_error(c, "%s reports no GPU", dash_of(c)->node[0] ? dash_of(c)->node : "no node");
        return ACT_REDRAW;
    }
    dash_step_gpu(c, key == '[' ? -1 : 1);
    session_set_status(c, "GPU %d of %d", dash_of(c)->gpu, dash_of(c)->gpus);
    return ACT_REDRAW;
}

/* A pane's own key (the Fleet grid's c): its record's action. */
static act_result act_pane_own(session *c, int key)
{
    if (pane_get(c->pane)->act)
        pane_get(c->pane)->act(c, key);
    return ACT_REDRAW;
}

/* A: acknowledge the selected (or marked) alerts.  No y/n question: an
 * acknowledgement only records who looked, it changes nothing on a node. */
static act_result act_ack(session *c, int key)
{
    (void)key;
    grid *g = &session_current_table(c)->g;
    const char *keys[CONFIRM_MAX_LINES];
    size_t n = 0;
    for (size_t i = 0; i < g->nrows && n < CONFIRM_MAX_LINES; i++)
        if (grid_is_marked(g, g->rows[i].key))
            keys[n++] = g->rows[i].key;
    if (n == 0 && grid_current(g))
        keys[n++] = grid_current(g)->key;
    if (n == 0) {
        session_set_error(c, "nothing selected");
        return ACT_REDRAW;
    }
    char done[256] = "";
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        char line[160] = "alert ack ";
        json_t *res = NULL;
        rd_err err;
        prompt_quote_word(line, sizeof line, keys[i]);
        if (session_exec_line(c, line, &res, &err) != RD_OK) {
            session_set_error(c, "%s", err.msg);
            return ACT_FOLLOW | ACT_REDRAW;
        }
        json_decref(res);
        if (used < sizeof done)
            used += (size_t)snprintf(done + used, sizeof done - used, "%s%s", i ? ", " : "", keys[i]);
    }
    grid_clear_marks(g);
    session_set_status(c, "acknowledged alert%s %s as %s", n > 1 ? "s" : "", done, c->opt->actor);
    return ACT_FOLLOW | ACT_REDRAW;
}

static act_result act_filter(session *c, int key)
{
    (void)key;
    grid *g = &session_current_table(c)->g;
    /* As typed, column:value terms and all. */
    const char *query = g->query[0] ? g->query : g->filter;
    snprintf(c->filter_before, sizeof c->filter_before, "%s", query);
    ledit_set(&c->edit, query);
    c->mode = MODE_FILTER;
    return ACT_REDRAW;
}

static act_result act_sort(session *c, int key)
{
    (void)key;
    grid *g = &session_current_table(c)->g;
    grid_cycle_sort(g);
    const pane_view *v = pane_view_get(c->pane, c->screens[c->pane].view);
    if (g->sort_col < 0)
        session_set_status(c, "sorted as the command lists them");
    else
        session_set_status(c, "sorted by %s %s", v->cols[g->sort_col].header,
                           g->sort_desc ? "descending" : "ascending");
    return ACT_REDRAW;
}

static act_result act_mark(session *c, int key)
{
    (void)key;
    grid *g = &session_current_table(c)->g;
    grid_toggle_mark(g);
    grid_move(g, 1, session_page_rows(c));
    session_set_status(c, "%zu marked (space marks, Esc clears)", g->nmarks);
    return ACT_REDRAW;
}

static act_result act_clear(session *c, int key)
{
    (void)key;
    grid_clear_marks(&session_current_table(c)->g);
    session_set_status(c, "marks cleared");
    return ACT_REDRAW;
}

/* The rows an action applies to: the marked ones still listed, else the
 * one under the cursor.  Returns the count; keys are borrowed. */
static size_t targets(session *c, const char **out, size_t max)
{
    grid *g = &session_current_table(c)->g;
    size_t n = 0;
    for (size_t i = 0; i < g->nrows && n < max; i++)
        if (grid_is_marked(g, g->rows[i].key))
            out[n++] = g->rows[i].key;
    if (n == 0 && grid_current(g))
        out[n++] = grid_current(g)->key;
    return n;
}

/* Confirms lines "PREFIX KEY SUFFIX" for every target, naming them all. */
static void confirm_each(session *c, const char *verb, const char *prefix, const char *suffix)
{
    const pane_view *v = pane_view_get(c->pane, c->screens[c->pane].view);
    const char *keys[CONFIRM_MAX_LINES];
    char *lines[CONFIRM_MAX_LINES];
    size_t n = targets(c, keys, CONFIRM_MAX_LINES);
    if (n == 0) {
        session_set_error(c, "nothing selected");
        return;
    }
    char question[1024];
    size_t used = (size_t)snprintf(question, sizeof question, "%s ", verb);
    for (size_t i = 0; i < n; i++) {
        char line[512];
        snprintf(line, sizeof line, "%s ", prefix);
        pane_append_key(v, keys[i], line, sizeof line);
        if (suffix) {
            strncat(line, " ", sizeof line - strlen(line) - 1);
            strncat(line, suffix, sizeof line - strlen(line) - 1);
        }
        lines[i] = strdup(line);
        if (used < sizeof question)
            used += (size_t)snprintf(question + used, sizeof question - used, "%s%s", i ? ", " : "", keys[i]);
    }
    if (used < sizeof question)
        snprintf(question + used, sizeof question - used, "?");
    session_ask_confirm(c, question, lines, n);
    for (size_t i = 0; i < n; i++)
        free(lines[i]);
}

static act_result act_maintenance(session *c, int key)
{
    (void)key;
    const char *keys[CONFIRM_MAX_LINES];
    size_t n = targets(c, keys, CONFIRM_MAX_LINES);
    if (role_allows_rows(c, "node maintenance", keys, n))
        confirm_each(c, "Toggle maintenance on", "node maintenance", "toggle");
    return ACT_REDRAW;
}

static act_result act_remove(session *c, int key)
{
    (void)key;
    const pane_view *v = pane_view_get(c->pane, c->screens[c->pane].view);
    char verb[128];
    snprintf(verb, sizeof verb, "%c%s %s", v->remove_verb[0] - 'a' + 'A', v->remove_verb + 1, v->title);
    /* "Remove Nodes gpu-07?" reads badly: name the kind in the singular. */
    size_t n = strlen(verb);
    if (n > 1 && verb[n - 1] == 's')
        verb[n - 1] = '\0';
    for (char *p = strchr(verb, ' ') + 1; *p; p++)
        *p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
    const char *keys[CONFIRM_MAX_LINES];
    size_t nk = targets(c, keys, CONFIRM_MAX_LINES);
    if (role_allows_rows(c, v->remove_cmd, keys, nk))
        confirm_each(c, verb, v->remove_cmd, NULL);
    return ACT_REDRAW;
}

static void open_form(session *c, int id, const json_t *item)
{
    form_state *f = form_open(id, item);
    if (!f) {
        session_set_error(c, "out of memory");
        return;
    }
    form_close(c->form);
    c->form = f;
    c->mode = MODE_FORM;
}

static act_result act_add(session *c, int key)
{
    (void)key;
    open_form(c, pane_view_get(c->pane, c->screens[c->pane].view)->add_form, NULL);
    return ACT_REDRAW;
}

static act_result act_edit(session *c, int key)
{
    (void)key;
    const json_t *item = pane_current_item(c);
    if (!item) {
        session_set_error(c, "nothing selected");
        return ACT_REDRAW;
    }
    const grid_row *r = grid_current(&session_current_table(c)->g);
    const char *keys[1] = { r ? r->key : NULL };
    const form_def *f = form_get(pane_view_get(c->pane, c->screens[c->pane].view)->edit_form);
    if (!r || !f || role_allows_rows(c, f->cmd, keys, 1))
        open_form(c, pane_view_get(c->pane, c->screens[c->pane].view)->edit_form, item);
    return ACT_REDRAW;
}

static act_result act_details(session *c, int key)
{
    (void)key;
    details_open(c);
    return ACT_REDRAW;
}

/* o/L: the selected job's output (worker 0; [ ] pick another). */
static act_result act_logs(session *c, int key)
{
    (void)key;
    const grid_row *r = grid_current(&session_current_table(c)->g);
    const json_t *item = pane_current_item(c);
    if (!r || !item) {
        session_set_error(c, "nothing selected");
        return ACT_REDRAW;
    }
    const json_t *total = json_object_get(item, "workers_total");
    int n = json_is_integer(total) ? (int)json_integer_value(total)
                                   : (int)json_array_size(json_object_get(item, "workers"));
    logs_open(c, r->key, n);
    return ACT_REDRAW;
}

static act_result act_prompt(session *c, int key)
{
    (void)key;
    ledit_set(&c->edit, "");
    c->history.pos = c->history.count;
    compl_list_free(&c->compl);
    c->mode = MODE_PROMPT;
    return ACT_REDRAW;
}

/* u: the Dashboard's roll-up per region or per account. */
static act_result act_rollup(session *c, int key)
{
    (void)key;
    dash_toggle_rollup(c);
    session_set_status(c, "use by %s", dash_of(c)->rollup_by_account ? "account" : "region");
    return ACT_REDRAW;
}

static act_result act_refresh(session *c, int key)
{
    (void)key;
    session_set_status(c, "reloading...");
    c->reload_asked = 1;
    return ACT_RELOAD | ACT_REPAINT | ACT_REDRAW;
}

static act_result act_help(session *c, int key)
{
    (void)key;
    keys_help(c, &c->help);
    c->mode = MODE_HELP;
    return ACT_REDRAW;
}

static act_result act_sync(session *c, int key)
{
    (void)key;
    session_start_sync(c, 1);
    return ACT_REDRAW;
}

/* y: the selected row's id or name into the operator's clipboard (OSC 52). */
static act_result act_copy(session *c, int key)
{
    (void)key;
    return copy_selected(c);
}

/* > and <: jump from the row to the one it names in another pane, and
 * back (jump.c). */
static act_result act_jump(session *c, int key)
{
    (void)key;
    return jump_from_row(c);
}

static act_result act_back(session *c, int key)
{
    (void)key;
    return jump_back(c);
}

static act_result act_quit(session *c, int key)
{
    (void)key;
    (void)c;
    return ACT_QUIT;
}

#define K(...) { __VA_ARGS__, 0 }
static const key_binding bindings[] = {
    /* keys, action, panes, flags,
     *   name in help, footer label (NULL: not in the footer), help line */
    { K('1', '2', '3'), act_pane, ALL_PANES, 0,
      "1-9 0 ! #", NULL, "jump to a pane: 1 Providers 2 Regions 3 Nodes 4 Devices 5 Quotas "
      "6 Jobs 7 Billing 8 Datastores/Reservations 9 Audit 0 Dashboard ! Alerts # Fleet" },
    { K('\t', CK_FN(KEY_RIGHT), 'l'), act_next_pane, ALL_PANES, 0,
      "Tab/Right/l", NULL, "next pane (Fleet: Right/l move the cursor a cell)" },
    { K(CK_FN(KEY_BTAB), CK_FN(KEY_LEFT), 'h'), act_next_pane, ALL_PANES, 0,
      "S-Tab/Left/h", NULL, "previous pane (Fleet: Left/h move the cursor a cell)" },
    { K(CK_FN(KEY_UP), 'k'), act_move, ALL_PANES, 0,
      "Up/k", NULL, "move up (Dashboard: the previous node of the Nodes pane)" },
    { K(CK_FN(KEY_DOWN), 'j'), act_move, ALL_PANES, 0,
      "Down/j", NULL, "move down (Dashboard: the next node)" },
    { K('[', ']'), act_gpu, PANE_BIT(PANE_DASHBOARD), KB_FOOTER,
      "[/]", "GPU", "Dashboard: the node's previous or next GPU" },
    { K('u'), act_rollup, PANE_BIT(PANE_DASHBOARD), KB_FOOTER,
      "u", "use by", "Dashboard: the fleet's use per region or per account (metrics fleet --by)" },
    { K(CK_FN(KEY_PPAGE), CK_CTRL('b')), act_move, ALL_PANES, 0,
      "PgUp/^B", NULL, "page up" },
    { K(CK_FN(KEY_NPAGE), CK_CTRL('f')), act_move, ALL_PANES, 0,
      "PgDn/^F", NULL, "page down" },
    { K(CK_FN(KEY_HOME), 'g'), act_move, ALL_PANES, 0,
      "Home/g", NULL, "first row" },
    { K(CK_FN(KEY_END), 'G'), act_move, ALL_PANES, 0,
      "End/G", NULL, "last row" },
    /* the Fleet grid (pane_fleet.c) */
    { K('c'), act_pane_own, PANE_BIT(PANE_FLEET), KB_FOOTER,
      "c", "colour", "Fleet: colour the cells by the next of state, GPU allocation, GPU use, temperature, health" },
    { K('A'), act_ack, PANE_BIT(PANE_ALERTS), KB_MUTATES | KB_FOOTER,
      "A", "ack", "acknowledge the selected or marked alerts (alert ack ID): they show who looked", },
    { K('\n', '\r', CK_FN(KEY_ENTER)), act_details, TABLE_PANES, KB_FOOTER,
      "Enter", "details", "details of the selected row" },
    { K('o', 'L'), act_logs, PANE_BIT(PANE_JOBS), KB_FOOTER | KB_NEEDS_JOBS,
      "o L", "logs", "the selected job's output (job logs), following it while it runs; "
      "[ ] or 0-9 another worker, q closes" },
    { K('/', CK_FN(KEY_F(3))), act_filter, TABLE_PANES, KB_FOOTER,
      "/ F3", "filter", "filter rows: substring of any cell; !text keeps the rest" },
    { K('s'), act_sort, TABLE_PANES, 0,
      "s", NULL, "cycle the sort column and direction" },
    { K('m', CK_FN(KEY_F(9))), act_maintenance, PANE_BIT(PANE_NODES), KB_MUTATES | KB_FOOTER,
      "m F9", "maint", "toggle maintenance of the selected or marked nodes (asks first)" },
    { K('a', CK_FN(KEY_F(7))), act_add, ALL_PANES, KB_MUTATES | KB_FOOTER | KB_NEEDS_ADD,
      "a F7", "add", "add: a form that builds the command line" },
    { K('e', CK_FN(KEY_F(4))), act_edit, ALL_PANES, KB_MUTATES | KB_FOOTER | KB_NEEDS_EDIT,
      "e F4", "edit", "edit the selected row through a form" },
    { K('d', CK_FN(KEY_F(8))), act_remove, ALL_PANES, KB_MUTATES | KB_FOOTER | KB_NEEDS_REMOVE,
      "d F8", "remove", "remove (jobs: stop) the selected or marked rows (asks first)" },
    { K(':', CK_FN(KEY_F(2))), act_prompt, ALL_PANES, KB_FOOTER,
      ": F2", "command", "run any command line (Tab completes, Up/Down history)" },
    { K('?', CK_FN(KEY_F(1))), act_help, ALL_PANES, KB_FOOTER,
      "? F1", "help", "every key binding" },
    { K('v'), act_next_view, ALL_PANES, KB_FOOTER | KB_NEEDS_VIEWS,
      "v", "view", "next table of this pane (Wallets/Entries/Device fees, Datastores/Reservations; "
      "Alerts: all or only the firing ones)" },
    { K(' '), act_mark, TABLE_PANES, KB_FOOTER,
      "Space", "mark", "mark or unmark the row (m and d act on every marked row)" },
    { K(CK_ESC), act_clear, ALL_PANES, 0,
      "Esc", NULL, "clear the marks" },
    { K('r', CK_FN(KEY_F(5)), CK_CTRL('l')), act_refresh, ALL_PANES, 0,
      "r F5 ^L", NULL, "reload and repaint" },
    { K('S'), act_sync, ALL_PANES, KB_MUTATES | KB_FOOTER,
      "S", "sync", "run one round of 'cloud sync' for the GCP regions now, in the background "
      "(it also runs every minute)" },
    { K('y'), act_copy, ALL_PANES, KB_FOOTER,
      "y", "copy", "copy the selected row's id or name (Dashboard: its node; in a job's details a running "
      "notebook's or endpoint's URL) into your own clipboard through the terminal, over SSH too (OSC 52)" },
    /* find and order (issue 35 item 2) */
    { K('n', 'N'), find_table_step, TABLE_PANES, 0,
      "n N", NULL, "the next or previous row of the filter, going round (in a view: the next or "
      "previous match of its '/' search)" },
    { K(CK_FN(KEY_F(6)), 'O'), pick_open_sort, TABLE_PANES, KB_FOOTER,
      "F6 O", "sort", "sort picker: the table's columns; Enter sorts by one, again turns the direction round" },
    { K('C'), pick_open_columns, TABLE_PANES, KB_FOOTER,
      "C", "columns", "column chooser: Space shows or hides a column, +/- move it, Enter keeps the choice "
      "(saved in $XDG_CONFIG_HOME/rigdeck/columns)" },
    /* jumps (issue 35 item 3) */
    { K('>'), act_jump, PANE_BIT(PANE_JOBS) | PANE_BIT(PANE_NODES) | PANE_BIT(PANE_ALERTS) | PANE_BIT(PANE_DEVICES) |
      PANE_BIT(PANE_DASHBOARD) | PANE_BIT(PANE_FLEET), KB_FOOTER,
      ">", "jump", "jump: a job to its node (its first worker's), a node (or the Dashboard's, or a Fleet map "
      "cell's) to the Jobs listing it, an alert to its node, a device or configuration (or a map's device "
      "cell) to its region; also in a row's details" },
    { K('<', CK_FN(KEY_BACKSPACE), 127), act_back, ALL_PANES, 0,
      "< Bksp", NULL, "back to where the last jump came from: its pane, table, filter and selected row" },
    { K('q', CK_FN(KEY_F(10))), act_quit, ALL_PANES, KB_FOOTER,
      "q F10", "quit", "quit and restore the terminal" },
};
#define NBINDINGS (sizeof bindings / sizeof bindings[0])

/* Whether a binding applies to the current pane and table. */
static int applies(const session *c, const key_binding *b)
{
    const pane_view *v = pane_view_get(c->pane, c->screens[c->pane].view);
    if (!(b->panes & PANE_BIT(c->pane)))
        return 0;
    if ((b->flags & KB_NEEDS_REMOVE) && !v->remove_cmd)
        return 0;
    if ((b->flags & KB_NEEDS_ADD) && v->add_form == FORM_NONE)
        return 0;
    if ((b->flags & KB_NEEDS_EDIT) && v->edit_form == FORM_NONE)
        return 0;
    if ((b->flags & KB_NEEDS_VIEWS) && pane_get(c->pane)->nviews < 2)
        return 0;
    if ((b->flags & KB_NEEDS_JOBS) && (c->pane != PANE_JOBS || c->screens[c->pane].view != 0))
        return 0;
    return 1;
}

static int binding_has_key(const key_binding *b, int key)
{
    if (b->run == act_pane)
        return pane_of_key(key) >= 0;
    for (int i = 0; b->keys[i]; i++)
        if (b->keys[i] == key)
            return 1;
    return 0;
}

/* The command a mutating binding runs in the current table: a, e and d
 * run the table's own (its forms', its remove command). */
static const char *binding_cmd(const session *c, const key_binding *b)
{
    const pane_view *v = pane_view_get(c->pane, c->screens[c->pane].view);
    const form_def *f = NULL;
    if (b->run == act_maintenance)
        return "node maintenance";
    if (b->run == act_ack)
        return "alert ack";
    if (b->run == act_sync)
        return "cloud sync";
    if (b->run == act_remove)
        return v->remove_cmd;
    if (b->run == act_add)
        f = form_get(v->add_form);
    else if (b->run == act_edit)
        f = form_get(v->edit_form);
    return f ? f->cmd : NULL;
}

/* Whether the session's role may run words on a row of this account
 * (owner NULL: at all): core/access answers, the console decides nothing.
 * An unknown role (not read yet) allows: the executor still guards. */
static int role_may(const session *c, const char *words, const char *owner, const char *name, rd_err *err)
{
    const cmd_def *def = cmd_find(words);
    rd_err_clear(err);
    if (!c->role_known || !def || !c->ctx.actor)
        return 1;
    return access_role_may(c->role, c->ctx.actor, def, owner, name, err) == RD_OK;
}

/* The owner of a row of the current table, or NULL. */
static const char *row_owner(const session *c, const char *key)
{
    const char *field = pane_owner_field(c->pane, c->screens[c->pane].view);
    return field ? json_string_value(json_object_get(pane_row_item(c, key), field)) : NULL;
}

/* Whether the role may run words on each of the rows keys names; says at
 * once why not (before any question is asked) when it may not. */
static int role_allows_rows(session *c, const char *words, const char *const *keys, size_t n)
{
    rd_err err;
    for (size_t i = 0; i < n; i++)
        if (!role_may(c, words, row_owner(c, keys[i]), keys[i], &err)) {
            session_set_error(c, "%s", err.msg);
            return 0;
        }
    return 1;
}

/* Whether a binding may run now; err says why not.  A read-only session
 * runs no mutating one, and a role none whose command core/access says it
 * may not run. */
static int guard_check(const session *c, const key_binding *b, rd_err *err)
{
    rd_err_clear(err);
    if (!(b->flags & KB_MUTATES))
        return 1;
    if (c->read_only) {
        snprintf(err->msg, sizeof err->msg, "read-only session (--read-only): %s (%s) is disabled", b->name, b->label);
        return 0;
    }
    const char *words = binding_cmd(c, b);
    rd_err why;
    if (!words || role_may(c, words, NULL, NULL, &why))
        return 1;
    snprintf(err->msg, sizeof err->msg, "%s (%s) is disabled: %.400s", b->name, b->label, why.msg);
    return 0;
}

/* THE guard: every mutating binding, and the background sync timer,
 * passes here, nowhere else. */
static int guard_allows(session *c, const key_binding *b, int report)
{
    rd_err err;
    if (guard_check(c, b, &err))
        return 1;
    if (report)
        session_set_error(c, "%s", err.msg);
    return 0;
}

/* Whether the footer and help offer a binding now: the guard allows it and,
 * for a key that acts on the selected row (m, e, d), the role may act on
 * that row. */
static int offered(const session *c, const key_binding *b)
{
    rd_err err;
    if (!guard_check(c, b, &err))
        return 0;
    if (b->run != act_maintenance && b->run != act_edit && b->run != act_remove)
        return 1;
    const grid_row *r = grid_current(&c->screens[c->pane].tables[c->screens[c->pane].view].g);
    const char *words = binding_cmd(c, b);
    /* a role that may act on a row of nobody's (staff, admins) may on any:
     * no need to look the row up among thousands at every frame */
    if (!r || !words || role_may(c, words, "", r->key, &err))
        return 1;
    return role_may(c, words, row_owner(c, r->key), r->key, &err);
}

int keys_allows(session *c, int key, int report)
{
    for (size_t i = 0; i < NBINDINGS; i++)
        if (binding_has_key(&bindings[i], key))
            return guard_allows(c, &bindings[i], report);
    return 0;
}

int keys_offers(const session *c, int key)
{
    for (size_t i = 0; i < NBINDINGS; i++)
        if (binding_has_key(&bindings[i], key))
            return applies(c, &bindings[i]) && offered(c, &bindings[i]);
    return 0;
}

/* THE too-small guard: the message that replaces the screen hides every
 * table, question and form, so a key acting there would act unseen (m then
 * y toggled maintenance behind it).  Resize and quit must still work, and
 * '?' is harmless: help only reads. */
int keys_allows_size(int rows, int cols, int key)
{
    if (!layout_compute(rows, cols, 0, 0).too_small)
        return 1;
    return key == CK_FN(KEY_RESIZE) || key == '?' || key == 'q';
}

act_result keys_dispatch(session *c, int key)
{
    for (size_t i = 0; i < NBINDINGS; i++) {
        const key_binding *b = &bindings[i];
        if (!binding_has_key(b, key))
            continue;
        if (!applies(c, b)) {
            session_set_error(c, "%s: not available in %s", b->name, pane_view_get(c->pane, c->screens[c->pane].view)->title);
            return ACT_REDRAW;
        }
        return guard_allows(c, b, 1) ? b->run(c, key) : ACT_REDRAW;
    }
    if (key > 32 && key < 127)
        session_set_error(c, "'%c' does nothing here; ? lists the keys", key);
    return ACT_REDRAW;
}

size_t keys_footer(const session *c, char keys[][16], const char **labels, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < NBINDINGS && n < max; i++) {
        const key_binding *b = &bindings[i];
        if (!(b->flags & KB_FOOTER) || !applies(c, b))
            continue;
        /* Read-only, or a role that may not: keys that would be refused
         * are not offered. */
        if (!offered(c, b))
            continue;
        /* The footer shows the first key only ("m", not "m F9"). */
        snprintf(keys[n], 16, "%.*s", (int)strcspn(b->name, " "), b->name);
        labels[n] = b->label;
        n++;
    }
    return n;
}

void keys_help(const session *c, textview *tv)
{
    char line[512];
    textview_clear(tv);
    snprintf(tv->title, sizeof tv->title, "Keys");
    int role_disabled = 0;
    for (size_t i = 0; i < NBINDINGS; i++) {
        const key_binding *b = &bindings[i];
        rd_err err;
        char why[64] = "";
        if ((b->flags & KB_MUTATES) && c->read_only)
            snprintf(why, sizeof why, "  [disabled: read-only]");
        else if (applies(c, b) && !guard_check(c, b, &err)) {
            snprintf(why, sizeof why, "  [disabled: role %s]", access_role_name(c->role));
            role_disabled++;
        }
        snprintf(line, sizeof line, "  %-14s %s%s", b->name, b->help, why);
        textview_add(tv, line);
    }
    textview_add_text(tv,
        "\nIn the ':' prompt\n"
        "  Enter          run the line (any command of 'help'); the result opens in a view\n"
        "  Tab            complete command words, flags, choices and names\n"
        "  Up/Down        history;  ^A ^E ^U ^W ^K  edit;  Esc  cancel\n"
        "In the '/' filter\n"
        "  words match any cell; column:value matches that column (state:active, waiting_reason:quota;\n"
        "  column:!value the others), terms ANDed; Enter keeps the filter, Esc restores the previous\n"
        "  one; an empty filter shows all; n and N then step through the rows\n"
        "In a confirmation:  y  confirms;  n or Esc  cancels\n"
        "In a form:  Tab/Down next field, Up previous, Left/Right cycle choices, Enter submit, Esc cancel\n"
        "In a view (details, results, this help, logs)\n"
        "  Up/Down/j/k PgUp/PgDn scroll, Left/Right pan, Esc or q closes;\n"
        "  / searches (any case), n next match, N previous, going round at either end\n"
        "In the sort picker (F6 O):  Up/Down choose, Enter sorts (again: the other direction), Esc cancels\n"
        "In the column chooser (C):  Space shows/hides, +/- move up/down, d default, Enter or Esc keeps\n"
        "In the logs view (o on a job)\n"
        "  [ ] previous/next worker, 0-9 that worker, r reads again, End follows new output,\n"
        "  scroll as in a view, Esc or q closes; it reads again every second while the worker runs\n"
        "With a mouse (RIGDECK_NO_MOUSE=1 turns it off; Shift+drag still selects text in most terminals)\n"
        "  a click on a tab opens that pane, on a column header sorts by it (again: the other way),\n"
        "  on a row selects it; the wheel scrolls tables, views and logs\n");
    if (!c->read_only && c->role_known && c->role != ACCESS_ADMIN) {
        snprintf(line, sizeof line, "\nAccount '%s' has role %s: %s m, e and d act only on rows its account "
                 "owns\n(another's is refused at once, before any question).\n", c->ctx.actor ? c->ctx.actor : "",
                 access_role_name(c->role), role_disabled ? "keys marked disabled are refused here;" : "");
        textview_add_text(tv, line);
    }
    if (c->read_only)
        textview_add_text(tv, "\nThis session is read-only (--read-only): a, e, d, m, A and S are refused, no\n"
                              "background cloud sync runs, and so is any ':' line that would change the store.\n");
}
