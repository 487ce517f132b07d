/* node_agent.h - where work may run: a node's agent mode (node_agent.c). */
#ifndef RD_NODE_AGENT_H
#define RD_NODE_AGENT_H

#include <jansson.h>

#include "cmd.h"

/* The words of `--agent` and of a node's "agent_mode". */
#define NODE_AGENT_REQUIRED "required"
#define NODE_AGENT_NONE "none"

/* The meta document's field saying every node carries agent_mode. */
#define NODE_AGENT_UPGRADE_MARK "agent_modes_set"

/* 1 when work on node is started and ended by its agent: agent_mode
 * "required", or, on a node of a store not upgraded yet (no agent_mode),
 * when an agent has registered there (agent_managed) as before. */
int node_agent_required(const json_t *node);

/* 1 when node takes no work because its agent is not online: agent_mode
 * "required" and "agent_online" not true (never registered, removed, lost).
 * A node without agent_mode (not upgraded yet) is never ruled out here. */
int node_agent_offline(const json_t *node);

/* Records on node whether its agent is online (agent register: 1; the
 * agent lost or removed: 0). */
void node_agent_set_online(json_t *node, int online);

/* `node set NAME --agent MODE` on node (read guarded in ctx->tx; the caller
 * writes it): nothing when MODE is its mode already; refused while workers
 * are placed there, and to "none" while an agent is registered for it. */
rd_code node_agent_change(cmd_ctx *ctx, json_t *node, const char *mode, rd_err *err);

/* A store made before agent modes gets them, once: every node without
 * agent_mode becomes "required" when it has ever had an agent (agent_managed,
 * or a document under /rigdeck/agents/), else "none", and the meta document
 * gets NODE_AGENT_UPGRADE_MARK.  Commits in steps of its own; *required and
 * *none count the nodes it changed (both 0: nothing to do).  The executor
 * calls it before the first command of a process that writes. */
rd_code node_agent_upgrade(store_t *st, size_t *required, size_t *none, rd_err *err);

#endif
