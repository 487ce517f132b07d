/* live.h - following the store: a watch on "/rigdeck/" polled from the
 * console's loop, and the lost-store state with its retry timer.  A watch
 * may quietly reconnect forever (etcd), so a cheap `store info` every
 * LIVE_HEALTH_MS also checks that the store answers.  A lost store raises a
 * banner and is retried every LIVE_RETRY_MS; the console keeps running (and
 * keeps any edit in progress) meanwhile.
 */
#ifndef RD_LIVE_H
#define RD_LIVE_H

#include "cmd.h"

#define LIVE_PREFIX "/rigdeck/"
#define LIVE_RETRY_MS 2000
#define LIVE_HEALTH_MS 3000
#define LIVE_MAX_KEYS 64

typedef struct {
    store_watch *w;
    int lost;               /* 1: the banner shows msg */
    char msg[600];
    long long next_try_ms;
    long long next_health_ms;
    char *changed[LIVE_MAX_KEYS];   /* keys changed since live_forget_changes */
    size_t nchanged;
    int overflow;                   /* more changed than LIVE_MAX_KEYS */
} live_state;

/* Polls without blocking.  Returns 1 when the store changed since the last
 * call or came back after being lost (reload everything), else 0.  The
 * keys that changed are collected in changed[] (overflow set when there
 * were too many, or after a reconnect: then anything may have changed). */
int live_poll(live_state *l, cmd_ctx *ctx, long long now_ms);

/* Forgets the changed keys collected by live_poll. */
void live_forget_changes(live_state *l);

/* Records that the store failed (a command got RD_ESTORE). */
void live_mark_lost(live_state *l, cmd_ctx *ctx, const char *msg, long long now_ms);

/* Stops watching. */
void live_close(live_state *l);

#endif
