/* panes.c - the nine panes: their columns and views, which changes make
 * which table stale, loading a table, patching changed nodes into Nodes,
 * explaining waiting jobs in idle time, and names for completion.
 *
 * A loader runs command lines through session_exec_line() and turns the
 * result items into grid rows (panes_cells.c, panes_load.c).
 */
#include "panes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dash.h"
#include "keyspace.h"
#include "panes_int.h"
#include "table.h"
#include "rdtime.h"

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
    { "AGENT", "@agent", 7, 6, 0, COL_STATE },
};
static const pane_col device_cols[] = {
    { "NAME", "name", 14, 8, 0, 0 }, { "REGION", "region", 10, 6, 0, 0 },
    { "MODEL", "model", 17, 8, 0, 0 }, { "STATE", "state", 12, 8, 0, COL_STATE },
    { "CONFIG", "config", 12, 6, 1, 0 }, { "DEPLOYMENT", "@deployment", 10, 8, 0, COL_STATE },
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
static const pane_col environment_cols[] = {
    { "NAME", "name", 20, 8, 0, 0 }, { "FRAMEWORK", "framework", 13, 7, 0, 0 },
    { "VERSION", "framework_version", 8, 5, 0, 0 }, { "PYTHON", "python", 6, 4, 0, 0 },
    { "IMAGE", "image", 60, 12, 0, 0 },
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
static const pane_col datakey_cols[] = {
    { "OWNER", "owner", 12, 6, 1, 0 }, { "NAME", "name", 16, 8, 0, 0 }, { "TYPE", "type", 11, 5, 0, 0 },
    { "CREATED", "created_at", 20, 10, 2, 0 },
};
static const pane_col dataobj_cols[] = {
    { "OWNER", "owner", 12, 6, 2, 0 }, { "NAME", "name", 18, 8, 0, 0 },
    { "TYPE", "source_type", 9, 5, 0, 0 }, { "SOURCE", "source", 40, 12, 0, 0 },
    { "KEY", "key", 12, 5, 1, 0 }, { "CREATED", "created_at", 20, 10, 3, 0 },
};
static const pane_col audit_cols[] = {
    { "AT", "at", 20, 10, 0, 0 }, { "ACTOR", "actor", 10, 6, 1, 0 },
    { "COMMAND", "command", 44, 16, 0, 0 }, { "CHANGES", "@changes", 50, 12, 0, 0 },
};

static const pane_col alert_cols[] = {
    { "ID", "id", 6, 3, 0, COL_RIGHT }, { "RULE", "rule", 16, 8, 0, 0 },
    { "SEVERITY", "severity", 8, 8, 0, COL_STATE }, { "STATE", "state", 8, 8, 0, COL_STATE },
    { "NODE", "node", 14, 6, 0, 0 }, { "GPU", "gpu", 3, 3, 3, COL_RIGHT },
    { "VALUE", "value", 8, 5, 4, COL_RIGHT }, { "FIRED", "fired_at", 20, 10, 0, 0 },
    { "RESOLVED", "resolved_at", 20, 10, 2, 0 }, { "ACKED BY", "acked_by", 10, 8, 1, 0 },
};

#define COLS(a) a, N(a)

/* The big tables ask the core for the fields their columns, summaries and
 * the Dashboard read, not whole documents (a node's inventory, a job's
 * spec): on 100,000 jobs that is the difference between seconds and
 * gigabytes and a moment.  A key that needs a whole document (Enter, e,
 * o) gets it from the show command (pane_current_item). */
#define NODE_LIST "node list --fields name,region,owner,role,state,gpu_type,gpu_count,gpus_used,cpu_cores,cpus_used," \
                  "workers,agent,agent_mode,gpu_alloc,gpu_health"
#define JOB_LIST "job list --fields id,name,state,workers_running,workers_total,node,project,project_owner,reason," \
                 "workers.state,workers.node,workers.price_ucr"

static const pane_view provider_views[] = {
    { "Providers", "provider list", COLS(provider_cols), "name", "provider show", NULL, NULL,
      "No provider is enabled: press a to enable one.", -1, 0, NULL, FORM_PROVIDER_ENABLE, -1, NULL, 0, 0 },
};
static const pane_view region_views[] = {
    { "Regions", "region list", COLS(region_cols), "name", "region show", "region remove", "remove",
      "No regions yet: press a to create one.", -1, 0, NULL, FORM_REGION_CREATE, FORM_REGION_SET, NULL, 0, 0 },
};
static const pane_view node_views[] = {
    { "Nodes", NODE_LIST, COLS(node_cols), "name", "node show", "node remove", "remove",
      "No nodes yet: press a to add one.", -1, 0, NULL, FORM_NODE_ADD, FORM_NODE_SET, NULL, 0, 0 },
};
static const pane_view device_views[] = {
    { "Devices", "device list", COLS(device_cols), "name", "device show", "device remove", "remove",
      "No edge devices yet: press a to add one (its region needs central storage).", -1, 0, NULL,
      FORM_DEVICE_ADD, FORM_DEVICE_SET_CONFIG, NULL, 0, 0 },
    { "Configs", "device-config list", COLS(config_cols), "name", NULL, "device-config remove", "remove",
      "No device configurations yet: press a to create one.", -1, 0, NULL, FORM_CONFIG_CREATE, -1, "region", ' ', 0 },
};
static const pane_view quota_views[] = {
    { "Quotas", NULL, COLS(quota_cols), "metric", NULL, NULL, NULL,
      "No GCP regions: quotas belong to GCP regions (':region create NAME --provider gcp ...').",
      -1, 0, panes_load_quotas, -1, FORM_QUOTA_SET, "region", ' ', 0 },
};
static const pane_view job_views[] = {
    { "Jobs", JOB_LIST, COLS(job_cols), "id", "job show", "job stop", "stop",
      "No jobs yet: press a to submit a job spec.", -1, 0, panes_load_jobs, FORM_JOB_SUBMIT, -1, NULL, 0, 0 },
    { "Projects", "project list", COLS(project_cols), "name", "project show", NULL, NULL,
      "No projects you own or share.", -1, 0, NULL, FORM_PROJECT_CREATE, FORM_PROJECT_SET, "owner", '/', 0 },
    /* what a job without an image runs (environment add/remove: ':') */
    { "Environments", "environment list", COLS(environment_cols), "name", NULL, "environment remove", "remove",
      "No environments: a job without an image is refused (':environment add NAME --image IMAGE ...').", -1, 0,
      NULL, -1, -1, NULL, 0, 0 },
};
static const pane_view billing_views[] = {
    { "Wallets", NULL, COLS(wallet_cols), "account", "ledger balance", NULL, NULL,
      "No accounts.", -1, 0, panes_load_wallets, FORM_ACCOUNT_CREATE, FORM_ACCOUNT_SET, NULL, 0, 0 },
    { "Entries", "ledger entries", COLS(entry_cols), "id", NULL, NULL, NULL,
      "No ledger entries yet.", 0, 1, panes_load_entries, -1, -1, NULL, 0, 0 },
    { "Device fees", "ledger entries --kind device_fee", COLS(entry_cols), "id", NULL, NULL, NULL,
      "No device fees posted yet ('bill run' posts them).", 0, 1, panes_load_entries, -1, -1, NULL, 0, 0 },
};
static const pane_view store_views[] = {
    { "Datastores", "datastore list", COLS(datastore_cols), "name", "datastore show", "datastore remove",
      "remove", "No datastores yet: press a to add one.", -1, 0, NULL, FORM_DATASTORE_ADD, -1, NULL, 0, 0 },
    { "Reservations", "reservation list", COLS(reservation_cols), "name", "reservation show",
      "reservation remove", "remove", "No reservations yet: press a to add one.", -1, 0, NULL, FORM_RESERVATION_ADD, -1, NULL, 0, 0 },
    /* an account's data objects (core/data/): named OWNER/NAME, the form that finds another's */
    { "Keys", "key list", COLS(datakey_cols), "name", "key show", "key remove", "remove",
      "No keys yet: press a to add one (sealed at rest, never shown).", -1, 0, NULL, FORM_KEY_ADD, -1,
      "owner", '/', 0 },
    { "Datasets", "dataset list", COLS(dataobj_cols), "name", "dataset show", "dataset remove", "remove",
      "No datasets yet: press a to add one.", -1, 0, NULL, FORM_DATASET_ADD, -1, "owner", '/', 0 },
    { "Checkpoints", "checkpoint list", COLS(dataobj_cols), "name", "checkpoint show", "checkpoint remove",
      "remove", "No checkpoints yet: press a to add one.", -1, 0, NULL, FORM_CHECKPOINT_ADD, -1, "owner",
      '/', 0 },
    { "Models", "model list", COLS(dataobj_cols), "name", "model show", "model remove", "remove",
      "No models yet: press a to add one.", -1, 0, NULL, FORM_MODEL_ADD, -1, "owner", '/', 0 },
};
static const pane_view audit_views[] = {
    { "Audit", "audit list --limit 2000", COLS(audit_cols), "id", NULL, NULL, NULL,
      "The audit trail is empty.", 0, 1, NULL, -1, -1, NULL, 0, 0 },
};

static const pane_view dash_views[] = {
    { "Dashboard", NULL, NULL, 0, "name", "node show", NULL, NULL, "", -1, 0, panes_load_dash, -1, -1, NULL, 0,
      DASH_RELOAD_MS },
};
static const pane_view alert_views[] = {
    { "All", "alert list --state all", COLS(alert_cols), "id", NULL, NULL, NULL,
      "No alert has fired ('alert rule list' shows the rules).", -1, 0, panes_load_alerts, -1, -1, NULL, 0, 0 },
    { "Firing", "alert list --state firing", COLS(alert_cols), "id", NULL, NULL, NULL,
      "No alert is firing (v shows the resolved ones too).", -1, 0, panes_load_alerts, -1, -1, NULL, 0, 0 },
};

static const pane_def panes[PANE_COUNT] = {
    { "Providers", "Providers", "Prov", COLS(provider_views) },
    { "Regions", "Regions", "Regn", COLS(region_views) },
    { "Nodes", "Nodes", "Node", COLS(node_views) },
    { "Devices", "Devices", "Dev", COLS(device_views) },
    { "Quotas", "Quotas", "Quota", COLS(quota_views) },
    { "Jobs", "Jobs", "Jobs", COLS(job_views) },
    { "Billing", "Billing", "Bill", COLS(billing_views) },
    { "Data/Datastores", "Data", "Data", COLS(store_views) },
    { "Audit", "Audit", "Audit", COLS(audit_views) },
    { "Dashboard", "Dashboard", "Dash", COLS(dash_views) },
    { "Alerts", "Alerts", "Alrt", COLS(alert_views) },
};

static const char pane_keys[PANE_COUNT] = { '1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '!' };

int pane_key(int i)
{
    return i >= 0 && i < PANE_COUNT ? pane_keys[i] : 0;
}

int pane_of_key(int key)
{
    for (int i = 0; i < PANE_COUNT; i++)
        if (pane_keys[i] == key)
            return i;
    return -1;
}

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
    { PANE_JOBS, 2, LK_ENVIRONMENTS, 0 },
    { PANE_BILLING, 0, LK_LEDGER | LK_ACCOUNTS, 0 },
    { PANE_BILLING, 1, LK_LEDGER, 0 },
    { PANE_BILLING, 2, LK_LEDGER, 0 },
    { PANE_STORES, 0, LK_DATASTORES, 0 },
    { PANE_STORES, 1, LK_RESERVATIONS, 0 },
    { PANE_STORES, 2, LK_DATA, 0 },
    { PANE_STORES, 3, LK_DATA, 0 },
    { PANE_STORES, 4, LK_DATA, 0 },
    { PANE_STORES, 5, LK_DATA, 0 },
    { PANE_AUDIT, 0, LK_AUDIT, 0 },
    { PANE_DASHBOARD, 0, LK_METRICS | LK_NODES | LK_ALERTS, 0 },
    { PANE_ALERTS, 0, LK_ALERTS, 0 },
    { PANE_ALERTS, 1, LK_ALERTS, 0 },
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
            panes_forget_shown(&c->ps[p][v]);
            panes_jobs_abandon(&c->ps[p][v]);
            grid_free(&c->ps[p][v].g);
            json_decref(c->ps[p][v].items);
            c->ps[p][v].items = NULL;
        }
}

/* What every load ends with, at once or in steps. */
static void panes_finish_load(const pane_view *v, pane_state *ps, int pane)
{
    if (ps->g.nrows == 0 && !ps->note[0])
        panes_set_note(ps, 0, v->empty_note);
    if (pane == PANE_NODES)
        panes_node_summary(ps);
    grid_apply(&ps->g);
    ps->stale = 0;
    ps->loaded = 1;
}

void pane_load(session *c, int pane, int view)
{
    const pane_view *v = pane_view_get(pane, view);
    if (!v)
        return;
    pane_state *ps = &c->ps[pane][view];
    /* the Dashboard follows the Nodes pane's selected node */
    if (pane == PANE_DASHBOARD && !c->ps[PANE_NODES][0].loaded)
        pane_load(c, PANE_NODES, 0);
    panes_jobs_abandon(ps);
    grid_clear_rows(&ps->g);
    panes_forget_shown(ps);
    ps->summary[0] = '\0';
    panes_set_note(ps, 0, "");
    if (v->load)
        v->load(c, v, ps);
    else
        panes_load_list(c, v, ps);
    panes_finish_load(v, ps, pane);
}

int pane_load_start(session *c, int pane, int view)
{
    const pane_view *v = pane_view_get(pane, view);
    pane_state *ps = v ? &c->ps[pane][view] : NULL;
    if (!v || v->load != panes_load_jobs || !panes_jobs_begin(v, ps))
        return 0;
    /* A change from now on needs another read after this one. */
    ps->stale = 0;
    panes_set_note(ps, 0, "");
    return 1;
}

int panes_prefetch(session *c)
{
    /* Once the first table is on screen, so that Jobs is usually read
     * before '6' is pressed (100,000 jobs take seconds).  A Jobs table read
     * before and stale since waits to be shown: on a busy fleet it is stale
     * most of the time, and reading it again and again would keep a CPU
     * busy for nothing. */
    pane_state *jobs = &c->ps[PANE_JOBS][0];
    if (jobs->loaded || jobs->loading || !jobs->stale || !session_current_table(c)->loaded)
        return 0;
    return pane_load_start(c, PANE_JOBS, 0);
}

int panes_loading(const session *c)
{
    return panes_jobs_loading(&c->ps[PANE_JOBS][0], NULL);
}

int panes_load_step(session *c, long long budget_ms)
{
    pane_state *ps = &c->ps[PANE_JOBS][0];
    const pane_view *v = pane_view_get(PANE_JOBS, 0);
    if (!ps->loading)
        return 0;
    int shown = c->pane == PANE_JOBS && c->view[PANE_JOBS] == 0;
    int r = panes_jobs_step(c, v, ps, budget_ms, shown);
    if (r & PANES_STEP_DONE) {
        /* A change while it read (panes_follow) asks for another read. */
        int stale = ps->stale;
        panes_finish_load(v, ps, PANE_JOBS);
        ps->stale = stale;
    }
    return shown ? r : r & PANES_STEP_DONE;
}

int panes_view_projected(const pane_view *v)
{
    return v->list_cmd && strstr(v->list_cmd, " --fields ") != NULL;
}

/* The row's whole document from the view's show command, kept until the
 * table changes (a projected table's items lack what forms and views read). */
static const json_t *shown_item(session *c, const pane_view *v, pane_state *ps, const char *key)
{
    if (ps->shown && strcmp(ps->shown_key, key) == 0)
        return ps->shown;
    char line[512];
    json_t *res = NULL;
    rd_err err;
    snprintf(line, sizeof line, "%s ", v->show_cmd);
    pane_append_key(v, key, line, sizeof line);
    if (session_exec_line(c, line, &res, &err) != RD_OK)
        return NULL;
    panes_forget_shown(ps);
    ps->shown = res;
    snprintf(ps->shown_key, sizeof ps->shown_key, "%s", key);
    return res;
}

/* Tables whose rows name their owning account: the one a member must be
 * to change the row (core/access says who may; this says where to look). */
static const struct { int pane, view; const char *field; } owner_fields[] = {
    { PANE_PROVIDERS, 0, "owner" },
    { PANE_REGIONS, 0, "owner" },
    { PANE_NODES, 0, "owner" },
    { PANE_JOBS, 1, "owner" },
    { PANE_BILLING, 0, "account" },
};

const char *pane_owner_field(int pane, int view)
{
    for (size_t i = 0; i < N(owner_fields); i++)
        if (owner_fields[i].pane == pane && owner_fields[i].view == view)
            return owner_fields[i].field;
    return NULL;
}

const json_t *pane_row_item(const session *c, const char *key)
{
    const pane_view *v = pane_view_get(c->pane, c->view[c->pane]);
    size_t i;
    const json_t *item;
    json_array_foreach(v && key ? c->ps[c->pane][c->view[c->pane]].items : NULL, i, item) {
        char k[256];
        pane_item_key(v, item, k, sizeof k);
        if (strcmp(k, key) == 0)
            return item;
    }
    return NULL;
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
    if (panes_view_projected(v) && v->show_cmd)
        return shown_item(c, v, ps, r->key);
    json_array_foreach(ps->items, i, item) {
        char key[256];
        pane_item_key(v, item, key, sizeof key);
        if (strcmp(key, r->key) == 0)
            return item;
    }
    return NULL;
}

/* Whether job still needs asking: never asked (pass 0), or asked before
 * the last load (pass 1). */
static int why_wanted(const json_t *job, int pass)
{
    const char *why = json_string_value(json_object_get(job, "why"));
    if (!why)
        return 0;
    return pass == 0 ? strcmp(why, WHY_PENDING) == 0 : json_is_true(json_object_get(job, "why_again"));
}

int panes_jobs_explain_more(session *c, long long budget_ms)
{
    pane_state *ps = &c->ps[PANE_JOBS][0];
    const pane_view *v = pane_view_get(PANE_JOBS, 0);
    if (!ps->loaded || ps->stale || ps->loading)
        return 0;
    const pane_state *nodes = &c->ps[PANE_NODES][0];
    if (nodes->loaded && nodes->g.nrows > WHY_MAX_NODES)
        ps->why_slow = 1;
    long long deadline = rdtime_mono_ms() + budget_ms;
    size_t i;
    json_t *job, *changed = json_object();
    for (int pass = 0; pass < 2; pass++) {
        json_array_foreach(ps->items, i, job) {
            if (!why_wanted(job, pass))
                continue;
            if (ps->why_slow) {
                /* Too slow to ask while the operator may type: Enter asks. */
                if (pass == 0) {
                    json_object_set_new(job, "why", json_string(WHY_ENTER));
                    json_object_set(changed, json_string_value(json_object_get(job, "id")), job);
                }
                json_object_del(job, "why_again");
                continue;
            }
            if (rdtime_mono_ms() > deadline)
                goto done;
            long long t0 = rdtime_mono_ms();
            panes_explain_job(c, job);
            json_object_del(job, "why_again");
            ps->why_slow = rdtime_mono_ms() - t0 > WHY_SLOW_MS;
            json_object_set(changed, json_string_value(json_object_get(job, "id")), job);
        }
    }
done:;
    int any = json_object_size(changed) > 0;
    if (any) {
        panes_jobs_update_rows(v, ps, changed);
        grid_apply(&ps->g);
    }
    json_decref(changed);
    return any;
}

int panes_patch_nodes(session *c, const live_state *l)
{
    pane_state *ps = &c->ps[PANE_NODES][0];
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
    const pane_view *v = pane_view_get(PANE_NODES, 0);
    grid_clear_rows(&ps->g);
    panes_fill_rows(v, ps, ps->items);
    panes_node_summary(ps);
    grid_apply(&ps->g);
    return 1;
}

/* The edge device models, from `device models` (no store involved). */
/* Names from a list command's items (catalogs the panes do not show). */
static void listed_names(session *c, const char *line, const char *field,
                         void (*add)(const char *name, void *data), void *data)
{
    json_t *res = NULL;
    rd_err err;
    size_t i;
    const json_t *m;
    if (session_exec_line(c, line, &res, &err) != RD_OK)
        return;
    json_array_foreach(json_object_get(res, "items"), i, m)
        if (json_is_string(json_object_get(m, field)))
            add(json_string_value(json_object_get(m, field)), data);
    json_decref(res);
}

void panes_names(names_kind kind, void (*add)(const char *name, void *data), void *data, void *ctx)
{
    session *c = ctx;
    static const struct { names_kind k; int pane, view; } where[] = {
        { NAMES_NODE, PANE_NODES, 0 }, { NAMES_REGION, PANE_REGIONS, 0 },
        { NAMES_DEVICE, PANE_DEVICES, 0 }, { NAMES_JOB, PANE_JOBS, 0 },
        { NAMES_ACCOUNT, PANE_BILLING, 0 }, { NAMES_DATASTORE, PANE_STORES, 0 },
        { NAMES_RESERVATION, PANE_STORES, 1 }, { NAMES_CONFIG, PANE_DEVICES, 1 },
        { NAMES_PROJECT, PANE_JOBS, 1 },
    };
    /* an account's data objects by bare name: what --key K and a job spec take */
    static const char *const data_lists[] = { "key list", "dataset list", "checkpoint list", "model list" };
    if (kind >= NAMES_DATAKEY && kind <= NAMES_DATAMODEL) {
        listed_names(c, data_lists[kind - NAMES_DATAKEY], "name", add, data);
        return;
    }
    if (kind == NAMES_MODEL || kind == NAMES_GPU_TYPE || kind == NAMES_ENVIRONMENT) {
        listed_names(c, kind == NAMES_MODEL ? "device models" : kind == NAMES_GPU_TYPE ? "gpu list" :
                     "environment list", kind == NAMES_GPU_TYPE ? "id" : "name", add, data);
        return;
    }
    for (size_t i = 0; i < sizeof where / sizeof where[0]; i++) {
        if (where[i].k != kind)
            continue;
        pane_state *ps = &c->ps[where[i].pane][where[i].view];
        const pane_view *v = pane_view_get(where[i].pane, where[i].view);
        if (!ps->loaded)
            pane_load(c, where[i].pane, where[i].view);
        /* A configuration is named within its region: offer the bare name. */
        if (v->key_prefix && v->key_sep == ' ') {
            size_t k;
            const json_t *item;
            json_array_foreach(ps->items, k, item)
                if (json_is_string(json_object_get(item, v->key_field)))
                    add(json_string_value(json_object_get(item, v->key_field)), data);
            continue;
        }
        for (size_t r = 0; r < ps->g.nrows; r++)
            add(ps->g.rows[r].key, data);
    }
}
