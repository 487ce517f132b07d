/* access_view.h - what the acting account may see, for the handlers that
 * list and show (docs/security.md, "Roles").
 *
 * A view reads the actor's role once, and for a tenant (member or viewer)
 * the regions once when first needed, so that filtering a list of 10,000
 * nodes costs one lookup per node, not one read.  Staff (admin, operator)
 * see every tenant's fleet.  A tenant sees:
 *   - regions it owns and regions created --public;
 *   - nodes in those regions (the public capacity its jobs may use: the
 *     scheduler's rule, sched_index.c), and nodes it owns;
 *   - devices, device configs, datastores, reservations, providers and
 *     quotas it owns (nobody else's jobs may use them).
 * What the actor may not see is answered exactly like a missing object
 * (access_view_missing), so names of other tenants' things do not leak.
 */
#ifndef RD_ACCESS_VIEW_H
#define RD_ACCESS_VIEW_H

#include <jansson.h>

#include "access.h"
#include "cmd.h"

typedef struct {
    cmd_ctx *ctx;
    access_role role;
    json_t *regions;   /* region name -> document, read on first need */
    json_t *nodes;     /* node name -> true/false, read on first need */
} access_view;

/* Reads the actor's role (the rest is read when first needed); close it
 * with access_view_close. */
void access_view_open(cmd_ctx *ctx, access_view *v);

/* Frees what the view read; a zeroed or closed view is fine. */
void access_view_close(access_view *v);

/* 1 for admin and operator: every tenant's fleet is theirs to see. */
int access_view_staff(const access_view *v);

/* 1 when the actor sees the region: staff, its owner, or a public one. */
int access_view_region(access_view *v, const json_t *region);

/* 1 when the actor sees the region called name (missing: 0). */
int access_view_region_named(access_view *v, const char *name);

/* 1 when the actor sees the node: staff, its owner, or in a region it sees. */
int access_view_node(access_view *v, const json_t *node);

/* 1 when the actor sees the node called name (a node never stored: 0).
 * Each name is read once; access_view_load_nodes first reads them all in
 * one go, for a caller about to ask about most of the fleet. */
int access_view_node_named(access_view *v, const char *name);
rd_code access_view_load_nodes(access_view *v, rd_err *err);

/* 1 when the actor sees a private fleet object (device, device config,
 * datastore, reservation, provider, GCP quota): staff, or it owns the
 * object ("owner", else the owner of the object's "region"). */
int access_view_owned(access_view *v, const json_t *doc);

/* Drops from a list of documents those sees() rejects. */
void access_view_filter(access_view *v, json_t *items, int (*sees)(access_view *v, const json_t *doc));

/* The same predicates in the shape access_view_filter takes. */
int access_view_sees_node(access_view *v, const json_t *doc);
int access_view_sees_region(access_view *v, const json_t *doc);
int access_view_sees_owned(access_view *v, const json_t *doc);

/* RD_OK for fleet staff (admin, operator); else RD_EPERM naming what, in
 * the guard's words (housekeeping handlers that check again). */
rd_code access_view_require_staff(cmd_ctx *ctx, const char *what, rd_err *err);

/* RD_ENOTFOUND "<kind> '<name>' does not exist": the answer for an object
 * the actor may not see, word for word what a missing one gets. */
rd_code access_view_missing(rd_err *err, const char *kind, const char *name);

#endif
