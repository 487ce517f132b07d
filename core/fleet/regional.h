/* regional.h - what regional resources share (regional.c). */
#ifndef RD_REGIONAL_H
#define RD_REGIONAL_H

#include <jansson.h>

#include "cmd.h"

/* The region `name`, owned by the acting account, able to hold regional
 * resources (team plan or higher, a compute node or device to reach them);
 * *region gets it (new reference).  Errors name `what`. */
rd_code regional_region(cmd_ctx *ctx, const char *name, const char *what, json_t **region, rd_err *err);

/* Reads the resource of kind ("datastore", "reservation") into *doc;
 * RD_ENOTFOUND naming it when missing. */
rd_code regional_get(cmd_ctx *ctx, const char *kind, const char *name, json_t **doc, rd_err *err);

/* regional_get for what the actor may see (its own, or staff); another
 * tenant's resource is answered exactly like a missing one. */
rd_code regional_get_visible(cmd_ctx *ctx, const char *kind, const char *name, json_t **doc, rd_err *err);

/* RD_OK when no resource of kind is called name; RD_EEXISTS otherwise. */
rd_code regional_name_free(cmd_ctx *ctx, const char *kind, const char *name, rd_err *err);

/* `KIND list [--region R]`: the resources under prefix the actor may see,
 * as {"items"}. */
rd_code regional_list(cmd_ctx *ctx, const cmd_args *a, const char *prefix, json_t **result, rd_err *err);

/* The flags of the list commands (--region). */
extern const cmd_flag regional_list_flags[];

#endif
