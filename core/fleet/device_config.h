/* device_config.h - device configurations (device_config.c). */
#ifndef RD_DEVICE_CONFIG_H
#define RD_DEVICE_CONFIG_H

#include <jansson.h>

#include "cmd.h"

/* Reads configuration name of region into *cfg (new reference);
 * RD_ENOTFOUND naming both when missing. */
rd_code device_config_get(cmd_ctx *ctx, const char *region, const char *name, json_t **cfg, rd_err *err);

#endif
