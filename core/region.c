/* region.c - providers, regions and GCP quotas.
 *
 * An account enables the providers it uses (physical, gcp) and creates
 * regions under them; a region belongs to its creator, who alone (with the
 * store's administrators) adds nodes, devices and resources to it.  Region
 * names are global, since jobs and resources name regions without an owner.
 * A GCP region records its storage node at creation (provisioning until the
 * cloud driver brings it up), and carries quota metrics from which the
 * number of runnable jobs per GPU type follows (seed 000's formula).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalog.h"
#include "fleet.h"
#include "gcp_key.h"
#include "account.h"
#include "names.h"
#include "node.h"
#include "num.h"
#include "quota.h"

#define DEFAULT_IDLE_RELEASE_S 600

static const char *provider_key(char buf[RD_KEY_MAX], const char *owner, const char *type)
{
    return tx_key(buf, "/rigdeck/providers/%s/%s", owner, type);
}

/* ---- providers --------------------------------------------------------- */

/* Seed 000 names two payment modes: credits (daily payouts to the wallet)
 * and Stripe, "coming soon".  Only credits is implemented, so anything else
 * would record a payout the billing run can never make. */
static rd_code provider_check_payment(const char *payment, rd_err *err)
{
    if (strcmp(payment, "credits") == 0)
        return RD_OK;
    if (strcasecmp(payment, "stripe") == 0)
        return rd_fail(err, RD_EINVAL, "--payment stripe is not available yet: the only payment mode is credits");
    return rd_fail(err, RD_EINVAL, "--payment must be credits (the only payment mode), got '%s'", payment);
}

static rd_code provider_enable_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *type = cmd_arg(a, 0);
    const char *key_file = cmd_opt(a, "key-file");
    char key[RD_KEY_MAX], ts[RDTIME_BUFLEN];
    json_t *doc = NULL;
    const char *payment = cmd_opt(a, "payment") ? cmd_opt(a, "payment") : "credits";
    rd_code rc;

    if ((rc = provider_check_payment(payment, err)) != RD_OK)
        return rc;
    if (strcmp(type, "physical") == 0 && key_file)
        return rd_fail(err, RD_EINVAL, "--key-file is only for the gcp provider");
    if (strcmp(type, "gcp") == 0 && !key_file)
        return rd_fail(err, RD_EINVAL, "provider enable gcp: --key-file FILE (the service account's JSON key) is required");
    if ((rc = tx_get(ctx->tx, provider_key(key, ctx->actor, type), &doc, err)) != RD_OK)
        return rc;
    int existed = doc != NULL;
    json_decref(doc);
    doc = json_pack("{s:s, s:s, s:s, s:s, s:s}", "name", type, "type", type, "owner", ctx->actor,
                    "payment", payment,
                    "enabled_at", rdtime_format(ctx->now, ts));
    if (!doc)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    if (key_file) {
        char *text = NULL, *sealed = NULL;
        size_t len = 0;
        gcp_sa_key sa;
        rc = fleet_read_file("--key-file", key_file, &text, &len, err);
        if (rc == RD_OK && (rc = gcp_key_parse(text, len, &sa, err)) == RD_OK) {
            json_object_set_new(doc, "project_id", json_string(sa.project_id));
            json_object_set_new(doc, "client_email", json_string(sa.client_email));
            json_object_set_new(doc, "token_uri", json_string(sa.token_uri));
            gcp_key_free(&sa);
            rc = fleet_seal(ctx, text, len, &sealed, err);
        }
        if (text)
            memset(text, 0, len);
        free(text);
        if (rc == RD_OK)
            json_object_set_new(doc, "secret_key", json_string(sealed));
        free(sealed);
        if (rc != RD_OK) {
            json_decref(doc);
            return rc;
        }
    }
    json_object_set_new(doc, "reenabled", json_boolean(existed));
    *result = json_incref(doc);
    return tx_put(ctx->tx, key, doc, err);
}

static rd_code provider_list_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *items = NULL;
    (void)a;
    rd_code rc = tx_list(ctx->tx, "/rigdeck/providers/", &items, err);
    if (rc != RD_OK)
        return rc;
    if (!account_actor_is_admin(ctx))
        fleet_filter(items, "owner", ctx->actor);
    *result = json_pack("{s:o}", "items", items);
    return RD_OK;
}

static rd_code provider_show_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    char key[RD_KEY_MAX];
    const char *owner = cmd_opt(a, "owner") ? cmd_opt(a, "owner") : ctx->actor;
    rd_code rc = names_check("--owner", owner, err);
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, provider_key(key, owner, cmd_arg(a, 0)), result, err);
    if (rc == RD_OK && !*result)
        rc = rd_fail(err, RD_ENOTFOUND, "provider %s is not enabled for account '%s' (provider enable %s)",
                     cmd_arg(a, 0), owner, cmd_arg(a, 0));
    return rc;
}

/* Opens the sealed GCP key with this host's master key and parses it again:
 * tells an operator at once whether this admin host can act on GCP. */
static rd_code provider_check_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    char key[RD_KEY_MAX];
    json_t *prov = NULL;
    char *plain = NULL;
    size_t len = 0;
    gcp_sa_key sa;
    const char *owner = cmd_opt(a, "owner") ? cmd_opt(a, "owner") : ctx->actor;
    rd_code rc = names_check("--owner", owner, err);
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, provider_key(key, owner, "gcp"), &prov, err);
    if (rc == RD_OK && !prov)
        rc = rd_fail(err, RD_ENOTFOUND, "provider gcp is not enabled for account '%s' (provider enable gcp)", owner);
    if (rc == RD_OK)
        rc = fleet_unseal(ctx, fleet_str(prov, "secret_key"), &plain, &len, err);
    if (rc == RD_OK && (rc = gcp_key_parse(plain, len, &sa, err)) == RD_OK) {
        *result = json_pack("{s:s, s:s, s:s, s:s, s:s}", "name", "gcp", "owner", owner, "key", "ok", "project_id",
                            sa.project_id, "client_email", sa.client_email);
        gcp_key_free(&sa);
    }
    if (plain)
        memset(plain, 0, len);
    free(plain);
    json_decref(prov);
    return rc;
}

/* ---- regions ----------------------------------------------------------- */

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
    if ((rc = tx_get(ctx->tx, provider_key(key, ctx->actor, provider), &prov, err)) != RD_OK)
        return rc;
    json_decref(prov);
    if (!prov)
        return rd_fail(err, RD_EINVAL, "region create: the %s provider is not enabled for account '%s' (provider enable %s)",
                       provider, ctx->actor, provider);
    if (strcmp(provider, "physical") == 0) {
        if (!cmd_opt(a, "storage"))
            return rd_fail(err, RD_EUSAGE, "region create --provider physical: --storage local|central is required");
        if (cmd_opt(a, "gcp-region") || cmd_opt(a, "storage-class") || cmd_opt(a, "idle-release"))
            return rd_fail(err, RD_EINVAL, "region create --provider physical: --gcp-region, --storage-class and --idle-release are for gcp regions");
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
    }
    if ((rc = tx_get(ctx->tx, tx_key(key, "/rigdeck/regions/%s", name), &doc, err)) != RD_OK)
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
        if ((rc = tx_list(ctx->tx, "/rigdeck/regions/", &all, err)) != RD_OK) {
            json_decref(doc);
            return rc;
        }
        json_array_foreach(all, i, r)
            if (strcmp(fleet_str(r, "owner"), ctx->actor) == 0 &&
                strcmp(fleet_str(r, "gcp_region"), cmd_opt(a, "gcp-region")) == 0)
                rc = rd_fail(err, RD_EEXISTS, "region create: account '%s' has GCP region %s already as region '%s'",
                             ctx->actor, cmd_opt(a, "gcp-region"), fleet_str(r, "name"));
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
        json_object_set_new(doc, "storage_node", json_string(node_name));
        json_object_set_new(doc, "state", json_string("provisioning"));
        if ((rc = node_stage_gcp_storage(ctx, doc, node_name, err)) != RD_OK) {
            json_decref(doc);
            return rc;
        }
    }
    *result = json_incref(doc);
    return tx_put(ctx->tx, tx_key(key, "/rigdeck/regions/%s", name), doc, err);
}

/* Sets a region's node and device counts from lists that may hold other
 * regions' members too. */
static void region_set_counts(json_t *region, const json_t *nodes, const json_t *devices)
{
    const char *name = fleet_str(region, "name");
    const json_t *n;
    size_t i;
    int compute = 0, storage = 0, ndev = 0;
    json_array_foreach(nodes, i, n) {
        if (strcmp(fleet_str(n, "region"), name) != 0)
            continue;
        if (strcmp(fleet_str(n, "role"), "storage") == 0)
            storage++;
        else
            compute++;
    }
    json_array_foreach(devices, i, n)
        ndev += strcmp(fleet_str(n, "region"), name) == 0;
    json_object_set_new(region, "compute_nodes", json_integer(compute));
    json_object_set_new(region, "storage_nodes", json_integer(storage));
    json_object_set_new(region, "devices", json_integer(ndev));
}

/* A region as shown: the document plus its node counts, and for GCP its
 * quotas and runnable jobs. */
static rd_code region_view(cmd_ctx *ctx, json_t *region, rd_err *err)
{
    json_t *nodes = NULL, *devices = NULL;
    rd_code rc = fleet_region_nodes(ctx, fleet_str(region, "name"), NULL, &nodes, err);
    if (rc == RD_OK)
        rc = fleet_region_devices(ctx, fleet_str(region, "name"), &devices, err);
    if (rc == RD_OK)
        region_set_counts(region, nodes, devices);
    json_decref(nodes);
    json_decref(devices);
    return rc;
}

static rd_code region_list_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *items = NULL, *nodes = NULL, *devices = NULL, *r;
    size_t i;
    rd_code rc = tx_list(ctx->tx, "/rigdeck/regions/", &items, err);
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
        json_array_foreach(items, i, r)
            region_set_counts(r, nodes, devices);
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
    rd_code rc = fleet_region_get(ctx, cmd_arg(a, 0), &region, err);
    if (rc == RD_OK)
        rc = region_view(ctx, region, err);
    if (rc == RD_OK && !fleet_region_is_physical(region)) {
        char key[RD_KEY_MAX];
        json_t *quota = NULL;
        rc = tx_get(ctx->tx, tx_key(key, "/rigdeck/quotas/%s", cmd_arg(a, 0)), &quota, err);
        json_t *metrics = quota ? json_object_get(quota, "metrics") : NULL;
        if (rc == RD_OK)
            json_object_set_new(region, "runnable", quota_runnable_map(fleet_str(region, "gcp_region"), metrics));
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
        if (strcmp(fleet_str(m, "region"), region) == 0 && strcmp(fleet_str(m, "state"), "removed") != 0) {
            snprintf(buf, len, "%s", fleet_str(m, "name"));
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
    return *fleet_str(node, "gcp_instance") || strcmp(fleet_str(node, "state"), "provisioning") != 0;
}

/* The first half of removing a GCP region whose storage VM exists: the region
 * is marked removing and its storage node taken out of service; the next
 * `cloud sync` deletes the VM and then the region's records. */
static rd_code region_stage_removing(cmd_ctx *ctx, json_t *region, json_t *node, int *deferred, rd_err *err)
{
    char key[RD_KEY_MAX], ts[RDTIME_BUFLEN];
    rdtime_format(ctx->now, ts);
    json_t *doc = NULL;
    rd_code rc = node_get(ctx, fleet_str(node, "name"), &doc, err);   /* guarded */
    if (rc != RD_OK)
        return rc;
    if (strcmp(fleet_str(doc, "state"), "active") == 0) {
        json_object_set_new(doc, "state", json_string("maintenance"));
        json_object_set_new(doc, "state_changed_at", json_string(ts));
    }
    if (!*fleet_str(doc, "release_started_at"))
        json_object_set_new(doc, "release_started_at", json_string(ts));
    json_object_set_new(doc, "release_reason", json_string("region_removed"));
    rc = node_put(ctx, doc, err);
    json_object_set_new(region, "state", json_string("removing"));
    json_object_set_new(region, "state_changed_at", json_string(ts));
    if (rc == RD_OK)
        rc = tx_put(ctx->tx, tx_key(key, "/rigdeck/regions/%s", fleet_str(region, "name")), json_incref(region), err);
    *deferred = 1;
    return rc;
}

static rd_code region_remove_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *name = cmd_arg(a, 0);
    static const struct { const char *prefix, *what, *how; } members[] = {
        { "/rigdeck/devices/", "device", "device remove" },
        { "/rigdeck/datastores/", "datastore", "datastore remove" },
        { "/rigdeck/reservations/", "reservation", "reservation remove" },
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
        if (!fleet_region_is_physical(region) && strcmp(fleet_str(n, "role"), "storage") == 0) {
            if (region_storage_has_instance(n))
                rc = region_stage_removing(ctx, region, n, &deferred, err);
            else
                rc = node_stage_removed(ctx, fleet_str(n, "name"), err);
        } else
            rc = rd_fail(err, RD_EINVAL, "region remove: region '%s' still has node '%s' (node remove it first)",
                         name, fleet_str(n, "name"));
    }
    json_decref(items);
    if (rc == RD_OK && deferred) {
        *result = region;
        return RD_OK;
    }
    if (rc == RD_OK)
        rc = tx_delete(ctx->tx, tx_key(key, "/rigdeck/quotas/%s", name), err);
    if (rc == RD_OK)
        rc = tx_delete(ctx->tx, tx_key(key, "/rigdeck/regions/%s", name), err);
    if (rc == RD_OK) {
        json_object_set_new(region, "state", json_string("removed"));
        *result = region;
        return RD_OK;
    }
    json_decref(region);
    return rc;
}

/* ---- quotas ------------------------------------------------------------ */

static rd_code quota_region(cmd_ctx *ctx, const char *name, const char *what, json_t **region, rd_err *err)
{
    rd_code rc = fleet_region_get(ctx, name, region, err);
    if (rc == RD_OK && fleet_region_is_physical(*region)) {
        json_decref(*region);
        *region = NULL;
        rc = rd_fail(err, RD_EINVAL, "%s: region '%s' is a physical region; quotas belong to GCP regions", what, name);
    }
    return rc;
}

static json_t *quota_view(const json_t *region, const json_t *quota)
{
    json_t *metrics = quota ? json_object_get(quota, "metrics") : NULL;
    json_t *list = json_array();
    const char *k;
    json_t *m;
    json_object_foreach((json_t *)metrics, k, m)
        json_array_append_new(list, json_pack("{s:s, s:O, s:O, s:I}", "metric", k, "limit",
                                              json_object_get(m, "limit"), "usage", json_object_get(m, "usage"),
                                              "available", (json_int_t)quota_available(metrics, k)));
    return json_pack("{s:s, s:s, s:s, s:o, s:o}", "name", fleet_str(region, "name"), "region",
                     fleet_str(region, "name"), "gcp_region", fleet_str(region, "gcp_region"), "metrics", list,
                     "runnable", quota_runnable_map(fleet_str(region, "gcp_region"), metrics));
}

static rd_code quota_set_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *name = cmd_arg(a, 0), *metric = cmd_arg(a, 1);
    char key[RD_KEY_MAX];
    json_t *region = NULL, *quota = NULL;
    int64_t limit = 0, usage = 0;
    rd_code rc = quota_region(ctx, name, "quota set", &region, err);
    if (rc == RD_OK)
        rc = fleet_require_owner(ctx, region, "quota set", err);
    if (rc == RD_OK)
        rc = quota_check_metric(metric, err);
    if (rc == RD_OK)
        rc = num_parse_int("LIMIT", cmd_arg(a, 2), 0, INT32_MAX, &limit, err);
    if (rc == RD_OK && cmd_opt(a, "usage"))
        rc = num_parse_int("--usage", cmd_opt(a, "usage"), 0, INT32_MAX, &usage, err);
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, tx_key(key, "/rigdeck/quotas/%s", name), &quota, err);
    if (rc == RD_OK && !quota)
        quota = json_pack("{s:s, s:{}}", "name", name, "metrics");
    if (rc == RD_OK && !cmd_opt(a, "usage"))   /* keep the usage last reported */
        usage = json_integer_value(json_object_get(json_object_get(json_object_get(quota, "metrics"), metric), "usage"));
    if (rc == RD_OK) {
        char ts[RDTIME_BUFLEN];
        json_object_set_new(json_object_get(quota, "metrics"), metric,
                            json_pack("{s:I, s:I}", "limit", (json_int_t)limit, "usage", (json_int_t)usage));
        json_object_set_new(quota, "updated_at", json_string(rdtime_format(ctx->now, ts)));
        *result = quota_view(region, quota);
        rc = tx_put(ctx->tx, key, quota, err);
        quota = NULL;
    }
    json_decref(quota);
    json_decref(region);
    return rc;
}

static rd_code quota_show_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    char key[RD_KEY_MAX];
    json_t *region = NULL, *quota = NULL;
    rd_code rc = quota_region(ctx, cmd_arg(a, 0), "quota show", &region, err);
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, tx_key(key, "/rigdeck/quotas/%s", cmd_arg(a, 0)), &quota, err);
    if (rc == RD_OK)
        *result = quota_view(region, quota);
    json_decref(quota);
    json_decref(region);
    return rc;
}

/* ---- the table --------------------------------------------------------- */

static const cmd_flag provider_enable_flags[] = {
    { "key-file", "FILE", CMD_FLAG_VALUE, "gcp: the service account's JSON key (sealed at rest)" },
    { "payment", "credits", CMD_FLAG_VALUE, "how earnings are paid out: credits (daily, free; the only mode so far)" },
    { 0 }
};
static const cmd_flag provider_show_flags[] = {
    { "owner", "ACCOUNT", CMD_FLAG_VALUE, "whose provider (default: --as)" },
    { 0 }
};
static const cmd_flag region_create_flags[] = {
    { "provider", "physical|gcp", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "the provider the region belongs to" },
    { "storage", "local|central", CMD_FLAG_VALUE, "physical: stand-alone nodes, or a central storage node" },
    { "public", NULL, 0, "sell spare capacity to other accounts' jobs" },
    { "gcp-region", "GCP_REGION", CMD_FLAG_VALUE, "gcp: one of the supported regions (gpu list shows types)" },
    { "storage-class", "micro|small|medium|large|xlarge", CMD_FLAG_VALUE, "gcp: size of the storage node" },
    { "idle-release", "DURATION", CMD_FLAG_VALUE, "gcp: release burst nodes idle this long (default 10m)" },
    { 0 }
};
static const cmd_flag region_list_flags[] = {
    { "provider", "physical|gcp", CMD_FLAG_VALUE, "only regions of this provider" },
    { "owner", "ACCOUNT", CMD_FLAG_VALUE, "only regions of this account" },
    { 0 }
};
static const cmd_flag quota_set_flags[] = {
    { "usage", "N", CMD_FLAG_VALUE, "the amount of the limit in use (default: unchanged, else 0)" },
    { 0 }
};

const cmd_def region_cmd_table[] = {
    { "provider enable", "physical|gcp", provider_enable_flags, CMD_MUTATES,
      "enable a provider for the acting account", NULL, provider_enable_cmd },
    { "provider list", "", NULL, 0, "list enabled providers", "owner,name,payment,project_id,client_email,enabled_at",
      provider_list_cmd },
    { "provider show", "physical|gcp", provider_show_flags, 0, "show an enabled provider (never its key)", NULL,
      provider_show_cmd },
    { "provider check", "gcp", provider_show_flags, 0,
      "unseal the stored GCP key with this host's master key and check it", NULL, provider_check_cmd },
    { "region create", "NAME", region_create_flags, CMD_MUTATES,
      "create a physical or GCP region", NULL, region_create_cmd },
    { "region list", "", region_list_flags, 0, "list regions",
      "name,owner,provider,storage,public,state,compute_nodes,storage_nodes,devices", region_list_cmd },
    { "region show", "NAME", NULL, 0, "show a region (GCP: runnable jobs per GPU type)", NULL, region_show_cmd },
    { "region remove", "NAME", NULL, CMD_MUTATES, "remove an empty region", NULL, region_remove_cmd },
    { "quota set", "REGION METRIC LIMIT", quota_set_flags, CMD_MUTATES,
      "set a GCP quota metric's limit (and usage)", NULL, quota_set_cmd },
    { "quota show", "REGION", NULL, 0, "GCP quota limits, usage and runnable jobs per GPU type", NULL,
      quota_show_cmd },
    { 0 }
};
