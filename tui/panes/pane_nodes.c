/* pane_nodes.c - the Nodes pane (key 3): every node with its GPUs, use,
 * jobs and agent; changed nodes patched in row by row (panes_follow); the
 * summary line and the header's node and job problems.
 */
#include <stdio.h>
#include <string.h>

#include "keyspace.h"
#include "panes_int.h"

/* The big tables ask the core for the fields their columns, summaries and
 * the Dashboard read, not whole documents (a node's inventory): on 10,000
 * nodes that is the difference between seconds and a moment.  A key that
 * needs a whole document (Enter, e) gets it from the show command
 * (pane_current_item).  tests/batch/test_roles.sh checks these fields. */
#define NODE_LIST "node list --fields name,region,owner,role,state,gpu_type,gpu_count,gpus_used,cpu_cores,cpus_used," \
                  "workers,agent,agent_mode,gpu_alloc,gpu_health"

static const pane_col node_cols[] = {
    { "NAME", "name", 16, 12, 0, 0 }, { "REGION", "region", 12, 6, 0, 0 },
    { "ROLE", "role", 8, 7, 2, 0 }, { "STATE", "state", 12, 12, 0, COL_STATE },
    { "GPU TYPE", "gpu_type", 9, 5, 0, 0 }, { "GPUS", "@gpus", 9, 5, 0, COL_RIGHT },
    { "UTILISATION", "@util", 16, 10, 1, COL_BAR }, { "JOBS", "@jobs", 5, 4, 0, COL_RIGHT },
    { "AGENT", "@agent", 7, 6, 0, COL_STATE },
};

/* "@gpus" ("2/8", "4/16 cpu"), "@util" (a bar), "@jobs", "@agent". */
static void node_cell(const json_t *item, const char *field, char *out, size_t len, double *bar)
{
    if (strcmp(field, "@gpus") == 0 || strcmp(field, "@util") == 0) {
        double used = panes_number_of(item, "gpus_used"), total = panes_number_of(item, "gpu_count");
        const char *unit = "";
        /* A CPU-only node's capacity is its cores: "0/0" GPUs and an empty
         * bar would hide the jobs it runs. */
        if (total <= 0 && panes_number_of(item, "cpu_cores") > 0) {
            used = panes_number_of(item, "cpus_used");
            total = panes_number_of(item, "cpu_cores");
            unit = " cpu";
        }
        if (total <= 0) {
            snprintf(out, len, "-");   /* no inventory yet: nothing to measure */
        } else if (field[1] == 'g') {
            char u[32], t[32];
            panes_number_text(used, u, sizeof u);
            panes_number_text(total, t, sizeof t);
            snprintf(out, len, "%s/%s%s", u, t, unit);
        } else {
            *bar = total > 0 ? used / total : 0;
            snprintf(out, len, "%d%%", (int)(*bar * 100 + 0.5));
        }
    } else if (strcmp(field, "@jobs") == 0) {
        /* workers are "JOB/INDEX"; count distinct jobs */
        const json_t *w = json_object_get(item, "workers");
        size_t n = 0, i, j;
        const json_t *e;
        json_array_foreach(w, i, e) {
            const char *s = json_string_value(e);
            size_t k = s ? strcspn(s, "/") : 0;
            int seen = 0;
            for (j = 0; j < i && !seen; j++) {
                const char *p = json_string_value(json_array_get(w, j));
                seen = p && strncmp(p, s, k) == 0 && (p[k] == '/' || p[k] == '\0');
            }
            n += s && !seen;
        }
        snprintf(out, len, "%zu", n);
    } else if (strcmp(field, "@agent") == 0) {
        /* a manual node (node add --agent none) has no agent to wait for */
        const char *mode = json_string_value(json_object_get(item, "agent_mode"));
        if (mode && strcmp(mode, "none") == 0)
            snprintf(out, len, "manual");
        else
            panes_agent_text(json_object_get(item, "agent"), out, len);
    } else {
        snprintf(out, len, "?");
    }
}

static const pane_view node_views[] = {
    { .title = "Nodes", .list_cmd = NODE_LIST, PANE_COLS(node_cols), .cell = node_cell, .key_field = "name",
      .show_cmd = "node show", .remove_cmd = "node remove", .remove_verb = "remove",
      .empty_note = "No nodes yet: press a to add one.", .add_form = FORM_NODE_ADD, .edit_form = FORM_NODE_SET,
      .kinds = LK_NODES, .owner_field = "owner", .names = NAMES_NODE },
};

const pane_def pane_nodes = {
    .name = "Nodes", .mid = "Nodes", .tiny = "Node", .key = '3', PANE_VIEWS(node_views),
};

void panes_node_summary(pane_state *ps)
{
    size_t i, active = 0, maint = 0, bad = 0;
    double used = 0, total = 0;
    const json_t *n;
    json_array_foreach(ps->items, i, n) {
        const char *s = json_string_value(json_object_get(n, "state"));
        active += s && strcmp(s, "active") == 0;
        maint += s && (strcmp(s, "maintenance") == 0 || strcmp(s, "draining") == 0);
        bad += s && (strcmp(s, "rejected") == 0 || strcmp(s, "offline") == 0);
        const json_t *u = json_object_get(n, "gpus_used"), *t = json_object_get(n, "gpu_count");
        used += json_is_number(u) ? json_number_value(u) : 0;
        total += json_is_number(t) ? json_number_value(t) : 0;
    }
    char u[32], t[32];
    panes_number_text(used, u, sizeof u);
    snprintf(t, sizeof t, "%.0f", total);
    snprintf(ps->summary, sizeof ps->summary, "GPUs %s/%s used; %zu active, %zu in maintenance, %zu rejected/offline",
             u, t, active, maint, bad);
}

void panes_alerts(session *c, char *out, size_t len)
{
    size_t i, rejected = 0, offline = 0, failed = 0;
    const json_t *e;
    out[0] = '\0';
    json_array_foreach(c->screens[PANE_NODES].tables[0].items, i, e) {
        const char *s = json_string_value(json_object_get(e, "state"));
        rejected += s && strcmp(s, "rejected") == 0;
        offline += s && strcmp(s, "offline") == 0;
    }
    failed = c->screens[PANE_JOBS].tables[0].failed;
    size_t used = 0;
    if (rejected)
        used += (size_t)snprintf(out + used, len - used, "%zu rejected", rejected);
    if (offline && used < len)
        used += (size_t)snprintf(out + used, len - used, "%s%zu offline", used ? ", " : "", offline);
    if (failed && used < len)
        snprintf(out + used, len - used, "%s%zu failed jobs", used ? ", " : "", failed);
}

int panes_patch_nodes(session *c, const live_state *l)
{
    pane_state *ps = &c->screens[PANE_NODES].tables[0];
    if (!ps->loaded || ps->stale || l->overflow || !json_is_array(ps->items))
        return 0;
    if (l->nchanged == 0)
        return 1;
    panes_forget_shown(ps);
    /* Where each node is in the table, by name; changed ones are re-read. */
    json_t *where = json_object(), *item;
    size_t i;
    json_array_foreach(ps->items, i, item) {
        const char *name = json_string_value(json_object_get(item, "name"));
        if (name)
            json_object_set_new(where, name, json_integer((json_int_t)i));
    }
    int gone = 0;
    for (size_t k = 0; k < l->nchanged; k++) {
        /* A node's own key, or its agent's (the document or the alive
         * key): either way the node is re-read, its "agent" included. */
        const char *name = l->changed[k] + strlen(keyspace_prefix(keyspace_kind_of(l->changed[k])));
        char line[200];
        json_t *node = NULL;
        rd_err err;
        if (strchr(name, '/'))
            continue;
        snprintf(line, sizeof line, "node show %s", name);
        rd_code rc = session_exec_line(c, line, &node, &err);
        if (rc != RD_OK && rc != RD_ENOTFOUND) {
            json_decref(where);
            return 0;
        }
        /* `node list` leaves removed nodes out; so does the patched table. */
        const char *state = json_string_value(json_object_get(node, "state"));
        int keep = rc == RD_OK && !(state && strcmp(state, "removed") == 0);
        const json_t *at = json_object_get(where, name);
        if (at && keep) {
            json_array_set(ps->items, (size_t)json_integer_value(at), node);
        } else if (at) {
            json_array_set_new(ps->items, (size_t)json_integer_value(at), json_null());
            gone = 1;
        } else if (keep) {
            json_object_set_new(where, name, json_integer((json_int_t)json_array_size(ps->items)));
            json_array_append(ps->items, node);
        }
        json_decref(node);
    }
    json_decref(where);
    /* Removed nodes left holes so the indexes above stayed true. */
    for (i = json_array_size(ps->items); gone && i-- > 0;)
        if (json_is_null(json_array_get(ps->items, i)))
            json_array_remove(ps->items, i);
    const pane_view *v = &node_views[0];
    grid_clear_rows(&ps->g);
    panes_fill_rows(v, ps, ps->items);
    panes_node_summary(ps);
    grid_apply(&ps->g);
    return 1;
}
