/* regional.c - regional resources: datastores and port reservations.
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
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dspath.h"
#include "fleet.h"
#include "names.h"
#include "num.h"

/* The region, owned by the acting account, able to hold regional resources. */
static rd_code resource_region(cmd_ctx *ctx, const char *name, const char *what, json_t **region, rd_err *err)
{
    char key[RD_KEY_MAX];
    json_t *owner = NULL, *nodes = NULL, *devices = NULL;
    rd_code rc = fleet_region_get(ctx, name, region, err);
    if (rc == RD_OK)
        rc = fleet_require_owner(ctx, *region, what, err);
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, tx_key(key, "/rigdeck/accounts/%s", fleet_str(*region, "owner")), &owner, err);
    if (rc == RD_OK && owner && strcmp(fleet_str(owner, "plan"), "free") == 0)
        rc = rd_fail(err, RD_EPERM, "%s: regional resources need the team plan or higher; account '%s' is on the free plan",
                     what, fleet_str(*region, "owner"));
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

static rd_code resource_get(cmd_ctx *ctx, const char *kind, const char *name, json_t **doc, rd_err *err)
{
    char key[RD_KEY_MAX], field[64];
    snprintf(field, sizeof field, "%s name", kind);
    rd_code rc = names_check(field, name, err);
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, tx_key(key, "/rigdeck/%ss/%s", kind, name), doc, err);
    if (rc == RD_OK && !*doc)
        rc = rd_fail(err, RD_ENOTFOUND, "%s '%s' does not exist", kind, name);
    return rc;
}

static rd_code resource_name_free(cmd_ctx *ctx, const char *kind, const char *name, rd_err *err)
{
    json_t *doc = NULL;
    rd_code rc = resource_get(ctx, kind, name, &doc, err);
    if (rc == RD_ENOTFOUND)
        return RD_OK;
    if (rc == RD_OK)
        rc = rd_fail(err, RD_EEXISTS, "%s '%s' exists already (in region '%s')", kind, name, fleet_str(doc, "region"));
    json_decref(doc);
    return rc;
}

static rd_code check_address(const char *addr, rd_err *err)
{
    size_t n = strlen(addr);
    if (n == 0 || n > 253 || addr[0] == '-' ||
        addr[strspn(addr, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]")])
        return rd_fail(err, RD_EINVAL, "--address must be a hostname, network name or IP address (letters, digits, '.', '-', ':'), got '%s'", addr);
    return RD_OK;
}

/* A hostname: dot-separated DNS labels, 253 characters at most. */
static rd_code check_hostname(const char *host, rd_err *err)
{
    char label[64];
    size_t n = strlen(host);
    if (n == 0 || n > 253)
        goto bad;
    for (const char *p = host; *p;) {
        size_t len = strcspn(p, ".");
        if (len == 0 || len > 63)
            goto bad;
        snprintf(label, sizeof label, "%.*s", (int)len, p);
        for (char *c = label; *c; c++)
            if (*c >= 'A' && *c <= 'Z')
                *c = (char)(*c - 'A' + 'a');
        if (names_check_dns_label("--hostname", label, NULL) != RD_OK)
            goto bad;
        p += len;
        if (*p == '.' && !*++p)
            goto bad;
    }
    return RD_OK;
bad:
    return rd_fail(err, RD_EINVAL, "--hostname must be a DNS name of labels of a-z, 0-9 and '-' (e.g. inference.local), got '%s'", host);
}

/* ---- datastores -------------------------------------------------------- */

static rd_code datastore_add_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *rname = cmd_arg(a, 0), *name = cmd_arg(a, 1), *type = cmd_opt(a, "type");
    const char *user = cmd_opt(a, "username"), *pwfile = cmd_opt(a, "password-file");
    char key[RD_KEY_MAX], ts[RDTIME_BUFLEN];
    char *root = NULL, *sealed = NULL;
    json_t *region = NULL, *ds = NULL;
    rd_code rc = resource_region(ctx, rname, "datastore add", &region, err);
    if (rc == RD_OK)
        rc = resource_name_free(ctx, "datastore", name, err);
    if (rc == RD_OK)
        rc = check_address(cmd_opt(a, "address"), err);
    if (rc == RD_OK && cmd_opt(a, "root")[0] != '/')
        rc = rd_fail(err, RD_EINVAL, "--root must be an absolute path on the server (\"/\" for all of it), got '%s'", cmd_opt(a, "root"));
    if (rc == RD_OK)
        rc = dspath_resolve("/", cmd_opt(a, "root"), &root, err);
    if (rc == RD_OK && strcmp(type, "nfs") == 0 && (user || pwfile))
        rc = rd_fail(err, RD_EINVAL, "--username and --password-file are for smb datastores; nfs passes user ids through");
    /* commands.md: [--username U --password-file F], one optional pair: an
     * smb share may take guests; a user without a password (or the
     * reverse) is a mistake. */
    if (rc == RD_OK && strcmp(type, "smb") == 0 && !user != !pwfile)
        rc = rd_fail(err, RD_EINVAL, "datastore add --type smb: --username U and --password-file F go together "
                                     "(give both, or neither for guest access)");
    if (rc == RD_OK && user && (!*user || strlen(user) > 256 || user[strcspn(user, " \t\r\n\"'")]))
        rc = rd_fail(err, RD_EINVAL, "--username must be 1-256 characters without spaces or quotes, got '%s'", user);
    if (rc == RD_OK && pwfile) {
        char *pw = NULL;
        size_t len = 0;
        rc = fleet_read_file("--password-file", pwfile, &pw, &len, err);
        while (rc == RD_OK && len > 0 && (pw[len - 1] == '\n' || pw[len - 1] == '\r'))
            pw[--len] = '\0';   /* the newline an editor adds is not part of the password */
        if (rc == RD_OK && len == 0)
            rc = rd_fail(err, RD_EINVAL, "--password-file %s is empty", pwfile);
        if (rc == RD_OK)
            rc = fleet_seal(ctx, pw, len, &sealed, err);
        if (pw)
            memset(pw, 0, len);
        free(pw);
    }
    if (rc == RD_OK) {
        ds = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "name", name, "region", rname, "owner",
                       fleet_str(region, "owner"), "type", type, "address", cmd_opt(a, "address"), "root", root,
                       "created_at", rdtime_format(ctx->now, ts));
        if (user) {
            json_object_set_new(ds, "username", json_string(user));
            json_object_set_new(ds, "secret_password", json_string(sealed));
        }
        *result = json_incref(ds);
        rc = tx_put(ctx->tx, tx_key(key, "/rigdeck/datastores/%s", name), ds, err);
    }
    free(sealed);
    free(root);
    json_decref(region);
    return rc;
}

static rd_code datastore_resolve_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *ds = NULL;
    char *path = NULL;
    rd_code rc = resource_get(ctx, "datastore", cmd_arg(a, 0), &ds, err);
    if (rc == RD_OK)
        rc = dspath_resolve(fleet_str(ds, "root"), cmd_arg(a, 1), &path, err);
    if (rc == RD_OK)
        *result = json_pack("{s:s, s:s, s:s, s:s, s:s}", "name", cmd_arg(a, 0), "datastore", cmd_arg(a, 0),
                            "region", fleet_str(ds, "region"), "address", fleet_str(ds, "address"), "path", path);
    free(path);
    json_decref(ds);
    return rc;
}

static rd_code datastore_remove_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    char key[RD_KEY_MAX];
    json_t *ds = NULL, *region = NULL, *cfgs = NULL, *c;
    size_t i;
    rd_code rc = resource_get(ctx, "datastore", cmd_arg(a, 0), &ds, err);
    if (rc == RD_OK)
        rc = fleet_region_get(ctx, fleet_str(ds, "region"), &region, err);
    if (rc == RD_OK)
        rc = fleet_require_owner(ctx, region, "datastore remove", err);
    if (rc == RD_OK)
        rc = tx_list(ctx->tx, "/rigdeck/device-configs/", &cfgs, err);
    json_array_foreach(cfgs, i, c)
        if (rc == RD_OK && strcmp(fleet_str(c, "datastore"), cmd_arg(a, 0)) == 0 &&
            strcmp(fleet_str(c, "region"), fleet_str(ds, "region")) == 0)
            rc = rd_fail(err, RD_EINVAL, "datastore remove: device config '%s' mounts datastore '%s'", fleet_str(c, "name"),
                         cmd_arg(a, 0));
    if (rc == RD_OK) {
        rc = tx_delete(ctx->tx, tx_key(key, "/rigdeck/datastores/%s", cmd_arg(a, 0)), err);
        *result = json_incref(ds);
    }
    json_decref(cfgs);
    json_decref(region);
    json_decref(ds);
    return rc;
}

/* ---- reservations ------------------------------------------------------ */

static rd_code reservation_add_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *rname = cmd_arg(a, 0), *name = cmd_arg(a, 1);
    char key[RD_KEY_MAX], ts[RDTIME_BUFLEN];
    int64_t port = 0;
    json_t *region = NULL, *all = NULL, *r;
    size_t i;
    rd_code rc = resource_region(ctx, rname, "reservation add", &region, err);
    if (rc == RD_OK)
        rc = resource_name_free(ctx, "reservation", name, err);
    if (rc == RD_OK)
        rc = check_hostname(cmd_opt(a, "hostname"), err);
    if (rc == RD_OK)
        rc = num_parse_int("--port", cmd_opt(a, "port"), 1, 65535, &port, err);
    /* The port is unique in the region: serialise additions on the
     * region's port key so two concurrent adds cannot both take it. */
    if (rc == RD_OK) {
        json_t *slot = NULL;
        rc = tx_get(ctx->tx, tx_key(key, "/rigdeck/ports/%s/%lld", rname, (long long)port), &slot, err);
        if (rc == RD_OK && slot)
            rc = rd_fail(err, RD_EEXISTS, "--port %lld is reserved already in region '%s' by reservation '%s'", (long long)port,
                         rname, fleet_str(slot, "reservation"));
        json_decref(slot);
    }
    if (rc == RD_OK)
        rc = tx_put(ctx->tx, key, json_pack("{s:s, s:s}", "name", name, "reservation", name), err);
    if (rc == RD_OK)
        rc = tx_list(ctx->tx, "/rigdeck/reservations/", &all, err);
    json_array_foreach(all, i, r)
        if (rc == RD_OK && strcmp(fleet_str(r, "region"), rname) == 0 &&
            strcasecmp(fleet_str(r, "hostname"), cmd_opt(a, "hostname")) == 0)
            rc = rd_fail(err, RD_EEXISTS, "--hostname %s is published already in region '%s' by reservation '%s'",
                         cmd_opt(a, "hostname"), rname, fleet_str(r, "name"));
    if (rc == RD_OK) {
        json_t *res = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:s}", "name", name, "region", rname, "owner",
                                fleet_str(region, "owner"), "type", "port", "hostname", cmd_opt(a, "hostname"), "port",
                                (json_int_t)port, "created_at", rdtime_format(ctx->now, ts));
        *result = json_incref(res);
        rc = tx_put(ctx->tx, tx_key(key, "/rigdeck/reservations/%s", name), res, err);
    }
    json_decref(all);
    json_decref(region);
    return rc;
}

static rd_code reservation_remove_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    char key[RD_KEY_MAX];
    json_t *res = NULL, *region = NULL;
    rd_code rc = resource_get(ctx, "reservation", cmd_arg(a, 0), &res, err);
    if (rc == RD_OK)
        rc = fleet_region_get(ctx, fleet_str(res, "region"), &region, err);
    if (rc == RD_OK)
        rc = fleet_require_owner(ctx, region, "reservation remove", err);
    if (rc == RD_OK)
        rc = tx_delete(ctx->tx, tx_key(key, "/rigdeck/ports/%s/%lld", fleet_str(res, "region"),
                                       (long long)json_integer_value(json_object_get(res, "port"))), err);
    if (rc == RD_OK)
        rc = tx_delete(ctx->tx, tx_key(key, "/rigdeck/reservations/%s", cmd_arg(a, 0)), err);
    if (rc == RD_OK)
        *result = json_incref(res);
    json_decref(region);
    json_decref(res);
    return rc;
}

/* ---- listing ----------------------------------------------------------- */

static rd_code resource_list(cmd_ctx *ctx, const cmd_args *a, const char *prefix, json_t **result, rd_err *err)
{
    json_t *items = NULL;
    rd_code rc = tx_list(ctx->tx, prefix, &items, err);
    if (rc != RD_OK)
        return rc;
    fleet_filter(items, "region", cmd_opt(a, "region"));
    *result = json_pack("{s:o}", "items", items);
    return RD_OK;
}

static rd_code datastore_list_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    return resource_list(ctx, a, "/rigdeck/datastores/", result, err);
}

static rd_code reservation_list_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    return resource_list(ctx, a, "/rigdeck/reservations/", result, err);
}

static rd_code datastore_show_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    return resource_get(ctx, "datastore", cmd_arg(a, 0), result, err);
}

static rd_code reservation_show_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    return resource_get(ctx, "reservation", cmd_arg(a, 0), result, err);
}

static const cmd_flag datastore_add_flags[] = {
    { "type", "nfs|smb", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "the protocol" },
    { "address", "ADDR", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "hostname, network name or IP of the server" },
    { "root", "PATH", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "the directory jobs see as \"/\" (\"/\": everything)" },
    { "username", "U", CMD_FLAG_VALUE, "smb: the user to connect as" },
    { "password-file", "F", CMD_FLAG_VALUE | CMD_FLAG_SECRET, "smb: a file holding the password (sealed at rest)" },
    { 0 }
};
static const cmd_flag region_filter_flags[] = {
    { "region", "R", CMD_FLAG_VALUE, "only resources of this region" },
    { 0 }
};
static const cmd_flag reservation_add_flags[] = {
    { "hostname", "HOST", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "the hostname published with mDNS" },
    { "port", "PORT", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "the port the service listens on (1-65535)" },
    { 0 }
};

const cmd_def regional_cmd_table[] = {
    { "datastore add", "REGION NAME", datastore_add_flags, CMD_MUTATES, "add an NFS or SMB datastore to a region",
      NULL, datastore_add_cmd },
    { "datastore list", "", region_filter_flags, 0, "list datastores", "name,region,type,address,root,username",
      datastore_list_cmd },
    { "datastore show", "NAME", NULL, 0, "show a datastore (never its password)", NULL, datastore_show_cmd },
    { "datastore resolve", "NAME PATH", NULL, 0, "the server-side path of PATH under the datastore's root", NULL,
      datastore_resolve_cmd },
    { "datastore remove", "NAME", NULL, CMD_MUTATES, "remove a datastore no device config mounts", NULL,
      datastore_remove_cmd },
    { "reservation add", "REGION NAME", reservation_add_flags, CMD_MUTATES,
      "reserve a hostname and port in a region", NULL, reservation_add_cmd },
    { "reservation list", "", region_filter_flags, 0, "list reservations", "name,region,type,hostname,port",
      reservation_list_cmd },
    { "reservation show", "NAME", NULL, 0, "show a reservation", NULL, reservation_show_cmd },
    { "reservation remove", "NAME", NULL, CMD_MUTATES, "remove a reservation", NULL, reservation_remove_cmd },
    { 0 }
};
