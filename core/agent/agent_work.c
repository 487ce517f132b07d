/* agent_work.c - the workers a node agent runs, from placement to report.
 *
 * The store decides, the agent carries out.  A worker placed on the node
 * is `starting`: the agent starts its process under runner.c's supervisor
 * and reports `running` with the moment it started (`job report ... running
 * --at`).  While it runs the agent pushes the tail of its output to
 * KEY_LOGS<node>/<job>/<index> (only when it grew, about every second;
 * under its own node, the only output its etcd role may write).  When it
 * exits the agent reports finished (exit 0), failed (otherwise) or stopped
 * (it was asked to stop), with its exit code or signal and the moment it
 * ended, so billing covers exactly its run.  A worker the store turns
 * `stopping` gets SIGTERM, then SIGKILL 10 s later.  A process whose worker
 * the store has ended meanwhile (failed as node_lost while the agent was
 * away, canceled while starting) is killed and its directory removed.
 *
 * Every decision rereads the store, and every report is a command whose
 * rules refuse a stale one, so a restarted agent simply reconciles: its
 * workers' directories under WORK_DIR/<job>/<index> tell it what runs.
 * Logged in as node:N on a secured store, it may not read the jobs: it
 * reads the controller's view of its own node instead (KEY_WORK, kept by
 * serve_work.c), and what that view no longer lists is dropped exactly as
 * a worker the job no longer runs here.
 */
#include "agent_work.h"
#include "agent_limits.h"
#include "agent_mount.h"
#include "agent_mdns.h"
#include "agent_serve.h"
#include "agent_stage.h"
#include "agent_upload.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "grow.h"
#include "job_env.h"
#include "keyspace.h"
#include "runner_packages.h"
#include "runtime.h"

enum {
    STOP_GRACE_MS = 10000,   /* SIGTERM, then SIGKILL after this */
    LOG_PUSH_MS = 1000       /* output reaches the store at least every 2 s */
};

rd_code agent_work_line(const json_t *words, char *line, size_t len, rd_err *err)
{
    size_t i, at = 0;
    json_t *w;
    line[0] = '\0';
    json_array_foreach(words, i, w) {
        char num[32];
        const char *s = json_is_string(w) ? json_string_value(w) : num;
        if (!json_is_string(w))
            snprintf(num, sizeof num, "%lld", (long long)json_integer_value(w));
        if (at + 4 >= len)
            return rd_fail(err, RD_EINVAL, "agent: command line too long");
        if (i)
            line[at++] = ' ';
        line[at++] = '\'';
        for (; *s; s++) {
            if (at + 6 >= len)
                return rd_fail(err, RD_EINVAL, "agent: command line too long");
            if (*s == '\'') {   /* close, escaped quote, reopen */
                memcpy(line + at, "'\\''", 4);
                at += 4;
            } else {
                line[at++] = *s;
            }
        }
        line[at++] = '\'';
        line[at] = '\0';
    }
    return RD_OK;
}

rd_code agent_work_exec(agent_state *a, const char *line, json_t **result, rd_err *err)
{
    a->ctx.now = a->o->log.now();
    return cmd_exec_line(&a->ctx, line, result, NULL, err);
}

/* ---- the worker list ----------------------------------------------------- */

agent_worker *agent_work_find(agent_state *a, const char *job, int index)
{
    for (size_t i = 0; i < a->nworkers; i++)
        if (a->workers[i].index == index && strcmp(a->workers[i].job, job) == 0)
            return &a->workers[i];
    return NULL;
}

agent_worker *agent_work_track(agent_state *a, const char *job, int index)
{
    agent_worker *w = agent_work_find(a, job, index);
    if (w)
        return w;
    if (grow_array(&a->workers, &a->cap, a->nworkers + 1, sizeof *a->workers) != 0)
        return NULL;
    w = &a->workers[a->nworkers++];
    memset(w, 0, sizeof *w);
    snprintf(w->job, sizeof w->job, "%s", job);
    w->index = index;
    snprintf(w->dir, sizeof w->dir, "%s/%s/%d", a->o->work_dir, job, index);
    return w;
}

void agent_work_untrack(agent_state *a, agent_worker *w)
{
    size_t i = (size_t)(w - a->workers);
    agent_upload_forget(w);
    a->workers[i] = a->workers[--a->nworkers];
}

/* Removes a worker's directory, and its job's when that is empty. */
void agent_work_cleanup(agent_state *a, const char *dir)
{
    rd_err err = { 0 };
    char parent[4096];
    agent_stage_abort(dir);   /* ended while staging */
    agent_mdns_withdraw(a, dir);   /* its reservation's hostname, if published */
    /* a datastore still mounted keeps its folder: removing it would reach into the share */
    if (agent_mount_release(a, dir) != 0) {
        dlog(&a->o->log, "cleanup", NULL, "%s: a datastore is still mounted there; kept", dir);
        return;
    }
    if (runner_cleanup(dir, &err) != RD_OK) {
        dlog(&a->o->log, "cleanup", NULL, "%s: %s", dir, err.msg);
        return;
    }
    snprintf(parent, sizeof parent, "%s", dir);
    char *slash = strrchr(parent, '/');
    if (slash) {
        *slash = '\0';
        rmdir(parent);   /* fails while another worker of the job is there */
    }
}

/* ---- starting ------------------------------------------------------------ */

/* Appends "NAME=VALUE" for each string of obj to list (whole: a value may
 * be up to 8 KiB); 0 when memory ran out, so that no variable goes missing
 * unnoticed. */
static int push_env(json_t *list, const json_t *obj)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v)
        if (json_is_string(v) && json_array_append_new(list, json_sprintf("%s=%s", k, json_string_value(v))) != 0)
            return 0;
    return 1;
}

/* The command worker index of job runs. */
static const char *worker_command(const json_t *job, size_t index)
{
    const json_t *cmds = json_object_get(json_object_get(job, "workers_spec"), "commands");
    if (json_array_size(cmds) > index)
        return json_string_value(json_array_get(cmds, index));
    if (json_array_size(cmds) > 0)
        return json_string_value(json_array_get(cmds, 0));
    return json_string_value(json_object_get(json_object_get(job, "endpoint"), "start_command"));
}

/* The image the worker runs: the job's own (environment.image), else the
 * one `job submit` matched it to (environment.base, environment.c); ""
 * for a job submitted before environments, which a container cannot run. */
static const char *worker_image(const json_t *job)
{
    const json_t *env = json_object_get(job, "environment");
    if (*doc_str(env, "image"))
        return doc_str(env, "image");
    return doc_str(json_object_get(env, "base"), "image");
}

/* Runs one `job report` (words), fenced with `--node` this node: the store
 * refuses it once the worker is placed anywhere else (requeued after this
 * agent was taken for lost), so a late word from here never starts, ends
 * or moves a worker another node runs. */
static rd_code report(agent_state *a, json_t *words, rd_err *err)
{
    char line[2048];
    json_t *result = NULL;
    json_array_append_new(words, json_string("--node"));
    json_array_append_new(words, json_string(a->o->node));
    rd_code rc = agent_work_line(words, line, sizeof line, err);
    if (rc == RD_OK)
        rc = agent_work_exec(a, line, &result, err);
    /* The store refuses a moment (--at) farther than its allowed clock
     * skew from its own view (this machine's clock stepped): say it
     * again without one, and the store takes its own clock.  Dropping
     * the word instead would leave the worker running, and billed, in
     * the books forever. */
    size_t i;
    json_t *word;
    json_array_foreach(words, i, word)
        if (rc == RD_EINVAL && strncmp(err->msg, "--at ", 5) == 0 && strcmp(json_string_value(word), "--at") == 0) {
            dlog(&a->o->log, "report", NULL, "this machine's clock disagrees with the store's (%s); "
                 "reported at the store's time", err->msg);
            json_array_remove(words, i + 1);
            json_array_remove(words, i);
            json_decref(result);
            result = NULL;
            rc = agent_work_line(words, line, sizeof line, err);
            if (rc == RD_OK)
                rc = agent_work_exec(a, line, &result, err);
            break;
        }
    json_decref(result);
    json_decref(words);
    return rc;
}

static void ms_format(int64_t ms, char ts[RDTIME_BUFLEN])
{
    rdtime_format(ms / 1000, ts);
}

/* Reports worker index of job failed before its process could start
 * (reason: one word for `job report --reason`, why: the details for the
 * log) and forgets it. */
static void fail_start(agent_state *a, agent_worker *w, const char *id, size_t index, const char *reason,
                       const char *why)
{
    char idx[24], ts[RDTIME_BUFLEN], msg[1001];
    rd_err err = { 0 };
    snprintf(idx, sizeof idx, "%zu", index);
    /* the message is one line: the cause's */
    snprintf(msg, sizeof msg, "%.*s", (int)strcspn(why, "\n"), why);
    dlog(&a->o->log, "start", NULL, "%s/%zu could not start: %s; reporting it failed (%s)", id, index, msg, reason);
    if (report(a, json_pack("[s, s, s, s, s, s, s, s, s, s, s, s]", "job", "report", id, "failed", "--worker", idx,
                            "--reason", reason, "--message", msg, "--at", rdtime_format(a->o->log.now(), ts)),
               &err) != RD_OK)
        dlog(&a->o->log, "start", NULL, "%s/%zu: report failed refused: %s", id, index, err.msg);
    agent_mount_release(a, w->dir);   /* its datastores, whatever failed */
    if (strcmp(reason, "staging_failed") == 0)
        agent_work_cleanup(a, w->dir);   /* what it fetched goes (agent_stage.h) */
    agent_work_untrack(a, w);
}

/* The worker's variables as "K=V" strings: the job's own (opened from the
 * sealed text, or plain in a document from before sealing), then the
 * system ones.  On failure *reason says why for the report. */
static rd_code worker_env(agent_state *a, const json_t *job, json_t **env, const char **reason, rd_err *err)
{
    json_t *vars = NULL;
    rd_code rc = job_env_open(a->ctx.master_key_path, job, &vars, reason, err);
    if (rc != RD_OK)
        return rc;
    *env = json_array();
    if (!*env || !push_env(*env, vars) || !push_env(*env, json_object_get(job, "system_env"))) {
        json_decref(*env);
        *env = NULL;
        *reason = "start_failed";
        rc = rd_fail(err, RD_ENOMEM, "out of memory");
    }
    json_decref(vars);   /* the plain values live on only in *env, until the start */
    return rc;
}

/* Gives worker index of job back to the queue because this node cannot
 * start it (reason: `disk_full`): the store requeues it, never billed, and
 * takes the node out of service with that reason in the same command, so
 * the scheduler does not place it here again.  On a refusal (the store
 * moved on, or cannot be reached) the next round looks again. */
static void give_back(agent_state *a, agent_worker *w, const char *id, size_t index, const char *reason,
                      const char *why)
{
    char idx[24];
    rd_err err = { 0 };
    snprintf(idx, sizeof idx, "%zu", index);
    dlog(&a->o->log, "start", NULL, "%s/%zu could not start: %s; giving it back to the queue and taking node %s out "
         "of service (%s)", id, index, why, a->o->node, reason);
    if (report(a, json_pack("[s, s, s, s, s, s, s, s, s, s]", "job", "report", id, "requeued", "--worker", idx,
                            "--reason", reason, "--detail", why), &err) != RD_OK)
        dlog(&a->o->log, "start", NULL, "%s/%zu: the store refused it back: %s", id, index, err.msg);
    agent_work_cleanup(a, w->dir);
    agent_work_untrack(a, w);
}

/* A worker found held in its directory, never released: an agent (this
 * one before a restart) died between starting it and the store's word, so
 * its command never ran.  Makes sure it never does; 1 once its directory is
 * gone and it can be started afresh, 0 to look again at the next round. */
static int clear_held(agent_state *a, agent_worker *w, const runner_status_t *st)
{
    rd_err err = { 0 };
    if (runner_abandon(w->dir, &err) != RD_OK) {
        dlog(&a->o->log, "start", NULL, "%s/%d: %s", w->job, w->index, err.msg);
        return 0;
    }
    if (st->state == RUNNER_RUNNING) {
        /* its shim kills it within a tick; not tended meanwhile, or its
         * end would be reported as the worker's */
        a->reconcile_due = 1;
        agent_work_untrack(a, w);
        return 0;
    }
    dlog(&a->o->log, "start", NULL, "%s/%d was started by an agent that died before the store's word; it never ran "
         "its command: starting it afresh", w->job, w->index);
    agent_work_cleanup(a, w->dir);
    return 1;
}

/* TEST ONLY: RIGDECK_TEST_SPAWN_DELAY_MS=N makes the agent wait N ms
 * between starting a worker's process and reporting it running, so that a
 * test can kill the agent in that window (tests/batch/test_agent_fence.sh).
 * Never set it on a real node: it delays every start. */
static void test_spawn_delay(agent_state *a, const char *id, size_t index)
{
    const char *v = getenv("RIGDECK_TEST_SPAWN_DELAY_MS");
    long ms = v ? strtol(v, NULL, 10) : 0;
    if (ms <= 0)
        return;
    dlog(&a->o->log, "start", NULL, "%s/%zu: test spawn delay, waiting %ld ms before reporting it "
         "(RIGDECK_TEST_SPAWN_DELAY_MS)", id, index, ms);
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0 && !*a->o->stop)
        ;
}

static void confirm_start(agent_state *a, agent_worker *w, int64_t started_ms, const char *gpus);

/* Starts worker index of job held (runner.h, the fence), reports it
 * running (a container: once its runtime made it, agent_work_tend), and
 * only once the store has taken that word from this node lets it run its
 * command.  An agent killed in between leaves a worker that
 * never runs: its shim sees the agent gone and kills it, and the controller
 * may requeue the worker elsewhere without it ever running twice. */
void agent_work_start(agent_state *a, const json_t *job, const json_t *worker, size_t index)
{
    const char *id = doc_str(job, "id");
    agent_worker *w = agent_work_track(a, id, (int)index);
    runner_status_t st;
    runner_info info = { 0 };
    if (w)
        w->disk_limit = agent_limits_disk_bytes(job);
    runner_mount out_mount = { 0 };
    size_t nmounts = 0;
    char out_dir[4200];
    rd_err err = { 0 };
    char gpus[256] = "";
    int fresh = 0;
    if (!w || w->launching)
        return;   /* a container being made is tended (agent_work_tend) */
    json_decref(w->job_doc);
    w->job_doc = json_incref((json_t *)job);   /* its output is uploaded after the command (agent_upload.c) */
    int found = runner_status(w->dir, &st, &err) == RD_OK && st.state != RUNNER_NONE;
    if (found && !st.released && !clear_held(a, w, &st))
        return;
    if (found && st.released) {
        /* started by an agent without the fence, which died before it
         * could report: its command runs, adopt it */
        info.started_at = st.started_at;
    } else {
        fresh = 1;
        const char *command = worker_command(job, index), *reason = NULL;
        json_t *g, *env = NULL;
        size_t i;
        agent_serve srv = { 0 };   /* a notebook's or endpoint's server (agent_serve.c) */
        if ((!command || !*command) && agent_serve_kind(job) == SERVE_NONE) {
            fail_start(a, w, id, index, "no_command", "it has no command to run");
            return;
        }
        /* its data first, still `starting` and unbilled (agent_stage.c):
         * looked at again at the next round until it is there */
        char smsg[600];
        stage_state ss = agent_stage_step(a, job, w->dir, index, smsg, sizeof smsg, report);
        if (ss == STAGE_READY)
            ss = agent_mount_step(a, job, w->dir, smsg, sizeof smsg);   /* then its datastores */
        if (ss == STAGE_BUSY) {
            agent_work_untrack(a, w);   /* no process yet: nothing to tend */
            return;
        }
        if (ss == STAGE_FAILED || (worker_env(a, job, &env, &reason, &err) == RD_OK &&
                                   agent_stage_env(a, job, w->dir, env, smsg, sizeof smsg) != 0)) {
            json_decref(env);
            fail_start(a, w, id, index, "staging_failed", smsg);
            return;
        }
        /* A value that cannot be opened fails the worker: it never runs
         * with a variable missing or empty. */
        if (!env && worker_env(a, job, &env, &reason, &err) != RD_OK) {
            fail_start(a, w, id, index, reason, err.msg);
            return;
        }
        if (!agent_upload_prepare(a, w, env, &out_mount, &nmounts, out_dir, sizeof out_dir, &err)) {
            json_decref(env);
            fail_start(a, w, id, index, "start_failed", err.msg);
            return;
        }
        /* a reservation's port and hostname (agent_mdns.c) */
        if (!runner_packages_pass_env(env) || !agent_mdns_env(job, env)) {
            json_decref(env);
            fail_start(a, w, id, index, "start_failed", "out of memory");
            return;
        }
        if (agent_serve_kind(job) != SERVE_NONE) {
            if (agent_serve_prepare(a, job, w->dir, env, &srv, smsg, sizeof smsg) != 0) {
                agent_serve_clear(&srv);
                json_decref(env);
                fail_start(a, w, id, index, "start_failed", smsg);
                return;
            }
            command = srv.command;
        }
        json_array_foreach(json_object_get(worker, "alloc"), i, g) {
            size_t at = strlen(gpus);
            snprintf(gpus + at, sizeof gpus - at, "%s%lld", at ? "," : "", (long long)doc_int(g, "gpu"));
        }
        agent_limits lim;
        agent_limits_for(a, job, worker, index, &lim);
        const char **envv = calloc(json_array_size(env) + 3, sizeof *envv);
        json_array_foreach(env, i, g)
            if (envv)
                envv[i] = json_string_value(g);
        for (int m = 0, at = (int)json_array_size(env); envv && m < 2; m++)
            if (lim.mps[m][0])
                envv[at++] = lim.mps[m];   /* after the job's: the share wins */
        /* the packages first (runner_packages.h): the wrapped command */
        const json_t *jenv = json_object_get(job, "environment");
        char *script = runner_packages_script(json_object_get(jenv, "packages"), a->runtime, w->dir,
                                              worker_image(job), doc_str(jenv, "python"),
                                              *doc_str(json_object_get(job, "model"), "source") != 0, command);
        /* containers: the whole /opt/ml tree staged under the worker's folder
         * (its output folder, made by agent_upload_prepare, inside it) */
        char ml[4200];
        runner_mount mount;
        agent_stage_mount(w->dir, ml, sizeof ml, &mount);
        (void)out_mount;
        (void)nmounts;
        runner_spec spec = { .kind = a->runtime, .dir = w->dir, .job_id = id, .worker_index = (int)index,
                             .command = script, .image = worker_image(job), .env = envv, .gpus = gpus,
                             .mounts = &mount, .n_mounts = a->runtime != RUNNER_PROCESS, .hold = 1,
                             .cpus = lim.cpus, .memory_gib = lim.memory_gib, .cpu_list = lim.cpu_list,
                             .publish = srv.publish };
        rd_code rc = envv && script ? runner_start(&spec, &info, &err) : rd_fail(&err, RD_ENOMEM, "out of memory");
        if (rc == RD_OK)
            agent_serve_report(a, id, index, &srv, report);   /* where `job connect` points */
        agent_serve_clear(&srv);
        free(script);
        free(envv);
        json_decref(env);
        if (rc != RD_OK && (info.sys_errno == ENOSPC || info.sys_errno == EDQUOT)) {
            give_back(a, w, id, index, "disk_full", err.msg);
            return;
        }
        if (rc != RD_OK) {
            fail_start(a, w, id, index, "start_failed", err.msg);
            return;
        }
        if (runtime_find(a->runtime)->container) {
            /* reported running once the runtime has made the container
             * (agent_work_tend, confirm_start) */
            w->launching = 1;
            snprintf(w->gpus, sizeof w->gpus, "%s", gpus);
            dlog(&a->o->log, "start", NULL, "%s/%zu: %s is making its container (image %s)", id, index,
                 runner_kind_name(a->runtime), worker_image(job));
            return;
        }
    }
    confirm_start(a, w, fresh ? 0 : info.started_at, gpus);
}

/* Reports worker w running (from started_ms, or now: a fresh start runs
 * from its release, right after the store's word) and, once the store has
 * taken it from this node, releases its command. */
static void confirm_start(agent_state *a, agent_worker *w, int64_t started_ms, const char *gpus)
{
    const char *id = w->job;
    size_t index = (size_t)w->index;
    int fresh = started_ms == 0;
    char ts[RDTIME_BUFLEN], idx[24];
    rd_err err = { 0 };
    runner_status_t st;
    if (fresh) {
        test_spawn_delay(a, id, index);
        started_ms = a->o->log.now() * 1000;
    }
    w->launching = 0;
    snprintf(idx, sizeof idx, "%zu", index);
    ms_format(started_ms, ts);
    if (report(a, json_pack("[s, s, s, s, s, s, s, s]", "job", "report", id, "running", "--worker", idx, "--at", ts),
               &err) != RD_OK) {
        /* canceled or moved while starting: it must never run (a held one
         * is abandoned before it runs anything) */
        dlog(&a->o->log, "start", NULL, "%s/%zu started but the store refused it (%s); killing it", id, index, err.msg);
        runner_signal(w->dir, SIGKILL, &err);
        /* Not tended: what the store says next decides.  Still starting
         * (the store could not be reached): started afresh; ended or moved:
         * the leftover is removed. */
        if (fresh)
            agent_work_untrack(a, w);
        return;
    }
    if (fresh && runner_release(w->dir, &err) != RD_OK)
        dlog(&a->o->log, "start", NULL, "%s/%zu: %s (it is reported when it ends)", id, index, err.msg);
    dlog(&a->o->log, "start", NULL, "%s/%zu running (gpus %s, pid %d, %s)", id, index, *gpus ? gpus : "none",
         runner_status(w->dir, &st, &err) == RD_OK ? st.worker_pid : 0, runner_kind_name(a->runtime));
}

static void push_log(agent_state *a, agent_worker *w, int64_t now, int force)
{
    char *text = NULL, key[RD_KEY_MAX];
    size_t len = 0;
    int64_t total = 0;
    rd_err err = { 0 };
    if (!force && now - w->log_ms < LOG_PUSH_MS)
        return;
    if (runner_log_tail(w->dir, RUNNER_LOG_TAIL_MAX, &text, &len, &total, &err) != RD_OK)
        return;
    /* the value: a header with the output's full size (so a follower
     * knows what is new), then the tail itself */
    char head[64];
    int hlen = snprintf(head, sizeof head, "rigdeck-log %lld\n", (long long)total);
    char *value = total != w->log_total ? malloc((size_t)hlen + len + 1) : NULL;
    if (value) {
        memcpy(value, head, (size_t)hlen);
        memcpy(value + hlen, text, len);
        value[hlen + len] = '\0';
        tx_key(key, KEY_LOGS "%s/%s/%d", a->o->node, w->job, w->index);
        if (store_put(a->ctx.store, key, value, (size_t)hlen + len, 0, &err) == RD_OK) {
            w->log_total = total;
            w->log_ms = now;
        }
    }
    free(value);
    free(text);
}

/* A worker whose package installation failed before its command ran
 * (runner_packages.h): adds `--reason packages_failed --message LINE`. */
static void packages_failed(agent_worker *w, const runner_status_t *st, json_t *words)
{
    char *text = NULL, msg[400];
    size_t len = 0;
    int64_t total = 0;
    rd_err err = { 0 };
    if (w->stopping || st->signal || st->exit_code != RUNNER_PACKAGES_EXIT ||
        runner_log_tail(w->dir, RUNNER_LOG_TAIL_MAX, &text, &len, &total, &err) != RD_OK)
        return;
    if (runner_packages_failure(text, len, msg, sizeof msg)) {
        json_t *more = json_pack("[s, s, s, s]", "--reason", "packages_failed", "--message", msg);
        json_array_extend(words, more);
        json_decref(more);
    }
    free(text);
}

/* Reports how worker w ended; 1 when the store took it (or has moved on). */
static int report_end(agent_state *a, agent_worker *w, const runner_status_t *st)
{
    char idx[24], ts[RDTIME_BUFLEN], num[24];
    rd_err err = { 0 };
    /* a held worker that never ran has no exit status of its own: lost */
    int exited = st->state == RUNNER_EXITED && !st->unstarted;
    int ok_exit = exited && st->signal == 0 && st->exit_code == 0;
    /* a worker stopped for its disk failed by its own doing: billed to its end */
    w->disk_exceeded = w->disk_exceeded || agent_limits_disk_marked(w);
    const char *to = w->disk_exceeded ? "failed" : w->stopping ? "stopped" : ok_exit ? "finished" : "failed";
    int64_t end_ms = st->state == RUNNER_EXITED ? st->ended_at : a->o->log.now() * 1000;
    if (!w->disk_exceeded)
        agent_upload_outcome(w, &to, &end_ms);   /* billed to the upload's end; a failed one fails it */
    snprintf(idx, sizeof idx, "%d", w->index);
    ms_format(end_ms, ts);
    json_t *words = json_pack("[s, s, s, s, s, s, s, s]", "job", "report", w->job, to, "--worker", idx, "--at", ts);
    if (exited) {
        snprintf(num, sizeof num, "%d", st->signal ? st->signal : st->exit_code);
        json_array_append_new(words, json_string(st->signal ? "--signal" : "--exit-code"));
        json_array_append_new(words, json_string(num));
        if (!w->disk_exceeded) {
            packages_failed(w, st, words);
            agent_upload_words(w, words);
        }
    }
    if (!exited || w->disk_exceeded) {
        json_array_append_new(words, json_string("--reason"));
        json_array_append_new(words, json_string(w->disk_exceeded ? "disk_exceeded" : "lost"));
    }
    rd_code rc = report(a, words, &err);
    if (rc == RD_OK)
        dlog(&a->o->log, "end", NULL, "%s/%d %s (%s %d)", w->job, w->index, to,
             !exited ? "lost, no exit status" : st->signal ? "signal" : "exit",
             st->signal ? st->signal : st->exit_code);
    else
        dlog(&a->o->log, "end", NULL, "%s/%d: report %s refused: %s", w->job, w->index, to, err.msg);
    /* the output's name is taken: the end is said again, upload_failed */
    if (rc == RD_EEXISTS && agent_upload_refused(w, err.msg))
        return 0;
    /* a refusal by the rules means the store has ended it already */
    return rc == RD_OK || rc == RD_EINVAL || rc == RD_ENOTFOUND;
}

/* A container being made (launching): running once its entry wrote
 * "started"; a client that ended first never ran the command, and the
 * runtime says why (runtime_failure): the worker fails with that reason and
 * message, unbilled, and counts against the node (job_platform.c). */
static void tend_launching(agent_state *a, agent_worker *w, const runner_status_t *st, int64_t now)
{
    char message[1024], gpus[sizeof w->gpus];
    if (runtime_container_started(w->dir) && st->state == RUNNER_RUNNING) {
        snprintf(gpus, sizeof gpus, "%s", w->gpus);
        confirm_start(a, w, 0, gpus);
        return;
    }
    if (st->state == RUNNER_RUNNING) {
        push_log(a, w, now, 0);   /* the pull's progress */
        return;
    }
    push_log(a, w, now, 1);
    const char *reason = runtime_failure(w->dir, st, message, sizeof message);
    char job[sizeof w->job], dir[sizeof w->dir];
    int index = w->index;
    snprintf(job, sizeof job, "%s", w->job);
    snprintf(dir, sizeof dir, "%s", w->dir);
    fail_start(a, w, job, (size_t)index, reason, message);   /* untracks w */
    agent_work_cleanup(a, dir);
}

void agent_work_tend(agent_state *a, int64_t now)
{
    runner_reap();
    for (size_t k = a->nworkers; k-- > 0;) {
        agent_worker *w = &a->workers[k];
        runner_status_t st;
        rd_err err = { 0 };
        /* NONE: the store says this agent runs it, but nothing here ever
         * did (a wiped work dir): lost, like GONE */
        if (runner_status(w->dir, &st, &err) != RD_OK)
            continue;
        if (w->launching) {
            tend_launching(a, w, &st, now);
            continue;
        }
        /* published while its command runs, withdrawn once it ended */
        agent_mdns_tend(a, w, st.state == RUNNER_RUNNING && st.released, now);
        if (st.state == RUNNER_RUNNING) {
            if (!w->disk_exceeded && !w->stopping)
                w->disk_exceeded = agent_limits_disk_check(a, w, now);
            if ((w->stopping || w->disk_exceeded) && !w->term_ms) {
                dlog(&a->o->log, "stop", NULL, "%s/%d: SIGTERM (SIGKILL in %d s)", w->job, w->index,
                     STOP_GRACE_MS / 1000);
                runner_signal(w->dir, SIGTERM, &err);
                w->term_ms = now;
            } else if ((w->stopping || w->disk_exceeded) && !w->killed && now - w->term_ms >= STOP_GRACE_MS) {
                dlog(&a->o->log, "stop", NULL, "%s/%d: still running after %d s; SIGKILL", w->job, w->index,
                     STOP_GRACE_MS / 1000);
                runner_signal(w->dir, SIGKILL, &err);
                w->killed = 1;
            }
            push_log(a, w, now, 0);
            continue;
        }
        push_log(a, w, now, 1);
        agent_mount_release(a, w->dir);   /* its datastores go with its process, before its end is said */
        if (!agent_upload_tend(a, w, &st, report))
            continue;   /* its output is being uploaded: still running, and billed */
        if (report_end(a, w, &st)) {
            agent_work_cleanup(a, w->dir);
            agent_work_untrack(a, w);
        }
    }
}

size_t agent_work_running(agent_state *a)
{
    size_t n = 0;
    for (size_t k = 0; k < a->nworkers; k++) {
        runner_status_t st;
        rd_err err = { 0 };
        n += runner_status(a->workers[k].dir, &st, &err) == RD_OK && st.state == RUNNER_RUNNING;
    }
    return n;
}

void agent_work_free(agent_state *a)
{
    for (size_t k = 0; k < a->nworkers; k++)
        agent_upload_forget(&a->workers[k]);
    free(a->workers);
    a->workers = NULL;
    a->nworkers = a->cap = 0;
}
