/* ledger_cmd.c - the `ledger` commands: balance, entries, statement,
 * verify.  (`account deposit` is account.c's, `bill run` billing.c's.)
 * Here in fleet/, above the ledger (ledger.c, ledger_verify.c), since a
 * command names a tenant's account and checks it exists (account_get).
 *
 * Who sees what: an administering account sees and moves everything; any
 * other account sees only its own wallet and earnings.  Read commands read
 * the store at one revision (ledger_scan) so that a million transfers are
 * paged through rather than loaded at once.
 */
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "account.h"
#include "cmd.h"
#include "ledger.h"
#include "num.h"

#define ADMIN_HINT "only an administering account (such as 'default') may"

/* The ledger accounts a command argument names.  "alice" is the tenant's
 * wallet (with its earnings when both is set); "platform", "external",
 * "wallet:alice" and "earnings:alice" name one ledger account. */
typedef struct {
    char ids[2][LEDGER_ACCOUNT_MAX];
    int n;
    char account[LEDGER_ACCOUNT_MAX];   /* as the user named it */
    int tenant;                         /* 1: wallet/earnings (indexed) */
} acct_sel;

static rd_code select_account(cmd_ctx *ctx, const char *what, const char *arg, int both, acct_sel *sel, rd_err *err)
{
    json_t *doc = NULL;
    const char *owner;
    rd_code rc;
    memset(sel, 0, sizeof *sel);
    snprintf(sel->account, sizeof sel->account, "%s", arg);
    if (strchr(arg, ':') || strcmp(arg, "external") == 0) {
        if ((rc = ledger_account_check(what, arg, err)) != RD_OK)
            return rc;
        snprintf(sel->ids[sel->n++], LEDGER_ACCOUNT_MAX, "%s", arg);
        owner = ledger_account_owner(arg);
    } else if (strcmp(arg, "platform") == 0) {
        /* the installation's revenue, not the wallet of the account of that name */
        snprintf(sel->ids[sel->n++], LEDGER_ACCOUNT_MAX, "platform");
        owner = NULL;
    } else {
        owner = arg;
        ledger_wallet_id(sel->ids[sel->n++], arg);
        if (both)
            ledger_earnings_id(sel->ids[sel->n++], arg);
    }
    sel->tenant = owner != NULL;
    if (owner && (rc = account_get(ctx, what, owner, &doc, err)) != RD_OK)
        return rc;
    json_decref(doc);
    if ((!owner || strcmp(owner, ctx->actor) != 0) && !access_actor_is_admin(ctx))
        return rd_fail(err, RD_EPERM, "%s %s: account '%s' may see only its own ledger accounts; %s see others'",
                       what, arg, ctx->actor, ADMIN_HINT);
    return RD_OK;
}

/* ---- ledger balance ---------------------------------------------------- */

static rd_code balance_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *arg = cmd_arg(a, 0) ? cmd_arg(a, 0) : ctx->actor;
    acct_sel sel;
    int64_t bal = 0, pending = 0, earnings = 0;
    rd_code rc = select_account(ctx, "ledger balance", arg, 1, &sel, err);
    if (rc == RD_OK)
        rc = ledger_balance(ctx->tx, sel.ids[0], &bal, &pending, err);
    if (rc == RD_OK && sel.n == 2)
        rc = ledger_balance(ctx->tx, sel.ids[1], &earnings, NULL, err);
    if (rc == RD_OK)
        *result = json_pack("{s:s, s:s, s:I, s:I, s:I}", "account", arg, "ledger_account", sel.ids[0], "balance_ucr",
                            (json_int_t)bal, "pending_ucr", (json_int_t)pending, "earnings_ucr", (json_int_t)earnings);
    return rc;
}

/* ---- ledger entries ---------------------------------------------------- */

typedef struct {
    const acct_sel *sel;       /* NULL: every transfer */
    const char *kind;
    char since[RDTIME_BUFLEN], until[RDTIME_BUFLEN];   /* "" when not given */
    json_t *items;
    json_t *seen;              /* ids already listed (a payout touches wallet and earnings) */
} entries_state;

static int touches(const json_t *t, const acct_sel *sel)
{
    for (int i = 0; i < sel->n; i++)
        if (strcmp(json_string_value(json_object_get(t, "debit")), sel->ids[i]) == 0 ||
            strcmp(json_string_value(json_object_get(t, "credit")), sel->ids[i]) == 0)
            return 1;
    return 0;
}

static int entries_add(const char *key, json_t *t, void *data, rd_err *err)
{
    entries_state *e = data;
    const char *at = json_string_value(json_object_get(t, "at"));
    const char *id = json_string_value(json_object_get(t, "id"));
    (void)key;
    (void)err;
    if (!at || !id)
        return 0;
    if (*e->until && strcmp(at, e->until) > 0)
        return e->sel && e->sel->tenant ? LEDGER_SCAN_STOP : 0;   /* the index is in time order */
    if ((*e->since && strcmp(at, e->since) < 0) || (e->kind && strcmp(json_string_value(json_object_get(t, "kind")), e->kind) != 0))
        return 0;
    if ((e->sel && !touches(t, e->sel)) || json_object_get(e->seen, id))
        return 0;
    json_object_set_new(e->seen, id, json_true());
    json_array_append_new(e->items, json_pack("{s:s, s:s, s:s, s:O, s:O, s:O, s:O, s:O}", "id", id, "at", at, "kind",
                                              json_string_value(json_object_get(t, "kind")), "debit",
                                              json_object_get(t, "debit"), "credit", json_object_get(t, "credit"),
                                              "amount_ucr", json_object_get(t, "amount_ucr"), "ref",
                                              json_object_get(t, "ref"), "state", json_object_get(t, "state")));
    return 0;
}

static int by_time(const void *pa, const void *pb)
{
    const json_t *a = *(json_t *const *)pa, *b = *(json_t *const *)pb;
    int c = strcmp(json_string_value(json_object_get(a, "at")), json_string_value(json_object_get(b, "at")));
    return c ? c : strcmp(json_string_value(json_object_get(a, "id")), json_string_value(json_object_get(b, "id")));
}

/* Sorts an array of objects in place with cmp. */
static void sort_items(json_t *items, int (*cmp)(const void *, const void *))
{
    size_t n = json_array_size(items);
    json_t **v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        v[i] = json_incref(json_array_get(items, i));
    qsort(v, n, sizeof *v, cmp);
    json_array_clear(items);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(items, v[i]);
    free(v);
}

/* Collects the entries of sel (NULL: all) into e->items, in time order. */
static rd_code entries_collect(cmd_ctx *ctx, entries_state *e, rd_err *err)
{
    int64_t rev = 0;
    rd_code rc = RD_OK;
    if (e->sel && e->sel->tenant) {
        for (int i = 0; i < e->sel->n && rc == RD_OK; i++) {
            char prefix[RD_KEY_MAX], after[RD_KEY_MAX];
            tx_key(prefix, LEDGER_INDEX_PREFIX "%s/", e->sel->ids[i]);
            tx_key(after, "%s%s", prefix, e->since);   /* keys of earlier entries sort before */
            rc = ledger_scan(ctx->store, prefix, *e->since ? after : NULL, &rev, entries_add, e, err);
        }
    } else {
        rc = ledger_scan(ctx->store, LEDGER_TRANSFERS_PREFIX, NULL, &rev, entries_add, e, err);
    }
    if (rc == RD_OK)
        sort_items(e->items, by_time);
    return rc;
}

static rd_code time_opt(const cmd_args *a, const char *name, char out[RDTIME_BUFLEN], rd_err *err)
{
    char field[32];
    rd_time t;
    out[0] = '\0';
    if (!cmd_opt(a, name))
        return RD_OK;
    snprintf(field, sizeof field, "--%s", name);
    rd_code rc = rdtime_parse(field, cmd_opt(a, name), &t, err);
    if (rc == RD_OK)
        rdtime_format(t, out);
    return rc;
}

static rd_code entries_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    acct_sel sel;
    entries_state e = { NULL, cmd_opt(a, "kind"), "", "", json_array(), json_object() };
    rd_code rc = e.items && e.seen ? RD_OK : rd_fail(err, RD_ENOMEM, "out of memory");
    const char *arg = cmd_opt(a, "account");
    if (rc == RD_OK && (arg || !access_actor_is_admin(ctx))) {
        rc = select_account(ctx, "ledger entries --account", arg ? arg : ctx->actor, 1, &sel, err);
        e.sel = &sel;
    }
    if (rc == RD_OK)
        rc = time_opt(a, "since", e.since, err);
    if (rc == RD_OK)
        rc = time_opt(a, "until", e.until, err);
    if (rc == RD_OK && *e.since && *e.until && strcmp(e.since, e.until) > 0)
        rc = rd_fail(err, RD_EINVAL, "--since %s is after --until %s", e.since, e.until);
    if (rc == RD_OK)
        rc = entries_collect(ctx, &e, err);
    if (rc == RD_OK) {
        *result = json_pack("{s:O}", "items", e.items);
        if (!*result)
            rc = rd_fail(err, RD_ENOMEM, "out of memory");
    }
    json_decref(e.items);
    json_decref(e.seen);
    return rc;
}

/* ---- ledger statement -------------------------------------------------- */

typedef struct {
    const char *id;             /* the one ledger account */
    int indexed;                /* scanning its index: keys in time order */
    char from[RDTIME_BUFLEN], to[RDTIME_BUFLEN];
    int64_t opening;
    json_t *items, *by_kind;
} statement_state;

/* The instant the entry moved money: posting time for a posted hold. */
static const char *effective_at(const json_t *t)
{
    if (json_is_true(json_object_get(t, "pending")))
        return json_string_value(json_object_get(t, "resolved_at"));
    return json_string_value(json_object_get(t, "at"));
}

static void kind_total_add(json_t *by_kind, const char *kind, int incoming, int64_t amount)
{
    json_t *k = json_object_get(by_kind, kind);
    if (!k) {
        k = json_pack("{s:s, s:I, s:I, s:I, s:I}", "kind", kind, "count", (json_int_t)0, "in_ucr", (json_int_t)0,
                      "out_ucr", (json_int_t)0, "net_ucr", (json_int_t)0);
        json_object_set_new(by_kind, kind, k);
        k = json_object_get(by_kind, kind);   /* NULL when that failed (and freed it) */
    }
    const char *f = incoming ? "in_ucr" : "out_ucr";
    json_object_set_new(k, "count", json_integer(json_integer_value(json_object_get(k, "count")) + 1));
    json_object_set_new(k, f, json_integer(json_integer_value(json_object_get(k, f)) + amount));
    json_object_set_new(k, "net_ucr", json_integer(json_integer_value(json_object_get(k, "net_ucr")) +
                                                   (incoming ? amount : -amount)));
}

/* Streams the account's history: before the month into the opening
 * balance, during it into items and per-kind totals. */
static int statement_add(const char *key, json_t *t, void *data, rd_err *err)
{
    statement_state *s = data;
    const char *at = json_string_value(json_object_get(t, "at"));
    const char *when = effective_at(t);
    const char *debit = json_string_value(json_object_get(t, "debit"));
    const char *credit = json_string_value(json_object_get(t, "credit"));
    const char *kind = json_string_value(json_object_get(t, "kind"));
    (void)key;
    (void)err;
    if (!at || !debit || !credit || !kind)
        return 0;
    if (s->indexed && strcmp(at, s->to) >= 0)
        return LEDGER_SCAN_STOP;   /* `at` never follows the time money moved */
    int incoming = strcmp(credit, s->id) == 0;
    if ((!incoming && strcmp(debit, s->id) != 0) || !when || strcmp(when, s->to) >= 0 ||
        strcmp(json_string_value(json_object_get(t, "state")), "posted") != 0)
        return 0;
    int64_t amount = json_integer_value(json_object_get(t, "amount_ucr"));
    if (strcmp(when, s->from) < 0) {
        s->opening += incoming ? amount : -amount;
        return 0;
    }
    json_array_append_new(s->items, json_pack("{s:s, s:s, s:O, s:O, s:s, s:I}", "kind", kind, "at", when, "id",
                                              json_object_get(t, "id"), "ref", json_object_get(t, "ref"),
                                              "counterparty", incoming ? debit : credit, "amount_ucr",
                                              (json_int_t)(incoming ? amount : -amount)));
    kind_total_add(s->by_kind, kind, incoming, amount);
    return 0;
}

static int by_kind_time(const void *pa, const void *pb)
{
    const json_t *a = *(json_t *const *)pa, *b = *(json_t *const *)pb;
    int c = strcmp(json_string_value(json_object_get(a, "kind")), json_string_value(json_object_get(b, "kind")));
    return c ? c : by_time(pa, pb);
}

static int by_kind(const void *pa, const void *pb)
{
    const json_t *a = *(json_t *const *)pa, *b = *(json_t *const *)pb;
    return strcmp(json_string_value(json_object_get(a, "kind")), json_string_value(json_object_get(b, "kind")));
}

/* "YYYY-MM" into the first instants of that month and of the next. */
static rd_code month_parse(const char *month, char from[RDTIME_BUFLEN], char to[RDTIME_BUFLEN], rd_err *err)
{
    int y = 0, m = 0, n = 0;
    char text[RDTIME_BUFLEN];
    rd_time t;
    if (strlen(month) != 7 || sscanf(month, "%4d-%2d%n", &y, &m, &n) != 2 || n != 7 || m < 1 || m > 12 || y < 1970)
        return rd_fail(err, RD_EINVAL, "--month must be YYYY-MM (e.g. 2026-11), got '%s'", month);
    snprintf(text, sizeof text, "%04d-%02d-01T00:00:00Z", y, m);
    rd_code rc = rdtime_parse("--month", text, &t, err);
    if (rc == RD_OK)
        snprintf(from, RDTIME_BUFLEN, "%s", text);
    snprintf(to, RDTIME_BUFLEN, "%04d-%02d-01T00:00:00Z", m == 12 ? y + 1 : y, m == 12 ? 1 : m + 1);
    return rc;
}

static rd_code statement_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    acct_sel sel;
    statement_state s = { NULL, 0, "", "", 0, json_array(), json_object() };
    int64_t rev = 0;
    rd_code rc = s.items && s.by_kind ? RD_OK : rd_fail(err, RD_ENOMEM, "out of memory");
    if (rc == RD_OK)
        rc = month_parse(cmd_opt(a, "month"), s.from, s.to, err);
    if (rc == RD_OK)
        rc = select_account(ctx, "ledger statement", cmd_arg(a, 0), 0, &sel, err);
    if (rc == RD_OK) {
        char prefix[RD_KEY_MAX];
        s.id = sel.ids[0];
        s.indexed = sel.tenant;
        rc = ledger_scan(ctx->store, sel.tenant ? tx_key(prefix, LEDGER_INDEX_PREFIX "%s/", s.id) : LEDGER_TRANSFERS_PREFIX,
                         NULL, &rev, statement_add, &s, err);
    }
    if (rc == RD_OK) {
        json_t *totals = json_array(), *k;
        const char *kind;
        int64_t closing = s.opening;
        json_object_foreach(s.by_kind, kind, k) {
            closing += json_integer_value(json_object_get(k, "net_ucr"));
            json_array_append(totals, k);
        }
        sort_items(totals, by_kind);
        sort_items(s.items, by_kind_time);
        *result = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:o, s:O}", "account", cmd_arg(a, 0), "ledger_account",
                            s.id, "month", cmd_opt(a, "month"), "from", s.from, "until", s.to, "opening_balance_ucr",
                            (json_int_t)s.opening, "closing_balance_ucr", (json_int_t)closing, "totals", totals,
                            "items", s.items);
        if (!*result)
            rc = rd_fail(err, RD_ENOMEM, "out of memory");
    }
    json_decref(s.items);
    json_decref(s.by_kind);
    return rc;
}

/* ---- ledger verify, bill run ------------------------------------------- */

static rd_code verify_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *report = NULL;
    (void)a;
    if (!access_actor_is_admin(ctx))
        return rd_fail(err, RD_EPERM, "ledger verify: %s check the whole ledger; --as is '%s'", ADMIN_HINT, ctx->actor);
    rd_code rc = ledger_verify(ctx->tx, &report, err);
    if (rc != RD_OK)
        return rc;
    json_int_t n = json_integer_value(json_object_get(report, "violation_count"));
    if (n > 0) {
        json_t *first = json_array_get(json_object_get(report, "violations"), 0);
        rc = rd_fail(err, RD_ECORRUPT, "ledger verify: %lld violation%s; first: %s: %s", (long long)n, n == 1 ? "" : "s",
                     json_string_value(json_object_get(first, "object")),
                     json_string_value(json_object_get(first, "problem")));
        json_decref(report);
        return rc;
    }
    *result = report;
    return RD_OK;
}

/* A bill run's step: committed with its own audit record. */
/* ---- the table --------------------------------------------------------- */

static const cmd_flag entries_flags[] = {
    { "account", "ACCOUNT", CMD_FLAG_VALUE, "only entries of this account (NAME, wallet:NAME, earnings:NAME, platform)" },
    { "since", "TIME", CMD_FLAG_VALUE, "only entries at or after TIME" },
    { "until", "TIME", CMD_FLAG_VALUE, "only entries at or before TIME" },
    { "kind", ledger_kinds, CMD_FLAG_VALUE, "only entries of this kind" },
    { 0 }
};
static const cmd_flag statement_flags[] = {
    { "month", "YYYY-MM", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "the calendar month (UTC)" },
    { 0 }
};
const cmd_def ledger_cmd_table[] = {
    { .words = "ledger balance", .args = "[ACCOUNT]",
      .help = "an account's wallet balance, pending amount and earnings", .run = balance_cmd },
    { .words = "ledger entries", .args = "", .flags = entries_flags, .help = "the transfers, oldest first, filtered",
      .columns = "at,id,kind,debit,credit,amount_ucr,ref", .run = entries_cmd },
    { .words = "ledger statement", .args = "ACCOUNT", .flags = statement_flags,
      .help = "a month's statement: opening balance, entries by kind, totals, closing balance", .run = statement_cmd },
    { .words = "ledger verify", .args = "", .help = "check every ledger invariant; exit 1 on any violation",
      .run = verify_cmd },
    { 0 }
};
