/* ledger.c - the double-entry ledger: staging transfers, pending holds,
 * balances and reading them back (the invariant checker is
 * ledger_verify.c).  See ledger.h for the documents.
 *
 * Why it cannot post twice: a transfer's id is derived from what it pays
 * for, ledger_stage reads that id through the transaction (a guard), and
 * the commit only holds if the id is still absent.  Two writers of the
 * same id therefore conflict; the loser's retry finds the transfer and
 * turns into a no-op.  Why it cannot lose half a transfer: the transfer,
 * both account sums and the index copies are staged into one transaction.
 */
#include "ledger.h"
#include "ledger_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "grow.h"
#include "keyspace.h"
#include "names.h"
#include "jsonin.h"


const char ledger_kinds[] = "deposit|usage_fee|gpu_rental|federated_fee|device_fee|payout";

static const char *const kind_names[] = { "deposit", "usage_fee", "gpu_rental", "federated_fee",
                                          "device_fee", "payout", NULL };

int ledger_kind_valid(const char *kind)
{
    for (const char *const *k = kind_names; kind && *k; k++)
        if (strcmp(*k, kind) == 0)
            return 1;
    return 0;
}

/* ---- naming ------------------------------------------------------------ */

const char *ledger_account_owner(const char *id)
{
    if (strncmp(id, "wallet:", 7) == 0)
        return id + 7;
    if (strncmp(id, "earnings:", 9) == 0)
        return id + 9;
    return NULL;
}

rd_code ledger_account_check(const char *field, const char *id, rd_err *err)
{
    if (!id || !*id)
        return rd_fail(err, RD_EINVAL, "%s must be a ledger account (platform, external, wallet:NAME, earnings:NAME), got ''", field);
    if (strcmp(id, "platform") == 0 || strcmp(id, "external") == 0)
        return RD_OK;
    const char *owner = ledger_account_owner(id);
    if (!owner || names_check("account name", owner, NULL) != RD_OK)
        return rd_fail(err, RD_EINVAL, "%s must be a ledger account (platform, external, wallet:NAME, earnings:NAME), got '%s'",
                       field, id);
    return RD_OK;
}

const char *ledger_wallet_id(char buf[LEDGER_ACCOUNT_MAX], const char *name)
{
    snprintf(buf, LEDGER_ACCOUNT_MAX, "wallet:%s", name);
    return buf;
}

const char *ledger_earnings_id(char buf[LEDGER_ACCOUNT_MAX], const char *name)
{
    snprintf(buf, LEDGER_ACCOUNT_MAX, "earnings:%s", name);
    return buf;
}

rd_code ledger_id_check(const char *id, rd_err *err)
{
    size_t n = id ? strlen(id) : 0;
    int ok = n > 0 && n <= LEDGER_ID_MAX && id[0] != '/' && id[n - 1] != '/' && !strstr(id, "//");
    for (size_t i = 0; ok && i < n; i++)
        ok = (id[i] >= 'a' && id[i] <= 'z') || (id[i] >= 'A' && id[i] <= 'Z') || (id[i] >= '0' && id[i] <= '9') ||
             strchr("._-:/", id[i]);
    if (!ok)
        return rd_fail(err, RD_EINVAL, "transfer id must be 1-%d characters of A-Z, a-z, 0-9, '.', '_', '-', ':' and "
                       "'/' between non-empty parts, got '%.300s'", LEDGER_ID_MAX, id ? id : "");
    return RD_OK;
}

static rd_code ref_check(const char *ref, rd_err *err)
{
    size_t n = ref ? strlen(ref) : 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)ref[i] < 0x20 || ref[i] == 0x7f)
            return rd_fail(err, RD_EINVAL, "transfer ref must not contain control characters");
    if (n > LEDGER_REF_MAX)
        return rd_fail(err, RD_EINVAL, "transfer ref must be at most %d bytes, got %zu", LEDGER_REF_MAX, n);
    return RD_OK;
}

static rd_code transfer_check(const ledger_transfer *t, rd_err *err)
{
    rd_code rc = ledger_id_check(t->id, err);
    if (rc == RD_OK)
        rc = ledger_account_check("transfer debit", t->debit, err);
    if (rc == RD_OK)
        rc = ledger_account_check("transfer credit", t->credit, err);
    if (rc == RD_OK && strcmp(t->debit, t->credit) == 0)
        rc = rd_fail(err, RD_EINVAL, "transfer %s: debit and credit must be different accounts, both are '%s'", t->id,
                     t->debit);
    if (rc == RD_OK && !ledger_kind_valid(t->kind))
        rc = rd_fail(err, RD_EINVAL, "transfer kind must be one of %s, got '%s'", ledger_kinds, t->kind ? t->kind : "");
    if (rc == RD_OK && (t->amount_ucr <= 0 || t->amount_ucr > LEDGER_AMOUNT_MAX))
        rc = rd_fail(err, RD_EINVAL, "transfer %s: amount_ucr must be above zero and at most %lld, got %lld", t->id,
                     (long long)LEDGER_AMOUNT_MAX, (long long)t->amount_ucr);
    if (rc == RD_OK)
        rc = ref_check(t->ref, err);
    return rc;
}

/* ---- keys and documents ------------------------------------------------ */

static const char *transfer_key(char buf[RD_KEY_MAX], const char *id)
{
    return tx_key(buf, LEDGER_TRANSFERS_PREFIX "%s", id);
}

static const char *account_key(char buf[RD_KEY_MAX], const char *id)
{
    return tx_key(buf, LEDGER_ACCOUNTS_PREFIX "%s", id);
}

static json_t *transfer_doc(const ledger_transfer *t, int pending)
{
    char at[RDTIME_BUFLEN];
    return json_pack("{s:s, s:s, s:s, s:I, s:s, s:s, s:s, s:b, s:s}", "id", t->id, "debit", t->debit, "credit",
                     t->credit, "amount_ucr", (json_int_t)t->amount_ucr, "kind", t->kind, "at",
                     rdtime_format(t->at, at), "ref", t->ref ? t->ref : "", "pending", pending, "state",
                     pending ? "pending" : "posted");
}

/* Names the first field in which an existing transfer differs from t, or
 * NULL when it is the same transfer (the time is not compared: a retry may
 * run later than the original, as in TigerBeetle). */
static const char *transfer_differs(const json_t *doc, const ledger_transfer *t, int pending)
{
    if (strcmp(doc_str(doc, "debit"), t->debit) != 0)
        return "debit";
    if (strcmp(doc_str(doc, "credit"), t->credit) != 0)
        return "credit";
    if (doc_int(doc, "amount_ucr") != t->amount_ucr)
        return "amount_ucr";
    if (strcmp(doc_str(doc, "kind"), t->kind) != 0)
        return "kind";
    if (strcmp(doc_str(doc, "ref"), t->ref ? t->ref : "") != 0)
        return "ref";
    if (json_is_true(json_object_get(doc, "pending")) != pending)
        return "pending";
    return NULL;
}

static const char *index_key(char buf[RD_KEY_MAX], const char *account, const json_t *doc)
{
    return tx_key(buf, LEDGER_INDEX_PREFIX "%s/%s/%s", account, doc_str(doc, "at"), doc_str(doc, "id"));
}

/* Writes the index copies of a transfer under each tenant account it
 * touches.  They share the transfer's document (a tx never changes a
 * document it was given, and tx_get hands out copies), so the commit
 * encodes it once. */
static rd_code index_put(rd_tx *tx, json_t *doc, rd_err *err)
{
    const char *side[2] = { doc_str(doc, "debit"), doc_str(doc, "credit") };
    char key[RD_KEY_MAX];
    rd_code rc = RD_OK;
    for (int i = 0; i < 2 && rc == RD_OK; i++)
        if (ledger_account_owner(side[i]))
            rc = tx_put(tx, index_key(key, side[i], doc), json_incref(doc), err);
    return rc;
}

/* ---- accounts ---------------------------------------------------------- */

const char *const ledger_sum_fields[SUM_COUNT] = { "debits_posted_ucr", "credits_posted_ucr", "debits_pending_ucr",
                                                    "credits_pending_ucr" };

static json_t *account_new(const char *id, rd_time at)
{
    char ts[RDTIME_BUFLEN];
    const char *owner = ledger_account_owner(id);
    const char *type = owner ? (strncmp(id, "wallet:", 7) == 0 ? "wallet" : "earnings") : id;
    json_t *doc = json_pack("{s:s, s:s, s:o, s:I, s:I, s:I, s:I, s:s}", "name", id, "type", type, "owner",
                            owner ? json_string(owner) : json_null(), ledger_sum_fields[0], (json_int_t)0, ledger_sum_fields[1],
                            (json_int_t)0, ledger_sum_fields[2], (json_int_t)0, ledger_sum_fields[3], (json_int_t)0, "created_at",
                            rdtime_format(at, ts));
    return doc;
}

/* Adds delta[i] to the account's sum i (creating the account on first use). */
static rd_code account_apply(rd_tx *tx, const char *id, const int64_t delta[SUM_COUNT], rd_time at, rd_err *err)
{
    char key[RD_KEY_MAX];
    json_t *doc = NULL;
    rd_code rc = tx_get(tx, account_key(key, id), &doc, err);
    if (rc != RD_OK)
        return rc;
    if (!doc) {
        const char *owner = ledger_account_owner(id);
        if (owner) {   /* a tenant's ledger accounts exist only for an existing tenant */
            char akey[RD_KEY_MAX];
            json_t *tenant = NULL;
            rc = tx_get(tx, tx_key(akey, KEY_ACCOUNTS "%s", owner), &tenant, err);
            if (rc == RD_OK && !tenant)
                rc = rd_fail(err, RD_ENOTFOUND, "ledger account %s: account '%s' does not exist", id, owner);
            json_decref(tenant);
            if (rc != RD_OK)
                return rc;
        }
        if (!(doc = account_new(id, at)))
            return rd_fail(err, RD_ENOMEM, "out of memory");
    }
    for (int i = 0; i < SUM_COUNT && rc == RD_OK; i++) {
        int64_t v = doc_int(doc, ledger_sum_fields[i]), sum;
        if (__builtin_add_overflow(v, delta[i], &sum))
            rc = rd_fail(err, RD_EINVAL, "ledger account %s: %s would overflow", id, ledger_sum_fields[i]);
        else if (sum < 0)
            rc = rd_fail(err, RD_ECORRUPT, "ledger account %s: %s would fall below zero (%lld); the ledger is "
                         "inconsistent, run 'ledger verify'", id, ledger_sum_fields[i], (long long)sum);
        else if (json_object_set_new(doc, ledger_sum_fields[i], json_integer(sum)) != 0)
            rc = rd_fail(err, RD_ENOMEM, "out of memory");   /* the sums must never lag the transfers */
    }
    if (rc == RD_OK)
        return tx_put(tx, key, doc, err);
    json_decref(doc);
    return rc;
}

/* Moves amount between the two accounts' sums: from_sum/to_sum index the
 * debit side's sums (the credit side uses the matching credit sums). */
static rd_code accounts_move(rd_tx *tx, const json_t *t, int64_t posted, int64_t pending, rd_time at, rd_err *err)
{
    int64_t d[SUM_COUNT] = { posted, 0, pending, 0 };
    int64_t c[SUM_COUNT] = { 0, posted, 0, pending };
    rd_code rc = account_apply(tx, doc_str(t, "debit"), d, at, err);
    if (rc == RD_OK)
        rc = account_apply(tx, doc_str(t, "credit"), c, at, err);
    return rc;
}

/* ---- posting ----------------------------------------------------------- */

rd_code ledger_transfer_get(rd_tx *tx, const char *id, json_t **doc, rd_err *err)
{
    char key[RD_KEY_MAX];
    *doc = NULL;
    rd_code rc = ledger_id_check(id, err);
    if (rc == RD_OK)
        rc = tx_get(tx, transfer_key(key, id), doc, err);
    return rc;
}

/* Reads the id and decides: 1 duplicate, 0 new, or an error. */
static rd_code existing_check(rd_tx *tx, const ledger_transfer *t, int pending, int *dup, rd_err *err)
{
    json_t *old = NULL;
    rd_code rc = ledger_transfer_get(tx, t->id, &old, err);
    *dup = 0;
    if (rc == RD_OK && old) {
        const char *field = transfer_differs(old, t, pending);
        if (field)
            rc = rd_fail(err, RD_EINVAL, "transfer %s exists with different fields (%s differs); a transfer id "
                         "names one transfer forever", t->id, field);
        else
            *dup = 1;
    }
    json_decref(old);
    return rc;
}

/* Stages a new transfer whose id is known to be free. */
static rd_code stage_new(rd_tx *tx, const ledger_transfer *t, int pending, rd_err *err)
{
    char key[RD_KEY_MAX];
    json_t *doc = transfer_doc(t, pending);
    if (!doc)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    rd_code rc = accounts_move(tx, doc, pending ? 0 : t->amount_ucr, pending ? t->amount_ucr : 0, t->at, err);
    if (rc == RD_OK)
        rc = index_put(tx, doc, err);
    if (rc == RD_OK)
        return tx_put(tx, transfer_key(key, t->id), doc, err);
    json_decref(doc);
    return rc;
}

static rd_code stage_one(rd_tx *tx, const ledger_transfer *t, int pending, int *duplicate, rd_err *err)
{
    int dup = 0;
    rd_code rc = transfer_check(t, err);
    if (rc == RD_OK)
        rc = existing_check(tx, t, pending, &dup, err);
    if (rc == RD_OK && !dup)
        rc = stage_new(tx, t, pending, err);
    if (duplicate)
        *duplicate = rc == RD_OK && dup;
    return rc;
}

rd_code ledger_stage(rd_tx *tx, const ledger_transfer *t, int *duplicate, rd_err *err)
{
    return stage_one(tx, t, 0, duplicate, err);
}

rd_code ledger_stage_pending(rd_tx *tx, const ledger_transfer *t, int *duplicate, rd_err *err)
{
    return stage_one(tx, t, 1, duplicate, err);
}

rd_code ledger_stage_linked(rd_tx *tx, const ledger_transfer *t, size_t n, size_t *duplicates, rd_err *err)
{
    size_t dups = 0;
    rd_code rc = RD_OK;
    if (duplicates)
        *duplicates = 0;
    for (size_t i = 0; i < n && rc == RD_OK; i++) {
        int dup = 0;
        for (size_t j = 0; j < i && rc == RD_OK; j++)
            if (strcmp(t[i].id, t[j].id) == 0)
                rc = rd_fail(err, RD_EINVAL, "linked transfers: id %s appears twice in the group", t[i].id);
        if (rc == RD_OK)
            rc = transfer_check(&t[i], err);
        if (rc == RD_OK)
            rc = existing_check(tx, &t[i], 0, &dup, err);
        dups += (size_t)dup;
    }
    if (rc == RD_OK && dups > 0 && dups < n)
        rc = rd_fail(err, RD_EINVAL, "linked transfers: %zu of the %zu transfers of the group starting with %s exist "
                     "already; a group is posted all or none, so this one differs from the one posted", dups, n, t[0].id);
    for (size_t i = 0; i < n && rc == RD_OK && dups == 0; i++)
        rc = stage_new(tx, &t[i], 0, err);
    if (duplicates && rc == RD_OK)
        *duplicates = dups;
    return rc;
}

/* Keys to read, each its own copy: a step reads thousands, most of them
 * short, so fixed RD_KEY_MAX slots would cost a fresh megabyte a step. */
typedef struct {
    char **v;
    size_t n, cap;
} key_list;

static int key_list_add(key_list *l, const char *key)
{
    char *copy = strdup(key);
    if (!copy || grow_array(&l->v, &l->cap, l->n + 1, sizeof *l->v) != 0) {
        free(copy);
        return -1;
    }
    l->v[l->n++] = copy;
    return 0;
}

static void key_list_clear(key_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    l->n = 0;
}

/* The tenant records a transfer's ledger accounts need read (account_apply
 * reads the tenant when its ledger account is new), into l. */
static rd_code tenant_keys(rd_tx *tx, const ledger_transfer *t, size_t n, key_list *l, rd_err *err)
{
    rd_code rc = RD_OK;
    for (size_t i = 0; i < n && rc == RD_OK; i++) {
        const char *side[2] = { t[i].debit, t[i].credit };
        for (int j = 0; j < 2 && rc == RD_OK; j++) {
            char key[RD_KEY_MAX];
            const char *owner = ledger_account_owner(side[j]);
            json_t *doc = NULL;
            if (!owner || ledger_account_check("account", side[j], NULL) != RD_OK)
                continue;
            if ((rc = tx_get(tx, account_key(key, side[j]), &doc, err)) == RD_OK && !doc &&
                key_list_add(l, tx_key(key, KEY_ACCOUNTS "%s", owner)) != 0)
                rc = rd_fail(err, RD_ENOMEM, "out of memory");
            json_decref(doc);
        }
    }
    return rc;
}

rd_code ledger_prefetch(rd_tx *tx, const ledger_transfer *t, size_t n, rd_err *err)
{
    key_list l = { NULL, 0, 0 };
    rd_code rc = RD_OK;
    for (size_t i = 0; i < n && rc == RD_OK; i++) {
        char key[RD_KEY_MAX];
        rd_err ignored;
        if (transfer_check(&t[i], &ignored) != RD_OK)
            continue;   /* ledger_stage says what is wrong with it */
        if (key_list_add(&l, transfer_key(key, t[i].id)) != 0 || key_list_add(&l, account_key(key, t[i].debit)) != 0 ||
            key_list_add(&l, account_key(key, t[i].credit)) != 0)
            rc = rd_fail(err, RD_ENOMEM, "out of memory");
    }
    if (rc == RD_OK)
        rc = tx_prefetch(tx, (const char **)l.v, l.n, err);
    key_list_clear(&l);
    /* then, in a second request, the tenants of accounts seen for the first time */
    if (rc == RD_OK)
        rc = tenant_keys(tx, t, n, &l, err);
    if (rc == RD_OK && l.n)
        rc = tx_prefetch(tx, (const char **)l.v, l.n, err);
    key_list_clear(&l);
    free(l.v);
    return rc;
}

static int set_add(json_t *set, const char *key)
{
    return json_object_set_new(set, key, json_true()) == 0;
}

rd_code ledger_keys_add(json_t *set, const ledger_transfer *t, rd_err *err)
{
    char key[RD_KEY_MAX], at[RDTIME_BUFLEN];
    const char *side[2] = { t->debit, t->credit };
    int ok = set_add(set, transfer_key(key, t->id));
    rdtime_format(t->at, at);
    for (int i = 0; i < 2 && ok; i++) {
        const char *owner = ledger_account_owner(side[i]);
        ok = set_add(set, account_key(key, side[i]));
        if (ok && owner)
            ok = set_add(set, tx_key(key, KEY_ACCOUNTS "%s", owner)) &&
                 set_add(set, tx_key(key, LEDGER_INDEX_PREFIX "%s/%s/%s", side[i], at, t->id));
    }
    return ok ? RD_OK : rd_fail(err, RD_ENOMEM, "out of memory");
}

/* Resolves a pending transfer: post (1) or void (0). */
static rd_code resolve_pending(rd_tx *tx, const char *id, rd_time at, int post, int *duplicate, rd_err *err)
{
    const char *verb = post ? "post" : "void";
    const char *want = post ? "posted" : "voided";
    char key[RD_KEY_MAX], ts[RDTIME_BUFLEN];
    json_t *doc = NULL;
    if (duplicate)
        *duplicate = 0;
    rd_code rc = ledger_transfer_get(tx, id, &doc, err);
    if (rc == RD_OK && !doc)
        rc = rd_fail(err, RD_ENOTFOUND, "%s pending transfer: transfer %s does not exist", verb, id);
    if (rc == RD_OK && !json_is_true(json_object_get(doc, "pending")))
        rc = rd_fail(err, RD_EINVAL, "%s pending transfer: transfer %s was posted directly, it is not a hold", verb, id);
    if (rc == RD_OK && strcmp(doc_str(doc, "state"), want) == 0) {
        if (duplicate)
            *duplicate = 1;
        json_decref(doc);
        return RD_OK;
    }
    if (rc == RD_OK && strcmp(doc_str(doc, "state"), "pending") != 0)
        rc = rd_fail(err, RD_EINVAL, "%s pending transfer: transfer %s is %s already", verb, id, doc_str(doc, "state"));
    if (rc == RD_OK) {
        int64_t amount = doc_int(doc, "amount_ucr");
        rc = accounts_move(tx, doc, post ? amount : 0, -amount, at, err);
    }
    if (rc == RD_OK) {
        json_object_set_new(doc, "state", json_string(want));
        json_object_set_new(doc, "resolved_at", json_string(rdtime_format(at, ts)));
        rc = index_put(tx, doc, err);
    }
    if (rc == RD_OK)
        return tx_put(tx, transfer_key(key, id), doc, err);
    json_decref(doc);
    return rc;
}

rd_code ledger_post_pending(rd_tx *tx, const char *id, rd_time at, int *duplicate, rd_err *err)
{
    return resolve_pending(tx, id, at, 1, duplicate, err);
}

rd_code ledger_void_pending(rd_tx *tx, const char *id, rd_time at, int *duplicate, rd_err *err)
{
    return resolve_pending(tx, id, at, 0, duplicate, err);
}

/* ---- reading ----------------------------------------------------------- */

rd_code ledger_balance(rd_tx *tx, const char *account_id, int64_t *balance, int64_t *pending, rd_err *err)
{
    char key[RD_KEY_MAX];
    json_t *doc = NULL;
    rd_code rc = ledger_account_check("account", account_id, err);
    if (rc == RD_OK)
        rc = tx_get(tx, account_key(key, account_id), &doc, err);
    if (rc != RD_OK)
        return rc;
    if (balance)
        *balance = doc_int(doc, "credits_posted_ucr") - doc_int(doc, "debits_posted_ucr");
    if (pending)
        *pending = doc_int(doc, "credits_pending_ucr") - doc_int(doc, "debits_pending_ucr");
    json_decref(doc);
    return RD_OK;
}

rd_code ledger_balance_before(rd_tx *tx, const char *account_id, rd_time before, int64_t *balance, rd_err *err)
{
    char prefix[RD_KEY_MAX];
    json_t *items = NULL, *t;
    size_t i;
    rd_code rc = ledger_account_check("account", account_id, err);
    if (rc == RD_OK && !ledger_account_owner(account_id))
        rc = rd_fail(err, RD_EINVAL, "ledger account %s has no entry index; only wallet: and earnings: accounts do",
                     account_id);
    if (rc == RD_OK)
        rc = tx_list(tx, tx_key(prefix, LEDGER_INDEX_PREFIX "%s/", account_id), &items, err);
    if (rc != RD_OK)
        return rc;
    *balance = 0;
    json_array_foreach(items, i, t) {
        const char *state = doc_str(t, "state");
        const char *when = json_is_true(json_object_get(t, "pending")) ? doc_str(t, "resolved_at") : doc_str(t, "at");
        rd_time at;
        if (strcmp(state, "posted") != 0 || rdtime_parse("at", when, &at, NULL) != RD_OK || at >= before)
            continue;
        int64_t amount = doc_int(t, "amount_ucr");
        *balance += strcmp(doc_str(t, "credit"), account_id) == 0 ? amount : -amount;
    }
    json_decref(items);
    return RD_OK;
}

rd_code ledger_scan(store_t *st, const char *prefix, const char *after, int64_t *rev, ledger_scan_fn fn, void *data,
                    rd_err *err)
{
    char *after_buf = after ? strdup(after) : NULL;
    int64_t at_rev = rev ? *rev : 0;
    rd_code rc = RD_OK;
    int stop = 0;
    if (after && !after_buf)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    while (!stop) {
        store_range_result res;
        if ((rc = store_range(st, prefix, after_buf, 1000, at_rev, &res, err)) != RD_OK)
            break;
        at_rev = res.revision;
        for (size_t i = 0; i < res.count && !stop; i++) {
            json_t *doc = jsonin_loadb_any(res.kvs[i].value, res.kvs[i].value_len, NULL);
            if (!json_is_object(doc)) {
                rc = rd_fail(err, RD_ECORRUPT, "store key %s does not hold a JSON object", res.kvs[i].key);
                stop = 1;
            } else {
                int r = fn(res.kvs[i].key, doc, data, err);
                if (r > 0)
                    rc = (rd_code)r;
                stop = r != 0;
            }
            json_decref(doc);
        }
        free(after_buf);
        after_buf = res.count ? strdup(res.kvs[res.count - 1].key) : NULL;
        if (!stop && res.more && res.count && !after_buf) {   /* not from the start again */
            rc = rd_fail(err, RD_ENOMEM, "out of memory");
            stop = 1;
        }
        stop = stop || !res.more || !res.count;
        store_range_free(&res);
    }
    free(after_buf);
    if (rev)
        *rev = at_rev;
    return rc;
}
