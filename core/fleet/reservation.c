/* reservation.c - the `reservation` commands: add, list, show, remove.
 *
 * A reservation publishes a hostname (mDNS) and a port, unique per region,
 * for endpoint jobs to serve on.  The rules regional resources share are
 * regional.c's.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "doc.h"
#include "fleet.h"
#include "keyspace.h"
#include "names.h"
#include "num.h"
#include "regional.h"

/* A hostname: dot-separated DNS labels, 253 characters at most. */
static rd_code check_hostname(const char *host, rd_err *err)
{
    char label[64];
    size_t n = strlen(host);
    if (n == 0 || n > 253)
        goto bad;
    for (const char *p = host; *p;) {
        size_t len = strcspn(p, ".");
        if (len == 0 || len > 63)
            goto bad;
        snprintf(label, sizeof label, "%.*s", (int)len, p);
        for (char *c = label; *c; c++)
            if (*c >= 'A' && *c <= 'Z')
                *c = (char)(*c - 'A' + 'a');
        if (names_check_dns_label("--hostname", label, NULL) != RD_OK)
            goto bad;
        p += len;
        if (*p == '.' && !*++p)
            goto bad;
    }
    return RD_OK;
bad:
    return rd_fail(err, RD_EINVAL, "--hostname must be a DNS name of labels of a-z, 0-9 and '-' (e.g. inference.local), got '%s'", host);
}

static rd_code reservation_add_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *rname = cmd_arg(a, 0), *name = cmd_arg(a, 1);
    char key[RD_KEY_MAX], ts[RDTIME_BUFLEN];
    int64_t port = 0;
    json_t *region = NULL, *all = NULL, *r;
    size_t i;
    rd_code rc = regional_region(ctx, rname, "reservation add", &region, err);
    if (rc == RD_OK)
        rc = regional_name_free(ctx, "reservation", name, err);
    if (rc == RD_OK)
        rc = check_hostname(cmd_opt(a, "hostname"), err);
    if (rc == RD_OK)
        rc = num_parse_int("--port", cmd_opt(a, "port"), 1, 65535, &port, err);
    /* The port is unique in the region: serialise additions on the
     * region's port key so two concurrent adds cannot both take it. */
    if (rc == RD_OK) {
        json_t *slot = NULL;
        rc = tx_get(ctx->tx, tx_key(key, KEY_PORTS "%s/%lld", rname, (long long)port), &slot, err);
        if (rc == RD_OK && slot)
            rc = rd_fail(err, RD_EEXISTS, "--port %lld is reserved already in region '%s' by reservation '%s'", (long long)port,
                         rname, doc_str(slot, "reservation"));
        json_decref(slot);
    }
    if (rc == RD_OK)
        rc = tx_put(ctx->tx, key, json_pack("{s:s, s:s}", "name", name, "reservation", name), err);
    if (rc == RD_OK)
        rc = tx_list(ctx->tx, KEY_RESERVATIONS, &all, err);
    json_array_foreach(all, i, r)
        if (rc == RD_OK && strcmp(doc_str(r, "region"), rname) == 0 &&
            strcasecmp(doc_str(r, "hostname"), cmd_opt(a, "hostname")) == 0)
            rc = rd_fail(err, RD_EEXISTS, "--hostname %s is published already in region '%s' by reservation '%s'",
                         cmd_opt(a, "hostname"), rname, doc_str(r, "name"));
    if (rc == RD_OK) {
        json_t *res = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:s}", "name", name, "region", rname, "owner",
                                doc_str(region, "owner"), "type", "port", "hostname", cmd_opt(a, "hostname"), "port",
                                (json_int_t)port, "created_at", rdtime_format(ctx->now, ts));
        *result = json_incref(res);
        rc = tx_put(ctx->tx, tx_key(key, KEY_RESERVATIONS "%s", name), res, err);
    }
    json_decref(all);
    json_decref(region);
    return rc;
}

static rd_code reservation_remove_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    char key[RD_KEY_MAX];
    json_t *res = NULL, *region = NULL;
    rd_code rc = regional_get(ctx, "reservation", cmd_arg(a, 0), &res, err);
    if (rc == RD_OK)
        rc = fleet_region_get(ctx, doc_str(res, "region"), &region, err);
    if (rc == RD_OK)
        rc = fleet_require_owner(ctx, region, "reservation remove", err);
    if (rc == RD_OK)
        rc = tx_delete(ctx->tx, tx_key(key, KEY_PORTS "%s/%lld", doc_str(res, "region"),
                                       (long long)json_integer_value(json_object_get(res, "port"))), err);
    if (rc == RD_OK)
        rc = tx_delete(ctx->tx, tx_key(key, KEY_RESERVATIONS "%s", cmd_arg(a, 0)), err);
    if (rc == RD_OK)
        *result = json_incref(res);
    json_decref(region);
    json_decref(res);
    return rc;
}

static rd_code reservation_list_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    return regional_list(ctx, a, KEY_RESERVATIONS, result, err);
}

static rd_code reservation_show_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    return regional_get_visible(ctx, "reservation", cmd_arg(a, 0), result, err);
}

static const cmd_flag reservation_add_flags[] = {
    { "hostname", "HOST", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "the hostname published with mDNS" },
    { "port", "PORT", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "the port the service listens on (1-65535)" },
    { 0 }
};

const cmd_def reservation_cmd_table[] = {
    { .words = "reservation add", .args = "REGION NAME", .flags = reservation_add_flags, .options = CMD_MUTATES,
      .help = "reserve a hostname and port in a region", .run = reservation_add_cmd },
    { .words = "reservation list", .args = "", .flags = regional_list_flags, .help = "list reservations",
      .columns = "name,region,type,hostname,port", .run = reservation_list_cmd },
    { .words = "reservation show", .args = "NAME", .help = "show a reservation", .run = reservation_show_cmd },
    { .words = "reservation remove", .args = "NAME", .options = CMD_MUTATES, .help = "remove a reservation",
      .run = reservation_remove_cmd },
    { 0 }
};
