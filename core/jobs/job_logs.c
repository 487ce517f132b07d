/* job_logs.c - `job logs ID [--worker N] [--tail LINES] [--follow]`.
 *
 * A node agent keeps the last 256 KiB of each worker's output (stdout and
 * stderr interleaved) at KEY_LOGS<node>/<job>/<index>, as a header line
 * "rigdeck-log TOTAL" (the output's full size so far) and the tail.  The
 * node comes first so that an agent's etcd role can be limited to its own
 * node's output (docs/security.md); stores written before that keep it at
 * KEY_LOGS<job>/<index>, which is read when the new key is missing.  This
 * command prints it; with --follow it answers with what is new and a
 * `follow` object naming the line to run next (`--after TOTAL`), which the
 * batch runner runs until the worker has ended: the command itself never
 * blocks, so the executor stays one command at a time.  `job logs prune`
 * deletes the output of workers that ended long ago.
 */
#include <stdlib.h>
#include <string.h>

#include "access_view.h"
#include "doc.h"
#include "job.h"
#include "keyspace.h"
#include "num.h"

/* A copy of text[0..len) that is valid UTF-8 (JSON strings must be):
 * NULs and bytes outside a valid sequence become '?'. */
static char *utf8_clean(const char *text, size_t len)
{
    char *out = malloc(len + 1);
    size_t i = 0, o = 0;
    if (!out)
        return NULL;
    while (i < len) {
        unsigned char c = (unsigned char)text[i];
        size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        int ok = n > 0 && i + n <= len && c != 0 && c != 0xc0 && c != 0xc1;
        for (size_t k = 1; ok && k < n; k++)
            ok = ((unsigned char)text[i + k] >> 6) == 2;
        if (!ok) {
            out[o++] = '?';
            i++;
            continue;
        }
        memcpy(out + o, text + i, n);
        o += n;
        i += n;
    }
    out[o] = '\0';
    return out;
}

/* Reads the output of worker w of job (its entry in the job document):
 * KEY_LOGS<node>/<job>/<w>, else the older KEY_LOGS<job>/<w>.  Not through
 * the transaction: output is not a decision's input, and an agent rewrites
 * it every second. */
static rd_code logs_read(cmd_ctx *ctx, const json_t *job, int64_t w, store_kv *kv, int *found, rd_err *err)
{
    char key[RD_KEY_MAX];
    const char *node = doc_str(json_array_get(json_object_get(job, "workers"), (size_t)w), "node");
    *found = 0;
    rd_code rc = RD_OK;
    if (*node)
        rc = store_get(tx_store(ctx->tx), tx_key(key, KEY_LOGS "%s/%s/%lld", node, doc_str(job, "id"), (long long)w),
                       kv, found, NULL, err);
    if (rc == RD_OK && !*found)
        rc = store_get(tx_store(ctx->tx), tx_key(key, KEY_LOGS "%s/%lld", doc_str(job, "id"), (long long)w), kv, found,
                       NULL, err);
    return rc;
}

/* The last `lines` lines of text (all when lines <= 0). */
static const char *last_lines(const char *text, size_t len, int64_t lines)
{
    if (lines <= 0)
        return text;
    size_t i = len;
    if (i > 0 && text[i - 1] == '\n')
        i--;   /* the final newline ends the last line; it does not start one */
    while (i > 0) {
        if (text[i - 1] == '\n' && --lines == 0)
            return text + i;
        i--;
    }
    return text;
}

static rd_code job_logs_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *job = NULL;
    int64_t w = 0, tail = 0, after = -1;
    rd_code rc = job_get_visible(ctx, cmd_arg(a, 0), &job, err);
    if (rc == RD_OK && cmd_opt(a, "worker"))
        rc = num_parse_int("--worker", cmd_opt(a, "worker"), 0,
                           (int64_t)json_array_size(json_object_get(job, "workers")) - 1, &w, err);
    if (rc == RD_OK && cmd_opt(a, "tail"))
        rc = num_parse_int("--tail", cmd_opt(a, "tail"), 1, 1000000, &tail, err);
    if (rc == RD_OK && cmd_opt(a, "after"))
        rc = num_parse_int("--after", cmd_opt(a, "after"), 0, INT64_MAX, &after, err);
    if (rc != RD_OK) {
        json_decref(job);
        return rc;
    }
    const char *state = doc_str(json_array_get(json_object_get(job, "workers"), (size_t)w), "state");
    int ended = job_state_ended(state);
    store_kv kv;
    int found = 0;
    rc = logs_read(ctx, job, w, &kv, &found, err);
    if (rc != RD_OK) {
        json_decref(job);
        return rc;
    }
    const char *text = "";
    size_t len = 0;
    int64_t total = 0;
    if (found && strncmp(kv.value, "rigdeck-log ", 12) == 0 && strchr(kv.value, '\n')) {
        total = strtoll(kv.value + 12, NULL, 10);
        text = strchr(kv.value, '\n') + 1;
        len = kv.value_len - (size_t)(text - kv.value);
    }
    /* what a follower has not seen: the last total - after bytes (the
     * store holds only the tail, so a long gap loses its middle) */
    if (after >= 0) {
        size_t fresh = total > after ? (size_t)(total - after) : 0;
        if (fresh < len) {
            text += len - fresh;
            len = fresh;
        }
    } else if (tail > 0) {
        const char *from = last_lines(text, len, tail);
        len -= (size_t)(from - text);
        text = from;
    }
    char *clean = utf8_clean(text, len);
    if (found)
        store_kv_free(&kv);
    if (!clean) {
        json_decref(job);
        return rd_fail(err, RD_ENOMEM, "out of memory");
    }
    *result = json_pack("{s:s, s:I, s:s, s:I, s:s}", "job", cmd_arg(a, 0), "worker", (json_int_t)w, "state", state,
                        "bytes_total", (json_int_t)total, "text", clean);
    free(clean);
    if (*result && cmd_opt_given(a, "follow")) {
        char next[RD_KEY_MAX];
        snprintf(next, sizeof next, "job logs %s --worker %lld --follow --after %lld", cmd_arg(a, 0), (long long)w,
                 (long long)(total > after ? total : after < 0 ? 0 : after));
        json_object_set_new(*result, "follow", json_pack("{s:s, s:b}", "next", next, "done", ended));
    }
    json_decref(job);
    return *result ? RD_OK : rd_fail(err, RD_ENOMEM, "out of memory");
}

/* ---- retention ------------------------------------------------------------ */

#define JOB_LOGS_KEEP_DEFAULT (7 * 86400)

/* etcd takes at most 128 ops in a txn: a step stages at most this many
 * deletes, plus the job and the step's audit record. */
enum { PRUNE_STEP_DELETES = 100 };

/* 1 when worker w's output is due for deletion: an agent ran it, it ended
 * more than keep seconds ago and has not been pruned. */
static int prune_due(const cmd_ctx *ctx, const json_t *w, int64_t keep)
{
    rd_time ended = 0;
    return job_state_ended(doc_str(w, "state")) && !*doc_str(w, "logs_pruned_at") &&
           json_is_true(json_object_get(w, "run_by_agent")) &&
           rdtime_parse("ended_at", doc_str(w, "ended_at"), &ended, NULL) == RD_OK && ctx->now - ended >= keep;
}

/* Stages the deletion of key if it exists (a worker's output is at the
 * node-keyed place, or in an older store at the job-keyed one, rarely
 * both): only real deletes count against a step. */
static rd_code prune_key(cmd_ctx *ctx, const char *key, size_t *staged, rd_err *err)
{
    store_kv kv;
    int found = 0;
    rd_code rc = store_get(tx_store(ctx->tx), key, &kv, &found, NULL, err);
    if (rc == RD_OK && found) {
        store_kv_free(&kv);
        rc = tx_delete(ctx->tx, key, err);
        (*staged)++;
    }
    return rc;
}

/* Prunes job id's due workers and marks them, one step per at most
 * PRUNE_STEP_DELETES deletes; adds to *pruned (workers) and *touched (1
 * when any). */
static rd_code prune_job(cmd_ctx *ctx, const char *id, int64_t keep, size_t *pruned, size_t *touched, rd_err *err)
{
    char key[RD_KEY_MAX], ts[RDTIME_BUFLEN];
    int more = 1;
    rd_code rc = RD_OK;
    while (rc == RD_OK && more) {
        json_t *job = NULL, *w;
        size_t k, n = 0, staged = 0;
        more = 0;
        rc = job_get(ctx, id, &job, err);
        json_array_foreach(json_object_get(job, "workers"), k, w) {
            if (rc != RD_OK || !prune_due(ctx, w, keep))
                continue;
            if (staged + 2 > PRUNE_STEP_DELETES) {
                more = 1;
                break;
            }
            const char *node = doc_str(w, "node");
            if (*node)
                rc = prune_key(ctx, tx_key(key, KEY_LOGS "%s/%s/%zu", node, id, k), &staged, err);
            if (rc == RD_OK)
                rc = prune_key(ctx, tx_key(key, KEY_LOGS "%s/%zu", id, k), &staged, err);
            json_object_set_new(w, "logs_pruned_at", json_string(rdtime_format(ctx->now, ts)));
            n++;
        }
        if (rc == RD_OK && n) {
            *pruned += n;
            *touched = 1;
            rc = job_put(ctx, job, err);
            job = NULL;
            if (rc == RD_OK)
                rc = cmd_commit_step(ctx, err);
        }
        json_decref(job);
    }
    return rc;
}

/* Deletes the output of workers that ended more than --older-than ago
 * (default 7 days) and marks them (`logs_pruned_at`) so that the next run
 * skips them: a store that runs jobs for years keeps a week of output, not
 * all of it.  One job per step (more for a job of many workers). */
static rd_code job_logs_prune_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    int64_t keep = JOB_LOGS_KEEP_DEFAULT;
    json_t *jobs = NULL, *j;
    size_t i, pruned = 0, jobs_touched = 0;
    rd_code rc = access_view_require_staff(ctx, "job logs prune", err);
    if (rc != RD_OK)
        return rc;
    if (cmd_opt(a, "older-than"))
        rc = rdtime_parse_duration("--older-than", cmd_opt(a, "older-than"), &keep, err);
    if (rc == RD_OK)
        rc = tx_list(ctx->tx, KEY_JOBS, &jobs, err);
    json_array_foreach(jobs, i, j) {
        size_t touched = 0;
        if (rc != RD_OK)
            break;
        rc = prune_job(ctx, doc_str(j, "id"), keep, &pruned, &touched, err);
        jobs_touched += touched;
    }
    json_decref(jobs);
    if (rc == RD_OK)
        *result = json_pack("{s:s, s:I, s:I}", "name", "logs", "workers_pruned", (json_int_t)pruned, "jobs",
                            (json_int_t)jobs_touched);
    return rc;
}

static const cmd_flag job_logs_prune_flags[] = {
    { "older-than", "D", CMD_FLAG_VALUE, "delete the output of workers that ended longer ago (default 7d)" },
    { 0 }
};

static const cmd_flag job_logs_flags[] = {
    { "worker", "N", CMD_FLAG_VALUE, "the worker's index (default 0)" },
    { "tail", "LINES", CMD_FLAG_VALUE, "only the last LINES lines" },
    { "follow", NULL, 0, "keep printing new output until the worker ends" },
    { "after", "BYTES", CMD_FLAG_VALUE, "only output after the first BYTES (what --follow has printed)" },
    { 0 }
};

const cmd_def job_logs_cmd_table[] = {
    { .words = "job logs", .args = "ID", .flags = job_logs_flags, .options = CMD_TEXT_RESULT,
      .help = "a worker's output (the last 256 KiB, stdout and stderr interleaved)", .run = job_logs_cmd },
    { .words = "job logs prune", .args = "", .flags = job_logs_prune_flags, .options = CMD_MUTATES,
      .help = "delete the output of workers that ended long ago (rigdeck serve does this hourly)",
      .run = job_logs_prune_cmd, .access = CMD_ACCESS_STAFF },
    { 0 }
};
