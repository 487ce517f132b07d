/* dataloc.c - a location a data object is fetched from, or artifacts are
 * stored at (dataloc.h, dataobj_location): the URL as model/datasrc.c
 * reads it, the owner's key that fits it, the endpoint, and the datastore
 * it names.  In fleet/, beside the datastores it resolves: `account set
 * --artifacts` (account.c) checks its location here, below data/, whose
 * dataobj.c checks a dataset's, checkpoint's or model's.
 */
#include "dataloc.h"

#include <stdlib.h>
#include <string.h>

#include "datasrc.h"
#include "dspath.h"
#include "keyspace.h"
#include "names.h"
#include "regional.h"

/* The datastore a datastore:NAME/PATH source names, when the actor sees
 * it: its region and the path under its root, as `datastore resolve`. */
static rd_code location_datastore(cmd_ctx *ctx, const dataobj_fields *f, const datasrc *src, json_t *doc,
                                  rd_err *err)
{
    json_t *ds = NULL;
    char *server = NULL;
    rd_err inner;
    rd_code rc = regional_get_visible(ctx, "datastore", src->datastore, &ds, &inner);
    if (rc != RD_OK)
        return rd_fail(err, rc, "%s: %s", f->url, inner.msg);
    rc = dspath_resolve(json_string_value(json_object_get(ds, "root")), src->path, &server, &inner);
    if (rc != RD_OK)
        rc = rd_fail(err, rc, "%s: %s", f->url, inner.msg);
    if (rc == RD_OK) {
        json_object_set_new(doc, "datastore", json_string(src->datastore));
        json_object_set(doc, "region", json_object_get(ds, "region"));
        json_object_set_new(doc, "path", json_string(src->path));
        json_object_set_new(doc, "server_path", json_string(server));
    }
    free(server);
    json_decref(ds);
    return rc;
}

rd_code dataobj_location(cmd_ctx *ctx, const dataobj_fields *f, const char *owner, const char *url, const char *key,
                         const char *endpoint, int for_upload, json_t *doc, rd_err *err)
{
    char ref[RD_KEY_MAX];
    json_t *keydoc = NULL;
    const char *key_type = NULL;
    datasrc src;
    rd_code rc = datasrc_parse(f->url, url, &src, err);
    if (rc == RD_OK && for_upload &&
        (src.type == DATASRC_HTTP || src.type == DATASRC_FTP || src.type == DATASRC_FTPS ||
         src.type == DATASRC_GIT_HTTP || src.type == DATASRC_GIT_SSH))
        rc = rd_fail(err, RD_EINVAL, "%s must be a place results can be stored: s3://, gs://, https:// (Azure blob "
                     "storage) or datastore:NAME/PATH, not %s", f->url, datasrc_type_name(src.type));
    if (rc == RD_OK && key && (rc = names_check(f->key, key, err)) == RD_OK) {
        /* only the owner's own keys: a key fetches for every job of the
         * object's owner, so another account's would hand its secret over */
        rc = tx_get(ctx->tx, tx_key(ref, KEY_DATAKEYS "%s/%s", owner, key), &keydoc, err);
        if (rc == RD_OK && !keydoc)
            rc = rd_fail(err, RD_EINVAL, "%s: account '%s' has no key '%s' (key add)", f->key, owner, key);
        if (rc == RD_OK)
            key_type = json_string_value(json_object_get(keydoc, "type"));
        if (rc == RD_OK)
            rc = datasrc_check_key(&src, f->key, key, key_type ? key_type : "", err);
    }
    if (rc == RD_OK)
        rc = datasrc_check_endpoint(&src, f->endpoint, endpoint, key_type, err);
    if (rc == RD_OK && src.type == DATASRC_DATASTORE)
        rc = location_datastore(ctx, f, &src, doc, err);
    if (rc == RD_OK) {
        json_object_set_new(doc, "source", json_string(url));
        json_object_set_new(doc, "source_type", json_string(datasrc_type_name(src.type)));
        json_object_set_new(doc, "key", key ? json_string(key) : json_null());
        json_object_set_new(doc, "key_type", key_type ? json_string(key_type) : json_null());
        json_object_set_new(doc, "endpoint", endpoint ? json_string(endpoint) : json_null());
    }
    json_decref(keydoc);
    datasrc_free(&src);
    return rc;
}
