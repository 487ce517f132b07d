/* device_config.c - device configurations: the `device-config` commands.
 *
 * A configuration is what an edge device runs: an image, the device model
 * it is for, a command, checkpoints and optionally a regional datastore of
 * the same region to mount.  Configurations are named uniquely within a
 * region (/rigdeck/device-configs/<region>/<name>); one in use by a device
 * cannot be removed.
 *
 * Its env values may be tokens: `device-config create` seals them as `job
 * submit` seals a job's (job_env.h) into "secret_env" and keeps each name
 * with the value "***"; the device's agent opens them with its copy of the
 * master key.  A store from before that holds plain values: the first
 * command on a host holding the master key seals them
 * (device_config_upgrade), and until then every answer redacts them.
 */
#include "device_config.h"

#include <stdlib.h>
#include <string.h>

#include "access_view.h"
#include "catalog.h"
#include "doc.h"
#include "dspath.h"
#include "fleet.h"
#include "job_env.h"
#include "keyspace.h"
#include "names.h"

rd_code device_config_get(cmd_ctx *ctx, const char *region, const char *name, json_t **cfg, rd_err *err)
{
    char key[RD_KEY_MAX];
    rd_code rc = names_check("device config name", name, err);
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, tx_key(key, KEY_DEVICE_CONFIGS "%s/%s", region, name), cfg, err);
    if (rc == RD_OK && !*cfg)
        rc = rd_fail(err, RD_ENOTFOUND, "device config '%s' does not exist in region '%s'", name, region);
    return rc;
}

static rd_code check_env(const char *kv, json_t *env, rd_err *err)
{
    const char *eq = strchr(kv, '=');
    size_t n = eq ? (size_t)(eq - kv) : 0;
    if (!eq || n == 0 || n > 128 || (kv[0] >= '0' && kv[0] <= '9') ||
        strspn(kv, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != n)
        return rd_fail(err, RD_EINVAL, "--env must be NAME=VALUE with NAME of letters, digits and '_' not starting with a digit, got '%s'", kv);
    char name[130];
    snprintf(name, sizeof name, "%.*s", (int)n, kv);
    if (json_object_get(env, name))
        return rd_fail(err, RD_EINVAL, "--env %s is given twice", name);
    json_object_set_new(env, name, json_string(eq + 1));
    return RD_OK;
}

static rd_code check_image(const char *image, rd_err *err)
{
    size_t n = strlen(image);
    if (n == 0 || n > 255 || image[strcspn(image, " \t\n\r\"'\\")] || image[0] == '-' || image[0] == '/')
        return rd_fail(err, RD_EINVAL, "--image must be a container image reference such as nvcr.io/org/app:1.0 (no spaces or quotes), got '%s'", image);
    return RD_OK;
}

static rd_code config_create_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *rname = cmd_arg(a, 0), *name = cmd_arg(a, 1), *ds = cmd_opt(a, "datastore");
    char key[RD_KEY_MAX], ts[RDTIME_BUFLEN];
    json_t *region = NULL, *old = NULL, *store = NULL, *cfg = NULL;
    rd_code rc = fleet_region_get(ctx, rname, &region, err);
    if (rc == RD_OK)
        rc = fleet_require_owner(ctx, region, "device-config create", err);
    if (rc == RD_OK && !fleet_region_is_central(region))
        rc = rd_fail(err, RD_EINVAL, "device-config create: region '%s' cannot hold devices (physical regions with central storage only)", rname);
    if (rc == RD_OK)
        rc = names_check("device config name", name, err);
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, tx_key(key, KEY_DEVICE_CONFIGS "%s/%s", rname, name), &old, err);
    if (rc == RD_OK && old)
        rc = rd_fail(err, RD_EEXISTS, "device config '%s' exists already in region '%s'", name, rname);
    if (rc == RD_OK)
        rc = check_image(cmd_opt(a, "image"), err);
    if (rc == RD_OK)
        rc = names_check("--model", cmd_opt(a, "model"), err);
    if (rc == RD_OK && !*cmd_opt(a, "command"))
        rc = rd_fail(err, RD_EINVAL, "--command must not be empty: it starts the inference task in the model's root directory");
    if (rc == RD_OK && cmd_opt(a, "datastore-path") && !ds)
        rc = rd_fail(err, RD_EINVAL, "--datastore-path needs --datastore");
    if (rc == RD_OK && ds) {
        char ds_key[RD_KEY_MAX];
        rc = tx_get(ctx->tx, tx_key(ds_key, KEY_DATASTORES "%s", ds), &store, err);
        if (rc == RD_OK && (!store || strcmp(doc_str(store, "region"), rname) != 0))
            rc = rd_fail(err, RD_EINVAL, "--datastore %s: no datastore of that name in region '%s'", ds, rname);
    }
    if (rc == RD_OK) {
        cfg = json_pack("{s:s, s:s, s:s, s:s, s:s, s:[], s:n, s:n, s:{}, s:[], s:s}", "name", name, "region", rname,
                        "image", cmd_opt(a, "image"), "model", cmd_opt(a, "model"), "command", cmd_opt(a, "command"),
                        "checkpoints", "datastore", "datastore_path", "env", "keys", "created_at",
                        rdtime_format(ctx->now, ts));
        if (!cfg)
            rc = rd_fail(err, RD_ENOMEM, "out of memory");
    }
    if (rc == RD_OK && ds) {
        char *path = NULL;
        json_object_set_new(cfg, "datastore", json_string(ds));
        rc = dspath_resolve("/", cmd_opt(a, "datastore-path") ? cmd_opt(a, "datastore-path") : "/", &path, err);
        if (rc == RD_OK)
            json_object_set_new(cfg, "datastore_path", json_string(path));
        free(path);
    }
    for (size_t i = 0; rc == RD_OK && i < cmd_opt_count(a, "checkpoint"); i++)
        if ((rc = names_check("--checkpoint", cmd_opt_at(a, "checkpoint", i), err)) == RD_OK)
            json_array_append_new(json_object_get(cfg, "checkpoints"), json_string(cmd_opt_at(a, "checkpoint", i)));
    for (size_t i = 0; rc == RD_OK && i < cmd_opt_count(a, "env"); i++)
        rc = check_env(cmd_opt_at(a, "env", i), json_object_get(cfg, "env"), err);
    for (size_t i = 0; rc == RD_OK && i < cmd_opt_count(a, "key"); i++)
        if ((rc = names_check("--key", cmd_opt_at(a, "key", i), err)) == RD_OK)
            json_array_append_new(json_object_get(cfg, "keys"), json_string(cmd_opt_at(a, "key", i)));
    if (rc == RD_OK)
        rc = job_env_seal_in(ctx, cfg, "--env", err);   /* the document never holds a value in plain text */
    if (rc == RD_OK) {
        *result = json_incref(cfg);
        rc = tx_put(ctx->tx, key, cfg, err);
        cfg = NULL;
    }
    json_decref(cfg);
    json_decref(store);
    json_decref(old);
    json_decref(region);
    return rc;
}

static rd_code config_list_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *items = NULL;
    access_view view;
    access_view_open(ctx, &view);
    rd_code rc = tx_list(ctx->tx, KEY_DEVICE_CONFIGS, &items, err);
    if (rc == RD_OK)
        access_view_filter(&view, items, access_view_sees_owned);
    access_view_close(&view);
    if (rc != RD_OK)
        return rc;
    fleet_filter(items, "region", cmd_opt(a, "region"));
    size_t i;
    json_t *c;
    json_array_foreach(items, i, c)
        job_env_redact_in(c);   /* names only, also of configurations stored before values were sealed */
    *result = json_pack("{s:o}", "items", items);
    return RD_OK;
}

static rd_code config_remove_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    char key[RD_KEY_MAX];
    json_t *region = NULL, *cfg = NULL, *devs = NULL, *d;
    size_t i;
    rd_code rc = fleet_region_get(ctx, cmd_arg(a, 0), &region, err);
    if (rc == RD_OK)
        rc = fleet_require_owner(ctx, region, "device-config remove", err);
    if (rc == RD_OK)
        rc = device_config_get(ctx, cmd_arg(a, 0), cmd_arg(a, 1), &cfg, err);
    if (rc == RD_OK)
        rc = fleet_region_devices(ctx, cmd_arg(a, 0), &devs, err);
    json_array_foreach(devs, i, d)
        if (rc == RD_OK && (strcmp(doc_str(d, "config"), cmd_arg(a, 1)) == 0 ||
                            strcmp(doc_str(d, "deployed_config"), cmd_arg(a, 1)) == 0))
            rc = rd_fail(err, RD_EINVAL, "device-config remove: device '%s' uses configuration '%s'", doc_str(d, "name"),
                         cmd_arg(a, 1));
    if (rc == RD_OK) {
        rc = tx_delete(ctx->tx, tx_key(key, KEY_DEVICE_CONFIGS "%s/%s", cmd_arg(a, 0), cmd_arg(a, 1)), err);
        job_env_redact_in(cfg);
        *result = json_incref(cfg);
    }
    json_decref(devs);
    json_decref(cfg);
    json_decref(region);
    return rc;
}

/* ---- sealing an older store's values ------------------------------------ */

/* Seals the plain env of the configuration at key, unless someone did
 * meanwhile; one step each. */
static rd_code upgrade_one(cmd_ctx *ctx, const char *key, int *sealed, rd_err *err)
{
    json_t *cfg = NULL;
    tx_reset(ctx->tx);
    rd_code rc = tx_get(ctx->tx, key, &cfg, err);
    if (rc == RD_OK && cfg && !json_object_get(cfg, "secret_env") && json_object_size(json_object_get(cfg, "env"))) {
        rc = job_env_seal_in(ctx, cfg, "env", err);
        if (rc == RD_OK)
            rc = tx_put(ctx->tx, key, json_incref(cfg), err);
        if (rc == RD_OK)
            rc = tx_commit(ctx->tx, NULL, err);
        if (rc == RD_OK)
            (*sealed)++;
    }
    json_decref(cfg);
    return rc;
}

rd_code device_config_upgrade(cmd_ctx *ctx, int *sealed, int *waiting, rd_err *err)
{
    json_t *meta = NULL, *items = NULL, *c;
    size_t i;
    char key[RD_KEY_MAX], path[4096];
    unsigned char mk[SECRET_KEY_LEN];
    *sealed = *waiting = 0;
    rd_tx *saved = ctx->tx, *tx = tx_new(ctx->store);
    if (!tx)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    ctx->tx = tx;
    rd_code rc = tx_get(tx, KEY_META_STORE, &meta, err);
    if (rc != RD_OK || !meta || json_is_true(json_object_get(meta, DEVICE_ENV_SEALED_MARK)))
        goto out;
    rc = tx_list(tx, KEY_DEVICE_CONFIGS, &items, err);
    json_array_foreach(items, i, c)
        *waiting += !json_object_get(c, "secret_env") && json_object_size(json_object_get(c, "env")) > 0;
    /* Only a host that already holds the master key seals: making a key
     * here would leave values that the admin hosts and the devices
     * cannot open.  Elsewhere the values wait (redacted in every answer). */
    if (rc == RD_OK && *waiting &&
        (secret_master_key_path(ctx->master_key_path, path, sizeof path, NULL) != RD_OK ||
         secret_master_key_load(path, 0, mk, NULL) != RD_OK))
        goto out;
    explicit_bzero(mk, sizeof mk);
    json_array_foreach(items, i, c)
        if (rc == RD_OK && !json_object_get(c, "secret_env") && json_object_size(json_object_get(c, "env")) > 0)
            rc = upgrade_one(ctx, tx_key(key, KEY_DEVICE_CONFIGS "%s/%s", doc_str(c, "region"), doc_str(c, "name")),
                             sealed, err);
    *waiting = 0;
    if (rc == RD_OK)
        rc = fleet_meta_mark(tx, DEVICE_ENV_SEALED_MARK, 5, err);
out:
    json_decref(items);
    json_decref(meta);
    ctx->tx = saved;
    tx_free(tx);
    return rc;
}

static const cmd_flag config_create_flags[] = {
    { "image", "IMG", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "the inference container image" },
    { "model", "M", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "the model holding the inference code" },
    { "command", "CMD", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "start command; must run in the foreground" },
    { "checkpoint", "C", CMD_FLAG_VALUE | CMD_FLAG_REPEAT, "a checkpoint the code needs" },
    { "datastore", "D", CMD_FLAG_VALUE, "a datastore of the region, mounted at the output path" },
    { "datastore-path", "P", CMD_FLAG_VALUE, "the subdirectory of the datastore to mount" },
    { "env", "K=V", CMD_FLAG_VALUE | CMD_FLAG_REPEAT | CMD_FLAG_SECRET, "an environment variable (sealed at rest; the audit trail shows ***)" },
    { "key", "K", CMD_FLAG_VALUE | CMD_FLAG_REPEAT, "a third-party key to attach" },
    { 0 }
};
static const cmd_flag config_list_flags[] = {
    { "region", "R", CMD_FLAG_VALUE, "only configurations of this region" },
    { 0 }
};

const cmd_def device_config_cmd_table[] = {
    { .words = "device-config create", .args = "REGION NAME", .flags = config_create_flags, .options = CMD_MUTATES,
      .help = "create a device configuration (unique name within the region)", .run = config_create_cmd,
      .access = CMD_ACCESS_FLEET },
    { .words = "device-config list", .args = "", .flags = config_list_flags, .help = "list device configurations",
      .columns = "region,name,image,model,command,datastore", .run = config_list_cmd },
    { .words = "device-config remove", .args = "REGION NAME", .options = CMD_MUTATES,
      .help = "remove an unused device configuration", .run = config_remove_cmd, .access = CMD_ACCESS_FLEET },
    { 0 }
};
