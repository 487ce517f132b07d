/* provider.h - enabled providers (provider.c). */
#ifndef RD_PROVIDER_H
#define RD_PROVIDER_H

#include <jansson.h>

#include "cmd.h"

/* Reads the provider of type (physical|gcp) that owner enabled into *doc
 * (new reference), NULL when it is not enabled. */
rd_code provider_get(cmd_ctx *ctx, const char *owner, const char *type, json_t **doc, rd_err *err);

#endif
