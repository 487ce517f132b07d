/* serve_lead.h - which of several controllers leads (serve_lead.c). */
#ifndef RD_SERVE_LEAD_H
#define RD_SERVE_LEAD_H

#include <stdint.h>

#include "rdtime.h"
#include "store.h"

typedef struct {
    store_t *st;
    int64_t ttl_s;          /* the leases' TTL: a dead leader is replaced within it */
    char identity[256];     /* the leader document this process writes */
    char standby_key[300];
    int64_t lease;          /* this process's lease (0: none yet) */
    int64_t renewed_ms;     /* monotonic ms of the last renewal */
    int leading;
    int64_t leader_rev;     /* mod_revision of the leader key while leading: the fence */
    /* On a secured store any etcd user may keep any lease alive, so a
     * leader also beats (rewrites KEY_SERVE_BEAT every third of the TTL)
     * and a standby takes over from one whose beat has not moved for a
     * TTL, however alive its lease. */
    int beats;
    int64_t beat_ms;        /* monotonic ms of the leader's last beat */
    int64_t beat_n;         /* its beat counter (the value written) */
    int64_t seen_leader_rev, seen_beat_rev;   /* a standby's last sight of the leader and its beat */
    int64_t seen_ms;        /* monotonic ms when that sight last changed */
    int took_over;          /* the last step took the lead from a silent leader with a live lease */
} serve_lead;

/* Prepares to contend: identity is {"host", "pid", "since", "version"}
 * as JSON text; ttl_s at least 1.  Beats when the store has users (a
 * secured etcd: store_identity). */
void serve_lead_init(serve_lead *l, store_t *st, int64_t ttl_s, const char *identity, const char *host, long pid);

/* One round, called often (every few hundred ms): renews the lease (and
 * beats) when a third of it has passed, takes the lead when no one holds
 * it, or (beating) when the leader has not beaten for a TTL, registers as a
 * standby otherwise.  *changed is 1 when leading started or ended. */
rd_code serve_lead_step(serve_lead *l, int64_t now_ms, int *changed, rd_err *err);

/* Steps down: revokes the lease so a standby takes over at once. */
void serve_lead_release(serve_lead *l);

#endif
