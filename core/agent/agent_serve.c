/* agent_serve.c - notebook and endpoint workers (agent_serve.h).
 *
 * Owns what a serving worker runs and where it listens.  Three kinds:
 *   - notebook: `jupyter lab`, or the classic `jupyter notebook` where only
 *     that is installed (Debian's jupyter-notebook 6.4), from the worker's
 *     own PATH (its image, or on the process runtime the pip virtual
 *     environment runner_packages.c made, then the host's), in its /opt/ml
 *     tree, until it is stopped.  The token is random (24 bytes from the
 *     kernel, 48 hex characters) and reaches Jupyter as JUPYTER_TOKEN, which
 *     both the notebook and jupyter_server read: never on a command line
 *     that `ps` shows.
 *   - endpoint with start_command: that command, told its port in PORT.
 *   - endpoint with routes: rigdeck's route server (scripts/route_server.py)
 *     with the routes as the job stores them: both are copied into the
 *     worker's /opt/ml/.rigdeck/, so the same paths work on the host and in
 *     a container (which sees that tree at /opt/ml).
 * The port on this machine is the reservation's (`reserved.port`, which
 * job submit copies from the reservation, so that an agent that may not
 * read reservations on a secured store still has it), else one the kernel
 * gives free (bound to port 0 and closed again: another process may take
 * it in between; the worker then fails to listen and its log says so).
 * In a container the server listens inside on that port (a notebook) or on
 * 80 (an endpoint, as seed 001 says), published on the host's port.
 */
#include "agent_serve.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doc.h"
#include "fleet.h"
#include "fileio.h"
#include "secret.h"
#include "strbuf.h"

enum { ENDPOINT_CONTAINER_PORT = 80 };

serve_kind agent_serve_kind(const json_t *job)
{
    const char *type = doc_str(job, "type");
    const json_t *ep = json_object_get(job, "endpoint");
    if (strcmp(type, "notebook") == 0)
        return SERVE_NOTEBOOK;
    if (strcmp(type, "endpoint") != 0)
        return SERVE_NONE;
    if (json_array_size(json_object_get(ep, "routes")) > 0)
        return SERVE_ROUTES;
    return *doc_str(ep, "start_command") ? SERVE_ENDPOINT : SERVE_NONE;
}

int agent_serve_route_server(char *buf, size_t len)
{
    const char *env = getenv("RIGDECK_ROUTE_SERVER");
    struct stat st;
    if (env && *env) {
        snprintf(buf, len, "%s", env);
        return stat(buf, &st) == 0 && S_ISREG(st.st_mode) ? 0 : -1;
    }
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    static const char *const beside[] = { "../share/rigdeck/route_server.py", "../scripts/route_server.py" };
    for (size_t i = 0; i < 2; i++) {
        snprintf(buf, len, "%.3900s/%s", exe, beside[i]);
        if (stat(buf, &st) == 0 && S_ISREG(st.st_mode))
            return 0;
    }
    return -1;
}

/* A port the kernel says is free on addr (NULL or a host name: any), or 0. */
static int free_port(const char *addr)
{
    struct sockaddr_in sa;
    socklen_t sl = sizeof sa;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = 0;
    if (fd < 0)
        return 0;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    if (!addr || inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
        sa.sin_addr.s_addr = htonl(INADDR_ANY);
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 && getsockname(fd, (struct sockaddr *)&sa, &sl) == 0)
        port = ntohs(sa.sin_port);
    close(fd);
    return port;
}

/* Appends s to b, single-quoted for the shell when quote (a failed append
 * marks b failed: the builders check once at the end). */
static void put(strbuf *b, const char *s, int quote)
{
    if (!quote) {
        strbuf_puts(b, s);
        return;
    }
    strbuf_puts(b, "'");
    for (size_t n; *s; s += n) {
        n = strcspn(s, "'");
        strbuf_append(b, s, n);
        if (s[n] == '\'') {
            strbuf_puts(b, "'\\''");
            n++;
        }
    }
    strbuf_puts(b, "'");
}

/* The notebook's command: jupyter lab, else jupyter notebook, else a line
 * saying neither is installed (exit 127, the shell's "not found"). */
static char *notebook_command(const char *ip, int port, const char *nbdir)
{
    strbuf out = { 0 };
    char num[16];
    snprintf(num, sizeof num, "%d", port);
    static const char *const apps[][2] = { { "jupyter-lab", "lab" }, { "jupyter-notebook", "notebook" } };
    for (size_t i = 0; i < 2; i++) {
        put(&out, i ? "elif command -v " : "if command -v ", 0);
        put(&out, apps[i][0], 0);
        put(&out, " >/dev/null 2>&1; then exec jupyter ", 0);
        put(&out, apps[i][1], 0);
        /* --allow-root: a container's user is often root, and the classic
         * notebook refuses to start as root without it */
        put(&out, " --no-browser --allow-root --ip=", 0);
        put(&out, ip, 1);
        put(&out, " --port=", 0);
        put(&out, num, 0);
        /* the port is the one connect names: never another one */
        put(&out, " --port-retries=0 --notebook-dir=", 0);
        put(&out, nbdir, 1);
        put(&out, "; ", 0);
    }
    put(&out, "else echo 'rigdeck: neither jupyter lab nor jupyter notebook is installed in this "
              "environment (add jupyterlab to environment.packages.pip)' >&2; exit 127; fi", 0);
    return out.text;   /* NULL when memory ran out */
}

/* The route server's command, its files under base/.rigdeck. */
static char *routes_command(const char *base, const char *ip, int port)
{
    strbuf out = { 0 };
    char path[4300], num[16];
    snprintf(num, sizeof num, "%d", port);
    put(&out, "exec python3 ", 0);
    snprintf(path, sizeof path, "%s/.rigdeck/route_server.py", base);
    put(&out, path, 1);
    put(&out, " --routes ", 0);
    snprintf(path, sizeof path, "%s/.rigdeck/routes.json", base);
    put(&out, path, 1);
    put(&out, " --code \"$ML_MODEL_PATH\" --host ", 0);
    put(&out, ip, 1);
    put(&out, " --port ", 0);
    put(&out, num, 0);
    return out.text;   /* NULL when memory ran out */
}

/* Writes len bytes of text to path (mode 0644, replaced whole). */
static int write_file(const char *path, const char *text, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    int bad = fileio_write_all(fd, text, len) != 0;
    return close(fd) != 0 || bad ? -1 : 0;
}

/* The route server and the job's routes into tree/.rigdeck. */
static int routes_files(const json_t *job, const char *tree, char *msg, size_t len)
{
    char src[4096], dir[4300], path[4400];
    if (agent_serve_route_server(src, sizeof src) != 0) {
        snprintf(msg, len, "the route server is not installed (route_server.py: not in $RIGDECK_ROUTE_SERVER, "
                 "../share/rigdeck or ../scripts beside the rigdeck binary)");
        return -1;
    }
    snprintf(dir, sizeof dir, "%s/.rigdeck", tree);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        snprintf(msg, len, "%s: %s", dir, strerror(errno));
        return -1;
    }
    FILE *f = fopen(src, "rb");
    strbuf text = { 0 };
    char chunk[8192];
    for (size_t got; f && !text.failed && (got = fread(chunk, 1, sizeof chunk, f)) > 0;)
        strbuf_append(&text, chunk, got);
    int bad = !f || ferror(f) || !text.text;   /* unreadable, out of memory or empty */
    if (f)
        fclose(f);
    snprintf(path, sizeof path, "%s/route_server.py", dir);
    if (bad || write_file(path, text.text, text.len) != 0) {
        strbuf_free(&text);
        snprintf(msg, len, "cannot copy the route server %s into %s", src, dir);
        return -1;
    }
    strbuf_free(&text);
    char *routes = json_dumps(json_object_get(json_object_get(job, "endpoint"), "routes"), JSON_INDENT(2));
    snprintf(path, sizeof path, "%s/routes.json", dir);
    bad = !routes || write_file(path, routes, strlen(routes)) != 0;
    free(routes);
    if (bad) {
        snprintf(msg, len, "cannot write the routes into %s", path);
        return -1;
    }
    return 0;
}

/* Seals the token with the master key (never made here: a node without the
 * admin hosts' key must get a copy, not a key of its own). */
static char *seal_token(agent_state *a, const char *token, char *msg, size_t len)
{
    char *sealed = NULL;
    rd_err err = { 0 };
    if (fleet_seal_existing(&a->ctx, token, strlen(token), &sealed, &err) != RD_OK) {
        snprintf(msg, len, "the notebook's token cannot be sealed: %s", err.msg);
        sealed = NULL;
    }
    return sealed;
}

/* Sets NAME=value in env, over any NAME there (a reserved job's PORT from
 * agent_mdns_env is the host's port; inside a container the server's is 80). */
static int push_var(json_t *env, const char *name, const char *value)
{
    size_t n = strlen(name);
    for (size_t i = json_array_size(env); i-- > 0;) {
        const char *kv = json_string_value(json_array_get(env, i));
        if (kv && strncmp(kv, name, n) == 0 && kv[n] == '=')
            json_array_remove(env, i);
    }
    return json_array_append_new(env, json_sprintf("%s=%s", name, value)) == 0 ? 0 : -1;
}

int agent_serve_prepare(agent_state *a, const json_t *job, const char *dir, json_t *env, agent_serve *s, char *msg,
                        size_t len)
{
    int container = a->runtime != RUNNER_PROCESS;
    const char *addr = a->o->address;
    char tree[4200], base[4200], num[16];
    memset(s, 0, sizeof s[0]);
    s->kind = agent_serve_kind(job);
    snprintf(s->host, sizeof s->host, "%s", addr && *addr ? addr : *a->o->host ? a->o->host : "localhost");
    int64_t reserved = doc_int(json_object_get(job, "reservation"), "port");
    s->port = reserved > 0 && reserved <= 65535 ? (int)reserved : free_port(addr);
    if (!s->port) {
        snprintf(msg, len, "no free port to serve on: %s", strerror(errno));
        return -1;
    }
    /* where it listens: inside a container every interface, published on
     * --address (when it is an IPv4 address) at the host's port */
    int inner = container && s->kind != SERVE_NOTEBOOK ? ENDPOINT_CONTAINER_PORT : s->port;
    const char *ip = container || !addr || !*addr ? "0.0.0.0" : addr;
    if (container) {
        struct in_addr probe;
        int numeric = addr && inet_pton(AF_INET, addr, &probe) == 1;
        snprintf(s->publish, sizeof s->publish, "%s%s%d:%d", numeric ? addr : "", numeric ? ":" : "", s->port,
                 inner);
    }
    snprintf(tree, sizeof tree, "%s/opt/ml", dir);
    snprintf(base, sizeof base, "%s", container ? "/opt/ml" : tree);
    snprintf(num, sizeof num, "%d", inner);
    if (s->kind != SERVE_NOTEBOOK && push_var(env, "PORT", num) != 0)
        goto nomem;
    if (s->kind == SERVE_NOTEBOOK) {
        unsigned char raw[24];
        if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
            snprintf(msg, len, "no random bytes for the notebook's token: %s", strerror(errno));
            return -1;
        }
        for (size_t i = 0; i < sizeof raw; i++)
            snprintf(s->token + 2 * i, 3, "%02x", raw[i]);
        explicit_bzero(raw, sizeof raw);
        if (!(s->sealed_token = seal_token(a, s->token, msg, len)))
            return -1;
        if (push_var(env, "JUPYTER_TOKEN", s->token) != 0)
            goto nomem;
        /* its cookie secret and kernels' connection files in its own
         * directory, not in the agent's home shared by every worker */
        char rt[4300];
        snprintf(rt, sizeof rt, "%s/.jupyter-runtime", base);
        if (!container && push_var(env, "JUPYTER_RUNTIME_DIR", rt) != 0)
            goto nomem;
        s->command = notebook_command(ip, inner, base);
    } else if (s->kind == SERVE_ROUTES) {
        if (routes_files(job, tree, msg, len) != 0)
            return -1;
        s->command = routes_command(base, ip, inner);
    } else if (s->kind == SERVE_ENDPOINT) {
        s->command = strdup(doc_str(json_object_get(job, "endpoint"), "start_command"));
    }
    if (s->command)
        return 0;
nomem:
    snprintf(msg, len, "out of memory");
    return -1;
}

void agent_serve_report(agent_state *a, const char *id, size_t index, const agent_serve *s,
                        agent_serve_report_fn report)
{
    char idx[24], port[16];
    rd_err err = { 0 };
    if (s->kind == SERVE_NONE)
        return;
    snprintf(idx, sizeof idx, "%zu", index);
    snprintf(port, sizeof port, "%d", s->port);
    json_t *words = json_pack("[s, s, s, s, s, s, s, s, s, s]", "job", "report", id, "serving", "--worker", idx,
                              "--host", s->host, "--port", port);
    if (words && s->sealed_token) {
        json_array_append_new(words, json_string("--token"));
        json_array_append_new(words, json_string(s->sealed_token));
    }
    if (!words || report(a, words, &err) != RD_OK)
        dlog(&a->o->log, "start", NULL, "%s/%zu: where it serves (%s:%d) was not taken: %s", id, index, s->host,
             s->port, words ? err.msg : "out of memory");
    else
        dlog(&a->o->log, "start", NULL, "%s/%zu serves on %s:%d", id, index, s->host, s->port);
}

void agent_serve_clear(agent_serve *s)
{
    free(s->command);
    free(s->sealed_token);
    explicit_bzero(s->token, sizeof s->token);
    s->command = NULL;
    s->sealed_token = NULL;
}
