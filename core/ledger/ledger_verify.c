/* ledger_verify.c - `ledger verify`: every invariant of the ledger checked
 * against the store in one pass at one revision (see ledger.h for the
 * documents).
 *
 * Each account's sums must equal what its transfers add up to, the sums of
 * all accounts must balance to zero, every transfer must be well formed,
 * and each tenant account's entry index must hold exactly one copy, equal
 * to it, of every transfer that touches the account (counted and compared
 * by content hash, so the check needs no second pass).
 */
#include "ledger.h"
#include "ledger_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "grow.h"

/* Totals of many int64 sums; __extension__ keeps -Wpedantic quiet. */
__extension__ typedef __int128 ledger_wide;

#define VERIFY_LIST_MAX 100

typedef struct {
    char *id;
    int has_doc;
    int64_t doc[SUM_COUNT];       /* as the account document says */
    int64_t want[SUM_COUNT];      /* as its transfers add up */
    uint64_t index_want, index_have;            /* index copies expected / found */
    uint64_t index_hash_want, index_hash_have;  /* sums of their content hashes */
} verify_account;

typedef struct {
    verify_account *acct;
    size_t n, cap;
    json_t *by_id;               /* account id -> position in acct */
    json_t *violations;
    size_t violation_count, transfers;
    int oom;
} verify_state;

static void violation(verify_state *v, const char *object, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void violation(verify_state *v, const char *object, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (v->violation_count++ < VERIFY_LIST_MAX)
        json_array_append_new(v->violations, json_pack("{s:s, s:s}", "object", object, "problem", msg));
}

static verify_account *verify_acct(verify_state *v, const char *id)
{
    json_t *pos = json_object_get(v->by_id, id);
    if (pos)
        return &v->acct[json_integer_value(pos)];
    if (grow_array(&v->acct, &v->cap, v->n + 1, sizeof *v->acct) != 0)
        return NULL;
    verify_account *a = &v->acct[v->n];
    memset(a, 0, sizeof *a);
    if (!(a->id = strdup(id)))
        return NULL;
    json_object_set_new(v->by_id, id, json_integer((json_int_t)v->n));
    v->n++;
    return a;
}

/* FNV-1a over the canonical form: the index copy must equal its transfer. */
static uint64_t doc_hash(const json_t *doc)
{
    char *s = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
    uint64_t h = 1469598103934665603ULL;
    for (const char *p = s ? s : ""; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    free(s);
    return h;
}

static int verify_account_doc(const char *key, json_t *doc, void *data, rd_err *err)
{
    verify_state *v = data;
    const char *id = key + strlen(LEDGER_ACCOUNTS_PREFIX);
    char object[RD_KEY_MAX];
    (void)err;
    tx_key(object, "account %s", id);
    if (ledger_account_check("account", id, NULL) != RD_OK || strcmp(doc_str(doc, "name"), id) != 0) {
        violation(v, object, "not a ledger account id, or its name field differs from its key");
        return 0;
    }
    verify_account *a = verify_acct(v, id);
    if (!a)
        return v->oom = 1, LEDGER_SCAN_STOP;
    a->has_doc = 1;
    for (int i = 0; i < SUM_COUNT; i++) {
        json_t *f = json_object_get(doc, ledger_sum_fields[i]);
        a->doc[i] = json_integer_value(f);
        if (!json_is_integer(f) || a->doc[i] < 0)
            violation(v, object, "%s must be an integer not below zero", ledger_sum_fields[i]);
    }
    return 0;
}

/* Checks one transfer's own fields; returns 1 when its sums can be used. */
static int verify_transfer_fields(verify_state *v, const char *id, const json_t *t, const char *object)
{
    const char *debit = doc_str(t, "debit"), *credit = doc_str(t, "credit"), *state = doc_str(t, "state");
    json_t *amount = json_object_get(t, "amount_ucr"), *pending = json_object_get(t, "pending");
    rd_time at;
    if (strcmp(doc_str(t, "id"), id) != 0 || ledger_id_check(id, NULL) != RD_OK)
        violation(v, object, "its id field differs from its key or breaks the id rule");
    else if (!json_is_integer(amount) || json_integer_value(amount) <= 0 || json_integer_value(amount) > LEDGER_AMOUNT_MAX)
        violation(v, object, "amount_ucr must be an integer above zero and at most %lld", (long long)LEDGER_AMOUNT_MAX);
    else if (!ledger_kind_valid(doc_str(t, "kind")))
        violation(v, object, "kind '%s' is not one of %s", doc_str(t, "kind"), ledger_kinds);
    else if (ledger_account_check("debit", debit, NULL) != RD_OK || ledger_account_check("credit", credit, NULL) != RD_OK ||
             strcmp(debit, credit) == 0)
        violation(v, object, "debit '%s' and credit '%s' must be two different ledger accounts", debit, credit);
    else if (rdtime_parse("at", doc_str(t, "at"), &at, NULL) != RD_OK)
        violation(v, object, "at '%s' is not an RFC 3339 time", doc_str(t, "at"));
    else if (!json_is_boolean(pending))
        violation(v, object, "pending must be true or false");
    else if (!json_is_true(pending) && strcmp(state, "posted") != 0)
        violation(v, object, "a transfer posted directly must be in state posted, not '%s'", state);
    else if (json_is_true(pending) && strcmp(state, "pending") && strcmp(state, "posted") && strcmp(state, "voided"))
        violation(v, object, "a pending transfer must be pending, posted or voided, not '%s'", state);
    else if (json_is_true(pending) && (strcmp(state, "pending") != 0) != (json_object_get(t, "resolved_at") != NULL))
        violation(v, object, "resolved_at must be set exactly when a pending transfer is posted or voided");
    else
        return 1;
    return 0;
}

static int verify_transfer(const char *key, json_t *t, void *data, rd_err *err)
{
    verify_state *v = data;
    const char *id = key + strlen(LEDGER_TRANSFERS_PREFIX);
    char object[RD_KEY_MAX];
    (void)err;
    v->transfers++;
    tx_key(object, "transfer %s", id);
    if (!verify_transfer_fields(v, id, t, object))
        return 0;
    int64_t amount = doc_int(t, "amount_ucr");
    const char *state = doc_str(t, "state");
    int held = strcmp(state, "pending") == 0, posted = strcmp(state, "posted") == 0;
    const char *side[2] = { doc_str(t, "debit"), doc_str(t, "credit") };
    uint64_t h = 0;
    for (int s = 0; s < 2; s++) {
        json_t *pos = json_object_get(v->by_id, side[s]);
        verify_account *a = pos ? &v->acct[json_integer_value(pos)] : verify_acct(v, side[s]);
        if (!a)
            return v->oom = 1, LEDGER_SCAN_STOP;
        if (!a->has_doc)
            violation(v, object, "its %s account %s does not exist", s ? "credit" : "debit", side[s]);
        int64_t *sum = &a->want[s + (held ? SUM_DEBITS_PENDING : SUM_DEBITS_POSTED)];
        if ((held || posted) && __builtin_add_overflow(*sum, amount, sum))
            violation(v, object, "the sums of account %s overflow", side[s]);
        if (ledger_account_owner(side[s])) {
            if (!h)
                h = doc_hash(t);
            a->index_want++;
            a->index_hash_want += h;
        }
    }
    return 0;
}

/* Index keys: <prefix><account>/<at>/<id>; the copy must name the same. */
static int verify_index(const char *key, json_t *t, void *data, rd_err *err)
{
    verify_state *v = data;
    const char *p = key + strlen(LEDGER_INDEX_PREFIX);
    const char *slash = strchr(p, '/');
    const char *at_end = slash ? strchr(slash + 1, '/') : NULL;
    char acct[LEDGER_ACCOUNT_MAX + 1], object[RD_KEY_MAX];
    (void)err;
    tx_key(object, "index %s", p);
    if (!slash || !at_end || (size_t)(slash - p) > LEDGER_ACCOUNT_MAX) {
        violation(v, object, "not an index key (account/at/id)");
        return 0;
    }
    snprintf(acct, sizeof acct, "%.*s", (int)(slash - p), p);
    size_t at_len = (size_t)(at_end - slash - 1);
    if (!ledger_account_owner(acct) || strcmp(doc_str(t, "id"), at_end + 1) != 0 ||
        strlen(doc_str(t, "at")) != at_len || strncmp(doc_str(t, "at"), slash + 1, at_len) != 0 ||
        (strcmp(doc_str(t, "debit"), acct) != 0 && strcmp(doc_str(t, "credit"), acct) != 0)) {
        violation(v, object, "the copy does not match its key (account, at, id)");
        return 0;
    }
    verify_account *a = verify_acct(v, acct);
    if (!a)
        return v->oom = 1, LEDGER_SCAN_STOP;
    a->index_have++;
    a->index_hash_have += doc_hash(t);
    return 0;
}

static void verify_totals(verify_state *v, ledger_wide *total_balance, ledger_wide *total_pending)
{
    *total_balance = *total_pending = 0;
    for (size_t i = 0; i < v->n; i++) {
        verify_account *a = &v->acct[i];
        char object[RD_KEY_MAX];
        tx_key(object, "account %s", a->id);
        if (a->has_doc) {
            *total_balance += (ledger_wide)a->doc[SUM_CREDITS_POSTED] - a->doc[SUM_DEBITS_POSTED];
            *total_pending += (ledger_wide)a->doc[SUM_CREDITS_PENDING] - a->doc[SUM_DEBITS_PENDING];
            for (int s = 0; s < SUM_COUNT; s++)
                if (a->doc[s] != a->want[s]) {
                    violation(v, object, "%s is %lld but its transfers sum to %lld", ledger_sum_fields[s],
                              (long long)a->doc[s], (long long)a->want[s]);
                    break;
                }
        }
        if (a->index_have != a->index_want)
            violation(v, object, "the entry index holds %llu copies but its transfers need %llu",
                      (unsigned long long)a->index_have, (unsigned long long)a->index_want);
        else if (a->index_hash_have != a->index_hash_want)
            violation(v, object, "an entry index copy differs from its transfer");
    }
    if (*total_balance != 0)
        violation(v, "ledger", "the balances of all accounts sum to %lld, not zero", (long long)*total_balance);
    if (*total_pending != 0)
        violation(v, "ledger", "the pending amounts of all accounts sum to %lld, not zero", (long long)*total_pending);
}

rd_code ledger_verify(rd_tx *tx, json_t **report, rd_err *err)
{
    verify_state v = { 0 };
    int64_t rev = 0;
    ledger_wide total_balance = 0, total_pending = 0;
    store_t *st = tx_store(tx);
    *report = NULL;
    v.by_id = json_object();
    v.violations = json_array();
    /* One revision for all three scans: the view is a consistent snapshot. */
    rd_code rc = v.by_id && v.violations ? RD_OK : rd_fail(err, RD_ENOMEM, "out of memory");
    if (rc == RD_OK)
        rc = ledger_scan(st, LEDGER_ACCOUNTS_PREFIX, NULL, &rev, verify_account_doc, &v, err);
    if (rc == RD_OK && !v.oom)
        rc = ledger_scan(st, LEDGER_TRANSFERS_PREFIX, NULL, &rev, verify_transfer, &v, err);
    if (rc == RD_OK && !v.oom)
        rc = ledger_scan(st, LEDGER_INDEX_PREFIX, NULL, &rev, verify_index, &v, err);
    if (rc == RD_OK && v.oom)
        rc = rd_fail(err, RD_ENOMEM, "out of memory");
    if (rc == RD_OK) {
        verify_totals(&v, &total_balance, &total_pending);
        *report = json_pack("{s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:O}", "ok", v.violation_count == 0, "revision",
                            (json_int_t)rev, "transfers", (json_int_t)v.transfers, "accounts", (json_int_t)v.n,
                            "total_balance_ucr", (json_int_t)total_balance, "total_pending_ucr",
                            (json_int_t)total_pending, "violation_count", (json_int_t)v.violation_count,
                            "violations", v.violations);
        if (!*report)
            rc = rd_fail(err, RD_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < v.n; i++)
        free(v.acct[i].id);
    free(v.acct);
    json_decref(v.by_id);
    json_decref(v.violations);
    return rc;
}
