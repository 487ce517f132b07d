/* job_env.c - a job's environment variable values, sealed at rest.
 *
 * All values are sealed together as one JSON object rather than one sealed
 * text per value: a name cannot be given another name's value by someone
 * who can write the store (GCM authenticates the whole object), the store
 * learns only the total length of the values rather than each one's, a
 * worker start opens one text and fails for one reason, and the document
 * carries one nonce and tag instead of up to 256.  The names stay visible
 * in environment.env (each value JOB_ENV_REDACTED) so `job show` and the
 * console still say which variables a job sets.  A device configuration's
 * "env" is sealed the same way into its "secret_env" (the *_in forms take
 * the object holding "env").
 *
 * Old stores: documents written before this change have no secret_env and
 * plain values in environment.env.  The agent runs them with those values
 * and output redacts them; nothing is migrated, since rewriting every job
 * document would need the master key wherever the store is upgraded.
 */
#include "job_env.h"

#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "fleet.h"
#include "secret.h"

rd_code job_env_seal(cmd_ctx *ctx, json_t *job, rd_err *err)
{
    return job_env_seal_in(ctx, json_object_get(job, "environment"), "environment.env", err);
}

rd_code job_env_seal_in(cmd_ctx *ctx, json_t *holder, const char *field, rd_err *err)
{
    json_t *env = json_object_get(holder, "env");
    char *plain, *sealed = NULL;
    size_t len;
    rd_code rc;

    if (json_object_size(env) == 0)
        return RD_OK;   /* nothing to hide: no key is needed, none is made */
    if (!(plain = json_dumps(env, JSON_COMPACT | JSON_SORT_KEYS)))
        return rd_fail(err, RD_ENOMEM, "out of memory");
    len = strlen(plain);
    if (len > SECRET_MAX_PLAIN)
        rc = rd_fail(err, RD_EINVAL, "%s: the variables take %zu bytes; at most %d can be sealed", field, len,
                     SECRET_MAX_PLAIN);
    else
        rc = fleet_seal(ctx, plain, len, &sealed, err);
    explicit_bzero(plain, len);
    free(plain);
    if (rc != RD_OK)
        return rc;
    if (json_object_set_new(holder, "secret_env", json_string(sealed)) != 0) {
        free(sealed);
        return rd_fail(err, RD_ENOMEM, "out of memory");
    }
    free(sealed);
    job_env_redact_in(holder);
    return RD_OK;
}

void job_env_redact(json_t *job)
{
    job_env_redact_in(json_object_get(job, "environment"));
}

void job_env_redact_in(json_t *holder)
{
    json_t *env = json_object_get(holder, "env"), *v;
    const char *k;
    /* replacing the value of a key keeps the iteration valid */
    json_object_foreach(env, k, v)
        json_object_set_new(env, k, json_string(JOB_ENV_REDACTED));
}

/* The master key file at path (the default when NULL); never made here:
 * a node that lacks it must get the admin hosts' key, not a new one. */
static rd_code load_key(const char *path, unsigned char key[SECRET_KEY_LEN], rd_err *err)
{
    char buf[4096];
    rd_code rc = secret_master_key_path(path, buf, sizeof buf, err);
    return rc == RD_OK ? secret_master_key_load(buf, 0, key, err) : rc;
}

/* The opened object must be what job_env_seal sealed: names to strings. */
static rd_code parse_vars(const char *plain, size_t len, json_t **vars, rd_err *err)
{
    json_t *obj = json_loadb(plain, len, 0, NULL), *v;
    const char *k;
    if (!json_is_object(obj)) {
        json_decref(obj);
        return rd_fail(err, RD_ECORRUPT, "the sealed variables are not a JSON object");
    }
    json_object_foreach(obj, k, v)
        if (!json_is_string(v)) {
            rd_fail(err, RD_ECORRUPT, "the sealed variable %s is not a string", k);   /* k is obj's */
            json_decref(obj);
            return RD_ECORRUPT;
        }
    *vars = obj;
    return RD_OK;
}

rd_code job_env_open(const char *master_key_path, const json_t *job, json_t **vars, const char **reason,
                     rd_err *err)
{
    char what[200];
    snprintf(what, sizeof what, "job %s", doc_str(job, "id"));
    return job_env_open_in(master_key_path, json_object_get(job, "environment"), what, vars, reason, err);
}

rd_code job_env_open_in(const char *master_key_path, const json_t *holder, const char *what, json_t **vars,
                        const char **reason, rd_err *err)
{
    const json_t *sealed = json_object_get(holder, "secret_env");
    unsigned char key[SECRET_KEY_LEN];
    char *plain = NULL;
    size_t len = 0;
    rd_err why = { 0 };
    rd_code rc;

    *vars = NULL;
    *reason = NULL;
    if (!sealed) {
        /* written before values were sealed: they are plain, use them */
        json_t *env = json_object_get(holder, "env");
        *vars = json_is_object(env) ? json_deep_copy(env) : json_object();
        return *vars ? RD_OK : rd_fail(err, RD_ENOMEM, "out of memory");
    }
    if (!json_is_string(sealed)) {
        *reason = "env_damaged";
        return rd_fail(err, RD_ECORRUPT, "%s: secret_env is not a sealed text", what);
    }
    if ((rc = load_key(master_key_path, key, &why)) != RD_OK) {
        *reason = "env_no_master_key";
        return rd_fail(err, rc, "%s: its environment variables are sealed and this host has no usable master "
                                "key: %s", what, why.msg);
    }
    rc = secret_open(key, json_string_value(sealed), &plain, &len, &why);
    explicit_bzero(key, sizeof key);
    if (rc == RD_OK) {
        rc = parse_vars(plain, len, vars, &why);
        explicit_bzero(plain, len);
        free(plain);
    }
    if (rc != RD_OK) {
        /* secret_open: a different key is EINVAL, damage is ECORRUPT */
        *reason = rc == RD_EINVAL ? "env_wrong_master_key" : rc == RD_ENOMEM ? "start_failed" : "env_damaged";
        return rd_fail(err, rc, "%s: cannot open its sealed environment variables: %s", what, why.msg);
    }
    return RD_OK;
}
