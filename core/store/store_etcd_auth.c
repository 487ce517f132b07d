/* store_etcd_auth.c - etcd authentication for the etcd backend: the
 * password file, logging in for a token, the request headers that carry
 * it, a request that logs in again when the token lapsed, and the user
 * and role administration `store secure` uses.
 *
 * etcd's JSON gateway takes a token in the Authorization header (not a
 * client certificate's common name: etcd refuses those on the gateway
 * since CVE-2018-16886), so a rigdeck identity is an etcd user with a
 * password; TLS client certificates still protect the connection.
 * docs/security.md is the contract.
 */
#include "store_etcd_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { PASSWORD_MAX = 256 };

rd_code etcd_conn_read_password(etcd_conn *c, const char *path, rd_err *err)
{
    char buf[PASSWORD_MAX + 2];
    struct stat sb;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return rd_fail(err, RD_EUSAGE, "--etcd-password-file %s: %s", path, strerror(errno));
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return rd_fail(err, RD_EUSAGE, "--etcd-password-file %s: not a regular file", path);
    }
    if (sb.st_mode & (S_IRWXG | S_IRWXO)) {
        close(fd);
        return rd_fail(err, RD_EUSAGE, "--etcd-password-file %s: group or others may read it; chmod 600 it", path);
    }
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n < 0)
        return rd_fail(err, RD_EUSAGE, "--etcd-password-file %s: %s", path, strerror(errno));
    buf[n] = '\0';
    if (n > 0 && buf[n - 1] == '\n')
        buf[--n] = '\0';
    if (n == 0 || n > PASSWORD_MAX || strchr(buf, '\n')) {
        explicit_bzero(buf, sizeof buf);
        return rd_fail(err, RD_EUSAGE, "--etcd-password-file %s: must hold one line of 1-%d characters", path,
                       PASSWORD_MAX);
    }
    c->password = strdup(buf);
    explicit_bzero(buf, sizeof buf);
    return c->password ? RD_OK : rd_fail(err, RD_ENOMEM, "store: out of memory");
}

rd_code etcd_conn_login(etcd_conn *c, rd_err *err)
{
    etcd_reply r;
    free(c->token);
    c->token = NULL;
    rd_code rc = etcd_conn_headers(c, err);
    json_t *req = rc == RD_OK ? json_pack("{s:s, s:s}", "name", c->user, "password", c->password) : NULL;
    if (rc == RD_OK && !req)
        rc = rd_fail(err, RD_ENOMEM, "store: out of memory");
    if (rc == RD_OK)
        rc = etcd_call(c, "auth/authenticate", req, ETCD_RESEND, &r, err);
    json_decref(req);
    if (rc != RD_OK)
        return rc;
    const char *token = json_string_value(json_object_get(r.body, "token"));
    if (r.code || !token) {
        rc = rd_fail(err, RD_ESTORE, "etcd %s: cannot log in as '%s': %s", c->names, c->user,
                     r.code ? r.msg : "no token in the answer");
        etcd_reply_free(&r);
        return rc;
    }
    c->token = strdup(token);
    etcd_reply_free(&r);
    if (!c->token)
        return rd_fail(err, RD_ENOMEM, "store: out of memory");
    return etcd_conn_headers(c, err);
}

rd_code etcd_conn_authenticate(etcd_conn *c, rd_err *err)
{
    rd_code rc = etcd_conn_read_password(c, c->password_file, err);
    return rc == RD_OK ? etcd_conn_login(c, err) : rc;
}

rd_code etcd_conn_call(etcd_conn *c, const char *path, json_t *req, etcd_resend resend, etcd_reply *r, rd_err *err)
{
    if (!req)
        return rd_fail(err, RD_ENOMEM, "store: out of memory");
    rd_code rc = etcd_call(c, path, req, resend, r, err);
    if (rc == RD_OK && r->code == GRPC_UNAUTHENTICATED && c->token) {
        /* The token lapsed (etcd drops idle ones): log in again, once. */
        etcd_reply_free(r);
        rc = etcd_conn_login(c, err);
        if (rc == RD_OK)
            rc = etcd_call(c, path, req, resend, r, err);
    }
    json_decref(req);
    return rc;
}
