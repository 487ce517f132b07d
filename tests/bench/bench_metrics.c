/* bench_metrics.c - what the vital stats history costs the store: how it
 * grows per node per day, and how many writes a 10,000-node fleet makes.
 *
 * Both parts drive the agent's side of core/metrics (metrics_agg_*) with
 * synthetic sample_stats objects on a simulated clock (10 s samples), as
 * the agent's loop does: add a sample; when metrics_agg_due, stage, commit,
 * metrics_agg_written.
 *
 * growth   BENCH_METRICS_NODES (default 2) nodes of BENCH_METRICS_GPUS (8)
 *          GPUs, "busy" readings, on a temporary SQLite store: days 1-3 at
 *          10 s samples; then the clock runs on to day 90 at one sample an
 *          hour (every hour and day slot gets written, cheaply), then days
 *          91-93 at 10 s samples again (48 h of minutes full again by day 92, so
 *          day 93 shows the steady state).  The store's compaction policy runs
 *          every simulated hour on the simulated clock with the history a
 *          fleet of 170+ nodes keeps (the last hour: 10,000 revisions are
 *          less than an hour there).  At the end of each simulated day:
 *          metrics documents per node, their live bytes (keys + values) per
 *          node, and the SQLite file per node (the db, which holds the live
 *          values and the history kept, and its WAL, apart).  Aims: documents
 *          capped at 1 + 288 + 90; live bytes flat once the 48 h of minutes
 *          are full except one day document a day, flat after 90 days.
 * writes   BENCH_METRICS_SIM_NODES (default 300) nodes per profile for one
 *          simulated hour (after a 10-minute warm-up), no store: the
 *          commits metrics_agg_due asks for, per node per minute, scaled to
 *          10,000 nodes.  Profiles: steady (an idle node: readings jitter
 *          inside the dead bands), busy (a training job: GPU util ~97 %
 *          with eval dips every 5 min, power following it, network bursts,
 *          checkpoint writes every 30 min) and bursty (an inference server:
 *          GPU util anywhere 0-100 % from one sample to the next).  Aim: at
 *          most 1 write per node per minute.
 * BENCH_METRICS_NO_GROWTH=1 runs the writes part alone (the growth part
 * takes a few minutes).  Prints a report, then `bench: <name> <value>
 * <unit>` lines.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "keyspace.h"
#include "metrics.h"
#include "store.h"
#include "tx.h"

enum { SAMPLE_S = 10, DAY_S = 86400, HOUR_S = 3600, MAX_FIGS = 32, LAST_DAY = 93 };

typedef enum { STEADY, BUSY, BURSTY } profile;
static const char *const profile_names[] = { "steady", "busy", "bursty" };

static struct {
    char name[64];
    double value;
    const char *unit;
    int decimals;
} g_figs[MAX_FIGS];
static int g_nfigs;

static void fig(const char *name, double value, const char *unit, int decimals)
{
    if (g_nfigs < MAX_FIGS) {
        snprintf(g_figs[g_nfigs].name, sizeof g_figs[g_nfigs].name, "%s", name);
        g_figs[g_nfigs].value = value;
        g_figs[g_nfigs].unit = unit;
        g_figs[g_nfigs].decimals = decimals;
        g_nfigs++;
    }
}

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "bench_metrics: %s: %s\n", what, msg ? msg : strerror(errno));
    exit(1);
}

/* ---- synthetic readings ---------------------------------------------------- */

/* One node's generator: a xorshift stream (reproducible) and the slow
 * state of its readings. */
typedef struct {
    uint64_t rng;
    profile p;
    double temp[16], disk_gb;
} node_gen;

static double uniform(node_gen *g, double lo, double hi)
{
    g->rng ^= g->rng << 13;
    g->rng ^= g->rng >> 7;
    g->rng ^= g->rng << 17;
    return lo + (hi - lo) * (double)(g->rng >> 11) / 9007199254740992.0;
}

static double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Rounded as sample_stats rounds: 0.1, the *_gb ones 0.01. */
static double r1(double v)
{
    return round(v * 10.0) / 10.0;
}
static double r2(double v)
{
    return round(v * 100.0) / 100.0;
}

/* A sample_stats object for node g at simulated time t. */
static json_t *gen_stats(node_gen *g, int ngpus, rd_time t)
{
    double cpu, mem, rd, wr, rx, tx;
    int eval_dip = t % 300 < 30;            /* busy: a 30 s eval every 5 minutes */
    int checkpoint = t % 1800 < 60;         /* busy: a 1-minute checkpoint every 30 minutes */
    switch (g->p) {
    case STEADY:
        cpu = uniform(g, 1, 5), mem = uniform(g, 40.1, 40.3), rd = uniform(g, 0, 2e6), wr = uniform(g, 0, 2e6);
        rx = uniform(g, 0, 1e6), tx = uniform(g, 0, 1e6);
        g->disk_gb += 0.0001;
        break;
    case BUSY:
        cpu = uniform(g, 28, 42), mem = uniform(g, 180, 181), rd = uniform(g, 20e6, 140e6);
        wr = checkpoint ? uniform(g, 1.2e9, 1.6e9) : uniform(g, 0, 40e6);
        rx = uniform(g, 100e6, 700e6), tx = uniform(g, 100e6, 700e6);
        g->disk_gb += checkpoint ? 8.0 : 0.001;
        break;
    default:
        cpu = uniform(g, 5, 60), mem = uniform(g, 62, 62.6), rd = uniform(g, 0, 30e6), wr = uniform(g, 0, 10e6);
        rx = uniform(g, 0, 200e6), tx = uniform(g, 0, 200e6);
        g->disk_gb += 0.0001;
        break;
    }
    json_t *gpus = json_array();
    for (int i = 0; i < ngpus; i++) {
        double util, power;
        if (g->p == STEADY)
            util = 0, power = uniform(g, 58, 66);
        else if (g->p == BUSY)
            util = eval_dip ? uniform(g, 0, 20) : uniform(g, 94, 100), power = 60 + util * 3.2 + uniform(g, -15, 15);
        else
            util = uniform(g, 0, 100), power = 60 + util * 2.8 + uniform(g, -15, 15);
        double target = 34 + util * 0.4;
        g->temp[i] = clamp(g->temp[i] + (target - g->temp[i]) * 0.05 + uniform(g, -0.7, 0.7), 25, 95);
        json_array_append_new(gpus, json_pack("{s:i, s:f, s:f, s:i, s:f, s:i}", "index", i, "gpu_util", r1(util),
                                              "gpu_mem_used_gb",
                                              r2(g->p == STEADY ? 0 : g->p == BUSY ? uniform(g, 36.2, 36.3) : uniform(g, 21, 22)),
                                              "gpu_temp_c", (int)lround(g->temp[i]), "gpu_power_w", r1(power),
                                              "gpu_ecc_errors", 0));
    }
    return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:o}", "cpu_util", r1(cpu), "mem_used_gb", r2(mem),
                     "disk_used_gb", r2(g->disk_gb), "disk_read_bps", r1(rd), "disk_write_bps", r1(wr), "net_rx_bps",
                     r1(rx), "net_tx_bps", r1(tx), "gpus", gpus);
}

static void gen_init(node_gen *g, profile p, unsigned seed)
{
    memset(g, 0, sizeof *g);
    g->rng = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)seed * 0x2545F4914F6CDD1DULL);
    g->p = p;
    g->disk_gb = 812.5;
    for (int i = 0; i < 16; i++)
        g->temp[i] = 36;
}

/* ---- growth ---------------------------------------------------------------- */

typedef struct {
    store_t *st;
    char path[512];
    long nodes, gpus;
    node_gen *gen;
    metrics_agg **agg;
    long commits, measured_commits;
    int measure_bytes;       /* day 1: what each commit wrote, from the history */
    double bytes_written;
} growth;

static int scan_add(store_kv *kv, void *data)
{
    double *acc = data;
    acc[0] += 1;
    acc[1] += (double)(strlen(kv->key) + kv->value_len);
    return 0;
}

/* Metrics documents and their live bytes (keys + values), all nodes. */
static void live_size(growth *gr, double *docs, double *bytes)
{
    double acc[2] = { 0, 0 };
    int64_t rev = 0;   /* 0: the current revision */
    rd_err err = { 0 };
    if (store_scan(gr->st, KEY_METRICS, &rev, scan_add, acc, &err) != RD_OK)
        die("scan", err.msg);
    *docs = acc[0];
    *bytes = acc[1];
}

/* The size of path+sfx (0 when missing). */
static double file_size(const char *path, const char *sfx)
{
    char p[600];
    struct stat sb;
    snprintf(p, sizeof p, "%s%s", path, sfx);
    return stat(p, &sb) == 0 ? (double)sb.st_size : 0;
}

/* What one commit wrote: the values of its revision's events. */
static double revision_bytes(store_t *st, int64_t rev)
{
    store_event *ev = NULL;
    size_t n = 0;
    int more = 0;
    double b = 0;
    rd_err err = { 0 };
    if (store_history(st, rev - 1, rev, 16, 5000, &ev, &n, &more, &err) != RD_OK)
        return 0;
    for (size_t i = 0; i < n; i++)
        b += (double)(strlen(ev[i].kv.key) + ev[i].kv.value_len);
    store_events_free(ev, n);
    return b;
}

/* One sample of every node at t; commits what is due, as the agent does. */
static void growth_step(growth *gr, rd_time t)
{
    rd_err err = { 0 };
    rd_tx *tx = tx_new(gr->st);
    for (long i = 0; i < gr->nodes; i++) {
        json_t *stats = gen_stats(&gr->gen[i], (int)gr->gpus, t);
        metrics_agg_add(gr->agg[i], stats, t);
        json_decref(stats);
        if (!metrics_agg_due(gr->agg[i]))
            continue;
        int64_t rev = 0;
        tx_reset(tx);
        if (metrics_agg_stage(gr->agg[i], tx, &err) != RD_OK || tx_commit(tx, &rev, &err) != RD_OK)
            die("commit", err.msg);
        metrics_agg_written(gr->agg[i]);
        gr->commits++;
        if (gr->measure_bytes) {
            gr->bytes_written += revision_bytes(gr->st, rev);
            gr->measured_commits++;
        }
    }
    tx_free(tx);
    if (t % HOUR_S == 0) {
        /* the policy a fleet of 170+ nodes lives under: the last hour of history */
        store_retention keep_hour = { 1, HOUR_S, 0 };
        store_compact_report rep;
        if (store_compact_run(gr->st, &keep_hour, t, &rep, &err) != RD_OK && err.code != RD_ECONFLICT)
            die("compact", err.msg);
    }
}

typedef struct {
    double docs, live, db, wal;
} day_size;

static void bench_growth(void)
{
    growth gr;
    memset(&gr, 0, sizeof gr);
    gr.nodes = env_long("BENCH_METRICS_NODES", 2);
    gr.gpus = env_long("BENCH_METRICS_GPUS", 8);
    if (gr.gpus > 16)
        gr.gpus = 16;
    const char *tmp = getenv("TMPDIR");
    char dir[400], url[600];
    snprintf(dir, sizeof dir, "%s/bench_metrics.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        die("mkdtemp", NULL);
    snprintf(gr.path, sizeof gr.path, "%s/store.db", dir);
    snprintf(url, sizeof url, "sqlite:%s", gr.path);
    rd_err err = { 0 };
    if (store_open(url, NULL, &gr.st, &err) != RD_OK)
        die(url, err.msg);
    gr.gen = calloc((size_t)gr.nodes, sizeof *gr.gen);
    gr.agg = calloc((size_t)gr.nodes, sizeof *gr.agg);
    for (long i = 0; i < gr.nodes; i++) {
        char name[32];
        snprintf(name, sizeof name, "gpu-%03ld", i);
        gen_init(&gr.gen[i], BUSY, (unsigned)i + 1);
        gr.agg[i] = metrics_agg_new(name);
    }
    printf("bench_metrics growth: %ld nodes x %ld GPUs, busy readings every %d s; days 1-3 and 91-93 sampled, "
           "4-90 at one sample an hour; history kept: the last hour\n",
           gr.nodes, gr.gpus, SAMPLE_S);
    printf("  %5s %10s %14s %14s %14s %8s\n", "day", "docs/node", "live B/node", "db B/node", "wal B/node", "s");
    const rd_time t0 = 1767225600;   /* 2026-01-01T00:00:00Z, a day boundary */
    day_size days[LAST_DAY + 1];
    memset(days, 0, sizeof days);
    double t_start = now_s();
    for (int day = 1; day <= LAST_DAY; day++) {
        int dense = day <= 3 || day > 90;
        double t_day = now_s();
        gr.measure_bytes = day == 1;
        for (rd_time t = t0 + (rd_time)(day - 1) * DAY_S; t < t0 + (rd_time)day * DAY_S; t += dense ? SAMPLE_S : HOUR_S)
            growth_step(&gr, t);
        live_size(&gr, &days[day].docs, &days[day].live);
        days[day].db = file_size(gr.path, "");
        days[day].wal = file_size(gr.path, "-wal");
        if (dense || day % 15 == 0 || day == 90)
            printf("  %5d %10.0f %14.0f %14.0f %14.0f %8.1f\n", day, days[day].docs / (double)gr.nodes,
                   days[day].live / (double)gr.nodes, days[day].db / (double)gr.nodes,
                   days[day].wal / (double)gr.nodes, now_s() - t_day);
    }
    double n = (double)gr.nodes;
    double per_write = gr.measured_commits ? gr.bytes_written / (double)gr.measured_commits : 0;
    printf("  %.1f s in all; %ld commits, %.0f bytes written per commit on day 1\n", now_s() - t_start, gr.commits,
           per_write);
    fig("metrics_docs_per_node_day3", days[3].docs / n, "docs", 0);
    fig("metrics_docs_per_node_day93", days[93].docs / n, "docs", 0);
    fig("metrics_live_bytes_per_node_day3", days[3].live / n, "B", 0);
    fig("metrics_live_bytes_per_node_day93", days[93].live / n, "B", 0);
    fig("metrics_growth_per_node_day_day3", (days[3].live - days[2].live) / n, "B/day", 0);
    fig("metrics_growth_per_node_day_day93", (days[93].live - days[92].live) / n, "B/day", 0);
    fig("metrics_db_bytes_per_node_day93", days[93].db / n, "B", 0);
    fig("metrics_db_growth_per_node_day_day93", (days[93].db - days[92].db) / n, "B/day", 0);
    fig("metrics_wal_bytes_per_node_day93", days[93].wal / n, "B", 0);
    fig("metrics_bytes_per_write", per_write, "B", 0);
    for (long i = 0; i < gr.nodes; i++)
        metrics_agg_free(gr.agg[i]);
    free(gr.agg);
    free(gr.gen);
    store_close(gr.st);
    const char *sfx[] = { "", "-wal", "-shm" };
    for (int i = 0; i < 3; i++) {
        char p[700];
        snprintf(p, sizeof p, "%s%s", gr.path, sfx[i]);
        unlink(p);
    }
    rmdir(dir);
}

/* ---- writes ---------------------------------------------------------------- */

/* A number of stats (node stats at top level, GPU stats in gpus[]). */
static const json_t *stat_value(const json_t *stats, const metrics_stat *st, size_t gpu)
{
    return st->per_gpu ? json_object_get(json_array_get(json_object_get(stats, "gpus"), gpu), st->name)
                       : json_object_get(stats, st->name);
}

/* Which stats left their dead band since the last write (as metrics_agg
 * judges it, on the values before rounding to hundredths): trig[i] += 1
 * for each stat i that did; returns how many did. */
static int count_triggers(const json_t *written, const json_t *now, long gpus, long *trig)
{
    int n = 0;
    for (size_t i = 0; i < metrics_stat_count(); i++) {
        const metrics_stat *st = metrics_stat_at(i);
        int moved = 0;
        for (size_t g = 0; g < (st->per_gpu ? (size_t)gpus : 1); g++) {
            double d = fabs(json_number_value(stat_value(now, st, g)) - json_number_value(stat_value(written, st, g)));
            moved = moved || (st->dead_band > 0 ? d > st->dead_band : d != 0);
        }
        trig[i] += moved;
        n += moved;
    }
    return n;
}

/* Commits metrics_agg_due asks for per node per minute over one simulated
 * hour, for nodes nodes of profile p; trig[i] counts the writes stat i
 * pushed ahead of the minute, *minute_only those that only closed a minute. */
static double writes_per_node_min(profile p, long nodes, long gpus, long *trig, long *minute_only)
{
    const rd_time t0 = 1767225600 + 7 * HOUR_S, warm = 600, span = HOUR_S;
    long writes = 0;
    for (long i = 0; i < nodes; i++) {
        node_gen g;
        char name[32];
        snprintf(name, sizeof name, "n%ld", i);
        gen_init(&g, p, (unsigned)(i * 7919 + p));
        metrics_agg *m = metrics_agg_new(name);
        json_t *written = NULL;
        /* agents start at any phase of the minute */
        rd_time start = t0 + (rd_time)(i % 6) * 10 + (rd_time)(i % 59);
        for (rd_time t = start; t < start + warm + span; t += SAMPLE_S) {
            json_t *stats = gen_stats(&g, (int)gpus, t);
            metrics_agg_add(m, stats, t);
            if (metrics_agg_due(m)) {
                metrics_agg_written(m);   /* as after a commit; the store is not what is measured */
                if (t >= start + warm) {
                    writes++;
                    *minute_only += written && count_triggers(written, stats, gpus, trig) == 0;
                }
                json_decref(written);
                written = json_incref(stats);
            }
            json_decref(stats);
        }
        json_decref(written);
        metrics_agg_free(m);
    }
    return (double)writes / (double)nodes / ((double)span / 60.0);
}

static void bench_writes(void)
{
    long nodes = env_long("BENCH_METRICS_SIM_NODES", 300), gpus = env_long("BENCH_METRICS_GPUS", 8);
    if (gpus > 16)
        gpus = 16;
    printf("bench_metrics writes: %ld simulated nodes x %ld GPUs per profile, samples every %d s, one hour after "
           "a 10-minute warm-up; scaled to 10,000 nodes\n",
           nodes, gpus, SAMPLE_S);
    printf("  %-8s %16s %14s %8s  %s\n", "profile", "writes/node/min", "writes/s @10k", "sim s",
           "share of writes: only a minute closed / stats out of their dead band");
    for (profile p = STEADY; p <= BURSTY; p++) {
        long trig[64] = { 0 }, minute_only = 0;
        double t = now_s();
        double w = writes_per_node_min(p, nodes, gpus, trig, &minute_only);
        double all = w * (double)nodes * 60.0;
        printf("  %-8s %16.2f %14.0f %8.1f  minute %.0f%%", profile_names[p], w, w * 10000.0 / 60.0, now_s() - t,
               100.0 * (double)minute_only / all);
        for (size_t i = 0; i < metrics_stat_count() && i < 64; i++)
            if (trig[i] * 20 >= (long)all)   /* those behind 5 % of the writes or more */
                printf(", %s %.0f%%", metrics_stat_at(i)->name, 100.0 * (double)trig[i] / all);
        printf("\n");
        char name[64];
        snprintf(name, sizeof name, "metrics_writes_per_node_min_%s", profile_names[p]);
        fig(name, w, "1/min", 2);
        snprintf(name, sizeof name, "metrics_writes_per_s_10k_%s", profile_names[p]);
        fig(name, w * 10000.0 / 60.0, "1/s", 0);
    }
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    bench_writes();
    if (!getenv("BENCH_METRICS_NO_GROWTH")) bench_growth();
    for (int i = 0; i < g_nfigs; i++)
        printf("bench: %s %.*f %s\n", g_figs[i].name, g_figs[i].decimals, g_figs[i].value, g_figs[i].unit);
    return 0;
}
