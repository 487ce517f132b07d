/* agent.h - the `agent` commands (agent.c): register, list, check. */
#ifndef RD_JOBS_AGENT_H
#define RD_JOBS_AGENT_H

#include "cmd.h"

/* Makes `agent check` in ctx follow the agents' beats across its rounds
 * (the controller on a secured store, where a lease that lives on proves
 * nothing): without it the lease alone decides.  RD_ENOMEM on failure. */
rd_code agent_check_follow_beats(cmd_ctx *ctx, rd_err *err);

#endif
