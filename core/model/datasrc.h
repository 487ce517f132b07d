/* datasrc.h - the source URL of a dataset, checkpoint or model (or of an
 * account's artifacts), the keys that may fetch from it and the endpoint
 * it may name (datasrc.c).  Pure: the URL is read, nothing is looked up.
 */
#ifndef RD_DATASRC_H
#define RD_DATASRC_H

#include "err.h"

typedef enum {
    DATASRC_S3,
    DATASRC_GS,
    DATASRC_HTTPS,
    DATASRC_HTTP,
    DATASRC_FTP,
    DATASRC_FTPS,
    DATASRC_GIT_HTTP,   /* an http(s) URL ending in .git: a clone */
    DATASRC_GIT_SSH,    /* ssh://... or user@host:path */
    DATASRC_DATASTORE   /* datastore:NAME/PATH */
} datasrc_type;

typedef struct {
    datasrc_type type;
    char datastore[64];   /* DATASRC_DATASTORE: the datastore's name */
    char *path;           /* DATASRC_DATASTORE: PATH normalised ("/" the whole datastore); free it */
} datasrc;

/* Reads a source URL (field names it: "--source").  RD_EINVAL with one
 * line naming field and the rule for anything else, a URL with a user name
 * or password in it included (credentials belong in a key). */
rd_code datasrc_parse(const char *field, const char *url, datasrc *out, rd_err *err);

/* Frees what datasrc_parse allocated. */
void datasrc_free(datasrc *s);

/* "s3", "gs", "https", "http", "ftp", "ftps", "git", "datastore". */
const char *datasrc_type_name(datasrc_type t);

/* RD_OK when a key of key_type (named key_name) may fetch from src (the
 * table in datasrc.c and docs/operations.md), else RD_EINVAL naming the
 * types that fit. */
rd_code datasrc_check_key(const datasrc *src, const char *field, const char *key_name, const char *key_type,
                          rd_err *err);

/* RD_OK when endpoint (NULL: none) fits src and key_type: only s3://
 * sources take one, an http(s) URL without credentials; a wasabi key
 * needs one. */
rd_code datasrc_check_endpoint(const datasrc *src, const char *field, const char *endpoint, const char *key_type,
                               rd_err *err);

#endif
