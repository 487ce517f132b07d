/* panes_load.c - the loaders of tables that take several command lines
 * (quotas per GCP region, wallets per account; jobs are panes_jobs.c's),
 * the billing and node summaries and the header alerts.  The pane definitions
 * (panes.c) name these loaders, so nothing here looks a pane up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "panes_int.h"
#include "table.h"



static int ledger_missing(const pane_state *ps)
{
    return ps->note_error && strstr(ps->note, "unknown command 'ledger'") != NULL;
}

static void note_ledger_missing(pane_state *ps)
{
    panes_set_note(ps, 0, "The ledger commands are not in this build yet, so Billing is empty.");
}

/* "today: 12 entries accrue 31.5 cr (device fees 4 cr)" from the entries
 * posted since midnight UTC of the console's clock. */
static void billing_today(session *c, pane_state *ps, const char *prefix)
{
    char since[RDTIME_BUFLEN], line[128];
    rd_time now = c->opt->now_text ? c->opt->now : (rd_time)time(NULL);
    rdtime_format(now - (now % 86400 + 86400) % 86400, since);
    snprintf(line, sizeof line, "ledger entries --since %s", since);
    json_t *res = NULL;
    rd_err err;
    rd_err_clear(&err);
    if (session_exec_line(c, line, &res, &err) != RD_OK)
        return;
    long long accrued = 0, fees = 0;
    size_t i, n = 0;
    const json_t *e;
    json_array_foreach(json_object_get(res, "items"), i, e) {
        const char *kind = json_string_value(json_object_get(e, "kind"));
        long long amount = (long long)json_integer_value(json_object_get(e, "amount_ucr"));
        if (!kind || strcmp(kind, "deposit") == 0 || strcmp(kind, "payout") == 0)
            continue;
        n++;
        accrued += amount;
        if (strcmp(kind, "device_fee") == 0)
            fees += amount;
    }
    char a[48], f[48];
    snprintf(ps->summary, sizeof ps->summary, "%stoday: %zu accruals, %s cr (device fees %s cr)",
             prefix, n, table_format_credits(accrued, a, sizeof a), table_format_credits(fees, f, sizeof f));
    json_decref(res);
}

void panes_load_entries(session *c, const pane_view *v, pane_state *ps)
{
    panes_load_list(c, v, ps);
    if (ledger_missing(ps)) {
        note_ledger_missing(ps);
        return;
    }
    billing_today(c, ps, "");
}

void panes_load_wallets(session *c, const pane_view *v, pane_state *ps)
{
    json_t *accounts = panes_run(c, ps, "account list");
    if (!accounts)
        return;
    json_t *items = json_array();
    long long total = 0;
    size_t i;
    const json_t *a;
    json_array_foreach(json_object_get(accounts, "items"), i, a) {
        const char *name = json_string_value(json_object_get(a, "name"));
        char line[160];
        if (!name)
            continue;
        snprintf(line, sizeof line, "ledger balance %s", name);
        int refused = 0;
        json_t *bal = panes_run_row(c, ps, line, &refused);
        if (!bal && refused)
            continue;   /* another tenant's wallet */
        if (!bal) {
            if (ledger_missing(ps))
                note_ledger_missing(ps);
            break;
        }
        json_object_set(bal, "plan", json_object_get(a, "plan"));
        total += (long long)json_integer_value(json_object_get(bal, "balance_ucr"));
        json_array_append_new(items, bal);
    }
    panes_fill_rows(v, ps, items);
    panes_adopt_items(ps, items);
    json_decref(accounts);
    if (json_array_size(items) > 0) {
        char t[48], prefix[96];
        snprintf(prefix, sizeof prefix, "wallets %s cr; ", table_format_credits(total, t, sizeof t));
        billing_today(c, ps, prefix);
    }
}

void panes_load_quotas(session *c, const pane_view *v, pane_state *ps)
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
    json_array_foreach(c->ps[PANE_NODES][0].items, i, e) {
        const char *s = json_string_value(json_object_get(e, "state"));
        rejected += s && strcmp(s, "rejected") == 0;
        offline += s && strcmp(s, "offline") == 0;
    }
    failed = c->ps[PANE_JOBS][0].failed;
    size_t used = 0;
    if (rejected)
        used += (size_t)snprintf(out + used, len - used, "%zu rejected", rejected);
    if (offline && used < len)
        used += (size_t)snprintf(out + used, len - used, "%s%zu offline", used ? ", " : "", offline);
    if (failed && used < len)
        snprintf(out + used, len - used, "%s%zu failed jobs", used ? ", " : "", failed);
}

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

void panes_load_alerts(session *c, const pane_view *v, pane_state *ps)
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
