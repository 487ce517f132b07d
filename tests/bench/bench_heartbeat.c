/* bench_heartbeat.c - what 10,000 node agents' heartbeats cost the store
 * and the controller.
 *
 * On the etcd member named in $RIGDECK_BENCH_ETCD (tests/bench/run.sh
 * starts one; without it the benchmark is skipped), after deleting rigdeck's
 * keys (/rigdeck/ and ~rigdeck/):
 *   setup    BENCH_HB_AGENTS (default 10,000) simulated agents, each as a
 *            real agent registers: a lease of 3 x the heartbeat (15 s), its
 *            document under /rigdeck/agents/<node> (state online, that
 *            lease) and /rigdeck/agent-alive/<node> under the lease.  No
 *            node documents: `agent check` never reads them while every
 *            agent is alive, and the scheduler is not what is measured.
 *   serve    a real `rigdeck serve --node-timeout 30s` (the rigdeck binary
 *            next to bench/, or $RIGDECK_BIN) on the same member; it leads
 *            and runs `agent check` every second over all those agents.
 *   window   BENCH_HB_SECONDS (default 30) during which BENCH_HB_THREADS
 *            (default 8) threads, each with its own store handle, renew
 *            every lease once per BENCH_HB_PERIOD seconds (default 5: 2,000
 *            keepalives/s), each lease at its own phase in the period.
 * Figures: store revisions per second during the window (aim: none from
 * heartbeats; a watch over the whole key space says which keys did change),
 * keepalives achieved per second (and how late the last ones were), and
 * the serve's CPU during the window as a fraction of one core (aim: under
 * 0.10), from /proc/PID/stat.  The machine's own CPU use and this process's
 * are printed beside it, so a missed aim can be told apart from a saturated
 * machine.  Cleans up: the serve is stopped, the leases revoked, the
 * documents deleted.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "store.h"

enum { LEASE_TTL_MULT = 3, TXN_AGENTS = 50 };

static long g_agents, g_threads, g_seconds, g_period;
static const char *g_url;
static int64_t *g_leases;

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "bench_heartbeat: %s: %s\n", what, msg ? msg : strerror(errno));
    exit(1);
}

static store_t *open_store(void)
{
    store_t *st = NULL;
    rd_err e = { 0 };
    if (store_open(g_url, NULL, &st, &e) != RD_OK)
        die(g_url, e.msg);
    return st;
}

static void sleep_until(double t)
{
    double d = t - now_s();
    if (d <= 0)
        return;
    struct timespec ts = { (time_t)d, (long)((d - (double)(time_t)d) * 1e9) };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* ---- setup: leases and documents, in parallel ------------------------------ */

typedef struct {
    long from, to;      /* agents [from, to) */
    int mode;           /* 0: grant + register, 1: revoke */
    long errors;
} setup_job;

static void *setup_thread(void *arg)
{
    setup_job *j = arg;
    store_t *st = open_store();
    rd_err e = { 0 };
    char ts[32];
    time_t t = time(NULL);
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    if (j->mode == 1) {
        for (long i = j->from; i < j->to; i++)
            if (g_leases[i] && store_lease_revoke(st, g_leases[i], &e) != RD_OK)
                j->errors++;
        store_close(st);
        return NULL;
    }
    for (long i = j->from; i < j->to; i++)
        if (store_lease_grant(st, g_period * LEASE_TTL_MULT, &g_leases[i], &e) != RD_OK)
            die("store_lease_grant", e.msg);
    /* TXN_AGENTS agents (two keys each) per transaction */
    for (long b = j->from; b < j->to; b += TXN_AGENTS) {
        static _Thread_local char keys[2 * TXN_AGENTS][96], vals[2 * TXN_AGENTS][512];
        store_op ops[2 * TXN_AGENTS];
        size_t n = 0;
        for (long i = b; i < j->to && i < b + TXN_AGENTS; i++) {
            snprintf(keys[n], sizeof keys[n], "/rigdeck/agents/hb%05ld", i);
            int len = snprintf(vals[n], sizeof vals[n],
                               "{\"name\":\"hb%05ld\",\"node\":\"hb%05ld\",\"host\":\"bench\",\"pid\":%ld,"
                               "\"version\":\"0.1.0\",\"runtime\":\"process\",\"work_dir\":\"/tmp/hb\","
                               "\"heartbeat_s\":%ld,\"lease\":%lld,\"lease_ttl\":%ld,\"state\":\"online\","
                               "\"registered_at\":\"%s\",\"lost_at\":null,\"last_heartbeat\":\"%s\"}",
                               i, i, 100000 + i, g_period, (long long)g_leases[i], g_period * LEASE_TTL_MULT, ts, ts);
            ops[n] = (store_op){ STORE_OP_PUT, keys[n], vals[n], (size_t)len, 0 };
            n++;
            snprintf(keys[n], sizeof keys[n], "/rigdeck/agent-alive/hb%05ld", i);
            len = snprintf(vals[n], sizeof vals[n], "{\"registered_at\":\"%s\",\"pid\":%ld}", ts, 100000 + i);
            ops[n] = (store_op){ STORE_OP_PUT, keys[n], vals[n], (size_t)len, g_leases[i] };
            n++;
        }
        store_txn_result res;
        if (store_txn(st, NULL, 0, ops, n, NULL, 0, &res, &e) != RD_OK || !res.succeeded)
            die("store_txn (register)", e.msg);
    }
    store_close(st);
    return NULL;
}

static void setup_all(int mode)
{
    pthread_t th[64];
    setup_job jobs[64];
    long nt = g_threads > 64 ? 64 : g_threads;
    for (long t = 0; t < nt; t++) {
        jobs[t] = (setup_job){ g_agents * t / nt, g_agents * (t + 1) / nt, mode, 0 };
        if (pthread_create(&th[t], NULL, setup_thread, &jobs[t]) != 0)
            die("pthread_create", NULL);
    }
    long errors = 0;
    for (long t = 0; t < nt; t++) {
        pthread_join(th[t], NULL);
        errors += jobs[t].errors;
    }
    if (errors)
        fprintf(stderr, "bench_heartbeat: %ld lease revocations failed\n", errors);
}

/* ---- the heartbeats ------------------------------------------------------------- */

typedef struct {
    long from, to;
    double start, end;  /* the window, monotonic seconds */
    long done, errors;
    double late_max;    /* the latest a renewal came after its due moment */
    double late_sum;
} hb_job;

static void *hb_thread(void *arg)
{
    hb_job *j = arg;
    store_t *st = open_store();
    rd_err e = { 0 };
    long n = j->to - j->from;
    /* lease from + k is due at start + (k / n) * period, then every period */
    for (long round = 0;; round++) {
        for (long k = 0; k < n; k++) {
            double due = j->start + (double)round * (double)g_period + (double)k * (double)g_period / (double)n;
            if (due >= j->end)
                goto out;
            sleep_until(due);
            double t = now_s();
            if (t >= j->end)
                goto out;
            if (store_lease_keepalive(st, g_leases[j->from + k], NULL, &e) != RD_OK)
                j->errors++;
            else
                j->done++;
            double late = now_s() - due;
            j->late_sum += late;
            if (late > j->late_max)
                j->late_max = late;
        }
    }
out:
    store_close(st);
    return NULL;
}

/* ---- measuring processes -------------------------------------------------------- */

/* utime + stime of pid in seconds, or -1. */
static double proc_cpu_s(pid_t pid)
{
    char path[64], buf[2048];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    unsigned long long ut = 0, stt = 0;
    /* after ") ": state(3) ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime(14) stime(15) */
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &stt) != 2)
        return -1;
    return (double)(ut + stt) / (double)sysconf(_SC_CLK_TCK);
}

/* Busy and total jiffies of the whole machine (/proc/stat "cpu" line). */
static void machine_cpu(double *busy, double *total)
{
    unsigned long long v[10] = { 0 };
    FILE *f = fopen("/proc/stat", "r");
    *busy = *total = 0;
    if (!f)
        return;
    if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
               &v[5], &v[6], &v[7], &v[8], &v[9]) >= 8) {
        for (int i = 0; i < 8; i++)
            *total += (double)v[i];
        *busy = *total - (double)v[3] - (double)v[4];
    }
    fclose(f);
}

static double self_cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec / 1e6;
}

static pid_t start_serve(const char *bin, const char *log, const char *key)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        die("fork", NULL);
    if (pid == 0) {
        FILE *l = freopen(log, "w", stderr);
        (void)l;
        if (!freopen("/dev/null", "w", stdout))
            _exit(127);
        unsetenv("RIGDECK_NOW");
        setenv("RIGDECK_MASTER_KEY", key, 0);
        execl(bin, bin, "serve", "--store", g_url, "--node-timeout", "30s", (char *)NULL);
        _exit(127);
    }
    return pid;
}

static void stop_serve(pid_t pid)
{
    int status;
    kill(pid, SIGTERM);
    for (int i = 0; i < 100; i++) {
        if (waitpid(pid, &status, WNOHANG) == pid)
            return;
        usleep(50000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
}

/* ---- which keys changed ---------------------------------------------------------- */

typedef struct {
    char prefix[64];
    long count;
} key_count;

static void count_key(key_count *kc, int *nkc, int cap, const char *key)
{
    /* the first two components: "/rigdeck/agents/", "~rigdeck/watchers/" */
    char p[64];
    const char *s = strchr(key + 1, '/');
    s = s ? strchr(s + 1, '/') : NULL;
    size_t len = s ? (size_t)(s - key + 1) : strlen(key);
    snprintf(p, sizeof p, "%.*s", (int)(len < sizeof p ? len : sizeof p - 1), key);
    for (int i = 0; i < *nkc; i++)
        if (!strcmp(kc[i].prefix, p)) {
            kc[i].count++;
            return;
        }
    if (*nkc < cap) {
        snprintf(kc[*nkc].prefix, sizeof kc[0].prefix, "%s", p);
        kc[(*nkc)++].count = 1;
    }
}

int main(int argc, char **argv)
{
    (void)argc;
    g_url = getenv("RIGDECK_BENCH_ETCD");
    if (!g_url || strncmp(g_url, "etcd://", 7)) {
        printf("bench_heartbeat: skipped (set RIGDECK_BENCH_ETCD=etcd://HOST:PORT; tests/bench/run.sh does)\n");
        return 0;
    }
    g_agents = env_long("BENCH_HB_AGENTS", 10000);
    g_threads = env_long("BENCH_HB_THREADS", 8);
    g_seconds = env_long("BENCH_HB_SECONDS", 30);
    g_period = env_long("BENCH_HB_PERIOD", 5);
    if (g_threads > 64)
        g_threads = 64;
    char bin[1024], dir[] = "/tmp/rdhb.XXXXXX", log[1100], key[1100];
    if (getenv("RIGDECK_BIN"))
        snprintf(bin, sizeof bin, "%s", getenv("RIGDECK_BIN"));
    else {
        snprintf(bin, sizeof bin, "%s", argv[0]);
        char *slash = strrchr(bin, '/');
        if (slash)
            snprintf(slash, sizeof bin - (size_t)(slash - bin), "/../rigdeck");
        else
            snprintf(bin, sizeof bin, "../rigdeck");
    }
    if (access(bin, X_OK) != 0) {
        printf("bench_heartbeat: %s is not built; skipped\n", bin);
        return 0;
    }
    if (!mkdtemp(dir))
        die("mkdtemp", NULL);
    snprintf(log, sizeof log, "%s/serve.log", dir);
    snprintf(key, sizeof key, "%s/master.key", dir);
    g_leases = calloc((size_t)g_agents, sizeof *g_leases);
    if (!g_leases)
        die("calloc", NULL);

    printf("bench_heartbeat: %ld simulated agents, one keepalive each per %ld s (%.0f/s asked), %ld threads, "
           "%ld s window, on %s\n", g_agents, g_period, (double)g_agents / (double)g_period, g_threads, g_seconds,
           g_url);
    store_t *st = open_store();
    rd_err e = { 0 };
    store_op wipe[2] = { { STORE_OP_DELETE_PREFIX, "/rigdeck/", NULL, 0, 0 },
                         { STORE_OP_DELETE_PREFIX, "~rigdeck/", NULL, 0, 0 } };
    store_txn_result res;
    if (store_txn(st, NULL, 0, wipe, 2, NULL, 0, &res, &e) != RD_OK)
        die("wipe", e.msg);

    double t0 = now_s();
    setup_all(0);
    printf("setup: %ld leases granted, %ld agent documents and alive keys written in %.1f s\n", g_agents, g_agents,
           now_s() - t0);

    pid_t serve = start_serve(bin, log, key);
    /* let it start, take the lead and run its first rounds over every agent */
    sleep_until(now_s() + 5);
    int status;
    if (waitpid(serve, &status, WNOHANG) == serve) {
        printf("bench_heartbeat: the serve exited at once (see its log); skipped\n");
        return 0;
    }

    int64_t rev0 = 0, rev1 = 0;
    if (store_revision(st, &rev0, &e) != RD_OK)
        die("store_revision", e.msg);

    hb_job jobs[64];
    pthread_t th[64];
    double start = now_s() + 0.2, end = start + (double)g_seconds;
    double serve0, serve1, self0, self1, busy0, tot0, busy1, tot1;
    for (long t = 0; t < g_threads; t++) {
        jobs[t] = (hb_job){ g_agents * t / g_threads, g_agents * (t + 1) / g_threads, start, end, 0, 0, 0, 0 };
        if (pthread_create(&th[t], NULL, hb_thread, &jobs[t]) != 0)
            die("pthread_create", NULL);
    }
    sleep_until(start);
    serve0 = proc_cpu_s(serve);
    self0 = self_cpu_s();
    machine_cpu(&busy0, &tot0);

    sleep_until(end);
    serve1 = proc_cpu_s(serve);
    self1 = self_cpu_s();
    machine_cpu(&busy1, &tot1);
    if (store_revision(st, &rev1, &e) != RD_OK)
        die("store_revision", e.msg);
    /* which keys the window's revisions wrote: read back from history (a
     * one-off read; a watch would register itself and write) */
    key_count kc[32];
    int nkc = 0;
    long events = 0, agent_writes = 0;
    store_event *ev = NULL;
    size_t nev = 0;
    int more = 0;
    if (rev1 > rev0 && store_history(st, rev0, rev1, 100000, 10000, &ev, &nev, &more, &e) == RD_OK) {
        for (size_t i = 0; i < nev; i++) {
            events++;
            count_key(kc, &nkc, 32, ev[i].kv.key);
            agent_writes += !strncmp(ev[i].kv.key, "/rigdeck/agent", 14);
        }
        store_events_free(ev, nev);
    }

    long done = 0, errors = 0;
    double late_max = 0, late_sum = 0;
    for (long t = 0; t < g_threads; t++) {
        pthread_join(th[t], NULL);
        done += jobs[t].done;
        errors += jobs[t].errors;
        late_sum += jobs[t].late_sum;
        if (jobs[t].late_max > late_max)
            late_max = jobs[t].late_max;
    }
    double window = end - start;
    double hb_rate = (double)done / window;
    double rev_rate = (double)(rev1 - rev0) / window;
    double serve_share = serve0 >= 0 && serve1 >= 0 ? (serve1 - serve0) / window : -1;
    double self_share = (self1 - self0) / window;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    double machine = tot1 > tot0 ? (busy1 - busy0) / (tot1 - tot0) : 0;

    printf("window %.1f s: %ld keepalives (%.0f/s of %.0f/s asked), %ld failed; a renewal came on average "
           "%.3f s, at worst %.3f s after its due moment\n", window, done, hb_rate,
           (double)g_agents / (double)g_period, errors, done + errors ? late_sum / (double)(done + errors) : 0,
           late_max);
    printf("store revisions: %lld -> %lld (%lld in the window; their %ld writes, from history%s:)\n",
           (long long)rev0, (long long)rev1, (long long)(rev1 - rev0), events, more ? ", too many to list" : "");
    for (int i = 0; i < nkc; i++)
        printf("  %6ld writes under %s\n", kc[i].count, kc[i].prefix);
    printf("cpu: serve %.3f of a core; this client (%ld keepalive threads) %.3f of a core; the machine %.0f%% busy "
           "over %ld CPUs (etcd, this client, the serve)\n", serve_share, g_threads, self_share, machine * 100, ncpu);
    printf("the serve's input: %ld agent documents under /rigdeck/agents/ and %ld alive keys under "
           "/rigdeck/agent-alive/ (no node documents, no jobs)\n", g_agents, g_agents);
    FILE *lf = fopen(log, "r");
    if (lf) {
        char line[512];
        int shown = 0;
        while (fgets(line, sizeof line, lf) && shown < 5) {
            if (strstr(line, "error") || strstr(line, "slow") || strstr(line, "fail")) {
                printf("  serve log: %s", line);
                shown++;
            }
        }
        fclose(lf);
    }

    stop_serve(serve);
    t0 = now_s();
    setup_all(1);
    store_op rm[1] = { { STORE_OP_DELETE_PREFIX, "/rigdeck/", NULL, 0, 0 } };
    if (store_txn(st, NULL, 0, rm, 1, NULL, 0, &res, &e) != RD_OK)
        fprintf(stderr, "bench_heartbeat: cleanup: %s\n", e.msg);
    store_close(st);
    unlink(log);
    unlink(key);
    rmdir(dir);
    printf("cleanup: leases revoked and documents deleted in %.1f s\n", now_s() - t0);

    printf("bench: heartbeat_revisions_per_s %.2f 1/s\n", rev_rate);
    printf("bench: heartbeat_keepalives_per_s %.0f 1/s\n", hb_rate);
    printf("bench: heartbeat_keepalive_late_max_s %.3f s\n", late_max);
    printf("bench: heartbeat_agent_key_writes_per_s %.2f 1/s\n", (double)agent_writes / window);
    if (g_agents % 1000 == 0)
        printf("bench: serve_cpu_share_%ldk_agents %.3f ratio\n", g_agents / 1000, serve_share);
    else
        printf("bench: serve_cpu_share_%ld_agents %.3f ratio\n", g_agents, serve_share);
    printf("bench: heartbeat_client_cpu_share %.3f ratio\n", self_share);
    free(g_leases);
    return 0;
}
