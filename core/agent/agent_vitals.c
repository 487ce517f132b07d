/* agent_vitals.c - what the node agent measures every --sample
 * (spec/operations.md, "Vital stats" and "GPU health").
 *
 * Each sample is read (sample.c), folded into the node's metrics history
 * (metrics_agg: one write a minute, sooner when a reading jumps) and used
 * to judge the GPUs.  A GPU is unhealthy when nvidia-smi no longer lists a
 * GPU it listed before, when its temperature reaches --gpu-temp-max, or
 * when its uncorrected ECC count rises above what it was when the agent
 * first saw it (or when an operator last cleared it).  The agent says so
 * once with `node health report`; the store's word is final from then on,
 * and only `node health clear` makes the GPU usable again.  nvidia-smi
 * failing (spec/execution.md §2) is judged too: over a lost GPU, that GPU
 * (or every one, when it names none) is missing; otherwise, two samples in
 * a row (or from the start), every GPU is unhealthy for reason driver,
 * which the agent takes back itself once nvidia-smi answers again.
 */
#include "agent_vitals.h"

#include <stdio.h>
#include <string.h>

#include "doc.h"
#include "keyspace.h"
#include "metrics.h"

typedef struct {
    int index;
    const char *reason;
    char detail[400];
} gpu_fault;

void agent_vitals_start(agent_state *a)
{
    char key[RD_KEY_MAX];
    json_t *now_doc = NULL, *day_doc = NULL;
    rd_err err = { 0 };
    for (int i = 0; i < AGENT_GPU_MAX; i++)
        a->health.ecc_base[i] = -1;
    a->metrics = metrics_agg_new(a->o->node);
    if (!a->metrics)
        return;
    /* continue the minute and hour a previous agent left open */
    rd_tx *tx = tx_new(a->ctx.store);
    rd_time now = a->o->log.now();
    if (tx && tx_get(tx, tx_key(key, KEY_METRICS "now/%s", a->o->node), &now_doc, &err) == RD_OK)
        tx_get(tx, tx_key(key, KEY_METRICS "hour/%s/%02ld", a->o->node, (long)((now / 86400) % METRICS_DAY_SLOTS)),
               &day_doc, &err);
    metrics_agg_restore(a->metrics, now_doc, day_doc, now);
    json_decref(now_doc);
    json_decref(day_doc);
    tx_free(tx);
}

void agent_vitals_free(agent_state *a)
{
    metrics_agg_free(a->metrics);
    a->metrics = NULL;
    if (a->have_prev)
        sample_counters_free(&a->prev);
    a->have_prev = 0;
}

/* What the store says of the node's GPUs. */
typedef struct {
    unsigned char listed[AGENT_GPU_MAX];   /* unhealthy, any reason */
    unsigned char driver[AGENT_GPU_MAX];   /* unhealthy for reason driver */
    int64_t gpus;                          /* the node's gpu_count */
} store_view;

static void add_fault(gpu_fault *out, size_t *n, int k, const char *reason, const char *fmt, const char *what)
{
    out[*n].index = k;
    out[*n].reason = reason;
    snprintf(out[*n].detail, sizeof out[*n].detail, fmt, what);
    (*n)++;
}

/* The GPUs that fail a rule in this reading (spec/operations.md "GPU
 * health", spec/execution.md §2).  nvidia-smi answered: temperature, ECC,
 * and GPUs it listed before and lists no more (missing).  It failed over a
 * lost GPU (exit 15, "GPU is lost", ...): the GPU it names or no longer
 * lists is missing, and every GPU is when it says which is none.  It failed
 * otherwise: nothing is known of any GPU, so after two such samples in a
 * row (at once while it never answered since the agent started) every GPU
 * of the node is unhealthy for reason driver. */
static size_t find_faults(agent_state *a, const sample_counters *cur, const store_view *sv, gpu_fault *out)
{
    unsigned char seen[AGENT_GPU_MAX] = { 0 };
    size_t n = 0;
    int64_t node_gpus = sv && sv->gpus < AGENT_GPU_MAX ? sv->gpus : sv ? AGENT_GPU_MAX : 0;
    const probe_smi *smi = &cur->smi;
    if (!cur->gpu_present)
        return 0;
    if (!smi->answered && !smi->lost) {
        if (a->health.smi_failures < 2 && a->health.smi_answered)
            return 0;
        for (int k = 0; k < AGENT_GPU_MAX; k++)
            if (a->health.known[k] || k < node_gpus)
                add_fault(out, &n, k, "driver", "%.390s", smi->detail);
        return n;
    }
    for (size_t i = 0; i < cur->ngpus; i++) {
        const probe_gpu *g = &cur->gpus[i];
        if (g->index < 0 || g->index >= AGENT_GPU_MAX)
            continue;
        int k = g->index;
        seen[k] = a->health.known[k] = 1;
        gpu_fault *f = &out[n];
        f->index = k;
        if (g->temp_c >= 0 && g->temp_c >= a->o->gpu_temp_max) {
            f->reason = "temperature";
            snprintf(f->detail, sizeof f->detail, "%d C reached the %d C limit", g->temp_c, a->o->gpu_temp_max);
            n++;
        } else if (g->ecc_errors >= 0 && a->health.ecc_base[k] < 0) {
            a->health.ecc_base[k] = g->ecc_errors;
        } else if (g->ecc_errors > a->health.ecc_base[k]) {
            f->reason = "ecc";
            snprintf(f->detail, sizeof f->detail, "uncorrected ECC errors rose from %lld to %lld",
                     (long long)a->health.ecc_base[k], (long long)g->ecc_errors);
            n++;
        }
    }
    if (smi->answered) {
        for (int k = 0; k < AGENT_GPU_MAX; k++)
            if (a->health.known[k] && !seen[k])
                add_fault(out, &n, k, "missing", "%s", "nvidia-smi no longer lists it");
        return n;
    }
    /* lost: those it names, else those it stopped listing, else all */
    size_t before = n;
    int any_known = 0;
    for (int k = 0; k < AGENT_GPU_MAX; k++)
        any_known |= a->health.known[k];
    for (int k = 0; k < AGENT_GPU_MAX; k++)
        if (smi->lost_index[k] || (!seen[k] && (any_known ? a->health.known[k] : k < node_gpus)))
            add_fault(out, &n, k, "missing", "%.390s", smi->detail);
    if (n == before)
        for (int k = 0; k < AGENT_GPU_MAX; k++)
            if (a->health.known[k] || k < node_gpus)
                add_fault(out, &n, k, "missing", "%.390s", smi->detail);
    return n;
}

static int any_reported(const agent_state *a)
{
    for (int k = 0; k < AGENT_GPU_MAX; k++)
        if (a->health.reported[k])
            return 1;
    return 0;
}

/* The node's GPUs as the store lists them; RD_OK or the read's error. */
static rd_code store_read(agent_state *a, store_view *sv, rd_err *err)
{
    char key[RD_KEY_MAX];
    json_t *node = NULL;
    rd_tx *tx = tx_new(a->ctx.store);
    memset(sv, 0, sizeof *sv);
    if (!tx)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    rd_code rc = tx_get(tx, tx_key(key, KEY_NODES "%s", a->o->node), &node, err);
    tx_free(tx);
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(node, "gpu_health"), i, e) {
        int64_t k = doc_int(e, "index");
        if (k >= 0 && k < AGENT_GPU_MAX) {
            sv->listed[k] = 1;
            sv->driver[k] = strcmp(doc_str(e, "reason"), "driver") == 0;
        }
    }
    sv->gpus = strcmp(doc_str(node, "gpu_type"), "cpu") == 0 ? 0 : doc_int(node, "gpu_count");
    json_decref(node);
    return rc;
}

/* Sends one `node health report`; 1 when the store took it. */
static int health_send(agent_state *a, int k, const char *reason, const char *detail, int recovered)
{
    char line[1024];
    json_t *result = NULL;
    rd_err err = { 0 };
    json_t *words = json_pack("[s, s, s, s, i, s, s, s, s]", "node", "health", "report", a->o->node, k, "--reason",
                              reason, "--detail", detail);
    if (words && recovered)
        json_array_append_new(words, json_string("--recovered"));
    rd_code rc = agent_work_line(words, line, sizeof line, &err);
    json_decref(words);
    if (rc == RD_OK)
        rc = agent_work_exec(a, line, &result, &err);
    json_decref(result);
    if (rc != RD_OK)
        dlog(&a->o->log, "health", NULL, "cannot report GPU %d %s: %s", k, recovered ? "recovered" : "unhealthy",
             err.msg);
    return rc == RD_OK;
}

static void judge_gpus(agent_state *a, const sample_counters *cur)
{
    gpu_fault faults[2 * AGENT_GPU_MAX];
    store_view sv;
    rd_err err = { 0 };
    const probe_smi *smi = &cur->smi;
    int trouble = cur->gpu_present && !smi->answered;

    if (smi->answered || smi->lost || !cur->gpu_present) {
        a->health.smi_failures = 0;
        a->health.smi_answered |= smi->answered;
    } else {
        a->health.smi_failures++;
    }
    /* the store is read only when there may be news for it */
    size_t n = trouble ? 0 : find_faults(a, cur, NULL, faults);
    if (n == 0 && !any_reported(a) && !trouble)
        return;
    if (store_read(a, &sv, &err) != RD_OK)
        return;   /* the store is away: judge again next sample */
    /* nvidia-smi answers: what only the driver's failure made unhealthy
     * is healthy again, by the agent's own word */
    if (smi->answered)
        for (int k = 0; k < AGENT_GPU_MAX; k++)
            if (sv.driver[k] && health_send(a, k, "driver", "nvidia-smi answers again", 1)) {
                sv.listed[k] = sv.driver[k] = 0;
                a->health.reported[k] = 0;
                dlog(&a->o->log, "health", NULL, "GPU %d is healthy again: nvidia-smi answers", k);
            }
    int cleared = 0;
    for (int k = 0; k < AGENT_GPU_MAX; k++)
        if (a->health.reported[k] && !sv.listed[k]) {
            /* an operator trusts it again: a new ECC baseline from now on */
            a->health.reported[k] = 0;
            a->health.ecc_base[k] = -1;
            cleared = 1;
            dlog(&a->o->log, "health", NULL, "GPU %d was cleared; watching it again", k);
        }
    if (cleared || trouble)
        n = find_faults(a, cur, &sv, faults);
    for (size_t i = 0; i < n; i++) {
        gpu_fault *f = &faults[i];
        if (sv.listed[f->index]) {
            a->health.reported[f->index] = 1;
            continue;
        }
        if (health_send(a, f->index, f->reason, f->detail, 0)) {
            a->health.reported[f->index] = 1;
            sv.listed[f->index] = 1;
            dlog(&a->o->log, "health", NULL, "GPU %d is unhealthy (%s: %s); it gets no new work until %s", f->index,
                 f->reason, f->detail, strcmp(f->reason, "driver") == 0 ? "nvidia-smi answers again" : "cleared");
        }
    }
}

/* Writes the history when the aggregation asks. */
static void write_metrics(agent_state *a)
{
    rd_err err = { 0 };
    if (!metrics_agg_due(a->metrics))
        return;
    rd_tx *tx = tx_new(a->ctx.store);
    rd_code rc = tx ? metrics_agg_stage(a->metrics, tx, &err) : rd_fail(&err, RD_ENOMEM, "out of memory");
    if (rc == RD_OK)
        rc = tx_commit(tx, NULL, &err);
    tx_free(tx);
    if (rc == RD_OK) {
        metrics_agg_written(a->metrics);
        if (a->metrics_failed)
            dlog(&a->o->log, "metrics", NULL, "vital stats reach the store again");
        a->metrics_failed = 0;
    } else if (!a->metrics_failed) {
        dlog(&a->o->log, "metrics", NULL, "cannot write the vital stats: %s (kept; trying every sample)", err.msg);
        a->metrics_failed = 1;
    }
}

void agent_vitals_sample(agent_state *a, int64_t now_ms)
{
    sample_counters cur;
    rd_err err = { 0 };
    if (a->sampled_ms && now_ms - a->sampled_ms < a->o->sample_ms)
        return;
    a->sampled_ms = now_ms;
    if (sample_read(NULL, a->o->work_dir, a->o->nvidia_smi, now_ms, &cur, &err) != RD_OK) {
        if (!a->sample_failed)
            dlog(&a->o->log, "sample", NULL, "cannot read the vital stats: %s", err.msg);
        a->sample_failed = 1;
        sample_counters_free(&cur);
        return;
    }
    a->sample_failed = 0;
    if (cur.gpu_error[0] && !a->gpu_error_said)
        dlog(&a->o->log, "sample", NULL, "GPU readings unavailable: %s", cur.gpu_error);
    a->gpu_error_said = cur.gpu_error[0] != '\0';
    /* the first reading has no rates yet, but its gauges show at once */
    json_t *stats = sample_stats(a->have_prev ? &a->prev : NULL, &cur);
    if (stats)
        metrics_http_publish(a->prom, stats, a->o->log.now());
    judge_gpus(a, &cur);
    if (a->have_prev)
        sample_counters_free(&a->prev);
    a->prev = cur;
    a->have_prev = 1;
    if (stats && a->metrics) {
        metrics_agg_add(a->metrics, stats, a->o->log.now());
        write_metrics(a);
    }
    json_decref(stats);
}
