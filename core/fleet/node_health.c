/* node_health.c - GPU health on a node's own document
 * (spec/operations.md, "GPU health").
 *
 * The agent judges each GPU (agent_vitals.c): nvidia-smi no longer lists
 * it, its temperature reached --gpu-temp-max, or its uncorrected ECC count
 * rose.  It says so with `node health report`, which records the GPU under
 * the node's "gpu_health" (only unhealthy GPUs are stored:
 * {"index", "state": "unhealthy", "reason", "detail", "since"}).  The
 * scheduler treats an unhealthy GPU as taken; a node whose GPUs are all
 * unhealthy goes to maintenance (draining while workers run) with
 * maintenance_reason "health".  Only an operator brings a GPU back, with
 * `node health clear`: a GPU that overheated once is not trusted again
 * because it cooled down.  The one exception is reason `driver`
 * (spec/execution.md §2: nvidia-smi failed, so nothing is known of the
 * GPU): the agent takes it back itself with `--recovered` once nvidia-smi
 * answers again, as the GPU itself was never found wanting.
 */
#include "node_health.h"

#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "fleet.h"
#include "node.h"

static size_t unhealthy_count(const json_t *node)
{
    return json_array_size(json_object_get(node, "gpu_health"));
}

static int in_maintenance(const json_t *node)
{
    const char *state = doc_str(node, "state");
    return strcmp(state, "maintenance") == 0 || strcmp(state, "draining") == 0;
}

static rd_code health_report_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *name = cmd_arg(a, 0), *reason = cmd_opt(a, "reason"), *detail = cmd_opt(a, "detail");
    char ts[RDTIME_BUFLEN];
    json_t *node = NULL;
    int64_t index = 0;
    rd_code rc = node_get(ctx, name, &node, err);
    if (rc == RD_OK)
        rc = fleet_require_node_owner(ctx, node, "node health report", err);
    if (rc == RD_OK)
        rc = node_health_parse_gpu(node, "GPU", cmd_arg(a, 1), &index, err);
    if (rc == RD_OK && !json_is_true(json_object_get(node, "agent_managed")))
        rc = rd_fail(err, RD_EINVAL, "node health report: node '%s' has no agent; GPU health comes from its agent", name);
    if (rc == RD_OK && cmd_opt_given(a, "recovered") && strcmp(reason, "driver") != 0)
        rc = rd_fail(err, RD_EINVAL, "node health report: --recovered is for reason driver only; a GPU unhealthy "
                                     "for %s turns healthy by node health clear", reason);
    if (rc != RD_OK) {
        json_decref(node);
        return rc;
    }
    if (cmd_opt_given(a, "recovered")) {
        json_t *e = NULL, *list = json_object_get(node, "gpu_health");
        size_t i;
        json_array_foreach(list, i, e)
            if (doc_int(e, "index") == index && strcmp(doc_str(e, "reason"), "driver") == 0)
                break;
        if (e && i < json_array_size(list)) {
            json_array_remove(list, i);
            if (json_array_size(list) == 0)
                json_object_del(node, "gpu_health");
            /* in maintenance only because every GPU was unhealthy: back */
            if (in_maintenance(node) && strcmp(doc_str(node, "maintenance_reason"), "health") == 0 &&
                (int64_t)unhealthy_count(node) < doc_int(node, "gpu_count")) {
                node_set_state(node, "active", ctx->now);
                json_object_del(node, "maintenance_reason");
            }
        }
    } else if (!node_health_gpu_unhealthy(node, index)) {
        json_t *list = json_object_get(node, "gpu_health");
        if (!json_is_array(list)) {
            list = json_array();
            json_object_set_new(node, "gpu_health", list);
            list = json_object_get(node, "gpu_health");   /* NULL when that failed (and freed it) */
        }
        json_array_append_new(list, json_pack("{s:I, s:s, s:s, s:s, s:s}", "index", (json_int_t)index, "state",
                                              "unhealthy", "reason", reason, "detail", detail ? detail : "", "since",
                                              rdtime_format(ctx->now, ts)));
        int64_t count = doc_int(node, "gpu_count");
        if ((int64_t)unhealthy_count(node) >= count && strcmp(doc_str(node, "state"), "active") == 0) {
            node_set_state(node, json_array_size(json_object_get(node, "workers")) > 0 ? "draining" : "maintenance",
                           ctx->now);
            json_object_set_new(node, "maintenance_reason", json_string("health"));
        }
    }
    /* the answer shows every GPU; the document keeps only the unhealthy */
    *result = json_deep_copy(node);
    json_object_set_new(*result, "gpu_health", node_health_view(node));
    return node_put(ctx, node, err);
}

static rd_code health_clear_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *name = cmd_arg(a, 0), *gpu = cmd_arg(a, 1);
    json_t *node = NULL, *region = NULL;
    int64_t index = -1;
    rd_code rc = node_get(ctx, name, &node, err);
    if (rc == RD_OK)
        rc = fleet_region_get(ctx, doc_str(node, "region"), &region, err);
    if (rc == RD_OK)
        rc = fleet_require_owner(ctx, region, "node health clear", err);
    if (rc == RD_OK && gpu)
        rc = node_health_parse_gpu(node, "GPU", gpu, &index, err);
    if (rc == RD_OK && gpu && !node_health_gpu_unhealthy(node, index))
        rc = rd_fail(err, RD_EINVAL, "node health clear: GPU %lld of node '%s' is healthy", (long long)index, name);
    if (rc == RD_OK && !gpu && unhealthy_count(node) == 0)
        rc = rd_fail(err, RD_EINVAL, "node health clear: node '%s' has no unhealthy GPU", name);
    json_decref(region);
    if (rc != RD_OK) {
        json_decref(node);
        return rc;
    }
    json_t *kept = json_array();
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(node, "gpu_health"), i, e)
        if (index >= 0 && doc_int(e, "index") != index)
            json_array_append(kept, e);
    if (json_array_size(kept) == 0) {
        json_object_del(node, "gpu_health");
        json_decref(kept);
    } else {
        json_object_set_new(node, "gpu_health", kept);
    }
    /* the node went to maintenance for its GPUs alone: back to work */
    if (in_maintenance(node) && strcmp(doc_str(node, "maintenance_reason"), "health") == 0) {
        node_set_state(node, "active", ctx->now);
        json_object_del(node, "maintenance_reason");
    }
    /* the answer shows every GPU; the document keeps only the unhealthy */
    *result = json_deep_copy(node);
    json_object_set_new(*result, "gpu_health", node_health_view(node));
    return node_put(ctx, node, err);
}

static const cmd_flag report_flags[] = {
    { "reason", "missing|temperature|ecc|driver", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "why the GPU is unhealthy" },
    { "detail", "TEXT", CMD_FLAG_VALUE, "what the agent saw, e.g. \"93 C reached the 90 C limit\"" },
    { "recovered", NULL, 0, "with --reason driver: nvidia-smi answers again; the GPU is healthy unless "
                            "unhealthy for another reason" },
    { 0 }
};

const cmd_def node_health_cmd_table[] = {
    { .words = "node health report", .args = "NAME GPU", .flags = report_flags, .options = CMD_MUTATES,
      .help = "the agent marks a GPU unhealthy (it gets no new work until cleared)", .run = health_report_cmd,
      .access = CMD_ACCESS_FLEET, .agent = CMD_AGENT_OWN_NODE },
    { .words = "node health clear", .args = "NAME [GPU]", .options = CMD_MUTATES,
      .help = "trust a node's unhealthy GPUs (or one) again; a node in maintenance for them returns to active",
      .run = health_clear_cmd, .access = CMD_ACCESS_FLEET },
    { 0 }
};
