/* bench_store.c - what the store layer costs, against the raw backend underneath.
 *
 * On a temporary SQLite store, and on etcd when $RIGDECK_BENCH_ETCD names
 * one (tests/bench/run.sh starts a single member), one client in a loop:
 *   single puts   store_put() of a 100-byte value to a fresh key
 *   small txns    store_txn() of BENCH_STORE_TXN_OPS (default 4) such puts
 * and beside each the raw figure for the same operation done directly:
 *   SQLite  plain INSERT OR REPLACE of (key, value) into a two-column table
 *           with the store's pragmas, one transaction per put / per txn
 *   etcd    libcurl POSTs of the plain JSON (/v3/kv/put, /v3/kv/txn with the
 *           same puts) on one kept-alive connection
 * Layer and raw runs alternate (3 rounds of each; the median counts) so that
 * drift on the machine hits both.  On etcd the layer's figure includes its
 * retry marker (one more key written per txn, see docs/etcd.md), which is
 * part of what our layer costs; the same JSON posted raw gives the client
 * side's share (etcd_*_vs_same_json_raw).
 * Prints a report, then `bench: <name> <value> <unit>` lines.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "bench_util.h"
#include "bench_etcd_raw.h"
#include "store.h"

enum { VALUE_LEN = 100, ROUNDS = 3 };

static long g_ops;          /* operations per measurement */
static long g_txn_ops;      /* puts per small txn */
static double g_max_s;      /* a measurement stops early after this long */
static char g_value[VALUE_LEN + 1];
static unsigned long g_seq;

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "bench_store: %s: %s\n", what, msg ? msg : strerror(errno));
    exit(1);
}

static void next_key(char *buf, size_t cap, const char *tag)
{
    snprintf(buf, cap, "/bench/%s/%ld/%08lu", tag, (long)getpid(), ++g_seq);
}

/* One measurement: calls op(ctx, n) for n = 0.. until g_ops or g_max_s;
 * returns operations per second. */
typedef void (*op_fn)(void *ctx, long n);

static double measure(op_fn op, void *ctx)
{
    double t0 = now_s(), t;
    long n = 0;
    do
        op(ctx, n++);
    while (n < g_ops && (t = now_s()) - t0 < g_max_s);
    return (double)n / (now_s() - t0);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Alternates layer and raw measurements; medians into *layer and *raw. */
static void compare(op_fn layer_op, void *layer_ctx, op_fn raw_op, void *raw_ctx, double *layer, double *raw)
{
    double l[ROUNDS], r[ROUNDS];
    for (int i = 0; i < ROUNDS; i++) {
        l[i] = measure(layer_op, layer_ctx);
        r[i] = measure(raw_op, raw_ctx);
    }
    qsort(l, ROUNDS, sizeof l[0], cmp_double);
    qsort(r, ROUNDS, sizeof r[0], cmp_double);
    *layer = l[ROUNDS / 2];
    *raw = r[ROUNDS / 2];
}

/* ---- through the store layer ------------------------------------------------ */

static void layer_put(void *ctx, long n)
{
    char key[128];
    rd_err e = { 0 };
    (void)n;
    next_key(key, sizeof key, "p");
    if (store_put(ctx, key, g_value, VALUE_LEN, 0, &e) != RD_OK)
        die("store_put", e.msg);
}

static void layer_txn(void *ctx, long n)
{
    char keys[16][128];
    store_op ops[16];
    rd_err e = { 0 };
    store_txn_result res;
    (void)n;
    for (long i = 0; i < g_txn_ops; i++) {
        next_key(keys[i], sizeof keys[i], "t");
        ops[i] = (store_op){ STORE_OP_PUT, keys[i], g_value, VALUE_LEN, 0 };
    }
    if (store_txn(ctx, NULL, 0, ops, (size_t)g_txn_ops, NULL, 0, &res, &e) != RD_OK)
        die("store_txn", e.msg);
}

/* ---- raw SQLite ---------------------------------------------------------------- */

typedef struct {
    sqlite3 *db;
    sqlite3_stmt *ins, *begin, *commit;
    long per_txn;
} raw_sqlite;

static void sq_step(raw_sqlite *r, sqlite3_stmt *s)
{
    if (sqlite3_step(s) != SQLITE_DONE)
        die("sqlite", sqlite3_errmsg(r->db));
    sqlite3_reset(s);
}

static void raw_sqlite_op(void *ctx, long n)
{
    raw_sqlite *r = ctx;
    char key[128];
    (void)n;
    sq_step(r, r->begin);
    for (long i = 0; i < r->per_txn; i++) {
        next_key(key, sizeof key, "r");
        sqlite3_bind_blob(r->ins, 1, key, (int)strlen(key), SQLITE_TRANSIENT);
        sqlite3_bind_blob(r->ins, 2, g_value, VALUE_LEN, SQLITE_STATIC);
        sq_step(r, r->ins);
    }
    sq_step(r, r->commit);
}

static void raw_sqlite_open(raw_sqlite *r, const char *path)
{
    if (sqlite3_open(path, &r->db) != SQLITE_OK ||
        sqlite3_exec(r->db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"
                            "CREATE TABLE kv (key BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;",
                     NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(r->db, "INSERT OR REPLACE INTO kv (key, value) VALUES (?1, ?2)", -1, &r->ins, NULL) ||
        sqlite3_prepare_v2(r->db, "BEGIN IMMEDIATE", -1, &r->begin, NULL) ||
        sqlite3_prepare_v2(r->db, "COMMIT", -1, &r->commit, NULL))
        die("raw sqlite", sqlite3_errmsg(r->db));
}

static void raw_sqlite_close(raw_sqlite *r)
{
    sqlite3_finalize(r->ins);
    sqlite3_finalize(r->begin);
    sqlite3_finalize(r->commit);
    sqlite3_close(r->db);
}

/* ---- raw etcd (bench_etcd_raw.h) -------------------------------------------- */

typedef struct {
    raw_etcd conn;
    long per_txn;       /* 0: /kv/put of one key */
    int marked;         /* the JSON shape our layer sends (guard + marker) */
} raw_etcd_case;

static void raw_etcd_op(void *ctx, long n)
{
    raw_etcd_case *r = ctx;
    char key[128];
    const char *marker = r->marked ? "~bench/marker" : NULL;
    (void)n;
    if (!r->per_txn) {
        next_key(key, sizeof key, "rp");
        raw_etcd_put_body(&r->conn, key, g_value, VALUE_LEN);
    } else {
        raw_etcd_txn_begin(&r->conn, marker);
        for (long i = 0; i < r->per_txn; i++) {
            next_key(key, sizeof key, "rt");
            raw_etcd_txn_put(&r->conn, key, g_value, VALUE_LEN);
        }
        raw_etcd_txn_end(&r->conn, marker);
    }
    const char *msg = raw_etcd_post(&r->conn, r->per_txn ? r->conn.txn_url : r->conn.put_url);
    if (msg)
        die("raw etcd", msg);
}

static void raw_etcd_case_open(raw_etcd_case *r, const char *url, long per_txn, int marked)
{
    if (raw_etcd_open(&r->conn, url) != 0)
        die("raw etcd", "cannot open a connection");
    r->per_txn = per_txn;
    r->marked = marked;
}

/* ---- report -------------------------------------------------------------------- */

typedef struct {
    char name[64];
    double value;
    const char *unit;
} figure;

static figure g_figs[32];
static int g_nfigs;

static void fig(const char *name, double value, const char *unit)
{
    if (g_nfigs < (int)(sizeof g_figs / sizeof g_figs[0])) {
        snprintf(g_figs[g_nfigs].name, sizeof g_figs[0].name, "%s", name);
        g_figs[g_nfigs].value = value;
        g_figs[g_nfigs++].unit = unit;
    }
}

static void bench_backend(const char *label, const char *url, op_fn raw_op, void *raw_put, void *raw_txn)
{
    store_t *st = NULL;
    rd_err e = { 0 };
    double put_l, put_r, txn_l, txn_r;
    char name[64];
    if (store_open(url, NULL, &st, &e) != RD_OK)
        die(url, e.msg);
    compare(layer_put, st, raw_op, raw_put, &put_l, &put_r);
    compare(layer_txn, st, raw_op, raw_txn, &txn_l, &txn_r);
    store_close(st);
    printf("%-7s single puts: %9.0f/s through the store, %9.0f/s raw (%.2f)\n", label, put_l, put_r, put_l / put_r);
    printf("%-7s %ld-put txns: %9.0f/s through the store, %9.0f/s raw (%.2f)\n", label, g_txn_ops, txn_l, txn_r,
           txn_l / txn_r);
    snprintf(name, sizeof name, "%s_put_per_s", label);
    fig(name, put_l, "1/s");
    snprintf(name, sizeof name, "%s_raw_put_per_s", label);
    fig(name, put_r, "1/s");
    snprintf(name, sizeof name, "%s_txn_per_s", label);
    fig(name, txn_l, "1/s");
    snprintf(name, sizeof name, "%s_raw_txn_per_s", label);
    fig(name, txn_r, "1/s");
    snprintf(name, sizeof name, "%s_put_layer_vs_raw", label);
    fig(name, put_l / put_r, "ratio");
    snprintf(name, sizeof name, "%s_txn_layer_vs_raw", label);
    fig(name, txn_l / txn_r, "ratio");
    /* one figure per backend: the mean of the two ratios */
    snprintf(name, sizeof name, "%s_layer_vs_raw", label);
    fig(name, (put_l / put_r + txn_l / txn_r) / 2, "ratio");
}

int main(void)
{
    char dir[] = "/tmp/rdbench.XXXXXX", url[300], raw_path[300];
    g_ops = env_long("BENCH_STORE_N", 2000);
    g_txn_ops = env_long("BENCH_STORE_TXN_OPS", 4);
    g_max_s = (double)env_long("BENCH_STORE_MAX_MS", 3000) / 1000.0;
    if (g_txn_ops > 16)
        g_txn_ops = 16;
    memset(g_value, 'v', VALUE_LEN);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    printf("bench_store: %ld operations (at most %.1f s) per measurement, %d rounds, %d-byte values\n", g_ops,
           g_max_s, ROUNDS, VALUE_LEN);

    if (!mkdtemp(dir))
        die("mkdtemp", NULL);
    snprintf(url, sizeof url, "sqlite:%s/store.db", dir);
    snprintf(raw_path, sizeof raw_path, "%s/raw.db", dir);
    raw_sqlite rs_put = { 0 }, rs_txn;
    raw_sqlite_open(&rs_put, raw_path);
    rs_put.per_txn = 1;
    rs_txn = rs_put;
    rs_txn.per_txn = g_txn_ops;
    bench_backend("sqlite", url, raw_sqlite_op, &rs_put, &rs_txn);
    raw_sqlite_close(&rs_put);
    const char *sfx[] = { "store.db", "store.db-wal", "store.db-shm", "raw.db", "raw.db-wal", "raw.db-shm" };
    for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++) {
        snprintf(raw_path, sizeof raw_path, "%s/%s", dir, sfx[i]);
        unlink(raw_path);
    }
    rmdir(dir);

    const char *etcd = getenv("RIGDECK_BENCH_ETCD");
    if (etcd && !strncmp(etcd, "etcd://", 7)) {
        raw_etcd_case re_put, re_txn, re_mput, re_mtxn;
        raw_etcd_case_open(&re_put, etcd, 0, 0);
        raw_etcd_case_open(&re_txn, etcd, g_txn_ops, 0);
        raw_etcd_case_open(&re_mput, etcd, 1, 1);
        raw_etcd_case_open(&re_mtxn, etcd, g_txn_ops, 1);
        bench_backend("etcd", etcd, raw_etcd_op, &re_put, &re_txn);
        /* the same JSON as the layer sends, raw: what is left is the client's cost */
        double mput = measure(raw_etcd_op, &re_mput), mtxn = measure(raw_etcd_op, &re_mtxn);
        printf("etcd    the layer's own JSON posted raw: %.0f puts/s, %.0f txns/s\n", mput, mtxn);
        fig("etcd_raw_marked_put_per_s", mput, "1/s");
        fig("etcd_raw_marked_txn_per_s", mtxn, "1/s");
        for (int i = 0; i < g_nfigs; i++) {
            if (!strcmp(g_figs[i].name, "etcd_put_per_s"))
                fig("etcd_put_vs_same_json_raw", g_figs[i].value / mput, "ratio");
            if (!strcmp(g_figs[i].name, "etcd_txn_per_s"))
                fig("etcd_txn_vs_same_json_raw", g_figs[i].value / mtxn, "ratio");
        }
        raw_etcd_close(&re_put.conn);
        raw_etcd_close(&re_txn.conn);
        raw_etcd_close(&re_mput.conn);
        raw_etcd_close(&re_mtxn.conn);
    } else {
        printf("etcd: skipped (set RIGDECK_BENCH_ETCD=etcd://HOST:PORT; tests/bench/run.sh does)\n");
    }
    curl_global_cleanup();
    for (int i = 0; i < g_nfigs; i++)
        printf("bench: %s %.*f %s\n", g_figs[i].name, strcmp(g_figs[i].unit, "ratio") ? 0 : 2, g_figs[i].value,
               g_figs[i].unit);
    return 0;
}
