/* panes.c - the nine panes: columns, loaders and summaries.
 *
 * A loader runs command lines through session_exec_line() and turns the result
 * items into grid rows; computed cells ("@gpus", "@util"...) derive display
 * text from fields the core returned, never from the store.
 */
#include "panes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "form.h"
#include "panes_int.h"
#include "table.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- columns --------------------------------------------------------- */

static const pane_col provider_cols[] = {
    { "NAME", "name", 10, 8, 0, 0 }, { "OWNER", "owner", 12, 6, 0, 0 },
    { "PAYMENT", "payment", 9, 7, 2, 0 }, { "PROJECT", "project_id", 18, 10, 3, 0 },
    { "CLIENT EMAIL", "client_email", 44, 16, 4, 0 }, { "ENABLED", "enabled_at", 20, 10, 1, 0 },
};
static const pane_col region_cols[] = {
    { "NAME", "name", 14, 8, 0, 0 }, { "OWNER", "owner", 10, 8, 3, 0 },
    { "PROVIDER", "provider", 8, 8, 0, 0 }, { "GCP REGION", "gcp_region", 14, 10, 4, 0 },
    { "STORAGE", "storage", 7, 7, 2, 0 }, { "PUBLIC", "public", 6, 6, 5, 0 },
    { "STATE", "state", 12, 8, 0, COL_STATE }, { "COMPUTE", "compute_nodes", 7, 7, 0, COL_RIGHT },
    { "STORAGE N", "storage_nodes", 9, 9, 6, COL_RIGHT }, { "DEVICES", "devices", 7, 7, 1, COL_RIGHT },
};
static const pane_col node_cols[] = {
    { "NAME", "name", 16, 12, 0, 0 }, { "REGION", "region", 12, 6, 0, 0 },
    { "ROLE", "role", 8, 7, 2, 0 }, { "STATE", "state", 12, 12, 0, COL_STATE },
    { "GPU TYPE", "gpu_type", 9, 5, 0, 0 }, { "GPUS", "@gpus", 9, 5, 0, COL_RIGHT },
    { "UTILISATION", "@util", 16, 10, 1, COL_BAR }, { "JOBS", "@jobs", 5, 4, 0, COL_RIGHT },
};
static const pane_col device_cols[] = {
    { "NAME", "name", 14, 8, 0, 0 }, { "REGION", "region", 10, 6, 0, 0 },
    { "MODEL", "model", 17, 8, 0, 0 }, { "STATE", "state", 12, 8, 0, COL_STATE },
    { "CONFIG", "config", 12, 6, 1, 0 }, { "DEPLOYMENT", "deployment", 10, 8, 0, COL_STATE },
    { "LAST DEPLOYED", "last_deployed_at", 20, 10, 2, 0 },
};
static const pane_col config_cols[] = {
    { "NAME", "name", 14, 8, 0, 0 }, { "REGION", "region", 10, 6, 0, 0 },
    { "MODEL", "model", 17, 8, 0, 0 }, { "IMAGE", "image", 22, 8, 0, 0 },
    { "COMMAND", "command", 20, 8, 1, 0 }, { "DATASTORE", "datastore", 10, 8, 2, 0 },
    { "ENV", "env", 24, 6, 3, 0 },
};
static const pane_col project_cols[] = {
    { "OWNER", "owner", 12, 8, 0, 0 }, { "NAME", "name", 14, 8, 0, 0 },
    { "ON QUOTA EXHAUSTED", "on_quota_exhausted", 18, 6, 0, 0 }, { "MEMBERS", "members", 30, 8, 1, 0 },
    { "CREATED", "created_at", 20, 10, 2, 0 },
};
static const pane_col quota_cols[] = {
    { "REGION", "region", 12, 8, 0, 0 }, { "GCP REGION", "gcp_region", 14, 10, 2, 0 },
    { "METRIC", "metric", 22, 12, 0, 0 }, { "USAGE/LIMIT", "@usage", 12, 8, 0, COL_RIGHT },
    { "USE", "@quota_bar", 16, 9, 1, COL_BAR }, { "RUNNABLE JOBS", "runnable", 40, 14, 0, 0 },
};
static const pane_col job_cols[] = {
    { "ID", "id", 13, 12, 0, 0 }, { "NAME", "name", 14, 8, 3, 0 },
    { "STATE", "state", 12, 8, 0, COL_STATE }, { "WORKERS", "@workers", 7, 5, 0, COL_RIGHT },
    { "NODE", "node", 16, 6, 0, 0 }, { "PRICE/GPU-H", "@price", 11, 8, 1, COL_RIGHT | COL_MONEY },
    { "PROJECT", "@project", 16, 7, 2, 0 }, { "WAITING REASON", "@why", 44, 14, 0, 0 },
};
static const pane_col wallet_cols[] = {
    { "ACCOUNT", "account", 14, 8, 0, 0 }, { "PLAN", "plan", 10, 6, 1, 0 },
    { "BALANCE", "balance_ucr", 14, 8, 0, COL_RIGHT | COL_MONEY },
    { "PENDING", "pending_ucr", 12, 8, 0, COL_RIGHT | COL_MONEY },
    { "EARNINGS", "earnings_ucr", 14, 8, 0, COL_RIGHT | COL_MONEY },
};
static const pane_col entry_cols[] = {
    { "AT", "at", 20, 10, 0, 0 }, { "KIND", "kind", 13, 8, 0, 0 },
    { "DEBIT", "debit", 18, 10, 2, 0 }, { "CREDIT", "credit", 18, 10, 2, 0 },
    { "AMOUNT", "amount_ucr", 12, 8, 0, COL_RIGHT | COL_MONEY }, { "STATE", "state", 8, 7, 3, COL_STATE },
    { "REF", "ref", 30, 10, 1, 0 },
};
static const pane_col datastore_cols[] = {
    { "NAME", "name", 14, 8, 0, 0 }, { "REGION", "region", 10, 6, 0, 0 }, { "TYPE", "type", 5, 4, 0, 0 },
    { "ADDRESS", "address", 22, 10, 0, 0 }, { "ROOT", "root", 20, 8, 1, 0 },
    { "USERNAME", "username", 10, 8, 2, 0 },
};
static const pane_col reservation_cols[] = {
    { "NAME", "name", 14, 8, 0, 0 }, { "REGION", "region", 10, 6, 0, 0 }, { "TYPE", "type", 6, 4, 1, 0 },
    { "HOSTNAME", "hostname", 24, 8, 0, 0 }, { "PORT", "port", 6, 4, 0, COL_RIGHT },
};
static const pane_col audit_cols[] = {
    { "AT", "at", 20, 10, 0, 0 }, { "ACTOR", "actor", 10, 6, 1, 0 },
    { "COMMAND", "command", 44, 16, 0, 0 }, { "CHANGES", "@changes", 50, 12, 0, 0 },
};

#define COLS(a) a, N(a)

static const pane_view provider_views[] = {
    { "Providers", "provider list", COLS(provider_cols), "name", "provider show", NULL, NULL,
      "No provider is enabled: press a to enable one.", -1, 0, NULL, FORM_PROVIDER_ENABLE, -1, NULL, 0 },
};
static const pane_view region_views[] = {
    { "Regions", "region list", COLS(region_cols), "name", "region show", "region remove", "remove",
      "No regions yet: press a to create one.", -1, 0, NULL, FORM_REGION_CREATE, -1, NULL, 0 },
};
static const pane_view node_views[] = {
    { "Nodes", "node list", COLS(node_cols), "name", "node show", "node remove", "remove",
      "No nodes yet: press a to add one.", -1, 0, NULL, FORM_NODE_ADD, FORM_NODE_SET, NULL, 0 },
};
static const pane_view device_views[] = {
    { "Devices", "device list", COLS(device_cols), "name", "device show", "device remove", "remove",
      "No edge devices yet: press a to add one (its region needs central storage).", -1, 0, NULL,
      FORM_DEVICE_ADD, FORM_DEVICE_SET_CONFIG, NULL, 0 },
    { "Configs", "device-config list", COLS(config_cols), "name", NULL, "device-config remove", "remove",
      "No device configurations yet: press a to create one.", -1, 0, NULL, FORM_CONFIG_CREATE, -1, "region", ' ' },
};
static const pane_view quota_views[] = {
    { "Quotas", NULL, COLS(quota_cols), "metric", NULL, NULL, NULL,
      "No GCP regions: quotas belong to GCP regions (':region create NAME --provider gcp ...').",
      -1, 0, panes_load_quotas, -1, FORM_QUOTA_SET, "region", ' ' },
};
static const pane_view job_views[] = {
    { "Jobs", "job list", COLS(job_cols), "id", "job show", "job stop", "stop",
      "No jobs yet: press a to submit a job spec.", -1, 0, panes_load_jobs, FORM_JOB_SUBMIT, -1, NULL, 0 },
    { "Projects", "project list", COLS(project_cols), "name", "project show", NULL, NULL,
      "No projects you own or share.", -1, 0, NULL, FORM_PROJECT_CREATE, FORM_PROJECT_SET, "owner", '/' },
};
static const pane_view billing_views[] = {
    { "Wallets", NULL, COLS(wallet_cols), "account", "ledger balance", NULL, NULL,
      "No accounts.", -1, 0, panes_load_wallets, FORM_ACCOUNT_CREATE, FORM_ACCOUNT_SET, NULL, 0 },
    { "Entries", "ledger entries", COLS(entry_cols), "id", NULL, NULL, NULL,
      "No ledger entries yet.", 0, 1, panes_load_entries, -1, -1, NULL, 0 },
    { "Device fees", "ledger entries --kind device_fee", COLS(entry_cols), "id", NULL, NULL, NULL,
      "No device fees posted yet ('bill run' posts them).", 0, 1, panes_load_entries, -1, -1, NULL, 0 },
};
static const pane_view store_views[] = {
    { "Datastores", "datastore list", COLS(datastore_cols), "name", "datastore show", "datastore remove",
      "remove", "No datastores yet: press a to add one.", -1, 0, NULL, FORM_DATASTORE_ADD, -1, NULL, 0 },
    { "Reservations", "reservation list", COLS(reservation_cols), "name", "reservation show",
      "reservation remove", "remove", "No reservations yet: press a to add one.", -1, 0, NULL, FORM_RESERVATION_ADD, -1, NULL, 0 },
};
static const pane_view audit_views[] = {
    { "Audit", "audit list --limit 2000", COLS(audit_cols), "id", NULL, NULL, NULL,
      "The audit trail is empty.", 0, 1, NULL, -1, -1, NULL, 0 },
};

static const pane_def panes[PANE_COUNT] = {
    { "Providers", "Providers", "Prov", COLS(provider_views) },
    { "Regions", "Regions", "Regn", COLS(region_views) },
    { "Nodes", "Nodes", "Node", COLS(node_views) },
    { "Devices", "Devices", "Dev", COLS(device_views) },
    { "Quotas", "Quotas", "Quota", COLS(quota_views) },
    { "Jobs", "Jobs", "Jobs", COLS(job_views) },
    { "Billing", "Billing", "Bill", COLS(billing_views) },
    { "Datastores/Reservations", "Stores", "Store", COLS(store_views) },
    { "Audit", "Audit", "Audit", COLS(audit_views) },
};

/* What each table shows, as LK_* kinds: a change of one of `kinds`, or a
 * document of `births` created or deleted (a count it shows), makes it
 * stale.  Nodes are patched row by row (panes_follow). */
static const struct { int pane, view; unsigned kinds, births; } pane_deps[] = {
    { PANE_PROVIDERS, 0, LK_PROVIDERS, 0 },
    { PANE_REGIONS, 0, LK_REGIONS, LK_NODES | LK_DEVICES },
    { PANE_NODES, 0, LK_NODES, 0 },
    { PANE_DEVICES, 0, LK_DEVICES, 0 },
    { PANE_DEVICES, 1, LK_CONFIGS, 0 },
    { PANE_QUOTAS, 0, LK_QUOTAS | LK_REGIONS | LK_NODES, 0 },
    { PANE_JOBS, 0, LK_JOBS | LK_NODES | LK_PRICES, 0 },
    { PANE_JOBS, 1, LK_PROJECTS, 0 },
    { PANE_BILLING, 0, LK_LEDGER | LK_ACCOUNTS, 0 },
    { PANE_BILLING, 1, LK_LEDGER, 0 },
    { PANE_BILLING, 2, LK_LEDGER, 0 },
    { PANE_STORES, 0, LK_DATASTORES, 0 },
    { PANE_STORES, 1, LK_RESERVATIONS, 0 },
    { PANE_AUDIT, 0, LK_AUDIT, 0 },
};

void panes_follow(session *c, const live_state *l)
{
    pane_state *nodes = &c->ps[PANE_NODES][0];
    int was_stale = nodes->stale;
    int patched = !(l->kinds & LK_NODES) || panes_patch_nodes(c, l);
    for (size_t i = 0; i < N(pane_deps); i++)
        if ((l->kinds & pane_deps[i].kinds) || (l->births & pane_deps[i].births))
            c->ps[pane_deps[i].pane][pane_deps[i].view].stale = 1;
    if (patched)
        nodes->stale = was_stale;
    c->dirty = 1;
}

const pane_def *pane_get(int i)
{
    return i >= 0 && i < PANE_COUNT ? &panes[i] : NULL;
}

const pane_view *pane_view_get(int pane, int view)
{
    const pane_def *p = pane_get(pane);
    if (!p || view < 0 || (size_t)view >= p->nviews)
        return NULL;
    return &p->views[view];
}

void panes_init(session *c)
{
    for (int p = 0; p < PANE_COUNT; p++) {
        for (size_t v = 0; v < PANE_MAX_VIEWS; v++) {
            pane_state *ps = &c->ps[p][v];
            memset(ps, 0, sizeof *ps);
            const pane_view *pv = pane_view_get(p, (int)v);
            grid_init(&ps->g, pv ? pv->ncols : 0);
            if (pv) {
                ps->g.sort_col = pv->sort_col;
                ps->g.sort_desc = pv->sort_desc;
            }
            ps->stale = 1;
        }
    }
}

void panes_free(session *c)
{
    for (int p = 0; p < PANE_COUNT; p++)
        for (int v = 0; v < PANE_MAX_VIEWS; v++) {
            grid_free(&c->ps[p][v].g);
            json_decref(c->ps[p][v].items);
            c->ps[p][v].items = NULL;
        }
}

/* ---- cells ----------------------------------------------------------- */

static int is_money(const char *field)
{
    size_t n = strlen(field);
    return n > 4 && strcmp(field + n - 4, "_ucr") == 0;
}

/* "2.5" for 2.5, "4" for 4.0: GPU counts may be fractional. */
void panes_number_text(double d, char *out, size_t len)
{
    snprintf(out, len, "%.2f", d);
    char *p = out + strlen(out) - 1;
    while (p > out && *p == '0')
        *p-- = '\0';
    if (*p == '.')
        *p = '\0';
}

void panes_value_text(const json_t *v, const char *field, char *out, size_t len)
{
    if (!v || json_is_null(v)) {
        snprintf(out, len, "-");
    } else if (json_is_string(v)) {
        snprintf(out, len, "%s", json_string_value(v));
    } else if (json_is_boolean(v)) {
        snprintf(out, len, "%s", json_is_true(v) ? "yes" : "no");
    } else if (json_is_integer(v) && is_money(field)) {
        table_format_credits(json_integer_value(v), out, len);
    } else if (json_is_number(v)) {
        panes_number_text(json_number_value(v), out, len);
    } else if (json_is_array(v)) {
        size_t i, used = 0;
        const json_t *e;
        out[0] = '\0';
        json_array_foreach(v, i, e) {
            char part[128];
            panes_value_text(json_is_object(e) ? json_object_get(e, "name") : e, "", part, sizeof part);
            if (used < len)
                used += (size_t)snprintf(out + used, len - used, "%s%s", i ? ", " : "", part);
        }
    } else if (json_is_object(v)) {
        /* {"a100": 2, "v100": 3} -> "a100 2  v100 3" */
        size_t used = 0;
        const char *k;
        const json_t *e;
        out[0] = '\0';
        json_object_foreach((json_t *)v, k, e) {
            char part[64];
            panes_value_text(e, k, part, sizeof part);
            if (used < len)
                used += (size_t)snprintf(out + used, len - used, "%s%s %s", used ? "  " : "", k, part);
        }
    }
}

static double number_of(const json_t *item, const char *field)
{
    const json_t *v = json_object_get(item, field);
    return json_is_number(v) ? json_number_value(v) : 0;
}

/* Computed cells: text in out, a bar fraction in *bar. */
static void computed_text(const json_t *item, const char *field, char *out, size_t len, double *bar)
{
    if (strcmp(field, "@gpus") == 0 || strcmp(field, "@util") == 0) {
        double used = number_of(item, "gpus_used"), total = number_of(item, "gpu_count");
        const char *unit = "";
        /* A CPU-only node's capacity is its cores: "0/0" GPUs and an empty
         * bar would hide the jobs it runs. */
        if (total <= 0 && number_of(item, "cpu_cores") > 0) {
            used = number_of(item, "cpus_used");
            total = number_of(item, "cpu_cores");
            unit = " cpu";
        }
        char u[32], t[32];
        panes_number_text(used, u, sizeof u);
        panes_number_text(total, t, sizeof t);
        if (total <= 0) {
            snprintf(out, len, "-");   /* no inventory yet: nothing to measure */
        } else if (field[1] == 'g') {
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
    } else if (strcmp(field, "@project") == 0) {
        /* Project names are per owner: every account has a "default". */
        const char *owner = json_string_value(json_object_get(item, "project_owner"));
        const char *name = json_string_value(json_object_get(item, "project"));
        snprintf(out, len, "%s%s%s", owner ? owner : "", owner ? "/" : "", name ? name : "-");
    } else if (strcmp(field, "@workers") == 0) {
        snprintf(out, len, "%lld/%lld", (long long)number_of(item, "workers_running"),
                 (long long)number_of(item, "workers_total"));
    } else if (strcmp(field, "@price") == 0) {
        const json_t *w = json_object_get(item, "workers"), *e;
        size_t i;
        snprintf(out, len, "-");
        json_array_foreach(w, i, e) {
            const json_t *p = json_object_get(e, "price_ucr");
            if (json_is_integer(p)) {
                table_format_credits(json_integer_value(p), out, len);
                break;
            }
        }
    } else if (strcmp(field, "@why") == 0) {
        panes_value_text(json_object_get(item, "why"), "", out, len);
        if (strcmp(out, "-") == 0)
            panes_value_text(json_object_get(item, "reason"), "", out, len);
    } else if (strcmp(field, "@changes") == 0) {
        const json_t *ch = json_object_get(item, "changes"), *e;
        size_t i, used = 0;
        out[0] = '\0';
        json_array_foreach(ch, i, e) {
            if (used < len)
            {
                const char *act = json_string_value(json_object_get(e, "action"));
                const char *obj = json_string_value(json_object_get(e, "object"));
                used += (size_t)snprintf(out + used, len - used, "%s%s %s", i ? ", " : "",
                                         act ? act : "?", obj ? obj : "?");
            }
        }
    } else if (strcmp(field, "@usage") == 0 || strcmp(field, "@quota_bar") == 0) {
        const json_t *lim = json_object_get(item, "limit");
        if (!lim) {
            snprintf(out, len, "-");
            return;
        }
        double use = number_of(item, "usage"), limit = json_number_value(lim);
        char u[32], l[32];
        panes_number_text(use, u, sizeof u);
        panes_number_text(limit, l, sizeof l);
        if (field[1] == 'u') {
            snprintf(out, len, "%s/%s", u, l);
        } else {
            *bar = limit > 0 ? use / limit : (use > 0 ? 1 : 0);
            snprintf(out, len, "%d%%", (int)(*bar * 100 + 0.5));
        }
    } else {
        snprintf(out, len, "?");
    }
}

void pane_item_key(const pane_view *v, const json_t *item, char *out, size_t len)
{
    char name[200], prefix[200];
    panes_value_text(json_object_get(item, v->key_field), "", name, sizeof name);
    if (!v->key_prefix) {
        snprintf(out, len, "%s", name);
        return;
    }
    panes_value_text(json_object_get(item, v->key_prefix), "", prefix, sizeof prefix);
    snprintf(out, len, "%s%c%s", prefix, v->key_sep, name);
}

void pane_append_key(const pane_view *v, const char *key, char *line, size_t len)
{
    const char *sp = v && v->key_prefix && v->key_sep == ' ' ? strchr(key, ' ') : NULL;
    if (!sp) {
        form_quote(line, len, key);
        return;
    }
    /* "REGION NAME": two arguments, each quoted on its own. */
    char first[256];
    snprintf(first, sizeof first, "%.*s", (int)(sp - key), key);
    form_quote(line, len, first);
    size_t used = strlen(line);
    snprintf(line + used, len - used, " ");
    form_quote(line, len, sp + 1);
}

/* One grid row per item. */
void panes_fill_rows(const pane_view *v, pane_state *ps, const json_t *items)
{
    size_t i;
    const json_t *item;
    const char *cells[16];
    char buf[16][256];
    json_array_foreach(items, i, item) {
        double bar = -1;
        int elem = 0;
        for (size_t k = 0; k < v->ncols && k < 16; k++) {
            const pane_col *col = &v->cols[k];
            if (col->field[0] == '@')
                computed_text(item, col->field, buf[k], sizeof buf[k], &bar);
            else
                panes_value_text(json_object_get(item, col->field), col->field, buf[k], sizeof buf[k]);
            cells[k] = buf[k];
            if ((col->flags & COL_STATE) && !elem)
                elem = (int)theme_state_elem(buf[k]);
        }
        char key[256];
        pane_item_key(v, item, key, sizeof key);
        grid_row *r = grid_add_row(&ps->g, key, cells);
        if (r) {
            r->bar = bar;
            r->elem = elem;
        }
    }
}

void panes_set_note(pane_state *ps, int error, const char *text)
{
    snprintf(ps->note, sizeof ps->note, "%s", text);
    ps->note_error = error;
}

/* Runs a line; on failure notes the core's message in the table. */
json_t *panes_run(session *c, pane_state *ps, const char *line)
{
    json_t *res = NULL;
    rd_err err;
    rd_err_clear(&err);
    if (session_exec_line(c, line, &res, &err) != RD_OK) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s: %s", line, err.msg);
        panes_set_note(ps, 1, msg);
        return NULL;
    }
    return res;
}

void panes_adopt_items(pane_state *ps, json_t *items)
{
    json_decref(ps->items);
    ps->items = items;
}

void panes_load_list(session *c, const pane_view *v, pane_state *ps)
{
    json_t *res = panes_run(c, ps, v->list_cmd);
    if (!res)
        return;
    json_t *items = json_object_get(res, "items");
    panes_fill_rows(v, ps, items);
    panes_adopt_items(ps, json_incref(items));
    json_decref(res);
}

void pane_load(session *c, int pane, int view)
{
    const pane_view *v = pane_view_get(pane, view);
    if (!v)
        return;
    pane_state *ps = &c->ps[pane][view];
    grid_clear_rows(&ps->g);
    ps->summary[0] = '\0';
    panes_set_note(ps, 0, "");
    if (v->load)
        v->load(c, v, ps);
    else
        panes_load_list(c, v, ps);
    if (ps->g.nrows == 0 && !ps->note[0])
        panes_set_note(ps, 0, v->empty_note);
    if (pane == PANE_NODES)
        panes_node_summary(ps);
    grid_apply(&ps->g);
    ps->stale = 0;
    ps->loaded = 1;
}

const json_t *pane_current_item(session *c)
{
    pane_state *ps = session_current_table(c);
    const pane_view *v = pane_view_get(c->pane, c->view[c->pane]);
    const grid_row *r = grid_current(&ps->g);
    size_t i;
    const json_t *item;
    if (!r || !v)
        return NULL;
    json_array_foreach(ps->items, i, item) {
        char key[256];
        pane_item_key(v, item, key, sizeof key);
        if (strcmp(key, r->key) == 0)
            return item;
    }
    return NULL;
}
