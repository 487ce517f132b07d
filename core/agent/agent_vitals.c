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
 * and only `node health clear` makes the GPU usable again.  A failing
 * nvidia-smi tells nothing about single GPUs: it is logged, not judged.
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
    char detail[160];
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

/* The GPUs that fail a rule in this reading. */
static size_t find_faults(agent_state *a, const sample_counters *cur, gpu_fault *out)
{
    unsigned char seen[AGENT_GPU_MAX] = { 0 };
    size_t n = 0;
    if (!cur->gpu_present || cur->gpu_error[0])
        return 0;
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
    for (int k = 0; k < AGENT_GPU_MAX; k++)
        if (a->health.known[k] && !seen[k]) {
            out[n].index = k;
            out[n].reason = "missing";
            snprintf(out[n].detail, sizeof out[n].detail, "nvidia-smi no longer lists it");
            n++;
        }
    return n;
}

static int any_reported(const agent_state *a)
{
    for (int k = 0; k < AGENT_GPU_MAX; k++)
        if (a->health.reported[k])
            return 1;
    return 0;
}

/* The GPUs the store lists unhealthy, as flags; RD_OK or the read's error. */
static rd_code store_unhealthy(agent_state *a, unsigned char *flags, rd_err *err)
{
    char key[RD_KEY_MAX];
    json_t *node = NULL;
    rd_tx *tx = tx_new(a->ctx.store);
    if (!tx)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    rd_code rc = tx_get(tx, tx_key(key, KEY_NODES "%s", a->o->node), &node, err);
    tx_free(tx);
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(node, "gpu_health"), i, e) {
        int64_t k = doc_int(e, "index");
        if (k >= 0 && k < AGENT_GPU_MAX)
            flags[k] = 1;
    }
    json_decref(node);
    return rc;
}

static void judge_gpus(agent_state *a, const sample_counters *cur)
{
    gpu_fault faults[2 * AGENT_GPU_MAX];
    unsigned char listed[AGENT_GPU_MAX] = { 0 };
    rd_err err = { 0 };
    size_t n = find_faults(a, cur, faults);
    if (n == 0 && !any_reported(a))
        return;
    if (store_unhealthy(a, listed, &err) != RD_OK)
        return;   /* the store is away: judge again next sample */
    int cleared = 0;
    for (int k = 0; k < AGENT_GPU_MAX; k++)
        if (a->health.reported[k] && !listed[k]) {
            /* an operator trusts it again: a new ECC baseline from now on */
            a->health.reported[k] = 0;
            a->health.ecc_base[k] = -1;
            cleared = 1;
            dlog(&a->o->log, "health", NULL, "GPU %d was cleared; watching it again", k);
        }
    if (cleared)
        n = find_faults(a, cur, faults);
    for (size_t i = 0; i < n; i++) {
        gpu_fault *f = &faults[i];
        if (listed[f->index]) {
            a->health.reported[f->index] = 1;
            continue;
        }
        char line[1024];
        json_t *result = NULL;
        json_t *words = json_pack("[s, s, s, s, i, s, s, s, s]", "node", "health", "report", a->o->node, f->index,
                                  "--reason", f->reason, "--detail", f->detail);
        rd_code rc = agent_work_line(words, line, sizeof line, &err);
        json_decref(words);
        if (rc == RD_OK)
            rc = agent_work_exec(a, line, &result, &err);
        json_decref(result);
        if (rc == RD_OK) {
            a->health.reported[f->index] = 1;
            dlog(&a->o->log, "health", NULL, "GPU %d is unhealthy (%s: %s); it gets no new work until cleared",
                 f->index, f->reason, f->detail);
        } else {
            dlog(&a->o->log, "health", NULL, "cannot report GPU %d unhealthy: %s", f->index, err.msg);
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
