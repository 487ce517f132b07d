/* pane_billing.c - the Billing pane (key 7): every account's wallet
 * (`ledger balance` per account), the ledger's entries and the device fees
 * ('v'), with today's accruals in the summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "panes_int.h"
#include "table.h"

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

static void entries_load(session *c, const pane_view *v, pane_state *ps)
{
    panes_load_list(c, v, ps);
    if (ledger_missing(ps)) {
        note_ledger_missing(ps);
        return;
    }
    billing_today(c, ps, "");
}

static void wallets_load(session *c, const pane_view *v, pane_state *ps)
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

static const pane_view billing_views[] = {
    { .title = "Wallets", PANE_COLS(wallet_cols), .key_field = "account", .show_cmd = "ledger balance",
      .empty_note = "No accounts.", .load = wallets_load, .add_form = FORM_ACCOUNT_CREATE,
      .edit_form = FORM_ACCOUNT_SET, .kinds = LK_LEDGER | LK_ACCOUNTS, .owner_field = "account",
      .names = NAMES_ACCOUNT },
    { .title = "Entries", .list_cmd = "ledger entries", PANE_COLS(entry_cols), .key_field = "id",
      .empty_note = "No ledger entries yet.", .sort_by = 1, .sort_desc = 1, .load = entries_load,
      .kinds = LK_LEDGER },
    { .title = "Device fees", .list_cmd = "ledger entries --kind device_fee", PANE_COLS(entry_cols),
      .key_field = "id", .empty_note = "No device fees posted yet ('bill run' posts them).", .sort_by = 1,
      .sort_desc = 1, .load = entries_load, .kinds = LK_LEDGER },
};

const pane_def pane_billing = {
    .name = "Billing", .mid = "Billing", .tiny = "Bill", .key = '7', PANE_VIEWS(billing_views),
};
