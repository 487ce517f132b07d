/* fleet.h - what the fleet subsystems (providers, regions, nodes, devices,
 * regional resources) share: lookups, ownership, files and secrets.
 *
 * Keys:
 *   /rigdeck/providers/<account>/<physical|gcp>
 *   /rigdeck/regions/<name>            owner, provider, storage mode, public
 *   /rigdeck/quotas/<region>           GCP quota metrics {limit, usage}
 *   /rigdeck/nodes/<name>              compute and storage nodes
 *   /rigdeck/minions/<minion id>       which node or device holds a minion id
 *   /rigdeck/devices/<name>
 *   /rigdeck/device-configs/<region>/<name>
 *   /rigdeck/datastores/<name>, /rigdeck/reservations/<name>
 */
#ifndef RD_FLEET_H
#define RD_FLEET_H

#include <jansson.h>

#include "cmd.h"
#include "secret.h"

/* The largest file a fleet command reads (cmd_file_read). */
#define FLEET_FILE_MAX (1024 * 1024)

/* Reads region name (guarded) into *doc; RD_ENOTFOUND when missing. */
rd_code fleet_region_get(cmd_ctx *ctx, const char *name, json_t **doc, rd_err *err);

/* RD_OK when the acting account owns the region or is fleet staff (admin,
 * operator); else, for a public region, RD_EPERM naming what, the region
 * and its owner, and for a private one RD_ENOTFOUND as if it were missing. */
rd_code fleet_require_owner(cmd_ctx *ctx, const json_t *region, const char *what, rd_err *err);

/* The same, for an object of kind named name in region: when the actor may
 * not see the region (another tenant's, not public) the refusal is that
 * object's "does not exist". */
rd_code fleet_require_owner_named(cmd_ctx *ctx, const json_t *region, const char *what, const char *kind,
                                  const char *name, rd_err *err);

/* fleet_require_owner for the region of node (read in ctx->tx). */
rd_code fleet_require_node_owner(cmd_ctx *ctx, const json_t *node, const char *what, rd_err *err);

/* 1 for a region of the physical provider. */
int fleet_region_is_physical(const json_t *region);

/* 1 for a physical region in central storage mode. */
int fleet_region_is_central(const json_t *region);

/* Every node (or device) document of a region, removed ones excluded;
 * role may be NULL for any. */
rd_code fleet_region_nodes(cmd_ctx *ctx, const char *region, const char *role, json_t **items, rd_err *err);
rd_code fleet_region_devices(cmd_ctx *ctx, const char *region, json_t **items, rd_err *err);

/* Seals plain with the master key (created on first use). */
rd_code fleet_seal(cmd_ctx *ctx, const char *plain, size_t len, char **sealed, rd_err *err);

/* fleet_seal with the master key there already, never a new one: a node's
 * agent seals what the admin hosts must open (a notebook's or a transfer's
 * token), so a key of its own would seal what nobody else can read. */
rd_code fleet_seal_existing(cmd_ctx *ctx, const char *plain, size_t len, char **sealed, rd_err *err);

/* A secret derived from the master key and label (secret_derive; never
 * creates a key). */
rd_code fleet_derive_secret(cmd_ctx *ctx, const char *label, char out[SECRET_DERIVED_HEX + 1], rd_err *err);

/* Opens a sealed secret with the master key (never creates one). */
rd_code fleet_unseal(cmd_ctx *ctx, const char *sealed, char **plain, size_t *len, rd_err *err);

/* Claims minion id for object ("node/gpu-07") in ctx->tx; a minion id held
 * by another live object is RD_EEXISTS. */
rd_code fleet_claim_minion(cmd_ctx *ctx, const char *minion, const char *object, rd_err *err);

/* Releases a minion id claimed by object. */
rd_code fleet_release_minion(cmd_ctx *ctx, const char *minion, rd_err *err);

/* Filters a list of documents in place: keeps those whose field equals
 * value (value NULL keeps all). */
void fleet_filter(json_t *items, const char *field, const char *value);

/* Sets the meta document's one-time upgrade mark (true) in a txn of its
 * own, read afresh up to tries times when another process commits first;
 * RD_OK also when the mark is there already or the store has no meta. */
rd_code fleet_meta_mark(rd_tx *tx, const char *mark, int tries, rd_err *err);

/* Reads /rigdeck/<kind>s/<name> (guarded) when it exists and is not
 * removed; else RD_ENOTFOUND "<kind> '<name>' does not exist". */
rd_code fleet_get_live(cmd_ctx *ctx, const char *kind, const char *name, json_t **doc, rd_err *err);

/* Drops the documents in state removed from a list (they are history). */
void fleet_drop_removed(json_t *items);

#endif
