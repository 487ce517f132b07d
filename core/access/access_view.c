/* access_view.c - the visibility rules of access_view.h.
 *
 * A node carries its region's owner, but whether a region is public lives
 * in the region document only, so a tenant's view reads every region once
 * when it first needs one: regions are few, nodes many.
 */
#include "access_view.h"

#include <string.h>

#include "doc.h"
#include "keyspace.h"

void access_view_open(cmd_ctx *ctx, access_view *v)
{
    memset(v, 0, sizeof *v);
    v->ctx = ctx;
    v->role = access_actor_role(ctx);
}

/* The regions, read on the first question that needs them: a tenant's
 * `node show` of its own node needs none.  A store that fails here hides
 * what depends on it (fail closed); the handler's own reads report it. */
static const json_t *region_of(access_view *v, const char *name)
{
    json_t *list = NULL, *r;
    size_t i;
    if (!v->regions && (v->regions = json_object()) &&
        tx_list(v->ctx->tx, KEY_REGIONS, &list, NULL) == RD_OK)
        json_array_foreach(list, i, r)
            json_object_set(v->regions, doc_str(r, "name"), r);
    json_decref(list);
    return json_object_get(v->regions, name);
}

void access_view_close(access_view *v)
{
    json_decref(v->regions);
    json_decref(v->nodes);
    v->regions = v->nodes = NULL;
}

int access_view_staff(const access_view *v)
{
    return v->role == ACCESS_ADMIN || v->role == ACCESS_OPERATOR;
}

static int is_actor(const access_view *v, const char *owner)
{
    return owner && *owner && strcmp(owner, v->ctx->actor) == 0;
}

int access_view_region(access_view *v, const json_t *region)
{
    return access_view_staff(v) || is_actor(v, doc_str(region, "owner")) ||
           json_is_true(json_object_get(region, "public"));
}

int access_view_region_named(access_view *v, const char *name)
{
    if (access_view_staff(v))
        return 1;
    const json_t *region = region_of(v, name);
    return region && access_view_region(v, region);
}

int access_view_node(access_view *v, const json_t *node)
{
    return access_view_staff(v) || is_actor(v, doc_str(node, "owner")) ||
           access_view_region_named(v, doc_str(node, "region"));
}

static rd_code nodes_cache(access_view *v, rd_err *err)
{
    if (!v->nodes && !(v->nodes = json_object()))
        return rd_fail(err, RD_ENOMEM, "out of memory");
    return RD_OK;
}

rd_code access_view_load_nodes(access_view *v, rd_err *err)
{
    json_t *list = NULL, *n;
    size_t i;
    if (access_view_staff(v))
        return RD_OK;
    rd_code rc = nodes_cache(v, err);
    if (rc == RD_OK)
        rc = tx_list(v->ctx->tx, KEY_NODES, &list, err);
    json_array_foreach(list, i, n)
        json_object_set_new(v->nodes, doc_str(n, "name"), json_boolean(access_view_node(v, n)));
    json_decref(list);
    return rc;
}

int access_view_node_named(access_view *v, const char *name)
{
    char key[RD_KEY_MAX];
    json_t *node = NULL;
    if (access_view_staff(v))
        return 1;
    if (!name || nodes_cache(v, NULL) != RD_OK)
        return 0;
    json_t *seen = json_object_get(v->nodes, name);
    if (seen)
        return json_is_true(seen);
    int sees = tx_get(v->ctx->tx, tx_key(key, KEY_NODES "%s", name), &node, NULL) == RD_OK && node &&
               access_view_node(v, node);
    json_decref(node);
    json_object_set_new(v->nodes, name, json_boolean(sees));
    return sees;
}

int access_view_owned(access_view *v, const json_t *doc)
{
    if (access_view_staff(v))
        return 1;
    const char *owner = doc_str(doc, "owner");
    if (!*owner)   /* device configs name their region only */
        owner = doc_str(region_of(v, doc_str(doc, "region")), "owner");
    return is_actor(v, owner);
}

int access_view_sees_node(access_view *v, const json_t *doc)
{
    return access_view_node(v, doc);
}

int access_view_sees_region(access_view *v, const json_t *doc)
{
    return access_view_region(v, doc);
}

int access_view_sees_owned(access_view *v, const json_t *doc)
{
    return access_view_owned(v, doc);
}

void access_view_filter(access_view *v, json_t *items, int (*sees)(access_view *v, const json_t *doc))
{
    if (access_view_staff(v))
        return;
    for (size_t i = json_array_size(items); i-- > 0;)
        if (!sees(v, json_array_get(items, i)))
            json_array_remove(items, i);
}

rd_code access_view_missing(rd_err *err, const char *kind, const char *name)
{
    return rd_fail(err, RD_ENOTFOUND, "%s '%s' does not exist", kind, name ? name : "");
}

rd_code access_view_require_staff(cmd_ctx *ctx, const char *what, rd_err *err)
{
    access_role role = access_actor_role(ctx);
    if (role == ACCESS_ADMIN || role == ACCESS_OPERATOR)
        return RD_OK;
    return rd_fail(err, RD_EPERM, "%s: only an administering account or an operator may do this; account '%s' has role %s",
                   what, ctx->actor, access_role_name(role));
}
