/* copy.c - the y key: choosing what to copy (a row's key, the Dashboard's
 * node, a job's connect URL), naming it in the status line, and handing it
 * to the terminal after the next frame (clipboard.c makes the bytes). */
#include "copy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clipboard.h"
#include "dash.h"
#include "fileio.h"
#include "panes.h"
#include "prompt.h"

/* What a row of a table is called in the status line: "node", "job",
 * "alert" ("copied node gpu-07", "copied job id job-1f2e"). */
static void row_kind(int pane, int view, char *out, size_t len)
{
    const char *special = pane == PANE_ALERTS ? "alert" : pane == PANE_AUDIT ? "audit entry"
                        : pane == PANE_DASHBOARD ? "node" : NULL;
    const char *title = pane_view_get(pane, view)->title;
    if (special || strcmp(title, "Entries") == 0) {
        snprintf(out, len, "%s", special ? special : "ledger entry");
        return;
    }
    snprintf(out, len, "%s", title);
    for (char *p = out; *p; p++)
        *p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
    size_t n = strlen(out);
    if (n > 3 && strcmp(out + n - 3, "ies") == 0)
        snprintf(out + n - 3, len - (n - 3), "y");
    else if (n > 1 && out[n - 1] == 's')
        out[n - 1] = '\0';
}

/* Queues text for copy_flush and says what it is; what names it after
 * "copied " ("node gpu-07"), note (may be "") follows in parentheses. */
static act_result copy_text(session *c, const char *text, const char *what, const char *note)
{
    char *dup = strdup(text);
    if (!dup) {
        session_set_error(c, "out of memory");
        return ACT_REDRAW;
    }
    free(c->clip_pending);
    c->clip_pending = dup;
    session_set_status(c, "copied %s%s%s%s", what, *note ? " (" : "", note, *note ? ")" : "");
    return ACT_REDRAW;
}

/* Copies a row's key; pane and view name its table. */
static act_result copy_key(session *c, int pane, int view, const char *key, const char *note)
{
    char kind[64], what[512];
    row_kind(pane, view, kind, sizeof kind);
    int by_id = strcmp(pane_view_get(pane, view)->key_field, "id") == 0;
    snprintf(what, sizeof what, "%s %s%.400s", kind, by_id ? "id " : "", key);
    return copy_text(c, key, what, note);
}

act_result copy_selected(session *c)
{
    if (c->pane == PANE_DASHBOARD) {
        if (!dash_of(c)->node[0]) {
            session_set_error(c, "no node to copy");
            return ACT_REDRAW;
        }
        return copy_key(c, PANE_DASHBOARD, 0, dash_of(c)->node, "");
    }
    const grid_row *r = grid_current(&session_current_table(c)->g);
    if (!r) {
        session_set_error(c, "nothing selected");
        return ACT_REDRAW;
    }
    return copy_key(c, c->pane, c->screens[c->pane].view, r->key, "");
}

/* Whether a `job show` document is a notebook or an endpoint with a worker
 * that runs: only such a worker has an address to connect to. */
static int job_serves(const json_t *job, const char **type)
{
    *type = json_string_value(json_object_get(job, "type"));
    if (!*type || (strcmp(*type, "notebook") != 0 && strcmp(*type, "endpoint") != 0))
        return 0;
    size_t i;
    const json_t *w;
    json_array_foreach(json_object_get(job, "workers"), i, w) {
        const char *state = json_string_value(json_object_get(w, "state"));
        if (state && strcmp(state, "running") == 0)
            return 1;
    }
    return -1;
}

/* A job's details: its connect URL where it has one (`job connect ID`,
 * through the executor like every other line the console runs), else its
 * id, saying why there is no URL. */
static act_result copy_job(session *c, const char *id)
{
    char line[512] = "job show ", why[400] = "";
    json_t *job = NULL, *conn = NULL;
    rd_err err;
    const char *type = NULL;
    prompt_quote_word(line, sizeof line, id);
    int serves = session_exec_line(c, line, &job, &err) == RD_OK ? job_serves(job, &type) : 0;
    if (serves < 0)
        snprintf(why, sizeof why, "no URL: no worker of this %s runs", type);
    if (serves > 0) {
        snprintf(line, sizeof line, "job connect ");
        prompt_quote_word(line, sizeof line, id);
        /* A console built before `job connect`, or a worker that has no
         * address yet: the refusal says why, and the id is still worth
         * copying. */
        if (session_exec_line(c, line, &conn, &err) != RD_OK)
            snprintf(why, sizeof why, "no URL: %.380s", err.msg);
        const char *url = json_string_value(json_object_get(conn, "url"));
        if (url && *url) {
            char what[512];
            /* the token stays off the screen: it is the notebook's password */
            int query = (int)strcspn(url, "?#");
            snprintf(what, sizeof what, "%.100s's URL %.*s%s", id, query > 300 ? 300 : query, url,
                     url[query] ? " (with its token)" : "");
            act_result r = copy_text(c, url, what, "");
            json_decref(job);
            json_decref(conn);
            return r;
        }
        if (!why[0])
            snprintf(why, sizeof why, "no URL: job connect answered none");
    }
    json_decref(job);
    json_decref(conn);
    return copy_key(c, PANE_JOBS, 0, id, why);
}

act_result copy_details(session *c)
{
    if (!c->details.key[0]) {
        session_set_error(c, "y: nothing to copy in this view (it copies a row's id or name)");
        return ACT_REDRAW;
    }
    if (c->details.pane == PANE_JOBS && c->details.view == 0)
        return copy_job(c, c->details.key);
    return copy_key(c, c->details.pane, c->details.view, c->details.key, "");
}

void copy_flush(session *c)
{
    if (!c->clip_pending)
        return;
    char *text = c->clip_pending;
    c->clip_pending = NULL;
    clip_target t = clip_target_of(getenv("TMUX"), getenv("TERM"));
    char why[160] = "";
    size_t len;
    char *seq = clip_sequence(text, t, &len, why, sizeof why);
    const char *record = getenv("RIGDECK_CLIPBOARD_FILE");
    if (!seq) {
        session_set_error(c, "nothing copied: %s", why);
    } else {
        /* curses has sent the frame (refresh); the escape follows it on
         * the same descriptor and moves no cursor, so the screen curses
         * believes is there stays there. */
        fflush(stdout);
        if (!t.terminal)
            session_set_error(c, "nothing copied: TERM=%.40s has no clipboard escape (OSC 52)", getenv("TERM"));
        else if (fileio_write_all(STDOUT_FILENO, seq, len) != 0)
            session_set_error(c, "nothing copied: the terminal could not be written to");
        if (record && *record && clip_record(record, text) != 0)
            session_set_error(c, "copied, but %.200s could not be written (RIGDECK_CLIPBOARD_FILE)", record);
    }
    free(seq);
    free(text);
}
