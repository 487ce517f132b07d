/* node.c - compute and storage nodes: their lifecycle and hardware checks.
 *
 * A node is added to a region with its minion id.  Until its inventory is
 * known (given with --inventory, or sent later by the on-node agent through
 * `node report`) it is `provisioning`.  The inventory is checked against
 * every hardware requirement of seed 000 for its role and region (hwreq.c):
 * a failing node is `rejected` with the list of unmet requirements; a
 * passing compute node waits in `maintenance` until the operator activates
 * it, and a passing storage node becomes `active` by itself.  Maintenance
 * asked while workers run makes the node `draining`: it takes no new work
 * and the scheduler moves it to `maintenance` when the last worker ends.
 *
 * A region has at most one storage node; its name is kept in the region
 * document, which also serialises concurrent additions.  Every node has an
 * agent mode (node_agent.c): agent-managed unless added or set --agent none.
 */
#include "node.h"

#include <stdlib.h>
#include <string.h>

#include "access_view.h"
#include "account.h"
#include "agent_view.h"
#include "node_health.h"
#include "doc.h"
#include "docpick.h"
#include "fleet.h"
#include "hwreq.h"
#include "keyspace.h"
#include "names.h"
#include "node_agent.h"
#include "node_capacity.h"
#include "tx_pick.h"

static const char *node_key(char buf[RD_KEY_MAX], const char *name)
{
    return tx_key(buf, KEY_NODES "%s", name);
}

void node_set_state(json_t *node, const char *state, rd_time now)
{
    char ts[RDTIME_BUFLEN];
    if (strcmp(doc_str(node, "state"), state) == 0)
        return;
    json_object_set_new(node, "state", json_string(state));
    json_object_set_new(node, "state_changed_at", json_string(rdtime_format(now, ts)));
}

static size_t node_workers(const json_t *node)
{
    return json_array_size(json_object_get(node, "workers"));
}

void node_take_out(json_t *node, const char *reason, const char *detail, rd_time now)
{
    if (strcmp(doc_str(node, "state"), "active") != 0)
        return;
    node_set_state(node, node_workers(node) > 0 ? "draining" : "maintenance", now);
    json_object_set_new(node, "maintenance_reason", json_string(reason));
    if (detail && *detail)
        json_object_set_new(node, "maintenance_detail", json_string(detail));
}

static json_t *node_new_doc(cmd_ctx *ctx, const json_t *region, const char *name, const char *role,
                            const char *minion)
{
    char ts[RDTIME_BUFLEN];
    rdtime_format(ctx->now, ts);
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:b, s:b, s:s, s:n, s:i, s:i, s:i, s:[], s:n, s:[], s:b, s:s, s:s, s:n, "
                     "s:s, s:b}",
                     "name", name, "region", doc_str(region, "name"), "owner", doc_str(region, "owner"),
                     "provider", doc_str(region, "provider"), "role", role, "minion_id", minion,
                     "upnp", 1, "mining", 0, "state", "provisioning", "gpu_type", "gpu_count", 0,
                     "gpus_used", 0, "disk_gb", 0, "unmet", "inventory", "workers", "ephemeral", 0,
                     "created_at", ts, "state_changed_at", ts, "last_used_at", "agent_mode", NODE_AGENT_REQUIRED,
                     "agent_online", 0);
}

/* 1 when the node's unmet list has an entry of node_capacity_check_held. */
static int node_unmet_held(const json_t *node)
{
    size_t i;
    json_t *u;
    json_array_foreach(json_object_get(node, "unmet"), i, u)
        if (node_capacity_unmet_is_held(u))
            return 1;
    return 0;
}

/* Checks inv against the requirements for the node's role and region and
 * sets state, unmet, gpu_type and gpu_count accordingly. */
static void node_evaluate(cmd_ctx *ctx, json_t *node, const json_t *region, const hw_inventory *inv,
                          const cmd_args *a)
{
    int storage = strcmp(doc_str(node, "role"), "storage") == 0;
    hwreq_context hc = { storage, json_is_true(json_object_get(region, "public")), fleet_region_is_central(region) };
    json_t *unmet = hwreq_check(inv, &hc);
    const char *model = hwreq_gpu_model(inv);
    size_t unknown = a && !storage ? cmd_opt_count(a, "unknown-gpu") : 0;
    /* A GPU no catalog type lists (spec/execution.md §2): the machine is
     * not a CPU node that happens to have a card, it is one rigdeck cannot
     * price or place on until `gpu add` names the card. */
    for (size_t i = 0; i < unknown && unmet; i++) {
        const char *name = cmd_opt_at(a, "unknown-gpu", i);
        char msg[256];
        snprintf(msg, sizeof msg, "GPU '%.120s' is no type of gpu list (gpu add can name it)", name);
        /* first: until the card is known, the other figures are guesses */
        json_array_insert_new(unmet, i, json_pack("{s:s, s:s, s:s, s:s}", "requirement", "gpu_model_known",
                                                  "required", "a type of gpu list", "actual", name, "message", msg));
    }
    if (unknown)
        model = NULL;
    json_int_t disk = 0;
    for (size_t i = 0; i < inv->nnvme; i++)
        disk += inv->nvme_gb[i];

    json_object_set_new(node, "inventory", hwreq_inventory_json(inv));
    json_object_set_new(node, "gpu_type", storage || !model ? json_null() : json_string(model));
    json_object_set_new(node, "gpu_count", json_integer(storage ? 0 : hwreq_gpu_total(inv)));
    json_object_set_new(node, "disk_gb", json_integer(disk));
    json_object_set_new(node, "cpu_cores", json_integer(inv->cpu_cores));
    json_object_set_new(node, "memory_gb", json_integer(inv->memory_gb));
    const char *state = doc_str(node, "state");
    if (json_array_size(unmet) > 0) {
        node_set_state(node, "rejected", ctx->now);
    } else if (strcmp(state, "provisioning") == 0 || strcmp(state, "rejected") == 0) {
        node_set_state(node, storage ? "active" : "maintenance", ctx->now);
    }
    /* A machine that lost hardware its running workers hold: they keep
     * running (the agent decides their fate), but the node takes no new
     * work until they end, and says why. */
    if (unmet && node_capacity_check_held(node, unmet) > 0) {
        if (strcmp(doc_str(node, "state"), "rejected") != 0)
            node_set_state(node, "draining", ctx->now);
    } else if (node_unmet_held(node) && strcmp(doc_str(node, "state"), "draining") == 0) {
        node_set_state(node, "active", ctx->now);   /* the hardware came back */
    }
    json_object_set_new(node, "unmet", unmet ? unmet : json_array());
}

static rd_code node_apply_inventory_file(cmd_ctx *ctx, json_t *node, const json_t *region, const char *path,
                                         const cmd_args *a, rd_err *err)
{
    char *text = NULL;
    size_t len = 0;
    hw_inventory inv, had;
    rd_err ignored;
    rd_code rc = cmd_file_read(ctx, "--inventory", path, FLEET_FILE_MAX, &text, &len, err);
    if (rc == RD_OK)
        rc = hwreq_parse_inventory(text, len, path, &inv, err);
    free(text);
    /* nvidia-smi failed: the machine did not lose its GPUs, its driver
     * cannot say what they are; the node keeps the ones it had (their
     * health says `driver` meanwhile) rather than turn into a CPU node. */
    if (rc == RD_OK && a && cmd_opt(a, "gpu-discovery") &&
        hwreq_inventory_from_json(json_object_get(node, "inventory"), &had, &ignored) == RD_OK && inv.ngroups == 0) {
        memcpy(inv.gpus, had.gpus, sizeof inv.gpus);
        inv.ngroups = had.ngroups;
    }
    /* A cloud node is what rigdeck asked GCP for (machine type, GPUs): its
     * agent's report is kept for the record, not judged as a machine
     * offered by hand, and its state is the cloud driver's and the agent
     * registration's (spec/execution.md §3). */
    if (rc == RD_OK && strcmp(doc_str(node, "provider"), "gcp") == 0)
        json_object_set_new(node, "inventory", hwreq_inventory_json(&inv));
    else if (rc == RD_OK)
        node_evaluate(ctx, node, region, &inv, a);
    return rc;
}

rd_code node_get(cmd_ctx *ctx, const char *name, json_t **node, rd_err *err)
{
    return fleet_get_live(ctx, "node", name, node, err);
}

rd_code node_put(cmd_ctx *ctx, json_t *node, rd_err *err)
{
    char key[RD_KEY_MAX];
    return tx_put(ctx->tx, node_key(key, doc_str(node, "name")), node, err);
}

/* The name must be free: never used, or used by a node since removed. */
static rd_code node_name_free(cmd_ctx *ctx, const char *name, rd_err *err)
{
    char key[RD_KEY_MAX];
    json_t *old = NULL;
    rd_code rc = names_check("node name", name, err);
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, node_key(key, name), &old, err);
    if (rc == RD_OK && old && strcmp(doc_str(old, "state"), "removed") != 0)
        rc = rd_fail(err, RD_EEXISTS, "node '%s' exists already (in region '%s')", name, doc_str(old, "region"));
    json_decref(old);
    return rc;
}

rd_code node_stage_gcp_storage(cmd_ctx *ctx, const json_t *region, const char *name, rd_err *err)
{
    rd_code rc = node_name_free(ctx, name, err);
    if (rc != RD_OK)
        return rc;
    json_t *node = node_new_doc(ctx, region, name, "storage", "");
    if (!node)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    json_object_set_new(node, "storage_class", json_string(doc_str(region, "storage_class")));
    /* A storage node takes no work: no agent; cloud sync's RUNNING makes it active. */
    json_object_set_new(node, "agent_mode", json_string("none"));
    return node_put(ctx, node, err);
}

rd_code node_stage_removed(cmd_ctx *ctx, const char *name, rd_err *err)
{
    json_t *node = NULL;
    rd_code rc = node_get(ctx, name, &node, err);
    if (rc != RD_OK)
        return rc;
    node_set_state(node, "removed", ctx->now);
    rc = fleet_release_minion(ctx, doc_str(node, "minion_id"), err);
    if (rc == RD_OK)
        return node_put(ctx, node, err);
    json_decref(node);
    return rc;
}

/* ---- commands ---------------------------------------------------------- */

static int opt_on(const cmd_args *a, const char *name, int dflt)
{
    const char *v = cmd_opt(a, name);
    return v ? strcmp(v, "on") == 0 : dflt;
}

/* Mining pays out to the region owner's wallet addresses (seed 000). */
static rd_code node_check_mining(cmd_ctx *ctx, const cmd_args *a, const json_t *region, const char *verb, rd_err *err)
{
    if (!opt_on(a, "mining", 0) || account_has_mining_wallet(ctx, doc_str(region, "owner")))
        return RD_OK;
    return rd_fail(err, RD_EINVAL, "%s --mining on: account '%s' has no mining wallet address (account set %s --mining-wallet ADDR)",
                   verb, doc_str(region, "owner"), doc_str(region, "owner"));
}

/* Region rules for adding a node of this role (seed 000). */
static rd_code node_region_rules(cmd_ctx *ctx, const json_t *region, const char *role, const char *verb,
                                 rd_err *err)
{
    const char *rname = doc_str(region, "name");
    if (!fleet_region_is_physical(region))
        return rd_fail(err, RD_EINVAL, "%s: region '%s' is a GCP region; its nodes are provisioned by rigdeck (cloud sync)",
                       verb, rname);
    if (strcmp(role, "storage") == 0) {
        if (!fleet_region_is_central(region))
            return rd_fail(err, RD_EINVAL, "%s: region '%s' uses local storage; storage nodes need a region with --storage central",
                           verb, rname);
        if (*doc_str(region, "storage_node"))
            return rd_fail(err, RD_EEXISTS, "%s: region '%s' has storage node '%s' already; only one per region (node replace swaps it)",
                           verb, rname, doc_str(region, "storage_node"));
    } else if (fleet_region_is_central(region) && !*doc_str(region, "storage_node")) {
        return rd_fail(err, RD_EINVAL, "%s: region '%s' uses central storage; add its storage node before any compute node",
                       verb, rname);
    }
    (void)ctx;
    return RD_OK;
}

static rd_code node_add_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *rname = cmd_arg(a, 0), *name = cmd_arg(a, 1), *minion = cmd_opt(a, "minion");
    const char *role = cmd_opt(a, "role") ? cmd_opt(a, "role") : "compute";
    char object[RD_KEY_MAX];
    json_t *region = NULL, *node = NULL;
    rd_code rc = fleet_region_get(ctx, rname, &region, err);

    if (rc == RD_OK)
        rc = fleet_require_owner(ctx, region, "node add", err);
    if (rc == RD_OK)
        rc = node_name_free(ctx, name, err);
    if (rc == RD_OK)
        rc = node_region_rules(ctx, region, role, "node add", err);
    if (rc == RD_OK && strcmp(role, "storage") == 0 && cmd_opt_given(a, "mining"))
        rc = rd_fail(err, RD_EINVAL, "node add: --mining is for compute nodes (a storage node has no GPUs)");
    if (rc == RD_OK)
        rc = node_check_mining(ctx, a, region, "node add", err);
    if (rc == RD_OK)
        rc = fleet_claim_minion(ctx, minion, tx_key(object, "node/%s", name), err);
    if (rc == RD_OK && !(node = node_new_doc(ctx, region, name, role, minion)))
        rc = rd_fail(err, RD_ENOMEM, "out of memory");
    if (rc == RD_OK) {
        json_object_set_new(node, "upnp", json_boolean(opt_on(a, "upnp", 1)));
        json_object_set_new(node, "mining", json_boolean(opt_on(a, "mining", 0)));
        if (cmd_opt(a, "agent") && strcmp(cmd_opt(a, "agent"), NODE_AGENT_NONE) == 0) {
            json_object_set_new(node, "agent_mode", json_string(NODE_AGENT_NONE));
            json_object_del(node, "agent_online");
        }
        if (cmd_opt(a, "inventory"))
            rc = node_apply_inventory_file(ctx, node, region, cmd_opt(a, "inventory"), NULL, err);
    }
    if (rc == RD_OK && strcmp(role, "storage") == 0) {
        json_object_set_new(region, "storage_node", json_string(name));
        rc = tx_put(ctx->tx, tx_key(object, KEY_REGIONS "%s", rname), json_incref(region), err);
    }
    if (rc == RD_OK) {
        *result = json_incref(node);
        rc = node_put(ctx, node, err);
        node = NULL;
    }
    json_decref(node);
    json_decref(region);
    return rc;
}

/* The cloud driver reports the state of a cloud node's instance: RUNNING
 * makes a manual node (agent_mode none) active, gone makes any offline.  A
 * node whose agent is required becomes active only when its agent
 * registers (agent.c): an instance that runs is not yet an agent that
 * starts workers (spec/execution.md §3). */
rd_code node_apply_instance(cmd_ctx *ctx, json_t *node, const char *instance, rd_err *err)
{
    const char *state = doc_str(node, "state");
    if (strcmp(doc_str(node, "provider"), "gcp") != 0)
        return rd_fail(err, RD_EINVAL, "node report --instance: node '%s' is not a cloud node; physical nodes report --inventory",
                       doc_str(node, "name"));
    if (strcmp(instance, "running") == 0) {
        if ((strcmp(state, "provisioning") == 0 || strcmp(state, "offline") == 0) &&
            strcmp(doc_str(node, "agent_mode"), "required") != 0)
            node_set_state(node, "active", ctx->now);
    } else {
        node_set_state(node, "offline", ctx->now);
    }
    return RD_OK;
}

static rd_code node_report_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *node = NULL, *region = NULL;
    rd_code rc = node_get(ctx, cmd_arg(a, 0), &node, err);
    if (rc == RD_OK && !cmd_opt(a, "inventory") == !cmd_opt(a, "instance"))
        rc = rd_fail(err, RD_EUSAGE, "node report: give exactly one of --inventory FILE (physical) or --instance running|terminated (cloud)");
    if (rc == RD_OK)
        rc = fleet_region_get(ctx, doc_str(node, "region"), &region, err);
    /* what a node's agent sends runs as the node's owner (or an admin):
     * no other tenant may rewrite a machine's inventory */
    if (rc == RD_OK)
        rc = fleet_require_owner_named(ctx, region, "node report", "node", doc_str(node, "name"), err);
    if (rc == RD_OK && cmd_opt(a, "instance"))
        rc = node_apply_instance(ctx, node, cmd_opt(a, "instance"), err);
    else if (rc == RD_OK)
        rc = node_apply_inventory_file(ctx, node, region, cmd_opt(a, "inventory"), a, err);
    if (rc == RD_OK) {
        char ts[RDTIME_BUFLEN];
        json_object_set_new(node, "reported_at", json_string(rdtime_format(ctx->now, ts)));
        if (cmd_opt(a, "inventory")) {
            json_t *problems = json_array();
            if (cmd_opt(a, "gpu-discovery"))
                json_array_append_new(problems, json_pack("{s:s, s:s}", "problem", "gpu_discovery", "detail",
                                                          cmd_opt(a, "gpu-discovery")));
            if (cmd_opt(a, "gpu-cdi"))
                json_array_append_new(problems, json_pack("{s:s, s:s}", "problem", "gpu_cdi", "detail",
                                                          cmd_opt(a, "gpu-cdi")));
            for (size_t i = 0; i < cmd_opt_count(a, "problem"); i++)
                json_array_append_new(problems, json_pack("{s:s, s:s}", "problem", "inventory", "detail",
                                                          cmd_opt_at(a, "problem", i)));
            json_object_set_new(node, "inventory_problems", problems);
        }
        *result = json_incref(node);
        rc = node_put(ctx, node, err);
        node = NULL;
    }
    json_decref(node);
    json_decref(region);
    return rc;
}

static rd_code node_maintenance_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *want = cmd_arg(a, 1);
    json_t *node = NULL, *region = NULL;
    rd_code rc = node_get(ctx, cmd_arg(a, 0), &node, err);
    if (rc == RD_OK)
        rc = fleet_region_get(ctx, doc_str(node, "region"), &region, err);
    if (rc == RD_OK)
        rc = fleet_require_owner_named(ctx, region, "node maintenance", "node", doc_str(node, "name"), err);
    if (rc != RD_OK)
        goto out;

    const char *state = doc_str(node, "state");
    int in_maint = strcmp(state, "maintenance") == 0 || strcmp(state, "draining") == 0;
    if (!in_maint && strcmp(state, "active") != 0) {
        rc = rd_fail(err, RD_EINVAL, "node maintenance: node '%s' is %s; only active, draining or maintenance nodes switch%s",
                     cmd_arg(a, 0), state,
                     strcmp(state, "rejected") == 0 ? " (it failed hardware requirements: node show lists them)" :
                     strcmp(state, "provisioning") == 0 ? " (it waits for its inventory: node report)" : "");
        goto out;
    }
    int on = strcmp(want, "on") == 0 || (strcmp(want, "toggle") == 0 && !in_maint);
    if (on && !in_maint) {
        node_set_state(node, node_workers(node) > 0 ? "draining" : "maintenance", ctx->now);
        json_object_set_new(node, "maintenance_reason", json_string("operator"));
    } else if (!on && in_maint) {
        node_set_state(node, "active", ctx->now);
        json_object_del(node, "maintenance_reason");
        json_object_del(node, "maintenance_detail");
    }
    *result = json_incref(node);
    rc = node_put(ctx, node, err);
    node = NULL;
out:
    json_decref(node);
    json_decref(region);
    return rc;
}

static rd_code node_replace_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *name = cmd_arg(a, 0), *with = cmd_opt(a, "with");
    char key[RD_KEY_MAX], object[RD_KEY_MAX];
    json_t *old = NULL, *region = NULL, *node = NULL;
    rd_code rc = node_get(ctx, name, &old, err);
    if (rc == RD_OK && strcmp(doc_str(old, "role"), "storage") != 0)
        rc = rd_fail(err, RD_EINVAL, "node replace: node '%s' is a %s node; only storage nodes are replaced (remove and add compute nodes)",
                     name, doc_str(old, "role"));
    if (rc == RD_OK)
        rc = fleet_region_get(ctx, doc_str(old, "region"), &region, err);
    if (rc == RD_OK)
        rc = fleet_require_owner_named(ctx, region, "node replace", "node", doc_str(old, "name"), err);
    if (rc == RD_OK && !fleet_region_is_physical(region))
        rc = rd_fail(err, RD_EINVAL, "node replace: region '%s' is a GCP region; its storage node is managed by rigdeck",
                     doc_str(region, "name"));
    if (rc == RD_OK)
        rc = node_name_free(ctx, with, err);
    if (rc == RD_OK)
        rc = node_stage_removed(ctx, name, err);
    if (rc == RD_OK)
        rc = fleet_claim_minion(ctx, cmd_opt(a, "minion"), tx_key(object, "node/%s", with), err);
    if (rc == RD_OK && !(node = node_new_doc(ctx, region, with, "storage", cmd_opt(a, "minion"))))
        rc = rd_fail(err, RD_ENOMEM, "out of memory");
    if (rc == RD_OK) {
        json_object_set_new(node, "upnp", json_boolean(opt_on(a, "upnp", json_is_true(json_object_get(old, "upnp")))));
        json_object_set_new(node, "replaces", json_string(name));
        if (!node_agent_required(old)) {   /* the new machine is run the way the old one was */
            json_object_set_new(node, "agent_mode", json_string(NODE_AGENT_NONE));
            json_object_del(node, "agent_online");
        }
        if (cmd_opt(a, "inventory"))
            rc = node_apply_inventory_file(ctx, node, region, cmd_opt(a, "inventory"), NULL, err);
    }
    if (rc == RD_OK) {
        json_object_set_new(region, "storage_node", json_string(with));
        rc = tx_put(ctx->tx, tx_key(key, KEY_REGIONS "%s", doc_str(region, "name")), json_incref(region), err);
    }
    if (rc == RD_OK) {
        *result = json_incref(node);
        rc = node_put(ctx, node, err);
        node = NULL;
    }
    json_decref(node);
    json_decref(old);
    json_decref(region);
    return rc;
}

static rd_code node_remove_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *name = cmd_arg(a, 0);
    char key[RD_KEY_MAX];
    json_t *node = NULL, *region = NULL, *members = NULL;
    rd_code rc = node_get(ctx, name, &node, err);
    if (rc == RD_OK)
        rc = fleet_region_get(ctx, doc_str(node, "region"), &region, err);
    if (rc == RD_OK)
        rc = fleet_require_owner_named(ctx, region, "node remove", "node", doc_str(node, "name"), err);
    if (rc == RD_OK && node_workers(node) > 0)
        rc = rd_fail(err, RD_EINVAL, "node remove: node '%s' runs %zu worker(s); put it in maintenance and remove it once drained",
                     name, node_workers(node));
    if (rc == RD_OK && strcmp(doc_str(node, "role"), "storage") == 0) {
        rc = fleet_region_nodes(ctx, doc_str(region, "name"), "compute", &members, err);
        if (rc == RD_OK && json_array_size(members) == 0) {
            json_decref(members);
            rc = fleet_region_devices(ctx, doc_str(region, "name"), &members, err);
        }
        if (rc == RD_OK && json_array_size(members) > 0)
            rc = rd_fail(err, RD_EINVAL, "node remove: region '%s' still has '%s' relying on storage node '%s' (node replace swaps it)",
                         doc_str(region, "name"), doc_str(json_array_get(members, 0), "name"), name);
        if (rc == RD_OK && !fleet_region_is_physical(region))
            rc = rd_fail(err, RD_EINVAL, "node remove: '%s' is the storage node of GCP region '%s'; it goes with region remove",
                         name, doc_str(region, "name"));
        if (rc == RD_OK) {
            json_object_del(region, "storage_node");
            rc = tx_put(ctx->tx, tx_key(key, KEY_REGIONS "%s", doc_str(region, "name")), json_incref(region), err);
        }
    }
    if (rc == RD_OK)
        rc = node_stage_removed(ctx, name, err);
    if (rc == RD_OK)
        rc = node_get_any(ctx, name, result, err);
    json_decref(members);
    json_decref(node);
    json_decref(region);
    return rc;
}

rd_code node_get_any(cmd_ctx *ctx, const char *name, json_t **node, rd_err *err)
{
    char key[RD_KEY_MAX];
    rd_code rc = tx_get(ctx->tx, node_key(key, name), node, err);
    if (rc == RD_OK && !*node)
        rc = rd_fail(err, RD_ENOTFOUND, "node '%s' does not exist", name);
    return rc;
}

/* Settings an operator changes on a live node. */
static rd_code node_set_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *node = NULL, *region = NULL;
    rd_code rc = node_get(ctx, cmd_arg(a, 0), &node, err);
    if (rc == RD_OK)
        rc = fleet_region_get(ctx, doc_str(node, "region"), &region, err);
    if (rc == RD_OK)
        rc = fleet_require_owner_named(ctx, region, "node set", "node", doc_str(node, "name"), err);
    if (rc == RD_OK && !cmd_opt(a, "gpu-sharing") && !cmd_opt(a, "upnp") && !cmd_opt(a, "mining") && !cmd_opt(a, "agent"))
        rc = rd_fail(err, RD_EUSAGE, "node set: give at least one of --gpu-sharing, --upnp, --mining, --agent");
    if (rc == RD_OK && cmd_opt(a, "agent"))
        rc = node_agent_change(ctx, node, cmd_opt(a, "agent"), err);
    if (rc == RD_OK && cmd_opt(a, "gpu-sharing")) {
        int on = strcmp(cmd_opt(a, "gpu-sharing"), "on") == 0;
        if (!on && json_array_size(json_object_get(node, "workers")) > 0)
            rc = rd_fail(err, RD_EINVAL, "node set: node '%s' runs workers; turn GPU sharing off once it is idle", cmd_arg(a, 0));
        else
            json_object_set_new(node, "gpu_sharing", json_boolean(on));
    }
    if (rc == RD_OK && cmd_opt(a, "upnp"))
        json_object_set_new(node, "upnp", json_boolean(opt_on(a, "upnp", 1)));
    if (rc == RD_OK && cmd_opt(a, "mining")) {
        if (strcmp(doc_str(node, "role"), "storage") == 0)
            rc = rd_fail(err, RD_EINVAL, "node set: --mining is for compute nodes");
        else if ((rc = node_check_mining(ctx, a, region, "node set", err)) == RD_OK)
            json_object_set_new(node, "mining", json_boolean(opt_on(a, "mining", 0)));
    }
    if (rc == RD_OK) {
        *result = json_incref(node);
        rc = node_put(ctx, node, err);
        node = NULL;
    }
    json_decref(node);
    json_decref(region);
    return rc;
}

/* tx_pick's reader for `node list --fields`: every node, in order. */
static int node_list_append(json_t *node, const char *key, void *data)
{
    (void)key;
    return json_array_append_new(data, node) != 0;
}

/* The nodes `node list` starts from: whole, or with --fields just those
 * asked for and those the rules below read (dropped again at the end). */
static rd_code node_list_read(cmd_ctx *ctx, const tx_pick_names *asked, json_t **items, rd_err *err)
{
    if (!asked)
        return tx_list(ctx->tx, KEY_NODES, items, err);
    tx_pick_names read = *asked;
    static const char *const rule[] = { "name", "owner", "region", "role", "state" };
    for (size_t i = 0; i < sizeof rule / sizeof rule[0]; i++)
        tx_pick_names_add(&read, rule[i]);
    if (!(*items = json_array()))
        return rd_fail(err, RD_ENOMEM, "out of memory");
    rd_code rc = tx_pick(ctx->tx, KEY_NODES, NULL, read.names, read.n, node_list_append, *items, err);
    if (rc != RD_OK) {
        json_decref(*items);
        *items = NULL;
    }
    return rc;
}

/* Every field a node document may carry (some only in some states or on
 * GCP nodes) and `agent`, which the list adds: what --fields may name.
 * Not the agent's bookkeeping (offline_from, agent_managed, agent_online): the list of
 * known names has to fit a one-line error. */
static const char *const node_fields[] = {
    "name", "region", "owner", "provider", "role", "state", "minion_id", "gpu_type", "gpu_count", "gpus_used",
    "gpu_alloc", "gpu_sharing", "gpu_health", "cpu_cores", "cpus_used", "memory_gb", "disk_gb", "disk_used_gb",
    "workers", "agent", "agent_mode", "upnp", "mining", "unmet", "inventory", "inventory_problems",
    "maintenance_reason", "offline_reason", "replaces", "reported_at", "ephemeral", "for_job",
    "accelerator", "storage_class", "gcp_instance", "gcp_zone", "gcp_status", "gcp_error", "release_reason",
    "release_started_at", "created_at", "state_changed_at", "last_used_at", NULL
};

static rd_code node_list_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *items = NULL;
    const char *state = cmd_opt(a, "state");
    tx_pick_names asked;
    rd_code rc = cmd_opt(a, "fields") ? tx_pick_names_parse("--fields", cmd_opt(a, "fields"), &asked, err) : RD_OK;
    if (rc == RD_OK && cmd_opt(a, "fields"))
        rc = tx_pick_names_check(&asked, "--fields", node_fields, err);
    if (rc != RD_OK)
        return rc;
    const tx_pick_names *fields = cmd_opt(a, "fields") ? &asked : NULL;
    access_view view;
    access_view_open(ctx, &view);
    rc = node_list_read(ctx, fields, &items, err);
    if (rc == RD_OK)
        access_view_filter(&view, items, access_view_sees_node);
    access_view_close(&view);
    if (rc != RD_OK)
        return rc;
    fleet_filter(items, "region", cmd_opt(a, "region"));
    fleet_filter(items, "role", cmd_opt(a, "role"));
    fleet_filter(items, "state", state);
    if (!state && !cmd_opt_given(a, "all"))   /* removed nodes are history */
        fleet_drop_removed(items);
    /* each node's agent state in one column: two reads, not one per node */
    json_t *agents = NULL, *alive = NULL, *n;
    size_t i;
    rc = tx_list(ctx->tx, KEY_AGENTS, &agents, err);
    if (rc == RD_OK)
        rc = agent_view_alive(ctx->tx, &alive, err);
    json_t *by_node = json_object();
    json_array_foreach(agents, i, n)
        json_object_set(by_node, doc_str(n, "node"), n);
    json_array_foreach(items, i, n) {
        json_t *ag = json_object_get(by_node, doc_str(n, "name"));
        /* online as the controller last judged it and with its lease alive:
         * a lease alone may be kept alive by anyone on a secured store */
        const char *st = !ag ? "none"
                         : strcmp(doc_str(ag, "state"), "online") == 0 && json_object_get(alive, doc_str(n, "name"))
                             ? "online"
                             : "lost";
        json_object_set_new(n, "agent", json_string(st));
        /* what only the rules above needed goes */
        if (fields)
            json_array_set_new(items, i, docpick_copy(n, fields->names, fields->n));
    }
    json_decref(by_node);
    json_decref(agents);
    json_decref(alive);
    if (rc != RD_OK) {
        json_decref(items);
        return rc;
    }
    *result = json_pack("{s:o}", "items", items);
    return RD_OK;
}

static rd_code node_show_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    access_view view;
    rd_code rc = names_check("node name", cmd_arg(a, 0), err);
    if (rc == RD_OK)
        rc = node_get_any(ctx, cmd_arg(a, 0), result, err);
    access_view_open(ctx, &view);
    if (rc == RD_OK && !access_view_node(&view, *result)) {
        json_decref(*result);
        *result = NULL;
        rc = access_view_missing(err, "node", cmd_arg(a, 0));
    }
    access_view_close(&view);
    json_t *agent = NULL;
    if (rc == RD_OK && (rc = agent_view_for_node(ctx->tx, cmd_arg(a, 0), ctx->now, &agent, err)) == RD_OK)
        json_object_set_new(*result, "agent", agent);
    if (rc == RD_OK)
        json_object_set_new(*result, "gpu_health", node_health_view(*result));
    return rc;
}

static const cmd_flag node_add_flags[] = {
    { "minion", "ID", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "the minion id the node's console shows" },
    { "role", "compute|storage", CMD_FLAG_VALUE, "what the node does (default compute)" },
    { "upnp", "on|off", CMD_FLAG_VALUE, "off behind a corporate firewall (default on)" },
    { "mining", "on|off", CMD_FLAG_VALUE, "mine while GPUs are idle (default off)" },
    { "inventory", "FILE", CMD_FLAG_VALUE, "the machine's inventory (YAML); else wait for node report" },
    { "agent", "none|required", CMD_FLAG_VALUE,
      "required (default): work only while its agent is online; none: a manual node, placement is the start and "
      "job report the end" },
    { 0 }
};
static const cmd_flag node_list_flags[] = {
    { "region", "R", CMD_FLAG_VALUE, "only nodes of this region" },
    { "state", "provisioning|maintenance|active|draining|offline|rejected|removed", CMD_FLAG_VALUE,
      "only nodes in this state" },
    { "role", "compute|storage", CMD_FLAG_VALUE, "only nodes of this role" },
    { "all", NULL, 0, "include removed nodes" },
    { "fields", "F,...", CMD_FLAG_VALUE,
      "each node with only these fields, shown in this order (the rest is not read); an unknown name is refused, "
      "naming the known ones" },
    { 0 }
};
static const cmd_flag node_replace_flags[] = {
    { "with", "NEW_NAME", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "the new storage node's name" },
    { "minion", "ID", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "the new node's minion id" },
    { "upnp", "on|off", CMD_FLAG_VALUE, "default: as the old node" },
    { "inventory", "FILE", CMD_FLAG_VALUE, "the new machine's inventory (YAML)" },
    { 0 }
};
static const cmd_flag node_set_flags[] = {
    { "gpu-sharing", "on|off", CMD_FLAG_VALUE, "let fractional-GPU jobs share this node's GPUs" },
    { "upnp", "on|off", CMD_FLAG_VALUE, "UPnP port mapping" },
    { "mining", "on|off", CMD_FLAG_VALUE, "mine while GPUs are idle" },
    { "agent", "none|required", CMD_FLAG_VALUE,
      "required: work only while its agent is online; none: manual (refused while workers are placed there, and "
      "to none while an agent is registered)" },
    { 0 }
};
static const cmd_flag node_report_flags[] = {
    { "inventory", "FILE", CMD_FLAG_VALUE, "the machine's inventory (YAML): what a physical node's agent sends" },
    { "instance", "running|terminated", CMD_FLAG_VALUE, "a cloud node's instance state: what the cloud driver records" },
    { "problem", "TEXT", CMD_FLAG_VALUE | CMD_FLAG_REPEAT,
      "what discovery left out (a drive beyond the limits); node show lists them" },
    { "unknown-gpu", "NAME", CMD_FLAG_VALUE | CMD_FLAG_REPEAT,
      "a GPU name nvidia-smi printed that no type of gpu list has: the node is rejected (gpu_model_known)" },
    { "gpu-discovery", "DETAIL", CMD_FLAG_VALUE,
      "nvidia-smi failed (its exit status and first line): the node keeps the GPUs it had and says why" },
    { "gpu-cdi", "DETAIL", CMD_FLAG_VALUE,
      "the CDI specs do not name every GPU as nvidia.com/gpu=N (podman): which, and how to generate them" },
    { 0 }
};

const cmd_def node_cmd_table[] = {
    { .words = "node add", .args = "REGION NAME", .flags = node_add_flags, .options = CMD_MUTATES,
      .help = "add a compute or storage node to a physical region", .run = node_add_cmd, .access = CMD_ACCESS_FLEET },
    { .words = "node list", .args = "", .flags = node_list_flags, .help = "list nodes",
      .columns = "name,region,role,state,gpu_type,gpu_count,gpus_used,agent_mode,agent,minion_id",
      .run = node_list_cmd },
    { .words = "node show", .args = "NAME", .help = "show a node, with every unmet hardware requirement",
      .run = node_show_cmd },
    { .words = "node maintenance", .args = "NAME on|off|toggle", .options = CMD_MUTATES,
      .help = "take a node out of service (draining while workers run) or back", .run = node_maintenance_cmd,
      .access = CMD_ACCESS_FLEET },
    { .words = "node replace", .args = "NAME", .flags = node_replace_flags, .options = CMD_MUTATES,
      .help = "swap a region's storage node for a new one", .run = node_replace_cmd, .access = CMD_ACCESS_FLEET },
    { .words = "node remove", .args = "NAME", .options = CMD_MUTATES, .help = "remove an idle node",
      .run = node_remove_cmd, .access = CMD_ACCESS_FLEET },
    { .words = "node set", .args = "NAME", .flags = node_set_flags, .options = CMD_MUTATES,
      .help = "change a node's GPU sharing, UPnP, mining or agent mode", .run = node_set_cmd,
      .access = CMD_ACCESS_FLEET },
    { .words = "node report", .args = "NAME", .flags = node_report_flags, .options = CMD_MUTATES,
      .help = "record a node's inventory (agent) or cloud instance state (cloud driver)", .run = node_report_cmd,
      .access = CMD_ACCESS_FLEET, .agent = CMD_AGENT_OWN_NODE },
    { 0 }
};
