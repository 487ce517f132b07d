/* relay.h - the controller's half of the request relay (relay.c): running
 * the commands that accounts other than admins send on a secured store. */
#ifndef RD_RELAY_H
#define RD_RELAY_H

#include <jansson.h>

#include "cmd.h"

/* The longest etcd user name the relay accepts in a key. */
#define NAMES_RELAY_USER_MAX 128

/* Runs every request waiting under /rigdeck/relay/ as the account its key
 * names (the etcd user "root" is the account "default") through the
 * executor, with base's store, clock and fence, and answers each.
 * *handled gets one {"user", "id", "command", "error"?} per request. */
rd_code relay_serve_round(const cmd_ctx *base, json_t **handled, rd_err *err);

#endif
