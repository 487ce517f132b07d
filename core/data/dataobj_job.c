/* dataobj_job.c - the data objects a job names (data.h): resolved at
 * `job submit` into the job's "data_refs", and looked for there before a
 * dataset, checkpoint, model or key is removed.
 *
 * Names in a spec are the creator's own: data.datasets, model.checkpoints,
 * model.location with model.source rigdeck, and environment.keys.  The
 * refs copy what staging fetches (source, type, the object's own key by
 * name, endpoint, datastore) so that an object removed or changed later
 * cannot change what a placed job reads (the datastores it mounts are
 * copied the same way); a key's value enters the job
 * only sealed (data_refs.secret_keys, opened by the node agent with the
 * master key), never in clear, and no result shows it.
 */
#include "data.h"

#include <string.h>

#include "doc.h"
#include "job_state.h"
#include "keyspace.h"

/* The object doc of kind k called name in owner's account, or the
 * refusal naming the spec's field path. */
static rd_code ref_get(cmd_ctx *ctx, const char *prefix, const char *kind, const char *owner, const char *name,
                       const char *path, json_t **doc, rd_err *err)
{
    char key[RD_KEY_MAX];
    rd_code rc = tx_get(ctx->tx, tx_key(key, "%s%s/%s", prefix, owner, name), doc, err);
    if (rc == RD_OK && !*doc)
        rc = rd_fail(err, RD_EINVAL, "%s: %s '%s' does not exist (account '%s' has none by that name)", path, kind,
                     name, owner);
    return rc;
}

/* What staging needs of a dataset, checkpoint or model. */
static json_t *ref_of(const json_t *doc)
{
    static const char *const fields[] = { "owner", "name", "source", "source_type", "key", "key_type", "endpoint",
                                          "datastore", "region", "path", "server_path", NULL };
    json_t *ref = json_object();
    for (const char *const *f = fields; ref && *f; f++)
        if (json_object_get(doc, *f))
            json_object_set(ref, *f, json_object_get(doc, *f));
    return ref;
}

static rd_code resolve_list(cmd_ctx *ctx, const json_t *names, const char *prefix, const char *kind,
                            const char *path, int keys, json_t *out, rd_err *err)
{
    const json_t *v;
    size_t i;
    json_array_foreach(names, i, v) {
        char item[96];
        json_t *doc = NULL;
        snprintf(item, sizeof item, "%s[%zu]", path, i);
        rd_code rc = ref_get(ctx, prefix, kind, ctx->actor, json_string_value(v), item, &doc, err);
        if (rc != RD_OK)
            return rc;
        json_array_append_new(out, keys ? json_pack("{s:O, s:O, s:O}", "owner", json_object_get(doc, "owner"), "name",
                                                    json_object_get(doc, "name"), "type", json_object_get(doc, "type"))
                                        : ref_of(doc));
        json_decref(doc);
    }
    return RD_OK;
}

/* Adds to refs["secret_keys"] the sealed value and type of key name (the
 * creator's), once: what the node's stager and the worker open with the
 * master key (agent_stage.c).  A "secret..." field never leaves the store
 * in a result (cmd.c) and the work view carries it to the node. */
static rd_code seal_key(cmd_ctx *ctx, json_t *refs, const char *name, rd_err *err)
{
    json_t *keys = json_object_get(refs, "secret_keys"), *doc = NULL;
    if (!name || !*name || json_object_get(keys, name))
        return RD_OK;
    char key[RD_KEY_MAX];
    rd_code rc = tx_get(ctx->tx, tx_key(key, "%s%s/%s", KEY_DATAKEYS, ctx->actor, name), &doc, err);
    if (rc == RD_OK && doc)
        json_object_set_new(keys, name, json_pack("{s:O, s:O}", "type", json_object_get(doc, "type"), "secret_value",
                                                  json_object_get(doc, "secret_value")));
    json_decref(doc);
    return rc;
}

/* The sealed values of every key the job's transfers use: those it
 * attaches, each object's own and the artifacts location's. */
static rd_code seal_keys(cmd_ctx *ctx, json_t *refs, rd_err *err)
{
    static const char *const lists[] = { "keys", "datasets", "checkpoints" };
    const json_t *r;
    size_t i;
    rd_code rc = json_object_set_new(refs, "secret_keys", json_object()) == 0 ? RD_OK : rd_fail(err, RD_ENOMEM, "out of memory");
    for (size_t l = 0; l < 3 && rc == RD_OK; l++)
        json_array_foreach(json_object_get(refs, lists[l]), i, r)
            if (rc == RD_OK)
                rc = seal_key(ctx, refs, json_string_value(json_object_get(r, l == 0 ? "name" : "key")), err);
    if (rc == RD_OK)
        rc = seal_key(ctx, refs, json_string_value(json_object_get(json_object_get(refs, "model"), "key")), err);
    /* the artifacts location's key (type rigdeck): the agent uploads with it */
    if (rc == RD_OK)
        rc = seal_key(ctx, refs, json_string_value(json_object_get(json_object_get(refs, "output"), "key")), err);
    return rc;
}

/* data.output of type rigdeck: the creator's `--artifacts` location, copied
 * into refs["output"] now, so that what the agent uploads to and what
 * `job report ... --register` records cannot drift apart later (agent_upload.c,
 * job_output.c).  A creator without one is refused at submit, not after the
 * job has run. */
static rd_code resolve_output(cmd_ctx *ctx, const json_t *output, json_t *refs, rd_err *err)
{
    char key[RD_KEY_MAX];
    json_t *acct = NULL, *art;
    if (strcmp(doc_str(output, "type"), "rigdeck") != 0)
        return RD_OK;
    rd_code rc = tx_get(ctx->tx, tx_key(key, KEY_ACCOUNTS "%s", ctx->actor), &acct, err);
    art = json_object_get(acct, "artifacts");
    if (rc == RD_OK && !json_is_object(art))
        rc = rd_fail(err, RD_EINVAL, "data.output: type rigdeck stores the results under the account's artifacts "
                     "location, and account '%s' has none (account set %s --artifacts URL)", ctx->actor, ctx->actor);
    if (rc == RD_OK) {
        json_t *ref = ref_of(art);
        json_object_set_new(ref, "owner", json_string(ctx->actor));
        json_object_set_new(ref, "kind", json_string(doc_str(output, "path")));
        json_object_set_new(refs, "output", ref);
    }
    json_decref(acct);
    return rc;
}

/* Adds to refs["datastores"] what the node mounts of datastore name (its
 * type, address, root and, for SMB, the user and the sealed password: a
 * "secret..." field, never in a result) unless it is there already.  A
 * copy, as for the objects: a datastore changed or removed later cannot
 * change what a placed job mounts.  where names the spec's field. */
static rd_code add_datastore(cmd_ctx *ctx, json_t *refs, const char *name, const char *where, rd_err *err)
{
    static const char *const fields[] = { "name", "type", "address", "root", "username", "secret_password", NULL };
    json_t *all = json_object_get(refs, "datastores"), *doc = NULL;
    char key[RD_KEY_MAX];
    if (!name || !*name || json_object_get(all, name))
        return RD_OK;
    rd_code rc = tx_get(ctx->tx, tx_key(key, KEY_DATASTORES "%s", name), &doc, err);
    if (rc == RD_OK && !doc)
        rc = rd_fail(err, RD_EINVAL, "%s: datastore '%s' does not exist", where, name);
    if (rc == RD_OK) {
        json_t *copy = json_object();
        for (const char *const *f = fields; copy && *f; f++)
            if (json_object_get(doc, *f))
                json_object_set(copy, *f, json_object_get(doc, *f));
        json_object_set_new(all, name, copy);
    }
    json_decref(doc);
    return rc;
}

/* The datastores the job mounts (agent_mount.c): regional.datastore (its
 * data.input and data.output of type regional) and those datastore:NAME/
 * PATH objects read from. */
static rd_code resolve_datastores(cmd_ctx *ctx, const json_t *job, json_t *refs, rd_err *err)
{
    static const char *const lists[] = { "datasets", "checkpoints" };
    const char *regional = json_string_value(json_object_get(json_object_get(job, "regional"), "datastore"));
    const json_t *r;
    size_t i;
    rd_code rc = json_object_set_new(refs, "datastores", json_object()) == 0 ? RD_OK
                                                                             : rd_fail(err, RD_ENOMEM, "out of memory");
    if (rc == RD_OK && regional) {
        json_object_set_new(refs, "regional_datastore", json_string(regional));
        rc = add_datastore(ctx, refs, regional, "regional.datastore", err);
    }
    for (size_t l = 0; l < 2 && rc == RD_OK; l++)
        json_array_foreach(json_object_get(refs, lists[l]), i, r)
            if (rc == RD_OK)
                rc = add_datastore(ctx, refs, json_string_value(json_object_get(r, "datastore")), doc_str(r, "source"),
                                   err);
    if (rc == RD_OK)
        rc = add_datastore(ctx, refs, json_string_value(json_object_get(json_object_get(refs, "model"), "datastore")),
                           "model.location", err);
    return rc;
}

rd_code dataobj_job_resolve(cmd_ctx *ctx, json_t *job, rd_err *err)
{
    const json_t *data = json_object_get(job, "data"), *model = json_object_get(job, "model");
    const json_t *env = json_object_get(job, "environment");
    json_t *refs = json_pack("{s:[], s:[], s:n, s:[]}", "datasets", "checkpoints", "model", "keys");
    rd_code rc = refs ? RD_OK : rd_fail(err, RD_ENOMEM, "out of memory");
    if (rc == RD_OK)
        rc = resolve_list(ctx, json_object_get(data, "datasets"), KEY_DATASETS, "dataset", "data.datasets", 0,
                          json_object_get(refs, "datasets"), err);
    if (rc == RD_OK)
        rc = resolve_list(ctx, json_object_get(model, "checkpoints"), KEY_CHECKPOINTS, "checkpoint",
                          "model.checkpoints", 0, json_object_get(refs, "checkpoints"), err);
    if (rc == RD_OK)
        rc = resolve_list(ctx, json_object_get(env, "keys"), KEY_DATAKEYS, "key", "environment.keys", 1,
                          json_object_get(refs, "keys"), err);
    const char *source = json_string_value(json_object_get(model, "source"));
    if (rc == RD_OK && source && strcmp(source, "rigdeck") == 0) {
        json_t *doc = NULL;
        rc = ref_get(ctx, KEY_MODELS, "model", ctx->actor, json_string_value(json_object_get(model, "location")),
                     "model.location", &doc, err);
        if (rc == RD_OK)
            json_object_set_new(refs, "model", ref_of(doc));
        json_decref(doc);
    }
    if (rc == RD_OK)
        rc = resolve_output(ctx, json_object_get(data, "output"), refs, err);
    if (rc == RD_OK)
        rc = seal_keys(ctx, refs, err);
    if (rc == RD_OK)
        rc = resolve_datastores(ctx, job, refs, err);
    if (rc == RD_OK)
        json_object_set(job, "data_refs", refs);
    json_decref(refs);
    return rc;
}

/* 1 when ref (a data_refs entry) is the object owner/name, or (a key)
 * fetches with it. */
static int refers(const json_t *ref, const char *owner, const char *name, int key)
{
    const char *o = json_string_value(json_object_get(ref, "owner"));
    if (!o || strcmp(o, owner) != 0)
        return 0;
    const char *n = json_string_value(json_object_get(ref, key ? "key" : "name"));
    return n && strcmp(n, name) == 0;
}

static int job_refers(const json_t *job, dataobj_kind k, const char *owner, const char *name)
{
    static const char *const lists[] = { "datasets", "checkpoints" };
    const json_t *refs = json_object_get(job, "data_refs"), *r;
    size_t i;
    if (k == DATAOBJ_DATASET || k == DATAOBJ_CHECKPOINT) {
        json_array_foreach(json_object_get(refs, lists[k == DATAOBJ_CHECKPOINT]), i, r)
            if (refers(r, owner, name, 0))
                return 1;
        return 0;
    }
    if (k == DATAOBJ_MODEL)
        return json_is_object(json_object_get(refs, "model")) && refers(json_object_get(refs, "model"), owner, name, 0);
    /* a key: attached, or the key of an object the job fetches */
    json_array_foreach(json_object_get(refs, "keys"), i, r)
        if (refers(r, owner, name, 0))
            return 1;
    for (size_t l = 0; l < 2; l++)
        json_array_foreach(json_object_get(refs, lists[l]), i, r)
            if (refers(r, owner, name, 1))
                return 1;
    return json_is_object(json_object_get(refs, "model")) && refers(json_object_get(refs, "model"), owner, name, 1);
}

/* (dataobj_kind_name's words: dataobj.c calls this file, not the reverse) */
static const char *const kind_words[DATAOBJ_NKINDS] = { "dataset", "checkpoint", "model", "key" };

rd_code dataobj_job_check_unused(cmd_ctx *ctx, dataobj_kind k, const json_t *doc, const char *what, rd_err *err)
{
    const char *owner = json_string_value(json_object_get(doc, "owner"));
    const char *name = json_string_value(json_object_get(doc, "name"));
    json_t *jobs = NULL, *j;
    size_t i;
    rd_code rc = tx_list(ctx->tx, KEY_JOBS, &jobs, err);
    json_array_foreach(jobs, i, j)
        if (rc == RD_OK && !job_state_ended(doc_str(j, "state")) &&
            job_refers(j, k, owner, name))
            rc = rd_fail(err, RD_EINVAL, "%s: job %s (%s) refers to %s '%s'; it may be removed once the job ends",
                         what, json_string_value(json_object_get(j, "id")),
                         json_string_value(json_object_get(j, "state")), kind_words[k], name);
    json_decref(jobs);
    return rc;
}
