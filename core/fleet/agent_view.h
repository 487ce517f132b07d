/* agent_view.h - reading a node agent's state, and the options every
 * agent registration (a node's or a device's) carries (agent_view.c). */
#ifndef RD_AGENT_VIEW_H
#define RD_AGENT_VIEW_H

#include <jansson.h>

#include "cmd.h"
#include "rdtime.h"
#include "tx.h"

/* The "agent" object of `node show`: {"state": online|lost|none,
 * "last_heartbeat", "host", "version", "pid", "registered_at"} from the
 * agent document (NULL: the node never had an agent).  An online agent
 * whose lease has expired shows as lost.  NULL only when out of memory. */
json_t *agent_view_describe(rd_tx *tx, const json_t *agent, rd_time now);

/* Reads node's agent document (guarded; NULL when it has none). */
rd_code agent_view_get(rd_tx *tx, const char *node, json_t **agent, rd_err *err);

/* The agent object of node, as agent_view_describe makes it. */
rd_code agent_view_for_node(rd_tx *tx, const char *node, rd_time now, json_t **out, rd_err *err);

/* Every alive key: a new object from node name to {"lease": the lease it is
 * under, "rev": its mod_revision}. */
rd_code agent_view_alive(rd_tx *tx, json_t **alive, rd_err *err);

/* The same for the alive keys under prefix (KEY_DEVICE_ALIVE: devices'
 * agents), named by what follows it. */
rd_code agent_view_alive_at(rd_tx *tx, const char *prefix, json_t **alive, rd_err *err);

/* What `agent register` and `device register` are told: the lease the
 * agent holds (live), its pid and its heartbeat in seconds. */
typedef struct {
    int64_t lease, pid, heartbeat;
    int64_t ttl;   /* the lease's granted time to live */
} agent_registration;

/* Checks name (what: "node name", "device name") and reads --lease (which
 * must exist), --pid and --heartbeat (1-3600 s, default 5). */
rd_code agent_view_registration(cmd_ctx *ctx, const cmd_args *a, const char *what, const char *name,
                                agent_registration *r, rd_err *err);

/* Puts the alive key (key) under the registration's lease: its presence
 * is what says the agent lives. */
rd_code agent_view_put_alive(rd_tx *tx, const char *key, const agent_registration *r, const char *ts, rd_err *err);

#endif
