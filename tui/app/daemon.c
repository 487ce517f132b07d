/* daemon.c - the front end of the two long-running processes:
 * `rigdeck serve` (core/serve/serve.c) and `rigdeck agent` (core/agent/).
 *
 * It parses their options (the global ones they take, from options.c's one
 * table, then their own),
 * installs SIGTERM/SIGINT handlers that only set a flag (the loops finish
 * the step in hand and return), hands the core a log sink that writes one
 * line to stderr, and maps the result to an exit status: 0 after a clean
 * stop, 2 on a usage error, 3 when the store cannot be opened, 1 otherwise.
 */
#include "daemon.h"

#include <arpa/inet.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent_device.h"
#include "agent_loop.h"
#include "options.h"
#include "serve.h"

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

static void write_stderr(void *data, const char *line)
{
    (void)data;
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
}

static rd_time wall_now(void)
{
    return (rd_time)time(NULL);
}

static void usage(FILE *out, int agent)
{
    if (agent)
        fputs("usage: rigdeck agent --node NAME [GLOBAL OPTIONS] [--work-dir DIR] [--heartbeat D] [--sample D]\n"
              "                     [--runtime auto|process|podman|docker] [--inventory FILE] [--gpu-temp-max C]\n"
              "                     [--metrics-listen HOST:PORT] [--address ADDR] [--mdns-address IP]\n"
              "                     [--log-format text|json] [--once]\n"
              "\n"
              "Runs on a node: reports its hardware (discovered, or --inventory FILE), renews its heartbeat\n"
              "lease every --heartbeat (default 5s), starts the workers the scheduler places there in\n"
              "WORK_DIR/<job>/<worker>/ (default ~/.local/state/rigdeck/agent/NAME), reports their ends and\n"
              "pushes their output.  Every --sample (default 10s) it records the vital stats and checks the\n"
              "GPUs: one that vanishes, reaches --gpu-temp-max (default 90 C) or gains uncorrected ECC errors\n"
              "gets no new work until 'node health clear'.\n"
              "Runs until SIGTERM or SIGINT; workers keep running and are adopted by\n"
              "the next agent.  GPUs come from nvidia-smi ($RIGDECK_NVIDIA_SMI overrides the program).\n"
              "--metrics-listen HOST:PORT (127.0.0.1:9400, [::1]:9400, :9400 for every IPv4 interface) also\n"
              "serves the vital stats for Prometheus at /metrics.\n"
              "--address ADDR: where notebook and endpoint workers listen, as 'job connect' gives it\n"
              "(default: every interface, named by the machine's host name).\n"
              "--mdns-address IP is the address a reserved job's hostname resolves to by mDNS while its\n"
              "worker runs (default: --address when it is an IP address, else this machine's first\n"
              "non-loopback IPv4 address).\n"
              "--master-key FILE [RIGDECK_MASTER_KEY] must be a copy of the admin hosts' key (mode 0600): it\n"
              "opens the jobs' sealed environment values; a worker whose values it cannot open fails.\n"
              "\n"
              "       rigdeck agent --device NAME [GLOBAL OPTIONS] [--work-dir DIR] [--heartbeat D]\n"
              "                     [--runtime auto|process|podman|docker] [--log-format text|json]\n"
              "\n"
              "Runs on an edge device: registers (the device turns active), renews its heartbeat lease (a\n"
              "silent device turns offline), and runs the device's deployed configuration: stages its model\n"
              "and checkpoints, sets its env and keys, and runs its command in the foreground (a container\n"
              "gets the accelerator and every /dev/video* with --device).  It reports running, then failed\n"
              "with the exit status when the command exits; the command is not restarted, but runs again\n"
              "whenever the agent starts (as after a reboot).  WORK_DIR defaults to\n"
              "~/.local/state/rigdeck/agent/device-NAME.  $RIGDECK_DEV_DIR overrides /dev.\n"
              "D is a duration: 500ms, 10s, 2m, 1h.  Global options as for rigdeck --help.\n",
              out);
    else
        fputs("usage: rigdeck serve [GLOBAL OPTIONS] [--sched-every D] [--bill-every D] [--sync-every D]\n"
              "                     [--node-timeout D] [--log-format text|json] [--once]\n"
              "\n"
              "The controller: places waiting workers when anything changes (at least every --sched-every,\n"
              "default 10s), posts billing every --bill-every (1h), runs a cloud sync round every\n"
              "--sync-every (1m) when a GCP region exists, and turns nodes whose agent is silent for\n"
              "--node-timeout (30s) offline.  Several may run on one store: one leads, the others stand by\n"
              "('serve status' shows which).  Runs until SIGTERM or SIGINT.\n"
              "D is a duration: 500ms, 10s, 2m, 1h.  Global options as for rigdeck --help.\n",
              out);
}

/* Their own options' codes: from 512, above the global options' (options.h). */
enum {
    D_LOGFMT = 512, D_ONCE, D_SCHED, D_BILL, D_SYNC,
    D_TIMEOUT, D_NODE, D_DEVICE, D_WORKDIR, D_HEARTBEAT, D_SAMPLE, D_RUNTIME, D_INVENTORY, D_TEMPMAX, D_METRICS_LISTEN,
    D_ADDRESS, D_MDNS_ADDRESS
};

typedef struct {
    rd_options g;                                                       /* the global options given */
    const char *logfmt;
    int once;
    const char *sched, *bill, *sync, *timeout;                          /* serve */
    const char *node, *device, *workdir, *heartbeat, *sample, *runtime, *inventory, *temp_max,
                *metrics_listen, *address, *mdns_address;   /* agent */
} daemon_args;

/* Parses argv (after the word serve or agent); 0 to go on, else the exit
 * status (-1: printed help, exit 0). */
static int parse(int argc, char **argv, int agent, daemon_args *d)
{
    static const struct option own[] = {
        { "log-format", required_argument, NULL, D_LOGFMT },
        { "once", no_argument, NULL, D_ONCE }, { "help", no_argument, NULL, 'h' },
        { "sched-every", required_argument, NULL, D_SCHED }, { "bill-every", required_argument, NULL, D_BILL },
        { "sync-every", required_argument, NULL, D_SYNC }, { "node-timeout", required_argument, NULL, D_TIMEOUT },
        { "node", required_argument, NULL, D_NODE }, { "device", required_argument, NULL, D_DEVICE },
        { "work-dir", required_argument, NULL, D_WORKDIR },
        { "heartbeat", required_argument, NULL, D_HEARTBEAT }, { "sample", required_argument, NULL, D_SAMPLE },
        { "runtime", required_argument, NULL, D_RUNTIME }, { "inventory", required_argument, NULL, D_INVENTORY },
        { "gpu-temp-max", required_argument, NULL, D_TEMPMAX },
        { "metrics-listen", required_argument, NULL, D_METRICS_LISTEN },
        { "address", required_argument, NULL, D_ADDRESS },
        { "mdns-address", required_argument, NULL, D_MDNS_ADDRESS },
    };
    /* The global options they take (options.c's table), then their own. */
    struct option common[64];
    size_t n = options_daemon_longopts(common, sizeof common / sizeof common[0] - sizeof own / sizeof own[0] - 1);
    memcpy(common + n, own, sizeof own);
    common[n + sizeof own / sizeof own[0]] = (struct option){ 0, 0, 0, 0 };
    const char *who = agent ? "agent" : "serve";
    int c, longidx = 0;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", common, &longidx)) != -1) {
        int serve_only = c == D_SCHED || c == D_BILL || c == D_SYNC || c == D_TIMEOUT;
        int agent_only = c >= D_NODE && c <= D_MDNS_ADDRESS;
        if ((agent && serve_only) || (!agent && agent_only)) {
            /* by name: argv[optind - 1] may be the option's value */
            fprintf(stderr, "rigdeck %s: unknown option --%s (see 'rigdeck %s --help')\n", who, common[longidx].name,
                    who);
            return 2;
        }
        /* --now is taken and left unused: the daemons run on the system clock */
        if (options_set_global(&d->g, c, optarg))
            continue;
        switch (c) {
        case D_LOGFMT: d->logfmt = optarg; break;
        case D_ONCE: d->once = 1; break;
        case D_SCHED: d->sched = optarg; break;
        case D_BILL: d->bill = optarg; break;
        case D_SYNC: d->sync = optarg; break;
        case D_TIMEOUT: d->timeout = optarg; break;
        case D_NODE: d->node = optarg; break;
        case D_DEVICE: d->device = optarg; break;
        case D_WORKDIR: d->workdir = optarg; break;
        case D_HEARTBEAT: d->heartbeat = optarg; break;
        case D_SAMPLE: d->sample = optarg; break;
        case D_RUNTIME: d->runtime = optarg; break;
        case D_INVENTORY: d->inventory = optarg; break;
        case D_TEMPMAX: d->temp_max = optarg; break;
        case D_METRICS_LISTEN: d->metrics_listen = optarg; break;
        case D_ADDRESS: d->address = optarg; break;
        case D_MDNS_ADDRESS: d->mdns_address = optarg; break;
        case 'h': usage(stdout, agent); return -1;
        case ':':
            fprintf(stderr, "rigdeck %s: option %s needs a value\n", who, argv[optind - 1]);
            return 2;
        default:
            fprintf(stderr, "rigdeck %s: unknown option %s (see 'rigdeck %s --help')\n", who, argv[optind - 1], who);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "rigdeck %s: unexpected argument '%s' (see 'rigdeck %s --help')\n", who, argv[optind], who);
        return 2;
    }
    if (d->logfmt && strcmp(d->logfmt, "text") != 0 && strcmp(d->logfmt, "json") != 0) {
        fprintf(stderr, "rigdeck %s: --log-format must be text or json, got '%s'\n", who, d->logfmt);
        return 2;
    }
    if (agent && d->address && (!*d->address || strlen(d->address) > 253 ||
                                d->address[strspn(d->address, "abcdefghijklmnopqrstuvwxyz"
                                                  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-")])) {
        fprintf(stderr, "rigdeck agent: --address must be an IPv4 address or a host name (letters, digits, '.', "
                "'-'; 253 at most), got '%s'\n", d->address);
        return 2;
    }
    unsigned char ip[sizeof(struct in6_addr)];
    if (d->mdns_address && inet_pton(AF_INET, d->mdns_address, ip) != 1 && inet_pton(AF_INET6, d->mdns_address, ip) != 1) {
        fprintf(stderr, "rigdeck agent: --mdns-address must be an IPv4 or IPv6 address, got '%s'\n", d->mdns_address);
        return 2;
    }
    if (agent && !d->node == !d->device) {
        fprintf(stderr, "rigdeck agent: one of --node NAME (the node this machine is) or --device NAME (the edge "
                "device it is) is required\n");
        return 2;
    }
    if (d->device && (d->sample || d->inventory || d->temp_max || d->metrics_listen || d->address || d->mdns_address)) {
        fprintf(stderr, "rigdeck agent: --device takes no --sample, --inventory, --gpu-temp-max, --metrics-listen, "
                "--address or --mdns-address (those are a node's)\n");
        return 2;
    }
    return 0;
}

/* Where a reserved job's hostname resolves by mDNS: --mdns-address, else
 * --address when it is an IP address (where the servers listen), else NULL
 * (agent_mdns.c takes the first non-loopback IPv4 address). */
static const char *daemon_mdns_address(const daemon_args *d)
{
    unsigned char ip[sizeof(struct in6_addr)];
    if (d->mdns_address)
        return d->mdns_address;
    if (d->address && (inet_pton(AF_INET, d->address, ip) == 1 || inet_pton(AF_INET6, d->address, ip) == 1))
        return d->address;
    return NULL;
}

/* A duration option in ms, or its default; 0 on a usage error (printed). */
static int64_t duration(const char *who, const char *flag, const char *text, int64_t dflt)
{
    int64_t ms = dflt;
    rd_err err = { 0 };
    if (text && rdtime_parse_duration_ms(flag, text, &ms, &err) != RD_OK) {
        fprintf(stderr, "rigdeck %s: %s\n", who, err.msg);
        return 0;
    }
    return ms;
}

/* --gpu-temp-max: whole degrees C; 0 (after a message) when bad. */
static int temp_max(const char *text)
{
    char *end = NULL;
    long c = text ? strtol(text, &end, 10) : 90;
    if (text && (!*text || *end || c < 30 || c > 150)) {
        fprintf(stderr, "rigdeck agent: --gpu-temp-max: '%s' must be whole degrees C from 30 to 150\n", text);
        return 0;
    }
    return (int)c;
}

static int exit_status(rd_code rc)
{
    return rc == RD_OK ? 0 : rc == RD_EUSAGE ? 2 : rc == RD_ESTORE || rc == RD_ENOMEM ? 3 : 1;
}

int daemon_main(int argc, char **argv)
{
    int agent = strcmp(argv[0], "agent") == 0;
    const char *who = agent ? "agent" : "serve";
    daemon_args d;
    memset(&d, 0, sizeof d);
    options_read_env(&d.g);
    int status = parse(argc, argv, agent, &d);
    if (status)
        return status < 0 ? 0 : status;
    const rd_options *g = &d.g;
    char *store = g->store_given && *g->store_given ? strdup(g->store_given) : options_default_store();
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    store_opts sopts = { g->cacert, g->cert, g->key, g->etcd_user && *g->etcd_user ? g->etcd_user : NULL,
                         g->etcd_password_file && *g->etcd_password_file ? g->etcd_password_file : NULL, 0 };
    dlog_sink log = { who, d.logfmt && strcmp(d.logfmt, "json") == 0, write_stderr, NULL, wall_now };
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    rd_err err = { 0 };
    rd_code rc;
    if (agent) {
        char workdir[4096], leaf[300];
        const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
        snprintf(leaf, sizeof leaf, "%s%s", d.device ? "device-" : "", d.device ? d.device : d.node);
        if (d.workdir)
            snprintf(workdir, sizeof workdir, "%s", d.workdir);
        else if (state && *state)
            snprintf(workdir, sizeof workdir, "%s/rigdeck/agent/%s", state, leaf);
        else
            snprintf(workdir, sizeof workdir, "%s/.local/state/rigdeck/agent/%s", home && *home ? home : "/tmp", leaf);
        if (workdir[0] != '/') {   /* the runner needs absolute paths */
            char cwd[2048], abs[8192];
            snprintf(abs, sizeof abs, "%s/%s", getcwd(cwd, sizeof cwd) ? cwd : ".", workdir);
            if (strlen(abs) >= sizeof workdir) {
                fprintf(stderr, "rigdeck agent: --work-dir is too long\n");
                free(store);
                return 2;
            }
            memcpy(workdir, abs, strlen(abs) + 1);
        }
        agent_opts o = { .store_url = store, .store_opts = &sopts,
                         .actor = g->actor && *g->actor ? g->actor : "default", .master_key_path = g->master_key,
                         .node = d.node, .device = d.device, .work_dir = workdir,
                         .heartbeat_ms = duration(who, "--heartbeat", d.heartbeat, 5000),
                         .sample_ms = duration(who, "--sample", d.sample, 10000),
                         .gpu_temp_max = temp_max(d.temp_max), .runtime = d.runtime, .inventory_file = d.inventory,
                         .once = d.once, .host = host, .version = RIGDECK_VERSION, .pid = (long)getpid(), .log = log,
                         .stop = &stop_flag, .metrics_listen = d.metrics_listen,
                         .address = d.address, .mdns_address = daemon_mdns_address(&d) };
        if (!o.heartbeat_ms || !o.sample_ms || !o.gpu_temp_max) {
            free(store);
            return 2;
        }
        rc = d.device ? agent_device_run(&o, &err) : agent_run(&o, &err);
    } else {
        serve_opts o = { store, &sopts, g->actor && *g->actor ? g->actor : "default", g->master_key,
                         duration(who, "--sched-every", d.sched, 10000), duration(who, "--bill-every", d.bill, 3600000),
                         duration(who, "--sync-every", d.sync, 60000), duration(who, "--node-timeout", d.timeout, 30000),
                         d.once, host, RIGDECK_VERSION, (long)getpid(), log, &stop_flag };
        if (!o.sched_every_ms || !o.bill_every_ms || !o.sync_every_ms || !o.node_timeout_ms) {
            free(store);
            return 2;
        }
        rc = serve_run(&o, &err);
    }
    if (rc != RD_OK)
        fprintf(stderr, "rigdeck %s: %s\n", who, err.msg);
    free(store);
    return exit_status(rc);
}
