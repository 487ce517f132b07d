/* job_platform.c - failures that are the platform's, not the job's
 * (spec/execution.md §4): a worker whose command never started because its
 * node could not pull the image (image_pull_failed), its runtime could not
 * make the container (runtime_error) or its data could not be staged
 * (staging_failed).  The worker ends `failed` from `starting` with that
 * reason and a `message`, never started and never billed (job.c's end of a
 * `starting` worker posts nothing).  The node keeps count in
 * `runtime_failures`: three in a row take it out of service with
 * maintenance_reason `runtime` (the node-runtime alert then fires,
 * alert_eval.c), and a worker that starts there resets the count.
 */
#include "job.h"

#include <stdio.h>
#include <string.h>

#include "access.h"
#include "doc.h"
#include "fleet.h"
#include "node.h"

static const char *const platform_reasons[] = { "image_pull_failed", "runtime_error", "staging_failed", NULL };

int job_reason_is_platform(const char *reason)
{
    for (const char *const *r = platform_reasons; reason && *r; r++)
        if (strcmp(reason, *r) == 0)
            return 1;
    return 0;
}

/* The node's side: its owner (its agent) or fleet staff.  A customer's
 * word never counts against a node. */
static int node_side(cmd_ctx *ctx, const json_t *node)
{
    return access_actor_is_staff(ctx) || fleet_require_node_owner(ctx, node, "job report", NULL) == RD_OK;
}

rd_code job_platform_failed(cmd_ctx *ctx, const char *node_name, const char *message, rd_err *err)
{
    json_t *node = NULL;
    rd_code rc = node_get_any(ctx, node_name, &node, err);
    if (rc != RD_OK)
        return rc;
    if (!node_side(ctx, node)) {
        json_decref(node);
        return RD_OK;
    }
    json_int_t n = json_integer_value(json_object_get(node, "runtime_failures")) + 1;
    if (n >= JOB_PLATFORM_FAILURES_MAX) {
        char detail[1024];
        snprintf(detail, sizeof detail, "%lld workers in a row could not start: %s", (long long)n,
                 message && *message ? message : "no message");
        node_take_out(node, "runtime", detail, ctx->now);
        n = 0;   /* counted afresh once an operator brings it back */
    }
    json_object_set_new(node, "runtime_failures", json_integer(n));
    return node_put(ctx, node, err);   /* takes node */
}

rd_code job_platform_started(cmd_ctx *ctx, const char *node_name, rd_err *err)
{
    json_t *node = NULL;
    if (!*node_name || node_get_any(ctx, node_name, &node, NULL) != RD_OK)
        return RD_OK;
    if (json_integer_value(json_object_get(node, "runtime_failures")) > 0) {
        json_object_set_new(node, "runtime_failures", json_integer(0));
        return node_put(ctx, node, err);   /* takes node */
    }
    json_decref(node);
    return RD_OK;
}
