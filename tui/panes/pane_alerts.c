/* pane_alerts.c - the Alerts pane (key !): every alert, firing first then
 * newest, or only the firing ones ('v'). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panes_int.h"

static const pane_col alert_cols[] = {
    { "ID", "id", 6, 3, 0, COL_RIGHT }, { "RULE", "rule", 16, 8, 0, 0 },
    { "SEVERITY", "severity", 8, 8, 0, COL_STATE }, { "STATE", "state", 8, 8, 0, COL_STATE },
    { "NODE", "node", 14, 6, 0, 0 }, { "GPU", "gpu", 3, 3, 3, COL_RIGHT },
    { "VALUE", "value", 8, 5, 4, COL_RIGHT }, { "FIRED", "fired_at", 20, 10, 0, 0 },
    { "RESOLVED", "resolved_at", 20, 10, 2, 0 }, { "ACKED BY", "acked_by", 10, 8, 1, 0 },
};

/* Firing before resolved, then newest first: what needs a look is on top. */
static int alert_order(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    const char *sx = json_string_value(json_object_get(x, "state")), *sy = json_string_value(json_object_get(y, "state"));
    int fx = sx && strcmp(sx, "firing") == 0, fy = sy && strcmp(sy, "firing") == 0;
    if (fx != fy)
        return fy - fx;
    const char *tx = json_string_value(json_object_get(x, "fired_at")), *ty = json_string_value(json_object_get(y, "fired_at"));
    return strcmp(ty ? ty : "", tx ? tx : "");
}

static void alerts_load(session *c, const pane_view *v, pane_state *ps)
{
    json_t *res = panes_run(c, ps, v->list_cmd);
    if (!res)
        return;
    const json_t *list = json_object_get(res, "items");
    size_t n = json_array_size(list), i, firing = 0, unacked = 0;
    json_t **sorted = n ? malloc(n * sizeof *sorted) : NULL, *items = json_array();
    for (i = 0; sorted && i < n; i++)
        sorted[i] = json_array_get(list, i);
    if (sorted)
        qsort(sorted, n, sizeof *sorted, alert_order);
    for (i = 0; sorted && i < n; i++) {
        const char *state = json_string_value(json_object_get(sorted[i], "state"));
        if (state && strcmp(state, "firing") == 0) {
            firing++;
            unacked += !json_is_string(json_object_get(sorted[i], "acked_by"));
        }
        json_array_append(items, sorted[i]);
    }
    free(sorted);
    json_decref(res);
    panes_fill_rows(v, ps, items);
    panes_adopt_items(ps, items);
    snprintf(ps->summary, sizeof ps->summary, "%zu firing (%zu not acknowledged), %zu resolved", firing, unacked,
             json_array_size(items) - firing);
}

static const pane_view alert_views[] = {
    { .title = "All", .list_cmd = "alert list --state all", PANE_COLS(alert_cols), .key_field = "id",
      .empty_note = "No alert has fired ('alert rule list' shows the rules).", .load = alerts_load,
      .kinds = LK_ALERTS },
    { .title = "Firing", .list_cmd = "alert list --state firing", PANE_COLS(alert_cols), .key_field = "id",
      .empty_note = "No alert is firing (v shows the resolved ones too).", .load = alerts_load,
      .kinds = LK_ALERTS },
};

const pane_def pane_alerts = {
    .name = "Alerts", .mid = "Alerts", .tiny = "Alrt", .key = '!', PANE_VIEWS(alert_views),
};
