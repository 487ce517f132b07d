/* agent_stage.c - a worker's data before its command: what to fetch, the
 * stager that fetches it, its progress and its end (execution.md §5).
 *
 * A worker placed here stays `starting` while its data is staged, so
 * staging is never billed: its `started_at` is the command's start.  The
 * agent never fetches anything itself: it writes a plan into
 * WORKER_DIR/.stage/plan.json (0600: it holds the opened key values the
 * fetches need; the stager deletes it once read) and starts `rigdeck
 * agent-stage WORKER_DIR` (stage_fetch.c) as a child process, exec'd
 * rather than merely forked because the agent has threads (libmicrohttpd,
 * libcurl) and a forked copy may only call async-signal-safe functions.
 * Each reconcile round (every few seconds) asks agent_stage_step where it
 * stands, from the files the stager leaves in .stage (done, failed, bytes,
 * pid): nothing is kept in memory, so a restarted agent finds a running
 * stager (by its pid and command line) or its result.
 *
 * A local data.input or model.source waits for the user's `job send`
 * first (agent_transfer.c), unbilled too.
 *
 * The data lands in WORKER_DIR/opt/ml/{input,checkpoint,models,output}:
 * the process runtime's command sees that tree through ML_*_PATH; a
 * container gets it bind-mounted at /opt/ml.
 */
#include "agent_stage.h"
#include "agent_transfer.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "data.h"
#include "doc.h"
#include "fleet.h"
#include "runner.h"
#include "secret.h"

extern char **environ;

enum { STAGE_SAY_EVERY_S = 3 };   /* at most one progress report per worker this often */

/* ---- files ----------------------------------------------------------------- */

static int write_secret_file(const char *path, const char *text, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return -1;
    int ok = fchmod(fd, 0600) == 0 && write(fd, text, n) == (ssize_t)n;
    return close(fd) == 0 && ok ? 0 : -1;
}

/* ---- keys ------------------------------------------------------------------ */

/* The opened value of the job's key name (data_refs.secret_keys, sealed at
 * submit), its type in *type; NULL with msg on failure. */
static char *key_open(agent_state *a, const json_t *job, const char *name, const char **type, char *msg, size_t len)
{
    const json_t *k = json_object_get(json_object_get(json_object_get(job, "data_refs"), "secret_keys"), name);
    const char *sealed = json_string_value(json_object_get(k, "secret_value"));
    char *plain = NULL;
    size_t n = 0;
    rd_err err = { 0 };
    *type = json_string_value(json_object_get(k, "type"));
    if (!sealed || !*type) {
        snprintf(msg, len, "key '%s': the job carries no value for it (submitted before staging)", name);
        return NULL;
    }
    rd_code rc = fleet_unseal(&a->ctx, sealed, &plain, &n, &err);
    if (rc != RD_OK) {
        snprintf(msg, len, "key '%s': cannot open it: %s", name, err.msg);
        return NULL;
    }
    return plain;   /* NUL-terminated by secret_open */
}

/* The first key the job attaches whose type fits kind ("s3", "gs", "git",
 * or "https" for a spec's azure source). */
static const char *attached_key_for(const json_t *job, const char *kind, const char *source_type)
{
    const json_t *r;
    size_t i;
    json_array_foreach(json_object_get(json_object_get(job, "data_refs"), "keys"), i, r) {
        const char *t = doc_str(r, "type");
        if ((strcmp(kind, "s3") == 0 && (source_type && strcmp(source_type, "wasabi") == 0 ? strcmp(t, "wasabi") == 0
                                                                                          : strcmp(t, "aws") == 0)) ||
            (strcmp(kind, "gs") == 0 && strcmp(t, "gcp") == 0) || (strcmp(kind, "git") == 0 && strcmp(t, "git") == 0) ||
            (strcmp(kind, "https") == 0 && source_type && strcmp(source_type, "azure") == 0 && strcmp(t, "azure") == 0))
            return doc_str(r, "name");
    }
    return NULL;
}

/* The spec's storage types staging copies (data.input, model.source): not
 * local (the customer's computer), regional (mounted) or rigdeck (a ref). */
static int fetched_type(const char *type)
{
    static const char *const types[] = { "aws", "azure", "gcp", "git", "wasabi", "web", NULL };
    for (const char *const *t = types; *t; t++)
        if (strcmp(type, *t) == 0)
            return 1;
    return 0;
}

/* ---- the plan -------------------------------------------------------------- */

/* Appends one item: what (for messages), url, the folder, the key. */
static int plan_add(agent_state *a, const json_t *job, json_t *items, const char *what, const char *url,
                    int force_git, const char *endpoint, const char *key, const char *source_type, const char *dest,
                    char *msg, size_t len)
{
    datasrc src = { 0 };
    rd_err err = { 0 };
    if (!url || !*url)
        return 0;
    if (datasrc_parse("source", url, &src, &err) != RD_OK) {
        snprintf(msg, len, "%s: %s", what, err.msg);
        return -1;
    }
    const char *kind = force_git || src.type == DATASRC_GIT_HTTP || src.type == DATASRC_GIT_SSH ? "git"
                                                                                               : datasrc_type_name(src.type);
    int datastore = src.type == DATASRC_DATASTORE;
    datasrc_free(&src);
    if (datastore)
        return 0;   /* mounted, not copied (agent_mount.c) */
    json_t *it = json_pack("{s:s, s:s, s:s, s:s}", "what", what, "kind", kind, "url", url, "dest", dest);
    if (endpoint && *endpoint)
        json_object_set_new(it, "endpoint", json_string(endpoint));
    if (!key || !*key)
        key = attached_key_for(job, kind, source_type);
    if (key && *key) {
        const char *type = NULL;
        char *plain = key_open(a, job, key, &type, msg, len);
        if (!plain) {
            json_decref(it);
            return -1;
        }
        json_object_set_new(it, "key_type", json_string(type));
        json_object_set_new(it, "key_value", json_string(plain));
        explicit_bzero(plain, strlen(plain));
        free(plain);
    }
    json_array_append_new(items, it);
    return 0;
}

void agent_stage_object_dest(char *out, size_t len, const char *base, size_t n, const char *name)
{
    if (n == 1) {
        snprintf(out, len, "%s", base);
        return;
    }
    size_t at = (size_t)snprintf(out, len, "%s/", base);
    for (; *name && at + 1 < len; name++)
        out[at++] = *name == ' ' ? '_' : *name;
    out[at] = '\0';
}

static int plan_objects(agent_state *a, const json_t *job, json_t *items, const char *list, const char *word,
                        const char *base, char *msg, size_t len)
{
    const json_t *refs = json_object_get(json_object_get(job, "data_refs"), list), *r;
    size_t i;
    json_array_foreach(refs, i, r) {
        char what[300], dest[4600];
        snprintf(what, sizeof what, "%s '%s'", word, doc_str(r, "name"));
        agent_stage_object_dest(dest, sizeof dest, base, json_array_size(refs), doc_str(r, "name"));
        if (plan_add(a, job, items, what, doc_str(r, "source"), 0, doc_str(r, "endpoint"), doc_str(r, "key"), NULL,
                     dest, msg, len) != 0)
            return -1;
    }
    return 0;
}

/* What the worker in dir fetches, as the stager's items; NULL with msg. */
static json_t *plan_build(agent_state *a, const json_t *job, const char *dir, char *msg, size_t len)
{
    char tree[4200], dest[4400];
    json_t *items = json_array();
    snprintf(tree, sizeof tree, "%s/opt/ml", dir);
    snprintf(dest, sizeof dest, "%s/input", tree);
    if (plan_objects(a, job, items, "datasets", "dataset", dest, msg, len) != 0)
        goto fail;
    snprintf(dest, sizeof dest, "%s/checkpoint", tree);
    if (plan_objects(a, job, items, "checkpoints", "checkpoint", dest, msg, len) != 0)
        goto fail;
    snprintf(dest, sizeof dest, "%s/models", tree);
    const json_t *mref = json_object_get(json_object_get(job, "data_refs"), "model");
    const json_t *model = json_object_get(job, "model");
    const char *msrc = doc_str(model, "source");
    if (json_is_object(mref)) {
        char what[300];
        snprintf(what, sizeof what, "model '%s'", doc_str(mref, "name"));
        if (plan_add(a, job, items, what, doc_str(mref, "source"), 0, doc_str(mref, "endpoint"), doc_str(mref, "key"),
                     NULL, dest, msg, len) != 0)
            goto fail;
    } else if (fetched_type(msrc)) {
        if (plan_add(a, job, items, "model.location", doc_str(model, "location"), strcmp(msrc, "git") == 0,
                     doc_str(model, "endpoint"), NULL, msrc, dest, msg, len) != 0)
            goto fail;
    }
    const json_t *input = json_object_get(json_object_get(job, "data"), "input");
    const char *itype = doc_str(input, "type");
    snprintf(dest, sizeof dest, "%s/input", tree);
    if (fetched_type(itype) &&
        plan_add(a, job, items, "data.input", doc_str(input, "path"), 0, doc_str(input, "endpoint"), NULL, itype, dest,
                 msg, len) != 0)
        goto fail;
    return items;
fail:
    json_decref(items);
    return NULL;
}

/* ---- the stager ------------------------------------------------------------ */

/* 1 while the stager pid (started for dir) runs. */
static int stager_alive(pid_t pid)
{
    int st;
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == 0)
        return 1;
    if (r == pid || errno != ECHILD)
        return 0;
    /* not our child (an agent restarted since): its command line says */
    char path[64], cmd[256] = "";
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    FILE *f = fopen(path, "re");
    size_t n = f ? fread(cmd, 1, sizeof cmd - 1, f) : 0;
    if (f)
        fclose(f);
    cmd[n] = '\0';
    for (size_t i = 0; i < n; i++)
        if (!cmd[i])
            cmd[i] = ' ';
    return strstr(cmd, "agent-stage") != NULL;
}

static int stager_start(const char *dir, const json_t *items, char *msg, size_t len)
{
    char sdir[4200], path[4300], log[4300], pidtxt[32];
    rd_err err = { 0 };
    runner_cleanup(dir, &err);   /* what a stager that died left behind */
    snprintf(sdir, sizeof sdir, "%s/.stage", dir);
    json_t *plan = json_pack("{s:O}", "items", items);
    char *text = plan ? json_dumps(plan, JSON_COMPACT) : NULL;
    json_decref(plan);
    snprintf(path, sizeof path, "%s/plan.json", sdir);
    int bad = !text || runner_mkdirs(sdir, 0700, 0700) != 0 || write_secret_file(path, text, strlen(text)) != 0;
    if (text) {
        explicit_bzero(text, strlen(text));
        free(text);
    }
    if (bad) {
        snprintf(msg, len, "staging: cannot write its plan in %s: %s", sdir, strerror(errno));
        return -1;
    }
    snprintf(log, sizeof log, "%s/log", sdir);
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID);   /* not in the agent's terminal's group */
    /* this very binary, by the name readlink gives (under valgrind, the
     * program's, not the tool's) */
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0)
        exe[n] = '\0';
    else
        snprintf(exe, sizeof exe, "/proc/self/exe");
    char *argv[] = { "rigdeck", "agent-stage", (char *)dir, NULL };
    pid_t pid;
    int rc = posix_spawn(&pid, exe, &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (rc != 0) {
        snprintf(msg, len, "staging: cannot start the stager: %s", strerror(rc));
        return -1;
    }
    snprintf(path, sizeof path, "%s/pid", sdir);
    snprintf(pidtxt, sizeof pidtxt, "%d\n", (int)pid);
    write_secret_file(path, pidtxt, strlen(pidtxt));
    return 0;
}

/* `job report ID staging --worker N --bytes B`, at most every few seconds. */
static void say_progress(agent_state *a, const json_t *job, const char *sdir, size_t index,
                         agent_stage_report_fn report)
{
    char path[4300], bytes[32] = "", idx[24];
    struct stat sb;
    int64_t now = a->o->log.now();
    snprintf(path, sizeof path, "%s/said", sdir);
    if (stat(path, &sb) == 0 && now - (int64_t)sb.st_mtime < STAGE_SAY_EVERY_S)
        return;
    write_secret_file(path, "", 0);
    snprintf(path, sizeof path, "%s/bytes", sdir);
    runner_read_text(path, bytes, sizeof bytes);
    bytes[strcspn(bytes, "\n")] = '\0';
    snprintf(idx, sizeof idx, "%zu", index);
    json_t *words = json_pack("[s, s, s, s, s, s]", "job", "report", doc_str(job, "id"), "staging", "--worker", idx);
    if (*bytes) {
        json_array_append_new(words, json_string("--bytes"));
        json_array_append_new(words, json_string(bytes));
    }
    rd_err err = { 0 };
    if (words)
        report(a, words, &err);   /* takes words */
}

void agent_stage_abort(const char *dir)
{
    char path[4300], text[64];
    agent_transfer_forget(dir, 0);   /* no longer waits for job send */
    snprintf(path, sizeof path, "%s/.stage/pid", dir);
    if (runner_read_text(path, text, sizeof text) != 0)
        return;
    pid_t pid = (pid_t)atoi(text);
    if (pid > 0 && stager_alive(pid))
        kill(-pid, SIGKILL);   /* its session: the stager, rclone, git */
}

stage_state agent_stage_step(agent_state *a, const json_t *job, const char *dir, size_t index, char *msg,
                             size_t len, agent_stage_report_fn report)
{
    char sdir[4200], path[4300], text[1024];
    snprintf(sdir, sizeof sdir, "%s/.stage", dir);
    for (int pass = 0; pass < 2; pass++) {
        snprintf(path, sizeof path, "%s/done", sdir);
        if (access(path, F_OK) == 0)
            return STAGE_READY;
        snprintf(path, sizeof path, "%s/failed", sdir);
        if (runner_read_text(path, text, sizeof text) == 0) {
            text[strcspn(text, "\n")] = '\0';
            snprintf(msg, len, "%s", text);
            return STAGE_FAILED;
        }
        snprintf(path, sizeof path, "%s/pid", sdir);
        if (pass == 0 && runner_read_text(path, text, sizeof text) == 0) {
            pid_t pid = (pid_t)atoi(text);
            if (pid > 0 && stager_alive(pid)) {
                say_progress(a, job, sdir, index, report);
                return STAGE_BUSY;
            }
            continue;   /* it ended: look at its word again (it may have just written it) */
        }
        if (pass == 1) {
            snprintf(msg, len, "staging: the stager ended without a word (see %s/log)", sdir);
            return STAGE_FAILED;
        }
        /* type local first: it waits for `job send` (agent_transfer.c) */
        stage_state local = agent_transfer_stage(a, job, dir, index, msg, len, report);
        if (local != STAGE_READY)
            return local;
        json_t *items = plan_build(a, job, dir, msg, len);
        if (!items)
            return STAGE_FAILED;
        size_t n = json_array_size(items);
        int rc = n ? stager_start(dir, items, msg, len) : 0;
        json_decref(items);   /* the opened values: only the 0600 plan holds them now */
        if (!n)
            return STAGE_READY;
        if (rc != 0)
            return STAGE_FAILED;
        dlog(&a->o->log, "stage", NULL, "%s/%zu: staging %zu item(s) before its command", doc_str(job, "id"), index, n);
        say_progress(a, job, sdir, index, report);
        return STAGE_BUSY;
    }
    return STAGE_BUSY;
}

/* ---- the worker's variables ------------------------------------------------ */

static int push(json_t *env, const char *k, const char *v, size_t vlen)
{
    return json_array_append_new(env, json_sprintf("%s=%.*s", k, (int)vlen, v)) == 0 ? 0 : -1;
}

/* Each "K=V" line of text (names as datakey_file.c checked them). */
static int push_lines(json_t *env, const char *text, const char *only1, const char *only2)
{
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        size_t n = strcspn(p, "\r\n"), k = strcspn(p, "=");
        if (k >= n || *p == '#')
            continue;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)k, p);
        if (only1 && strcmp(name, only1) != 0 && strcmp(name, only2) != 0)
            continue;
        if (push(env, name, p + k + 1, n - k - 1) != 0)
            return -1;
    }
    return 0;
}

int agent_stage_env(agent_state *a, const json_t *job, const char *dir, json_t *env, char *msg, size_t len)
{
    static const char *const sub[] = { "input", "checkpoint", "models", "output" };
    static const char *const var[] = { "ML_DATA_PATH", "ML_CHECKPOINT_PATH", "ML_MODEL_PATH", "ML_OUTPUT_PATH" };
    char tree[4200], path[4400], base[4200];
    snprintf(tree, sizeof tree, "%s/opt/ml", dir);
    snprintf(base, sizeof base, "%s", a->runtime == RUNNER_PROCESS ? tree : "/opt/ml");
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", tree, sub[i]);
        if (runner_mkdirs(path, 0700, 0755) != 0) {
            snprintf(msg, len, "staging: %s: %s", path, strerror(errno));
            return -1;
        }
        snprintf(path, sizeof path, "%s/%s", base, sub[i]);
        if (push(env, var[i], path, strlen(path)) != 0)
            return -1;
    }
    const json_t *r;
    size_t i;
    json_array_foreach(json_object_get(json_object_get(job, "data_refs"), "keys"), i, r) {
        const char *type = NULL, *name = doc_str(r, "name");
        char *v = key_open(a, job, name, &type, msg, len);
        if (!v)
            return -1;
        size_t vl = strlen(v);
        while (vl && (v[vl - 1] == '\n' || v[vl - 1] == '\r' || v[vl - 1] == ' '))
            vl--;
        int rc = 0;
        if (strcmp(type, "aws") == 0 || strcmp(type, "wasabi") == 0)
            rc = push_lines(env, v, NULL, NULL);   /* AWS_* lines only (datakey_file.c) */
        else if (strcmp(type, "env") == 0)
            rc = push_lines(env, v, NULL, NULL);
        else if (strcmp(type, "azure") == 0)
            rc = push(env, "AZURE_STORAGE_CONNECTION_STRING", v, vl);
        else if (strcmp(type, "huggingface") == 0)
            rc = push(env, "HF_TOKEN", v, vl);
        else if (strcmp(type, "wandb") == 0)
            rc = push(env, "WANDB_API_KEY", v, vl);
        else if (strcmp(type, "gcp") == 0) {
            snprintf(path, sizeof path, "%s/.keys", tree);
            rc = runner_mkdirs(path, 0700, 0700);
            snprintf(path, sizeof path, "%s/.keys/%s.json", tree, name);
            if (rc == 0)
                rc = write_secret_file(path, v, strlen(v));
            snprintf(path, sizeof path, "%s/.keys/%s.json", base, name);
            if (rc == 0)
                rc = push(env, "GOOGLE_APPLICATION_CREDENTIALS", path, strlen(path));
        }
        explicit_bzero(v, strlen(v));
        free(v);
        if (rc != 0) {
            snprintf(msg, len, "key '%s': cannot hand it to the worker", name);
            return -1;
        }
    }
    return 0;
}

void agent_stage_mount(const char *dir, char *buf, size_t len, runner_mount *m)
{
    snprintf(buf, len, "%s/opt/ml", dir);
    m->host_path = buf;
    m->container_path = "/opt/ml";
    m->read_only = 0;
}
