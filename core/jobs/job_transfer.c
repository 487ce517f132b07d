/* job_transfer.c - data of type local, the user's side (docs/operations.md,
 * "Data"): `job send ID` uploads the local data.input / model.source a
 * staging worker waits for, `job receive ID` downloads the output archive
 * an uploading worker offers; and the worker's `transfer` record that the
 * agent's reports leave (core/agent/agent_transfer.c is the agent's side).
 *
 * Both run on the user's computer: the paths are the spec's, expanded
 * here (~ and $VAR of this computer).  The worker's record names the
 * agent's transfer server (host, port) and its token sealed with the
 * master key; only an account that may act on the job (its creator, its
 * project's owner, an administrator: job_require_actor) gets it opened.
 * A folder goes as a tar made with libarchive, a file as it is.
 */
#include "job_transfer.h"

#include <archive.h>
#include <archive_entry.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doc.h"
#include "fleet.h"
#include "job.h"
#include "job_output.h"
#include "num.h"

/* ---- the worker's record ---------------------------------------------------- */

static int split_where(const char *where, char *host, size_t len, int64_t *port)
{
    const char *colon = where ? strrchr(where, ':') : NULL;
    if (!colon || colon == where || (size_t)(colon - where) >= len)
        return 0;
    snprintf(host, len, "%.*s", (int)(colon - where), where);
    return num_parse_int("--transfer", colon + 1, 1, 65535, port, NULL) == RD_OK;
}

rd_code job_transfer_check(const cmd_args *a, int waits, rd_err *err)
{
    char host[256];
    int64_t port = 0;
    if (!waits || !cmd_opt(a, "transfer") || !cmd_opt(a, "token") || !cmd_opt(a, "message"))
        return rd_fail(err, RD_EINVAL, "job report: --transfer and --token go together, with --message, on a "
                       "staging or uploading report");
    if (!split_where(cmd_opt(a, "transfer"), host, sizeof host, &port))
        return rd_fail(err, RD_EINVAL, "job report: --transfer is HOST:PORT (port 1..65535), got '%s'",
                       cmd_opt(a, "transfer"));
    return RD_OK;
}

void job_transfer_record(const cmd_args *a, json_t *worker)
{
    char host[256];
    int64_t port = 0;
    if (cmd_opt(a, "transfer") && split_where(cmd_opt(a, "transfer"), host, sizeof host, &port)) {
        json_object_set_new(worker, "transfer", json_pack("{s:s, s:I, s:s}", "host", host, "port", (json_int_t)port,
                                                          "token", cmd_opt(a, "token")));
        json_object_set_new(worker, "message", json_string(cmd_opt(a, "message")));
    } else if (json_object_get(worker, "transfer")) {
        json_object_del(worker, "transfer");
        json_object_del(worker, "message");
    }
}

/* ---- paths on this computer ------------------------------------------------- */

/* path with a leading ~ and every $VAR / ${VAR} expanded. */
static rd_code expand_path(const char *field, const char *path, char *out, size_t len, rd_err *err)
{
    size_t at = 0;
    const char *p = path;
    out[0] = '\0';
    if (p[0] == '~' && (p[1] == '/' || !p[1])) {
        const char *home = getenv("HOME");
        if (!home || !*home)
            return rd_fail(err, RD_EINVAL, "%s: %s starts with ~ but HOME is not set on this computer", field, path);
        at = (size_t)snprintf(out, len, "%s", home);
        p++;
    }
    while (*p && at + 1 < len) {
        if (*p != '$') {
            out[at++] = *p++;
            continue;
        }
        int brace = p[1] == '{';
        const char *s = p + 1 + brace, *e = s;
        while (*e == '_' || (*e >= 'A' && *e <= 'Z') || (*e >= 'a' && *e <= 'z') || (*e >= '0' && *e <= '9'))
            e++;
        if (e == s || (brace && *e != '}'))
            return rd_fail(err, RD_EINVAL, "%s: %s: a $ must name a variable ($NAME or ${NAME})", field, path);
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(e - s), s);
        const char *v = getenv(name);
        if (!v)
            return rd_fail(err, RD_EINVAL, "%s: %s: $%s is not set on this computer", field, path, name);
        at += (size_t)snprintf(out + at, len - at, "%s", v);
        if (at >= len)
            break;
        p = e + brace;
    }
    if (at + 1 >= len)
        return rd_fail(err, RD_EINVAL, "%s: %s is too long once expanded", field, path);
    out[at] = '\0';
    return RD_OK;
}

/* The folder src as a tar (names relative to it) in the open file fd. */
static rd_code tar_folder(const char *src, int fd, rd_err *err)
{
    struct archive *disk = archive_read_disk_new(), *out = archive_write_new();
    struct archive_entry *e;
    size_t slen = strlen(src);
    rd_code rc = RD_OK;
    int r;
    if (!disk || !out || archive_write_set_format_pax_restricted(out) != ARCHIVE_OK ||
        archive_write_open_fd(out, fd) != ARCHIVE_OK || archive_read_disk_open(disk, src) != ARCHIVE_OK) {
        rc = rd_fail(err, RD_EINVAL, "job send: cannot pack %s: %s", src,
                     disk ? archive_error_string(disk) : "out of memory");
        goto out;
    }
    archive_read_disk_set_standard_lookup(disk);
    archive_read_disk_set_symlink_physical(disk);   /* a link goes as a link, never followed out */
    while (rc == RD_OK && (e = archive_entry_new())) {
        if ((r = archive_read_next_header2(disk, e)) == ARCHIVE_EOF) {
            archive_entry_free(e);   /* the one the end came in */
            break;
        }
        const char *p = archive_entry_pathname(e);
        if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
            rc = rd_fail(err, RD_EINVAL, "job send: %s", archive_error_string(disk));
        } else {
            archive_read_disk_descend(disk);
            if (strncmp(p, src, slen) == 0 && p[slen] == '/') {
                char rel[4096];
                snprintf(rel, sizeof rel, "%s", p + slen + 1);
                archive_entry_set_pathname(e, rel);
                if (archive_write_header(out, e) != ARCHIVE_OK) {
                    rc = rd_fail(err, RD_EINVAL, "job send: %s", archive_error_string(out));
                } else if (archive_entry_filetype(e) == AE_IFREG && archive_entry_size(e) > 0) {
                    char buf[65536];
                    ssize_t n;
                    int in = open(archive_entry_sourcepath(e), O_RDONLY | O_CLOEXEC);
                    if (in < 0)
                        rc = rd_fail(err, RD_EINVAL, "job send: cannot read %s: %s", archive_entry_sourcepath(e),
                                     strerror(errno));
                    while (in >= 0 && rc == RD_OK && (n = read(in, buf, sizeof buf)) > 0)
                        if (archive_write_data(out, buf, (size_t)n) < 0)
                            rc = rd_fail(err, RD_EINVAL, "job send: %s", archive_error_string(out));
                    if (in >= 0)
                        close(in);
                }
            }
        }
        archive_entry_free(e);
    }
    if (archive_write_close(out) != ARCHIVE_OK && rc == RD_OK)
        rc = rd_fail(err, RD_EINVAL, "job send: %s", archive_error_string(out));
out:
    archive_read_free(disk);
    archive_write_free(out);
    return rc;
}

/* ---- HTTP to the agent ------------------------------------------------------ */

typedef struct {
    char text[600];
    size_t n;
    FILE *into;   /* a download's file, or NULL: the answer's text */
} reply;

static size_t on_body(char *data, size_t size, size_t nmemb, void *userdata)
{
    reply *r = userdata;
    size_t n = size * nmemb;
    if (r->into)
        return fwrite(data, 1, n, r->into);
    size_t room = sizeof r->text - 1 - r->n, take = n < room ? n : room;
    memcpy(r->text + r->n, data, take);
    r->n += take;
    r->text[r->n] = '\0';
    return n;
}

/* One request to the agent: PUT upload (a file, its size), GET into, or
 * POST; RD_OK on 200, else the agent's one line. */
static rd_code agent_call(const char *what, const char *url, const char *token, const char *const *headers,
                          FILE *upload, int64_t size, FILE *into, const char *post, rd_err *err)
{
    CURL *c = curl_easy_init();
    struct curl_slist *h = NULL;
    char line[300];
    reply r = { .into = into };
    long status = 0;
    if (!c)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    snprintf(line, sizeof line, "X-Rigdeck-Token: %s", token);
    h = curl_slist_append(h, line);
    explicit_bzero(line, sizeof line);
    for (const char *const *x = headers; x && *x; x++)
        h = curl_slist_append(h, *x);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 30L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    if (upload) {
        curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(c, CURLOPT_READDATA, upload);
        curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)size);
    } else if (post) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, post);
    }
    CURLcode cc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(h);   /* the token's header too */
    curl_easy_cleanup(c);
    if (cc != CURLE_OK)
        return rd_fail(err, RD_EINVAL, "%s: cannot reach the worker's agent at %s: %s", what, url,
                       curl_easy_strerror(cc));
    if (status != 200) {
        if (into)
            snprintf(r.text, sizeof r.text, "HTTP %ld", status);
        r.text[strcspn(r.text, "\r\n")] = '\0';
        return rd_fail(err, status == 403 ? RD_EPERM : RD_EINVAL, "%s: the worker's agent said: %s", what,
                       *r.text ? r.text : "no answer");
    }
    return RD_OK;
}

/* Sends one item (field: its spec field, path as the spec says it). */
static rd_code send_item(const char *where, const char *token, const char *field, const char *item, const char *path,
                         json_t *sent, size_t index, rd_err *err)
{
    char local[4096], url[600], name[300], folder[40];
    struct stat sb;
    rd_code rc = expand_path(field, path, local, sizeof local, err);
    if (rc != RD_OK)
        return rc;
    if (stat(local, &sb) != 0)
        return rd_fail(err, RD_EINVAL, "job send: %s %s: %s", field, local, strerror(errno));
    int dir = S_ISDIR(sb.st_mode);
    FILE *f = NULL;
    if (dir) {
        f = tmpfile();
        rc = f ? tar_folder(local, fileno(f), err) : rd_fail(err, RD_EINVAL, "job send: no temporary file: %s",
                                                             strerror(errno));
        if (rc == RD_OK && (fflush(f) != 0 || fstat(fileno(f), &sb) != 0 || fseek(f, 0, SEEK_SET) != 0))
            rc = rd_fail(err, RD_EINVAL, "job send: the packed folder: %s", strerror(errno));
    } else if (!(f = fopen(local, "rb"))) {
        rc = rd_fail(err, RD_EINVAL, "job send: %s %s: %s", field, local, strerror(errno));
    }
    const char *base = strrchr(local, '/') ? strrchr(local, '/') + 1 : local;
    snprintf(name, sizeof name, "X-Rigdeck-Name: %.250s", *base ? base : "data");
    snprintf(folder, sizeof folder, "X-Rigdeck-Folder: %d", dir);
    const char *headers[] = { name, folder, NULL };
    snprintf(url, sizeof url, "%s/send/%s", where, item);
    if (rc == RD_OK)
        rc = agent_call("job send", url, token, headers, f, (int64_t)sb.st_size, NULL, NULL, err);
    if (f)
        fclose(f);
    if (rc == RD_OK)
        json_array_append_new(sent, json_pack("{s:I, s:s, s:s, s:I, s:b}", "worker", (json_int_t)index, "item", field,
                                              "path", local, "bytes", (json_int_t)sb.st_size, "folder", dir));
    return rc;
}

/* ---- the commands ----------------------------------------------------------- */

/* `job transfer ID --for send|receive [--worker N]`: read in the store (on
 * a secured store by the controller, for the asking account), what `job
 * send`/`job receive` need: the spec's local paths and, for each waiting
 * worker, where its agent listens and the opened token. */
static rd_code job_transfer_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *dir = cmd_opt(a, "for");
    if (!dir || (strcmp(dir, "send") != 0 && strcmp(dir, "receive") != 0))
        return rd_fail(err, RD_EINVAL, "job transfer: --for is send or receive, got '%s'", dir ? dir : "");
    int send = strcmp(dir, "send") == 0;
    const char *what = send ? "job send" : "job receive", *phase = send ? "staging" : "uploading";
    json_t *job = NULL, *w, *workers = json_array();
    int64_t only = -1;
    rd_code rc = workers ? job_get_visible(ctx, cmd_arg(a, 0), &job, err) : rd_fail(err, RD_ENOMEM, "out of memory");
    if (rc == RD_OK)
        rc = job_require_actor(ctx, job, what, err);
    if (rc == RD_OK && cmd_opt(a, "worker"))
        rc = num_parse_int("--worker", cmd_opt(a, "worker"), 0,
                           (int64_t)json_array_size(json_object_get(job, "workers")) - 1, &only, err);
    size_t i;
    json_array_foreach(json_object_get(job, "workers"), i, w) {
        const json_t *t = json_object_get(w, "transfer");
        if (rc != RD_OK || (only >= 0 && (int64_t)i != only) || strcmp(doc_str(w, "phase"), phase) != 0 ||
            !json_is_object(t))
            continue;
        char *token = NULL, zip[300];
        size_t n = 0;
        rc = fleet_unseal(ctx, doc_str(t, "token"), &token, &n, err);
        job_output_zip_name(job, i, zip, sizeof zip);
        if (rc == RD_OK)
            json_array_append_new(workers, json_pack("{s:I, s:s, s:O, s:s, s:s}", "index", (json_int_t)i, "host",
                                                     doc_str(t, "host"), "port", json_object_get(t, "port"), "token",
                                                     token, "zip", zip));
        if (token) {
            explicit_bzero(token, n);
            free(token);
        }
    }
    if (rc == RD_OK && !json_array_size(workers))
        rc = rd_fail(err, RD_EINVAL, "%s: no worker of job '%s' waits for it now (a worker waits while its phase "
                     "is %s with a message \"waiting for %s\")", what, cmd_arg(a, 0), phase, what);
    const json_t *data = json_object_get(job, "data"), *model = json_object_get(job, "model");
    if (rc == RD_OK)
        *result = json_pack("{s:s, s:O, s:O, s:O, s:O}", "job", doc_str(job, "id"), "input",
                            json_object_get(data, "input"), "output", json_object_get(data, "output"), "model", model,
                            "workers", workers);
    json_decref(workers);
    json_decref(job);
    return rc;
}

/* Runs `job transfer` for `job send`/`job receive` (dir), as its own
 * line: on a secured store it is relayed to the controller, while the
 * files stay this computer's.  Never run for a relayed request: that would
 * read and write the controller's disk. */
static rd_code transfer_ask(cmd_ctx *ctx, const cmd_args *a, const char *dir, json_t **t, rd_err *err)
{
    char line[400];
    const char *id = cmd_arg(a, 0), *w = cmd_opt(a, "worker");
    *t = NULL;
    if (!cmd_file_local(ctx))
        return rd_fail(err, RD_EPERM, "job %s: runs on the computer that holds the files; it is never relayed", dir);
    if (strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") != strlen(id) || !*id)
        return rd_fail(err, RD_EINVAL, "job %s: ID is a job id (letters, digits, - _ .), got '%s'", dir, id);
    if (w && (strspn(w, "0123456789") != strlen(w) || !*w || strlen(w) > 9))
        return rd_fail(err, RD_EINVAL, "--worker must be a whole number, got '%s'", w);
    snprintf(line, sizeof line, "job transfer %s --for %s%s%s", id, dir, w ? " --worker " : "", w ? w : "");
    const cmd_def *def = NULL;
    return ctx->exec_line(ctx, line, t, &def, err);   /* the executor's cmd_exec_line */
}

static rd_code job_send_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *t = NULL, *w, *sent = json_array();
    rd_code rc = sent ? transfer_ask(ctx, a, "send", &t, err) : rd_fail(err, RD_ENOMEM, "out of memory");
    const json_t *input = json_object_get(t, "input"), *model = json_object_get(t, "model");
    size_t i;
    json_array_foreach(json_object_get(t, "workers"), i, w) {
        char where[400];
        const char *token = doc_str(w, "token");
        size_t index = (size_t)json_integer_value(json_object_get(w, "index"));
        snprintf(where, sizeof where, "http://%s:%lld", doc_str(w, "host"),
                 (long long)json_integer_value(json_object_get(w, "port")));
        if (rc == RD_OK && strcmp(doc_str(input, "type"), "local") == 0)
            rc = send_item(where, token, "data.input", "input", doc_str(input, "path"), sent, index, err);
        if (rc == RD_OK && strcmp(doc_str(model, "source"), "local") == 0)
            rc = send_item(where, token, "model.source", "model", doc_str(model, "location"), sent, index, err);
        explicit_bzero((char *)token, strlen(token));
    }
    if (rc == RD_OK)
        *result = json_pack("{s:s, s:O}", "job", doc_str(t, "job"), "sent", sent);
    json_decref(sent);
    json_decref(t);
    return rc;
}

static rd_code receive_one(const char *where, const char *token, const char *dir, const char *zip, json_t *got,
                           size_t index, rd_err *err)
{
    char url[600], path[4400], part[4500];
    snprintf(path, sizeof path, "%s/%s", dir, zip);
    snprintf(part, sizeof part, "%s.part", path);
    snprintf(url, sizeof url, "%s/receive", where);
    FILE *f = fopen(part, "wb");
    if (!f)
        return rd_fail(err, RD_EINVAL, "job receive: cannot write %s: %s", part, strerror(errno));
    rd_code rc = agent_call("job receive", url, token, NULL, NULL, 0, f, NULL, err);
    if (fclose(f) != 0 && rc == RD_OK)
        rc = rd_fail(err, RD_EINVAL, "job receive: cannot write %s: %s", part, strerror(errno));
    if (rc == RD_OK && rename(part, path) != 0)
        rc = rd_fail(err, RD_EINVAL, "job receive: cannot make %s: %s", path, strerror(errno));
    if (rc != RD_OK) {
        unlink(part);
        return rc;
    }
    snprintf(url, sizeof url, "%s/receive/done", where);
    rc = agent_call("job receive", url, token, NULL, NULL, 0, NULL, "", err);   /* the worker may end now */
    struct stat sb;
    if (rc == RD_OK)
        json_array_append_new(got, json_pack("{s:I, s:s, s:I}", "worker", (json_int_t)index, "file", path, "bytes",
                                             (json_int_t)(stat(path, &sb) == 0 ? sb.st_size : 0)));
    return rc;
}

static rd_code job_receive_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *t = NULL, *w, *got = json_array();
    char dir[4096] = "";
    rd_code rc = got ? transfer_ask(ctx, a, "receive", &t, err) : rd_fail(err, RD_ENOMEM, "out of memory");
    if (rc == RD_OK && cmd_opt(a, "into"))
        snprintf(dir, sizeof dir, "%s", cmd_opt(a, "into"));
    else if (rc == RD_OK)
        rc = expand_path("data.output.path", doc_str(json_object_get(t, "output"), "path"), dir, sizeof dir, err);
    struct stat sb;
    if (rc == RD_OK && (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)))
        rc = rd_fail(err, RD_EINVAL, "job receive: %s is not a folder on this computer", dir);
    size_t i;
    json_array_foreach(json_object_get(t, "workers"), i, w) {
        char where[400];
        const char *token = doc_str(w, "token");
        snprintf(where, sizeof where, "http://%s:%lld", doc_str(w, "host"),
                 (long long)json_integer_value(json_object_get(w, "port")));
        if (rc == RD_OK)
            rc = receive_one(where, token, dir, doc_str(w, "zip"), got,
                             (size_t)json_integer_value(json_object_get(w, "index")), err);
        explicit_bzero((char *)token, strlen(token));
    }
    if (rc == RD_OK)
        *result = json_pack("{s:s, s:O}", "job", doc_str(t, "job"), "received", got);
    json_decref(got);
    json_decref(t);
    return rc;
}

static const cmd_flag job_send_flags[] = {
    { "worker", "N", CMD_FLAG_VALUE, "only this worker (default: every worker waiting for job send)" },
    { 0 }
};
static const cmd_flag job_receive_flags[] = {
    { "worker", "N", CMD_FLAG_VALUE, "only this worker (default: every worker waiting for job receive)" },
    { "into", "DIR", CMD_FLAG_VALUE, "the folder the archives go to (default: the spec's data.output.path)" },
    { 0 }
};

static const cmd_flag job_transfer_flags[] = {
    { "for", "send|receive", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "what the transfer is for" },
    { "worker", "N", CMD_FLAG_VALUE, "only this worker" },
    { 0 }
};

const cmd_def job_transfer_cmd_table[] = {
    { .words = "job transfer", .args = "ID", .flags = job_transfer_flags,
      .help = "what job send / job receive ask the store: the local paths, and where each waiting worker's agent listens "
              "with its token (for those who may act on the job)", .run = job_transfer_cmd },
    { .words = "job send", .args = "ID", .flags = job_send_flags, .options = CMD_NO_STORE,
      .help = "upload the job's local data.input / model.source from this computer to the workers waiting for it",
      .run = job_send_cmd },
    { .words = "job receive", .args = "ID", .flags = job_receive_flags, .options = CMD_NO_STORE,
      .help = "download the output archive (data.output type local) of the workers waiting for it onto this computer",
      .run = job_receive_cmd },
    { 0 }
};
