/* datastore.c - the `datastore` commands: add, list, show, resolve, remove.
 *
 * Datastores (NFS or SMB) expose a root path on their server; `datastore
 * resolve` joins a requested subpath under that root and refuses every way
 * of climbing out of it (dspath.c).  An SMB password is sealed with the
 * master key and never leaves the store in clear.  The rules regional
 * resources share are regional.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "dspath.h"
#include "fleet.h"
#include "keyspace.h"
#include "regional.h"

static rd_code check_address(const char *addr, rd_err *err)
{
    size_t n = strlen(addr);
    if (n == 0 || n > 253 || addr[0] == '-' ||
        addr[strspn(addr, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]")])
        return rd_fail(err, RD_EINVAL, "--address must be a hostname, network name or IP address (letters, digits, '.', '-', ':'), got '%s'", addr);
    return RD_OK;
}

static rd_code datastore_add_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *rname = cmd_arg(a, 0), *name = cmd_arg(a, 1), *type = cmd_opt(a, "type");
    const char *user = cmd_opt(a, "username"), *pwfile = cmd_opt(a, "password-file");
    char key[RD_KEY_MAX], ts[RDTIME_BUFLEN];
    char *root = NULL, *sealed = NULL;
    json_t *region = NULL, *ds = NULL;
    rd_code rc = regional_region(ctx, rname, "datastore add", &region, err);
    if (rc == RD_OK)
        rc = regional_name_free(ctx, "datastore", name, err);
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
        rc = cmd_file_read(ctx, "--password-file", pwfile, FLEET_FILE_MAX, &pw, &len, err);
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
                       doc_str(region, "owner"), "type", type, "address", cmd_opt(a, "address"), "root", root,
                       "created_at", rdtime_format(ctx->now, ts));
        if (user) {
            json_object_set_new(ds, "username", json_string(user));
            json_object_set_new(ds, "secret_password", json_string(sealed));
        }
        *result = json_incref(ds);
        rc = tx_put(ctx->tx, tx_key(key, KEY_DATASTORES "%s", name), ds, err);
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
    rd_code rc = regional_get_visible(ctx, "datastore", cmd_arg(a, 0), &ds, err);
    if (rc == RD_OK)
        rc = dspath_resolve(doc_str(ds, "root"), cmd_arg(a, 1), &path, err);
    if (rc == RD_OK)
        *result = json_pack("{s:s, s:s, s:s, s:s, s:s}", "name", cmd_arg(a, 0), "datastore", cmd_arg(a, 0),
                            "region", doc_str(ds, "region"), "address", doc_str(ds, "address"), "path", path);
    free(path);
    json_decref(ds);
    return rc;
}

static rd_code datastore_remove_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    char key[RD_KEY_MAX];
    json_t *ds = NULL, *region = NULL, *cfgs = NULL, *c;
    size_t i;
    rd_code rc = regional_get(ctx, "datastore", cmd_arg(a, 0), &ds, err);
    if (rc == RD_OK)
        rc = fleet_region_get(ctx, doc_str(ds, "region"), &region, err);
    if (rc == RD_OK)
        rc = fleet_require_owner(ctx, region, "datastore remove", err);
    if (rc == RD_OK)
        rc = tx_list(ctx->tx, KEY_DEVICE_CONFIGS, &cfgs, err);
    json_array_foreach(cfgs, i, c)
        if (rc == RD_OK && strcmp(doc_str(c, "datastore"), cmd_arg(a, 0)) == 0 &&
            strcmp(doc_str(c, "region"), doc_str(ds, "region")) == 0)
            rc = rd_fail(err, RD_EINVAL, "datastore remove: device config '%s' mounts datastore '%s'", doc_str(c, "name"),
                         cmd_arg(a, 0));
    if (rc == RD_OK) {
        rc = tx_delete(ctx->tx, tx_key(key, KEY_DATASTORES "%s", cmd_arg(a, 0)), err);
        *result = json_incref(ds);
    }
    json_decref(cfgs);
    json_decref(region);
    json_decref(ds);
    return rc;
}

static rd_code datastore_list_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    return regional_list(ctx, a, KEY_DATASTORES, result, err);
}

static rd_code datastore_show_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    return regional_get_visible(ctx, "datastore", cmd_arg(a, 0), result, err);
}

static const cmd_flag datastore_add_flags[] = {
    { "type", "nfs|smb", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "the protocol" },
    { "address", "ADDR", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "hostname, network name or IP of the server" },
    { "root", "PATH", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "the directory jobs see as \"/\" (\"/\": everything)" },
    { "username", "U", CMD_FLAG_VALUE, "smb: the user to connect as" },
    { "password-file", "F", CMD_FLAG_VALUE | CMD_FLAG_SECRET, "smb: a file holding the password (sealed at rest)" },
    { 0 }
};
const cmd_def datastore_cmd_table[] = {
    { .words = "datastore add", .args = "REGION NAME", .flags = datastore_add_flags, .options = CMD_MUTATES,
      .help = "add an NFS or SMB datastore to a region", .run = datastore_add_cmd },
    { .words = "datastore list", .args = "", .flags = regional_list_flags, .help = "list datastores",
      .columns = "name,region,type,address,root,username", .run = datastore_list_cmd },
    { .words = "datastore show", .args = "NAME", .help = "show a datastore (never its password)",
      .run = datastore_show_cmd },
    { .words = "datastore resolve", .args = "NAME PATH",
      .help = "the server-side path of PATH under the datastore's root", .run = datastore_resolve_cmd },
    { .words = "datastore remove", .args = "NAME", .options = CMD_MUTATES,
      .help = "remove a datastore no device config mounts", .run = datastore_remove_cmd },
    { 0 }
};
