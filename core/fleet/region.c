/* region.c - the `region` commands: create, set, list, show, remove.
 *
 * An account enables the providers it uses (provider.c) and creates
 * regions under them; a region belongs to its creator, who alone (with the
 * store's administrators) adds nodes, devices and resources to it.  Region
 * names are global, since jobs and resources name regions without an owner.
 * A GCP region records its storage node at creation (provisioning until the
 * cloud driver brings it up), and carries quota metrics (quota_cmd.c) from
 * which the number of runnable jobs per GPU type follows (quota.c).
 */
#include <stdlib.h>
#include <string.h>

#include "access_view.h"
#include "catalog.h"
#include "doc.h"
#include "fleet.h"
#include "account.h"
#include "hwreq.h"
#include "keyspace.h"
#include "names.h"
#include "node.h"
#include "provider.h"
#include "quota.h"

#define DEFAULT_IDLE_RELEASE_S 600
#define REGION_IMAGE_MAX 300

/* ---- regions ----------------------------------------------------------- */

/* --agent none|required. */
static rd_code region_check_agent(const char *v, rd_err *err)
{
    if (strcmp(v, "none") == 0 || strcmp(v, "required") == 0)
        return RD_OK;
    return rd_fail(err, RD_EINVAL, "--agent must be one of none, required, got '%s'", v);
}

/* --image: a Compute Engine image as instances.insert takes it,
 * [projects/PROJECT/]global/images/[family/]NAME. */
static rd_code region_check_image(const char *v, rd_err *err)
{
    static const char rule[] = "--image must be [projects/PROJECT/]global/images/[family/]NAME (lower-case letters, "
                               "digits and '-')";
    size_t n = strlen(v);
    const char *p = v;
    if (n == 0 || n > REGION_IMAGE_MAX)
        return rd_fail(err, RD_EINVAL, "%s, at most %d characters", rule, REGION_IMAGE_MAX);
    if (strncmp(p, "projects/", 9) == 0) {
        p += 9;
        size_t k = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789-.:");
        if (k == 0 || p[k] != '/')
            return rd_fail(err, RD_EINVAL, "%s, got '%s'", rule, v);
        p += k + 1;
    }
    if (strncmp(p, "global/images/", 14) != 0)
        return rd_fail(err, RD_EINVAL, "%s, got '%s'", rule, v);
    p += 14;
    if (strncmp(p, "family/", 7) == 0)
        p += 7;
    size_t k = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789-");
    if (k == 0 || p[k] != '\0' || p[0] < 'a' || p[0] > 'z' || p[k - 1] == '-')
        return rd_fail(err, RD_EINVAL, "%s, got '%s'", rule, v);
    return RD_OK;
}

/* The options that only mean something for a GCP region's cloud nodes. */
static rd_code region_physical_refuse(const cmd_args *a, const char *verb, rd_err *err)
{
    static const char *const gcp_only[] = { "gcp-region", "storage-class", "idle-release", "agent", "image", NULL };
    for (size_t i = 0; gcp_only[i]; i++)
        if (cmd_opt(a, gcp_only[i]))
            return rd_fail(err, RD_EINVAL, "%s --%s is only for gcp regions%s", verb, gcp_only[i],
                           strcmp(gcp_only[i], "agent") == 0 ? " (a physical node's agent is node add/set --agent)" : "");
    return RD_OK;
}

static rd_code region_create_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *name = cmd_arg(a, 0);
    const char *provider = cmd_opt(a, "provider");
    char key[RD_KEY_MAX], ts[RDTIME_BUFLEN];
    json_t *doc = NULL, *prov = NULL;
    int64_t idle = DEFAULT_IDLE_RELEASE_S;
    rd_code rc;

    if ((rc = names_check_dns_label("region name", name, err)) != RD_OK)
        return rc;
    if ((rc = provider_get(ctx, ctx->actor, provider, &prov, err)) != RD_OK)
        return rc;
    json_decref(prov);
    if (!prov)
        return rd_fail(err, RD_EINVAL, "region create: the %s provider is not enabled for account '%s' (provider enable %s)",
                       provider, ctx->actor, provider);
    if (strcmp(provider, "physical") == 0) {
        if (!cmd_opt(a, "storage"))
            return rd_fail(err, RD_EUSAGE, "region create --provider physical: --storage local|central is required");
        if ((rc = region_physical_refuse(a, "region create --provider physical:", err)) != RD_OK)
            return rc;
    } else {
        if (!cmd_opt(a, "gcp-region") || !cmd_opt(a, "storage-class"))
            return rd_fail(err, RD_EUSAGE, "region create --provider gcp: --gcp-region GCP_REGION and --storage-class CLASS are required");
        if (cmd_opt(a, "storage"))
            return rd_fail(err, RD_EINVAL, "region create --provider gcp: --storage is for physical regions (gcp regions always have a storage node)");
        if ((rc = catalog_check_gcp_region("--gcp-region", cmd_opt(a, "gcp-region"), err)) != RD_OK ||
            (rc = catalog_check_storage_class("--storage-class", cmd_opt(a, "storage-class"), err)) != RD_OK)
            return rc;
        if (cmd_opt(a, "idle-release") &&
            (rc = rdtime_parse_duration("--idle-release", cmd_opt(a, "idle-release"), &idle, err)) != RD_OK)
            return rc;
        if (cmd_opt(a, "agent") && (rc = region_check_agent(cmd_opt(a, "agent"), err)) != RD_OK)
            return rc;
        if (cmd_opt(a, "image") && (rc = region_check_image(cmd_opt(a, "image"), err)) != RD_OK)
            return rc;
    }
    if ((rc = tx_get(ctx->tx, tx_key(key, KEY_REGIONS "%s", name), &doc, err)) != RD_OK)
        return rc;
    if (doc) {
        json_decref(doc);
        return rd_fail(err, RD_EEXISTS, "region '%s' exists already", name);
    }
    doc = json_pack("{s:s, s:s, s:s, s:b, s:s}", "name", name, "owner", ctx->actor, "provider", provider,
                    "public", cmd_opt_given(a, "public"), "created_at", rdtime_format(ctx->now, ts));
    if (!doc)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    if (strcmp(provider, "physical") == 0) {
        json_object_set_new(doc, "storage", json_string(cmd_opt(a, "storage")));
        json_object_set_new(doc, "state", json_string("active"));
    } else {
        /* Two trainML regions on one GCP region would fight over its quota. */
        json_t *all = NULL, *r;
        size_t i;
        if ((rc = tx_list(ctx->tx, KEY_REGIONS, &all, err)) != RD_OK) {
            json_decref(doc);
            return rc;
        }
        json_array_foreach(all, i, r)
            if (strcmp(doc_str(r, "owner"), ctx->actor) == 0 &&
                strcmp(doc_str(r, "gcp_region"), cmd_opt(a, "gcp-region")) == 0)
                rc = rd_fail(err, RD_EEXISTS, "region create: account '%s' has GCP region %s already as region '%s'",
                             ctx->actor, cmd_opt(a, "gcp-region"), doc_str(r, "name"));
        json_decref(all);
        if (rc != RD_OK) {
            json_decref(doc);
            return rc;
        }
        char node_name[RD_KEY_MAX];
        snprintf(node_name, sizeof node_name, "%s-storage", name);
        json_object_set_new(doc, "storage", json_string("central"));
        json_object_set_new(doc, "gcp_region", json_string(cmd_opt(a, "gcp-region")));
        json_object_set_new(doc, "storage_class", json_string(cmd_opt(a, "storage-class")));
        json_object_set_new(doc, "idle_release_s", json_integer(idle));
        json_object_set_new(doc, "agent_mode", json_string(cmd_opt(a, "agent") ? cmd_opt(a, "agent") : "required"));
        json_object_set_new(doc, "image", cmd_opt(a, "image") ? json_string(cmd_opt(a, "image")) : json_null());
        json_object_set_new(doc, "storage_node", json_string(node_name));
        json_object_set_new(doc, "state", json_string("provisioning"));
        if ((rc = node_stage_gcp_storage(ctx, doc, node_name, err)) != RD_OK) {
            json_decref(doc);
            return rc;
        }
    }
    *result = json_incref(doc);
    return tx_put(ctx->tx, tx_key(key, KEY_REGIONS "%s", name), doc, err);
}

static rd_code region_view(cmd_ctx *ctx, json_t *region, rd_err *err);

/* 1 when every compute node of the region meets the hardware requirements
 * of a region that sells spare capacity (hwreq.c); else names the first
 * that does not, and why, in err. */
static rd_code region_nodes_fit_public(cmd_ctx *ctx, const json_t *region, rd_err *err)
{
    json_t *nodes = NULL, *n;
    size_t i;
    rd_code rc = fleet_region_nodes(ctx, doc_str(region, "name"), "compute", &nodes, err);
    json_array_foreach(nodes, i, n) {
        hw_inventory inv;
        rd_err ignored;
        if (rc != RD_OK || !json_is_object(json_object_get(n, "inventory")) ||
            hwreq_inventory_from_json(json_object_get(n, "inventory"), &inv, &ignored) != RD_OK)
            continue;
        hwreq_context hc = { 0, 1, fleet_region_is_central(region) };
        json_t *unmet = hwreq_check(&inv, &hc);
        if (json_array_size(unmet) > 0)
            rc = rd_fail(err, RD_EINVAL, "region set --public on: node '%s' does not meet what a region selling spare "
                         "capacity requires: %s", doc_str(n, "name"), doc_str(json_array_get(unmet, 0), "message"));
        json_decref(unmet);
    }
    json_decref(nodes);
    return rc;
}

static rd_code region_set_physical_refuse(const cmd_args *a, const char *name, rd_err *err)
{
    char verb[RD_KEY_MAX + 64];
    snprintf(verb, sizeof verb, "region set: region '%s' is physical:", name);
    return region_physical_refuse(a, verb, err);
}

/* `region set NAME [--public on|off] [--agent none|required] [--image IMAGE]
 * [--idle-release D]`: the region's owner (or staff) changes what it sells
 * and, for a GCP region, how its cloud nodes are made.  The scheduler and
 * cloud sync read the region afresh on each pass, so a change applies to
 * the next placement and the next instance created; nodes that exist keep
 * the agent mode they were made with. */
static rd_code region_set_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *name = cmd_arg(a, 0), *pub = cmd_opt(a, "public");
    char key[RD_KEY_MAX];
    json_t *region = NULL;
    int64_t idle = 0;
    rd_code rc = RD_OK;
    if (!pub && !cmd_opt(a, "agent") && !cmd_opt(a, "image") && !cmd_opt(a, "idle-release"))
        return rd_fail(err, RD_EUSAGE, "region set: give at least one of --public, --agent, --image, --idle-release");
    if (pub && strcmp(pub, "on") != 0 && strcmp(pub, "off") != 0)
        return rd_fail(err, RD_EINVAL, "--public must be one of on, off, got '%s'", pub);
    if ((rc = fleet_region_get(ctx, name, &region, err)) == RD_OK)
        rc = fleet_require_owner(ctx, region, "region set", err);
    if (rc == RD_OK && fleet_region_is_physical(region))
        rc = region_set_physical_refuse(a, name, err);
    if (rc == RD_OK && cmd_opt(a, "agent"))
        rc = region_check_agent(cmd_opt(a, "agent"), err);
    if (rc == RD_OK && cmd_opt(a, "image"))
        rc = region_check_image(cmd_opt(a, "image"), err);
    if (rc == RD_OK && cmd_opt(a, "idle-release"))
        rc = rdtime_parse_duration("--idle-release", cmd_opt(a, "idle-release"), &idle, err);
    if (rc == RD_OK && strcmp(doc_str(region, "state"), "removing") == 0)
        rc = rd_fail(err, RD_EINVAL, "region set: region '%s' is being removed", name);
    if (rc == RD_OK && pub && strcmp(pub, "on") == 0 && !json_is_true(json_object_get(region, "public")))
        rc = region_nodes_fit_public(ctx, region, err);
    if (rc != RD_OK) {
        json_decref(region);
        return rc;
    }
    if (pub)
        json_object_set_new(region, "public", json_boolean(strcmp(pub, "on") == 0));
    if (cmd_opt(a, "agent"))
        json_object_set_new(region, "agent_mode", json_string(cmd_opt(a, "agent")));
    if (cmd_opt(a, "image"))
        json_object_set_new(region, "image", json_string(cmd_opt(a, "image")));
    if (cmd_opt(a, "idle-release"))
        json_object_set_new(region, "idle_release_s", json_integer(idle));
    rc = tx_put(ctx->tx, tx_key(key, KEY_REGIONS "%s", name), json_incref(region), err);
    if (rc == RD_OK)
        rc = region_view(ctx, region, err);
    if (rc != RD_OK) {
        json_decref(region);
        return rc;
    }
    *result = region;
    return RD_OK;
}

/* Sets a region's node and device counts from lists that may hold other
 * regions' members too. */
static void region_set_counts(json_t *region, const json_t *nodes, const json_t *devices)
{
    const char *name = doc_str(region, "name");
    const json_t *n;
    size_t i;
    int compute = 0, storage = 0, ndev = 0;
    json_array_foreach(nodes, i, n) {
        if (strcmp(doc_str(n, "region"), name) != 0)
            continue;
        if (strcmp(doc_str(n, "role"), "storage") == 0)
            storage++;
        else
            compute++;
    }
    json_array_foreach(devices, i, n)
        ndev += strcmp(doc_str(n, "region"), name) == 0;
    json_object_set_new(region, "compute_nodes", json_integer(compute));
    json_object_set_new(region, "storage_nodes", json_integer(storage));
    json_object_set_new(region, "devices", json_integer(ndev));
}

/* The cloud-node fields of a GCP region made before they existed: its
 * nodes were manual (no agent), and instances booted GCP's default image. */
static void region_set_defaults(json_t *region)
{
    if (fleet_region_is_physical(region))
        return;
    if (!json_is_string(json_object_get(region, "agent_mode")))
        json_object_set_new(region, "agent_mode", json_string("none"));
    if (!json_object_get(region, "image"))
        json_object_set_new(region, "image", json_null());
}

/* A region as shown: the document plus its node counts, and for GCP its
 * quotas and runnable jobs. */
static rd_code region_view(cmd_ctx *ctx, json_t *region, rd_err *err)
{
    json_t *nodes = NULL, *devices = NULL;
    rd_code rc = fleet_region_nodes(ctx, doc_str(region, "name"), NULL, &nodes, err);
    if (rc == RD_OK)
        rc = fleet_region_devices(ctx, doc_str(region, "name"), &devices, err);
    if (rc == RD_OK)
        region_set_counts(region, nodes, devices);
    region_set_defaults(region);
    json_decref(nodes);
    json_decref(devices);
    return rc;
}

static rd_code region_list_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *items = NULL, *nodes = NULL, *devices = NULL, *r;
    size_t i;
    access_view view;
    access_view_open(ctx, &view);
    rd_code rc = tx_list(ctx->tx, KEY_REGIONS, &items, err);
    if (rc == RD_OK)
        access_view_filter(&view, items, access_view_sees_region);
    access_view_close(&view);
    if (rc != RD_OK)
        return rc;
    fleet_filter(items, "provider", cmd_opt(a, "provider"));
    fleet_filter(items, "owner", cmd_opt(a, "owner"));
    /* Every node and device read once for all regions, not once per
     * region: on a large fleet that is the whole cost of the list. */
    if (json_array_size(items) > 0) {
        rc = fleet_region_nodes(ctx, NULL, NULL, &nodes, err);
        if (rc == RD_OK)
            rc = fleet_region_devices(ctx, NULL, &devices, err);
    }
    if (rc == RD_OK)
        json_array_foreach(items, i, r) {
            region_set_counts(r, nodes, devices);
            region_set_defaults(r);
        }
    json_decref(nodes);
    json_decref(devices);
    if (rc != RD_OK) {
        json_decref(items);
        return rc;
    }
    *result = json_pack("{s:o}", "items", items);
    return RD_OK;
}

static rd_code region_show_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *region = NULL;
    access_view view;
    access_view_open(ctx, &view);
    rd_code rc = fleet_region_get(ctx, cmd_arg(a, 0), &region, err);
    if (rc == RD_OK && !access_view_region(&view, region))
        rc = access_view_missing(err, "region", cmd_arg(a, 0));
    access_view_close(&view);
    if (rc == RD_OK)
        rc = region_view(ctx, region, err);
    if (rc == RD_OK && !fleet_region_is_physical(region)) {
        char key[RD_KEY_MAX];
        json_t *quota = NULL;
        rc = tx_get(ctx->tx, tx_key(key, KEY_QUOTAS "%s", cmd_arg(a, 0)), &quota, err);
        json_t *metrics = quota ? json_object_get(quota, "metrics") : NULL;
        if (rc == RD_OK)
            json_object_set_new(region, "runnable", quota_runnable_map(doc_str(region, "gcp_region"), metrics));
        json_decref(quota);
    }
    if (rc != RD_OK) {
        json_decref(region);
        return rc;
    }
    *result = region;
    return RD_OK;
}

/* Names the first live thing under prefix that is in region, or NULL. */
static const char *region_first_member(json_t *items, const char *region, char *buf, size_t len)
{
    size_t i;
    json_t *m;
    json_array_foreach(items, i, m) {
        if (strcmp(doc_str(m, "region"), region) == 0 && strcmp(doc_str(m, "state"), "removed") != 0) {
            snprintf(buf, len, "%s", doc_str(m, "name"));
            return buf;
        }
    }
    return NULL;
}

/* 1 when a GCP storage node may have a VM behind it: cloud sync has seen or
 * created one, or the node got past provisioning.  Removing such a region's
 * records at once would leave the VM running with nothing to remember it. */
static int region_storage_has_instance(const json_t *node)
{
    return *doc_str(node, "gcp_instance") || strcmp(doc_str(node, "state"), "provisioning") != 0;
}

/* The first half of removing a GCP region whose storage VM exists: the region
 * is marked removing and its storage node taken out of service; the next
 * `cloud sync` deletes the VM and then the region's records. */
static rd_code region_stage_removing(cmd_ctx *ctx, json_t *region, json_t *node, int *deferred, rd_err *err)
{
    char key[RD_KEY_MAX], ts[RDTIME_BUFLEN];
    rdtime_format(ctx->now, ts);
    json_t *doc = NULL;
    rd_code rc = node_get(ctx, doc_str(node, "name"), &doc, err);   /* guarded */
    if (rc != RD_OK)
        return rc;
    if (strcmp(doc_str(doc, "state"), "active") == 0) {
        json_object_set_new(doc, "state", json_string("maintenance"));
        json_object_set_new(doc, "state_changed_at", json_string(ts));
    }
    if (!*doc_str(doc, "release_started_at"))
        json_object_set_new(doc, "release_started_at", json_string(ts));
    json_object_set_new(doc, "release_reason", json_string("region_removed"));
    rc = node_put(ctx, doc, err);
    json_object_set_new(region, "state", json_string("removing"));
    json_object_set_new(region, "state_changed_at", json_string(ts));
    if (rc == RD_OK)
        rc = tx_put(ctx->tx, tx_key(key, KEY_REGIONS "%s", doc_str(region, "name")), json_incref(region), err);
    *deferred = 1;
    return rc;
}

static rd_code region_remove_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *name = cmd_arg(a, 0);
    static const struct { const char *prefix, *what, *how; } members[] = {
        { KEY_DEVICES, "device", "device remove" },
        { KEY_DATASTORES, "datastore", "datastore remove" },
        { KEY_RESERVATIONS, "reservation", "reservation remove" },
    };
    char key[RD_KEY_MAX], buf[128];
    json_t *region = NULL, *items = NULL, *n;
    size_t i;
    rd_code rc = fleet_region_get(ctx, name, &region, err);
    if (rc == RD_OK)
        rc = fleet_require_owner(ctx, region, "region remove", err);
    for (size_t m = 0; rc == RD_OK && m < sizeof members / sizeof members[0]; m++) {
        if ((rc = tx_list(ctx->tx, members[m].prefix, &items, err)) != RD_OK)
            break;
        if (region_first_member(items, name, buf, sizeof buf))
            rc = rd_fail(err, RD_EINVAL, "region remove: region '%s' still has %s '%s' (%s it first)", name,
                         members[m].what, buf, members[m].how);
        json_decref(items);
        items = NULL;
    }
    /* A GCP region's storage node goes with it; every other node must be
     * removed by hand first, so no running work is cut off by surprise. */
    int deferred = 0;
    if (rc == RD_OK)
        rc = fleet_region_nodes(ctx, name, NULL, &items, err);
    json_array_foreach(items, i, n) {
        if (rc != RD_OK)
            break;
        if (!fleet_region_is_physical(region) && strcmp(doc_str(n, "role"), "storage") == 0) {
            if (region_storage_has_instance(n))
                rc = region_stage_removing(ctx, region, n, &deferred, err);
            else
                rc = node_stage_removed(ctx, doc_str(n, "name"), err);
        } else
            rc = rd_fail(err, RD_EINVAL, "region remove: region '%s' still has node '%s' (node remove it first)",
                         name, doc_str(n, "name"));
    }
    json_decref(items);
    if (rc == RD_OK && deferred) {
        *result = region;
        return RD_OK;
    }
    if (rc == RD_OK)
        rc = tx_delete(ctx->tx, tx_key(key, KEY_QUOTAS "%s", name), err);
    if (rc == RD_OK)
        rc = tx_delete(ctx->tx, tx_key(key, KEY_REGIONS "%s", name), err);
    if (rc == RD_OK) {
        json_object_set_new(region, "state", json_string("removed"));
        *result = region;
        return RD_OK;
    }
    json_decref(region);
    return rc;
}

/* ---- the table --------------------------------------------------------- */

static const cmd_flag region_create_flags[] = {
    { "provider", "physical|gcp", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "the provider the region belongs to" },
    { "storage", "local|central", CMD_FLAG_VALUE, "physical: stand-alone nodes, or a central storage node" },
    { "public", NULL, 0, "sell spare capacity to other accounts' jobs" },
    { "gcp-region", "GCP_REGION", CMD_FLAG_VALUE, "gcp: one of the supported regions (gpu list shows types)" },
    { "storage-class", "micro|small|medium|large|xlarge", CMD_FLAG_VALUE, "gcp: size of the storage node" },
    { "agent", "none|required", CMD_FLAG_VALUE, "gcp: cloud nodes run rigdeck agent (required, the default) or are manual (none)" },
    { "image", "IMAGE", CMD_FLAG_VALUE, "gcp: boot image of cloud nodes, with rigdeck installed (docs/gcp.md)" },
    { "idle-release", "DURATION", CMD_FLAG_VALUE, "gcp: release burst nodes idle this long (default 10m)" },
    { 0 }
};
static const cmd_flag region_set_flags[] = {
    { "public", "on|off", CMD_FLAG_VALUE, "sell spare capacity to other accounts' jobs" },
    { "agent", "none|required", CMD_FLAG_VALUE, "gcp: new cloud nodes run rigdeck agent, or are manual" },
    { "image", "IMAGE", CMD_FLAG_VALUE, "gcp: boot image of new cloud nodes" },
    { "idle-release", "DURATION", CMD_FLAG_VALUE, "gcp: release burst nodes idle this long" },
    { 0 }
};
static const cmd_flag region_list_flags[] = {
    { "provider", "physical|gcp", CMD_FLAG_VALUE, "only regions of this provider" },
    { "owner", "ACCOUNT", CMD_FLAG_VALUE, "only regions of this account" },
    { 0 }
};
const cmd_def region_cmd_table[] = {
    { .words = "region create", .args = "NAME", .flags = region_create_flags, .options = CMD_MUTATES,
      .help = "create a physical or GCP region", .run = region_create_cmd },
    { .words = "region set", .args = "NAME", .flags = region_set_flags, .options = CMD_MUTATES,
      .help = "change a region: public jobs; for GCP, its cloud nodes' agent, image, idle release",
      .run = region_set_cmd, .access = CMD_ACCESS_FLEET },
    { .words = "region list", .args = "", .flags = region_list_flags, .help = "list regions",
      .columns = "name,owner,provider,storage,public,state,compute_nodes,storage_nodes,devices",
      .run = region_list_cmd },
    { .words = "region show", .args = "NAME", .help = "show a region (GCP: runnable jobs per GPU type)",
      .run = region_show_cmd },
    { .words = "region remove", .args = "NAME", .options = CMD_MUTATES, .help = "remove an empty region",
      .run = region_remove_cmd },
    { 0 }
};
