/* store_sqlite_write.c - the SQLite store's write transactions.
 *
 * Owns what every write does inside its BEGIN IMMEDIATE transaction:
 * opening it with expired leases reaped first, compares, puts with their
 * history rows, deletes with their DELETE events, moving the store's
 * revision, and the SQL for all of these.  store_sqlite.c calls in for the
 * backend's txn and for the deletes and revision of a lease revoke; the
 * schema these statements keep consistent is described in
 * store_sqlite_int.h.
 */
#include "store_sqlite_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- SQL ------------------------------------------------------------------ */

static const char SQL_BEGIN_W[] = "BEGIN IMMEDIATE";
static const char SQL_SET_REV[] = "UPDATE meta SET rev = ?1 WHERE id = 1";
static const char SQL_EXPIRED_ANY[] = "SELECT 1 FROM lease WHERE expires_at <= ?1 LIMIT 1";
static const char SQL_DROP_EXPIRED[] = "DELETE FROM lease WHERE expires_at <= ?1";
static const char SQL_LEASE_HAS[] = "SELECT ttl FROM lease WHERE id = ?1";

/* A compare reads the row's state; a put of the key later in the txn
 * reuses whether it exists (see known_key); the value only for a value
 * compare. */
static const char SQL_CMP[] = "SELECT value, mod_rev, create_rev, version FROM kv WHERE key = ?1";
static const char SQL_CMP_NUM[] = "SELECT NULL, mod_rev, create_rev, version FROM kv WHERE key = ?1";
/* A put of a key not known to exist: insert when new (one statement, the
 * common case for a ledger) with its history row; else it is overwritten. */
static const char SQL_KV_NEW[] =
    "INSERT INTO kv (" KV_COLS ", mod_sub) VALUES (?1, ?2, ?3, ?3, 1, ?4, ?5) ON CONFLICT (key) DO NOTHING";
static const char SQL_LOG_NEW[] =
    "INSERT INTO kv_log (rev, sub, key, type, create_rev, version, lease) VALUES (?2, ?3, ?1, 0, ?2, 1, ?4)";
/* Overwriting a key: its history row is appended first, taken from kv as
 * it stands (the link to the key's newest row and the value it replaces),
 * then kv takes the new value.  No other row changes. */
static const char SQL_LOG_OVER[] =
    "INSERT INTO kv_log (rev, sub, key, type, create_rev, version, lease, prev_rev, prev_sub, prev_value)"
    " SELECT ?2, ?3, key, 0, create_rev, version + 1, ?4, mod_rev, mod_sub, value FROM kv WHERE key = ?1";
static const char SQL_KV_SET[] =
    "UPDATE kv SET value = ?2, mod_rev = ?3, version = version + 1, lease = ?4, mod_sub = ?5 WHERE key = ?1";

/* Deleting keys: log a DELETE event per key at ?4 (subs from ?5), linked
 * to the key's newest row and holding its value, then drop them. */
#define W_EXPIRED "lease != 0 AND lease IN (SELECT id FROM lease WHERE expires_at <= ?3)"
#define W_LEASE "lease != 0 AND lease = ?3"
#define DEL_LOG(w)                                                                   \
    "INSERT INTO kv_log (rev, sub, key, type, create_rev, version, lease, prev_rev, prev_sub, prev_value)" \
    " SELECT ?4, ?5 + row_number() OVER (ORDER BY key) - 1, key, 1, 0, 0, 0, mod_rev, mod_sub, value" \
    " FROM kv WHERE " w
static const char *const SQL_DEL_LOG[4] = {
    DEL_LOG(W_FROM), DEL_LOG(W_RANGE), DEL_LOG(W_EXPIRED), DEL_LOG(W_LEASE),
};
static const char *const SQL_DEL_KV[4] = {
    "DELETE FROM kv WHERE " W_FROM, "DELETE FROM kv WHERE " W_RANGE,
    "DELETE FROM kv WHERE " W_EXPIRED, "DELETE FROM kv WHERE " W_LEASE,
};

/* ---- revisions, deletes, opening ----------------------------------------- */

/* Moves the store to *rev + 1 when the transaction logged any row there. */
rd_code sqlite_write_bump_rev(sqlite_conn *c, int64_t *rev, int64_t sub, rd_err *err)
{
    rd_code rc = sub > 0 ? sqlite_conn_exec(c, SQL_SET_REV, err, "i", *rev + 1) : RD_OK;
    if (rc == RD_OK && sub > 0)
        (*rev)++;
    return rc;
}

/* Deletes the keys picked by `which` at revision rev, logging one DELETE event
 * each; *sub counts the rows logged at rev so far. */
rd_code sqlite_write_delete_keys(sqlite_conn *c, int which, const char *lo, size_t lo_len,
                                 const char *hi, size_t hi_len, int64_t arg, int64_t rev,
                                 int64_t *sub, rd_err *err)
{
    rd_code rc = sqlite_conn_exec(c, SQL_DEL_LOG[which], err, "bbiii", lo, lo_len, hi, hi_len, arg, rev,
                                  *sub);
    if (rc == RD_OK) {
        *sub += sqlite3_changes(c->db);
        rc = sqlite_conn_exec(c, SQL_DEL_KV[which], err, "bbi", lo, lo_len, hi, hi_len, arg);
    }
    return rc;
}

/* Deletes the keys of every expired lease at one new revision and drops the
 * leases.  Runs inside a write transaction. */
static rd_code reap(sqlite_conn *c, int64_t *rev, rd_err *err)
{
    int64_t now = sqlite_conn_wall_ms(), one = 0, sub = 0;
    int found = 0;
    rd_code rc = sqlite_conn_query_int(c, SQL_EXPIRED_ANY, &one, &found, err, "i", now);
    if (rc || !found)
        return rc;
    rc = sqlite_write_delete_keys(c, DEL_EXPIRED, NULL, 0, NULL, 0, now, *rev + 1, &sub, err);
    if (rc == RD_OK)
        rc = sqlite_conn_exec(c, SQL_DROP_EXPIRED, err, "i", now);
    return rc ? rc : sqlite_write_bump_rev(c, rev, sub, err);
}

rd_code sqlite_write_find_expired(sqlite_conn *c, int *found, rd_err *err)
{
    int64_t one = 0;
    return sqlite_conn_query_int(c, SQL_EXPIRED_ANY, &one, found, err, "i", sqlite_conn_wall_ms());
}

/* Opens a write transaction with expired leases already reaped. */
rd_code sqlite_write_begin(sqlite_conn *c, int64_t *rev, rd_err *err)
{
    int64_t compact;
    rd_code rc = sqlite_conn_exec(c, SQL_BEGIN_W, err, "");
    if (rc)
        return rc;
    if ((rc = sqlite_conn_read_meta(c, rev, &compact, err)) == RD_OK)
        rc = reap(c, rev, err);
    return rc ? sqlite_conn_finish_txn(c, rc, err) : RD_OK;
}

/* ---- what a txn knows of the keys it compared ---------------------------- */

/* A compare reads its key's row; a put of that key later in the same txn
 * then knows whether it exists, and an overwrite skips the INSERT that
 * would fail.  Valid until an op of the txn changes the key: a put leaves
 * it live, a delete forgets it. */
typedef struct {
    const char *key;        /* a compare's; NULL: an empty slot */
    int live;               /* it exists; 0: missing or not known */
} known_key;

typedef struct {
    known_key *slot;        /* open addressing; NULL when the txn has no compares */
    size_t mask;            /* slots - 1, a power of two less one */
} known_keys;

static size_t known_hash(const char *key)
{
    size_t h = 2166136261u;   /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 16777619u;
    return h;
}

/* key's slot: its entry, else the empty slot it would take (NULL: no table). */
static known_key *known_slot(const known_keys *kk, const char *key)
{
    if (!kk->slot)
        return NULL;
    size_t i = known_hash(key) & kk->mask;
    while (kk->slot[i].key && strcmp(kk->slot[i].key, key) != 0)
        i = (i + 1) & kk->mask;
    return &kk->slot[i];
}

/* A slot for every compared key, in a table at most half full so that
 * probes stay short. */
static rd_code known_init(known_keys *kk, const store_cmp *cmps, size_t ncmps, rd_err *err)
{
    size_t slots = 8;
    memset(kk, 0, sizeof *kk);
    if (ncmps == 0)
        return RD_OK;
    while (slots < 2 * ncmps)
        slots *= 2;
    if (!(kk->slot = calloc(slots, sizeof *kk->slot)))
        return sqlite_conn_fail_oom(err);
    kk->mask = slots - 1;
    for (size_t i = 0; i < ncmps; i++)
        known_slot(kk, cmps[i].key)->key = cmps[i].key;
    return RD_OK;
}

/* Forgets every key that starts with prefix (exact: only prefix itself). */
static void known_forget(known_keys *kk, const char *prefix, int exact)
{
    size_t n = strlen(prefix);
    for (size_t i = 0; kk->slot && i <= kk->mask; i++)
        if (kk->slot[i].key && (exact ? strcmp(kk->slot[i].key, prefix) == 0
                                      : strncmp(kk->slot[i].key, prefix, n) == 0))
            kk->slot[i].live = 0;
}

/* ---- compares and ops ----------------------------------------------------- */

/* Reads cmp's key, records its state in kk, and says whether cmp holds. */
static rd_code eval_cmp(sqlite_conn *c, const store_cmp *cmp, known_keys *kk, int *holds,
                        rd_err *err)
{
    sqlite3_stmt *q;
    int d = 0;
    known_key *k = known_slot(kk, cmp->key);
    rd_code rc = sqlite_conn_prep(c, cmp->target == STORE_CMP_VALUE ? SQL_CMP : SQL_CMP_NUM, &q, err, "k", cmp->key);
    if (rc)
        return rc;
    int found = sqlite_conn_step(c, q, &rc, err);
    if (cmp->target == STORE_CMP_VALUE && found) {
        d = sqlite_conn_compare_bytes(sqlite3_column_blob(q, 0), (size_t)sqlite3_column_bytes(q, 0),
                                       cmp->value, cmp->value_len);
    } else if (cmp->target != STORE_CMP_VALUE) {
        int col = cmp->target == STORE_CMP_MOD_REVISION ? 1
                  : cmp->target == STORE_CMP_CREATE_REVISION ? 2 : 3;
        int64_t have = found ? sqlite3_column_int64(q, col) : 0;
        d = (have > cmp->number) - (have < cmp->number);
    }
    if (k && rc == RD_OK)
        k->live = found;
    sqlite3_reset(q);
    *holds = cmp->op == STORE_CMP_EQUAL ? d == 0
             : cmp->op == STORE_CMP_NOT_EQUAL ? d != 0
             : cmp->op == STORE_CMP_LESS ? d < 0 : d > 0;
    /* etcd: a value compare against a missing key is false, whatever the op. */
    if (cmp->target == STORE_CMP_VALUE && !found)
        *holds = 0;
    return rc;
}

/* Overwrites op's key, which exists, at (rev, sub). */
static rd_code put_over(sqlite_conn *c, const store_op *op, int64_t rev, int64_t sub, rd_err *err)
{
    rd_code rc = sqlite_conn_exec(c, SQL_LOG_OVER, err, "kiii", op->key, rev, sub, op->lease);
    if (rc == RD_OK && sqlite3_changes(c->db) != 1)
        rc = rd_fail(err, RD_ECORRUPT, "store %s: key %s is neither new nor there", c->path, op->key);
    if (rc == RD_OK)
        rc = sqlite_conn_exec(c, SQL_KV_SET, err, "kbiii", op->key, op->value, op->value_len, rev, op->lease, sub);
    return rc;
}

/* Puts op's key at (rev, sub), created or overwritten; *k (NULL: none)
 * says whether a compare of the txn found it, and is kept up to date. */
static rd_code put_key(sqlite_conn *c, const store_op *op, known_key *k, int64_t rev, int64_t sub,
                       rd_err *err)
{
    rd_code rc;
    if (k && k->live) {
        rc = put_over(c, op, rev, sub, err);
    } else if ((rc = sqlite_conn_exec(c, SQL_KV_NEW, err, "kbiii", op->key, op->value, op->value_len, rev, op->lease,
                                      sub)) == RD_OK) {
        if (sqlite3_changes(c->db) == 0)   /* it exists */
            rc = put_over(c, op, rev, sub, err);
        else
            rc = sqlite_conn_exec(c, SQL_LOG_NEW, err, "kiii", op->key, rev, sub, op->lease);
    }
    if (rc == RD_OK && k)
        k->live = 1;
    return rc;
}

static rd_code apply_op(sqlite_conn *c, const store_op *op, known_keys *kk, int64_t rev,
                        int64_t *sub, rd_err *err)
{
    size_t klen = strlen(op->key);
    char *end = NULL;
    rd_code rc;

    if (op->kind == STORE_OP_DELETE) {
        known_forget(kk, op->key, 1);
        return sqlite_write_delete_keys(c, DEL_RANGE, op->key, klen, op->key, klen + 1, 0, rev,
                                        sub, err);
    }
    if (op->kind == STORE_OP_DELETE_PREFIX) {
        known_forget(kk, op->key, 0);
        if ((rc = sqlite_conn_find_prefix_end(op->key, &end, err)) == RD_OK)
            rc = sqlite_write_delete_keys(c, end ? DEL_RANGE : DEL_FROM, op->key, klen, end,
                                          end ? strlen(end) : 0, 0, rev, sub, err);
        free(end);
        return rc;
    }
    known_key *k = known_slot(kk, op->key);
    if ((rc = put_key(c, op, k && k->key ? k : NULL, rev, *sub, err)) == RD_OK)
        (*sub)++;
    return rc;
}

rd_code sqlite_write_txn(sqlite_conn *c, const store_cmp *cmps, size_t ncmps,
                         const store_op *success, size_t nsuccess, const store_op *failure,
                         size_t nfailure, store_txn_result *res, rd_err *err)
{
    int64_t rev, sub = 0, ttl;
    int ok = 1, found = 1;
    known_keys kk;
    rd_code rc = known_init(&kk, cmps, ncmps, err);
    if (rc || (rc = sqlite_write_begin(c, &rev, err))) {
        free(kk.slot);
        return rc;
    }
    for (size_t i = 0; i < ncmps && ok && rc == RD_OK; i++)
        rc = eval_cmp(c, &cmps[i], &kk, &ok, err);
    const store_op *ops = ok ? success : failure;
    size_t nops = ok ? nsuccess : nfailure;
    /* Every lease is checked before anything is written: a bad one applies nothing. */
    for (size_t i = 0; i < nops && rc == RD_OK; i++)
        if (ops[i].kind == STORE_OP_PUT && ops[i].lease != 0 &&
            (rc = sqlite_conn_query_int(c, SQL_LEASE_HAS, &ttl, &found, err, "i",
                                        ops[i].lease)) == RD_OK && !found)
            rc = rd_fail(err, RD_EINVAL, "store put %s: lease %lld does not exist", ops[i].key,
                         (long long)ops[i].lease);
    for (size_t i = 0; i < nops && rc == RD_OK; i++)
        rc = apply_op(c, &ops[i], &kk, rev + 1, &sub, err);
    free(kk.slot);
    if (rc == RD_OK)
        rc = sqlite_write_bump_rev(c, &rev, sub, err);
    if ((rc = sqlite_conn_finish_txn(c, rc, err)) == RD_OK) {
        res->succeeded = ok;
        res->revision = rev;
    }
    return rc;
}
