/* draw.c - the header, tabs, banner, summary, table, views, dialogs (the
 * y/n question and the add/edit forms), status line and footer. */
#define NCURSES_WIDECHAR 1
#include "draw.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "form.h"
#include "keys.h"
#include "layout.h"
#include "panes.h"
#include "pick.h"
#include "text.h"


/* Puts text (if any) right-aligned left of column *x on the header row and
 * moves *x past it, as long as two thirds of the row stay for the rest: the
 * store URL on the left is what gets cut when space runs out. */
static void draw_header_item(lay_rect r, int *x, const char *text, theme_elem e)
{
    char cell[512];
    if (!text[0])
        return;
    snprintf(cell, sizeof cell, " %s ", text);
    int w = text_cols(cell);
    if (*x - w > r.w / 3) {
        *x -= w + 1;
        draw_text(r.y, *x, w, cell, e);
    }
}

static void draw_header(session *c, lay_rect r)
{
    char right[512], clock[64], left[1024];
    draw_fill(r.y, r.x, r.w, TH_HEADER);
    rd_time now = c->opt->now_text ? c->opt->now : (rd_time)time(NULL);
    char iso[RDTIME_BUFLEN];
    rdtime_format(now, iso);
    iso[10] = ' ';
    /* Narrow terminals get the time of day only. */
    snprintf(clock, sizeof clock, "%s%s ", r.w < 100 ? iso + 11 : iso, c->opt->now_text ? " (--now)" : "");
    int x = r.x + r.w - text_cols(clock);
    draw_text(r.y, x, text_cols(clock), clock, TH_HEADER);
    /* Whether a controller leads comes right after the clock: its narrow
     * form fits an 80-column header with room for the alerts. */
    char ctl[256], count[64];
    theme_elem ce = header_format_ctl(&c->ctl, r.w, ctl, sizeof ctl);
    draw_header_item(r, &x, ctl, ce);
    theme_elem ae = header_format_alerts(c->firing, count, sizeof count);
    draw_header_item(r, &x, count, ae);
    if (c->alerts[0]) {
        snprintf(right, sizeof right, "! %s", c->alerts);
        draw_header_item(r, &x, right, TH_HEADER_ALERT);
    }
    draw_header_item(r, &x, c->sync.label, c->sync.error ? TH_HEADER_ALERT : TH_HEADER);
    if (c->read_only) {
        const char *ro = " READ-ONLY ";
        x -= (int)strlen(ro) + 1;
        draw_text(r.y, x, (int)strlen(ro), ro, TH_READ_ONLY);
    }
    /* The account before the store URL: when space runs out the URL's
     * tail is what gets cut. */
    snprintf(left, sizeof left, " rigdeck %s as %s %s store %s", text_glyph(GL_SEP), c->opt->actor,
             text_glyph(GL_SEP), c->opt->store_url);
    draw_text(r.y, r.x, x - r.x - 1, left, TH_HEADER);
}

static void draw_tabs(session *c, lay_rect r)
{
    int cols[PANE_COUNT][3], x[PANE_COUNT], w[PANE_COUNT];
    draw_fill(r.y, r.x, r.w, TH_TAB);
    /* The longest labels that fit: full names, shorter ones, the shortest,
     * the shortest without the leading blank (eleven panes in 80 columns);
     * layout_tabs places them, as it does for a click (mouse.c). */
    for (int p = 0; p < PANE_COUNT; p++) {
        cols[p][0] = text_cols(pane_get(p)->name);
        cols[p][1] = text_cols(pane_get(p)->mid);
        cols[p][2] = text_cols(pane_get(p)->tiny);
    }
    int level = layout_tabs((const int (*)[3])cols, PANE_COUNT, r.w, x, w);
    for (int p = 0; p < PANE_COUNT; p++) {
        const pane_def *d = pane_get(p);
        char tab[64];
        if (!w[p])
            continue;
        snprintf(tab, sizeof tab, level < 3 ? " %c %s " : "%c %s ", pane_key(p),
                 level == 0 ? d->name : level == 1 ? d->mid : d->tiny);
        draw_text(r.y, r.x + x[p], w[p], tab, p == c->pane ? TH_TAB_ACTIVE : TH_TAB);
    }
}

static void draw_summary(session *c, lay_rect r)
{
    const pane_def *d = pane_get(c->pane);
    const pane_view *v = pane_view_get(c->pane, c->screens[c->pane].view);
    pane_state *ps = session_current_table(c);
    grid *g = &ps->g;
    char left[512], title[160];
    draw_fill(r.y, r.x, r.w, TH_SUMMARY);
    if (v->ncols == 0) {
        /* No table (the Dashboard): its title and its own figures. */
        snprintf(left, sizeof left, " %s %s %s", d->name, ps->summary[0] ? text_glyph(GL_SEP) : "", ps->summary);
        draw_text(r.y, r.x, r.w, left, TH_SUMMARY);
        return;
    }
    if (d->nviews > 1) {
        size_t used = (size_t)snprintf(title, sizeof title, "%s:", d->mid);
        for (size_t i = 0; i < d->nviews && used < sizeof title; i++)
            used += (size_t)snprintf(title + used, sizeof title - used, (int)i == c->screens[c->pane].view ? " [%s]" : " %s",
                                     d->views[i].title);
    } else {
        snprintf(title, sizeof title, "%s", d->name);
    }
    size_t used = (size_t)snprintf(left, sizeof left, " %s %s %zu of %zu", title, text_glyph(GL_SEP),
                                   g->nview, g->nrows);
    const char *query = g->query[0] ? g->query : g->filter;
    if (query[0] && used < sizeof left)
        used += (size_t)snprintf(left + used, sizeof left - used, " %s filter \"%s\"", text_glyph(GL_SEP), query);
    if (g->sort_col >= 0 && used < sizeof left)
        used += (size_t)snprintf(left + used, sizeof left - used, " %s sort %s %s", text_glyph(GL_SEP),
                                 v->cols[g->sort_col].header, text_glyph(g->sort_desc ? GL_SORT_DOWN : GL_SORT_UP));
    if (g->nmarks && used < sizeof left)
        snprintf(left + used, sizeof left - used, " %s %zu marked", text_glyph(GL_SEP), g->nmarks);
    int lw = draw_text(r.y, r.x, r.w, left, TH_SUMMARY);
    int rw = text_cols(ps->summary) + 1;
    if (ps->summary[0] && lw + 3 < r.w) {
        if (rw > r.w - lw - 3)
            rw = r.w - lw - 3;
        draw_text(r.y, r.x + r.w - rw, rw, ps->summary, TH_SUMMARY);
    }
}

/* Highlights each match of needle (any case) in text drawn at y, x in w
 * cells: what '/' found stands out in the theme's search_match. */
static void draw_matches(int y, int x, int w, const char *text, const char *needle)
{
    size_t nl = strlen(needle);
    if (!nl)
        return;
    for (const char *p = strcasestr(text, needle); p; p = strcasestr(p + nl, needle)) {
        char head[1024], hit[256];
        snprintf(head, sizeof head, "%.*s", (int)(p - text < 1000 ? p - text : 1000), text);
        int hx = text_cols(head);
        if (hx >= w)
            return;
        snprintf(hit, sizeof hit, "%.*s", (int)(nl < 250 ? nl : 250), p);
        draw_text(y, x + hx, w - hx, hit, TH_SEARCH_MATCH);
    }
}

static void draw_cell(int y, int x, int w, const pane_col *col, const grid_row *row, const char *text,
                      theme_elem base, int selected)
{
    theme_elem e = base;
    /* Each state cell by its own word: a node's STATE and AGENT, a
     * device's STATE and DEPLOYMENT differ. */
    if ((col->flags & COL_STATE) && !selected && theme_state_elem(text) != TH_NORMAL)
        e = theme_state_elem(text);
    if ((col->flags & COL_MONEY) && !selected && text[0] == '-' && text[1])
        e = TH_MONEY_NEGATIVE;
    if ((col->flags & COL_BAR) && row->bar >= 0 && w >= 8) {
        char pct[16], bar[512];
        int filled;
        snprintf(pct, sizeof pct, " %4s", text);
        int bw = w - 5;
        text_bar(row->bar, bw, bar, sizeof bar, &filled);
        move(y, x);
        attrset(theme_attr(selected ? base : row->bar >= 0.9 ? TH_BAR_HIGH : TH_BAR_USED));
        for (int i = 0; i < filled; i++)
            addstr(text_glyph(GL_BAR_FULL));
        attrset(theme_attr(selected ? base : TH_BAR_FREE));
        for (int i = filled; i < bw; i++)
            addstr(text_glyph(GL_BAR_EMPTY));
        draw_text(y, x + bw, 5, pct, base);
        return;
    }
    if (col->flags & COL_RIGHT) {
        int tw = text_cols(text) + (col->flags & COL_MONEY ? text_money_pad(text) : 0);
        if (tw > w)
            tw = text_cols(text);
        if (tw < w)
            x += w - tw;
    }
    draw_text(y, x, w, text, e);
}

size_t draw_table_columns(session *c, lay_rect r, int *ord, int *width)
{
    const pane_view *v = pane_view_get(c->pane, c->screens[c->pane].view);
    const colset *cs = pick_columns(c, c->pane, c->screens[c->pane].view);
    const grid *g = &session_current_table(c)->g;
    int want[DRAW_MAX_COLS], min[DRAW_MAX_COLS], drop[DRAW_MAX_COLS], need[DRAW_MAX_COLS];
    int page = r.h - 1;
    size_t n = 0;
    for (int k = 0; k < cs->n && n < DRAW_MAX_COLS; k++) {
        if (cs->hidden[k])
            continue;
        size_t i = (size_t)cs->order[k];
        ord[n] = (int)i;
        want[n] = v->cols[i].want;
        min[n] = v->cols[i].min;
        drop[n] = v->cols[i].drop;
        /* What the rows on screen need: room left over goes to those cut. */
        need[n] = text_cols(v->cols[i].header) + 1;
        for (int y = 0; y < page && g->top + (size_t)y < g->nview; y++) {
            int w = text_cols(g->rows[g->view[g->top + (size_t)y]].cells[i]);
            if (w > need[n])
                need[n] = w;
        }
        n++;
    }
    layout_columns(want, min, drop, n, r.w - 2, width);
    layout_columns_grow(need, n, r.w - 2, width);
    return n;
}

lay_screen draw_layout(const session *c, int rows, int cols)
{
    /* Typing a search keeps the view it searches on screen. */
    con_mode shown = c->mode == MODE_FIND ? c->find_from : c->mode;
    int detail = (shown == MODE_VIEW && c->details.text.open) || shown == MODE_LOGS;
    return layout_compute(rows, cols, c->live.lost, detail);
}

static void draw_table(session *c, lay_rect r)
{
    const pane_view *v = pane_view_get(c->pane, c->screens[c->pane].view);
    pane_state *ps = session_current_table(c);
    grid *g = &ps->g;
    int ord[DRAW_MAX_COLS], width[DRAW_MAX_COLS];
    if (r.h <= 0 || r.w <= 2)
        return;
    int page = r.h - 1;
    /* Keep the cursor visible after a resize or a reload. */
    grid_move(g, 0, page);
    size_t n = draw_table_columns(c, r, ord, width);

    draw_fill(r.y, r.x, r.w, TH_COLUMN_HEADER);
    int x = r.x + 2;
    for (size_t k = 0; k < n; k++) {
        char h[64];
        size_t i = (size_t)ord[k];
        if (!width[k])
            continue;
        snprintf(h, sizeof h, "%s%s", v->cols[i].header,
                 g->sort_col == (int)i ? text_glyph(g->sort_desc ? GL_SORT_DOWN : GL_SORT_UP) : "");
        int hw = text_cols(h);
        draw_text(r.y, (v->cols[i].flags & COL_RIGHT) && hw < width[k] ? x + width[k] - hw : x, width[k], h,
            TH_COLUMN_HEADER);
        x += width[k] + 1;
    }
    if (g->top > 0)
        draw_text(r.y, r.x + r.w - 1, 1, text_glyph(GL_MORE_UP), TH_COLUMN_HEADER);

    for (int i = 0; i < page; i++) {
        size_t vi = g->top + (size_t)i;
        int y = r.y + 1 + i;
        if (vi >= g->nview) {
            draw_fill(y, r.x, r.w, TH_NORMAL);
            continue;
        }
        const grid_row *row = &g->rows[g->view[vi]];
        int selected = vi == g->cursor;
        int marked = grid_is_marked(g, row->key);
        theme_elem base = selected ? TH_ROW_SELECTED : marked ? TH_ROW_MARKED : TH_ROW;
        draw_fill(y, r.x, r.w, base);
        draw_text(y, r.x, 1, text_glyph(marked ? GL_MARK : GL_UNMARKED), base);
        x = r.x + 2;
        for (size_t k = 0; k < n; k++) {
            if (!width[k])
                continue;
            draw_cell(y, x, width[k], &v->cols[ord[k]], row, row->cells[ord[k]], base, selected);
            if (!selected && g->filter[0] && g->filter[0] != '!' && !(v->cols[ord[k]].flags & (COL_RIGHT | COL_BAR)))
                draw_matches(y, x, width[k], row->cells[ord[k]], g->filter);
            x += width[k] + 1;
        }
    }
    if (g->top + (size_t)page < g->nview)
        draw_text(r.y + page, r.x + r.w - 1, 1, text_glyph(GL_MORE_DOWN), TH_DIM);
    if (g->nview == 0) {
        const char *msg = ps->note[0] && (ps->note_error || g->nrows == 0) ? ps->note
                        : g->nrows ? "No row matches the filter (/ to change it, empty shows all)."
                                   : "Loading...";
        /* "No nodes yet: press a to add one." offers a only where it works */
        const char *press = strstr(msg, ": press a ");
        char cut[256];
        if (press && !keys_offers(c, 'a')) {
            snprintf(cut, sizeof cut, "%.*s.", (int)(press - msg < 200 ? press - msg : 200), msg);
            msg = cut;
        }
        draw_text(r.y + 2, r.x + 2, r.w - 4, msg, ps->note_error ? TH_STATUS_ERROR : TH_DIM);
    }
}

/* A text view inside r, with a title row; plain: no "key  value"
 * highlighting (a worker's output is not a result). */
static void draw_textview(const textview *tv, lay_rect r, const char *hint, int plain, const char *find)
{
    char title[512];
    if (r.h <= 0)
        return;
    draw_fill(r.y, r.x, r.w, TH_DIALOG_TITLE);
    snprintf(title, sizeof title, " %s  (%s)", tv->title, hint);
    draw_text(r.y, r.x, r.w, title, TH_DIALOG_TITLE);
    for (int i = 1; i < r.h; i++) {
        size_t li = tv->top + (size_t)i - 1;
        draw_fill(r.y + i, r.x, r.w, TH_DIALOG);
        if (li >= tv->count)
            continue;
        const char *line = text_skip(tv->lines[li], (int)tv->left);
        /* "key  value" lines: the key stands out. */
        size_t klen = strcspn(line, " ");
        int is_pair = !plain && line[0] != ' ' && strstr(line, "  ") == line + klen;
        if (is_pair && klen < 64) {
            char key[64];
            snprintf(key, sizeof key, "%.*s", (int)klen, line);
            draw_text(r.y + i, r.x + 1, r.w - 1, key, TH_DETAIL_KEY);
            draw_text(r.y + i, r.x + 1 + (int)klen, r.w - 1 - (int)klen, line + klen, TH_DETAIL_VALUE);
        } else {
            draw_text(r.y + i, r.x + 1, r.w - 1, line, TH_DETAIL_VALUE);
        }
        if (find && find[0])
            draw_matches(r.y + i, r.x + 1, r.w - 1, line, find);
        if (tv->has_found && tv->found == li)
            draw_text(r.y + i, r.x, 1, text_glyph(GL_MARK), TH_SEARCH_MATCH);
    }
    if (tv->top + (size_t)r.h - 1 < tv->count)
        draw_text(r.y + r.h - 1, r.x + r.w - 1, 1, text_glyph(GL_MORE_DOWN), TH_DIM);
}

/* The logs view: the worker's output under a title naming the job, the
 * worker, its state (in the state's colour) and the output's size. */
static void draw_logs(session *c, lay_rect r)
{
    const logview *lv = &c->logs;
    char title[256], tail[128];
    if (r.h <= 0)
        return;
    draw_textview(&lv->tv, r, "", 1, c->find);
    draw_fill(r.y, r.x, r.w, TH_DIALOG_TITLE);
    logview_title(lv, title, sizeof title);
    int x = r.x + draw_text(r.y, r.x, r.w, " ", TH_DIALOG_TITLE);
    x += draw_text(r.y, x, r.x + r.w - x, title, TH_DIALOG_TITLE);
    x += draw_text(r.y, x, r.x + r.w - x, "  ", TH_DIALOG_TITLE);
    theme_elem se = theme_state_elem(lv->state);
    x += draw_text(r.y, x, r.x + r.w - x, lv->state, se != TH_NORMAL ? se : TH_DIALOG_TITLE);
    snprintf(tail, sizeof tail, "  %lld bytes%s  ([ ] worker, q closes)", lv->bytes_total < 0 ? 0 : lv->bytes_total,
             lv->follow && logview_live_state(lv->state) ? ", following" : "");
    draw_text(r.y, x, r.x + r.w - x, tail, TH_DIALOG_TITLE);
}

static void draw_confirm(session *c, int rows, int cols)
{
    int nlines = (int)c->confirm.count;
    lay_rect r = layout_center(rows, cols, nlines + 6 > 18 ? 18 : nlines + 6, 76);
    draw_box(r, TH_DIALOG, "Confirm");
    draw_text(r.y + 1, r.x + 2, r.w - 4, c->confirm.question, TH_DIALOG);
    for (int i = 0; i < nlines && i + 3 < r.h - 2; i++) {
        char l[600];
        snprintf(l, sizeof l, "runs: %s", c->confirm.lines[i]);
        draw_text(r.y + 2 + i, r.x + 4, r.w - 6, l, TH_DIM);
    }
    draw_text(r.y + r.h - 2, r.x + 2, r.w - 4, "y confirms   n or Esc cancels", TH_DIALOG_TITLE);
}

static void draw_completions(session *c, lay_rect status)
{
    char line[2048];
    size_t used = 0;
    line[0] = '\0';
    for (size_t i = 0; i < c->compl.count && used < sizeof line; i++)
        used += (size_t)snprintf(line + used, sizeof line - used, "%s  ", c->compl.items[i]);
    draw_fill(status.y - 1, status.x, status.w, TH_DIALOG);
    draw_text(status.y - 1, status.x + 1, status.w - 1, line, TH_DIALOG);
}

static void draw_input(const char *lead, const ledit *e, lay_rect r, int *cy, int *cx)
{
    char head[PROMPT_MAX];
    draw_fill(r.y, r.x, r.w, TH_INPUT);
    draw_text(r.y, r.x, 1, lead, TH_INPUT);
    snprintf(head, sizeof head, "%.*s", (int)e->cur, e->buf);
    int hc = text_cols(head);
    /* Long lines scroll so the cursor stays on screen. */
    int skip = hc > r.w - 3 ? hc - (r.w - 3) : 0;
    draw_text(r.y, r.x + 1, r.w - 2, text_skip(e->buf, skip), TH_INPUT);
    *cy = r.y;
    *cx = r.x + 1 + hc - skip;
}

static void draw_status(session *c, lay_rect r, int *cy, int *cx)
{
    switch (c->mode) {
    case MODE_FILTER:
    case MODE_FIND:
        draw_input("/", &c->edit, r, cy, cx);
        return;
    case MODE_PROMPT:
        draw_input(":", &c->edit, r, cy, cx);
        if (c->compl.count > 1)
            draw_completions(c, r);
        return;
    case MODE_CONFIRM: {
        char q[1100];
        snprintf(q, sizeof q, "%s [y/n]", c->confirm.question);
        draw_fill(r.y, r.x, r.w, TH_DIALOG_TITLE);
        draw_text(r.y, r.x, r.w, q, TH_DIALOG_TITLE);
        return;
    }
    default:
        draw_fill(r.y, r.x, r.w, c->status_error ? TH_STATUS_ERROR : TH_STATUS);
        draw_text(r.y, r.x, r.w, c->status, c->status_error ? TH_STATUS_ERROR : TH_STATUS);
    }
}

static void draw_footer(session *c, lay_rect r)
{
    char keys[32][16];
    const char *labels[32];
    size_t n = 0;
    static const char *const view_k[] = { "Up/Down", "Left/Right", "/", "n/N", "q" };
    static const char *const view_l[] = { "scroll", "pan", "search", "next/prev", "close" };
    static const char *const details_k[] = { "Up/Down", "Left/Right", "y", "/", "n/N", "q" };
    static const char *const details_l[] = { "scroll", "pan", "copy", "search", "next/prev", "close" };
    static const char *const logs_k[] = { "Up/Down", "[ ]", "0-9", "End", "r", "/", "q" };
    static const char *const logs_l[] = { "scroll", "worker", "worker N", "follow", "reread", "search", "close" };
    static const char *const prompt_k[] = { "Enter", "Tab", "Up/Down", "Esc" };
    static const char *const prompt_l[] = { "run", "complete", "history", "cancel" };
    static const char *const filter_k[] = { "Enter", "!text", "Esc" };
    static const char *const filter_l[] = { "apply", "negate", "cancel" };
    static const char *const find_k[] = { "Enter", "Esc" };
    static const char *const find_l[] = { "search", "cancel" };
    static const char *const sort_k[] = { "Up/Down", "Enter", "Esc" };
    static const char *const sort_l[] = { "choose", "sort/reverse", "cancel" };
    static const char *const cols_k[] = { "Space", "+/-", "d", "Enter" };
    static const char *const cols_l[] = { "show/hide", "move", "default", "keep" };
    static const char *const yn_k[] = { "y", "n/Esc" };
    static const char *const yn_l[] = { "confirm", "cancel" };
    static const char *const form_k[] = { "Tab", "Left/Right", "Enter", "Esc" };
    static const char *const form_l[] = { "next field", "choices", "submit", "cancel" };
    const char *const *fk = NULL, *const *fl = NULL;
    switch (c->mode) {
    case MODE_VIEW:
        if (c->details.key[0]) {   /* a row's details: y copies it */
            fk = details_k; fl = details_l; n = 6;
        } else {
            fk = view_k; fl = view_l; n = 5;
        }
        break;
    case MODE_HELP: fk = view_k; fl = view_l; n = 5; break;
    case MODE_LOGS: fk = logs_k; fl = logs_l; n = 7; break;
    case MODE_PROMPT: fk = prompt_k; fl = prompt_l; n = 4; break;
    case MODE_FILTER: fk = filter_k; fl = filter_l; n = 3; break;
    case MODE_CONFIRM: fk = yn_k; fl = yn_l; n = 2; break;
    case MODE_FIND: fk = find_k; fl = find_l; n = 2; break;
    case MODE_PICK:
        if (c->pick.kind == PICK_SORT) {
            fk = sort_k; fl = sort_l; n = 3;
        } else {
            fk = cols_k; fl = cols_l; n = 4;
        }
        break;
    case MODE_FORM: fk = form_k; fl = form_l; n = 4; break;
    default: n = keys_footer(c, keys, labels, 32); break;
    }
    for (size_t i = 0; fk && i < n; i++) {
        snprintf(keys[i], sizeof keys[i], "%s", fk[i]);
        labels[i] = fl[i];
    }
    draw_fill(r.y, r.x, r.w, TH_FOOTER);
    int end = r.x + r.w - (c->read_only ? 11 : 0);
    /* In normal mode the last pair (quit) is pinned to the right end so it
     * is always there, however narrow the terminal. */
    size_t pinned = c->mode == MODE_NORMAL && n > 0 ? n - 1 : n;
    if (pinned < n) {
        int w = text_cols(keys[pinned]) + text_cols(labels[pinned]) + 2;
        end -= w;
        draw_text(r.y, end + 1, text_cols(keys[pinned]), keys[pinned], TH_FOOTER_KEY);
        draw_text(r.y, end + 2 + text_cols(keys[pinned]), text_cols(labels[pinned]), labels[pinned], TH_FOOTER);
    }
    int x = r.x;
    for (size_t i = 0; i < pinned; i++) {
        int need = text_cols(keys[i]) + text_cols(labels[i]) + 3;
        if (x + need > end)
            break;
        x += draw_text(r.y, x + 1, text_cols(keys[i]), keys[i], TH_FOOTER_KEY) + 1;
        x += draw_text(r.y, x + 1, text_cols(labels[i]), labels[i], TH_FOOTER) + 2;
    }
    if (c->read_only)
        draw_text(r.y, r.x + r.w - 10, 10, "READ-ONLY", TH_READ_ONLY);
}

/* The sort picker or the column chooser: the table's columns in a box. */
static void draw_pick(session *c, int rows, int cols)
{
    const pane_view *v = pane_view_get(c->pane, c->screens[c->pane].view);
    char title[128];
    snprintf(title, sizeof title, c->pick.kind == PICK_SORT ? "Sort %s by" : "Columns of %s", v->title);
    lay_rect r = layout_center(rows, cols, c->pick.n + 4, 44);
    draw_box(r, TH_DIALOG, title);
    int first = c->pick.cursor >= r.h - 3 ? c->pick.cursor - (r.h - 4) : 0;
    for (int i = first; i < c->pick.n && i - first < r.h - 3; i++) {
        char line[128];
        pick_item_text(c, i, line, sizeof line);
        theme_elem e = i == c->pick.cursor ? TH_ROW_SELECTED : TH_DIALOG;
        draw_fill(r.y + 1 + i - first, r.x + 1, r.w - 2, e);
        draw_text(r.y + 1 + i - first, r.x + 2, r.w - 4, line, e);
    }
    draw_text(r.y + r.h - 2, r.x + 2, r.w - 4, c->pick.kind == PICK_SORT ? "Enter sorts (again: reverses)  Esc cancels"
                                                                         : "Space show/hide  +/- move  Enter keeps", TH_DIM);
}

/* A form as a dialog, with the cursor in the focused field. */
static void draw_form(session *c, const form_state *f, int rows, int cols)
{
    int n = (int)f->def->nfields;
    lay_rect r = layout_center(rows, cols, n + 10, 76);
    draw_box(r, TH_DIALOG, f->def->title);
    int label_w = 16, field_w = 26;
    int cur_y = -1, cur_x = -1;
    for (int i = 0; i < n && i + 2 < r.h - 6; i++) {
        const form_field *ff = &f->def->fields[i];
        int y = r.y + 2 + i;
        char label[64], hint[256];
        snprintf(label, sizeof label, "%s%s", ff->label, ff->required ? " *" : "");
        draw_text(y, r.x + 2, label_w, label, i == f->focus ? TH_DIALOG_TITLE : TH_DIALOG);
        attrset(theme_attr(TH_INPUT));
        mvhline(y, r.x + 2 + label_w, ' ', field_w);
        draw_text(y, r.x + 2 + label_w, field_w, f->val[i].buf, ff->kind == FF_FIXED ? TH_DIM : TH_INPUT);
        form_field_hint(c, f, (size_t)i, hint, sizeof hint);
        draw_text(y, r.x + 3 + label_w + field_w, r.w - label_w - field_w - 6, hint,
            strcmp(hint, "required") == 0 || strncmp(hint, "one of", 6) == 0 || strncmp(hint, "unknown", 7) == 0 ||
            strncmp(hint, "no ", 3) == 0 || strncmp(hint, "must", 4) == 0 ? TH_STATUS_ERROR : TH_DIM);
        if (i == f->focus) {
            char head[PROMPT_MAX];
            snprintf(head, sizeof head, "%.*s", (int)f->val[i].cur, f->val[i].buf);
            int hx = text_cols(head);
            cur_y = y;
            cur_x = r.x + 2 + label_w + (hx < field_w ? hx : field_w - 1);
        }
    }
    char line[2048], preview[2100];
    const char *missing;
    form_build_line(f, line, sizeof line, &missing);
    snprintf(preview, sizeof preview, "runs: %s", line);
    draw_text(r.y + r.h - 6, r.x + 2, r.w - 4, preview, TH_DIM);
    /* The core's refusal in full: wrapped over up to three lines. */
    const char *rest = f->error;
    for (int k = 0; k < 3 && *rest; k++) {
        const char *next = k < 2 ? text_skip(rest, r.w - 4) : "";
        char chunk[600];
        snprintf(chunk, sizeof chunk, "%.*s", *next ? (int)(next - rest) : (int)strlen(rest), rest);
        draw_text(r.y + r.h - 5 + k, r.x + 2, r.w - 4, chunk, TH_STATUS_ERROR);
        rest = next;
    }
    draw_text(r.y + r.h - 2, r.x + 2, r.w - 4, "Tab/Down next  Up previous  Left/Right choices  Enter submit  Esc cancel",
        TH_DIM);
    if (cur_y >= 0 && f->def->fields[f->focus].kind != FF_FIXED) {
        curs_set(1);
        move(cur_y, cur_x);
    }
}

void draw_screen(session *c)
{
    int rows, cols, cy = -1, cx = -1;
    getmaxyx(stdscr, rows, cols);
    /* Typing a search keeps the view it searches on screen (draw_layout
     * judges the same). */
    con_mode shown = c->mode == MODE_FIND ? c->find_from : c->mode;
    int detail = (shown == MODE_VIEW && c->details.text.open) || shown == MODE_LOGS;
    lay_screen s = draw_layout(c, rows, cols);
    attrset(theme_attr(TH_NORMAL));
    erase();
    curs_set(0);
    if (s.too_small) {
        char msg[128];
        snprintf(msg, sizeof msg, "rigdeck needs at least %dx%d; this terminal is %dx%d", LAYOUT_MIN_COLS,
                 LAYOUT_MIN_ROWS, cols, rows);
        draw_text(rows / 2, 0, cols, msg, TH_STATUS_ERROR);
        refresh();
        return;
    }
    draw_header(c, s.header);
    draw_tabs(c, s.tabs);
    if (s.banner.h) {
        char b[800];
        snprintf(b, sizeof b, " store unreachable: %s %s retrying every %d s; what you type is kept", c->live.msg,
                 text_glyph(GL_SEP), LIVE_RETRY_MS / 1000);
        draw_fill(s.banner.y, 0, s.banner.w, TH_BANNER);
        draw_text(s.banner.y, 0, s.banner.w, b, TH_BANNER);
    }
    draw_summary(c, s.summary);
    if (c->pane == PANE_DASHBOARD)
        draw_dash(c, s.table);
    else if (pane_get(c->pane)->draw)
        pane_get(c->pane)->draw(c, s.table);
    else
        draw_table(c, s.table);
    if (shown == MODE_LOGS)
        draw_logs(c, s.detail);
    else if (detail)
        draw_textview(&c->details.text, s.detail, "Esc closes", 0, c->find);
    draw_status(c, s.status, &cy, &cx);
    draw_footer(c, s.footer);
    if (shown == MODE_HELP) {
        lay_rect h = layout_center(rows, cols, rows - 4, cols - 8);
        draw_box(h, TH_DIALOG, NULL);
        lay_rect in = { h.y + 1, h.x + 1, h.h - 2, h.w - 2 };
        draw_textview(&c->help, in, "Esc closes, / searches", 0, c->find);
    } else if (c->mode == MODE_CONFIRM) {
        draw_confirm(c, rows, cols);
    } else if (c->mode == MODE_FORM && c->form) {
        draw_form(c, c->form, rows, cols);
    } else if (c->mode == MODE_PICK) {
        draw_pick(c, rows, cols);
    }
    if (cy >= 0) {
        curs_set(1);
        move(cy, cx);
    }
    refresh();
}
