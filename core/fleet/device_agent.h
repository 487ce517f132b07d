/* device_agent.h - what the store says about a device's agent
 * (device_agent.c): registration, the controller's check, the deployment
 * object's shape. */
#ifndef RD_DEVICE_AGENT_H
#define RD_DEVICE_AGENT_H

#include <jansson.h>

#include "cmd.h"

/* Documents written before deployments were objects say "deployment":
 * "none"|"deploying"|"running"|"failed": turns that word into the object
 * ({"config", "state", "exit_code", "deployed_at", "started_at",
 * "ended_at", "serial"}), or null for "none", in place. */
void device_deployment_normalize(json_t *dev);

/* 1 when deployment d (an object) still asks its agent to run it:
 * deploying, running or failed (a restarted agent runs it again). */
int device_deployment_live(const json_t *d);

/* The "agent" object of `device show`: {"state": online|lost|none,
 * "last_heartbeat", "host", "pid", "version", "registered_at"}; NULL only
 * when out of memory. */
json_t *device_agent_describe(rd_tx *tx, const char *device, rd_time now);

/* The controller's round over device agents, part of `agent check`: an
 * agent whose lease ran out is `lost`; a device whose agent has been silent
 * for timeout (seconds) turns `offline` (it comes back when its agent
 * registers).  Appends {"device", "event": agent_lost|offline,
 * "last_heartbeat"} to events; lowers *next_in (seconds, -1: none) to when
 * a lost agent's device is due to turn offline.  One step per change. */
rd_code device_agent_check(cmd_ctx *ctx, int64_t timeout, json_t *events, int64_t *next_in, rd_err *err);

#endif
