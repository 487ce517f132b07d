/* bench_ledger.c - how fast the ledger posts, against what the store allows.
 *
 * Posts BENCH_LEDGER_N transfers (default 1,000,000) through ledger_stage +
 * tx_commit on a temporary SQLite store, BENCH_LEDGER_BATCH per transaction
 * (default 1000): alternately deposits (external -> wallet:X) and usage
 * fees (wallet:X -> platform) over 1000 tenant accounts picked at random
 * with a fixed seed.  Beside it, the raw rate of plain sqlite3 INSERTs of
 * one row per transfer (key, the same JSON document) in the same batch
 * size with the store's pragmas, in the same run on the same machine.
 * Prints a human-readable report, then `bench: <name> <value> <unit>` lines.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "ledger.h"
#include "store.h"
#include "store_sqlite_int.h"
#include "tx.h"

#define ACCOUNTS 1000

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long env_long(const char *name, long def)
{
    const char *v = getenv(name);
    long n = v && *v ? strtol(v, NULL, 10) : 0;
    return n > 0 ? n : def;
}

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

/* Bytes this process has passed to write(2) so far (WAL frames and
 * checkpoints); 0 where /proc is missing.  Unlike time, the machine's
 * load does not move it. */
static long long wchar_now(void)
{
    FILE *f = fopen("/proc/self/io", "r");
    char line[128];
    long long v = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "wchar: %lld", &v) == 1)
            break;
    if (f)
        fclose(f);
    return v;
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

static double bench_ledger(const char *dir, long n, long batch, double *verify_s, long *violations)
{
    char url[600];
    store_t *st = NULL;
    rd_err err;
    snprintf(url, sizeof url, "sqlite:%s/ledger.db", dir);
    if (store_open(url, NULL, &st, &err) != RD_OK)
        die("store_open", &err);
    for (int i = 0; i < ACCOUNTS; i++) {   /* the tenants the wallets belong to */
        char key[RD_KEY_MAX], doc[128];
        int len = snprintf(doc, sizeof doc, "{\"name\":\"acct-%04d\",\"plan\":\"free\",\"admin\":false}", i);
        if (store_put(st, tx_key(key, "/rigdeck/accounts/acct-%04d", i), doc, (size_t)len, 0, &err) != RD_OK)
            die("store_put", &err);
    }
    rd_tx *tx = tx_new(st);
    rd_time base = 1793491200;   /* 2026-11-01T00:00:00Z */
    double t0 = now_s();
    for (long k = 0; k < n;) {
        tx_reset(tx);
        for (long i = 0; i < batch && k < n; i++, k++) {
            char id[LEDGER_ID_MAX], debit[LEDGER_ACCOUNT_MAX], credit[LEDGER_ACCOUNT_MAX];
            ledger_transfer t;
            transfer_at(k, base, id, debit, credit, &t);
            if (ledger_stage(tx, &t, NULL, &err) != RD_OK)
                die("ledger_stage", &err);
        }
        if (tx_commit(tx, NULL, &err) != RD_OK)
            die("tx_commit", &err);
    }
    double secs = now_s() - t0;
    json_t *report = NULL;
    t0 = now_s();
    if (ledger_verify(tx, &report, &err) != RD_OK)
        die("ledger_verify", &err);
    *verify_s = now_s() - t0;
    *violations = (long)json_integer_value(json_object_get(report, "violation_count"));
    if (*violations)
        fprintf(stderr, "bench_ledger: verify found %ld violations, first: %s\n", *violations,
                json_dumps(json_array_get(json_object_get(report, "violations"), 0), 0));
    json_decref(report);
    tx_free(tx);
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
            char id[LEDGER_ID_MAX], debit[LEDGER_ACCOUNT_MAX], credit[LEDGER_ACCOUNT_MAX], key[RD_KEY_MAX], at[RDTIME_BUFLEN];
            char doc[1024];
            ledger_transfer t;
            transfer_at(k, base, id, debit, credit, &t);
            int len = snprintf(doc, sizeof doc,
                               "{\"id\":\"%s\",\"debit\":\"%s\",\"credit\":\"%s\",\"amount_ucr\":%" PRId64 ",\"kind\":\"%s\","
                               "\"at\":\"%s\",\"ref\":\"%s\",\"pending\":false,\"state\":\"posted\"}",
                               t.id, t.debit, t.credit, t.amount_ucr, t.kind, rdtime_format(t.at, at), t.ref);
            tx_key(key, LEDGER_TRANSFERS_PREFIX "%s", id);
            sqlite3_bind_blob(ins, 1, key, (int)strlen(key), SQLITE_TRANSIENT);
            sqlite3_bind_blob(ins, 2, doc, len, SQLITE_TRANSIENT);
            if (sqlite3_step(ins) != SQLITE_DONE)
                die("insert", NULL);
            sqlite3_reset(ins);
        }
        sql(db, "COMMIT");
    }
    double secs = now_s() - t0;
    sqlite3_finalize(ins);
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
            char id[LEDGER_ID_MAX], debit[LEDGER_ACCOUNT_MAX], credit[LEDGER_ACCOUNT_MAX], at[RDTIME_BUFLEN];
            ledger_transfer t;
            transfer_at(k, 1793491200, id, debit, credit, &t);
            int len = snprintf(docs[m], 512,
                               "{\"id\":\"%s\",\"debit\":\"%s\",\"credit\":\"%s\",\"amount_ucr\":%" PRId64 ",\"kind\":\"%s\","
                               "\"at\":\"%s\",\"ref\":\"%s\",\"pending\":false,\"state\":\"posted\"}",
                               t.id, t.debit, t.credit, t.amount_ucr, t.kind, rdtime_format(t.at, at), t.ref);
            tx_key(keys[m], LEDGER_TRANSFERS_PREFIX "%s", id);
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
    double puts_s = bench_store_puts(dir, n, batch);
    long long w2 = wchar_now();
    double ledger_s = bench_ledger(dir, n, batch, &verify_s, &violations);
    long long w3 = wchar_now();   /* verify reads only */
    double raw_b = (double)(w1 - w0) / (double)n, puts_b = (double)(w2 - w1) / (double)n,
           ledger_b = (double)(w3 - w2) / (double)n;
    double ledger_rate = (double)n / ledger_s, raw_rate = (double)n / raw_s;

    printf("ledger: %ld transfers in batches of %ld over %d wallets: %.2f s (%.1f us each)\n", n, batch, ACCOUNTS,
           ledger_s, ledger_s * 1e6 / (double)n);
    printf("raw sqlite3: %ld one-row inserts, same batches: %.2f s (%.1f us each)\n", n, raw_s, raw_s * 1e6 / (double)n);
    printf("store puts: %ld one-key puts (no reads, no guards), same batches: %.2f s (%.1f us each)\n", n, puts_s,
           puts_s * 1e6 / (double)n);
    printf("bytes written per transfer: ledger %.0f, raw %.0f, store puts %.0f\n", ledger_b, raw_b, puts_b);
    printf("ledger verify over %ld transfers: %.2f s, %ld violations\n", n, verify_s, violations);
    printf("bench: ledger_transfers_per_s %.0f 1/s\n", ledger_rate);
    printf("bench: sqlite_raw_inserts_per_s %.0f 1/s\n", raw_rate);
    printf("bench: ledger_vs_raw_store %.2f ratio\n", ledger_rate / raw_rate);
    printf("bench: store_puts_per_s %.0f 1/s\n", (double)n / puts_s);
    printf("bench: ledger_vs_store_puts %.2f ratio\n", ledger_rate / ((double)n / puts_s));
    printf("bench: ledger_bytes_per_transfer %.0f B\n", ledger_b);
    printf("bench: sqlite_raw_bytes_per_insert %.0f B\n", raw_b);
    printf("bench: ledger_verify_transfers_per_s %.0f 1/s\n", (double)n / verify_s);

    static const char *const files[] = { "ledger.db", "ledger.db-wal", "ledger.db-shm", "raw.db", "raw.db-wal",
                                         "raw.db-shm", "puts.db", "puts.db-wal", "puts.db-shm", NULL };
    for (const char *const *f = files; *f; f++) {
        char path[700];
        snprintf(path, sizeof path, "%s/%s", dir, *f);
        unlink(path);
    }
    rmdir(dir);
    return violations ? 1 : 0;
}
