/* cmd_relay.h - sending a command to the controller on a secured store
 * (cmd_relay.c; the controller's half is core/access/relay.c). */
#ifndef RD_CMD_RELAY_H
#define RD_CMD_RELAY_H

#include "cmd.h"

/* How long a relayed command waits for the controller's answer. */
#define CMD_RELAY_WAIT_MS 30000

/* Sends the parsed command (words w, arguments a of def) with the local
 * files it names to the controller under the store's identity and waits
 * for the answer: *result as the controller's executor gave it, or its
 * refusal with the same code and message.  RD_ESTORE when no controller
 * answers within CMD_RELAY_WAIT_MS (the request is then withdrawn). */
rd_code cmd_relay_exec(cmd_ctx *ctx, const cmd_def *def, const cmd_words *w, const cmd_args *a, json_t **result,
                       rd_err *err);

#endif
