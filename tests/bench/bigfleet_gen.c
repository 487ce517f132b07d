/* bigfleet_gen.c - builds the large fleet the console benchmarks open.
 *
 * usage: bigfleet_gen STORE_URL NODES JOBS INVENTORY_DIR SPECS_DIR
 *
 * Not a benchmark (run.sh runs bench_* only): tests/bench/bench_console.sh
 * and scripts/bigfleet.sh call it once and keep the store it builds.
 *
 * Everything a command can make cheaply is made by commands, through
 * cmd_exec_line() exactly as `rigdeck --batch` would: the provider, ten
 * physical regions, NODES nodes (a100x4, rtx3090x2, a100x4, cpu in turn;
 * every 50th left in maintenance), a deposit, the running jobs (submitted,
 * then placed by a real `sched run`, so the nodes' books hold them) and the
 * queued jobs (submitted after the pass, as if since the last one).  Also
 * by commands: one job of each spec that ends in each way (finished,
 * failed, stopped, canceled).
 *
 * Ending 90,000 jobs one command at a time would take minutes, so the
 * ended jobs (the bulk of any real history) are copies of those real ended
 * documents with their own ids, times and nodes (a node of the same kind
 * and region as the original's, so every field stays consistent), written
 * 2,000 to a transaction as bench_sched.c writes its queue.  What no copy
 * has: the ledger entries and audit records the real ones left; no reader
 * of a job needs them.
 *
 * The mix for JOBS = 100,000: 6% running, 3% queued, the rest ended
 * (80% finished, 9% failed, 7% stopped, 4% canceled).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "tx.h"

enum { COMMIT_EVERY = 2000, NSPECS = 4, NENDS = 4 };

static const char *const specs[NSPECS] = { "a100-1", "a100-2", "rtx-1", "cpu-8" };
/* The queue also holds jobs asking for half a GPU: no node here shares. */
static const char *const queued_specs[NSPECS] = { "a100-1", "a100-2", "rtx-1", "half" };
static const char *const kinds[4] = { "a100x4.yaml", "rtx3090x2.yaml", "a100x4.yaml", "cpu.yaml" };

static void die(const char *what, const rd_err *err)
{
    fprintf(stderr, "bigfleet_gen: %s: %s\n", what, err->msg);
    exit(1);
}

/* Runs one command line; its result (a new reference) or NULL when unwanted. */
static json_t *run(cmd_ctx *ctx, const char *line, int keep)
{
    json_t *res = NULL;
    rd_err err;
    if (cmd_exec_line(ctx, line, &res, NULL, &err) != RD_OK)
        die(line, &err);
    if (keep)
        return res;
    json_decref(res);
    return NULL;
}

static const char *job_id_of(const json_t *job)
{
    return json_string_value(json_object_get(job, "id"));
}

/* Submits spec s and returns the new job's id (owned by ids). */
static const char *submit(cmd_ctx *ctx, const char *dir, const char *spec, json_t *ids)
{
    char line[1024];
    snprintf(line, sizeof line, "job submit %s/%s.yaml", dir, spec);
    json_t *job = run(ctx, line, 1);
    const char *id = job_id_of(job);
    json_object_set_new(ids, id, json_true());
    const char *kept = json_object_iter_key(json_object_iter_at(ids, id));
    json_decref(job);
    return kept;
}

static json_t *get_doc(cmd_ctx *ctx, const char *id)
{
    char key[RD_KEY_MAX];
    json_t *doc = NULL;
    rd_err err;
    rd_tx *tx = tx_new(ctx->store);
    if (tx_get(tx, tx_key(key, "/rigdeck/jobs/%s", id), &doc, &err) != RD_OK || !doc)
        die("reading a template job", &err);
    tx_free(tx);
    return doc;
}

/* The templates: spec s ended way e (0 finished, 1 failed, 2 stopped, 3
 * canceled), all through commands.  templ[s][e] gets the documents. */
static void make_templates(cmd_ctx *ctx, const char *dir, json_t *ids, json_t *templ[NSPECS][NENDS])
{
    const char *placed[NSPECS][3];
    char line[256];
    for (int s = 0; s < NSPECS; s++)
        for (int e = 0; e < 3; e++)
            placed[s][e] = submit(ctx, dir, specs[s], ids);
    run(ctx, "sched run", 0);
    ctx->now += 3600 + 17 * 60;   /* they ran for a while */
    for (int s = 0; s < NSPECS; s++) {
        snprintf(line, sizeof line, "job report %s finished --worker 0 --exit-code 0", placed[s][0]);
        run(ctx, line, 0);
        snprintf(line, sizeof line, "job report %s failed --worker 0 --exit-code 1", placed[s][1]);
        run(ctx, line, 0);
        snprintf(line, sizeof line, "job stop %s", placed[s][2]);
        run(ctx, line, 0);
    }
    /* Canceled: stopped while it still waited.  Every node is taken out of
     * the reckoning by submitting after the pass and stopping at once. */
    const char *waiting[NSPECS];
    for (int s = 0; s < NSPECS; s++)
        waiting[s] = submit(ctx, dir, specs[s], ids);
    for (int s = 0; s < NSPECS; s++) {
        snprintf(line, sizeof line, "job stop %s", waiting[s]);
        run(ctx, line, 0);
    }
    for (int s = 0; s < NSPECS; s++) {
        for (int e = 0; e < 3; e++)
            templ[s][e] = get_doc(ctx, placed[s][e]);
        templ[s][3] = get_doc(ctx, waiting[s]);
    }
}

/* A distinct job id per n: a bijection of 32 bits, skipping real ids. */
static void clone_id(unsigned long n, const json_t *ids, char out[32])
{
    for (unsigned long k = n;; k += 0x80000000UL) {
        unsigned v = (unsigned)(k * 2654435761UL) ^ 0x5bd1e995u;
        snprintf(out, 32, "job-%08x", v);
        if (!json_object_get(ids, out))
            return;
    }
}

static void set_time(json_t *obj, const char *field, rd_time t)
{
    char ts[RDTIME_BUFLEN];
    if (json_is_string(json_object_get(obj, field)))
        json_object_set_new(obj, field, json_string(rdtime_format(t, ts)));
}

/* A copy of template t as job number n: its own id, submitted `ago`
 * seconds before now, run on node j (same kind as the template's node). */
static json_t *clone_job(const json_t *t, const char *id, rd_time submitted, long nodes, unsigned long r)
{
    json_t *job = json_deep_copy(t);
    char ts[RDTIME_BUFLEN], name[32], region[16];
    json_object_set_new(job, "id", json_string(id));
    json_object_set_new(job, "submitted_at", json_string(rdtime_format(submitted, ts)));
    size_t i;
    json_t *w;
    json_array_foreach(json_object_get(job, "workers"), i, w) {
        const char *node = json_string_value(json_object_get(w, "node"));
        rd_time start = submitted + (rd_time)(r % 600), end = start + 60 + (rd_time)(r % 86400);
        if (node && node[0] == 'n') {
            /* The node's kind is its number mod 4 and its region its
             * number mod 10: keep both, so gpu_type and region still hold. */
            long orig = strtol(node + 1, NULL, 10), j = (long)((r / 7) % (unsigned long)(nodes / 20)) * 20 + orig % 20;
            snprintf(name, sizeof name, "n%05ld", j % nodes);
            snprintf(region, sizeof region, "r%ld", (j % nodes) % 10);
            json_object_set_new(w, "node", json_string(name));
            json_object_set_new(w, "region", json_string(region));
        }
        set_time(w, "placed_at", start);
        set_time(w, "started_at", start);
        set_time(w, "ended_at", end);
        set_time(w, "billed_until", end);
    }
    return job;
}

static void commit(rd_tx *tx)
{
    rd_err err;
    if (tx_commit(tx, NULL, &err) != RD_OK)
        die("commit", &err);
    tx_reset(tx);
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: bigfleet_gen STORE_URL NODES JOBS INVENTORY_DIR SPECS_DIR\n");
        return 2;
    }
    long nodes = atol(argv[2]), jobs = atol(argv[3]);
    const char *inv = argv[4], *dir = argv[5];
    if (nodes < 40 || jobs < 100) {
        fprintf(stderr, "bigfleet_gen: at least 40 nodes and 100 jobs\n");
        return 2;
    }
    cmd_ctx ctx = { 0 };
    rd_err err;
    char line[1024];
    ctx.store_url = argv[1];
    ctx.actor = "default";
    ctx.now = (rd_time)time(NULL) - 2 * 3600;   /* the templates' hour and a bit end before now */
    if (cmd_ctx_open_store(&ctx, &err) != RD_OK)
        die("open", &err);

    run(&ctx, "provider enable physical", 0);
    for (int r = 0; r < 10; r++) {
        snprintf(line, sizeof line, "region create r%d --provider physical --storage local", r);
        run(&ctx, line, 0);
    }
    for (long i = 0; i < nodes; i++) {
        snprintf(line, sizeof line, "node add r%ld n%05ld --agent none --minion m%05ld --inventory %s/%s", i % 10, i, i, inv,
                 kinds[i % 4]);
        run(&ctx, line, 0);
    }
    for (long i = 0; i < nodes; i++) {
        if (i % 50 == 0)
            continue;   /* every 50th stays in maintenance */
        snprintf(line, sizeof line, "node maintenance n%05ld off", i);
        run(&ctx, line, 0);
    }
    run(&ctx, "account deposit default 100000000", 0);

    json_t *ids = json_object(), *templ[NSPECS][NENDS];
    make_templates(&ctx, dir, ids, templ);
    ctx.now = (rd_time)time(NULL) - 600;
    long running = jobs * 6 / 100, queued = jobs * 3 / 100;
    for (long i = 0; i < running; i++)
        submit(&ctx, dir, specs[i % NSPECS], ids);
    run(&ctx, "sched run", 0);
    ctx.now += 300;
    for (long i = 0; i < queued; i++)
        submit(&ctx, dir, queued_specs[i % NSPECS], ids);

    /* The history: copies of the ended templates. */
    long ended = jobs - (long)json_object_size(ids);
    rd_time now = (rd_time)time(NULL);
    rd_tx *tx = tx_new(ctx.store);
    for (long n = 0; n < ended; n++) {
        unsigned long r = (unsigned long)n * 2246822519UL + 3266489917UL;
        int pct = (int)(n % 100), e = pct < 80 ? 0 : pct < 89 ? 1 : pct < 96 ? 2 : 3;
        char id[32], key[RD_KEY_MAX];
        clone_id((unsigned long)n, ids, id);
        /* Spread over the last 30 days, the oldest first. */
        rd_time submitted = now - 30 * 86400 + (rd_time)(n * (29 * 86400L) / ended);
        json_t *job = clone_job(templ[n % NSPECS][e], id, submitted, nodes, r >> 8);
        if (tx_put(tx, tx_key(key, "/rigdeck/jobs/%s", id), job, &err) != RD_OK)
            die("put", &err);
        if (n % COMMIT_EVERY == COMMIT_EVERY - 1)
            commit(tx);
    }
    commit(tx);
    tx_free(tx);
    printf("bigfleet_gen: %ld nodes; %ld jobs: %ld running or placed, %ld queued, %ld ended\n", nodes,
           (long)json_object_size(ids) + ended, running, queued, ended + NSPECS * NENDS);
    for (int s = 0; s < NSPECS; s++)
        for (int e = 0; e < NENDS; e++)
            json_decref(templ[s][e]);
    json_decref(ids);
    cmd_ctx_close(&ctx);
    return 0;
}
