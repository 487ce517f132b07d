/* device_config.h - device configurations (device_config.c). */
#ifndef RD_DEVICE_CONFIG_H
#define RD_DEVICE_CONFIG_H

#include <jansson.h>

#include "cmd.h"

/* Reads configuration name of region into *cfg (new reference);
 * RD_ENOTFOUND naming both when missing. */
rd_code device_config_get(cmd_ctx *ctx, const char *region, const char *name, json_t **cfg, rd_err *err);

/* The store's meta document says so once every configuration's env is
 * sealed (a new store: from the start). */
#define DEVICE_ENV_SEALED_MARK "device_env_sealed"

/* Seals the plain env values of configurations stored before they were
 * sealed (*sealed counts them), once per store (a mark in its meta
 * document), and only on a host that holds the master key already:
 * elsewhere *waiting counts those left for such a host.  cmd_ctx_upgrade
 * calls it. */
rd_code device_config_upgrade(cmd_ctx *ctx, int *sealed, int *waiting, rd_err *err);

#endif
