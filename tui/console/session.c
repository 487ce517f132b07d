/* session.c - one console session: the status line, running command
 * lines, the current table, questions to confirm, starting a background
 * sync.  The loop (console.c) owns time, the terminal and reloading; this
 * file owns what the keys, forms and panes act upon, and calls none of
 * them.
 */
#define NCURSES_WIDECHAR 1
#include "session.h"

#include <curses.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "layout.h"
#include "rdtime.h"

void session_set_status(session *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->status, sizeof c->status, fmt, ap);
    va_end(ap);
    c->status_error = 0;
    c->dirty = 1;
}

void session_set_error(session *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->status, sizeof c->status, fmt, ap);
    va_end(ap);
    c->status_error = 1;
    c->dirty = 1;
}

pane_state *session_current_table(session *c)
{
    return &c->screens[c->pane].tables[c->screens[c->pane].view];
}

int session_page_rows(session *c)
{
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    lay_screen s = layout_compute(rows, cols, c->live.lost, 0);
    int page = layout_table_data_rows(&s);
    return page > 0 ? page : 1;
}

void session_mark_stale(session *c)
{
    for (int p = 0; p < PANE_COUNT; p++)
        for (int v = 0; v < PANE_MAX_VIEWS; v++)
            c->screens[p].tables[v].stale = 1;
    c->dirty = 1;
}

rd_code session_exec_line(session *c, const char *line, json_t **result, rd_err *err)
{
    rd_err_clear(err);
    c->ctx.now = c->opt->now_text ? c->opt->now : (rd_time)time(NULL);
    rd_code rc = cmd_exec_line(&c->ctx, line, result, NULL, err);
    if (rc == RD_ESTORE && !c->live.lost) {
        live_mark_lost(&c->live, &c->ctx, err->msg, rdtime_mono_ms());
        c->dirty = 1;
    }
    return rc;
}

/* How long a role that could not be read waits before the next try. */
#define ROLE_RETRY_MS 5000

void session_load_role(session *c)
{
    long long now = rdtime_mono_ms();
    if (c->role_known || (c->role_tried_ms && now - c->role_tried_ms < ROLE_RETRY_MS))
        return;
    c->role_tried_ms = now;
    rd_err err;
    rd_err_clear(&err);
    /* on a secured store the actor is the identity the store vouches for */
    if (!c->ctx.actor && cmd_ctx_open_store(&c->ctx, &err) != RD_OK)
        return;
    if (!c->ctx.actor)
        return;
    char line[256] = "account show ";
    json_t *res = NULL;
    prompt_quote_word(line, sizeof line, c->ctx.actor);
    if (session_exec_line(c, line, &res, &err) == RD_OK && json_is_string(json_object_get(res, "role"))) {
        c->role = access_role_of(res);
        c->role_known = 1;
        c->dirty = 1;
    }
    json_decref(res);
}

void session_ask_confirm(session *c, const char *question, char *const *lines, size_t nlines)
{
    for (size_t i = 0; i < c->confirm.count; i++)
        free(c->confirm.lines[i]);
    c->confirm.count = 0;
    snprintf(c->confirm.question, sizeof c->confirm.question, "%s", question);
    for (size_t i = 0; i < nlines && i < CONFIRM_MAX_LINES; i++)
        if ((c->confirm.lines[c->confirm.count] = strdup(lines[i])) != NULL)
            c->confirm.count++;
    c->mode = MODE_CONFIRM;
}

void session_start_sync(session *c, int manual)
{
    char why[256];
    c->ctx.now = c->opt->now_text ? c->opt->now : (rd_time)time(NULL);
    if (sync_start(&c->sync, &c->ctx, rdtime_mono_ms(), why, sizeof why) != 0) {
        if (manual)
            session_set_error(c, "%s", why);
        return;
    }
    if (manual)
        session_set_status(c, "cloud sync started in the background");
    c->dirty = 1;
}

