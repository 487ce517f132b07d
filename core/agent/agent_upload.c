/* agent_upload.c - a worker's output after its command (execution.md §5,
 * "After the command"; docs/operations.md, "Data").
 *
 * A worker writes its results to ML_OUTPUT_PATH: WORKER_DIR/opt/ml/output
 * on the process runtime, the same folder bound at /opt/ml/output in a
 * container.  When its command has ended by itself (finished or failed:
 * the command ran, and a failed run's partial results and logs are what
 * one debugs it with; not when it was stopped or never ran), a job with
 * data.output gets that folder zipped as "<job name>.zip" (one worker) or
 * "<job name>_<index>.zip" (several) at the output path (job_output.c
 * names it), and only then is the worker's end reported: it stays running,
 * and billed, while it uploads, its phase `uploading`.  A failed upload
 * ends it `failed`, reason `upload_failed`, with the cause's line.
 *
 * The work is done by tools, not by hand: libarchive writes the zip and
 * rclone (one client for S3 and every S3-compatible store, GCS, Azure Blob)
 * copies it, in a child process the agent polls, so the agent loop never
 * waits on a transfer.  Credentials reach rclone only through the child's
 * environment (RCLONE_<BACKEND>_* variables), never its argv or a log: the
 * job's attached key of the matching type, or for type rigdeck the key of
 * the creator's artifacts location, opened with the master key from the
 * sealed copy the job carries (data_refs.secret_keys, as staging does):
 * on a secured store the agent cannot read the account's keys themselves.
 *
 * Type local: the zip is only made here; it is then offered to the user's
 * `job receive` (agent_transfer.c), the worker still uploading and billed,
 * until it is taken or the wait's deadline passes (upload_failed).
 *
 * An agent that stops kills an upload in flight (agent_upload_forget); the
 * worker's process has exited and its folder stays, so the next agent
 * finds it ended but unreported and uploads it again from the start.
 */
#include "agent_upload.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "doc.h"
#include "fleet.h"
#include "job_output.h"
#include "agent_transfer.h"
#include "runner_packages.h"

enum { UP_RUNNING = 1, UP_OK, UP_FAILED, UP_WAITING };

struct agent_upload {
    int state;
    pid_t pid;
    int register_it;      /* type rigdeck: --register with the end */
    int bytes_said;       /* the archive's size was reported */
    int local;            /* type local: zipped only, then offered to `job receive` (UP_WAITING) */
    char zip[4400];       /* the archive */
    int64_t end_ms;       /* when it ended */
    char msg[400];        /* UP_FAILED: the cause's line */
};

int agent_upload_prepare(agent_state *a, agent_worker *w, json_t *env, runner_mount *mount, size_t *nmount,
                         char *host_path, size_t len, rd_err *err)
{
    char path[4200];
    *nmount = 0;
    snprintf(path, sizeof path, "%s/opt/ml/output", w->dir);
    /* every missing folder down to it, the worker's own included */
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        int bad = mkdir(path, 0700) != 0 && errno != EEXIST;
        *p = c;
        if (bad) {
            rd_fail(err, RD_ESTORE, "cannot make %s: %s", path, strerror(errno));
            return 0;
        }
        if (!c)
            break;
    }
    snprintf(host_path, len, "%s", path);
    if (a->runtime == RUNNER_PROCESS)
        return json_array_append_new(env, json_sprintf("ML_OUTPUT_PATH=%s", host_path)) == 0;
    mount->host_path = host_path;
    mount->container_path = "/opt/ml/output";
    mount->read_only = 0;
    *nmount = 1;
    return 1;
}

/* ---- credentials --------------------------------------------------------- */

/* The plain text of the job's key name, opened from the sealed copy the
 * job carries (data_refs.secret_keys, sealed at submit, as staging opens
 * it: agent_stage.c), or NULL (err says why).  Never the account's key
 * object itself: a secured agent's etcd user cannot read the keys, only
 * its work view. */
static char *key_text(agent_state *a, const json_t *job, const char *name, rd_err *err)
{
    const json_t *k = json_object_get(json_object_get(json_object_get(job, "data_refs"), "secret_keys"), name);
    const char *sealed = json_string_value(json_object_get(k, "secret_value"));
    char *plain = NULL;
    size_t len = 0;
    if (!sealed) {
        rd_fail(err, RD_ENOTFOUND, "the job carries no value for it (submitted before outputs sealed their key)");
        return NULL;
    }
    if (fleet_unseal(&a->ctx, sealed, &plain, &len, err) != RD_OK)
        plain = NULL;
    return plain;
}

/* The value of "NAME=value" or "NAME: value" in text (a key file), or of
 * "Name=value;" in an Azure connection string; "" when absent. */
static void field_of(const char *text, const char *name, char sep_end, char *out, size_t len)
{
    size_t n = strlen(name);
    out[0] = '\0';
    for (const char *p = text; p && *p; p++) {
        if ((p == text || p[-1] == '\n' || p[-1] == ';') && strncmp(p, name, n) == 0 && p[n] == '=') {
            const char *v = p + n + 1, *e = v;
            while (*e && *e != '\n' && *e != '\r' && *e != sep_end)
                e++;
            snprintf(out, len, "%.*s", (int)(e - v), v);
            return;
        }
    }
}

static int put_env(json_t *env, const char *name, const char *value)
{
    return !*value || json_array_append_new(env, json_sprintf("%s=%s", name, value)) == 0;
}

/* The key that writes to the output: for type rigdeck the artifacts key;
 * else the first attached key (environment.keys) of a type in types. */
static int pick_key(const json_t *job, const char *const *types, const char **name, const char **type)
{
    const json_t *refs = json_object_get(job, "data_refs"), *k;
    size_t i;
    if (strcmp(doc_str(json_object_get(json_object_get(job, "data"), "output"), "type"), "rigdeck") == 0) {
        const json_t *ref = json_object_get(refs, "output");
        *name = doc_str(ref, "key");
        *type = doc_str(ref, "key_type");
        return **name != 0;
    }
    for (const char *const *t = types; *t; t++)
        json_array_foreach(json_object_get(refs, "keys"), i, k)
            if (strcmp(doc_str(k, "type"), *t) == 0) {
                *name = doc_str(k, "name");
                *type = *t;
                return 1;
            }
    return 0;
}

/* The key types that may write to url, best first; NULL: not an output. */
static const char *const *key_types_for(const char *url)
{
    static const char *const s3_keys[] = { "wasabi", "aws", NULL }, *const gcs_keys[] = { "gcp", NULL },
                             *const az_keys[] = { "azure", NULL };
    if (strncmp(url, "s3://", 5) == 0)
        return s3_keys;
    if (strncmp(url, "gs://", 5) == 0)
        return gcs_keys;
    if (strncmp(url, "https://", 8) == 0 && strstr(url, ".blob.core.windows.net/"))
        return az_keys;
    return NULL;
}

int agent_upload_remote(const char *url, const char *endpoint, const char *key_type, const char *key_text,
                        char *remote, size_t rlen, json_t *env, char *msg, size_t mlen)
{
    char v1[1024], v2[1024];
    int ok = 1;
    if (!endpoint)
        endpoint = "";
    if (strncmp(url, "s3://", 5) == 0) {
        snprintf(remote, rlen, ":s3:%s", url + 5);
        /* never create a bucket in the customer's account: a missing one
         * is an error the customer must see */
        ok = put_env(env, "RCLONE_S3_PROVIDER", *endpoint ? "Other" : "AWS") &&
             put_env(env, "RCLONE_S3_ENDPOINT", endpoint) && put_env(env, "RCLONE_S3_NO_CHECK_BUCKET", "true");
    } else if (strncmp(url, "gs://", 5) == 0) {
        snprintf(remote, rlen, ":gcs:%s", url + 5);
        ok = put_env(env, "RCLONE_GCS_BUCKET_POLICY_ONLY", "true");
    } else if (key_types_for(url)) {
        /* https://ACCOUNT.blob.core.windows.net/CONTAINER/PATH */
        const char *host = url + 8, *dot = strchr(host, '.'), *path = strstr(url, ".blob.core.windows.net/") + 23;
        snprintf(v1, sizeof v1, "%.*s", (int)(dot - host), host);
        snprintf(remote, rlen, ":azureblob:%s", path);
        ok = put_env(env, "RCLONE_AZUREBLOB_ACCOUNT", v1);
    } else {
        snprintf(msg, mlen, "cannot upload to %s: an output goes to s3://, gs:// or Azure Blob storage (https://"
                 "ACCOUNT.blob.core.windows.net/...)", url);
        return 0;
    }
    if (ok && key_type && key_text) {
        if (strcmp(key_type, "aws") == 0 || strcmp(key_type, "wasabi") == 0) {
            field_of(key_text, "AWS_ACCESS_KEY_ID", '\n', v1, sizeof v1);
            field_of(key_text, "AWS_SECRET_ACCESS_KEY", '\n', v2, sizeof v2);
            ok = put_env(env, "RCLONE_S3_ACCESS_KEY_ID", v1) && put_env(env, "RCLONE_S3_SECRET_ACCESS_KEY", v2);
            field_of(key_text, "AWS_SESSION_TOKEN", '\n', v2, sizeof v2);
            ok = ok && put_env(env, "RCLONE_S3_SESSION_TOKEN", v2);
        } else if (strcmp(key_type, "gcp") == 0) {
            ok = put_env(env, "RCLONE_GCS_SERVICE_ACCOUNT_CREDENTIALS", key_text);
        } else if (strcmp(key_type, "azure") == 0) {
            /* an account key; a SAS-only connection string is not enough for
             * rclone's on-the-fly remote (it wants a container SAS URL) */
            field_of(key_text, "AccountKey", ';', v2, sizeof v2);
            ok = put_env(env, "RCLONE_AZUREBLOB_KEY", v2);
        }
    }
    explicit_bzero(v1, sizeof v1);
    explicit_bzero(v2, sizeof v2);
    if (!ok)
        snprintf(msg, mlen, "out of memory");
    return ok;
}

/* rclone's remote for the job's output url and the variables that
 * configure it (env), with the key that writes there; 0 with msg when
 * this output cannot be uploaded. */
static int remote_for(agent_state *a, const json_t *job, const char *url, char *remote, size_t rlen, json_t *env,
                      char *msg, size_t mlen)
{
    const json_t *out = json_object_get(json_object_get(job, "data"), "output");
    const json_t *ref = json_object_get(json_object_get(job, "data_refs"), "output");
    const char *endpoint = strcmp(doc_str(out, "type"), "rigdeck") == 0 ? doc_str(ref, "endpoint")
                                                                         : doc_str(out, "endpoint");
    const char *const *types = key_types_for(url);
    const char *name = "", *type = NULL;
    char *text = NULL;
    rd_err err = { 0 };
    /* no key attached: rclone goes anonymous (a public bucket), or the store refuses */
    if (types && pick_key(job, types, &name, &type) && !(text = key_text(a, job, name, &err))) {
        snprintf(msg, mlen, "key '%.80s': %.300s", name, err.msg);
        return 0;
    }
    int ok = agent_upload_remote(url, endpoint, text ? type : NULL, text, remote, rlen, env, msg, mlen);
    if (text) {
        explicit_bzero(text, strlen(text));
        free(text);
    }
    return ok;
}

/* ---- the child ------------------------------------------------------------ */

/* Zips the folder src (cwd-relative names) into zip with libarchive. */
static int zip_folder(const char *src, const char *zip)
{
    struct archive *disk = archive_read_disk_new(), *out = archive_write_new();
    struct archive_entry *e;
    int r, rc = 0;
    if (!disk || !out || chdir(src) != 0 || archive_write_set_format_zip(out) != ARCHIVE_OK ||
        archive_write_open_filename(out, zip) != ARCHIVE_OK) {
        fprintf(stderr, "zip: cannot write %s: %s\n", zip, out ? archive_error_string(out) : "out of memory");
        return 1;
    }
    archive_read_disk_set_standard_lookup(disk);
    archive_read_disk_set_symlink_physical(disk);   /* a link is stored as a link, never followed out */
    if (archive_read_disk_open(disk, ".") != ARCHIVE_OK) {
        fprintf(stderr, "zip: cannot read %s: %s\n", src, archive_error_string(disk));
        return 1;
    }
    while (!rc && (e = archive_entry_new()) && (r = archive_read_next_header2(disk, e)) != ARCHIVE_EOF) {
        const char *p = archive_entry_pathname(e);
        if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
            fprintf(stderr, "zip: %s\n", archive_error_string(disk));
            rc = 1;
        } else {
            archive_read_disk_descend(disk);
            if (strcmp(p, ".") != 0) {
                if (strncmp(p, "./", 2) == 0)
                    archive_entry_set_pathname(e, p + 2);
                if (archive_write_header(out, e) != ARCHIVE_OK) {
                    fprintf(stderr, "zip: %s\n", archive_error_string(out));
                    rc = 1;
                } else if (archive_entry_filetype(e) == AE_IFREG && archive_entry_size(e) > 0) {
                    char buf[65536];
                    int fd = open(archive_entry_sourcepath(e), O_RDONLY);
                    ssize_t n;
                    while (fd >= 0 && (n = read(fd, buf, sizeof buf)) > 0)
                        if (archive_write_data(out, buf, (size_t)n) < 0) {
                            fprintf(stderr, "zip: %s\n", archive_error_string(out));
                            rc = 1;
                            break;
                        }
                    if (fd < 0) {
                        fprintf(stderr, "zip: cannot read %s: %s\n", archive_entry_sourcepath(e), strerror(errno));
                        rc = 1;
                    }
                    if (fd >= 0)
                        close(fd);
                }
            }
        }
        archive_entry_free(e);
    }
    archive_read_free(disk);
    if (archive_write_close(out) != ARCHIVE_OK && !rc) {
        fprintf(stderr, "zip: %s\n", archive_error_string(out));
        rc = 1;
    }
    archive_write_free(out);
    return rc;
}

/* In the child: zip, say the size, then become rclone. */
static void child_run(const char *dir, const char *zip, const char *remote, char **envp)
{
    char log[4200], src[4200], sizef[4200];
    snprintf(log, sizeof log, "%s/upload.log", dir);
    snprintf(src, sizeof src, "%s/opt/ml/output", dir);
    snprintf(sizef, sizeof sizef, "%s/upload.size", dir);
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
        _exit(3);
    setpgid(0, 0);
    if (zip_folder(src, zip) != 0)
        _exit(2);
    if (!remote)
        _exit(0);   /* type local: the archive is all; job receive takes it (agent_transfer.c) */
    struct stat sb;
    FILE *f = fopen(sizef, "w");
    if (f && stat(zip, &sb) == 0)
        fprintf(f, "%lld\n", (long long)sb.st_size);
    if (f)
        fclose(f);
    char *argv[] = { "rclone", "copyto", (char *)zip, (char *)remote, "--retries", "2", "--low-level-retries", "3",
                     "--stats", "0", NULL };
    execvpe("rclone", argv, envp);
    fprintf(stderr, "cannot run rclone: %s\n", strerror(errno));
    _exit(127);
}

static void copy_text(char *out, size_t len, const char *s)
{
    size_t n = strlen(s);
    if (n >= len)
        n = len - 1;
    memcpy(out, s, n);
    out[n] = '\0';
}

/* The cause's line from the child's log: rclone's first ERROR, without its
 * date; else the last line. */
static void cause_line(const char *dir, char *msg, size_t len)
{
    char path[4200], line[1024];
    snprintf(path, sizeof path, "%s/upload.log", dir);
    FILE *f = fopen(path, "r");
    snprintf(msg, len, "the upload failed");
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        char *err = strstr(line, "ERROR : ");
        if (err) {
            copy_text(msg, len, err + 8);
            break;
        }
        if (*line && line[0] != '\t' && line[0] != ' ')
            copy_text(msg, len, line);
    }
    if (f)
        fclose(f);
}

static void fail_now(agent_worker *w, int64_t now_ms, const char *msg)
{
    w->upload->state = UP_FAILED;
    w->upload->end_ms = now_ms;
    snprintf(w->upload->msg, sizeof w->upload->msg, "%s", msg);
}

/* Reports the phase (bytes: -1 unknown); a refusal is only logged. */
static void say_phase(agent_state *a, agent_worker *w, long long bytes, agent_upload_report_fn report)
{
    char idx[24], num[32];
    rd_err err = { 0 };
    snprintf(idx, sizeof idx, "%d", w->index);
    snprintf(num, sizeof num, "%lld", bytes);
    json_t *words = json_pack("[s, s, s, s, s, s]", "job", "report", w->job, "uploading", "--worker", idx);
    if (words && bytes >= 0) {
        json_array_append_new(words, json_string("--bytes"));
        json_array_append_new(words, json_string(num));
    }
    if (!words || report(a, words, &err) != RD_OK)
        dlog(&a->o->log, "upload", NULL, "%s/%d: the store refused the uploading phase: %s", w->job, w->index,
             words ? err.msg : "out of memory");
}

static void start(agent_state *a, agent_worker *w, int64_t now_ms, agent_upload_report_fn report)
{
    const char *type = doc_str(json_object_get(json_object_get(w->job_doc, "data"), "output"), "type");
    char remote[4300], zip[4400], zipname[300], msg[400] = "";
    char *url = job_output_url(w->job_doc, (size_t)w->index);
    json_t *env = json_array();
    w->upload->register_it = strcmp(type, "rigdeck") == 0;
    job_output_zip_name(w->job_doc, (size_t)w->index, zipname, sizeof zipname);
    snprintf(zip, sizeof zip, "%s/%s", w->dir, zipname);
    snprintf(w->upload->zip, sizeof w->upload->zip, "%s", zip);
    if (w->upload->local) {
        pid_t pid = fork();
        if (pid == 0)
            child_run(w->dir, zip, NULL, NULL);
        if (pid < 0) {
            fail_now(w, now_ms, "cannot start the upload: out of processes or memory");
        } else {
            w->upload->state = UP_RUNNING;
            w->upload->pid = pid;
            dlog(&a->o->log, "upload", NULL, "%s/%d: zipping its output for job receive", w->job, w->index);
        }
    } else if (!url || !env) {
        fail_now(w, now_ms, !url ? "data.output: no upload location (for type rigdeck: the account's artifacts)"
                                 : "out of memory");
    } else if (remote_for(a, w->job_doc, url, remote, sizeof remote, env, msg, sizeof msg)) {
        const char *path = getenv("PATH"), *home = getenv("HOME");
        char conf[4200];
        snprintf(conf, sizeof conf, "%s/rclone.conf", w->dir);   /* none: every setting is in the environment */
        put_env(env, "PATH", path ? path : "/usr/bin:/bin");
        put_env(env, "HOME", home ? home : w->dir);
        put_env(env, "RCLONE_CONFIG", conf);
        char **envp = calloc(json_array_size(env) + 1, sizeof *envp);
        size_t i;
        json_t *v;
        json_array_foreach(env, i, v)
            if (envp)
                envp[i] = (char *)json_string_value(v);
        pid_t pid = envp ? fork() : -1;
        if (pid == 0)
            child_run(w->dir, zip, remote, envp);
        free(envp);
        if (pid < 0) {
            fail_now(w, now_ms, "cannot start the upload: out of processes or memory");
        } else {
            w->upload->state = UP_RUNNING;
            w->upload->pid = pid;
            dlog(&a->o->log, "upload", NULL, "%s/%d: uploading its output to %s", w->job, w->index, url);
            say_phase(a, w, -1, report);
        }
    } else {
        fail_now(w, now_ms, msg);
    }
    /* the values opened from a key lived only in env */
    size_t i;
    json_t *v;
    json_array_foreach(env, i, v)
        explicit_bzero((char *)json_string_value(v), strlen(json_string_value(v)));
    json_decref(env);
    free(url);
}

int agent_upload_tend(agent_state *a, agent_worker *w, const runner_status_t *st, agent_upload_report_fn report)
{
    int64_t now_ms = a->o->log.now() * 1000;
    if (!w->upload) {
        const json_t *out = json_object_get(json_object_get(w->job_doc, "data"), "output");
        const char *type = doc_str(out, "type");
        /* the command ran and ended by itself: exited, not stopped, and
         * not a package installation that failed before it */
        int ran = st->state == RUNNER_EXITED && !st->unstarted && !w->stopping &&
                  !(st->signal == 0 && st->exit_code == RUNNER_PACKAGES_EXIT);
        if (!ran || !json_is_object(out) || strcmp(type, "regional") == 0)
            return 1;   /* a regional datastore output is mounted in place: nothing to copy */
        if (!(w->upload = calloc(1, sizeof *w->upload)))
            return 0;
        w->upload->local = strcmp(type, "local") == 0;
        start(a, w, now_ms, report);
    }
    struct agent_upload *u = w->upload;
    if (u->state == UP_WAITING) {
        char msg[400] = "";
        int got = w->stopping ? 1 : agent_transfer_offer(a, w->job, w->index, w->dir, u->zip, msg, sizeof msg, report);
        if (got == 0)
            return 0;   /* still billed, phase uploading: the user's `job receive` takes it */
        u->end_ms = now_ms;
        u->state = got > 0 ? UP_OK : UP_FAILED;
        if (got < 0)
            copy_text(u->msg, sizeof u->msg, msg);
        agent_transfer_forget(w->dir, 1);
        dlog(&a->o->log, "upload", NULL, "%s/%d: %s", w->job, w->index, got > 0 ? "output received" : msg);
        return 1;
    }
    if (u->state != UP_RUNNING)
        return 1;
    if (w->stopping)
        kill(-u->pid, SIGTERM);   /* asked to stop: the upload ends too */
    int status = 0;
    pid_t r = waitpid(u->pid, &status, WNOHANG);
    if (r == 0) {
        char path[4200];
        long long size = -1;
        snprintf(path, sizeof path, "%s/upload.size", w->dir);
        FILE *f = u->bytes_said ? NULL : fopen(path, "r");
        if (f && fscanf(f, "%lld", &size) == 1 && size >= 0) {
            say_phase(a, w, size, report);
            u->bytes_said = 1;
        }
        if (f)
            fclose(f);
        return 0;
    }
    u->end_ms = now_ms;
    if (r == u->pid && WIFEXITED(status) && WEXITSTATUS(status) == 0 && u->local) {
        u->state = UP_WAITING;
        return agent_upload_tend(a, w, st, report);
    } else if (r == u->pid && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        u->state = UP_OK;
        dlog(&a->o->log, "upload", NULL, "%s/%d: output uploaded", w->job, w->index);
    } else {
        u->state = UP_FAILED;
        cause_line(w->dir, u->msg, sizeof u->msg);
        dlog(&a->o->log, "upload", NULL, "%s/%d: the upload failed: %s", w->job, w->index, u->msg);
    }
    return 1;
}

void agent_upload_outcome(const agent_worker *w, const char **to, int64_t *end_ms)
{
    if (!w->upload || !w->upload->state || w->stopping)
        return;
    *end_ms = w->upload->end_ms;
    if (w->upload->state == UP_FAILED)
        *to = "failed";
}

void agent_upload_words(const agent_worker *w, json_t *words)
{
    if (!w->upload || !w->upload->state || w->stopping)
        return;
    json_t *more = w->upload->state == UP_FAILED
                       ? json_pack("[s, s, s, s]", "--reason", "upload_failed", "--message", w->upload->msg)
                       : w->upload->register_it ? json_pack("[s]", "--register") : NULL;
    /* --register only on a finished end (job_output.c) */
    if (more && w->upload->state == UP_OK && strcmp(json_string_value(json_array_get(words, 3)), "finished") != 0) {
        json_decref(more);
        more = NULL;
    }
    if (more)
        json_array_extend(words, more);
    json_decref(more);
}

int agent_upload_refused(agent_worker *w, const char *msg)
{
    if (!w->upload || w->upload->state != UP_OK || !w->upload->register_it || w->stopping)
        return 0;
    w->upload->state = UP_FAILED;
    copy_text(w->upload->msg, sizeof w->upload->msg, msg);
    return 1;
}

void agent_upload_forget(agent_worker *w)
{
    agent_transfer_forget(w->dir, 1);
    if (w->upload && w->upload->state == UP_RUNNING) {
        kill(-w->upload->pid, SIGKILL);
        waitpid(w->upload->pid, NULL, 0);
    }
    free(w->upload);
    w->upload = NULL;
    json_decref(w->job_doc);
    w->job_doc = NULL;
}
