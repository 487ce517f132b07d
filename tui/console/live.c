/* live.c - the store watch behind live updates, and reconnecting. */
#include "live.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keyspace.h"

void live_forget_changes(live_state *l)
{
    for (size_t i = 0; i < l->nchanged; i++)
        free(l->changed[i]);
    l->nchanged = 0;
    l->overflow = 0;
    json_decref(l->seen);
    l->seen = NULL;
    l->kinds = 0;
    l->births = 0;
}

unsigned live_key_kind(const char *key)
{
    /* Which tables a change of each kind of document may show in. */
    static const unsigned tables[KEYSPACE_OTHER + 1] = {
        [KEYSPACE_PROVIDERS] = LK_PROVIDERS, [KEYSPACE_REGIONS] = LK_REGIONS, [KEYSPACE_NODES] = LK_NODES,
        [KEYSPACE_DEVICES] = LK_DEVICES, [KEYSPACE_DEVICE_TENURES] = LK_DEVICES,
        [KEYSPACE_DEVICE_CONFIGS] = LK_CONFIGS, [KEYSPACE_QUOTAS] = LK_QUOTAS, [KEYSPACE_JOBS] = LK_JOBS,
        [KEYSPACE_LEDGER_ACCOUNTS] = LK_LEDGER, [KEYSPACE_LEDGER_TRANSFERS] = LK_LEDGER,
        [KEYSPACE_LEDGER_INDEX] = LK_LEDGER, [KEYSPACE_BILLING] = LK_LEDGER, [KEYSPACE_ACCOUNTS] = LK_ACCOUNTS,
        [KEYSPACE_PROJECTS] = LK_PROJECTS, [KEYSPACE_DATASTORES] = LK_DATASTORES,
        [KEYSPACE_RESERVATIONS] = LK_RESERVATIONS, [KEYSPACE_PORTS] = LK_RESERVATIONS, [KEYSPACE_AUDIT] = LK_AUDIT,
        [KEYSPACE_PRICES] = LK_PRICES, [KEYSPACE_AGENTS] = LK_NODES, [KEYSPACE_AGENT_ALIVE] = LK_NODES,
        [KEYSPACE_DEVICE_AGENTS] = LK_DEVICES, [KEYSPACE_DEVICE_ALIVE] = LK_DEVICES,
        [KEYSPACE_GPUS] = LK_PRICES,   /* the Prices pane lists every GPU type */
        [KEYSPACE_ENVIRONMENTS] = LK_ENVIRONMENTS,
        [KEYSPACE_DATAKEYS] = LK_DATA, [KEYSPACE_DATASETS] = LK_DATA, [KEYSPACE_CHECKPOINTS] = LK_DATA,
        [KEYSPACE_MODELS] = LK_DATA,
        [KEYSPACE_SERVE] = LK_SERVE, [KEYSPACE_LOGS] = LK_LOGS,
        [KEYSPACE_METRICS] = LK_METRICS, [KEYSPACE_ALERT_RULES] = LK_ALERTS, [KEYSPACE_ALERTS] = LK_ALERTS,
    };
    unsigned t = tables[keyspace_kind_of(key)];
    return t ? t : LK_OTHER;
}

static void note_change(live_state *l, const char *key)
{
    if (l->overflow)
        return;
    if (!l->seen)
        l->seen = json_object();
    if (json_object_get(l->seen, key))
        return;
    if (l->nchanged == LIVE_MAX_KEYS || !l->seen || !(l->changed[l->nchanged] = strdup(key))) {
        l->overflow = 1;
        return;
    }
    json_object_set_new(l->seen, key, json_true());
    l->nchanged++;
}

void live_close(live_state *l)
{
    store_watch_close(l->w);
    l->w = NULL;
    live_forget_changes(l);
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

/* Asks the store something cheap through the command language. */
static rd_code live_ping(cmd_ctx *ctx, rd_err *err)
{
    json_t *res = NULL;
    rd_code rc = cmd_exec_line(ctx, "store info", &res, NULL, err);
    json_decref(res);
    return rc;
}

static int live_open(live_state *l, cmd_ctx *ctx, long long now_ms)
{
    rd_err err;
    rd_err_clear(&err);
    rd_code rc = cmd_ctx_open_store(ctx, &err);
    if (rc == RD_OK)
        rc = live_ping(ctx, &err);
    /* On a secured store an account that is not an admin reads through the
     * controller and may not watch: the panes are read again on a timer. */
    l->polling = rc == RD_OK && ctx->relayed;
    if (l->polling)
        return 1;
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
        l->overflow = 1;
        l->kinds = l->births = LK_ALL;
        return 1;   /* back: whatever happened meanwhile must be re-read */
    }
    if (!l->w && !l->polling && !live_open(l, ctx, now_ms))
        return 0;
    if (l->polling) {
        if (now_ms < l->next_poll_ms)
            return 0;
        l->next_poll_ms = now_ms + LIVE_POLL_MS;
        l->overflow = 1;
        l->kinds = l->births = LK_ALL;
        return 1;
    }
    if (now_ms >= l->next_health_ms) {
        rd_err err;
        rd_err_clear(&err);
        l->next_health_ms = now_ms + LIVE_HEALTH_MS;
        if (live_ping(ctx, &err) == RD_ESTORE) {
            live_mark_lost(l, ctx, err.msg, now_ms);
            return 0;
        }
    }
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
        for (size_t i = 0; i < n; i++) {
            unsigned kind = live_key_kind(ev[i].kv.key);
            l->kinds |= kind;
            if (ev[i].type == STORE_EVENT_DELETE || ev[i].kv.version == 1)
                l->births |= kind;
            /* Only nodes are patched row by row; other kinds reload. */
            if (kind == LK_NODES)
                note_change(l, ev[i].kv.key);
        }
        store_events_free(ev, n);
        if (n == 0)
            break;
        changed = 1;
    }
    return changed;
}
