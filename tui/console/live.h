/* live.h - following the store: a watch on "/rigdeck/" polled from the
 * console's loop, and the lost-store state with its retry timer.  A watch
 * may quietly reconnect forever (etcd), so a cheap `store info` every
 * LIVE_HEALTH_MS also checks that the store answers.  A lost store raises a
 * banner and is retried every LIVE_RETRY_MS; the console keeps running (and
 * keeps any edit in progress) meanwhile.
 */
#ifndef RD_LIVE_H
#define RD_LIVE_H

#include <jansson.h>

#include "cmd.h"
#include "keyspace.h"

#define LIVE_PREFIX KEY_ROOT
#define LIVE_RETRY_MS 2000
#define LIVE_HEALTH_MS 3000
#define LIVE_POLL_MS 2000   /* a relayed identity re-reads its panes this often */
/* Changed nodes beyond this many are not patched one by one: the Nodes
 * table is read again (a `node show` costs about 0.1 ms, a `node list` of
 * 10,000 nodes over half a second). */
#define LIVE_MAX_KEYS 2048
#define LIVE_NODES KEY_NODES

/* What kind of document a changed key holds (its second path component),
 * as a bit: panes follow only the kinds they show. */
enum {
    LK_PROVIDERS = 1u << 0, LK_REGIONS = 1u << 1, LK_NODES = 1u << 2, LK_DEVICES = 1u << 3,
    LK_CONFIGS = 1u << 4, LK_QUOTAS = 1u << 5, LK_JOBS = 1u << 6, LK_LEDGER = 1u << 7,
    LK_ACCOUNTS = 1u << 8, LK_PROJECTS = 1u << 9, LK_DATASTORES = 1u << 10, LK_RESERVATIONS = 1u << 11,
    LK_AUDIT = 1u << 12, LK_PRICES = 1u << 13, LK_OTHER = 1u << 14,
    LK_SERVE = 1u << 15,    /* which controller leads: the header */
    LK_LOGS = 1u << 16,     /* workers' output: the logs view */
    LK_METRICS = 1u << 17,  /* vital stats: the Dashboard */
    LK_ALERTS = 1u << 18,   /* alert rules and firings: the Alerts pane, the header */
    LK_ENVIRONMENTS = 1u << 19, /* built-in environments: the Jobs pane's Environments view */
    LK_DATA = 1u << 20,     /* keys, datasets, checkpoints, models: the Data/Datastores pane */
    LK_ALL = (1u << 21) - 1
};

typedef struct {
    store_watch *w;
    int lost;               /* 1: the banner shows msg */
    char msg[600];
    long long next_try_ms;
    long long next_health_ms;
    int polling;            /* a relayed identity may not watch: re-read every LIVE_POLL_MS */
    long long next_poll_ms;
    char *changed[LIVE_MAX_KEYS];   /* node keys changed since live_forget_changes */
    json_t *seen;                   /* the same keys, as a set */
    size_t nchanged;
    int overflow;                   /* more nodes changed than LIVE_MAX_KEYS */
    unsigned kinds;                 /* LK_* of every key changed */
    unsigned births;                /* LK_* of keys created or deleted (counts changed) */
} live_state;

/* The LK_* bit of a store key. */
unsigned live_key_kind(const char *key);

/* Polls without blocking.  Returns 1 when the store changed since the last
 * call or came back after being lost, else 0.  The kinds of what changed
 * are collected in kinds and births, the node keys in changed[] (overflow
 * set when there were too many, or after a reconnect: then anything may
 * have changed, and kinds and births are LK_ALL). */
int live_poll(live_state *l, cmd_ctx *ctx, long long now_ms);

/* Forgets the changed keys collected by live_poll. */
void live_forget_changes(live_state *l);

/* Records that the store failed (a command got RD_ESTORE). */
void live_mark_lost(live_state *l, cmd_ctx *ctx, const char *msg, long long now_ms);

/* Stops watching. */
void live_close(live_state *l);

#endif
