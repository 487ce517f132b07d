/* live.c - the store watch behind live updates, and reconnecting. */
#include "live.h"

#include <stdio.h>
#include <string.h>

void live_close(live_state *l)
{
    store_watch_close(l->w);
    l->w = NULL;
}

void live_mark_lost(live_state *l, cmd_ctx *ctx, const char *msg, long long now_ms)
{
    live_close(l);
    /* Drop the handle so the retry opens the store afresh (a new etcd
     * connection, a re-opened file); the console holds no transaction. */
    cmd_ctx_close(ctx);
    if (!l->lost)
        l->next_try_ms = now_ms + LIVE_RETRY_MS;
    l->lost = 1;
    snprintf(l->msg, sizeof l->msg, "%s", msg);
}

static int live_open(live_state *l, cmd_ctx *ctx, long long now_ms)
{
    rd_err err;
    rd_err_clear(&err);
    rd_code rc = cmd_ctx_open_store(ctx, &err);
    if (rc == RD_OK)
        rc = store_watch_open(ctx->store, LIVE_PREFIX, 0, &l->w, &err);
    if (rc != RD_OK) {
        l->w = NULL;
        live_mark_lost(l, ctx, err.msg, now_ms);
        l->next_try_ms = now_ms + LIVE_RETRY_MS;
        return 0;
    }
    return 1;
}

int live_poll(live_state *l, cmd_ctx *ctx, long long now_ms)
{
    if (l->lost) {
        if (now_ms < l->next_try_ms)
            return 0;
        if (!live_open(l, ctx, now_ms))
            return 0;
        l->lost = 0;
        l->msg[0] = '\0';
        return 1;   /* back: whatever happened meanwhile must be re-read */
    }
    if (!l->w && !live_open(l, ctx, now_ms))
        return 0;
    int changed = 0;
    /* Drain what is queued, but never block the keyboard: timeout 0. */
    for (int round = 0; round < 64; round++) {
        store_event *ev = NULL;
        size_t n = 0;
        rd_err err;
        rd_err_clear(&err);
        if (store_watch_next(l->w, 0, &ev, &n, &err) != RD_OK) {
            live_mark_lost(l, ctx, err.msg, now_ms);
            return 0;
        }
        store_events_free(ev, n);
        if (n == 0)
            break;
        changed = 1;
    }
    return changed;
}
