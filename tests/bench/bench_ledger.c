/* bench_ledger.c - how fast the ledger posts, against what the store allows.
 *
 * Posts BENCH_LEDGER_N transfers (default 1,000,000) through ledger_stage +
 * tx_commit on a temporary SQLite store, BENCH_LEDGER_BATCH per transaction
 * (default 1000): alternately deposits (external -> wallet:X) and usage
 * fees (wallet:X -> platform) over 1000 tenant accounts picked at random
 * with a fixed seed.  Beside it, the raw rate of plain sqlite3 INSERTs of
 * one row per transfer (key, the same JSON document) in the same batch
 * size with the store's pragmas, in the same run on the same machine, and
 * the raw ledger floor: the rows any ledger with per-account entries must
 * write (the transfer, its entry under the tenant account, the touched
 * accounts' sums), as plain SQL.
 * Prints a human-readable report, then `bench: <name> <value> <unit>` lines.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

#include <sqlite3.h>

#include "bench_util.h"
#include "bench_etcd_raw.h"
#include "ledger.h"
#include "store.h"
#include "store_sqlite_int.h"
#include "tx.h"

#define ACCOUNTS 1000

static void die(const char *what, const rd_err *err)
{
    fprintf(stderr, "bench_ledger: %s: %s\n", what, err ? err->msg : strerror(errno));
    exit(1);
}

/* xorshift64: the same account sequence on every run. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void transfer_at(long k, rd_time base, char *id, char *debit, char *credit, ledger_transfer *t)
{
    int acct = (int)(rng() % ACCOUNTS);
    int deposit = k % 2 == 0;
    snprintf(id, LEDGER_ID_MAX, "%s/acct-%04d/%08ld", deposit ? "deposit" : "usage", acct, k);
    snprintf(deposit ? credit : debit, LEDGER_ACCOUNT_MAX, "wallet:acct-%04d", acct);
    snprintf(deposit ? debit : credit, LEDGER_ACCOUNT_MAX, "%s", deposit ? "external" : "platform");
    *t = (ledger_transfer){ id, debit, credit, deposit ? 2000000 : 1000000 + k % 997, deposit ? "deposit" : "usage_fee",
                            base + k, deposit ? "bench deposit" : "bench usage span" };
}

/* Transfer k's key and the document the ledger writes for it (posted,
 * not pending); the document's length. */
static int transfer_doc(long k, rd_time base, char key[RD_KEY_MAX], char *doc, size_t cap)
{
    char id[LEDGER_ID_MAX], debit[LEDGER_ACCOUNT_MAX], credit[LEDGER_ACCOUNT_MAX], at[RDTIME_BUFLEN];
    ledger_transfer t;
    transfer_at(k, base, id, debit, credit, &t);
    tx_key(key, LEDGER_TRANSFERS_PREFIX "%s", id);
    return snprintf(doc, cap,
                    "{\"id\":\"%s\",\"debit\":\"%s\",\"credit\":\"%s\",\"amount_ucr\":%" PRId64 ",\"kind\":\"%s\","
                    "\"at\":\"%s\",\"ref\":\"%s\",\"pending\":false,\"state\":\"posted\"}",
                    t.id, t.debit, t.credit, t.amount_ucr, t.kind, rdtime_format(t.at, at), t.ref);
}

/* n transfers through ledger_stage + tx_commit, batch a transaction, over
 * the ACCOUNTS tenants' wallets (their accounts are created first, not
 * timed); seconds. */
static double ledger_post_all(store_t *st, long n, long batch)
{
    rd_err err;
    rng_state = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < ACCOUNTS;) {   /* the tenants the wallets belong to, 100 a txn */
        char keys[100][RD_KEY_MAX], docs[100][128];
        store_op ops[100];
        store_txn_result res;
        size_t m = 0;
        for (; m < 100 && i < ACCOUNTS; m++, i++) {
            int len = snprintf(docs[m], sizeof docs[m], "{\"name\":\"acct-%04d\",\"plan\":\"free\",\"admin\":false}", i);
            ops[m] = (store_op){ STORE_OP_PUT, tx_key(keys[m], "/rigdeck/accounts/acct-%04d", i), docs[m], (size_t)len, 0 };
        }
        if (store_txn(st, NULL, 0, ops, m, NULL, 0, &res, &err) != RD_OK)
            die("store_txn", &err);
    }
    rd_tx *tx = tx_new(st);
    rd_time base = 1793491200;   /* 2026-11-01T00:00:00Z */
    /* A batch's transfers are known before it is staged, as in a bill run's
     * step: their keys are read in one ledger_prefetch (one request on etcd). */
    ledger_transfer *t = calloc((size_t)batch, sizeof *t);
    char (*ids)[LEDGER_ID_MAX] = calloc((size_t)batch, LEDGER_ID_MAX);
    char (*debits)[LEDGER_ACCOUNT_MAX] = calloc((size_t)batch, LEDGER_ACCOUNT_MAX);
    char (*credits)[LEDGER_ACCOUNT_MAX] = calloc((size_t)batch, LEDGER_ACCOUNT_MAX);
    if (!t || !ids || !debits || !credits)
        die("calloc", NULL);
    double t0 = now_s();
    for (long k = 0; k < n;) {
        long m = 0;
        tx_reset(tx);
        for (; m < batch && k < n; m++, k++)
            transfer_at(k, base, ids[m], debits[m], credits[m], &t[m]);
        if (ledger_prefetch(tx, t, (size_t)m, &err) != RD_OK)
            die("ledger_prefetch", &err);
        for (long i = 0; i < m; i++)
            if (ledger_stage(tx, &t[i], NULL, &err) != RD_OK)
                die("ledger_stage", &err);
        if (tx_commit(tx, NULL, &err) != RD_OK)
            die("tx_commit", &err);
    }
    double secs = now_s() - t0;
    free(t);
    free(ids);
    free(debits);
    free(credits);
    tx_free(tx);
    return secs;
}

/* ledger verify over the store; the number of violations. */
static long ledger_verify_all(store_t *st, double *verify_s)
{
    rd_err err;
    long violations = 0;
    rd_tx *tx = tx_new(st);
    json_t *report = NULL;
    double t0 = now_s();
    if (ledger_verify(tx, &report, &err) != RD_OK)
        die("ledger_verify", &err);
    *verify_s = now_s() - t0;
    violations = (long)json_integer_value(json_object_get(report, "violation_count"));
    if (violations)
        fprintf(stderr, "bench_ledger: verify found %ld violations, first: %s\n", violations,
                json_dumps(json_array_get(json_object_get(report, "violations"), 0), 0));
    json_decref(report);
    tx_free(tx);
    return violations;
}

static double bench_ledger(const char *dir, long n, long batch, double *verify_s, long *violations)
{
    char url[600];
    store_t *st = NULL;
    rd_err err;
    snprintf(url, sizeof url, "sqlite:%s/ledger.db", dir);
    if (store_open(url, NULL, &st, &err) != RD_OK)
        die("store_open", &err);
    double secs = ledger_post_all(st, n, batch);
    *violations = ledger_verify_all(st, verify_s);
    store_close(st);
    return secs;
}

static void sql(sqlite3 *db, const char *s)
{
    char *msg = NULL;
    if (sqlite3_exec(db, s, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "bench_ledger: sqlite: %s: %s\n", s, msg ? msg : "?");
        exit(1);
    }
}

/* Runs q (an INSERT or UPSERT of ?1 key, ?2 value) once. */
static void raw_put(sqlite3_stmt *q, const char *key, const char *value, int len)
{
    sqlite3_bind_blob(q, 1, key, (int)strlen(key), SQLITE_TRANSIENT);
    sqlite3_bind_blob(q, 2, value, len, SQLITE_TRANSIENT);
    if (sqlite3_step(q) != SQLITE_DONE)
        die("raw sqlite write", NULL);
    sqlite3_reset(q);
}

/* One row per transfer: its key and the document the ledger would write. */
static double bench_raw(const char *dir, long n, long batch)
{
    char path[600];
    sqlite3 *db;
    sqlite3_stmt *ins;
    snprintf(path, sizeof path, "%s/raw.db", dir);
    if (sqlite3_open(path, &db) != SQLITE_OK)
        die("sqlite3_open", NULL);
    sql(db, RD_SQLITE_PRAGMAS   /* exactly the store's settings */
            "CREATE TABLE kv (key BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;");
    if (sqlite3_prepare_v2(db, "INSERT INTO kv (key, value) VALUES (?1, ?2)", -1, &ins, NULL) != SQLITE_OK)
        die("prepare", NULL);
    rng_state = 0x9e3779b97f4a7c15ULL;
    rd_time base = 1793491200;
    double t0 = now_s();
    for (long k = 0; k < n;) {
        sql(db, "BEGIN IMMEDIATE");
        for (long i = 0; i < batch && k < n; i++, k++) {
            char key[RD_KEY_MAX], doc[1024];
            int len = transfer_doc(k, base, key, doc, sizeof doc);
            raw_put(ins, key, doc, len);
        }
        sql(db, "COMMIT");
    }
    double secs = now_s() - t0;
    sqlite3_finalize(ins);
    sqlite3_close(db);
    return secs;
}

/* What a ledger must write however it is stored, written raw: per transfer
 * its row and one entry row under its tenant account (the per-account
 * index), and per batch the new sums of each account it touched, as plain
 * INSERTs and UPSERTs into the same table with the store's pragmas, without
 * history, reads or guards.  Against this floor the ledger's own overhead
 * shows; against bench_raw (one row a transfer) the cost of the index. */
static double bench_raw_ledger(const char *dir, long n, long batch)
{
    char path[600];
    sqlite3 *db;
    sqlite3_stmt *ins, *sum;
    snprintf(path, sizeof path, "%s/floor.db", dir);
    if (sqlite3_open(path, &db) != SQLITE_OK)
        die("sqlite3_open", NULL);
    sql(db, RD_SQLITE_PRAGMAS "CREATE TABLE kv (key BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;");
    if (sqlite3_prepare_v2(db, "INSERT INTO kv (key, value) VALUES (?1, ?2)", -1, &ins, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "INSERT INTO kv (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                           -1, &sum, NULL) != SQLITE_OK)
        die("prepare", NULL);
    char *touched = calloc(ACCOUNTS + 2, 1);
    if (!touched)
        die("calloc", NULL);
    rng_state = 0x9e3779b97f4a7c15ULL;
    rd_time base = 1793491200;
    double t0 = now_s();
    for (long k = 0; k < n;) {
        sql(db, "BEGIN IMMEDIATE");
        memset(touched, 0, ACCOUNTS + 2);
        for (long i = 0; i < batch && k < n; i++, k++) {
            char key[RD_KEY_MAX], doc[1024], id[LEDGER_ID_MAX], debit[LEDGER_ACCOUNT_MAX], credit[LEDGER_ACCOUNT_MAX],
                at[RDTIME_BUFLEN];
            uint64_t state = rng_state;
            int len = transfer_doc(k, base, key, doc, sizeof doc);
            rng_state = state;   /* the same draw again, for the transfer's accounts */
            ledger_transfer t;
            transfer_at(k, base, id, debit, credit, &t);
            const char *wallet = ledger_account_owner(t.debit) ? t.debit : t.credit;
            for (int row = 0; row < 2; row++) {
                if (row == 1)
                    tx_key(key, LEDGER_INDEX_PREFIX "%s/%s/%s", wallet, rdtime_format(t.at, at), t.id);
                raw_put(ins, key, doc, len);
            }
            touched[atoi(wallet + strlen("wallet:acct-"))] = 1;
            touched[ACCOUNTS + (k % 2 == 0)] = 1;   /* external (deposits) or platform (fees) */
        }
        for (int a = 0; a < ACCOUNTS + 2; a++) {
            char key[RD_KEY_MAX], doc[400];
            if (!touched[a])
                continue;
            if (a < ACCOUNTS)
                tx_key(key, LEDGER_ACCOUNTS_PREFIX "wallet:acct-%04d", a);
            else
                tx_key(key, LEDGER_ACCOUNTS_PREFIX "%s", a == ACCOUNTS ? "platform" : "external");
            int len = snprintf(doc, sizeof doc, "{\"name\":\"%s\",\"type\":\"wallet\",\"owner\":null,\"debits_posted_ucr\":%ld,"
                               "\"credits_posted_ucr\":%ld,\"debits_pending_ucr\":0,\"credits_pending_ucr\":0,"
                               "\"created_at\":\"2026-11-01T00:00:00Z\"}", key, k * 1000003L, k * 999983L);
            raw_put(sum, key, doc, len);
        }
        sql(db, "COMMIT");
    }
    double secs = now_s() - t0;
    free(touched);
    sqlite3_finalize(ins);
    sqlite3_finalize(sum);
    sqlite3_close(db);
    return secs;
}

/* The same documents written as plain store puts (no reads, no guards, one
 * key per transfer): what the store itself allows, for the human report. */
static double bench_store_puts(const char *dir, long n, long batch)
{
    char url[600];
    store_t *st = NULL;
    rd_err err;
    snprintf(url, sizeof url, "sqlite:%s/puts.db", dir);
    if (store_open(url, NULL, &st, &err) != RD_OK)
        die("store_open", &err);
    store_op *ops = calloc((size_t)batch, sizeof *ops);
    char (*keys)[RD_KEY_MAX] = calloc((size_t)batch, RD_KEY_MAX);
    char (*docs)[512] = calloc((size_t)batch, 512);
    if (!ops || !keys || !docs)
        die("calloc", NULL);
    rng_state = 0x9e3779b97f4a7c15ULL;
    double t0 = now_s();
    for (long k = 0; k < n;) {
        long m = 0;
        for (; m < batch && k < n; m++, k++) {
            int len = transfer_doc(k, 1793491200, keys[m], docs[m], 512);
            ops[m] = (store_op){ STORE_OP_PUT, keys[m], docs[m], (size_t)len, 0 };
        }
        store_txn_result res;
        if (store_txn(st, NULL, 0, ops, (size_t)m, NULL, 0, &res, &err) != RD_OK)
            die("store_txn", &err);
    }
    double secs = now_s() - t0;
    free(ops);
    free(keys);
    free(docs);
    store_close(st);
    return secs;
}

/* ---- on etcd ------------------------------------------------------------------ */

static void die_msg(const char *what, const char *msg)
{
    fprintf(stderr, "bench_ledger: %s: %s\n", what, msg);
    exit(1);
}

/* Deletes every rigdeck key: the etcd is the bench run's own, used by the
 * benchmarks one after another. */
static void etcd_wipe(raw_etcd *r)
{
    const char *msg = raw_etcd_delete_prefix(r, "/rigdeck/");
    if (msg)
        die_msg("etcd wipe", msg);
}

/* The same transfer documents as the ledger writes, one put per transfer,
 * batch puts a raw /v3/kv/txn; seconds. */
static double etcd_raw_transfers(raw_etcd *r, long n, long batch)
{
    char key[RD_KEY_MAX], doc[1024];
    rng_state = 0x9e3779b97f4a7c15ULL;
    double t0 = now_s();
    for (long k = 0; k < n;) {
        raw_etcd_txn_begin(r, NULL);
        for (long i = 0; i < batch && k < n; i++, k++) {
            int len = transfer_doc(k, 1793491200, key, doc, sizeof doc);
            raw_etcd_txn_put(r, key, doc, (size_t)len);
        }
        raw_etcd_txn_end(r, NULL);
        const char *msg = raw_etcd_post(r, r->txn_url);
        if (msg)
            die_msg("raw etcd", msg);
    }
    return now_s() - t0;
}

/* This process's CPU time (user + system), in seconds. */
static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The ledger on etcd against raw txns of its transfer documents; the
 * number of ledger verify's violations. */
static long bench_ledger_etcd(const char *url)
{
    long n = env_long("BENCH_LEDGER_ETCD_N", 5000), batch = env_long("BENCH_LEDGER_ETCD_BATCH", 24), violations = 0;
    long ranges0, txns0, ranges1, txns1;
    double raw[3], verify_s = 0;
    raw_etcd r;
    store_t *st = NULL;
    rd_err err;
    if (raw_etcd_open(&r, url) != 0)
        die_msg("raw etcd", "cannot open a connection");
    for (int i = 0; i < 3; i++) {
        etcd_wipe(&r);
        raw[i] = etcd_raw_transfers(&r, n, batch);
    }
    qsort(raw, 3, sizeof raw[0], cmp_double);
    etcd_wipe(&r);
    if (store_open(url, NULL, &st, &err) != RD_OK)
        die("store_open", &err);
    raw_etcd_served(&r, &ranges0, &txns0);   /* counts the accounts' 10 txns too */
    double c0 = cpu_s(), ledger_s = ledger_post_all(st, n, batch), cpu = cpu_s() - c0;
    raw_etcd_served(&r, &ranges1, &txns1);
    violations = ledger_verify_all(st, &verify_s);
    store_close(st);
    etcd_wipe(&r);
    raw_etcd_close(&r);

    double rate = (double)n / ledger_s, raw_rate = (double)n / raw[1];
    printf("etcd ledger: %ld transfers in batches of %ld (as a bill run's step of at most 100 keys holds: 4 keys a "
           "transfer and the 2 shared accounts) through ledger_stage + tx_commit: %.2f s (%.0f/s)\n", n, batch,
           ledger_s, rate);
    printf("etcd raw: the same %ld transfer documents as plain puts, %ld a /v3/kv/txn (median of 3): %.2f s (%.0f/s)"
           ": the ledger runs at %.2f of that\n", n, batch, raw[1], raw_rate, rate / raw_rate);
    if (ranges0 >= 0 && ranges1 >= 0) {
        long reads = ranges1 - ranges0, txns = txns1 - txns0;
        double txn_s = raw[1] / (double)((n + batch - 1) / batch), rest = ledger_s - (double)txns * txn_s;
        printf("etcd requests of the ledger run (the member's /metrics, the accounts' creation included): %ld reads "
               "(kv/range; %.1f a transfer), %ld txns; at the raw txn's %.2f ms, the txns explain %.2f s of the "
               "%.2f s, leaving %.2f s to the reads, one request each (%.0f us a read), and the client's CPU (%.2f s "
               "in all)\n", reads, (double)reads / (double)n, txns, txn_s * 1e3, (double)txns * txn_s, ledger_s,
               rest, reads ? rest * 1e6 / (double)reads : 0.0, cpu);
    }
    printf("etcd ledger verify over %ld transfers: %.2f s, %ld violations\n", n, verify_s, violations);
    printf("bench: ledger_etcd_transfers_per_s %.0f 1/s\n", rate);
    printf("bench: etcd_raw_txn_puts_per_s %.0f 1/s\n", raw_rate);
    printf("bench: ledger_etcd_vs_raw %.2f ratio\n", rate / raw_rate);
    printf("bench: ledger_etcd_verify_violations %ld count\n", violations);
    return violations;
}

int main(void)
{
    long n = env_long("BENCH_LEDGER_N", 1000000), batch = env_long("BENCH_LEDGER_BATCH", 1000), violations = 0;
    const char *base = getenv("TMPDIR");
    char dir[512];
    double verify_s = 0;
    snprintf(dir, sizeof dir, "%s/rdbench-ledger.XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(dir))
        die("mkdtemp", NULL);

    long long w0 = wchar_now();
    double raw_s = bench_raw(dir, n, batch);
    long long w1 = wchar_now();
    double floor_s = bench_raw_ledger(dir, n, batch);
    long long w1f = wchar_now();
    double puts_s = bench_store_puts(dir, n, batch);
    long long w2 = wchar_now();
    double ledger_s = bench_ledger(dir, n, batch, &verify_s, &violations);
    long long w3 = wchar_now();   /* verify reads only */
    double raw_b = (double)(w1 - w0) / (double)n, floor_b = (double)(w1f - w1) / (double)n,
           puts_b = (double)(w2 - w1f) / (double)n,
           ledger_b = (double)(w3 - w2) / (double)n;
    double ledger_rate = (double)n / ledger_s, raw_rate = (double)n / raw_s;

    printf("ledger: %ld transfers in batches of %ld over %d wallets: %.2f s (%.1f us each)\n", n, batch, ACCOUNTS,
           ledger_s, ledger_s * 1e6 / (double)n);
    printf("raw sqlite3: %ld one-row inserts, same batches: %.2f s (%.1f us each)\n", n, raw_s, raw_s * 1e6 / (double)n);
    printf("raw ledger floor: the same transfers as a row each, an entry row under the tenant account and each "
           "touched account's sums once a batch, plain SQL without history: %.2f s (%.1f us each)\n", floor_s,
           floor_s * 1e6 / (double)n);
    printf("store puts: %ld one-key puts (no reads, no guards), same batches: %.2f s (%.1f us each)\n", n, puts_s,
           puts_s * 1e6 / (double)n);
    printf("bytes written per transfer: ledger %.0f, raw %.0f, raw ledger floor %.0f, store puts %.0f\n", ledger_b,
           raw_b, floor_b, puts_b);
    printf("ledger verify over %ld transfers: %.2f s, %ld violations\n", n, verify_s, violations);
    printf("bench: ledger_transfers_per_s %.0f 1/s\n", ledger_rate);
    printf("bench: sqlite_raw_inserts_per_s %.0f 1/s\n", raw_rate);
    printf("bench: ledger_vs_raw_store %.2f ratio\n", ledger_rate / raw_rate);
    printf("bench: ledger_raw_floor_s %.2f s\n", floor_s);
    printf("bench: ledger_vs_raw_floor %.2f ratio\n", floor_s / ledger_s);
    printf("bench: ledger_raw_floor_bytes_per_transfer %.0f B\n", floor_b);
    printf("bench: store_puts_per_s %.0f 1/s\n", (double)n / puts_s);
    printf("bench: ledger_vs_store_puts %.2f ratio\n", ledger_rate / ((double)n / puts_s));
    printf("bench: ledger_bytes_per_transfer %.0f B\n", ledger_b);
    printf("bench: sqlite_raw_bytes_per_insert %.0f B\n", raw_b);
    printf("bench: ledger_verify_transfers_per_s %.0f 1/s\n", (double)n / verify_s);

    static const char *const files[] = { "ledger.db", "ledger.db-wal", "ledger.db-shm", "raw.db", "raw.db-wal",
                                         "raw.db-shm", "puts.db", "puts.db-wal", "puts.db-shm", "floor.db",
                                         "floor.db-wal", "floor.db-shm", NULL };
    for (const char *const *f = files; *f; f++) {
        char path[700];
        snprintf(path, sizeof path, "%s/%s", dir, *f);
        unlink(path);
    }
    rmdir(dir);

    const char *etcd = getenv("RIGDECK_BENCH_ETCD");
    if (etcd && strncmp(etcd, "etcd://", 7) == 0)
        violations += bench_ledger_etcd(etcd);
    else
        printf("etcd: skipped (set RIGDECK_BENCH_ETCD=etcd://HOST:PORT; tests/bench/run.sh does)\n");
    return violations ? 1 : 0;
}
