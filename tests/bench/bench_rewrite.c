/* bench_rewrite.c - batched puts through the SQLite store against raw SQLite.
 *
 * The write shape of a scheduling pass or a billing run: BENCH_REWRITE_N
 * (default 100,000) keys of about 450 bytes (a job document's size) written
 * in transactions of BENCH_REWRITE_BATCH (default 512) puts, three times
 * over: created, rewritten once (each key's first update), rewritten again
 * (its second).  Beside each phase, the same rows written raw with the
 * store's pragmas into a plain (key, value) table: INSERT, then UPDATE,
 * then UPDATE.  The store keeps every superseded value as history until
 * compaction (etcd's contract); the raw table keeps nothing, so the ratio
 * is what history and revisions cost on top of the write itself.  Beside
 * the rates, the bytes each put made the process write (wchar of
 * /proc/self/io: WAL frames and checkpoints), which unlike time does not
 * depend on what else the machine is doing.  Each phase ends with a
 * checkpoint of its file's WAL, inside its time and bytes, so that a phase
 * pays for the pages it dirtied and not for the phase before: without it
 * the second rewrite seemed to write 400 B a put more than the first,
 * which were the first rewrite's pages checkpointed while the second ran.
 *
 * The guarded variant writes the same phases into a second store with each
 * put preceded, in its txn, by a mod_revision compare on its key against
 * the revision it was last written at, as a scheduling pass guards every
 * document it rewrites (its create, guarded by "missing", only records
 * those revisions and is not reported).  Its ratio is against the same
 * phase's raw figure.
 * Prints a report, then `bench: <name> <value> <unit>` lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "bench_util.h"
#include "store.h"
#include "store_sqlite_int.h"
#include "tx.h"

enum { DOC_MAX = 600, PHASES = 3 };

static const char *const phase_names[PHASES] = { "create", "rewrite1", "rewrite2" };

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "bench_rewrite: %s: %s\n", what, msg ? msg : "failed");
    exit(1);
}

static int key_of(char *buf, long i)
{
    return snprintf(buf, RD_KEY_MAX, "/rigdeck/jobs/job-%08ld", i);
}

/* A job-like document; the phase changes its state and a few fields. */
static int doc_of(char *buf, long i, int phase)
{
    static const char *const states[PHASES] = { "queued", "starting", "running" };
    return snprintf(buf, DOC_MAX,
                    "{\"id\":\"job-%08ld\",\"owner\":\"bench\",\"project\":\"default\",\"state\":\"%s\","
                    "\"submitted_at\":\"2026-11-01T00:00:00Z\",\"spec\":{\"image\":\"pytorch:2.4\",\"gpus\":%ld,"
                    "\"gpu_type\":\"a100\",\"max_price_ucr\":null,\"command\":[\"python\",\"train.py\"]},"
                    "\"priority\":0,\"workers\":[{\"index\":0,\"state\":\"%s\",\"node\":%s%s%s,\"gpus\":[%ld],"
                    "\"started_at\":%s}],\"phase\":%d}",
                    i, states[phase], 1 + i % 4, states[phase], phase ? "\"n" : "", phase ? "0001" : "null",
                    phase ? "\"" : "", i % 8, phase == 2 ? "\"2026-11-01T00:01:00Z\"" : "null", phase);
}

static void sql(sqlite3 *db, const char *s);

/* Copies the WAL of the file at path into the database and empties it
 * (the store's connection is idle between its transactions). */
static void checkpoint(const char *path)
{
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK)
        die("sqlite3_open", path);
    sql(db, "PRAGMA wal_checkpoint(TRUNCATE)");
    sqlite3_close(db);
}

/* revs (NULL: unguarded) holds the revision each batch was last written
 * at (0: not yet); every put is guarded by it, and it is moved on.  Ends
 * with a checkpoint of the store's file at path. */
static double layer_phase(store_t *st, const char *path, long n, long batch, int phase, int64_t *revs)
{
    store_op *ops = calloc((size_t)batch, sizeof *ops);
    store_cmp *cmps = calloc((size_t)batch, sizeof *cmps);
    char (*keys)[RD_KEY_MAX] = calloc((size_t)batch, RD_KEY_MAX);
    char (*docs)[DOC_MAX] = calloc((size_t)batch, DOC_MAX);
    if (!ops || !cmps || !keys || !docs)
        die("calloc", NULL);
    double t0 = now_s();
    for (long k = 0, b = 0; k < n; b++) {
        long m = 0;
        for (; m < batch && k < n; m++, k++) {
            key_of(keys[m], k);
            int len = doc_of(docs[m], k, phase);
            ops[m] = (store_op){ STORE_OP_PUT, keys[m], docs[m], (size_t)len, 0 };
            if (revs)
                cmps[m] = (store_cmp){ keys[m], STORE_CMP_MOD_REVISION, STORE_CMP_EQUAL, revs[b], NULL, 0 };
        }
        store_txn_result res;
        rd_err err;
        if (store_txn(st, cmps, revs ? (size_t)m : 0, ops, (size_t)m, NULL, 0, &res, &err) != RD_OK)
            die("store_txn", err.msg);
        if (!res.succeeded)
            die("store_txn", "a guard failed");
        if (revs)
            revs[b] = res.revision;
    }
    checkpoint(path);
    double secs = now_s() - t0;
    free(ops);
    free(cmps);
    free(keys);
    free(docs);
    return secs;
}

static void sql(sqlite3 *db, const char *s)
{
    char *msg = NULL;
    if (sqlite3_exec(db, s, NULL, NULL, &msg) != SQLITE_OK)
        die(s, msg);
}

static double raw_phase(sqlite3 *db, long n, long batch, int phase)
{
    sqlite3_stmt *q;
    const char *text = phase ? "UPDATE kv SET value = ?2 WHERE key = ?1" : "INSERT INTO kv (key, value) VALUES (?1, ?2)";
    if (sqlite3_prepare_v2(db, text, -1, &q, NULL) != SQLITE_OK)
        die("prepare", sqlite3_errmsg(db));
    double t0 = now_s();
    for (long k = 0; k < n;) {
        sql(db, "BEGIN IMMEDIATE");
        for (long m = 0; m < batch && k < n; m++, k++) {
            char key[RD_KEY_MAX], doc[DOC_MAX];
            int klen = key_of(key, k), len = doc_of(doc, k, phase);
            sqlite3_bind_blob(q, 1, key, klen, SQLITE_TRANSIENT);
            sqlite3_bind_blob(q, 2, doc, len, SQLITE_TRANSIENT);
            if (sqlite3_step(q) != SQLITE_DONE)
                die("step", sqlite3_errmsg(db));
            sqlite3_reset(q);
        }
        sql(db, "COMMIT");
    }
    sql(db, "PRAGMA wal_checkpoint(TRUNCATE)");
    double secs = now_s() - t0;
    sqlite3_finalize(q);
    return secs;
}

int main(void)
{
    long n = env_long("BENCH_REWRITE_N", 100000), batch = env_long("BENCH_REWRITE_BATCH", 512);
    const char *tmp = getenv("TMPDIR");
    char dir[512], url[600], path[600];
    snprintf(dir, sizeof dir, "%s/rdbench-rewrite.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        die("mkdtemp", NULL);

    store_t *st = NULL, *gst = NULL;
    rd_err err;
    char spath[600], gpath[600];
    snprintf(spath, sizeof spath, "%s/store.db", dir);
    snprintf(gpath, sizeof gpath, "%s/guarded.db", dir);
    snprintf(url, sizeof url, "sqlite:%s/store.db", dir);
    if (store_open(url, NULL, &st, &err) != RD_OK)
        die("store_open", err.msg);
    snprintf(url, sizeof url, "sqlite:%s/guarded.db", dir);
    if (store_open(url, NULL, &gst, &err) != RD_OK)
        die("store_open", err.msg);
    int64_t *revs = calloc((size_t)((n + batch - 1) / batch), sizeof *revs);
    if (!revs)
        die("calloc", NULL);
    sqlite3 *db;
    snprintf(path, sizeof path, "%s/raw.db", dir);
    if (sqlite3_open(path, &db) != SQLITE_OK)
        die("sqlite3_open", NULL);
    sql(db, RD_SQLITE_PRAGMAS "CREATE TABLE kv (key BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;");

    printf("bench_rewrite: %ld keys of ~450 bytes, transactions of %ld puts, each phase through the store then raw\n", n,
           batch);
    for (int p = 0; p < PHASES; p++) {
        long long w0 = wchar_now();
        double layer = layer_phase(st, spath, n, batch, p, NULL);
        long long w1 = wchar_now();
        double raw = raw_phase(db, n, batch, p);
        long long w2 = wchar_now();
        double lr = n / layer, rr = n / raw, lb = (double)(w1 - w0) / n, rb = (double)(w2 - w1) / n;
        printf("  %-9s store %8.0f puts/s (%5.1f us, %5.0f B written each)   raw %8.0f rows/s (%5.1f us, %5.0f B)"
               "   ratio %.2f\n", phase_names[p], lr, 1e6 * layer / n, lb, rr, 1e6 * raw / n, rb, lr / rr);
        printf("bench: rewrite_%s_store_bytes_per_put %.0f B\n", phase_names[p], lb);
        printf("bench: rewrite_%s_raw_bytes_per_row %.0f B\n", phase_names[p], rb);
        printf("bench: rewrite_%s_store_puts_per_s %.0f 1/s\n", phase_names[p], lr);
        printf("bench: rewrite_%s_raw_rows_per_s %.0f 1/s\n", phase_names[p], rr);
        printf("bench: rewrite_%s_vs_raw %.2f ratio\n", phase_names[p], lr / rr);
        /* The create writes revs[] (each batch's revision) for the guards. */
        long long g0 = wchar_now();
        double guarded = layer_phase(gst, gpath, n, batch, p, revs);
        if (p == 0)
            continue;
        double gr = n / guarded, gb = (double)(wchar_now() - g0) / n;
        printf("  %-9s guarded %6.0f puts/s (%5.1f us, %5.0f B written each)   ratio %.2f to raw\n", phase_names[p],
               gr, 1e6 * guarded / n, gb, gr / rr);
        printf("bench: rewrite_%s_guarded_bytes_per_put %.0f B\n", phase_names[p], gb);
        printf("bench: rewrite_%s_guarded_puts_per_s %.0f 1/s\n", phase_names[p], gr);
        printf("bench: rewrite_%s_guarded_vs_raw %.2f ratio\n", phase_names[p], gr / rr);
    }
    free(revs);
    sqlite3_close(db);
    store_close(gst);
    store_close(st);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_rewrite: could not remove %s\n", dir);
    return 0;
}
