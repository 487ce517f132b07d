/* store_etcd_lease.c - etcd leases for the store backend (store_etcd.c):
 * grant, keepalive, time to live and revoke through the JSON gateway.
 *
 * Each is safe to resend after a failure that may have reached etcd: a
 * resent grant can at worst leave an unused lease, which expires by
 * itself, and a revoke answered "not found" after an attempt that may have
 * applied means that attempt did.
 */
#include "store_etcd_impl.h"

rd_code etcd_lease_grant(etcd_conn *c, int64_t ttl, int64_t *id, rd_err *err)
{
    etcd_reply r;
    /* A resent grant can at worst leave an unused lease, which expires by itself. */
    rd_code rc = etcd_conn_call(c, "lease/grant", json_pack("{s:o}", "TTL", etcd_ji64(ttl)), ETCD_RESEND, &r, err);
    if (rc)
        return rc;
    if (r.code)
        return etcd_fail_grpc(c, &r, "lease grant", err);
    const char *e = json_string_value(json_object_get(r.body, "error"));
    *id = etcd_i64(r.body, "ID");
    if ((e && *e) || !*id)
        rc = rd_fail(err, RD_ESTORE, "etcd %s: lease grant failed: %s", c->names, e && *e ? e : "no lease id");
    etcd_reply_free(&r);
    return rc;
}

rd_code etcd_lease_keepalive(etcd_conn *c, int64_t id, int64_t *ttl_left, rd_err *err)
{
    etcd_reply r;
    rd_code rc = etcd_conn_call(c, "lease/keepalive", json_pack("{s:o}", "ID", etcd_ji64(id)), ETCD_RESEND, &r, err);
    if (rc)
        return rc;
    if (r.code == GRPC_NOT_FOUND)
        return rd_fail(err, RD_ENOTFOUND, "lease %lld not found (expired or revoked)", (long long)id);
    if (r.code)
        return etcd_fail_grpc(c, &r, "lease keepalive", err);
    /* a streaming endpoint: the answer sits under "result"; an unknown
     * lease comes back with no TTL */
    *ttl_left = etcd_i64(json_object_get(r.body, "result"), "TTL");
    etcd_reply_free(&r);
    if (*ttl_left <= 0)
        return rd_fail(err, RD_ENOTFOUND, "lease %lld not found (expired or revoked)", (long long)id);
    return RD_OK;
}

rd_code etcd_lease_ttl(etcd_conn *c, int64_t id, int64_t *left, int64_t *granted, rd_err *err)
{
    etcd_reply r;
    rd_code rc = etcd_conn_call(c, "lease/timetolive", json_pack("{s:o}", "ID", etcd_ji64(id)), ETCD_RESEND, &r, err);
    if (rc)
        return rc;
    if (r.code == GRPC_NOT_FOUND)
        return rd_fail(err, RD_ENOTFOUND, "lease %lld not found (expired or revoked)", (long long)id);
    if (r.code)
        return etcd_fail_grpc(c, &r, "lease timetolive", err);
    /* an expired or unknown lease answers TTL -1 */
    *left = etcd_i64(r.body, "TTL");
    *granted = etcd_i64(r.body, "grantedTTL");
    etcd_reply_free(&r);
    if (*left <= 0)
        return rd_fail(err, RD_ENOTFOUND, "lease %lld not found (expired or revoked)", (long long)id);
    return RD_OK;
}

rd_code etcd_lease_revoke(etcd_conn *c, int64_t id, rd_err *err)
{
    etcd_reply r;
    rd_code rc = etcd_conn_call(c, "lease/revoke", json_pack("{s:o}", "ID", etcd_ji64(id)), ETCD_RESEND, &r, err);
    if (rc)
        return rc;
    /* "not found" after an attempt that may have applied means that one did */
    if (r.code == GRPC_NOT_FOUND && !r.maybe_sent_before)
        return rd_fail(err, RD_ENOTFOUND, "lease %lld not found (expired or revoked)", (long long)id);
    if (r.code && r.code != GRPC_NOT_FOUND)
        return etcd_fail_grpc(c, &r, "lease revoke", err);
    etcd_reply_free(&r);
    return RD_OK;
}
