/* agent_transfer.c - data of type local (docs/operations.md, "Data"): the
 * agent's side of `rigdeck job send` and `rigdeck job receive`
 * (core/jobs/job_transfer.c is the user's side).
 *
 * A local data.input or model.source lives on the user's computer, which
 * the worker cannot reach; a local data.output goes there.  So the user's
 * computer comes to the agent: a small HTTP server (libmicrohttpd, started
 * the first time a worker waits, on RIGDECK_TRANSFER_LISTEN, default
 * 0.0.0.0 and a free port) takes a PUT of each local item and serves the
 * worker's output archive to a GET.  Each waiting worker gets a fresh
 * random token; the agent keeps it in memory only and reports it to the
 * store sealed with the master key (worker.transfer.token, next to the
 * host and port), where only those `job send`/`job receive` admit (the
 * job's creator, its project's owner, an administrator) open it.  A
 * request without the token of a waiting worker is refused.
 *
 * Staging waits unbilled (the worker is `starting`, phase staging, message
 * "waiting for job send"), output waits billed (running, phase uploading,
 * "waiting for job receive"), each up to RIGDECK_TRANSFER_WAIT seconds
 * (default an hour): then staging_failed, or upload_failed.
 *
 * What arrives lands as other inputs do: a folder comes as a tar and is
 * unpacked into /opt/ml/input (or /opt/ml/models), an archive file is
 * extracted, any other file is kept as it is, under its own name.  The
 * files .stage/local-ITEM.done say an item is there (a restarted agent
 * does not ask for it again).
 */
#include "agent_transfer.h"

#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doc.h"
#include "fleet.h"

enum { SLOTS = 64, WAIT_DEFAULT_S = 3600, TOKEN_BYTES = 24 };
enum { ITEM_INPUT = 1, ITEM_MODEL = 2 };

typedef struct {
    int used, output, got, reported, items;
    char job[128];
    int index;
    char token[2 * TOKEN_BYTES + 1];
    char dir[4096];
    char zip[4400];
    int64_t since;
} slot;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct MHD_Daemon *daemon_;
static char adv_host[256];
static unsigned adv_port;
static slot slots[SLOTS];

/* ---- small helpers ---------------------------------------------------------- */

static int64_t wait_limit_s(void)
{
    const char *v = getenv("RIGDECK_TRANSFER_WAIT");
    long long n = v && *v ? strtoll(v, NULL, 10) : 0;
    return n > 0 ? (int64_t)n : WAIT_DEFAULT_S;
}

static int mkdirs(const char *path)
{
    char p[4400];
    snprintf(p, sizeof p, "%s", path);
    for (char *c = p + 1; *c; c++)
        if (*c == '/') {
            *c = '\0';
            if (mkdir(p, 0700) != 0 && errno != EEXIST)
                return -1;
            *c = '/';
        }
    return mkdir(p, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

static void touch(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd >= 0)
        close(fd);
}

/* Constant time: a token is never guessed byte by byte. */
static int token_equal(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    unsigned char d = n != m;
    for (size_t i = 0; i < n && i < m; i++)
        d |= (unsigned char)(a[i] ^ b[i]);
    return d == 0 && n > 0;
}

static slot *slot_by_token(const char *token)
{
    slot *found = NULL;
    for (size_t i = 0; token && i < SLOTS; i++)
        if (slots[i].used && token_equal(slots[i].token, token))
            found = &slots[i];
    return found;
}

static slot *slot_by_dir(const char *dir, int output)
{
    for (size_t i = 0; i < SLOTS; i++)
        if (slots[i].used && slots[i].output == output && strcmp(slots[i].dir, dir) == 0)
            return &slots[i];
    return NULL;
}

/* ---- the server ------------------------------------------------------------- */

typedef struct {
    int status;            /* set once the answer is known before the body ends */
    char answer[600];
    int item;              /* PUT: ITEM_*; 0 for the output's GET / done POST */
    int fd;
    int folder;
    char name[256];
    char dir[4096];
} conn;

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status, const char *text)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
    enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ok;
}

/* A sent item's file, now whole in part: unpacked into dest. */
static int unpack(conn *k, const char *part, char *why, size_t len)
{
    char dest[4300], file[4600];
    snprintf(dest, sizeof dest, "%s/opt/ml/%s", k->dir, k->item == ITEM_INPUT ? "input" : "models");
    if (mkdirs(dest) != 0) {
        snprintf(why, len, "cannot make %.300s: %s", dest, strerror(errno));
        return -1;
    }
    if (k->folder || stage_is_archive(k->name))
        return stage_extract(part, dest, why, len);
    snprintf(file, sizeof file, "%s/%s", dest, k->name);
    if (rename(part, file) != 0) {
        snprintf(why, len, "cannot keep %s: %s", k->name, strerror(errno));
        return -1;
    }
    return 0;
}

/* First call: who asks, for what; then the body; then the answer. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *data, size_t *size, void **con_cls)
{
    (void)cls;
    (void)version;
    conn *k = *con_cls;
    if (!k) {
        if (!(k = calloc(1, sizeof *k)))
            return MHD_NO;
        k->fd = -1;
        *con_cls = k;
        const char *token = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Rigdeck-Token");
        const char *name = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Rigdeck-Name");
        const char *folder = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Rigdeck-Folder");
        int put = strcmp(method, MHD_HTTP_METHOD_PUT) == 0;
        int item = strcmp(url, "/send/input") == 0 ? ITEM_INPUT : strcmp(url, "/send/model") == 0 ? ITEM_MODEL : 0;
        pthread_mutex_lock(&lock);
        slot *s = slot_by_token(token);
        if (!s) {
            k->status = MHD_HTTP_FORBIDDEN;
            snprintf(k->answer, sizeof k->answer, "refused: no worker waits for a transfer with this token\n");
        } else if (put && item && !s->output && (s->items & item)) {
            snprintf(k->dir, sizeof k->dir, "%s", s->dir);
            k->item = item;
            k->folder = folder && strcmp(folder, "1") == 0;
            snprintf(k->name, sizeof k->name, "%s", name && *name ? name : "data");
            char part[4300];
            snprintf(part, sizeof part, "%s/.stage", s->dir);
            mkdirs(part);
            snprintf(part, sizeof part, "%s/.stage/local-%d.part", s->dir, item);
            k->fd = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
            if (k->fd < 0 || strchr(k->name, '/') || strcmp(k->name, "..") == 0 || strcmp(k->name, ".") == 0) {
                k->status = MHD_HTTP_BAD_REQUEST;
                snprintf(k->answer, sizeof k->answer, "refused: cannot take '%s' (a plain file name is needed)\n",
                         k->name);
            }
        } else if (s->output && strcmp(method, MHD_HTTP_METHOD_GET) == 0 && strcmp(url, "/receive") == 0) {
            int fd = open(s->zip, O_RDONLY | O_CLOEXEC);
            struct stat sb;
            pthread_mutex_unlock(&lock);
            if (fd < 0 || fstat(fd, &sb) != 0) {
                if (fd >= 0)
                    close(fd);
                return answer(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "the output archive is gone\n");
            }
            struct MHD_Response *r = MHD_create_response_from_fd((uint64_t)sb.st_size, fd);   /* takes fd */
            if (!r)
                return MHD_NO;
            MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/zip");
            enum MHD_Result ok = MHD_queue_response(c, MHD_HTTP_OK, r);
            MHD_destroy_response(r);
            return ok;
        } else if (s->output && strcmp(method, MHD_HTTP_METHOD_POST) == 0 && strcmp(url, "/receive/done") == 0) {
            s->got = 1;
            k->status = MHD_HTTP_OK;
            snprintf(k->answer, sizeof k->answer, "ok\n");
        } else {
            k->status = MHD_HTTP_NOT_FOUND;
            snprintf(k->answer, sizeof k->answer, "refused: %s %s is not what this worker waits for\n", method, url);
        }
        pthread_mutex_unlock(&lock);
        return MHD_YES;
    }
    if (*size) {
        if (!k->status && k->fd >= 0 && write(k->fd, data, *size) != (ssize_t)*size) {
            k->status = MHD_HTTP_INTERNAL_SERVER_ERROR;
            snprintf(k->answer, sizeof k->answer, "cannot write what came: %s\n", strerror(errno));
        }
        *size = 0;
        return MHD_YES;
    }
    if (k->status)
        return answer(c, (unsigned)k->status, k->answer);
    /* the whole item is here */
    char part[4300], why[500] = "", done[4300];
    snprintf(part, sizeof part, "%s/.stage/local-%d.part", k->dir, k->item);
    close(k->fd);
    k->fd = -1;
    int bad = unpack(k, part, why, sizeof why) != 0;
    unlink(part);
    if (bad) {
        snprintf(k->answer, sizeof k->answer, "refused: %s\n", why);
        return answer(c, MHD_HTTP_BAD_REQUEST, k->answer);
    }
    snprintf(done, sizeof done, "%s/.stage/local-%s.done", k->dir, k->item == ITEM_INPUT ? "input" : "model");
    touch(done);
    return answer(c, MHD_HTTP_OK, "received\n");
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)c;
    (void)toe;
    conn *k = *con_cls;
    if (k && k->fd >= 0)
        close(k->fd);
    free(k);
    *con_cls = NULL;
}

/* Listens, once per agent; 0, or -1 with msg. */
static int server_start(agent_state *a, char *msg, size_t len)
{
    if (daemon_)
        return 0;
    const char *listen = getenv("RIGDECK_TRANSFER_LISTEN");
    char host[256] = "0.0.0.0";
    unsigned port = 0;
    if (listen && *listen) {
        const char *colon = strrchr(listen, ':');
        if (!colon || sscanf(colon + 1, "%u", &port) != 1 || port > 65535 || (size_t)(colon - listen) >= sizeof host) {
            snprintf(msg, len, "RIGDECK_TRANSFER_LISTEN: HOST:PORT, got '%s'", listen);
            return -1;
        }
        snprintf(host, sizeof host, "%.*s", (int)(colon - listen), listen);
    }
    struct sockaddr_in sa = { 0 };
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
        snprintf(msg, len, "RIGDECK_TRANSFER_LISTEN: '%s' is not an IPv4 address", host);
        return -1;
    }
    daemon_ = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ITC, (uint16_t)port, NULL, NULL, on_request,
                               NULL, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa, MHD_OPTION_CONNECTION_TIMEOUT,
                               (unsigned)120, MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL, MHD_OPTION_END);
    const union MHD_DaemonInfo *info = daemon_ ? MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_BIND_PORT) : NULL;
    if (!daemon_ || !info) {
        snprintf(msg, len, "cannot listen on %s:%u for job send/receive", host, port);
        if (daemon_)
            MHD_stop_daemon(daemon_);
        daemon_ = NULL;
        return -1;
    }
    adv_port = info->port;
    /* where users reach it: as said, else the address it listens on, else
     * the agent's --address (where its notebooks are reached too), else
     * the machine's name */
    const char *adv = getenv("RIGDECK_TRANSFER_HOST");
    snprintf(adv_host, sizeof adv_host, "%s",
             adv && *adv                     ? adv
             : strcmp(host, "0.0.0.0") != 0  ? host
             : a->o->address && *a->o->address ? a->o->address
             : a->o->host && *a->o->host     ? a->o->host
                                             : "localhost");
    dlog(&a->o->log, "transfer", NULL, "job send/receive listen on %s:%u (reachable as %s)", host, adv_port, adv_host);
    return 0;
}

/* The slot of the worker in dir (made, with a fresh token, if none); NULL
 * with msg. */
static slot *slot_open(agent_state *a, const char *job, int index, const char *dir, int output, char *msg, size_t len)
{
    unsigned char raw[TOKEN_BYTES];
    pthread_mutex_lock(&lock);
    slot *s = slot_by_dir(dir, output);
    for (size_t i = 0; !s && i < SLOTS; i++)
        if (!slots[i].used)
            s = &slots[i];
    if (s && !s->used) {
        if (server_start(a, msg, len) != 0 || getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
            if (!*msg)
                snprintf(msg, len, "cannot make a transfer token");
            pthread_mutex_unlock(&lock);
            return NULL;
        }
        memset(s, 0, sizeof *s);
        s->used = 1;
        s->output = output;
        s->index = index;
        snprintf(s->job, sizeof s->job, "%s", job);
        snprintf(s->dir, sizeof s->dir, "%s", dir);
        for (size_t i = 0; i < sizeof raw; i++)
            snprintf(s->token + 2 * i, 3, "%02x", raw[i]);
        explicit_bzero(raw, sizeof raw);
        s->since = a->o->log.now();
    } else if (!s) {
        snprintf(msg, len, "too many workers wait for job send/receive on this node");
    }
    pthread_mutex_unlock(&lock);
    return s;
}

static void slot_drop(slot *s)
{
    pthread_mutex_lock(&lock);
    explicit_bzero(s, sizeof *s);
    pthread_mutex_unlock(&lock);
}

/* `job report ID PHASE --worker N --message M --transfer HOST:PORT
 * --token SEALED`, once per slot (again next round if refused).  Returns
 * -1 with msg when the token cannot be sealed: a node without the fleet's
 * master key must not make one of its own (the admin hosts could not open
 * what it seals), so the worker fails now, naming why, instead of waiting
 * for a `job send` that could never find it. */
static int say_waiting(agent_state *a, slot *s, const char *phase, const char *message,
                       agent_stage_report_fn report, char *msg, size_t len)
{
    char idx[24], where[300], token[sizeof s->token];
    char *sealed = NULL;
    rd_err err = { 0 };
    if (s->reported)
        return 0;
    pthread_mutex_lock(&lock);
    snprintf(token, sizeof token, "%s", s->token);
    pthread_mutex_unlock(&lock);
    if (fleet_seal_existing(&a->ctx, token, strlen(token), &sealed, &err) != RD_OK) {
        dlog(&a->o->log, "transfer", NULL, "%s/%d: cannot seal its token: %s", s->job, s->index, err.msg);
        snprintf(msg, len, "the transfer token cannot be sealed on this node: %.300s", err.msg);
        explicit_bzero(token, sizeof token);
        return -1;
    }
    explicit_bzero(token, sizeof token);
    snprintf(idx, sizeof idx, "%d", s->index);
    snprintf(where, sizeof where, "%s:%u", adv_host, adv_port);
    json_t *words = json_pack("[s, s, s, s, s, s, s, s, s, s, s, s]", "job", "report", s->job, phase, "--worker", idx,
                              "--message", message, "--transfer", where, "--token", sealed);
    free(sealed);
    if (words && report(a, words, &err) == RD_OK) {   /* takes words */
        s->reported = 1;
        dlog(&a->o->log, "transfer", NULL, "%s/%d: %s at %s", s->job, s->index, message, where);
    } else {
        dlog(&a->o->log, "transfer", NULL, "%s/%d: the store refused the %s phase: %s", s->job, s->index, phase,
             words ? err.msg : "out of memory");
    }
    return 0;
}

/* ---- staging and output ----------------------------------------------------- */

static int local_items(const json_t *job)
{
    const json_t *input = json_object_get(json_object_get(job, "data"), "input");
    return (strcmp(doc_str(input, "type"), "local") == 0 ? ITEM_INPUT : 0) |
           (strcmp(doc_str(json_object_get(job, "model"), "source"), "local") == 0 ? ITEM_MODEL : 0);
}

stage_state agent_transfer_stage(agent_state *a, const json_t *job, const char *dir, size_t index, char *msg,
                                 size_t len, agent_stage_report_fn report)
{
    int items = local_items(job), missing = 0;
    char path[4300];
    if (!items)
        return STAGE_READY;
    for (int it = ITEM_INPUT; it <= ITEM_MODEL; it <<= 1) {
        snprintf(path, sizeof path, "%s/.stage/local-%s.done", dir, it == ITEM_INPUT ? "input" : "model");
        if ((items & it) && access(path, F_OK) != 0)
            missing |= it;
    }
    if (!missing) {
        agent_transfer_forget(dir, 0);   /* all here: no longer waits */
        return STAGE_READY;
    }
    slot *s = slot_open(a, doc_str(job, "id"), (int)index, dir, 0, msg, len);
    if (!s)
        return STAGE_FAILED;
    pthread_mutex_lock(&lock);
    s->items = items;
    pthread_mutex_unlock(&lock);
    int64_t limit = wait_limit_s();
    if (a->o->log.now() - s->since > limit) {
        snprintf(msg, len, "%s (type local): no one sent it within %lld s (rigdeck job send)",
                 (missing & ITEM_INPUT) ? "data.input" : "model.source", (long long)limit);
        slot_drop(s);
        return STAGE_FAILED;
    }
    char why[512];
    if (say_waiting(a, s, "staging", "waiting for job send", report, why, sizeof why) < 0) {
        snprintf(msg, len, "%s (type local): %s", (missing & ITEM_INPUT) ? "data.input" : "model.source", why);
        slot_drop(s);
        return STAGE_FAILED;
    }
    return STAGE_BUSY;
}

int agent_transfer_offer(agent_state *a, const char *job, int index, const char *dir, const char *zip, char *msg,
                         size_t len, agent_stage_report_fn report)
{
    slot *s = slot_open(a, job, index, dir, 1, msg, len);
    if (!s)
        return -1;
    pthread_mutex_lock(&lock);
    snprintf(s->zip, sizeof s->zip, "%s", zip);
    int got = s->got;
    pthread_mutex_unlock(&lock);
    if (got) {
        slot_drop(s);
        return 1;
    }
    int64_t limit = wait_limit_s();
    if (a->o->log.now() - s->since > limit) {
        snprintf(msg, len, "data.output (type local): no one received it within %lld s (rigdeck job receive)",
                 (long long)limit);
        slot_drop(s);
        return -1;
    }
    char why[512];
    if (say_waiting(a, s, "uploading", "waiting for job receive", report, why, sizeof why) < 0) {
        snprintf(msg, len, "data.output (type local): %s", why);
        slot_drop(s);
        return -1;
    }
    return 0;
}

void agent_transfer_forget(const char *dir, int output)
{
    pthread_mutex_lock(&lock);
    slot *s = slot_by_dir(dir, output);
    if (s)
        explicit_bzero(s, sizeof *s);
    pthread_mutex_unlock(&lock);
}
