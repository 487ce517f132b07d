/* cloud.h - the cloud provisioning lifecycle of GCP regions (`cloud sync`,
 * `quota refresh`), driven through the GCE client (gcp.h).
 *
 * One round for a region:
 *   1. list the instances of every zone of the region (the truth to act on);
 *   2. the storage node: create its instance when missing (another zone when
 *      one is out of capacity), start it when stopped, active when RUNNING;
 *   3. each provisioning ephemeral node: create its instance, poll the zone
 *      operation; a node whose agent is required gets the region's image
 *      and a startup script that runs its agent (cloud_agent.c) and becomes
 *      active when the agent registers (agent.c), released as
 *      agent_timeout when it has not after idle_release_s; a manual node
 *      (agent_mode none) is active when RUNNING (as `node report
 *      --instance running`); a node no worker waits on any more is
 *      released instead; one refused for quota is dropped (its worker goes
 *      back to the scheduler).  No instance for agents on an SQLite store;
 *   4. each ephemeral node idle (no workers) for longer than the region's
 *      idle_release_s since last_used_at: instance deleted, node removed,
 *      its quota usage given back;
 *   5. reconcile: instances no live node claims are reported (orphaned);
 *      nodes whose instance is gone or stopped go offline (and back to active
 *      when it runs again);
 *   6. quotas from regions.get overwrite limit and usage in the quota doc
 *      (plus what recorded-but-not-yet-created nodes will use).
 * Each node change commits as its own step, so nothing done is lost when a
 * later step fails, and a repeated or interrupted round never creates a
 * second instance: instance names derive from node names, existence is
 * checked before every insert, and ALREADY_EXISTS counts as created.
 */
#ifndef RD_CLOUD_H
#define RD_CLOUD_H

#include <jansson.h>

#include "cmd.h"

/* Runs one round for region (NULL: every GCP region the acting account
 * owns, or all of them for an administrator).  *result: {"regions",
 * "created", "activated", "released", "offline", "orphaned", "pending",
 * "quotas", "errors"}; GCP failures are listed in errors, not returned, except
 * when the one region asked for could not be reached at all. */
rd_code cloud_sync(cmd_ctx *ctx, const char *region, json_t **result, rd_err *err);

/* `quota refresh REGION`: fetches the GCP region's quota limits and usage
 * from the Compute API and stores them; *region_out and *quota_out get the
 * region and the stored quota document (new references). */
rd_code cloud_quota_refresh(cmd_ctx *ctx, const char *name, json_t **region_out, json_t **quota_out, rd_err *err);

#endif
