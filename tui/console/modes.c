/* modes.c - what a key does in each input mode: normal mode goes to the
 * binding table (keys.c), a form to form.c; the ':' prompt, the '/'
 * filter, views and y/n questions are handled here.  Like the bindings,
 * a mode changes the session and returns what the loop should do next.
 */
#define NCURSES_WIDECHAR 1
#include "modes.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy.h"
#include "find.h"
#include "form.h"
#include "jump.h"
#include "keys.h"
#include "logs.h"
#include "mouse.h"
#include "panes.h"
#include "pick.h"

/* 'y': runs every confirmed line; the status names what each did. */
static act_result confirm_run(session *c)
{
    char done[512] = "";
    size_t used = 0, failed = 0;
    for (size_t i = 0; i < c->confirm.count; i++) {
        json_t *res = NULL;
        rd_err err;
        if (session_exec_line(c, c->confirm.lines[i], &res, &err) != RD_OK) {
            session_set_error(c, "%s", err.msg);
            failed++;
            break;
        }
        const char *name = json_string_value(json_object_get(res, "name"));
        const char *state = json_string_value(json_object_get(res, "state"));
        if (used < sizeof done)
            used += (size_t)snprintf(done + used, sizeof done - used, "%s%s%s%s", used ? ", " : "",
                                     name ? name : c->confirm.lines[i], state ? ": " : "", state ? state : "");
        json_decref(res);
    }
    if (!failed)
        session_set_status(c, "done: %s", done);
    grid_clear_marks(&session_current_table(c)->g);
    return ACT_FOLLOW | ACT_REDRAW;
}

static void confirm_end(session *c)
{
    for (size_t i = 0; i < c->confirm.count; i++)
        free(c->confirm.lines[i]);
    c->confirm.count = 0;
    c->mode = MODE_NORMAL;
}

/* ':' Enter: run the line, show its result in a view. */
static act_result prompt_run(session *c)
{
    char line[PROMPT_MAX];
    snprintf(line, sizeof line, "%s", c->edit.buf);
    /* Completion leaves a trailing blank; it means nothing to the parser. */
    for (size_t n = strlen(line); n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t'); n--)
        line[n - 1] = '\0';
    lhistory_add(&c->history, line);
    compl_list_free(&c->compl);
    c->mode = MODE_NORMAL;
    if (strspn(line, " \t") == strlen(line))
        return ACT_REDRAW;
    json_t *res = NULL;
    rd_err err;
    if (session_exec_line(c, line, &res, &err) != RD_OK) {
        session_set_error(c, "%s", err.msg);
        return ACT_REDRAW;
    }
    session_set_status(c, "ran: %s", line);
    if (res) {
        textview_clear(&c->details.text);
        c->details.key[0] = '\0';   /* a result, no row: y has nothing to copy */
        snprintf(c->details.text.title, sizeof c->details.text.title, ":%.250s", line);
        textview_add_result(&c->details.text, res, NULL);
        c->details.text.open = 1;
        c->mode = MODE_VIEW;
    }
    json_decref(res);
    /* A mutating line shows up through the watch anyway; following it now
     * makes it immediate. */
    return ACT_FOLLOW | ACT_REDRAW;
}

static act_result key_prompt(session *c, int key)
{
    if (key == CK_ESC) {
        compl_list_free(&c->compl);
        c->mode = MODE_NORMAL;
    } else if (keycode_is_enter(key)) {
        return prompt_run(c);
    } else if (key == '\t') {
        compl_list_free(&c->compl);
        size_t n = prompt_complete(&c->edit, panes_names, c, &c->compl);
        if (n == 0)
            session_set_error(c, "no completion");
    } else {
        compl_list_free(&c->compl);
        keycode_edit_line(&c->edit, key, &c->history);
    }
    return ACT_REDRAW;
}

static act_result key_filter(session *c, int key)
{
    grid *g = &session_current_table(c)->g;
    if (key == CK_ESC) {
        find_set_table_filter(c, c->filter_before);
        c->mode = MODE_NORMAL;
        return ACT_REDRAW;
    }
    if (keycode_is_enter(key)) {
        c->mode = MODE_NORMAL;
        /* A term naming no column changes nothing: the filter before stays. */
        if (!find_set_table_filter(c, c->edit.buf)) {
            char err[sizeof c->status];
            snprintf(err, sizeof err, "%s", c->status);
            find_set_table_filter(c, c->filter_before);
            session_set_error(c, "%s", err);
            return ACT_REDRAW;
        }
        session_set_status(c, g->query[0] ? "filter \"%s\": %zu of %zu rows" : "%s%zu of %zu rows", g->query,
                           g->nview, g->nrows);
        return ACT_REDRAW;
    }
    keycode_edit_line(&c->edit, key, NULL);
    /* Filter as you type; a term naming no column says so and waits. */
    if (find_set_table_filter(c, c->edit.buf))
        session_set_status(c, "%s", "");
    grid_move(g, 0, session_page_rows(c));
    return ACT_REDRAW;
}

static act_result key_view(session *c, textview *tv, int key)
{
    int page = session_page_rows(c);
    switch (key) {
    case CK_ESC: case 'q': case '\n': case '\r': case CK_FN(KEY_ENTER):
        tv->open = 0;
        c->mode = MODE_NORMAL;
        break;
    case CK_FN(KEY_UP): case 'k': textview_scroll(tv, -1, page); break;
    case CK_FN(KEY_DOWN): case 'j': textview_scroll(tv, 1, page); break;
    case CK_FN(KEY_PPAGE): case CK_CTRL('b'): textview_scroll(tv, -page, page); break;
    case CK_FN(KEY_NPAGE): case CK_CTRL('f'): case ' ': textview_scroll(tv, page, page); break;
    case CK_FN(KEY_HOME): case 'g': tv->top = 0; break;
    case CK_FN(KEY_END): case 'G': textview_scroll(tv, (long)tv->count, page); break;
    case CK_FN(KEY_LEFT): case 'h': textview_pan(tv, -8); break;
    case CK_FN(KEY_RIGHT): case 'l': textview_pan(tv, 8); break;
    case 'y':
        if (c->mode == MODE_VIEW)
            return copy_details(c);
        break;
    case '/': return find_open(c);
    case 'n': return find_step(c, c->mode, 1);
    case 'N': return find_step(c, c->mode, -1);
    case '>':
        if (c->mode == MODE_VIEW)
            return jump_from_details(c);
        break;
    case '?': case CK_FN(KEY_F(1)):
        if (c->mode == MODE_VIEW) {
            keys_help(c, &c->help);
            c->mode = MODE_HELP;
        }
        break;
    default: break;
    }
    return ACT_REDRAW;
}

/* A key in y/n question mode. */
static act_result key_confirm(session *c, int key)
{
    act_result r = ACT_REDRAW;
    if (key == 'y' || key == 'Y') {
        c->mode = MODE_NORMAL;
        r = confirm_run(c);
        confirm_end(c);
    } else if (key == 'n' || key == 'N' || key == CK_ESC || key == 'q') {
        confirm_end(c);
        session_set_status(c, "cancelled");
    }
    return r;
}

act_result modes_handle_key(session *c, int key)
{
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    /* One guard for every mode: a confirmation or form opened before the
     * terminal shrank is as invisible as the table. */
    if (!keys_allows_size(rows, cols, key))
        return ACT_NONE;
    if (key == CK_FN(KEY_MOUSE)) {
        /* what a click or the wheel does; where a key does the same, that key */
        int as_key, times;
        act_result r = mouse_event(c, &as_key, &times);
        for (int i = 0; i < times; i++)
            r |= modes_handle_key(c, as_key);
        return r;
    }
    switch (c->mode) {
    case MODE_PROMPT: return key_prompt(c, key);
    case MODE_FILTER: return key_filter(c, key);
    case MODE_VIEW: return key_view(c, &c->details.text, key);
    case MODE_HELP: return key_view(c, &c->help, key);
    case MODE_LOGS: return logs_key(c, key);
    case MODE_CONFIRM: return key_confirm(c, key);
    case MODE_FIND: return find_key(c, key);
    case MODE_PICK: return pick_key(c, key);
    case MODE_FORM: return form_key(c, c->form, key);
    default: return keys_dispatch(c, key);
    }
}
