/* agent_device.c - the agent of an edge device: `rigdeck agent --device
 * NAME` (spec/execution.md §7).
 *
 * At start it takes a store lease and registers (`device register`: the
 * device turns `active`), then one loop every WAIT_MS:
 *
 *   heartbeat   renew the lease every --heartbeat; a lease that ran out is
 *               replaced and the agent registers again.  The controller's
 *               `agent check` turns a device whose lease is gone `offline`
 *               after the node timeout (core/fleet/device_agent.c)
 *   look        every LOOK_MS: the device's deployment as the store has it.
 *               One it has not taken up (a new serial, or any deployment at
 *               all after the agent started: a reboot restarts the task,
 *               whatever its last run's end) is run; one stopped (a new
 *               deploy, the device removed) ends what runs
 *   tend        a run goes staging (the model and checkpoints, fetched by
 *               agent_stage.c's stager as a job's are; then the datastore
 *               mounted at the output path, agent_device_mount_output,
 *               over as many rounds as it takes), then its command
 *               starts in the foreground of a runner (runner.h) with the
 *               configuration's env (sealed in the store, opened with the
 *               master key), its keys, RIGDECK_DEVICE and, in a
 *               container, the accelerator and every /dev/video* passed
 *               through (agent_device_passthrough); it is reported `running`,
 *               and `failed` with its exit status once it ends, exactly
 *               once, its datastore unmounted before.  It is not started
 *               again until the agent restarts
 *
 * Reports go through the one executor as `device report NAME --status S
 * --deployment SERIAL`; one the store cannot take now is said again at the
 * next round, in order; a refusal is final (the store took the deployment
 * elsewhere).  Runs live in WORK_DIR/runs/<serial>-<pid>-<n>/: what a
 * killed agent left running is killed when the agent starts again (as a
 * reboot would), and what runs when it stops is stopped (SIGTERM, SIGKILL
 * after STOP_GRACE_MS).  A run's folder is removed only once nothing is
 * mounted in it (agent_mount_release): removing it would reach into the
 * share.
 */
#include "agent_device.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "agent_mount.h"
#include "agent_stage.h"
#include "device_agent.h"
#include "doc.h"
#include "job_env.h"
#include "keyspace.h"
#include "probe_cdi.h"
#include "rdtime.h"
#include "runtime.h"

enum { WAIT_MS = 250, LOOK_MS = 1000, STOP_GRACE_MS = 10000 };

typedef enum { RUN_NONE, RUN_STAGING, RUN_LAUNCHING, RUN_RUNNING, RUN_STOPPING } run_phase;

typedef struct {
    agent_state a;
    run_phase phase;
    int64_t serial;       /* the deployment last taken up (0: none since the start) */
    int n;                /* runs started by this agent */
    char dir[4200];       /* the current run's folder */
    json_t *dep, *cfg;    /* the deployment taken up and its configuration */
    int64_t term_ms;      /* RUN_STOPPING: when SIGTERM went out */
    int killed;
    json_t *pending;      /* reports the store has not taken yet, in order */
    int said_down;        /* said so once; quiet until a report lands */
    int64_t looked_ms;
} dev_agent;

static const char *dev_name(const dev_agent *d)
{
    return d->a.o->device;
}

/* ---- what a container is given ------------------------------------------ */

static int by_text(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Appends dir/NAME for each entry whose name passes keep (not "." or ".."),
 * recursing once into folders when deep. */
static void list_nodes(const char *dir, int (*keep)(const char *), int deep, json_t *found)
{
    DIR *dh = opendir(dir);
    struct dirent *e;
    while (dh && (e = readdir(dh)) != NULL) {
        char path[4200];
        struct stat st;
        if (e->d_name[0] == '.' || !keep(e->d_name))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            if (deep)
                list_nodes(path, keep, 0, found);
        } else {
            json_array_append_new(found, json_string(path));
        }
    }
    if (dh)
        closedir(dh);
}

static int is_video(const char *n)
{
    return strncmp(n, "video", 5) == 0;
}

/* The Jetson's GPU and its host1x engines as L4T names them (the l4t.csv
 * of NVIDIA's container runtime on Jetson lists these; JetPack 6's igpu
 * nodes sit under /dev/nvgpu/). */
static int is_tegra(const char *n)
{
    return strncmp(n, "nvhost-", 7) == 0 || strcmp(n, "nvmap") == 0 || strcmp(n, "nvgpu") == 0;
}

static int any(const char *n)
{
    (void)n;
    return 1;
}

size_t agent_device_passthrough(const char *dev_dir, runner_kind kind, const json_t *cdi_names, json_t *out)
{
    const char *env = getenv("RIGDECK_DEV_DIR");
    json_t *found = json_array(), *v;
    size_t i, n;
    if (kind == RUNNER_PROCESS || !found) {
        json_decref(found);
        return 0;
    }
    if (!dev_dir)
        dev_dir = env && *env ? env : "/dev";
    int cdi_all = 0;
    json_array_foreach(cdi_names, i, v)
        cdi_all |= kind == RUNNER_PODMAN && json_is_string(v) && strcmp(json_string_value(v), "all") == 0;
    if (cdi_all) {
        json_array_append_new(found, json_string("nvidia.com/gpu=all"));
    } else {
        list_nodes(dev_dir, is_tegra, 0, found);
        char nvgpu[4200];
        snprintf(nvgpu, sizeof nvgpu, "%s/nvgpu", dev_dir);
        list_nodes(nvgpu, any, 1, found);
    }
    list_nodes(dev_dir, is_video, 0, found);
    n = json_array_size(found);
    const char **sorted = calloc(n + 1, sizeof *sorted);
    for (i = 0; sorted && i < n; i++)
        sorted[i] = json_string_value(json_array_get(found, i));
    if (sorted)
        qsort(sorted, n, sizeof *sorted, by_text);
    for (i = 0; sorted && i < n; i++)
        json_array_append_new(out, json_string(sorted[i]));
    free(sorted);
    json_decref(found);
    return sorted ? n : 0;
}

/* ---- the datastore -------------------------------------------------------- */

stage_state agent_device_mount_output(agent_state *a, const json_t *cfg, const json_t *refs, const char *dir,
                                      char *msg, size_t len)
{
    const char *ds = json_string_value(json_object_get(cfg, "datastore"));
    /* A deployment made before deploys froze the datastore has no copy
     * of it: it must not write what belongs on the datastore into a local
     * folder nobody reads. */
    if (ds && *ds && (!json_object_get(json_object_get(refs, "datastores"), ds) ||
                      strcmp(doc_str(refs, "regional_datastore"), ds) != 0)) {
        snprintf(msg, len, "datastore '%s' (data.output): the deployment carries no record of it (deployed before "
                 "datastore mounts: deploy again)", ds);
        return STAGE_FAILED;
    }
    /* the job-like document agent_mount.c reads: the copy made at deploy,
     * the configuration's datastore as a job's regional data.output (none:
     * the output path is the run's own folder) and a model or checkpoint
     * read from a datastore:NAME/PATH source, which staging leaves to it */
    json_t *job = json_pack("{s:O, s:{}}", "data_refs", refs ? refs : json_null(), "data");
    if (job && ds && *ds)
        json_object_set_new(json_object_get(job, "data"), "output",
                            json_pack("{s:s, s:s}", "type", "regional", "path", doc_str(cfg, "datastore_path")));
    if (!job) {
        snprintf(msg, len, "out of memory");
        return STAGE_FAILED;
    }
    stage_state st = agent_mount_step(a, job, dir, msg, len);
    json_decref(job);
    return st;
}

/* ---- reports -------------------------------------------------------------- */

/* Says the pending reports, oldest first, until the store cannot be
 * reached (the rest wait for the next round).  A refusal is final. */
static void flush(dev_agent *d)
{
    while (json_array_size(d->pending)) {
        char line[2048];
        json_t *result = NULL;
        rd_err err = { 0 };
        rd_code rc = agent_work_line(json_array_get(d->pending, 0), line, sizeof line, &err);
        if (rc == RD_OK)
            rc = agent_work_exec(&d->a, line, &result, &err);
        json_decref(result);
        if (rc == RD_ESTORE || rc == RD_ENOMEM) {
            if (!d->said_down)
                dlog(&d->a.o->log, "report", NULL, "cannot report now (%s); saying it again at the next round", err.msg);
            d->said_down = 1;
            return;
        }
        if (rc != RD_OK)
            dlog(&d->a.o->log, "report", NULL, "the store refused it: %s", err.msg);
        d->said_down = 0;
        json_array_remove(d->pending, 0);
    }
}

/* Queues `device report NAME --status S --deployment SERIAL` plus extra
 * words (taken), and says what is pending. */
static void report(dev_agent *d, const char *status, json_t *extra)
{
    json_t *w = json_pack("[s, s, s, s, s, s, I]", "device", "report", dev_name(d), "--status", status,
                          "--deployment", (json_int_t)d->serial);
    if (w && extra)
        json_array_extend(w, extra);
    json_decref(extra);
    if (w)
        json_array_append_new(d->pending, w);
    flush(d);
}

/* Unmounts the datastore of the run in dir (agent_mount.c; nothing when
 * none is mounted): once its command has ended, before its folder goes.
 * 0, or -1 when one is still mounted (the folder must then stay). */
static int release(dev_agent *d, const char *dir)
{
    if (agent_mount_release(&d->a, dir) == 0)
        return 0;
    dlog(&d->a.o->log, "run", NULL, "%s: its datastore is still mounted there; the folder is kept", dir);
    return -1;
}

/* The run ends before its command started: failed, reason and message. */
static void fail_start(dev_agent *d, const char *reason, const char *msg)
{
    char one[512];
    snprintf(one, sizeof one, "%.*s", (int)strcspn(msg, "\n"), msg);
    dlog(&d->a.o->log, "start", NULL, "deployment %lld of device %s could not start: %s (%s); reporting it failed",
         (long long)d->serial, dev_name(d), one, reason);
    release(d, d->dir);   /* a datastore mounted before it failed */
    report(d, "failed", json_pack("[s, s, s, s]", "--reason", reason, "--message", one));
    d->phase = RUN_NONE;
}

/* ---- runs ----------------------------------------------------------------- */

/* Ends what a run folder holds (its stager too) and removes it: grace ms
 * for a SIGTERM sent before to work, then SIGKILL; gives up after
 * STOP_GRACE_MS more if it will not die. */
static void run_clear(dev_agent *d, const char *dir, int grace)
{
    rd_err err = { 0 };
    runner_status_t st;
    agent_stage_abort(dir);
    for (int waited = 0; waited < grace + STOP_GRACE_MS; waited += 100) {
        if (runner_status(dir, &st, &err) != RD_OK || st.state != RUNNER_RUNNING)
            break;
        if (waited >= grace)
            runner_signal(dir, SIGKILL, &err);
        struct timespec ts = { 0, 100 * 1000000L };
        nanosleep(&ts, NULL);
    }
    /* never remove a folder with the share mounted in it */
    if (release(d, dir) == 0 && runner_cleanup(dir, &err) != RD_OK)
        dlog(&d->a.o->log, "run", NULL, "cannot remove %s: %s", dir, err.msg);
}

/* What an agent before this one left in WORK_DIR/runs: gone, as after a
 * reboot, so that the deployment starts afresh.  run_clear ends each
 * run's process, then unmounts its datastore before removing its folder:
 * the device's agent does this rather than agent_mount_sweep, which keeps
 * the mounts of workers still running (a node agent's WORK_DIR/<job>/
 * <index> layout), while every run found here is ended. */
static void clear_leftovers(dev_agent *d)
{
    char runs[4100];
    snprintf(runs, sizeof runs, "%s/runs", d->a.o->work_dir);
    mkdir(runs, 0700);
    DIR *dh = opendir(runs);
    struct dirent *e;
    while (dh && (e = readdir(dh)) != NULL) {
        char path[4400];   /* runs and a name of at most 255 */
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", runs, e->d_name);
        dlog(&d->a.o->log, "run", NULL, "ending what an earlier agent left in %s", path);
        run_clear(d, path, 0);
        rmdir(path);
    }
    if (dh)
        closedir(dh);
}

/* The pseudo-job agent_stage.c stages from: the deployment's frozen refs. */
static json_t *stage_job(dev_agent *d)
{
    char id[300];
    snprintf(id, sizeof id, "device-%s", dev_name(d));
    json_t *j = json_pack("{s:s}", "id", id);
    json_t *refs = json_object_get(d->dep, "data_refs");
    if (j && json_is_object(refs))
        json_object_set(j, "data_refs", refs);
    return j;
}

/* Staging reports progress of jobs; a device's has no such word. */
static rd_code quiet(agent_state *a, json_t *words, rd_err *err)
{
    (void)a;
    (void)err;
    json_decref(words);
    return RD_OK;
}

/* Takes deployment dep up: its configuration, then staging. */
static void run_begin(dev_agent *d, const json_t *dep, const char *region)
{
    char key[RD_KEY_MAX];
    store_kv kv;
    int found = 0;
    rd_err err = { 0 };
    if (d->dir[0])
        run_clear(d, d->dir, 0);   /* the last run's folder (kept for a look after its end) */
    json_decref(d->dep);
    json_decref(d->cfg);
    d->dep = json_deep_copy(dep);
    d->cfg = NULL;
    d->serial = doc_int(dep, "serial");
    d->n++;
    snprintf(d->dir, sizeof d->dir, "%s/runs/%lld-%ld-%d", d->a.o->work_dir, (long long)d->serial, d->a.o->pid, d->n);
    if (store_get(d->a.ctx.store, tx_key(key, KEY_DEVICE_CONFIGS "%s/%s", region, doc_str(dep, "config")), &kv,
                  &found, NULL, &err) == RD_OK && found) {
        d->cfg = json_loadb(kv.value, kv.value_len, 0, NULL);
        store_kv_free(&kv);
    }
    dlog(&d->a.o->log, "deploy", NULL, "deployment %lld of device %s: configuration %s", (long long)d->serial,
         dev_name(d), doc_str(dep, "config"));
    if (!d->cfg) {
        fail_start(d, "start_failed", found ? "its configuration is damaged" : "its configuration cannot be read");
        return;
    }
    if (*doc_str(dep, "data_error")) {
        fail_start(d, "staging_failed", doc_str(dep, "data_error"));
        return;
    }
    d->phase = RUN_STAGING;
}

/* "K=V" for each name of vars. */
static int push_vars(json_t *env, const json_t *vars)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)vars, k, v)
        if (json_array_append_new(env, json_sprintf("%s=%s", k, json_string_value(v))) != 0)
            return 0;
    return 1;
}

/* Staged: starts the command in the foreground of its runner. */
static void run_launch(dev_agent *d, json_t *job)
{
    char msg[600], what[400], ml[4300];
    const char *reason = NULL;
    json_t *vars = NULL, *env = json_array(), *devs = json_array(), *v;
    rd_err err = { 0 };
    size_t i;
    snprintf(what, sizeof what, "device config %s", doc_str(d->cfg, "name"));
    if (job_env_open_in(d->a.ctx.master_key_path, d->cfg, what, &vars, &reason, &err) != RD_OK) {
        fail_start(d, reason, err.msg);
        goto out;
    }
    json_array_append_new(env, json_sprintf("RIGDECK_DEVICE=%s", dev_name(d)));
    if (!push_vars(env, vars) || agent_stage_env(&d->a, job, d->dir, env, msg, sizeof msg) != 0) {
        fail_start(d, "staging_failed", msg);
        goto out;
    }
    int container = runtime_find(d->a.runtime)->container;
    if (container) {
        json_t *bad = NULL, *cdi = probe_cdi_names(NULL, &bad);
        agent_device_passthrough(NULL, d->a.runtime, cdi, devs);
        json_decref(cdi);
        json_decref(bad);
    }
    const char **envv = calloc(json_array_size(env) + 1, sizeof *envv);
    const char **devv = calloc(json_array_size(devs) + 1, sizeof *devv);
    json_array_foreach(env, i, v)
        if (envv)
            envv[i] = json_string_value(v);
    json_array_foreach(devs, i, v)
        if (devv)
            devv[i] = json_string_value(v);
    /* "run in the model code's root directory" (seed 000) */
    char *command = NULL;
    if (asprintf(&command, "cd \"$ML_MODEL_PATH\" || exit 1\n%s", doc_str(d->cfg, "command")) < 0)
        command = NULL;
    char cname[300];
    snprintf(cname, sizeof cname, "rigdeck-device-%s", dev_name(d));
    runner_mount mount;
    agent_stage_mount(d->dir, ml, sizeof ml, &mount);
    runner_spec spec = { .kind = d->a.runtime, .dir = d->dir, .job_id = json_string_value(json_object_get(job, "id")),
                         .command = command, .image = doc_str(d->cfg, "image"), .env = envv, .gpus = "",
                         .mounts = &mount, .n_mounts = container, .name = cname, .devices = devv };
    runner_info info = { 0 };
    rd_code rc = envv && devv && command ? runner_start(&spec, &info, &err) : rd_fail(&err, RD_ENOMEM, "out of memory");
    free(command);
    free(envv);
    free(devv);
    if (rc != RD_OK) {
        fail_start(d, "start_failed", err.msg);
        goto out;
    }
    if (container) {
        d->phase = RUN_LAUNCHING;   /* running once the runtime has made the container */
        dlog(&d->a.o->log, "start", NULL, "deployment %lld: %s is making its container (image %s, %zu device(s) "
             "passed through)", (long long)d->serial, runner_kind_name(d->a.runtime), doc_str(d->cfg, "image"),
             json_array_size(devs));
    } else {
        d->phase = RUN_RUNNING;
        dlog(&d->a.o->log, "start", NULL, "deployment %lld runs (pid %d)", (long long)d->serial, info.worker_pid);
        report(d, "running", NULL);
    }
out:
    json_decref(vars);
    json_decref(env);
    json_decref(devs);
}

/* Asks the run to stop (its deployment is no longer the device's). */
static void run_stop(dev_agent *d, const char *why)
{
    rd_err err = { 0 };
    dlog(&d->a.o->log, "stop", NULL, "deployment %lld: %s; stopping what runs", (long long)d->serial, why);
    agent_stage_abort(d->dir);
    runner_signal(d->dir, SIGTERM, &err);
    d->phase = RUN_STOPPING;
    d->term_ms = rdtime_mono_ms();
    d->killed = 0;
}

/* ---- the loop ------------------------------------------------------------- */

static void tend(dev_agent *d, int64_t now)
{
    runner_status_t st;
    rd_err err = { 0 };
    char msg[600];
    flush(d);
    if (d->phase == RUN_STAGING) {
        json_t *job = stage_job(d);
        stage_state ss = agent_stage_step(&d->a, job, d->dir, 0, msg, sizeof msg, quiet);
        if (ss == STAGE_READY)   /* then the datastore, as a job worker's (BUSY: looked at next round) */
            ss = agent_device_mount_output(&d->a, d->cfg, json_object_get(d->dep, "data_refs"), d->dir, msg,
                                           sizeof msg);
        if (ss == STAGE_FAILED)
            fail_start(d, "staging_failed", msg);
        else if (ss == STAGE_READY)
            run_launch(d, job);
        json_decref(job);
        return;
    }
    if (d->phase == RUN_NONE || runner_status(d->dir, &st, &err) != RD_OK)
        return;
    int ended = st.state == RUNNER_EXITED || st.state == RUNNER_GONE;
    if (d->phase == RUN_STOPPING) {
        if (ended || st.state == RUNNER_NONE) {
            run_clear(d, d->dir, 0);
            d->phase = RUN_NONE;
            d->looked_ms = 0;   /* what the device runs next: look now */
        } else if (!d->killed && now - d->term_ms >= STOP_GRACE_MS) {
            runner_signal(d->dir, SIGKILL, &err);
            d->killed = 1;
        }
        return;
    }
    if (d->phase == RUN_LAUNCHING && !ended) {
        if (runtime_container_started(d->dir)) {
            d->phase = RUN_RUNNING;
            dlog(&d->a.o->log, "start", NULL, "deployment %lld runs in its container", (long long)d->serial);
            report(d, "running", NULL);
        }
        return;
    }
    if (!ended)
        return;
    if (d->phase == RUN_LAUNCHING && !runtime_container_started(d->dir)) {
        const char *reason = runtime_failure(d->dir, &st, msg, sizeof msg);
        fail_start(d, reason, msg);
        return;
    }
    /* its command ended: reported once, and not started again (a
     * container whose command ended within one round ran all the same) */
    if (d->phase == RUN_LAUNCHING)
        report(d, "running", NULL);
    d->phase = RUN_NONE;
    release(d, d->dir);   /* the share is not left mounted on the device */
    if (st.state == RUNNER_EXITED) {
        int code = st.exit_code >= 0 ? st.exit_code : 128 + st.signal;
        dlog(&d->a.o->log, "end", NULL, "deployment %lld ended with exit status %d; it is not restarted (until "
             "the agent restarts)", (long long)d->serial, code);
        report(d, "failed", json_pack("[s, I]", "--exit-code", (json_int_t)code));
    } else {
        dlog(&d->a.o->log, "end", NULL, "deployment %lld: its process is gone without an exit record",
             (long long)d->serial);
        report(d, "failed", json_pack("[s, s, s, s]", "--reason", "lost", "--message",
                                      "its process vanished without an exit record"));
    }
}

static rd_code register_device(dev_agent *d, rd_err *err)
{
    char line[1024];
    json_t *result = NULL;
    const agent_opts *o = d->a.o;
    int64_t hb = (o->heartbeat_ms + 999) / 1000, ttl = (o->heartbeat_ms * 3 + 999) / 1000;
    rd_code rc = store_lease_grant(d->a.ctx.store, ttl < 2 ? 2 : ttl, &d->a.lease, err);
    if (rc != RD_OK)
        return rc;
    json_t *words = json_pack("[s, s, s, s, I, s, I, s, s, s, s, s, I, s, s]", "device", "register", o->device,
                              "--lease", (json_int_t)d->a.lease, "--pid", (json_int_t)o->pid, "--host", o->host,
                              "--version", o->version, "--heartbeat", (json_int_t)(hb < 1 ? 1 : hb), "--runtime",
                              runner_kind_name(d->a.runtime));
    rc = agent_work_line(words, line, sizeof line, err);
    json_decref(words);
    if (rc == RD_OK)
        rc = agent_work_exec(&d->a, line, &result, err);
    if (rc == RD_OK)
        dlog(&o->log, "register", NULL, "registered for device %s (lease %llx, ttl %llds); device is %s", o->device,
             (long long)d->a.lease, (long long)(ttl < 2 ? 2 : ttl), doc_str(result, "device_state"));
    json_decref(result);
    d->a.renewed_ms = rdtime_mono_ms();
    return rc;
}

static void heartbeat(dev_agent *d, int64_t now)
{
    rd_err err = { 0 };
    if (now - d->a.renewed_ms < d->a.o->heartbeat_ms)
        return;
    rd_code rc = store_lease_keepalive(d->a.ctx.store, d->a.lease, NULL, &err);
    if (rc == RD_OK) {
        if (d->a.store_down)
            dlog(&d->a.o->log, "store", NULL, "store reachable again");
        d->a.store_down = 0;
        d->a.renewed_ms = now;
        return;
    }
    if (rc == RD_ENOTFOUND) {
        dlog(&d->a.o->log, "heartbeat", NULL, "lease ran out (silent too long); registering again");
        if (register_device(d, &err) != RD_OK)
            dlog(&d->a.o->log, "register", NULL, "cannot register: %s", err.msg);
        return;
    }
    if (!d->a.store_down)
        dlog(&d->a.o->log, "store", NULL, "heartbeat failed: %s", err.msg);
    d->a.store_down = 1;
    d->a.renewed_ms = now;
}

/* A document of the store (NULL: none, or unreadable: *ok 0). */
static json_t *read_doc(dev_agent *d, const char *key, int *ok)
{
    store_kv kv;
    int found = 0;
    rd_err err = { 0 };
    *ok = store_get(d->a.ctx.store, key, &kv, &found, NULL, &err) == RD_OK;
    json_t *doc = *ok && found ? json_loadb(kv.value, kv.value_len, 0, NULL) : NULL;
    if (found)
        store_kv_free(&kv);
    return doc;
}

/* What the store says: this agent online under its lease (else it
 * registers again), and the deployment to run. */
static void look(dev_agent *d)
{
    char key[RD_KEY_MAX];
    int ok = 0;
    rd_err err = { 0 };
    json_t *agent = read_doc(d, tx_key(key, KEY_DEVICE_AGENTS "%s", dev_name(d)), &ok);
    if (!ok)
        return;
    if (!agent || strcmp(doc_str(agent, "state"), "online") != 0 || doc_int(agent, "lease") != d->a.lease) {
        int64_t old = d->a.lease;
        dlog(&d->a.o->log, "register", NULL, "the store does not show this agent online under its lease; "
             "registering again");
        if (register_device(d, &err) != RD_OK)
            dlog(&d->a.o->log, "register", NULL, "cannot register: %s", err.msg);
        else if (old && old != d->a.lease)
            store_lease_revoke(d->a.ctx.store, old, &err);
    }
    json_decref(agent);
    json_t *dev = read_doc(d, tx_key(key, KEY_DEVICES "%s", dev_name(d)), &ok);
    if (!ok)
        return;
    device_deployment_normalize(dev);
    const json_t *dep = json_object_get(dev, "deployment");
    int removed = !dev || strcmp(doc_str(dev, "state"), "removed") == 0;
    if (removed || !device_deployment_live(dep)) {
        if (d->phase != RUN_NONE && d->phase != RUN_STOPPING)
            run_stop(d, removed ? "the device was removed" : "its deployment was stopped");
    } else if (doc_int(dep, "serial") != d->serial) {
        if (d->phase != RUN_NONE && d->phase != RUN_STOPPING)
            run_stop(d, "a new deployment replaces it");
        else if (d->phase == RUN_NONE)
            run_begin(d, dep, doc_str(dev, "region"));
    }
    json_decref(dev);
}

rd_code agent_device_run(const agent_opts *o, rd_err *err)
{
    dev_agent d;
    memset(&d, 0, sizeof d);
    d.a.o = o;
    d.a.ctx.store_url = o->store_url;
    d.a.ctx.store_opts = o->store_opts;
    d.a.ctx.actor = o->actor;
    d.a.ctx.actor_given = strcmp(o->actor, "default") != 0;
    d.a.ctx.master_key_path = o->master_key_path;
    d.a.ctx.now = o->log.now();
    d.pending = json_array();
    runner_kind kind = RUNNER_AUTO;
    char scratch[4200];
    rd_code rc = d.pending ? runner_kind_parse(o->runtime ? o->runtime : "auto", &kind, err)
                           : rd_fail(err, RD_ENOMEM, "out of memory");
    if (rc == RD_OK && mkdir(o->work_dir, 0700) != 0 && errno != EEXIST)
        rc = rd_fail(err, RD_EINVAL, "--work-dir: cannot create %s: %s", o->work_dir, strerror(errno));
    snprintf(scratch, sizeof scratch, "%s/.runtime-check", o->work_dir);
    if (rc == RD_OK)
        rc = runtime_pick(kind, scratch, NULL, NULL, &kind, err);
    if (rc == RD_OK) {
        store_set_notice(dlog_store_notice, (void *)&o->log);
        rc = cmd_ctx_open_store(&d.a.ctx, err);
        if (rc == RD_OK)
            cmd_ctx_upgrade(&d.a.ctx);
        store_set_notice(NULL, NULL);
    }
    d.a.runtime = kind;
    if (rc == RD_OK) {
        dlog(&o->log, "start", NULL, "agent for device %s on %s (runtime %s, work dir %s, heartbeat %lldms)",
             o->device, store_url(d.a.ctx.store), runner_kind_name(kind), o->work_dir, (long long)o->heartbeat_ms);
        clear_leftovers(&d);
        rc = register_device(&d, err);
    }
    while (rc == RD_OK && !*o->stop) {
        int64_t now = rdtime_mono_ms();
        heartbeat(&d, now);
        if (now - d.looked_ms >= LOOK_MS || o->once) {
            d.looked_ms = now;
            look(&d);
        }
        tend(&d, now);
        if (o->once)
            break;
        struct timespec ts = { 0, WAIT_MS * 1000000L };
        nanosleep(&ts, NULL);
    }
    if (rc == RD_OK && d.phase != RUN_NONE) {
        dlog(&o->log, "stop", NULL, "stopping: ending deployment %lld's run (it starts again with the agent)",
             (long long)d.serial);
        rd_err ignored = { 0 };
        runner_signal(d.dir, SIGTERM, &ignored);
        run_clear(&d, d.dir, STOP_GRACE_MS);
    } else if (rc == RD_OK) {
        dlog(&o->log, "stop", NULL, "stopping");
    }
    json_decref(d.pending);
    json_decref(d.dep);
    json_decref(d.cfg);
    cmd_ctx_close(&d.a.ctx);
    return rc;
}
