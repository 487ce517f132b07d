/* details.c - the details view of a table's row (Enter): the row's show
 * command as sections, a running notebook's or endpoint's address on top
 * and, for a waiting job, why it waits.  Out of keys.c, whose binding
 * table calls it. */
#include "details.h"

#include <stdio.h>
#include <string.h>

#include "panes.h"
#include "prompt.h"
#include "textview.h"

/* A running notebook's or endpoint's address (job connect) on the top
 * line of its details: what the user opens next.  Nothing for any other
 * job, or when the agent has not said it yet. */
static void add_connect_url(session *c, const json_t *job)
{
    const char *type = json_string_value(json_object_get(job, "type"));
    const char *state = json_string_value(json_object_get(job, "state"));
    const char *id = json_string_value(json_object_get(job, "id"));
    if (!type || !state || !id || strcmp(state, "running") != 0 ||
        (strcmp(type, "notebook") != 0 && strcmp(type, "endpoint") != 0))
        return;
    char line[512] = "job connect ", text[700];
    json_t *res = NULL;
    rd_err err;
    rd_err_clear(&err);
    prompt_quote_word(line, sizeof line, id);
    if (session_exec_line(c, line, &res, &err) == RD_OK) {
        snprintf(text, sizeof text, "connect: %s", json_string_value(json_object_get(res, "url")));
        textview_add(&c->details.text, text);
        textview_add(&c->details.text, "");
    }
    json_decref(res);
}

/* Enter: the row's show command (and, for a waiting job, `job why`) in a view. */
void details_open(session *c)
{
    const pane_view *v = pane_view_get(c->pane, c->screens[c->pane].view);
    const grid_row *r = grid_current(&session_current_table(c)->g);
    if (!r) {
        session_set_error(c, "nothing selected");
        return;
    }
    textview_clear(&c->details.text);
    snprintf(c->details.text.title, sizeof c->details.text.title, "%s %s", v->title, r->key);
    /* y in the view copies this row (copy.c), whatever the table does meanwhile */
    snprintf(c->details.key, sizeof c->details.key, "%s", r->key);
    c->details.pane = c->pane;
    c->details.view = c->screens[c->pane].view;
    char line[512];
    /* a pane whose rows are of two kinds (the Fleet map: nodes and
     * devices) names each row's show command itself */
    int own = pane_get(c->pane)->show_line && pane_get(c->pane)->show_line(c, r->key, line, sizeof line);
    if (own || v->show_cmd) {
        if (!own) {
            snprintf(line, sizeof line, "%s ", v->show_cmd);
            pane_append_key(v, r->key, line, sizeof line);
        }
        json_t *res = NULL;
        rd_err err;
        rd_err_clear(&err);
        if (session_exec_line(c, line, &res, &err) != RD_OK) {
            session_set_error(c, "%s", err.msg);
            return;
        }
        if (c->pane == PANE_JOBS)
            add_connect_url(c, res);
        /* Nested documents (a node's inventory) as sections, not JSON. */
        textview_add_doc(&c->details.text, res);
        json_decref(res);
        /* A waiting job: say why, as `job why` does. */
        const json_t *item = pane_current_item(c);
        const char *state = json_string_value(json_object_get(item, "state"));
        if (c->pane == PANE_JOBS && state && strcmp(state, "waiting_gpus") == 0) {
            snprintf(line, sizeof line, "job why ");
            prompt_quote_word(line, sizeof line, r->key);
            if (session_exec_line(c, line, &res, &err) == RD_OK) {
                textview_add(&c->details.text, "");
                textview_add(&c->details.text, "why it waits (job why):");
                textview_add_result(&c->details.text, res, NULL);
            }
            json_decref(res);
        }
    } else {
        const json_t *item = pane_current_item(c);
        if (item)
            textview_add_result(&c->details.text, item, NULL);
    }
    c->details.text.open = 1;
    c->mode = MODE_VIEW;
}
