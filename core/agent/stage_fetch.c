/* stage_fetch.c - the stager: the child process that fetches a worker's
 * data before its command (`rigdeck agent-stage WORKER_DIR`, started by
 * agent_stage.c; execution.md §5).
 *
 * It reads WORKER_DIR/.stage/plan.json (0600, written by the agent with the
 * opened key values the fetches need), deletes it at once, and fetches each
 * item into its folder under WORKER_DIR/opt/ml: one file over http(s)/ftp(s)
 * with libcurl (the status line of a refusal becomes the message), a folder
 * (a URL ending in '/': http(s), ftp(s)), s3:// and gs:// sources and an
 * Azure Blob URL with an azure key with rclone, whose on-the-fly remotes
 * (":s3:bucket/path", stage_rclone.c) take every option, credentials
 * included, from RCLONE_* variables, never from argv; a git URL with `git
 * clone` (an SSH key as GIT_SSH_COMMAND's identity file, 0600).
 * Archives (.zip .tar .tar.gz .tgz .bz2) are extracted with libarchive,
 * refusing any entry that would land outside the target folder.
 *
 * It says how it went in WORKER_DIR/.stage: "bytes" (so far), then "done",
 * or "failed" holding one line, "<item>: <first line of the cause>".  It is
 * a separate process (exec'd, not only forked: the agent has threads), so
 * the agent loop never waits on a download.
 */
#include "agent_stage.h"

#include <archive.h>
#include <archive_entry.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runner.h"

extern char **environ;

typedef struct {
    char dir[4096];      /* WORKER_DIR/.stage */
    int64_t bytes;       /* fetched so far */
    time_t said;         /* when "bytes" was last written */
    char why[512];       /* the cause of a failure */
} stager;

static void put_file(const char *dir, const char *name, const char *text, int mode)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (fd < 0)
        return;
    size_t n = strlen(text);
    if (write(fd, text, n) != (ssize_t)n) {
        /* nothing better to do: the agent reads what is there */
    }
    close(fd);
}

static void say_bytes(stager *s, int force)
{
    char num[32];
    time_t now = time(NULL);
    if (!force && now == s->said)
        return;
    s->said = now;
    snprintf(num, sizeof num, "%lld\n", (long long)s->bytes);
    put_file(s->dir, "bytes", num, 0600);
}

/* ---- archives -------------------------------------------------------------- */

int stage_is_archive(const char *name)
{
    static const char *const ext[] = { ".zip", ".tar", ".tar.gz", ".tgz", ".bz2", ".tar.bz2", NULL };
    size_t n = strlen(name);
    for (const char *const *e = ext; *e; e++)
        if (n > strlen(*e) && strcmp(name + n - strlen(*e), *e) == 0)
            return 1;
    return 0;
}

int stage_path_escapes(const char *path)
{
    if (!path || !*path)
        return 0;
    if (path[0] == '/')
        return 1;
    for (const char *p = path; *p;) {
        const char *end = strchr(p, '/');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return 1;
        p += n;
        while (*p == '/')
            p++;
    }
    return 0;
}

/* A symlink at entry path `at` pointing to target stays inside the tree:
 * relative, and never climbing above the tree's root. */
static int link_escapes(const char *at, const char *target)
{
    int depth = 0;
    if (target[0] == '/')
        return 1;
    for (const char *p = at; *p; p++)   /* the folders above the link */
        depth += *p == '/' && p[1] && p[1] != '/';
    for (const char *p = target; *p;) {
        const char *end = strchr(p, '/');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == 2 && p[0] == '.' && p[1] == '.')
            depth--;
        else if (n && !(n == 1 && p[0] == '.'))
            depth++;
        if (depth < 0)
            return 1;
        p += n;
        while (*p == '/')
            p++;
    }
    return 0;
}

int stage_extract(const char *file, const char *dest, char *why, size_t len)
{
    struct archive *in = archive_read_new(), *out = archive_write_disk_new();
    struct archive_entry *e;
    int rc = -1, r;
    const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
    archive_read_support_filter_all(in);
    archive_read_support_format_all(in);
    archive_read_support_format_raw(in);   /* a lone .bz2: one file */
    /* paths are made absolute under dest here, once checked (stage_path_escapes) */
    archive_write_disk_set_options(out, ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_PERM | ARCHIVE_EXTRACT_SECURE_NODOTDOT |
                                            ARCHIVE_EXTRACT_SECURE_SYMLINKS);
    if (archive_read_open_filename(in, file, 65536) != ARCHIVE_OK) {
        snprintf(why, len, "%s: %s", base, archive_error_string(in));
        goto done;
    }
    while ((r = archive_read_next_header(in, &e)) == ARCHIVE_OK) {
        char path[8192], name[4096];
        const char *p = archive_entry_pathname(e), *lnk = archive_entry_symlink(e), *hard = archive_entry_hardlink(e);
        if (archive_format(in) == ARCHIVE_FORMAT_RAW) {   /* x.bz2 -> x */
            snprintf(name, sizeof name, "%.*s", (int)(strlen(base) - 4), base);
            p = name;
        }
        if (!p || stage_path_escapes(p) || stage_path_escapes(hard) || (lnk && link_escapes(p, lnk))) {
            snprintf(why, len, "%s: the entry '%s' would land outside the target folder; refused", base,
                     p ? p : "");
            goto done;
        }
        snprintf(path, sizeof path, "%s/%s", dest, p);
        archive_entry_copy_pathname(e, path);
        if (hard) {
            snprintf(path, sizeof path, "%s/%s", dest, hard);
            archive_entry_copy_hardlink(e, path);
        }
        if (archive_write_header(out, e) != ARCHIVE_OK) {
            snprintf(why, len, "%s: %s", base, archive_error_string(out));
            goto done;
        }
        const void *buf;
        size_t size;
        la_int64_t off;
        while ((r = archive_read_data_block(in, &buf, &size, &off)) == ARCHIVE_OK)
            if (archive_write_data_block(out, buf, size, off) != ARCHIVE_OK) {
                snprintf(why, len, "%s: %s", base, archive_error_string(out));
                goto done;
            }
        if (r != ARCHIVE_EOF) {
            snprintf(why, len, "%s: %s", base, archive_error_string(in));
            goto done;
        }
        archive_write_finish_entry(out);
    }
    if (r != ARCHIVE_EOF)
        snprintf(why, len, "%s: %s", base, archive_error_string(in));
    else
        rc = 0;
done:
    archive_read_free(in);
    archive_write_free(out);
    return rc;
}

/* ---- one file over http(s) or ftp(s): libcurl ------------------------------ */

typedef struct {
    stager *s;
    FILE *f;
    char status[256];   /* the last response's status line */
} dl;

static size_t on_body(char *p, size_t sz, size_t n, void *data)
{
    dl *d = data;
    size_t w = fwrite(p, sz, n, d->f);
    d->s->bytes += (int64_t)(w * sz);
    say_bytes(d->s, 0);
    return w * sz;
}

static size_t on_header(char *p, size_t sz, size_t n, void *data)
{
    dl *d = data;
    size_t len = sz * n;
    if (len > 5 && strncmp(p, "HTTP/", 5) == 0)
        snprintf(d->status, sizeof d->status, "%.*s", (int)len, p);
    return len;
}

static int fetch_url(stager *s, const char *url, const char *file, const char *token)
{
    char part[4400];
    dl d = { s, NULL, "" };
    long code = 0;
    snprintf(part, sizeof part, "%s.part", file);
    if (!(d.f = fopen(part, "wbe"))) {
        snprintf(s->why, sizeof s->why, "%.200s: %s", part, strerror(errno));
        return -1;
    }
    CURL *c = curl_easy_init();
    char ebuf[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(c, CURLOPT_MAXREDIRS, 10L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &d);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &d);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, ebuf);
    curl_easy_setopt(c, CURLOPT_USE_SSL, strncmp(url, "ftps:", 5) == 0 ? (long)CURLUSESSL_ALL : (long)CURLUSESSL_NONE);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    struct curl_slist *hdr = NULL;
    char auth[600];
    if (token && *token && strncmp(url, "https:", 6) == 0) {   /* a huggingface token: https only */
        snprintf(auth, sizeof auth, "Authorization: Bearer %.*s", (int)strcspn(token, "\r\n"), token);
        hdr = curl_slist_append(NULL, auth);
        explicit_bzero(auth, sizeof auth);
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
    }
    CURLcode rc = curl_easy_perform(c);
    curl_slist_free_all(hdr);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_cleanup(c);
    fclose(d.f);
    if (rc == CURLE_OK && code >= 400 && strncmp(url, "http", 4) == 0) {
        /* "HTTP/1.1 404 Not Found\r\n" -> "HTTP 404 Not Found" */
        char *sp = strchr(d.status, ' ');
        d.status[strcspn(d.status, "\r\n")] = '\0';
        snprintf(s->why, sizeof s->why, "HTTP %s", sp ? sp + 1 : "error");
        unlink(part);
        return -1;
    }
    if (rc != CURLE_OK) {
        snprintf(s->why, sizeof s->why, "%s", *ebuf ? ebuf : curl_easy_strerror(rc));
        unlink(part);
        return -1;
    }
    return rename(part, file);
}

/* ---- rclone and git --------------------------------------------------------- */

/* The last non-empty line of file, without rclone's date and time. */
static void last_line(const char *file, char *out, size_t len)
{
    FILE *f = fopen(file, "re");
    char line[1024];
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        const char *p = line;
        if (strlen(p) > 20 && p[4] == '/' && p[7] == '/' && p[10] == ' ' && p[13] == ':')
            p += 20;   /* "2026/11/27 04:00:00 " */
        if (*p && len) {
            size_t n = strnlen(p, len - 1);
            memcpy(out, p, n);
            out[n] = '\0';
        }
    }
    fclose(f);
}

/* Runs argv with environ plus extra ("K=V", NULL-ended); its output goes
 * to .stage/tool.log, whose last line is the cause when it fails. */
static int run_tool(stager *s, char *const argv[], const char *const *extra)
{
    char log[4200];
    size_t n = 0, m = 0;
    while (environ[n])
        n++;
    while (extra && extra[m])
        m++;
    char **envp = calloc(n + m + 1, sizeof *envp);
    size_t k = 0;
    if (!envp)
        return -1;
    /* rclone 1.60 cannot take AWS_CA_BUNDLE ("unsupported transport"):
     * stage_rclone_argv passes the same bundle as --ca-cert instead */
    for (size_t i = 0; i < n; i++)
        if (strcmp(argv[0], "rclone") != 0 || strncmp(environ[i], "AWS_CA_BUNDLE=", 14) != 0)
            envp[k++] = environ[i];
    for (size_t i = 0; i < m; i++)
        envp[k++] = (char *)extra[i];
    snprintf(log, sizeof log, "%s/tool.log", s->dir);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    int st = 0, rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    free(envp);
    if (rc != 0) {
        snprintf(s->why, sizeof s->why, "cannot run %s: %s", argv[0], strerror(rc));
        return -1;
    }
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    if (strcmp(argv[0], "rclone") == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 9) {   /* --error-on-no-transfer */
        snprintf(s->why, sizeof s->why, "nothing there to copy");
        return -1;
    }
    snprintf(s->why, sizeof s->why, "%s failed", argv[0]);
    last_line(log, s->why, sizeof s->why);
    return -1;
}

/* ---- one item ---------------------------------------------------------------- */

static int stage_item(stager *s, const json_t *it)
{
    const char *kind = json_string_value(json_object_get(it, "kind"));
    const char *url = json_string_value(json_object_get(it, "url"));
    const char *dest = json_string_value(json_object_get(it, "dest"));
    const char *endpoint = json_string_value(json_object_get(it, "endpoint"));
    const char *ktype = json_string_value(json_object_get(it, "key_type"));
    const char *kval = json_string_value(json_object_get(it, "key_value"));
    char file[4200], keyfile[4200], src[4200];
    const char *base = strrchr(url, '/') ? strrchr(url, '/') + 1 : url;
    int folder = url[strlen(url) - 1] == '/';

    if (strcmp(kind, "git") == 0) {
        char *env[8] = { 0 };
        if (runner_mkdirs(dest, 0755, 0755) != 0 && errno != EEXIST)
            return snprintf(s->why, sizeof s->why, "%s: %s", dest, strerror(errno)), -1;
        stage_env_add(env, 8, "GIT_TERMINAL_PROMPT", "0");
        if (ktype && strcmp(ktype, "huggingface") == 0 && kval && strncmp(url, "https:", 6) == 0) {
            /* the token as a header, through git's environment config
             * (never argv): GIT_CONFIG_COUNT/KEY_0/VALUE_0 */
            char hv[600];
            snprintf(hv, sizeof hv, "Authorization: Bearer %.*s", (int)strcspn(kval, "\r\n"), kval);
            stage_env_add(env, 8, "GIT_CONFIG_COUNT", "1");
            stage_env_add(env, 8, "GIT_CONFIG_KEY_0", "http.extraHeader");
            stage_env_add(env, 8, "GIT_CONFIG_VALUE_0", hv);
            explicit_bzero(hv, sizeof hv);
        }
        if (ktype && strcmp(ktype, "git") == 0 && kval) {
            char cmd[4400];
            snprintf(keyfile, sizeof keyfile, "%s/git_key", s->dir);
            put_file(s->dir, "git_key", kval, 0600);
            snprintf(cmd, sizeof cmd, "ssh -i '%s' -o IdentitiesOnly=yes -o StrictHostKeyChecking=accept-new", keyfile);
            stage_env_add(env, 8, "GIT_SSH_COMMAND", cmd);
        }
        char *argv[] = { "git", "clone", "--quiet", (char *)url, (char *)dest, NULL };
        int rc = run_tool(s, argv, (const char *const *)env);
        for (char **e = env; *e; e++) {
            explicit_bzero(*e, strlen(*e));
            free(*e);
        }
        return rc;
    }
    if (runner_mkdirs(dest, 0755, 0755) != 0) {
        snprintf(s->why, sizeof s->why, "%s: %s", dest, strerror(errno));
        return -1;
    }
    /* an Azure Blob URL with an azure key: rclone's azureblob backend signs
     * the requests (libcurl would fetch it anonymously) */
    if (strcmp(kind, "https") == 0 && ktype && strcmp(ktype, "azure") == 0 && stage_azure_blob(url))
        kind = "azureblob";
    if ((strncmp(kind, "http", 4) == 0 || strncmp(kind, "ftp", 3) == 0) && !folder) {
        snprintf(file, sizeof file, "%s/%s", dest, *base ? base : "download");
        if (fetch_url(s, url, file, ktype && strcmp(ktype, "huggingface") == 0 ? kval : NULL) != 0)
            return -1;
    } else {
        char *env[8];
        const char *argv[12];
        if (strcmp(kind, "gs") == 0 && kval) {
            snprintf(keyfile, sizeof keyfile, "%s/gcp_key.json", s->dir);
            put_file(s->dir, "gcp_key.json", kval, 0600);
        }
        if (strncmp(kind, "http", 4) == 0) {
            memset(env, 0, sizeof env);
            stage_env_add(env, 8, "RCLONE_HTTP_URL", url);
        } else if (stage_rclone_env(kind, url, endpoint, ktype, kval, keyfile, env, 8) != 0) {
            snprintf(s->why, sizeof s->why, "copying a %s folder is not supported", kind);
            return -1;
        }
        stage_rclone_argv(kind, url, dest, src, sizeof src, argv);
        int rc = run_tool(s, (char *const *)argv, (const char *const *)env);
        for (char **e = env; *e; e++) {
            explicit_bzero(*e, strlen(*e));
            free(*e);
        }
        if (rc != 0)
            return -1;
        snprintf(file, sizeof file, "%s/%s", dest, base);
        struct stat sb;
        if (stat(file, &sb) == 0)
            s->bytes += sb.st_size;
    }
    if (!folder && stage_is_archive(base)) {
        if (stage_extract(file, dest, s->why, sizeof s->why) != 0)
            return -1;
        unlink(file);
    }
    say_bytes(s, 1);
    return 0;
}

/* The key files the fetches needed: gone whatever the outcome. */
static void forget_keys(const stager *s)
{
    char path[4200];
    snprintf(path, sizeof path, "%.4000s/git_key", s->dir);
    unlink(path);
    snprintf(path, sizeof path, "%.4000s/gcp_key.json", s->dir);
    unlink(path);
}

int agent_stage_main(int argc, char **argv)
{
    stager s = { 0 };
    char plan_path[4200];
    if (argc < 2) {
        fprintf(stderr, "usage: rigdeck agent-stage WORKER_DIR (started by the agent)\n");
        return 2;
    }
    snprintf(s.dir, sizeof s.dir, "%s/.stage", argv[1]);
    snprintf(plan_path, sizeof plan_path, "%s/plan.json", s.dir);
    json_t *plan = json_load_file(plan_path, 0, NULL), *it;
    unlink(plan_path);   /* it holds opened key values: gone as soon as read */
    size_t i;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    if (!plan) {
        put_file(s.dir, "failed", "staging: its plan cannot be read\n", 0600);
        return 1;
    }
    say_bytes(&s, 1);
    json_array_foreach(json_object_get(plan, "items"), i, it) {
        if (stage_item(&s, it) != 0) {
            char msg[1024];
            s.why[strcspn(s.why, "\r\n")] = '\0';
            snprintf(msg, sizeof msg, "%s: %s\n", json_string_value(json_object_get(it, "what")), s.why);
            forget_keys(&s);
            put_file(s.dir, "failed", msg, 0600);
            json_decref(plan);
            return 1;
        }
    }
    json_decref(plan);
    forget_keys(&s);
    put_file(s.dir, "done", "", 0600);
    return 0;
}
