/* relay.h - the controller's half of the request relay (relay.c): running
 * the commands that accounts other than admins send on a secured store. */
#ifndef RD_RELAY_H
#define RD_RELAY_H

#include <jansson.h>

#include "cmd.h"

/* The longest etcd user name the relay accepts in a key. */
#define NAMES_RELAY_USER_MAX 128

/* The store lease the answered request ids are kept under; the caller
 * keeps it between rounds (zeroed at first). */
typedef struct {
    int64_t id;           /* 0: none yet */
    int64_t granted_ms;   /* monotonic */
} relay_lease;

/* Runs every request waiting under /rigdeck/relay/ as the account its key
 * names (the etcd user "root" is the account "default") through the
 * executor, with base's store, clock and fence, and answers each, once:
 * an id answered in the last day is answered "already" and never runs
 * again.  A command's file arguments resolve only to the texts the request
 * carries.  *handled gets one {"user", "id", "command", "error"?,
 * "answer_error"?} per request. */
rd_code relay_serve_round(const cmd_ctx *base, relay_lease *lease, json_t **handled, rd_err *err);


#endif
