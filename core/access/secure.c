/* secure.c - `store secure` and `store credentials`: turning etcd's own
 * authentication on, and giving each account (and later each node agent)
 * an etcd user whose permissions are exactly what docs/security.md says.
 *
 * The store is the boundary: an admin's etcd user has etcd's root role (it
 * reads and writes everything, as rigdeck's admin may); any other account's
 * user may read and write only its relay prefix and its transaction marker
 * (where the etcd backend keeps its retry guard), so with `etcdctl` and its
 * own password it can neither read another tenant's documents nor change a
 * balance, price, node or job: everything it does goes through the
 * controller, which applies rigdeck's rules (relay.c).
 */
#include "access.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doc.h"
#include "fileio.h"
#include "keyspace.h"

enum { PASSWORD_LEN = 32, NAMES_ROLE_MAX = 200 };

#define ROLE_PREFIX "rigdeck:"

/* A password's one line, of at least 8 characters, from text. */
static rd_code password_line(const char *field, const char *path, char *text, size_t n, char *out, size_t cap,
                             rd_err *err)
{
    if (n > 0 && text[n - 1] == '\n')
        text[--n] = '\0';
    if (n < 8 || n >= cap || memchr(text, '\n', n) || memchr(text, '\0', n))
        return rd_fail(err, RD_EINVAL, "%s %s: must hold one line of 8-%zu characters", field, path, cap - 1);
    memcpy(out, text, n + 1);
    return RD_OK;
}

/* Reads the password in path, or makes a random one there (0600, never
 * replacing a file).  *made says which.  A relayed request has only the
 * text its sender sent: the controller's disk is neither read nor
 * written (cmd_file.c). */
static rd_code password_file(const cmd_ctx *ctx, const char *field, const char *path, char *out, size_t cap,
                             int *made, rd_err *err)
{
    static const char alphabet[] = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
    *made = 0;
    if (!cmd_file_local(ctx)) {
        char *text = NULL;
        size_t n = 0;
        rd_code rc = cmd_file_read(ctx, field, path, cap, &text, &n, err);
        if (rc == RD_OK)
            rc = password_line(field, path, text, n, out, cap, err);
        if (text)
            explicit_bzero(text, n);
        free(text);
        return rc;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        struct stat sb;
        ssize_t n = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && !(sb.st_mode & (S_IRWXG | S_IRWXO))
                        ? read(fd, out, cap - 1) : -2;
        close(fd);
        if (n == -2)
            return rd_fail(err, RD_EINVAL, "%s %s: must be a regular file only its owner may read (chmod 600)",
                           field, path);
        if (n < 0)
            return rd_fail(err, RD_EINVAL, "%s %s: %s", field, path, strerror(errno));
        out[n] = '\0';
        if (n > 0 && out[n - 1] == '\n')
            out[--n] = '\0';
        if (n < 8 || strchr(out, '\n'))
            return rd_fail(err, RD_EINVAL, "%s %s: must hold one line of at least 8 characters", field, path);
        return RD_OK;
    }
    if (errno != ENOENT)
        return rd_fail(err, RD_EINVAL, "%s %s: %s", field, path, strerror(errno));
    unsigned char raw[PASSWORD_LEN];
    if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
        return rd_fail(err, RD_EINVAL, "%s: the kernel gave no random bytes", field);
    for (size_t i = 0; i < PASSWORD_LEN; i++)
        out[i] = alphabet[raw[i] % (sizeof alphabet - 1)];
    out[PASSWORD_LEN] = '\0';
    explicit_bzero(raw, sizeof raw);
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return rd_fail(err, RD_EINVAL, "%s %s: cannot create it: %s", field, path, strerror(errno));
    int ok = fileio_write_all(fd, out, PASSWORD_LEN) == 0 && fileio_write_all(fd, "\n", 1) == 0;
    ok &= close(fd) == 0;
    if (!ok) {
        unlink(path);
        return rd_fail(err, RD_EINVAL, "%s %s: cannot write it", field, path);
    }
    *made = 1;
    return RD_OK;
}

/* Calls an etcd auth method; "already exists" and similar answers of a
 * step done before count as done, so a retried command goes through. */
static rd_code auth_step(cmd_ctx *ctx, const char *op, json_t *req, rd_err *err)
{
    rd_err e = { 0 };
    rd_code rc = req ? store_auth(ctx->store, op, req, NULL, &e) : rd_fail(&e, RD_ENOMEM, "out of memory");
    json_decref(req);
    if (rc == RD_EINVAL && (strstr(e.msg, "already exists") || strstr(e.msg, "already granted") ||
                            strstr(e.msg, "not granted") || strstr(e.msg, "not found")))
        return RD_OK;
    if (rc != RD_OK && err)
        *err = e;
    return rc;
}

static rd_code set_user(cmd_ctx *ctx, const char *user, const char *password, rd_err *err)
{
    rd_code rc = auth_step(ctx, "user/add", json_pack("{s:s, s:s}", "name", user, "password", password), err);
    if (rc == RD_OK)   /* an existing user gets the password of this file */
        rc = auth_step(ctx, "user/changepw", json_pack("{s:s, s:s}", "name", user, "password", password), err);
    return rc;
}

static int store_is_secured(cmd_ctx *ctx)
{
    json_t *meta = NULL;
    int on = tx_get(ctx->tx, KEY_META_STORE, &meta, NULL) == RD_OK && json_is_true(json_object_get(meta, "secured"));
    json_decref(meta);
    return on;
}

/* Only a store with users of its own can be secured (SQLite has none). */
static rd_code need_users(cmd_ctx *ctx, const char *what, rd_err *err)
{
    if (store_caps_get(ctx->store)->authenticates)
        return RD_OK;
    return rd_fail(err, RD_EINVAL, "%s: this is an SQLite store, one trust domain: whoever may open its file may "
                   "do anything, and its permissions are the boundary (see docs/security.md); secure an etcd store",
                   what);
}

static rd_code secure_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    char password[300];
    json_t *meta = NULL;
    int made = 0;
    rd_code rc = need_users(ctx, "store secure", err);
    if (rc == RD_OK && store_is_secured(ctx))
        rc = rd_fail(err, RD_EEXISTS, "store secure: the store is secured already (use store credentials)");
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, KEY_META_STORE, &meta, err);
    if (rc == RD_OK)
        rc = password_file(ctx, "--root-password-file", cmd_opt(a, "root-password-file"), password, sizeof password,
                           &made, err);
    if (rc == RD_OK)
        rc = set_user(ctx, "root", password, err);
    if (rc == RD_OK)
        rc = auth_step(ctx, "role/add", json_pack("{s:s}", "name", "root"), err);
    if (rc == RD_OK)
        rc = auth_step(ctx, "user/grant", json_pack("{s:s, s:s}", "user", "root", "role", "root"), err);
    if (rc == RD_OK)
        rc = auth_step(ctx, "enable", json_object(), err);
    /* From here on the store wants a token: this command commits as root. */
    if (rc == RD_OK)
        rc = store_login(ctx->store, "root", password, err);
    explicit_bzero(password, sizeof password);
    if (rc == RD_OK && meta) {
        json_object_set_new(meta, "secured", json_true());
        rc = tx_put(ctx->tx, KEY_META_STORE, json_incref(meta), err);
    }
    if (rc == RD_OK)
        *result = json_pack("{s:s, s:b, s:s, s:s, s:b}", "name", "store", "secured", 1, "root_user", "root",
                            "root_password_file", cmd_opt(a, "root-password-file"), "password_file_created", made);
    json_decref(meta);
    return rc;
}

/* The etcd role of a non-admin account: its relay prefix and its marker. */
static rd_code tenant_role(cmd_ctx *ctx, const char *name, char *role, size_t cap, rd_err *err)
{
    char prefix[RD_KEY_MAX];
    snprintf(role, cap, ROLE_PREFIX "%s", name);
    rd_code rc = auth_step(ctx, "role/add", json_pack("{s:s}", "name", role), err);
    if (rc == RD_OK)
        rc = auth_step(ctx, "role/grant", json_pack("{s:s, s:s, s:s}", "name", role, "prefix",
                                                    tx_key(prefix, KEY_RELAY "%s/", name), "perm_type", "READWRITE"),
                       err);
    if (rc == RD_OK)
        rc = auth_step(ctx, "role/grant", json_pack("{s:s, s:s, s:s}", "name", role, "prefix",
                                                    tx_key(prefix, STORE_MARKERS_PREFIX "%s/", name), "perm_type",
                                                    "READWRITE"), err);
    return rc;
}

/* Grants role one permission: a prefix (ending in '/') or one exact key. */
static rd_code grant(cmd_ctx *ctx, const char *role, const char *type, const char *what, rd_err *err)
{
    size_t n = strlen(what);
    int prefix = n > 0 && what[n - 1] == '/';
    return auth_step(ctx, "role/grant", json_pack("{s:s, s:s, s:s}", "name", role, prefix ? "prefix" : "key", what,
                                                  "perm_type", type), err);
}

/* The etcd role of node NODE's agent: its own liveness key and vital
 * stats, its node's documents to read (agent_vitals.c reads the node's GPU
 * health), the GPU types an operator added (discovery maps their names),
 * its node's work view to read (never the jobs: they are every
 * tenant's; serve_work.c keeps the view), its own node's worker output to
 * write, its own watch registrations, its requests and its marker.  Made
 * afresh each time (the role deleted first), so that renewing an agent's
 * credentials also takes back whatever an older version granted beyond
 * these, the read of every job among them. */
static rd_code agent_role(cmd_ctx *ctx, const char *user, const char *node, char *role, size_t cap, rd_err *err)
{
    char k[16][RD_KEY_MAX];
    const struct {
        const char *type;
        const char *key;
    } perms[] = {
        { "READWRITE", tx_key(k[0], KEY_RELAY "%s/", user) },
        { "READWRITE", tx_key(k[1], STORE_MARKERS_PREFIX "%s/", user) },
        { "READWRITE", tx_key(k[2], KEY_AGENT_ALIVE "%s", node) },
        { "READWRITE", tx_key(k[3], KEY_METRICS "now/%s", node) },
        { "READWRITE", tx_key(k[4], KEY_METRICS "last/%s", node) },
        { "READWRITE", tx_key(k[5], KEY_METRICS "min/%s/", node) },
        { "READWRITE", tx_key(k[6], KEY_METRICS "hour/%s/", node) },
        { "READ", tx_key(k[7], KEY_NODES "%s", node) },
        { "READ", tx_key(k[8], KEY_AGENTS "%s", node) },
        { "READ", tx_key(k[9], KEY_WORK "%s/", node) },                      /* serve_work.c's view */
        { "WRITE", tx_key(k[10], KEY_LOGS "%s/", node) },                    /* job_logs.c's layout */
        { "READWRITE", tx_key(k[11], STORE_WATCHERS_PREFIX "%s/", user) },   /* store.c's, by identity */
        { "READ", KEY_GPUS },   /* the operator's GPU types, for discovery */
        { "READ", "" },   /* the key store_revision counts */
    };
    snprintf(role, cap, ROLE_PREFIX "%s", user);
    rd_code rc = auth_step(ctx, "role/delete", json_pack("{s:s}", "role", role), err);
    if (rc == RD_OK)
        rc = auth_step(ctx, "role/add", json_pack("{s:s}", "name", role), err);
    for (size_t i = 0; rc == RD_OK && i < sizeof perms / sizeof perms[0]; i++)
        rc = grant(ctx, role, perms[i].type, perms[i].key, err);
    return rc;
}

static rd_code credentials_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    char key[RD_KEY_MAX], password[300], role[NAMES_ROLE_MAX];
    const char *name = cmd_arg(a, 0);
    json_t *account = NULL;
    int made = 0;
    rd_code rc = need_users(ctx, "store credentials", err);
    if (rc == RD_OK && !store_is_secured(ctx))
        rc = rd_fail(err, RD_EINVAL, "store credentials: the store is not secured yet (run store secure first)");
    if (rc == RD_OK && (strcmp(name, "root") == 0 || strcmp(name, "platform") == 0))
        rc = rd_fail(err, RD_EINVAL, "store credentials: '%s' cannot log in (root's password is the one store secure "
                     "set; platform never acts)", name);
    const char *node = strncmp(name, "node:", 5) == 0 ? name + 5 : NULL;
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, node ? tx_key(key, KEY_NODES "%s", node) : keyspace_account_key(key, name), &account, err);
    if (rc == RD_OK && !account)
        rc = rd_fail(err, RD_ENOTFOUND, "store credentials: %s '%s' does not exist", node ? "node" : "account",
                     node ? node : name);
    int admin = rc == RD_OK && !node && access_role_of(account) == ACCESS_ADMIN;
    json_decref(account);
    if (rc == RD_OK)
        rc = password_file(ctx, "--password-file", cmd_opt(a, "password-file"), password, sizeof password, &made, err);
    if (rc == RD_OK)
        rc = set_user(ctx, name, password, err);
    explicit_bzero(password, sizeof password);
    if (rc == RD_OK)
        rc = node ? agent_role(ctx, name, node, role, sizeof role, err) : tenant_role(ctx, name, role, sizeof role, err);
    /* An admin reads and writes everything; anyone else only its relay. */
    if (rc == RD_OK)
        rc = auth_step(ctx, admin ? "user/grant" : "user/revoke",
                       admin ? json_pack("{s:s, s:s}", "user", name, "role", "root")
                             : json_pack("{s:s, s:s}", "name", name, "role", "root"), err);
    if (rc == RD_OK)
        rc = auth_step(ctx, "user/grant", json_pack("{s:s, s:s}", "user", name, "role", role), err);
    if (rc == RD_OK)
        rc = tx_put(ctx->tx, tx_key(key, KEY_CREDENTIALS "%s", name),
                    json_pack("{s:s, s:s, s:s}", "name", name, STORE_USER_FIELD, name, "access",
                              admin ? "direct" : node ? "agent" : "relay"), err);
    if (rc == RD_OK)
        *result = json_pack("{s:s, s:s, s:s, s:s, s:b}", "name", name, STORE_USER_FIELD, name, "access",
                            admin ? "direct" : node ? "agent" : "relay", "password_file", cmd_opt(a, "password-file"),
                            "password_file_created", made);
    return rc;
}

int secure_store_is_secured(cmd_ctx *ctx)
{
    return store_caps_get(ctx->store)->authenticates && store_is_secured(ctx);
}

rd_code secure_node_credentials(cmd_ctx *ctx, const char *node, const char *password, rd_err *err)
{
    char user[RD_KEY_MAX], role[NAMES_ROLE_MAX], key[RD_KEY_MAX];
    snprintf(user, sizeof user, "node:%s", node);
    rd_code rc = set_user(ctx, user, password, err);
    if (rc == RD_OK)
        rc = agent_role(ctx, user, node, role, sizeof role, err);
    if (rc == RD_OK)
        rc = auth_step(ctx, "user/revoke", json_pack("{s:s, s:s}", "name", user, "role", "root"), err);
    if (rc == RD_OK)
        rc = auth_step(ctx, "user/grant", json_pack("{s:s, s:s}", "user", user, "role", role), err);
    if (rc == RD_OK)
        rc = tx_put(ctx->tx, tx_key(key, KEY_CREDENTIALS "%s", user),
                    json_pack("{s:s, s:s, s:s, s:s}", "name", user, STORE_USER_FIELD, user, "access", "agent", "made_by",
                              "cloud sync"), err);
    return rc;
}

/* 1 when name has been given an etcd user by store credentials. */
static int has_credentials(cmd_ctx *ctx, const char *name)
{
    char key[RD_KEY_MAX];
    json_t *doc = NULL;
    int has = tx_get(ctx->tx, tx_key(key, KEY_CREDENTIALS "%s", name), &doc, NULL) == RD_OK && doc;
    json_decref(doc);
    return has;
}

rd_code secure_apply_role(cmd_ctx *ctx, const char *name, access_role role, rd_err *err)
{
    char key[RD_KEY_MAX];
    if (!store_is_secured(ctx) || !has_credentials(ctx, name))
        return RD_OK;
    int admin = role == ACCESS_ADMIN;
    rd_code rc = auth_step(ctx, admin ? "user/grant" : "user/revoke",
                           admin ? json_pack("{s:s, s:s}", "user", name, "role", "root")
                                 : json_pack("{s:s, s:s}", "name", name, "role", "root"), err);
    if (rc == RD_OK)
        rc = tx_put(ctx->tx, tx_key(key, KEY_CREDENTIALS "%s", name),
                    json_pack("{s:s, s:s, s:s}", "name", name, STORE_USER_FIELD, name, "access", admin ? "direct" : "relay"),
                    err);
    return rc;
}

rd_code secure_forget(cmd_ctx *ctx, const char *name, rd_err *err)
{
    char key[RD_KEY_MAX], role[NAMES_ROLE_MAX];
    if (!store_is_secured(ctx) || !has_credentials(ctx, name))
        return RD_OK;
    snprintf(role, sizeof role, ROLE_PREFIX "%s", name);
    rd_code rc = auth_step(ctx, "user/delete", json_pack("{s:s}", "name", name), err);
    if (rc == RD_OK)
        rc = auth_step(ctx, "role/delete", json_pack("{s:s}", "role", role), err);
    if (rc == RD_OK)
        rc = tx_delete(ctx->tx, tx_key(key, KEY_CREDENTIALS "%s", name), err);
    return rc;
}

static const cmd_flag secure_flags[] = {
    { "root-password-file", "PATH", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED,
      "the password of the store's root user: read from PATH, or made and written there (0600) when PATH does not exist" },
    { 0 }
};
static const cmd_flag credentials_flags[] = {
    { "password-file", "PATH", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED,
      "the password: read from PATH, or made and written there (0600) when PATH does not exist" },
    { 0 }
};
const cmd_def secure_cmd_table[] = {
    { .words = "store secure", .args = "", .flags = secure_flags, .options = CMD_MUTATES,
      .help = "turn etcd authentication on: from now on each account acts with its own etcd user (admin)",
      .run = secure_cmd, .access = CMD_ACCESS_ADMIN, .access_why = "may secure the store" },
    { .words = "store credentials", .args = "NAME", .flags = credentials_flags, .options = CMD_MUTATES,
      .help = "make or renew the etcd user of account NAME, or of node N's agent when NAME is node:N, with the permissions of its role (admin, "
              "secured etcd)", .run = credentials_cmd, .access = CMD_ACCESS_ADMIN,
      .access_why = "may issue store credentials" },
    { 0 }
};
