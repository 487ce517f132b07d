/* agent_mdns.c - port reservations on the node: the worker of a job with
 * `regional.reservation` gets the reservation's port (env PORT) and
 * hostname (env RIGDECK_HOSTNAME), and while its command runs the node
 * publishes that hostname by mDNS at the node's address.
 *
 * Publishing is one `avahi-publish -a -R NAME ADDRESS` process per worker,
 * held for the worker's life, rather than libavahi-client inside the
 * agent: a process outlives an agent restart exactly as the worker does
 * (the next agent finds it by its record and adopts it), ends cleanly with
 * one signal (avahi-daemon withdraws a client's records when it goes), and
 * keeps avahi's event loop and D-Bus out of the agent.  The record,
 * DIR/.rigdeck/mdns, holds "PID START NAME" (START: its start time, so a
 * reused pid is never taken for it); its output goes to
 * DIR/.rigdeck/mdns.log.  RIGDECK_MDNS_PUBLISH names the publishing
 * command instead of avahi-publish (words split on blanks, the arguments
 * appended): a test hook, and a way to run it through a wrapper.
 *
 * The name published is the reservation's hostname as given (mDNS is the
 * .local domain: reservations normally say NAME.local), with ".local"
 * appended to a single label, which avahi refuses.  The address is the
 * agent's --mdns-address, else the first IPv4 address of an interface that
 * is up and not loopback (nodes have no address field).  When avahi is
 * missing or its daemon is not running the worker runs all the same.
 */
#include "agent_mdns.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "doc.h"
#include "runner_int.h"

extern char **environ;

enum {
    RETRY_MS = 30000,   /* a publisher that could not run is tried again after this */
    WORDS_MAX = 16      /* of RIGDECK_MDNS_PUBLISH */
};

int agent_mdns_port(const json_t *job)
{
    const json_t *res = json_object_get(job, "reservation");
    json_int_t port = json_integer_value(json_object_get(res, "port"));
    return port > 0 && port <= 65535 ? (int)port : 0;
}

/* The name published for hostname, lower case. */
static void mdns_name(const char *host, char *out, size_t len)
{
    snprintf(out, len, "%s%s", host, strchr(host, '.') ? "" : ".local");
    for (char *c = out; *c; c++)
        *c = (char)tolower((unsigned char)*c);
}

int agent_mdns_env(const json_t *job, json_t *env)
{
    const json_t *res = json_object_get(job, "reservation");
    char name[300];
    int port = agent_mdns_port(job);
    if (!port || !*doc_str(res, "hostname"))
        return 1;
    for (size_t i = json_array_size(env); i-- > 0;)
        if (strncmp(json_string_value(json_array_get(env, i)), "PORT=", 5) == 0)
            json_array_remove(env, i);
    mdns_name(doc_str(res, "hostname"), name, sizeof name);
    return json_array_append_new(env, json_sprintf("PORT=%d", port)) == 0 &&
           json_array_append_new(env, json_sprintf("RIGDECK_HOSTNAME=%s", name)) == 0;
}

/* ---- the publisher's record -------------------------------------------- */

/* The live publisher recorded in dir (its pid; name gets what it
 * publishes), 0 when none; *recorded says whether a record is there. */
static int publisher_live(const char *dir, char *name, size_t len, int *recorded)
{
    char *path = runner_state_path(dir, "mdns"), st = 0, word[300] = "";
    int pid = 0;
    unsigned long long start = 0, now_start = 0;
    FILE *f = path ? fopen(path, "r") : NULL;
    free(path);
    *recorded = f != NULL;
    if (f && fscanf(f, "%d %llu %299s", &pid, &start, word) != 3)
        pid = 0;
    if (f)
        fclose(f);
    snprintf(name, len, "%s", word);
    if (pid > 0 && runner_proc_stat(pid, &st, &now_start) == 0 && st != 'Z' && now_start == start)
        return pid;
    return 0;
}

static void record_remove(const char *dir)
{
    char *path = runner_state_path(dir, "mdns");
    if (path)
        unlink(path);
    free(path);
}

/* The last line the publisher wrote (why it ended), or "" */
static void publisher_said(const char *dir, const char *want, char *out, size_t len, int *found)
{
    char *path = runner_state_path(dir, "mdns.log"), line[512];
    FILE *f = path ? fopen(path, "r") : NULL;
    free(path);
    out[0] = '\0';
    if (found)
        *found = 0;
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (*line)
            snprintf(out, len, "%s", line);
        if (found && want && strstr(line, want))
            *found = 1;
    }
    if (f)
        fclose(f);
}

/* ---- starting and ending it -------------------------------------------- */

/* The address the name resolves to: --mdns-address, else the first IPv4
 * address of an interface that is up and not loopback.  0 when none. */
static int node_address(const agent_state *a, char *out, size_t len)
{
    struct ifaddrs *all = NULL;
    if (a->o->mdns_address && *a->o->mdns_address) {
        snprintf(out, len, "%s", a->o->mdns_address);
        return 1;
    }
    if (getifaddrs(&all) != 0)
        return 0;
    out[0] = '\0';
    for (struct ifaddrs *i = all; i && !*out; i = i->ifa_next)
        if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && (i->ifa_flags & IFF_UP) &&
            !(i->ifa_flags & IFF_LOOPBACK))
            inet_ntop(AF_INET, &((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr, out, (socklen_t)len);
    freeifaddrs(all);
    return *out != 0;
}

/* Starts the publisher of name at address for the worker in dir, detached
 * (double fork, its own session: it lives on while the worker does, agent
 * or none), and records it.  0, or -1 with why. */
static int publisher_start(const char *dir, const char *name, const char *address, char *why, size_t len)
{
    const char *cmd = getenv("RIGDECK_MDNS_PUBLISH");
    char words[1024], *argv[WORDS_MAX + 5], *save = NULL, *path = NULL, *log = runner_state_path(dir, "mdns.log");
    char *rec = runner_state_path(dir, "mdns");
    int n = 0, fds[2] = { -1, -1 }, out = -1, null = -1, result = -1, status;
    pid_t pid = 0, mid;
    snprintf(words, sizeof words, "%s", cmd && *cmd ? cmd : "avahi-publish");
    for (char *w = strtok_r(words, " \t", &save); w && n < WORDS_MAX; w = strtok_r(NULL, " \t", &save))
        argv[n++] = w;
    argv[n++] = "-a";
    argv[n++] = "-R";   /* no reverse (PTR) record: the address may be published for several names */
    argv[n++] = (char *)name;
    argv[n++] = (char *)address;
    argv[n] = NULL;
    if (!log || !rec) {
        snprintf(why, len, "out of memory");
        goto done;
    }
    if (!(path = runner_find_program(argv[0]))) {
        snprintf(why, len, "%s is not installed (not on PATH)", argv[0]);
        goto done;
    }
    if ((out = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0 ||
        (null = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0 || pipe(fds) != 0) {
        snprintf(why, len, "cannot start %s: %s", argv[0], strerror(errno));
        goto done;
    }
    if ((mid = fork()) < 0) {
        snprintf(why, len, "cannot start %s: %s", argv[0], strerror(errno));
        goto done;
    }
    if (mid == 0) {
        setsid();
        pid = fork();
        if (pid != 0) {
            ssize_t wrote = write(fds[1], &pid, sizeof pid);
            _exit(pid < 0 || wrote != (ssize_t)sizeof pid);
        }
        dup2(null, 0);
        dup2(out, 1);
        dup2(out, 2);
        runner_close_from(3);
        runner_reset_signals();
        execve(path, argv, environ);
        static const char msg[] = "cannot run the mDNS publisher (exec failed)\n";
        ssize_t ignored = write(2, msg, sizeof msg - 1);
        (void)ignored;
        _exit(127);
    }
    close(fds[1]);
    fds[1] = -1;
    if (read(fds[0], &pid, sizeof pid) != (ssize_t)sizeof pid)
        pid = 0;
    while (waitpid(mid, &status, 0) < 0 && errno == EINTR)
        ;
    if (pid <= 0) {
        snprintf(why, len, "cannot start %s: fork failed", argv[0]);
        goto done;
    }
    /* Recorded with its start time; one that ended already leaves no
     * start time and is found gone at the next look, its log saying why. */
    char st = 0;
    unsigned long long start = 0;
    FILE *f = fopen(rec, "w");
    if (runner_proc_stat(pid, &st, &start) != 0)
        start = 0;
    if (!f || fprintf(f, "%d %llu %s\n", (int)pid, start, name) < 0 || fclose(f) != 0) {
        if (!f)
            snprintf(why, len, "cannot record its publisher: %s", strerror(errno));
        else
            snprintf(why, len, "cannot record its publisher");
        f = NULL;
        kill(pid, SIGTERM);
        goto done;
    }
    result = 0;
done:
    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    if (out >= 0)
        close(out);
    if (null >= 0)
        close(null);
    free(path);
    free(log);
    free(rec);
    return result;
}

/* Says once (until it is published again) that w's name is not published:
 * in the agent's log and at the end of the worker's own output, where its
 * owner reads it (`job logs`). */
static void warn(agent_state *a, agent_worker *w, const char *name, const char *why)
{
    char *path = runner_state_path(w->dir, "output.log");
    int fd = path ? open(path, O_WRONLY | O_APPEND | O_CLOEXEC) : -1;
    free(path);
    if (w->mdns_state == 2) {
        if (fd >= 0)
            close(fd);
        return;
    }
    w->mdns_state = 2;
    dlog(&a->o->log, "mdns", NULL, "%s/%d: %s is not published by mDNS: %s (the worker runs; tried again every %d s)",
         w->job, w->index, name, why, RETRY_MS / 1000);
    if (fd >= 0) {
        char line[1200];
        int n = snprintf(line, sizeof line, "rigdeck: warning: mDNS: %s is not published: %s; the worker runs on port "
                         "%d all the same\n", name, why, agent_mdns_port(w->job_doc));
        ssize_t wrote = write(fd, line, n > 0 && (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        (void)wrote;
        close(fd);
    }
}

void agent_mdns_withdraw(agent_state *a, const char *dir)
{
    char name[300];
    int recorded = 0, pid = publisher_live(dir, name, sizeof name, &recorded);
    if (pid && kill(pid, SIGTERM) == 0)
        dlog(&a->o->log, "mdns", NULL, "%s: %s withdrawn from mDNS", dir, name);
    if (recorded)
        record_remove(dir);
}

void agent_mdns_tend(agent_state *a, agent_worker *w, int running, int64_t now)
{
    const json_t *res = json_object_get(w->job_doc, "reservation");
    char name[300], had[300], why[600], address[INET6_ADDRSTRLEN + 1];
    int recorded = 0, pid, found = 0;
    if (!agent_mdns_port(w->job_doc) || !*doc_str(res, "hostname"))
        return;
    if (!running) {
        agent_mdns_withdraw(a, w->dir);
        return;
    }
    mdns_name(doc_str(res, "hostname"), name, sizeof name);
    pid = publisher_live(w->dir, had, sizeof had, &recorded);
    if (pid) {
        /* alive (adopted after a restart, too): published once it says so */
        publisher_said(w->dir, "Established under name", why, sizeof why, &found);
        if (found && w->mdns_state != 1) {
            w->mdns_state = 1;
            dlog(&a->o->log, "mdns", NULL, "%s/%d: %s published by mDNS (pid %d)", w->job, w->index, name, pid);
        }
        return;
    }
    if (recorded) {
        /* it ended by itself: no daemon, a name taken on the link */
        publisher_said(w->dir, NULL, why, sizeof why, NULL);
        record_remove(w->dir);
        warn(a, w, name, *why ? why : "its publisher ended");
        w->mdns_retry_ms = now + RETRY_MS;
        return;
    }
    if (now < w->mdns_retry_ms)
        return;
    w->mdns_retry_ms = now + RETRY_MS;
    if (!node_address(a, address, sizeof address))
        warn(a, w, name, "this node has no address to publish (no non-loopback IPv4 address; see --mdns-address)");
    else if (publisher_start(w->dir, name, address, why, sizeof why) != 0)
        warn(a, w, name, why);
    else if (w->mdns_state != 2)   /* quiet while it keeps failing: said once */
        dlog(&a->o->log, "mdns", NULL, "%s/%d: publishing %s at %s", w->job, w->index, name, address);
}
