/* live.h - following the store: a watch on "/rigdeck/" polled from the
 * console's loop, and the lost-store state with its retry timer.  A lost
 * store raises a banner and is retried every LIVE_RETRY_MS; the console
 * keeps running (and keeps any edit in progress) meanwhile.
 */
#ifndef RD_LIVE_H
#define RD_LIVE_H

#include "cmd.h"

#define LIVE_PREFIX "/rigdeck/"
#define LIVE_RETRY_MS 2000

typedef struct {
    store_watch *w;
    int lost;               /* 1: the banner shows msg */
    char msg[600];
    long long next_try_ms;
} live_state;

/* Polls without blocking.  Returns 1 when the store changed since the last
 * call or came back after being lost (reload everything), else 0. */
int live_poll(live_state *l, cmd_ctx *ctx, long long now_ms);

/* Records that the store failed (a command got RD_ESTORE). */
void live_mark_lost(live_state *l, cmd_ctx *ctx, const char *msg, long long now_ms);

/* Stops watching. */
void live_close(live_state *l);

#endif
