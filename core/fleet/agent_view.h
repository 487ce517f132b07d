/* agent_view.h - reading a node agent's state (agent_view.c). */
#ifndef RD_AGENT_VIEW_H
#define RD_AGENT_VIEW_H

#include <jansson.h>

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

#endif
