/* job_cmd.c - the `job` commands: submit, list, show, stop, report.
 *
 * Submission normalises the spec (jobspec.c), resolves the project and its
 * regional pin and stores one waiting worker per spec worker.  Stopping
 * ends running workers in steps (each with its last charges); a report is
 * what an on-node agent sends when a worker ends.  `job why` is
 * sched/job_why.c's; the pass that places workers is sched_run.c's.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "access.h"
#include "account.h"
#include "data.h"
#include "doc.h"
#include "docpick.h"
#include "environment.h"
#include "fleet.h"
#include "job.h"
#include "job_connect.h"
#include "job_output.h"
#include "job_transfer.h"
#include "job_env.h"
#include "node.h"
#include "node_agent.h"
#include "jobspec.h"
#include "keyspace.h"
#include "names.h"
#include "num.h"
#include "tx_pick.h"

/* ---- submit ------------------------------------------------------------ */

/* The region a regional resource pins the job to; both resources, when
 * given, must be in the same region and belong to the project's owner. */
static rd_code job_region_pin(cmd_ctx *ctx, json_t *job, rd_err *err)
{
    static const char *const kinds[] = { "datastore", "reservation" };
    const json_t *regional = json_object_get(job, "regional");
    const char *pin = NULL;
    char key[RD_KEY_MAX], pin_buf[128];
    for (size_t k = 0; k < 2; k++) {
        const char *name = json_string_value(json_object_get(regional, kinds[k]));
        json_t *res = NULL;
        if (!name)
            continue;
        rd_code rc = tx_get(ctx->tx, tx_key(key, KEY_ROOT "%ss/%s", kinds[k], name), &res, err);
        if (rc != RD_OK)
            return rc;
        if (!res)
            return rd_fail(err, RD_EINVAL, "regional.%s: %s '%s' does not exist", kinds[k], kinds[k], name);
        /* a resource of neither the project's owner nor one the actor may
         * see is answered as missing, word for word */
        int foreign = strcmp(doc_str(res, "owner"), doc_str(job, "project_owner")) != 0;
        if (foreign && !access_actor_sees_fleet_of(ctx, doc_str(res, "owner")))
            rc = rd_fail(err, RD_EINVAL, "regional.%s: %s '%s' does not exist", kinds[k], kinds[k], name);
        else if (foreign)
            rc = rd_fail(err, RD_EPERM, "regional.%s: %s '%s' belongs to account '%s', not to the project owner '%s'",
                         kinds[k], kinds[k], name, doc_str(res, "owner"), doc_str(job, "project_owner"));
        else if (pin && strcmp(pin, doc_str(res, "region")) != 0)
            rc = rd_fail(err, RD_EINVAL, "regional: datastore and reservation are in different regions ('%s' and '%s'); a job runs in one",
                         pin, doc_str(res, "region"));
        snprintf(pin_buf, sizeof pin_buf, "%s", doc_str(res, "region"));
        pin = pin_buf;
        /* what its workers listen on (agent_serve.c) and publish
         * (agent_mdns.c), copied:
         * a node's agent may not read the reservations */
        if (rc == RD_OK && k == 1 &&
            json_object_set_new(job, "reservation",
                                json_pack("{s:s, s:s, s:O}", "name", name, "hostname", doc_str(res, "hostname"),
                                          "port", json_object_get(res, "port"))) != 0)
            rc = rd_fail(err, RD_ENOMEM, "out of memory");
        json_decref(res);
        if (rc != RD_OK)
            return rc;
    }
    if (pin)
        json_object_set_new(job, "region_pin", json_string(pin));
    return RD_OK;
}

static json_t *worker_new(size_t index, int64_t gpus_x100)
{
    return json_pack("{s:I, s:s, s:n, s:n, s:o, s:n, s:n, s:n, s:[], s:n, s:n}", "index", (json_int_t)index, "state",
                     "waiting_gpus", "node", "gpu_type", "gpus",
                     gpus_x100 % 100 == 0 ? json_integer(gpus_x100 / 100) : json_real((double)gpus_x100 / 100.0),
                     "price_ucr", "started_at", "ended_at", "alloc", "region", "billed_until");
}

static rd_code job_submit_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    char *text = NULL, ts[RDTIME_BUFLEN], id[32];
    size_t len = 0;
    json_t *job = NULL, *project = NULL;
    int64_t priority = 0;
    uint32_t nonce = 0;
    rd_code rc = cmd_file_read(ctx, "job submit", cmd_arg(a, 0), FLEET_FILE_MAX, &text, &len, err);
    if (rc == RD_OK)
        rc = jobspec_parse(text, len, cmd_arg(a, 0), &job, err);
    free(text);
    if (rc == RD_OK && cmd_opt(a, "priority"))
        rc = num_parse_int("--priority", cmd_opt(a, "priority"), -1000, 1000, &priority, err);
    const char *pref = cmd_opt(a, "project");
    if (rc == RD_OK && !pref)
        pref = json_string_value(json_object_get(job, "project"));
    if (rc == RD_OK)
        rc = account_project_resolve(ctx, pref ? pref : "default", &project, err);
    if (rc == RD_OK) {
        if (getrandom(&nonce, sizeof nonce, 0) != (ssize_t)sizeof nonce)
            nonce = (uint32_t)rand();
        snprintf(id, sizeof id, "job-%08x", nonce);
        json_object_set_new(job, "id", json_string(id));
        json_object_set_new(job, "project", json_string(doc_str(project, "name")));
        json_object_set_new(job, "project_owner", json_string(doc_str(project, "owner")));
        json_object_set_new(job, "creator", json_string(ctx->actor));
        json_object_set_new(job, "priority", json_integer(priority));
        json_object_set_new(job, "submitted_at", json_string(rdtime_format(ctx->now, ts)));
        json_object_set_new(job, "reason", json_null());
        rc = job_region_pin(ctx, job, err);
    }
    if (rc == RD_OK)
        rc = environment_resolve(ctx, job, err);   /* the image it runs: environment.base */
    if (rc == RD_OK)
        rc = dataobj_job_resolve(ctx, job, err);   /* every dataset, checkpoint, model and key name */
    if (rc == RD_OK)
        rc = job_env_seal(ctx, job, err);   /* the document never holds a value in plain text */
    if (rc == RD_OK) {
        json_t *existing = NULL;
        rc = job_get(ctx, id, &existing, NULL);
        json_decref(existing);
        rc = rc == RD_ENOTFOUND ? RD_OK : rd_fail(err, RD_ECONFLICT, "job id %s collided; try again", id);
    }
    if (rc == RD_OK) {
        int64_t count = json_integer_value(json_object_get(json_object_get(job, "workers"), "count"));
        int64_t gpus = json_integer_value(json_object_get(json_object_get(job, "resources"), "gpus_x100"));
        json_t *workers = json_array();
        for (int64_t i = 0; i < (count > 0 ? count : 1); i++)
            json_array_append_new(workers, worker_new((size_t)i, gpus));
        json_object_set_new(job, "workers_spec", json_incref(json_object_get(job, "workers")));
        json_object_set_new(job, "workers", workers);
        job_update_state(job);
        *result = json_incref(job);
        rc = job_put(ctx, job, err);
        job = NULL;
    }
    json_decref(project);
    json_decref(job);
    return rc;
}

/* Running workers ended per commit.  Each ends with a node write and its
 * last charges (a few transfers and account documents), so a step stays well
 * inside etcd's 128-op txn however many workers the job has. */
#define JOB_STOP_STEP 4

/* Stops a job in steps of JOB_STOP_STEP running workers.  Waiting workers are
 * canceled in the first step; until the last step commits the job is
 * `stopping` (stop_requested_at set), and a crash leaves it so: `job stop`
 * again finishes what is left, since every charge is posted under an id. */
static rd_code job_stop_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *reason = cmd_opt(a, "reason") ? cmd_opt(a, "reason") : "stopped_by_user";
    char ts[RDTIME_BUFLEN];
    rd_code rc = RD_OK;
    for (int step = 0; rc == RD_OK; step++) {
        json_t *job = NULL, *w;
        size_t i, ended = 0;
        int more = 0;
        /* a job the actor may not see is answered exactly as `job show` answers it */
        rc = job_get_visible(ctx, cmd_arg(a, 0), &job, err);
        if (rc == RD_OK)
            rc = job_require_actor(ctx, job, "job stop", err);
        if (rc == RD_OK && step == 0 && job_state_ended(doc_str(job, "state")))
            rc = rd_fail(err, RD_EINVAL, "job stop: job '%s' has ended already (%s)", cmd_arg(a, 0),
                         doc_str(job, "state"));
        /* This step's workers: their unbilled whole hours first, in steps
         * of their own, so that ending them here stays a small commit. */
        size_t todo[JOB_STOP_STEP], n = 0;
        json_array_foreach(json_object_get(job, "workers"), i, w) {
            if (rc == RD_OK && strcmp(doc_str(w, "state"), "running") == 0 && !job_worker_run_by_agent(w) &&
                n < JOB_STOP_STEP)
                todo[n++] = i;
        }
        if (rc == RD_OK && n)
            rc = job_bill_hours(ctx, job, todo, n, ctx->now, err);
        json_array_foreach(json_object_get(job, "workers"), i, w) {
            if (rc != RD_OK)
                break;
            if (strcmp(doc_str(w, "state"), "running") == 0 && !job_worker_run_by_agent(w)) {
                if (ended == JOB_STOP_STEP) {
                    more = 1;
                    continue;
                }
                ended++;
            }
            rc = job_stop_worker(ctx, job, i, err);
        }
        if (rc == RD_OK) {
            json_object_set_new(job, "reason", json_string(reason));
            if (!*doc_str(job, "stop_requested_at"))
                json_object_set_new(job, "stop_requested_at", json_string(rdtime_format(ctx->now, ts)));
            job_update_state(job);
            if (!more)
                *result = json_incref(job);
            rc = job_put(ctx, job, err);
            job = NULL;
        }
        json_decref(job);
        if (rc != RD_OK || !more)
            break;
        rc = cmd_commit_step(ctx, err);
    }
    return rc;
}

/* Who may report on a worker: whoever may act on the job (job.c), fleet
 * staff, and the owner of the node it was placed on (its agent runs as
 * that account).  On an agent-managed node (agent_mode required) the
 * customer may not: only a manual node's work ends by the customer's word. */
static rd_code job_require_reporter(cmd_ctx *ctx, const json_t *job, size_t w, rd_err *err)
{
    json_t *node = NULL;
    const char *name = doc_str(json_array_get(json_object_get(job, "workers"), w), "node");
    if (access_actor_is_staff(ctx))
        return RD_OK;
    int found = *name && node_get_any(ctx, name, &node, NULL) == RD_OK;
    int owner = found && fleet_require_node_owner(ctx, node, "job report", NULL) == RD_OK;
    int agent = found && node_agent_required(node);
    json_decref(node);
    if (owner)
        return RD_OK;
    int customer = job_require_actor(ctx, job, "job report", NULL) == RD_OK;
    /* On a node an agent runs, the word on a worker is the agent's: a
     * customer who could report its own worker ended (at any moment since
     * its start) would be given back hours its process went on using. */
    if (customer && agent)
        return rd_fail(err, RD_EPERM, "job report: worker %zu of job '%s' is on node %s, which an agent runs: only that "
                       "agent (the node's owner) or fleet staff report on it; use job stop", w, doc_str(job, "id"), name);
    if (customer)
        return RD_OK;
    return rd_fail(err, RD_EPERM, "job report: account '%s' may report only on its own jobs and on workers placed on "
                   "its own nodes", ctx->actor);
}

/* How far two machines' clocks may disagree (seconds): a moment a node
 * reports (its agent's clock) outside what the books allow by at most
 * this much is taken as the nearest moment allowed; farther out it is
 * refused. */
#define JOB_CLOCK_SKEW_S 60

/* RD_EINVAL when an end reported at `at` is before worker w's start by
 * more than the clocks may disagree. */
static rd_code report_check_end(const json_t *job, int64_t w, rd_time at, rd_err *err)
{
    const json_t *worker = json_array_get(json_object_get(job, "workers"), (size_t)w);
    rd_time started;
    char a[RDTIME_BUFLEN], b[RDTIME_BUFLEN];
    if (!json_is_string(json_object_get(worker, "started_at")) ||
        rdtime_parse("started_at", doc_str(worker, "started_at"), &started, NULL) != RD_OK || at >= started - JOB_CLOCK_SKEW_S)
        return RD_OK;
    return rd_fail(err, RD_EINVAL, "--at %s is before worker %lld's start %s: a worker cannot end before it started",
                   rdtime_format(at, a), (long long)w, rdtime_format(started, b));
}

/* The fence of an agent's report: `--node N` names the node it speaks
 * for, and the worker must be placed there now.  A worker requeued while
 * its agent was taken for lost may run elsewhere; a late word from the old
 * node must neither start nor end it. */
static rd_code job_report_fence(const cmd_args *a, const json_t *worker, int64_t w, rd_err *err)
{
    const char *node = cmd_opt(a, "node"), *placed = doc_str(worker, "node");
    if (!node || strcmp(node, placed) == 0)
        return RD_OK;
    return rd_fail(err, RD_EINVAL, "job report: worker %lld of job '%s' is placed on %s%s, not %s", (long long)w,
                   cmd_arg(a, 0), *placed ? "node " : "no node", placed, node);
}

/* `job report ID staging [--bytes N]`: a `starting` worker's data is being
 * fetched before its command (agent_stage.c): worker "phase" "staging"
 * and "bytes_done".  Nothing is billed; the agent says it at most every
 * few seconds. */
static rd_code job_report_staging(const cmd_args *a, json_t *job, int64_t w, rd_err *err)
{
    json_t *worker = json_array_get(json_object_get(job, "workers"), (size_t)w);
    int64_t bytes = 0;
    if (strcmp(doc_str(worker, "state"), "starting") != 0)
        return rd_fail(err, RD_EINVAL, "job report: worker %lld of job '%s' is %s, not starting; only a starting "
                       "worker stages its data", (long long)w, doc_str(job, "id"), doc_str(worker, "state"));
    rd_code rc = cmd_opt(a, "bytes") ? num_parse_int("--bytes", cmd_opt(a, "bytes"), 0, INT64_MAX, &bytes, err) : RD_OK;
    if (rc != RD_OK)
        return rc;
    json_object_set_new(worker, "phase", json_string("staging"));
    job_transfer_record(a, worker);   /* waiting for job send, or no longer */
    if (cmd_opt(a, "bytes"))
        json_object_set_new(worker, "bytes_done", json_integer((json_int_t)bytes));
    return RD_OK;
}

/* `job report ID requeued --reason R`: the agent gives a `starting` worker
 * back because its node cannot start it (disk_full); the node leaves
 * service with that reason.  Only the node's side may say so (its owner,
 * i.e. its agent, or fleet staff): the job's creator may not take a node
 * out. */
static rd_code job_report_requeued(cmd_ctx *ctx, const cmd_args *a, json_t *job, int64_t w, rd_err *err)
{
    static const char *const reasons[] = { "disk_full", NULL };
    const json_t *worker = json_array_get(json_object_get(job, "workers"), (size_t)w);
    const char *reason = cmd_opt(a, "reason");
    json_t *node = NULL;
    int known = 0;
    for (const char *const *r = reasons; reason && *r; r++)
        known |= strcmp(reason, *r) == 0;
    if (!known)
        return rd_fail(err, RD_EINVAL, "job report: requeued needs --reason disk_full (why the node cannot start it), "
                       "got '%s'", reason ? reason : "");
    if (strcmp(doc_str(worker, "state"), "starting") != 0)
        return rd_fail(err, RD_EINVAL, "job report: worker %lld of job '%s' is %s, not starting; it cannot be requeued",
                       (long long)w, cmd_arg(a, 0), doc_str(worker, "state"));
    int node_side = access_actor_is_staff(ctx) ||
                    (node_get_any(ctx, doc_str(worker, "node"), &node, NULL) == RD_OK &&
                     fleet_require_node_owner(ctx, node, "job report", NULL) == RD_OK);
    json_decref(node);
    if (!node_side)
        return rd_fail(err, RD_EPERM, "job report: only the agent of node %s (its owner) or fleet staff may give a "
                       "worker back", doc_str(worker, "node"));
    return job_give_back_worker(ctx, job, (size_t)w, reason, cmd_opt(a, "detail"), err);
}

/* What an agent sends: `running` when the worker's process started,
 * finished/failed/stopped when it ended (with its exit code or signal and
 * the moment, --at).  A start that failed is `failed` from `starting`;
 * one its node could not make is `requeued`. */
static rd_code job_report_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *job = NULL, *worker = NULL;
    int64_t w = 0, code = 0, sig = 0;
    rd_time at = ctx->now;
    const char *to = cmd_arg(a, 1);
    char ts[RDTIME_BUFLEN];
    rd_code rc = job_get(ctx, cmd_arg(a, 0), &job, err);
    if (rc == RD_OK)
        rc = num_parse_int("--worker", cmd_opt(a, "worker"), 0,
                           (int64_t)json_array_size(json_object_get(job, "workers")) - 1, &w, err);
    if (rc == RD_OK)
        rc = job_require_reporter(ctx, job, (size_t)w, err);
    if (rc == RD_OK && cmd_opt(a, "exit-code"))
        rc = num_parse_int("--exit-code", cmd_opt(a, "exit-code"), 0, 255, &code, err);
    if (rc == RD_OK && cmd_opt(a, "signal"))
        rc = num_parse_int("--signal", cmd_opt(a, "signal"), 1, 64, &sig, err);
    if (rc == RD_OK && cmd_opt(a, "at"))
        rc = rdtime_parse("--at", cmd_opt(a, "at"), &at, err);
    if (rc == RD_OK && cmd_opt(a, "exit-code") && cmd_opt(a, "signal"))
        rc = rd_fail(err, RD_EINVAL, "job report: give --exit-code or --signal, not both");
    if (rc == RD_OK && strcmp(to, "finished") == 0 && ((cmd_opt(a, "exit-code") && code != 0) || sig))
        rc = rd_fail(err, RD_EINVAL, "job report: a worker that finished exited 0; a nonzero exit or a signal is 'failed'");
    const char *reason = cmd_opt(a, "reason"), *message = cmd_opt(a, "message");
    int platform = job_reason_is_platform(reason);
    int waits = strcmp(to, "staging") == 0 || strcmp(to, "uploading") == 0;
    if (rc == RD_OK && message && ((strcmp(to, "failed") != 0 && !waits) || strlen(message) > 1000 ||
                                   strchr(message, '\n')))
        rc = rd_fail(err, RD_EINVAL, "job report: --message is one line of at most 1000 bytes, for a worker that "
                     "failed, stages or uploads");
    /* --token is a serving report's (a notebook's) or a transfer's */
    if (rc == RD_OK && (cmd_opt(a, "transfer") || (cmd_opt(a, "token") && strcmp(to, "serving") != 0)))
        rc = job_transfer_check(a, waits, err);
    if (rc == RD_OK && platform && (strcmp(to, "failed") != 0 || cmd_opt(a, "exit-code") || sig))
        rc = rd_fail(err, RD_EINVAL, "job report: --reason %s is for a worker that failed before its command started "
                     "(failed, no --exit-code or --signal)", reason);
    const char *cur = "";
    if (rc == RD_OK)
        rc = job_report_fence(a, json_array_get(json_object_get(job, "workers"), (size_t)w), w, err);
    if (rc == RD_OK && strcmp(to, "uploading") == 0) {
        /* waiting for job receive (type local), or no longer; stored only if the phase is */
        job_transfer_record(a, json_array_get(json_object_get(job, "workers"), (size_t)w));
        return job_output_uploading(ctx, a, job, w, result, err);   /* job_output.c; takes job */
    }
    if (rc == RD_OK && cmd_opt_given(a, "register") && strcmp(to, "finished") != 0)
        rc = rd_fail(err, RD_EINVAL, "job report: --register goes with finished (the upload is done)");
    if (rc == RD_OK && strcmp(to, "requeued") == 0) {
        rc = job_report_requeued(ctx, a, job, w, err);
    } else if (rc == RD_OK && (strcmp(to, "staging") == 0 || strcmp(to, "serving") == 0)) {
        rc = strcmp(to, "staging") == 0 ? job_report_staging(a, job, w, err) : job_report_serving(a, job, w, err);
        if (rc == RD_OK) {
            *result = json_incref(job);
            rc = job_put(ctx, job, err);
            job = NULL;   /* job_put took it: decref'd again, the result would be freed under the caller */
        }
        json_decref(job);
        return rc;
    } else if (rc == RD_OK) {
        worker = json_array_get(json_object_get(job, "workers"), (size_t)w);
        cur = doc_str(worker, "state");
        int ok = strcmp(to, "running") == 0 ? strcmp(cur, "starting") == 0 :
                 strcmp(cur, "running") == 0 || strcmp(cur, "stopping") == 0 ||
                 (strcmp(cur, "starting") == 0 && strcmp(to, "failed") == 0);
        if (!ok)
            rc = rd_fail(err, RD_EINVAL, "job report: worker %lld of job '%s' is %s, not %s; it cannot turn %s",
                         (long long)w, cmd_arg(a, 0), cur, strcmp(to, "running") == 0 ? "starting" : "running", to);
        else if (platform && strcmp(cur, "starting") != 0)
            rc = rd_fail(err, RD_EINVAL, "job report: worker %lld of job '%s' is %s: its command started, so it cannot "
                         "fail %s (a platform failure is for a worker that never started)", (long long)w,
                         cmd_arg(a, 0), cur, reason);
    }
    /* The moment is the node's clock: a start lies between the placement
     * and the report's arrival (the command's clock), an end between the
     * start and the arrival.  A report that arrives late is fine; one
     * outside those bounds by more than two clocks may disagree would
     * bill hours that never ran (or never will) and is refused. */
    char t1[RDTIME_BUFLEN], t2[RDTIME_BUFLEN];
    rd_time placed = 0;
    if (rc == RD_OK && at > ctx->now + JOB_CLOCK_SKEW_S)
        rc = rd_fail(err, RD_EINVAL, "--at %s is after the clock %s: a worker cannot start or end after its report arrives",
                     rdtime_format(at, t1), rdtime_format(ctx->now, t2));
    int has_placed = rc == RD_OK && strcmp(to, "running") == 0 && json_is_string(json_object_get(worker, "placed_at")) &&
                     rdtime_parse("placed_at", doc_str(worker, "placed_at"), &placed, NULL) == RD_OK;
    if (has_placed && at < placed - JOB_CLOCK_SKEW_S)
        rc = rd_fail(err, RD_EINVAL, "--at %s is before worker %lld's placement %s: a worker cannot start before it is placed",
                     rdtime_format(at, t1), (long long)w, rdtime_format(placed, t2));
    int ends = strcmp(cur, "running") == 0 || strcmp(cur, "stopping") == 0;
    /* An end without --at is the arrival, never refused for its time: a
     * clock that stepped back since the start is taken as the start (an
     * agent whose --at was refused says it again so; refused, the worker
     * would stay running in the books for good).  A start arriving before
     * its placement stays refused: the agent kills it and starts it again. */
    if (rc == RD_OK && cmd_opt(a, "at") && strcmp(to, "running") != 0 && ends)
        rc = report_check_end(job, w, at, err);
    /* within the clocks' disagreement: the nearest moment allowed (an end
     * before the start is taken as the start by job_end_worker_at) */
    if (at > ctx->now)
        at = ctx->now;
    if (has_placed && at < placed)
        at = placed;
    /* The hours before the end first, in steps; then the end in one. */
    if (rc == RD_OK && strcmp(to, "running") != 0 && ends) {
        size_t one = (size_t)w;
        rc = job_bill_hours(ctx, job, &one, 1, at, err);
    }
    if (rc == RD_OK && strcmp(to, "requeued") == 0) {
        /* done above */
    } else if (rc == RD_OK && strcmp(to, "running") == 0) {
        json_object_set_new(worker, "state", json_string("running"));
        json_object_set_new(worker, "started_at", json_string(rdtime_format(at, ts)));
        json_object_set_new(worker, "billed_until", json_string(ts));
        json_object_set_new(worker, "run_by_agent", json_true());
        rc = job_platform_started(ctx, doc_str(worker, "node"), err);   /* a start resets the node's count */
        json_object_set_new(worker, "phase", json_string("running"));
        json_object_del(worker, "bytes_done");
        json_object_del(worker, "message");   /* "waiting for job send" is over */
        json_object_del(worker, "transfer");
    } else if (rc == RD_OK) {
        if (cmd_opt(a, "exit-code"))
            json_object_set_new(worker, "exit_code", json_integer(code));
        if (sig)
            json_object_set_new(worker, "signal", json_integer(sig));
        if (reason)
            json_object_set_new(worker, "reason", json_string(reason));
        if (message)
            json_object_set_new(worker, "message", json_string(message));
        else if (json_object_get(worker, "transfer"))
            json_object_del(worker, "message");   /* "waiting for job receive" is over */
        json_object_del(worker, "transfer");
        /* An ended worker does nothing more: no phase, unless it never
         * started, where its phase says how far it got (staging). */
        if (strcmp(cur, "starting") != 0)
            json_object_del(worker, "phase");
        json_object_del(worker, "phase_bytes");
        json_object_del(worker, "bytes_done");
        char node[128];
        snprintf(node, sizeof node, "%s", doc_str(worker, "node"));
        if (cmd_opt_given(a, "register"))
            rc = job_output_register(ctx, job, (size_t)w, err);
        if (rc == RD_OK)
            rc = job_end_worker_at(ctx, job, (size_t)w, to, at, err);
        /* never started: nothing is billed (job_end_worker_at); the node's
         * count of such failures in a row goes up */
        if (rc == RD_OK && platform && *node)
            rc = job_platform_failed(ctx, node, message, err);
    }
    if (rc == RD_OK) {
        job_update_state(job);
        *result = json_incref(job);
        rc = job_put(ctx, job, err);
        job = NULL;
    }
    json_decref(job);
    return rc;
}

/* A job as listed: the first worker's node and the locked price; its
 * variables by name only. */
static void job_summary(json_t *job)
{
    json_t *w0 = json_array_get(json_object_get(job, "workers"), 0);
    size_t i, running = 0;
    json_t *w;
    json_array_foreach(json_object_get(job, "workers"), i, w)
        running += strcmp(doc_str(w, "state"), "running") == 0;
    json_object_set_new(job, "workers_running", json_integer((json_int_t)running));
    json_object_set_new(job, "workers_total", json_integer((json_int_t)json_array_size(json_object_get(job, "workers"))));
    json_object_set(job, "node", json_object_get(w0, "node") ? json_object_get(w0, "node") : json_null());
    job_env_redact(job);
}

/* Whether a job is listed: --state, --project, then whether the actor
 * sees it (staff: every job).  The one rule of both forms of the list. */
static int job_listed(cmd_ctx *ctx, const cmd_args *a, int staff, const json_t *job)
{
    const char *state = cmd_opt(a, "state"), *project = cmd_opt(a, "project");
    if ((state && strcmp(doc_str(job, "state"), state) != 0) || (project && strcmp(doc_str(job, "project"), project) != 0))
        return 0;
    return staff || access_actor_sees_job(ctx, job);
}

/* The picked form's reading: fields, page and the items so far. */
typedef struct {
    cmd_ctx *ctx;
    const cmd_args *a;
    int staff;
    const tx_pick_names *asked;   /* NULL: whole jobs */
    json_t *items;
    int64_t limit;                /* 0: no limit */
    char next[RD_KEY_MAX];        /* the last id of a full page */
} job_page;

static int job_page_add(json_t *job, const char *key, void *data)
{
    job_page *p = data;
    if (!job_listed(p->ctx, p->a, p->staff, job)) {
        json_decref(job);
        return 0;
    }
    job_summary(job);
    if (p->asked) {   /* what only the rule and the summary needed goes */
        json_t *asked = docpick_copy(job, p->asked->names, p->asked->n);
        json_decref(job);
        job = asked;
    }
    json_array_append_new(p->items, job);
    if (p->limit && (int64_t)json_array_size(p->items) >= p->limit) {
        snprintf(p->next, sizeof p->next, "%s", key + strlen(KEY_JOBS));
        return 1;
    }
    return 0;
}

/* Every field a job document may carry and the three the list adds
 * (workers_running, workers_total, node): what --fields may name. */
static const char *const job_fields[] = {
    "id", "name", "type", "state", "project", "project_owner", "creator", "priority", "submitted_at", "reason",
    "workers", "workers_running", "workers_total", "node", "resources", "data", "model", "workers_spec", "endpoint",
    "environment", "regional", "region_pin", "reservation", "env_job_name", "system_env", "mounts", "stop_requested_at", NULL
};

/* `job list --fields/--after/--limit`: the jobs read one at a time, each
 * with just the fields asked for (and those the rule and the summary
 * need, dropped again), so a page of a large history is cheap. */
static rd_code job_list_picked(cmd_ctx *ctx, const cmd_args *a, int staff, json_t **result, rd_err *err)
{
    tx_pick_names asked, read;
    job_page p = { ctx, a, staff, NULL, NULL, 0, "" };
    char after[RD_KEY_MAX];
    rd_code rc = RD_OK;
    if (cmd_opt(a, "fields") && (rc = tx_pick_names_parse("--fields", cmd_opt(a, "fields"), &asked, err)) == RD_OK &&
        (rc = tx_pick_names_check(&asked, "--fields", job_fields, err)) == RD_OK) {
        p.asked = &asked;
        read = asked;
        static const char *const rule[] = { "state", "project", "creator", "project_owner" };
        for (size_t i = 0; i < sizeof rule / sizeof rule[0]; i++)
            tx_pick_names_add(&read, rule[i]);
        /* the summary counts running workers and names the first's node */
        if (tx_pick_names_has(&asked, "workers_running") || tx_pick_names_has(&asked, "workers_total") ||
            tx_pick_names_has(&asked, "node")) {
            tx_pick_names_add(&read, "workers.state");
            tx_pick_names_add(&read, "workers.node");
        }
    }
    if (rc == RD_OK && cmd_opt(a, "limit"))
        rc = num_parse_int("--limit", cmd_opt(a, "limit"), 1, INT32_MAX, &p.limit, err);
    if (rc == RD_OK && cmd_opt(a, "after"))
        rc = names_check("--after", cmd_opt(a, "after"), err);
    if (rc != RD_OK)
        return rc;
    tx_key(after, KEY_JOBS "%s", cmd_opt(a, "after") ? cmd_opt(a, "after") : "");
    if (!(p.items = json_array()))
        return rd_fail(err, RD_ENOMEM, "out of memory");
    rc = tx_pick(ctx->tx, KEY_JOBS, cmd_opt(a, "after") ? after : NULL, p.asked ? read.names : NULL,
                 p.asked ? read.n : 0, job_page_add, &p, err);
    if (rc != RD_OK) {
        json_decref(p.items);
        return rc;
    }
    *result = json_pack("{s:o}", "items", p.items);
    if (p.next[0])
        json_object_set_new(*result, "next", json_string(p.next));
    return RD_OK;
}

static rd_code job_list_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *items = NULL, *j;
    size_t i;
    int staff = access_actor_is_staff(ctx);   /* once, not once per job */
    if (cmd_opt(a, "fields") || cmd_opt(a, "after") || cmd_opt(a, "limit"))
        return job_list_picked(ctx, a, staff, result, err);
    rd_code rc = tx_list(ctx->tx, KEY_JOBS, &items, err);
    if (rc != RD_OK)
        return rc;
    for (i = json_array_size(items); i-- > 0;) {
        j = json_array_get(items, i);
        if (!job_listed(ctx, a, staff, j))
            json_array_remove(items, i);
        else
            job_summary(j);
    }
    *result = json_pack("{s:o}", "items", items);
    return RD_OK;
}

static rd_code job_show_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    rd_code rc = job_get_visible(ctx, cmd_arg(a, 0), result, err);
    if (rc == RD_OK)
        job_env_redact(*result);   /* names only, also of jobs stored before values were sealed */
    return rc;
}

/* `help job submit` shows the spec's format (jobspec_help.c). */
const cmd_note job_cmd_notes[] = {
    { "job submit", jobspec_help_lines },
    { 0 }
};

static const cmd_flag job_submit_flags[] = {
    { "project", "P", CMD_FLAG_VALUE, "the project (NAME or OWNER/NAME); default: the spec's, else 'default'" },
    { "priority", "N", CMD_FLAG_VALUE, "queue priority, -1000..1000 (default 0; higher goes first)" },
    { 0 }
};
static const cmd_flag job_list_flags[] = {
    { "state", "waiting_gpus|running|stopping|finished|stopped|failed|canceled", CMD_FLAG_VALUE, "only jobs in this state" },
    { "project", "P", CMD_FLAG_VALUE, "only jobs of this project" },
    { "fields", "F,...", CMD_FLAG_VALUE,
      "each job with only these fields, shown in this order (the rest is not read; workers.state: a part of "
      "each worker); an unknown name is refused, naming the known ones" },
    { "after", "ID", CMD_FLAG_VALUE, "only jobs whose id sorts after ID: the page after one ending at ID" },
    { "limit", "N", CMD_FLAG_VALUE, "at most N jobs; a full page also answers \"next\", the --after of the next" },
    { 0 }
};
static const cmd_flag job_stop_flags[] = {
    { "reason", "WORD", CMD_FLAG_VALUE, "recorded as the job's reason (default stopped_by_user)" },
    { 0 }
};
static const cmd_flag job_report_flags[] = {
    { "worker", "N", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "the worker's index (0 first)" },
    { "exit-code", "N", CMD_FLAG_VALUE, "the process's exit status, 0..255" },
    { "signal", "N", CMD_FLAG_VALUE, "the signal that ended the process" },
    { "at", "TIME", CMD_FLAG_VALUE, "when it started or ended (RFC 3339; default: now)" },
    { "reason", "WORD", CMD_FLAG_VALUE, "why it ended (start_failed, disk_exceeded, packages_failed, ...; "
      "image_pull_failed, runtime_error, staging_failed: its command never started, not billed), or why its node "
      "gave it back (disk_full)" },
    { "message", "TEXT", CMD_FLAG_VALUE, "failed: the cause's error line (e.g. the runtime's \"Error: ...\"), kept as "
      "the worker's message" },
    { "node", "NODE", CMD_FLAG_VALUE, "the node the report comes from: refused unless the worker is placed there" },
    { "detail", "TEXT", CMD_FLAG_VALUE, "requeued: what the agent saw (kept as the node's maintenance_detail)" },
    { "bytes", "N", CMD_FLAG_VALUE, "staging: the bytes fetched so far (kept as bytes_done); uploading: the size of "
      "the archive being uploaded (kept as phase_bytes)" },
    { "host", "HOST", CMD_FLAG_VALUE, "serving: the address the worker's server listens on (job connect)" },
    { "port", "PORT", CMD_FLAG_VALUE, "serving: its port, 1-65535" },
    { "transfer", "HOST:PORT", CMD_FLAG_VALUE, "staging/uploading: the worker waits for `job send`/`job receive` "
      "there (kept as transfer.host and transfer.port, with --message)" },
    { "token", "SEALED", CMD_FLAG_VALUE | CMD_FLAG_SECRET, "sealed with the master key, never shown: serving, a "
      "notebook's token (kept as secret_token); with --transfer, the transfer's (kept as transfer.token)" },
    { "register", NULL, 0, "finished: record the uploaded output (data.output type rigdeck) as the creator's "
      "dataset, model or checkpoint named after the job" },
    { 0 }
};

const cmd_def job_cmd_table[] = {
    { .words = "job submit", .args = "FILE", .flags = job_submit_flags, .options = CMD_MUTATES,
      .help = "submit a job spec (YAML); answers with the job", .run = job_submit_cmd },
    { .words = "job list", .args = "", .flags = job_list_flags, .help = "list jobs",
      .columns = "id,name,type,project,creator,state,workers_running,workers_total,node,reason", .run = job_list_cmd },
    { .words = "job show", .args = "ID", .help = "show a job and its workers", .run = job_show_cmd },
    { .words = "job stop", .args = "ID", .flags = job_stop_flags, .options = CMD_MUTATES,
      .help = "stop a job (its waiting workers are canceled)", .run = job_stop_cmd },
    { .words = "job report", .args = "ID running|uploading|finished|failed|stopped|requeued|staging|serving",
      .flags = job_report_flags, .options = CMD_MUTATES,
      .help = "what an on-node agent sends when a worker's process starts, its data is being staged, it uploads "
              "its output or ends, its node cannot start it, or where it serves", .run = job_report_cmd,
      .access = CMD_ACCESS_FLEET, .agent = CMD_AGENT_OWN_WORKER },
    { 0 }
};
