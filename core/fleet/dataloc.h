/* dataloc.h - a location a data object is fetched from, or an account's
 * artifacts are stored at, checked against its owner's keys and the
 * datastores the actor sees (dataloc.c).
 */
#ifndef RD_DATALOC_H
#define RD_DATALOC_H

#include <jansson.h>

#include "cmd.h"
#include "err.h"

/* The flags a location is given with, for refusals: "--source", "--key",
 * "--endpoint" (account set: "--artifacts", ...). */
typedef struct {
    const char *url, *key, *endpoint;
} dataobj_fields;

/* Checks a location: url (datasrc_parse), key (NULL: none) a key of
 * owner's that fits it, endpoint (NULL: none) as datasrc_check_endpoint;
 * for_upload refuses sources nothing is uploaded to (http, ftp, git).
 * Sets in doc what staging needs: source, source_type, key, key_type,
 * endpoint (null when not given) and, for a datastore source the actor
 * sees, datastore, region, path (under its root) and server_path. */
rd_code dataobj_location(cmd_ctx *ctx, const dataobj_fields *f, const char *owner, const char *url, const char *key,
                         const char *endpoint, int for_upload, json_t *doc, rd_err *err);

#endif
