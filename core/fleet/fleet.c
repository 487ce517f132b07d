/* fleet.c - helpers shared by the fleet subsystems. */
#include "fleet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "doc.h"
#include "keyspace.h"
#include "names.h"
#include "secret.h"

rd_code fleet_region_get(cmd_ctx *ctx, const char *name, json_t **doc, rd_err *err)
{
    char key[RD_KEY_MAX];
    rd_code rc = names_check("region name", name, err);
    if (rc != RD_OK)
        return rc;
    rc = tx_get(ctx->tx, tx_key(key, KEY_REGIONS "%s", name), doc, err);
    if (rc == RD_OK && !*doc)
        rc = rd_fail(err, RD_ENOTFOUND, "region '%s' does not exist", name);
    return rc;
}

/* Fleet staff (operators too) tend every tenant's machines; the guard
 * (access.c) already keeps them from tenant work such as datastores, so
 * the commands that reach here with an operator are fleet commands.  What
 * the actor may not see (another tenant's private region and what is in
 * it) is answered as missing, word for word as a missing one, so a refusal
 * never tells that it exists or whose it is. */
rd_code fleet_require_owner_named(cmd_ctx *ctx, const json_t *region, const char *what, const char *kind,
                                  const char *name, rd_err *err)
{
    const char *owner = doc_str(region, "owner");
    if (strcmp(owner, ctx->actor) == 0 || access_actor_is_staff(ctx))
        return RD_OK;
    if (!json_is_true(json_object_get(region, "public")))
        return rd_fail(err, RD_ENOTFOUND, "%s '%s' does not exist", kind, name);
    return rd_fail(err, RD_EPERM, "%s: region '%s' belongs to account '%s', not '%s'", what,
                   doc_str(region, "name"), owner, ctx->actor);
}

rd_code fleet_require_owner(cmd_ctx *ctx, const json_t *region, const char *what, rd_err *err)
{
    return fleet_require_owner_named(ctx, region, what, "region", doc_str(region, "name"), err);
}

rd_code fleet_require_node_owner(cmd_ctx *ctx, const json_t *node, const char *what, rd_err *err)
{
    json_t *region = NULL;
    rd_code rc = fleet_region_get(ctx, doc_str(node, "region"), &region, err);
    if (rc == RD_OK)
        rc = fleet_require_owner_named(ctx, region, what, "node", doc_str(node, "name"), err);
    json_decref(region);
    return rc;
}

int fleet_region_is_physical(const json_t *region)
{
    return strcmp(doc_str(region, "provider"), "physical") == 0;
}

int fleet_region_is_central(const json_t *region)
{
    return fleet_region_is_physical(region) && strcmp(doc_str(region, "storage"), "central") == 0;
}

void fleet_filter(json_t *items, const char *field, const char *value)
{
    if (!value)
        return;
    for (size_t i = json_array_size(items); i-- > 0;)
        if (strcmp(doc_str(json_array_get(items, i), field), value) != 0)
            json_array_remove(items, i);
}

rd_code fleet_get_live(cmd_ctx *ctx, const char *kind, const char *name, json_t **doc, rd_err *err)
{
    char key[RD_KEY_MAX], field[64];
    snprintf(field, sizeof field, "%s name", kind);
    rd_code rc = names_check(field, name, err);
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, tx_key(key, KEY_ROOT "%ss/%s", kind, name), doc, err);
    if (rc == RD_OK && (!*doc || strcmp(doc_str(*doc, "state"), "removed") == 0)) {
        json_decref(*doc);
        *doc = NULL;
        rc = rd_fail(err, RD_ENOTFOUND, "%s '%s' does not exist", kind, name);
    }
    return rc;
}

void fleet_drop_removed(json_t *items)
{
    for (size_t i = json_array_size(items); i-- > 0;)
        if (strcmp(doc_str(json_array_get(items, i), "state"), "removed") == 0)
            json_array_remove(items, i);
}

static rd_code region_members(cmd_ctx *ctx, const char *prefix, const char *region, const char *role,
                              json_t **items, rd_err *err)
{
    rd_code rc = tx_list(ctx->tx, prefix, items, err);
    if (rc != RD_OK)
        return rc;
    fleet_filter(*items, "region", region);
    fleet_filter(*items, "role", role);
    fleet_drop_removed(*items);
    return RD_OK;
}

rd_code fleet_region_nodes(cmd_ctx *ctx, const char *region, const char *role, json_t **items, rd_err *err)
{
    return region_members(ctx, KEY_NODES, region, role, items, err);
}

rd_code fleet_region_devices(cmd_ctx *ctx, const char *region, json_t **items, rd_err *err)
{
    return region_members(ctx, KEY_DEVICES, region, NULL, items, err);
}

static rd_code master_key(cmd_ctx *ctx, int create, unsigned char key[SECRET_KEY_LEN], rd_err *err)
{
    char path[4096];
    rd_code rc = secret_master_key_path(ctx->master_key_path, path, sizeof path, err);
    if (rc == RD_OK)
        rc = secret_master_key_load(path, create, key, err);
    return rc;
}

/* Seals plain with the master key, made first when create says so. */
static rd_code seal_with(cmd_ctx *ctx, int create, const char *plain, size_t len, char **sealed, rd_err *err)
{
    unsigned char key[SECRET_KEY_LEN];
    rd_code rc = master_key(ctx, create, key, err);
    if (rc == RD_OK)
        rc = secret_seal(key, plain, len, sealed, err);
    memset(key, 0, sizeof key);
    return rc;
}

rd_code fleet_seal(cmd_ctx *ctx, const char *plain, size_t len, char **sealed, rd_err *err)
{
    return seal_with(ctx, 1, plain, len, sealed, err);
}

rd_code fleet_seal_existing(cmd_ctx *ctx, const char *plain, size_t len, char **sealed, rd_err *err)
{
    return seal_with(ctx, 0, plain, len, sealed, err);
}

rd_code fleet_derive_secret(cmd_ctx *ctx, const char *label, char out[SECRET_DERIVED_HEX + 1], rd_err *err)
{
    unsigned char key[SECRET_KEY_LEN];
    rd_code rc = master_key(ctx, 0, key, err);
    if (rc == RD_OK)
        rc = secret_derive(key, label, out, err);
    memset(key, 0, sizeof key);
    return rc;
}

rd_code fleet_unseal(cmd_ctx *ctx, const char *sealed, char **plain, size_t *len, rd_err *err)
{
    unsigned char key[SECRET_KEY_LEN];
    rd_code rc = master_key(ctx, 0, key, err);
    if (rc == RD_OK)
        rc = secret_open(key, sealed, plain, len, err);
    memset(key, 0, sizeof key);
    return rc;
}

rd_code fleet_claim_minion(cmd_ctx *ctx, const char *minion, const char *object, rd_err *err)
{
    char key[RD_KEY_MAX];
    json_t *doc = NULL;
    rd_code rc;
    size_t n = strlen(minion);
    if (n == 0 || n > 128 || minion[strspn(minion, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")])
        return rd_fail(err, RD_EINVAL, "--minion must be 1-128 characters of letters, digits, '.', '_' or '-', got '%s'", minion);
    if ((rc = tx_get(ctx->tx, tx_key(key, KEY_MINIONS "%s", minion), &doc, err)) != RD_OK)
        return rc;
    if (doc) {
        rc = rd_fail(err, RD_EEXISTS, "--minion %s is already used by %s", minion, doc_str(doc, "object"));
        json_decref(doc);
        return rc;
    }
    return tx_put(ctx->tx, key, json_pack("{s:s, s:s}", "name", minion, "object", object), err);
}

rd_code fleet_release_minion(cmd_ctx *ctx, const char *minion, rd_err *err)
{
    char key[RD_KEY_MAX];
    if (!*minion)
        return RD_OK;
    return tx_delete(ctx->tx, tx_key(key, KEY_MINIONS "%s", minion), err);
}

rd_code fleet_meta_mark(rd_tx *tx, const char *mark, int tries, rd_err *err)
{
    json_t *meta = NULL;
    rd_code rc = RD_OK;
    for (int attempt = 0; attempt < tries; attempt++) {
        json_decref(meta);
        meta = NULL;
        tx_reset(tx);
        rc = tx_get(tx, KEY_META_STORE, &meta, err);
        if (rc != RD_OK || !meta || json_is_true(json_object_get(meta, mark)))
            break;
        json_object_set_new(meta, mark, json_true());
        rc = tx_put(tx, KEY_META_STORE, json_incref(meta), err);
        if (rc == RD_OK)
            rc = tx_commit(tx, NULL, err);
        if (rc != RD_ECONFLICT)
            break;
        rc = RD_OK;
    }
    json_decref(meta);
    return rc;
}
