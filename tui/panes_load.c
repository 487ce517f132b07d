/* panes_load.c - tables that take several command lines (quotas per GCP
 * region, wallets per account, jobs with `job why`), the billing and node
 * summaries, header alerts and names for completion. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "panes_int.h"
#include "table.h"

/* `job why` per waiting job costs a pass over the nodes (half a second on
 * 10,000 nodes), so the table asks it in idle time, a little per loop, and
 * not at all where one answer takes longer than a keystroke may wait;
 * Enter explains any job. */
#define WHY_PENDING "(asking job why...)"
#define WHY_ENTER "(Enter explains)"
/* A `job why` slower than this (a pass over a very large fleet) is not
 * asked in idle time: a key pressed meanwhile would wait for it. */
#define WHY_SLOW_MS 150


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
        json_t *bal = panes_run(c, ps, line);
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

static int by_count_desc(const void *a, const void *b)
{
    long x = strtol(*(const char *const *)a, NULL, 10), y = strtol(*(const char *const *)b, NULL, 10);
    return (y > x) - (y < x);
}

/* The core's own words for why a job waits, joined; else the counts.  In
 * a narrow column the first words matter most: reasons that are not node
 * counts (no credit, no quota) come first, then the counts, largest first. */
void panes_why_text(const json_t *why, char *out, size_t len)
{
    size_t used = 0, i, n = 0, ncount = 0;
    const json_t *r;
    const char *plain[32], *counts[32];
    out[0] = '\0';
    json_array_foreach(json_object_get(why, "reasons"), i, r) {
        const char *t = json_string_value(r);
        if (!t)
            continue;
        if (t[0] >= '0' && t[0] <= '9') {
            if (ncount < 32)
                counts[ncount++] = t;
        } else if (n < 32) {
            plain[n++] = t;
        }
    }
    qsort(counts, ncount, sizeof counts[0], by_count_desc);
    for (i = 0; i < n + ncount && used < len; i++)
        used += (size_t)snprintf(out + used, len - used, "%s%s", used ? "; " : "", i < n ? plain[i] : counts[i - n]);
    if (used > 0)
        return;
    json_array_foreach(json_object_get(why, "constraints"), i, r) {
        if (used < len)
            used += (size_t)snprintf(out + used, len - used, "%s%s rules out %lld", i ? ", " : "",
                                     json_string_value(json_object_get(r, "constraint")),
                                     (long long)json_integer_value(json_object_get(r, "ruled_out")));
    }
}

/* Asks `job why` for the job and stores the answer as its "why". */
static void explain_job(session *c, json_t *job)
{
    char line[160], text[400];
    json_t *why = NULL;
    rd_err err;
    snprintf(line, sizeof line, "job why %s", json_string_value(json_object_get(job, "id")));
    if (session_exec_line(c, line, &why, &err) == RD_OK)
        panes_why_text(why, text, sizeof text);
    else   /* it may have started or stopped since the list: say nothing */
        text[0] = '\0';
    json_object_set_new(job, "why", json_string(text));
    json_decref(why);
}

void panes_load_jobs(session *c, const pane_view *v, pane_state *ps)
{
    json_t *res = panes_run(c, ps, v->list_cmd);
    if (!res)
        return;
    json_t *items = json_incref(json_object_get(res, "items"));
    json_decref(res);
    /* What the previous load learnt, by job id: reused for the jobs this
     * load has no time to ask about. */
    json_t *known = json_object();
    size_t i;
    json_t *job;
    json_array_foreach(ps->items, i, job) {
        const char *id = json_string_value(json_object_get(job, "id"));
        if (id && json_is_string(json_object_get(job, "why")))
            json_object_set(known, id, json_object_get(job, "why"));
    }
    size_t count[8] = { 0 };
    static const char *const states[8] = { "waiting_gpus", "running", "stopping", "finished",
                                           "stopped", "failed", "canceled", NULL };
    json_array_foreach(items, i, job) {
        const char *state = json_string_value(json_object_get(job, "state"));
        for (int s = 0; states[s]; s++)
            if (state && strcmp(state, states[s]) == 0)
                count[s]++;
    }
    /* Nothing is asked here: `job why` is a pass over every node, so the
     * reasons come in idle time (panes_jobs_explain_more); until then a
     * job keeps what the previous load learnt, marked to be asked again. */
    json_array_foreach(items, i, job) {
        const char *state = json_string_value(json_object_get(job, "state"));
        const char *id = json_string_value(json_object_get(job, "id"));
        if (!state || strcmp(state, "waiting_gpus") != 0)
            continue;
        const json_t *old = id ? json_object_get(known, id) : NULL;
        if (old && strcmp(json_string_value(old), WHY_PENDING) != 0 && strcmp(json_string_value(old), WHY_ENTER) != 0) {
            json_object_set(job, "why", (json_t *)old);
            json_object_set_new(job, "why_again", json_true());
        } else {
            json_object_set_new(job, "why", json_string(ps->why_slow ? WHY_ENTER : WHY_PENDING));
        }
    }
    json_decref(known);
    panes_fill_rows(v, ps, items);
    panes_adopt_items(ps, items);
    snprintf(ps->summary, sizeof ps->summary,
             "%zu waiting, %zu running, %zu stopping, %zu finished, %zu stopped, %zu failed, %zu canceled",
             count[0], count[1], count[2], count[3], count[4], count[5], count[6]);
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
    if (!ps->loaded || ps->stale)
        return 0;
    long long deadline = session_now_ms() + budget_ms;
    size_t i;
    json_t *job;
    int changed = 0;
    for (int pass = 0; pass < 2; pass++) {
        json_array_foreach(ps->items, i, job) {
            if (!why_wanted(job, pass))
                continue;
            if (ps->why_slow) {
                /* Too slow to ask while the operator may type: Enter asks. */
                if (pass == 0) {
                    json_object_set_new(job, "why", json_string(WHY_ENTER));
                    changed = 1;
                }
                json_object_del(job, "why_again");
                continue;
            }
            if (session_now_ms() > deadline)
                goto done;
            long long t0 = session_now_ms();
            explain_job(c, job);
            json_object_del(job, "why_again");
            ps->why_slow = session_now_ms() - t0 > WHY_SLOW_MS;
            changed = 1;
        }
    }
done:
    if (changed) {
        grid_clear_rows(&ps->g);
        panes_fill_rows(pane_view_get(PANE_JOBS, 0), ps, ps->items);
        grid_apply(&ps->g);
    }
    return changed;
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
        json_t *q = panes_run(c, ps, line);
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
    json_array_foreach(c->ps[PANE_JOBS][0].items, i, e) {
        const char *s = json_string_value(json_object_get(e, "state"));
        failed += s && strcmp(s, "failed") == 0;
    }
    size_t used = 0;
    if (rejected)
        used += (size_t)snprintf(out + used, len - used, "%zu rejected", rejected);
    if (offline && used < len)
        used += (size_t)snprintf(out + used, len - used, "%s%zu offline", used ? ", " : "", offline);
    if (failed && used < len)
        snprintf(out + used, len - used, "%s%zu failed jobs", used ? ", " : "", failed);
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
    if (kind == NAMES_MODEL || kind == NAMES_GPU_TYPE) {
        listed_names(c, kind == NAMES_MODEL ? "device models" : "gpu list",
                     kind == NAMES_MODEL ? "name" : "id", add, data);
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

int panes_patch_nodes(session *c, const live_state *l)
{
    pane_state *ps = &c->ps[PANE_NODES][0];
    size_t plen = strlen(LIVE_NODES);
    if (!ps->loaded || ps->stale || l->overflow || !json_is_array(ps->items))
        return 0;
    if (l->nchanged == 0)
        return 1;
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
        const char *name = l->changed[k] + plen;
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
