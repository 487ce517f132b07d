/* bench_dash.c - what the console's Dashboard and Fleet map cost on a
 * large fleet.
 *
 * Builds (once per run, in $TMPDIR) a SQLite store of BENCH_DASH_NODES
 * (default 10,000) nodes with four A100s each, through the command
 * language, and writes vital stats in the format of core/metrics/metrics.h
 * through its own writer (metrics_agg, large transactions):
 *   every node          its `now` document (the latest reading, what fleet
 *                       totals read)
 *   BENCH_DASH_HISTORY  nodes (default 200, the first by name: the ones the
 *                       keys below step through) a whole day of it, one
 *                       sample a minute: 144 ten-minute blocks and the day
 *                       of hours each.
 * A day for every node would be 1.4 million documents (about 7 GB); the
 * Dashboard reads only the selected node's documents, so the others' history
 * changes nothing but the depth of the store's index.
 *
 * Then, with the console's own code (no terminal: curses paints into
 * /dev/null at 120x40), figures as the console would see them:
 *   dash_first_frame_ms   '0' pressed with the Nodes table loaded: the pane's
 *                         whole load (fleet totals, firing alerts, the node's
 *                         hour) and the frame (aim: < 100 ms)
 *   dash_key_next_node_ms Down: the next node's hour read and drawn (median)
 *   dash_key_gpu_ms       ]: the next GPU's stats read and drawn (median)
 *   dash_reload_ms        the at-most-once-a-second refresh (median)
 * and of the Fleet map pane (#) on the same fleet, at 200x60:
 *   grid_first_frame_ms   '#' pressed with the Nodes table loaded: the
 *                         pane's load (a cell per node) and the frame
 *                         (aim: < 100 ms)
 *   grid_idle_readings_ms the pane's first quiet moment: every node's
 *                         latest reading read (GPU use, temperature)
 *   grid_colour_ms        c: the next colouring drawn (median; aim: < 20 ms)
 *   grid_colour_gpu_use_ms  c onto GPU use, the first time
 *   grid_key_ms           Right or Down: the cursor moved, the node named,
 *                         the frame drawn (median; aim: < 5 ms)
 *   console_peak_rss_mib  the peak resident memory (VmHWM) of the process
 *                         that measures: the Nodes table, the Dashboard and
 *                         the Fleet map on 10,000 nodes (issue 35: unchanged
 *                         from the console's peak, about 59 MiB).  The store
 *                         is built first and the bench then runs itself
 *                         again (exec) on it, so the build's own memory
 *                         (hundreds of MiB of staged metrics) is not counted
 *   console_rss_mib       the resident memory at the end (VmRSS)
 *   dash_peak_rss_mib     the peak before '#': the Nodes table and the
 *                         Dashboard alone (what the map adds is the difference)
 *   grid_frame_peak_rss_mib  the peak after the map's first frame, before its
 *                         readings are read
 * The measuring process opens the store with the console's 2 MiB SQLite
 * page cache (console.c), so pages read once do not count as they would
 * under SQLite's default.
 * Prints `bench: NAME VALUE UNIT` lines.  BENCH_DASH_KEEP=1 keeps the store.
 */
#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dash.h"
#include "draw.h"
#include "keys.h"
#include "metrics.h"
#include "panes.h"
#include "session.h"
#include "text.h"

#define NOW_TEXT "2026-11-24T12:00:00Z"
enum { KEYS = 40, NOW_BATCH = 500 };

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static long env_long(const char *name, long def)
{
    const char *v = getenv(name);
    long n = v && *v ? strtol(v, NULL, 10) : -1;
    return n >= 0 ? n : def;
}

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "bench_dash: %s: %s\n", what, msg);
    exit(1);
}

static void run(cmd_ctx *ctx, const char *line)
{
    json_t *res = NULL;
    rd_err err;
    if (cmd_exec_line(ctx, line, &res, NULL, &err) != RD_OK)
        die(line, err.msg);
    json_decref(res);
}

/* A reading of node i at minute m: slow waves with a little noise. */
static json_t *sample(long i, long m)
{
    double phase = (double)(i % 97) + (double)m / 30.0;
    json_t *gpus = json_array();
    for (int g = 0; g < 4; g++)
        json_array_append_new(gpus, json_pack("{s:i, s:f, s:f, s:f, s:f, s:i}", "index", g, "gpu_util",
                                              50 + 45 * sin(phase + g), "gpu_mem_used_gb", 20 + 10 * cos(phase),
                                              "gpu_temp_c", 60 + 15 * sin(phase / 2 + g), "gpu_power_w",
                                              250 + 100 * sin(phase + g), "gpu_ecc_errors", 0));
    return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:o}", "cpu_util", 40 + 30 * sin(phase),
                     "mem_used_gb", 200 + 50 * cos(phase), "disk_used_gb", 500.0 + (double)m / 100,
                     "disk_read_bps", 1e8 * (1 + sin(phase * 3)), "disk_write_bps", 5e7 * (1 + cos(phase * 2)),
                     "net_rx_bps", 2e8 * (1 + sin(phase)), "net_tx_bps", 1e8 * (1 + cos(phase)), "gpus", gpus);
}

/* Folds minutes [from, to) of node i (minutes before now) and stages it. */
static void write_metrics(rd_tx *tx, long i, long minutes, rd_time now)
{
    char name[32];
    rd_err err;
    snprintf(name, sizeof name, "n%05ld", i);
    metrics_agg *m = metrics_agg_new(name);
    for (long k = minutes; k >= 0; k--) {
        json_t *s = sample(i, -k);
        metrics_agg_add(m, s, now - k * 60);
        json_decref(s);
    }
    if (metrics_agg_stage(m, tx, &err) != RD_OK)
        die("metrics_agg_stage", err.msg);
    metrics_agg_free(m);
}

static void commit(rd_tx *tx)
{
    rd_err err;
    if (tx_commit(tx, NULL, &err) != RD_OK)
        die("commit", err.msg);
    tx_reset(tx);
}

static void build(cmd_ctx *ctx, long nodes, long history, rd_time now)
{
    char line[512];
    double t0 = now_ms();
    run(ctx, "provider enable physical");
    for (int r = 0; r < 10; r++) {
        snprintf(line, sizeof line, "region create r%d --provider physical --storage local", r);
        run(ctx, line);
    }
    for (long i = 0; i < nodes; i++) {
        snprintf(line, sizeof line, "node add r%ld n%05ld --agent none --minion m%05ld --inventory tests/inventories/a100x4.yaml",
                 i % 10, i, i);
        run(ctx, line);
    }
    double t1 = now_ms();
    rd_tx *tx = tx_new(ctx->store);
    for (long i = history; i < nodes; i++) {
        write_metrics(tx, i, 2, now);
        if ((i + 1) % NOW_BATCH == 0)
            commit(tx);
    }
    commit(tx);
    for (long i = 0; i < history && i < nodes; i++) {
        write_metrics(tx, i, 24 * 60, now);   /* every block and hour of the day in one transaction */
        commit(tx);
    }
    tx_free(tx);
    printf("built %ld nodes in %.1f s, their metrics (a day for %ld) in %.1f s\n", nodes, (t1 - t0) / 1e3, history,
           (now_ms() - t1) / 1e3);
}

/* A "Vm...:  N kB" line of /proc/self/status in MiB; -1 when none. */
static double status_mib(const char *field)
{
    char line[256];
    double mib = -1;
    size_t n = strlen(field);
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, field, n) == 0 && line[n] == ':')
            mib = strtod(line + n + 1, NULL) / 1024.0;
    if (f)
        fclose(f);
    return mib;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_double);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    (void)argc;
    /* set by the first run, which built the store, for the one it execs */
    int built = getenv("BENCH_DASH_BUILT") != NULL;
    long nodes = env_long("BENCH_DASH_NODES", 10000), history = env_long("BENCH_DASH_HISTORY", 200);
    char path[4096], url[4200];
    const char *tmp = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/bench_dash.db", tmp && *tmp ? tmp : "/tmp");
    snprintf(url, sizeof url, "sqlite:%s", path);
    if (!built)
        unlink(path);
    setlocale(LC_ALL, "C.UTF-8");

    static session c;
    static rd_options opt;
    opt.store_url = url;
    opt.actor = "default";
    opt.now_text = NOW_TEXT;
    rd_err err;
    if (rdtime_parse("now", NOW_TEXT, &opt.now, &err) != RD_OK)
        die("now", err.msg);
    c.opt = &opt;
    c.ctx.store_url = url;
    c.ctx.store_opts = &c.sopts;
    if (built)   /* measured as the console reads: its 2 MiB page cache (console.c) */
        c.sopts.cache_kib = 2048;
    c.ctx.actor = "default";
    c.ctx.now = opt.now;
    c.firing = -1;
    if (cmd_ctx_open_store(&c.ctx, &err) != RD_OK)
        die("store", err.msg);
    if (!built) {
        /* Build, then measure in a fresh process: the build's heap stays
         * resident and would count in the memory figures. */
        build(&c.ctx, nodes, history, opt.now);
        cmd_ctx_close(&c.ctx);
        fflush(stdout);
        setenv("BENCH_DASH_BUILT", "1", 1);
        /* argv[0] when it is a path (valgrind follows that), else the
         * running binary */
        execv(strchr(argv[0], '/') ? argv[0] : "/proc/self/exe", argv);
        die("exec", "cannot run itself again on the store built");
    }

    /* Curses paints into /dev/null: the frame's cost without a terminal. */
    setenv("LINES", "40", 1);
    setenv("COLUMNS", "120", 1);
    FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
    SCREEN *scr = newterm("xterm-256color", out, in);
    if (!scr)
        die("newterm", "no terminal description for xterm-256color");
    theme_init_builtin(&c.th);
    theme_apply(&c.th);
    text_set_ascii(0);
    panes_init(&c);
    c.pane = PANE_NODES;

    double t0 = now_ms();
    pane_load(&c, PANE_NODES, 0);
    double nodes_ms = now_ms() - t0;

    /* '0': the Dashboard's first frame. */
    t0 = now_ms();
    keys_dispatch(&c, '0');
    pane_load(&c, PANE_DASHBOARD, 0);
    draw_screen(&c);
    double first = now_ms() - t0;

    double next[KEYS], gpu[KEYS], reload[KEYS];
    for (int k = 0; k < KEYS; k++) {
        t0 = now_ms();
        keys_dispatch(&c, CK_FN(KEY_DOWN));
        draw_screen(&c);
        next[k] = now_ms() - t0;
        t0 = now_ms();
        keys_dispatch(&c, ']');
        draw_screen(&c);
        gpu[k] = now_ms() - t0;
        t0 = now_ms();
        pane_load(&c, PANE_DASHBOARD, 0);
        draw_screen(&c);
        reload[k] = now_ms() - t0;
    }
    int shown = dash_of(&c)->nnode > 0 && dash_of(&c)->node_stats[0].count > 0;

    double dash_peak = status_mib("VmHWM");
    /* The Fleet map at 200x60: every node on one screen. */
    resizeterm(60, 200);
    t0 = now_ms();
    keys_dispatch(&c, '#');
    pane_load(&c, PANE_FLEET, 0);
    draw_screen(&c);
    double grid_first = now_ms() - t0;
    double grid_peak = status_mib("VmHWM");
    /* the first quiet moment on the pane: the nodes' latest readings */
    t0 = now_ms();
    if (pane_get(PANE_FLEET)->idle(&c))
        draw_screen(&c);
    double grid_idle = now_ms() - t0;
    double colour[KEYS], colour_read = 0, gkey[KEYS];   /* colour_read: the first onto GPU use */
    int ncolour = 0;
    for (int k = 0; k < KEYS; k++) {
        /* state -> allocation -> GPU use (reads, the first time) -> temperature -> health -> state */
        t0 = now_ms();
        keys_dispatch(&c, 'c');
        draw_screen(&c);
        double ms = now_ms() - t0;
        if (k == 1)
            colour_read = ms;
        if (ncolour < KEYS)
            colour[ncolour++] = ms;
        t0 = now_ms();
        keys_dispatch(&c, k % 2 ? CK_FN(KEY_DOWN) : CK_FN(KEY_RIGHT));
        draw_screen(&c);
        gkey[k] = now_ms() - t0;
    }
    double peak = status_mib("VmHWM"), rss = status_mib("VmRSS");
    const grid_row *at = grid_current(&c.screens[PANE_FLEET].tables[0].g);
    printf("fleet map: %zu cells, the cursor on %s\n", c.screens[PANE_FLEET].tables[0].g.nview, at ? at->key : "-");
    endwin();
    delscreen(scr);
    fclose(out);
    fclose(in);
    printf("dashboard on %s: %zu node stats, %zu GPU stats, %s samples this hour\n", dash_of(&c)->node, dash_of(&c)->nnode,
           dash_of(&c)->ngpu, shown ? "with" : "WITHOUT");
    printf("bench: dash_nodes %ld count\n", nodes);
    printf("bench: dash_history_nodes %ld count\n", history < nodes ? history : nodes);
    printf("bench: dash_nodes_table_load_ms %.1f ms\n", nodes_ms);
    printf("bench: dash_first_frame_ms %.2f ms\n", first);
    printf("bench: dash_key_next_node_ms %.2f ms\n", median(next, KEYS));
    printf("bench: dash_key_gpu_ms %.2f ms\n", median(gpu, KEYS));
    printf("bench: dash_reload_ms %.2f ms\n", median(reload, KEYS));
    printf("bench: grid_first_frame_ms %.2f ms\n", grid_first);
    printf("bench: grid_colour_ms %.2f ms\n", median(colour, ncolour));
    printf("bench: grid_idle_readings_ms %.2f ms\n", grid_idle);
    printf("bench: grid_colour_gpu_use_ms %.2f ms\n", colour_read);
    printf("bench: grid_key_ms %.2f ms\n", median(gkey, KEYS));
    printf("bench: console_peak_rss_mib %.1f MiB\n", peak);
    printf("bench: console_rss_mib %.1f MiB\n", rss);
    printf("bench: dash_peak_rss_mib %.1f MiB\n", dash_peak);
    printf("bench: grid_frame_peak_rss_mib %.1f MiB\n", grid_peak);
    panes_free(&c);
    cmd_ctx_close(&c.ctx);
    if (getenv("BENCH_DASH_KEEP"))   /* to look at it: rigdeck --store sqlite:PATH --now ... */
        printf("kept %s (its clock: %s)\n", path, NOW_TEXT);
    else
        unlink(path);
    return 0;
}
