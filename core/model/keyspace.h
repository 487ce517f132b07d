/* keyspace.h - the key layout of the store (keyspace.c): every kind of
 * document and the prefix its keys start with, in one place.
 *
 * Keys are KEY_<KIND> followed by the document's name (accounts, nodes,
 * jobs ...) or owner/name (projects, providers, device configs), e.g.
 * tx_key(buf, KEY_NODES "%s", name).  Code that sorts changed keys by kind
 * (the console's live view, the scheduler's idle record) asks
 * keyspace_kind_of() instead of keeping its own list of prefixes.
 */
#ifndef RD_KEYSPACE_H
#define RD_KEYSPACE_H

/* Upper bound for every key rigdeck builds (names are short by rule). */
#define RD_KEY_MAX 512

#define KEY_ROOT "/rigdeck/"
#define KEY_META_STORE KEY_ROOT "meta/store"
#define KEY_ACCOUNTS KEY_ROOT "accounts/"
#define KEY_PROJECTS KEY_ROOT "projects/"
#define KEY_PROVIDERS KEY_ROOT "providers/"
#define KEY_REGIONS KEY_ROOT "regions/"
#define KEY_QUOTAS KEY_ROOT "quotas/"
#define KEY_NODES KEY_ROOT "nodes/"
#define KEY_MINIONS KEY_ROOT "minions/"
#define KEY_DEVICES KEY_ROOT "devices/"
#define KEY_DEVICE_CONFIGS KEY_ROOT "device-configs/"
#define KEY_DEVICE_TENURES KEY_ROOT "device-tenures/"
#define KEY_DATASTORES KEY_ROOT "datastores/"
/* An account's data objects, <owner>/<name> (core/data/): third-party keys
 * (the value sealed), datasets, checkpoints and models. */
#define KEY_DATAKEYS KEY_ROOT "keys/"
#define KEY_DATASETS KEY_ROOT "datasets/"
#define KEY_CHECKPOINTS KEY_ROOT "checkpoints/"
#define KEY_MODELS KEY_ROOT "models/"
#define KEY_RESERVATIONS KEY_ROOT "reservations/"
#define KEY_PORTS KEY_ROOT "ports/"
#define KEY_JOBS KEY_ROOT "jobs/"
#define KEY_PRICES KEY_ROOT "prices/"
/* GPU types an operator added (`gpu add`, core/fleet/gpu_cmd.c) */
#define KEY_GPUS KEY_ROOT "gpus/"
/* Built-in environments (`environment add`, core/jobs/environment.c) */
#define KEY_ENVIRONMENTS KEY_ROOT "environments/"
#define KEY_SCHED_CONFIG KEY_ROOT "sched/config"
#define KEY_SCHED_IDLE KEY_ROOT "sched/idle"
#define KEY_LEDGER_ACCOUNTS KEY_ROOT "ledger/accounts/"
#define KEY_LEDGER_TRANSFERS KEY_ROOT "ledger/transfers/"
#define KEY_LEDGER_INDEX KEY_ROOT "ledger/by-account/"
#define KEY_BILLING_CURSOR KEY_ROOT "billing/cursor"
#define KEY_AUDIT KEY_ROOT "audit/"
#define KEY_AGENTS KEY_ROOT "agents/"
#define KEY_AGENT_ALIVE KEY_ROOT "agent-alive/"
/* A device's agent (`rigdeck agent --device`, core/fleet/device_agent.c):
 * its document, and its alive key under the lease it renews. */
#define KEY_DEVICE_AGENTS KEY_ROOT "device-agents/"
#define KEY_DEVICE_ALIVE KEY_ROOT "device-alive/"
#define KEY_LOGS KEY_ROOT "logs/"
#define KEY_SERVE_LEADER KEY_ROOT "serve/leader"
#define KEY_SERVE_STANDBY KEY_ROOT "serve/standby/"
/* The leader's heartbeat on a secured store (serve_lead.c): rewritten while
 * it leads, so that standbys judge it by progress, not by its lease, which
 * any etcd user may keep alive.  Outside KEY_ROOT: no watcher of the
 * documents wakes for it. */
#define KEY_SERVE_BEAT "~rigdeck/serve/beat"
#define KEY_METRICS KEY_ROOT "metrics/"
#define KEY_ALERT_RULES KEY_ROOT "alert-rules/"
#define KEY_ALERTS KEY_ROOT "alerts/"
#define KEY_RELAY KEY_ROOT "relay/"
#define KEY_CREDENTIALS KEY_ROOT "credentials/"
/* The controller's per-node work view on a secured store: <node>/<job>/<index>
 * (serve_work.c), what a node agent reads instead of the jobs. */
#define KEY_WORK KEY_ROOT "work/"
/* The relayed request ids the controller has answered: <user>/<id>, each
 * under a lease of a day (core/access/relay.c); outside every user's own
 * relay prefix, so only the controller writes them. */
#define KEY_RELAY_DONE KEY_ROOT "relay-done/"

/* The kinds of document, one per prefix above. */
typedef enum {
    KEYSPACE_META,
    KEYSPACE_ACCOUNTS,
    KEYSPACE_PROJECTS,
    KEYSPACE_PROVIDERS,
    KEYSPACE_REGIONS,
    KEYSPACE_QUOTAS,
    KEYSPACE_NODES,
    KEYSPACE_MINIONS,
    KEYSPACE_DEVICES,
    KEYSPACE_DEVICE_CONFIGS,
    KEYSPACE_DEVICE_TENURES,
    KEYSPACE_DATASTORES,
    KEYSPACE_RESERVATIONS,
    KEYSPACE_PORTS,
    KEYSPACE_JOBS,
    KEYSPACE_PRICES,
    KEYSPACE_SCHED_CONFIG,
    KEYSPACE_SCHED_IDLE,
    KEYSPACE_LEDGER_ACCOUNTS,
    KEYSPACE_LEDGER_TRANSFERS,
    KEYSPACE_LEDGER_INDEX,
    KEYSPACE_BILLING,
    KEYSPACE_AUDIT,
    KEYSPACE_AGENTS,
    KEYSPACE_AGENT_ALIVE,
    KEYSPACE_LOGS,
    KEYSPACE_SERVE,
    KEYSPACE_METRICS,
    KEYSPACE_ALERT_RULES,
    KEYSPACE_ALERTS,
    KEYSPACE_RELAY,
    KEYSPACE_CREDENTIALS,
    KEYSPACE_WORK,
    KEYSPACE_RELAY_DONE,
    KEYSPACE_GPUS,
    KEYSPACE_ENVIRONMENTS,
    KEYSPACE_DATAKEYS,
    KEYSPACE_DATASETS,
    KEYSPACE_CHECKPOINTS,
    KEYSPACE_MODELS,
    KEYSPACE_DEVICE_AGENTS,
    KEYSPACE_DEVICE_ALIVE,
    KEYSPACE_OTHER   /* outside the layout: another program's, or the store's own */
} keyspace_kind;

/* The kind of document key is. */
keyspace_kind keyspace_kind_of(const char *key);

/* The prefix of kind's keys ("" for KEYSPACE_OTHER). */
const char *keyspace_prefix(keyspace_kind kind);

/* The key of account name's document, written into buf. */
const char *keyspace_account_key(char buf[RD_KEY_MAX], const char *name);

/* The key of project name of account owner, written into buf. */
const char *keyspace_project_key(char buf[RD_KEY_MAX], const char *owner, const char *name);

#endif
