/* pane_quotas.c - the Quotas pane (key 5): each GCP region's quota
 * metrics with their use (`quota show R` per region, one row per metric)
 * and the jobs they let run. */
#include <stdio.h>
#include <string.h>

#include "panes_int.h"

static const pane_col quota_cols[] = {
    { "REGION", "region", 12, 8, 0, 0 }, { "GCP REGION", "gcp_region", 14, 10, 2, 0 },
    { "METRIC", "metric", 22, 12, 0, 0 }, { "USAGE/LIMIT", "@usage", 12, 8, 0, COL_RIGHT },
    { "USE", "@quota_bar", 16, 9, 1, COL_BAR }, { "RUNNABLE JOBS", "runnable", 40, 14, 0, 0 },
};

/* "@usage": "3/8"; "@quota_bar": the share used, as a bar. */
static void quota_cell(const json_t *item, const char *field, char *out, size_t len, double *bar)
{
    if (strcmp(field, "@usage") != 0 && strcmp(field, "@quota_bar") != 0) {
        snprintf(out, len, "?");
        return;
    }
    const json_t *lim = json_object_get(item, "limit");
    if (!lim) {
        snprintf(out, len, "-");
        return;
    }
    double use = panes_number_of(item, "usage"), limit = json_number_value(lim);
    char u[32], l[32];
    panes_number_text(use, u, sizeof u);
    panes_number_text(limit, l, sizeof l);
    if (field[1] == 'u') {
        snprintf(out, len, "%s/%s", u, l);
    } else {
        *bar = limit > 0 ? use / limit : (use > 0 ? 1 : 0);
        snprintf(out, len, "%d%%", (int)(*bar * 100 + 0.5));
    }
}

static void quotas_load(session *c, const pane_view *v, pane_state *ps)
{
    json_t *regions = panes_run(c, ps, "region list --provider gcp");
    if (!regions)
        return;
    json_t *items = json_array();
    size_t i, nregions = 0;
    const json_t *r;
    json_array_foreach(json_object_get(regions, "items"), i, r) {
        const char *name = json_string_value(json_object_get(r, "name"));
        char line[160];
        if (!name)
            continue;
        snprintf(line, sizeof line, "quota show %s", name);
        int refused = 0;
        json_t *q = panes_run_row(c, ps, line, &refused);
        if (!q)
            continue;
        nregions++;
        const json_t *metrics = json_object_get(q, "metrics"), *m;
        size_t k;
        if (json_array_size(metrics) == 0)
            json_array_append_new(items, json_pack("{s:s, s:O, s:s, s:O}", "region", name, "gcp_region",
                                                   json_object_get(q, "gcp_region"), "metric", "(no quota set)",
                                                   "runnable", json_object_get(q, "runnable")));
        json_array_foreach(metrics, k, m) {
            json_t *row = json_deep_copy(m);
            json_object_set_new(row, "region", json_string(name));
            json_object_set(row, "gcp_region", json_object_get(q, "gcp_region"));
            /* The runnable jobs are per region: shown once, on its first row. */
            if (k == 0)
                json_object_set(row, "runnable", json_object_get(q, "runnable"));
            json_array_append_new(items, row);
        }
        json_decref(q);
    }
    json_decref(regions);
    panes_fill_rows(v, ps, items);
    panes_adopt_items(ps, items);
    snprintf(ps->summary, sizeof ps->summary, "%zu GCP region%s", nregions, nregions == 1 ? "" : "s");
}

static const pane_view quota_views[] = {
    { .title = "Quotas", PANE_COLS(quota_cols), .cell = quota_cell, .key_field = "metric",
      .empty_note = "No GCP regions: quotas belong to GCP regions (':region create NAME --provider gcp ...').",
      .load = quotas_load, .edit_form = FORM_QUOTA_SET, .key_prefix = "region", .key_sep = ' ',
      .kinds = LK_QUOTAS | LK_REGIONS | LK_NODES },
};

const pane_def pane_quotas = {
    .name = "Quotas", .mid = "Quotas", .tiny = "Quota", .key = '5', PANE_VIEWS(quota_views),
};
