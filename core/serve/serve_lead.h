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
} serve_lead;

/* Prepares to contend: identity is {"host", "pid", "since", "version"}
 * as JSON text; ttl_s at least 1. */
void serve_lead_init(serve_lead *l, store_t *st, int64_t ttl_s, const char *identity, const char *host, long pid);

/* One round, called often (every few hundred ms): renews the lease when a
 * third of it has passed, takes the lead when no one holds it, registers as
 * a standby otherwise.  *changed is 1 when leading started or ended. */
rd_code serve_lead_step(serve_lead *l, int64_t now_ms, int *changed, rd_err *err);

/* Steps down: revokes the lease so a standby takes over at once. */
void serve_lead_release(serve_lead *l);

#endif
