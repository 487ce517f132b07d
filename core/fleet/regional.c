/* regional.c - what datastores (datastore.c) and port reservations
 * (reservation.c) share: the region that may hold them, lookup, listing.
 *
 * Regional resources need the region owner's plan to be team or higher, and
 * a region that has at least one compute node or device to reach them (seed
 * 000).  A job that names one is pinned to its region by the scheduler.
 * Datastores (NFS or SMB) expose a root path on their server; `datastore
 * resolve` joins a requested subpath under that root and refuses every way
 * of climbing out of it (dspath.c).  An SMB password is sealed with the
 * master key and never leaves the store in clear.  Reservations publish a
 * hostname (mDNS) and a port, unique per region.
 */
#include "regional.h"

#include <string.h>

#include "access_view.h"
#include "doc.h"
#include "fleet.h"
#include "keyspace.h"
#include "names.h"

/* The region, owned by the acting account, able to hold regional resources. */
rd_code regional_region(cmd_ctx *ctx, const char *name, const char *what, json_t **region, rd_err *err)
{
    char key[RD_KEY_MAX];
    json_t *owner = NULL, *nodes = NULL, *devices = NULL;
    rd_code rc = fleet_region_get(ctx, name, region, err);
    if (rc == RD_OK)
        rc = fleet_require_owner(ctx, *region, what, err);
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, tx_key(key, KEY_ACCOUNTS "%s", doc_str(*region, "owner")), &owner, err);
    if (rc == RD_OK && owner && strcmp(doc_str(owner, "plan"), "free") == 0)
        rc = rd_fail(err, RD_EPERM, "%s: regional resources need the team plan or higher; account '%s' is on the free plan",
                     what, doc_str(*region, "owner"));
    if (rc == RD_OK)
        rc = fleet_region_nodes(ctx, name, "compute", &nodes, err);
    if (rc == RD_OK)
        rc = fleet_region_devices(ctx, name, &devices, err);
    if (rc == RD_OK && json_array_size(nodes) == 0 && json_array_size(devices) == 0)
        rc = rd_fail(err, RD_EINVAL, "%s: region '%s' has no compute node or device to reach the resource; add one first",
                     what, name);
    json_decref(owner);
    json_decref(nodes);
    json_decref(devices);
    if (rc != RD_OK) {
        json_decref(*region);
        *region = NULL;
    }
    return rc;
}

rd_code regional_get(cmd_ctx *ctx, const char *kind, const char *name, json_t **doc, rd_err *err)
{
    char key[RD_KEY_MAX], field[64];
    snprintf(field, sizeof field, "%s name", kind);
    rd_code rc = names_check(field, name, err);
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, tx_key(key, KEY_ROOT "%ss/%s", kind, name), doc, err);
    if (rc == RD_OK && !*doc)
        rc = rd_fail(err, RD_ENOTFOUND, "%s '%s' does not exist", kind, name);
    return rc;
}

rd_code regional_get_visible(cmd_ctx *ctx, const char *kind, const char *name, json_t **doc, rd_err *err)
{
    access_view view;
    access_view_open(ctx, &view);
    rd_code rc = regional_get(ctx, kind, name, doc, err);
    if (rc == RD_OK && !access_view_owned(&view, *doc)) {
        json_decref(*doc);
        *doc = NULL;
        rc = access_view_missing(err, kind, name);
    }
    access_view_close(&view);
    return rc;
}

rd_code regional_name_free(cmd_ctx *ctx, const char *kind, const char *name, rd_err *err)
{
    json_t *doc = NULL;
    rd_code rc = regional_get(ctx, kind, name, &doc, err);
    if (rc == RD_ENOTFOUND)
        return RD_OK;
    if (rc == RD_OK)
        rc = rd_fail(err, RD_EEXISTS, "%s '%s' exists already (in region '%s')", kind, name, doc_str(doc, "region"));
    json_decref(doc);
    return rc;
}

rd_code regional_list(cmd_ctx *ctx, const cmd_args *a, const char *prefix, json_t **result, rd_err *err)
{
    json_t *items = NULL;
    access_view view;
    access_view_open(ctx, &view);
    rd_code rc = tx_list(ctx->tx, prefix, &items, err);
    if (rc == RD_OK)
        access_view_filter(&view, items, access_view_sees_owned);
    access_view_close(&view);
    if (rc != RD_OK)
        return rc;
    fleet_filter(items, "region", cmd_opt(a, "region"));
    *result = json_pack("{s:o}", "items", items);
    return RD_OK;
}

const cmd_flag regional_list_flags[] = {
    { "region", "R", CMD_FLAG_VALUE, "only resources of this region" },
    { 0 }
};
