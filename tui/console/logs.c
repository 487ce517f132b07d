/* logs.c - the logs view's actions (see logs.h).  The text comes from
 * `job logs ID --worker N` through session_exec_line(), like every table. */
#define NCURSES_WIDECHAR 1
#include "logs.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "find.h"
#include "keycode.h"
#include "prompt.h"
#include "rdtime.h"

void logs_open(session *c, const char *id, int nworkers)
{
    logview *lv = &c->logs;
    textview_clear(&lv->tv);
    snprintf(lv->job, sizeof lv->job, "%s", id);
    lv->worker = 0;
    lv->nworkers = nworkers > 0 ? nworkers : 1;
    lv->state[0] = '\0';
    lv->bytes_total = -1;
    lv->fetched_ms = 0;
    lv->stale = 0;
    lv->follow = 1;
    lv->tv.open = 1;
    c->mode = MODE_LOGS;
    logs_refresh(c);
}

int logs_due(const session *c, long long now_ms)
{
    const logview *lv = &c->logs;
    if (c->mode != MODE_LOGS || c->live.lost)
        return 0;
    long long since = now_ms - lv->fetched_ms;
    return (lv->stale && since >= LOGS_MIN_MS) || (logview_live_state(lv->state) && since >= LOGS_POLL_MS);
}

void logs_refresh(session *c)
{
    logview *lv = &c->logs;
    char line[400];
    json_t *res = NULL;
    rd_err err;
    snprintf(line, sizeof line, "job logs ");
    prompt_quote_word(line, sizeof line, lv->job);
    snprintf(line + strlen(line), sizeof line - strlen(line), " --worker %d", lv->worker);
    lv->fetched_ms = rdtime_mono_ms();
    lv->stale = 0;
    if (session_exec_line(c, line, &res, &err) != RD_OK) {
        session_set_error(c, "%s", err.msg);
        /* A job that is gone has nothing more to say: stop asking. */
        snprintf(lv->state, sizeof lv->state, "?");
        return;
    }
    const char *state = json_string_value(json_object_get(res, "state"));
    long long total = (long long)json_integer_value(json_object_get(res, "bytes_total"));
    int same = total == lv->bytes_total && state && strcmp(state, lv->state) == 0;
    snprintf(lv->state, sizeof lv->state, "%s", state ? state : "?");
    lv->bytes_total = total;
    if (!same)
        logview_set_text(lv, json_string_value(json_object_get(res, "text")), session_page_rows(c));
    json_decref(res);
    c->dirty = 1;
}

/* Shows worker w (wrapping round the job's workers) from its end. */
static void logs_pick_worker(session *c, int w)
{
    logview *lv = &c->logs;
    lv->worker = (w % lv->nworkers + lv->nworkers) % lv->nworkers;
    lv->bytes_total = -1;
    lv->follow = 1;
    lv->tv.top = lv->tv.left = 0;
    logs_refresh(c);
}

act_result logs_key(session *c, int key)
{
    logview *lv = &c->logs;
    textview *tv = &lv->tv;
    int page = session_page_rows(c);
    switch (key) {
    case CK_ESC: case 'q':
        tv->open = 0;
        c->mode = MODE_NORMAL;
        return ACT_REDRAW;
    case '[': logs_pick_worker(c, lv->worker - 1); return ACT_REDRAW;
    case ']': logs_pick_worker(c, lv->worker + 1); return ACT_REDRAW;
    case 'r': case CK_FN(KEY_F(5)): lv->bytes_total = -1; logs_refresh(c); return ACT_REDRAW;
    case '/': return find_open(c);
    case 'n': return find_step(c, MODE_LOGS, 1);
    case 'N': return find_step(c, MODE_LOGS, -1);
    case CK_FN(KEY_UP): case 'k': textview_scroll(tv, -1, page); break;
    case CK_FN(KEY_DOWN): case 'j': textview_scroll(tv, 1, page); break;
    case CK_FN(KEY_PPAGE): case CK_CTRL('b'): textview_scroll(tv, -page, page); break;
    case CK_FN(KEY_NPAGE): case CK_CTRL('f'): case ' ': textview_scroll(tv, page, page); break;
    case CK_FN(KEY_HOME): case 'g': tv->top = 0; break;
    case CK_FN(KEY_END): case 'G': textview_scroll(tv, (long)tv->count, page); break;
    case CK_FN(KEY_LEFT): case 'h': textview_pan(tv, -8); break;
    case CK_FN(KEY_RIGHT): case 'l': textview_pan(tv, 8); break;
    default:
        if (key >= '0' && key <= '9') {
            if (key - '0' < lv->nworkers)
                logs_pick_worker(c, key - '0');
            else
                session_set_error(c, "job %s has %d worker%s (0-%d)", lv->job, lv->nworkers,
                                  lv->nworkers == 1 ? "" : "s", lv->nworkers - 1);
        }
        return ACT_REDRAW;
    }
    /* Scrolled to the end: follow new output again; anywhere else: stay. */
    lv->follow = tv->count <= (size_t)page || tv->top + (size_t)page >= tv->count;
    return ACT_REDRAW;
}
