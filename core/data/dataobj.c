/* dataobj.c - datasets, checkpoints and models: one implementation for the
 * three kinds (the table below), and what keys share with them: lookup by
 * NAME or OWNER/NAME, visibility, listing and removal (data.h).
 *
 * Each kind differs only in its name, its store prefix and its help; the
 * `dataset`, `checkpoint` and `model` commands run the same handlers,
 * which read the kind from the command's first word.
 */
#include "data.h"

#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "keyspace.h"
#include "names.h"

static const struct {
    const char *name;
    const char *prefix;
} kinds[DATAOBJ_NKINDS] = {
    [DATAOBJ_DATASET] = { "dataset", KEY_DATASETS },
    [DATAOBJ_CHECKPOINT] = { "checkpoint", KEY_CHECKPOINTS },
    [DATAOBJ_MODEL] = { "model", KEY_MODELS },
    [DATAOBJ_KEY] = { "key", KEY_DATAKEYS },
};

const char *dataobj_kind_name(dataobj_kind k)
{
    return kinds[k].name;
}

const char *dataobj_prefix(dataobj_kind k)
{
    return kinds[k].prefix;
}

/* The kind a command of these families acts on: its first word. */
static dataobj_kind kind_of(const cmd_args *a)
{
    const char *words = cmd_args_def(a)->words;
    for (int k = 0; k < DATAOBJ_NKINDS; k++)
        if (strncmp(words, kinds[k].name, strlen(kinds[k].name)) == 0 && words[strlen(kinds[k].name)] == ' ')
            return (dataobj_kind)k;
    return DATAOBJ_DATASET;
}

rd_code dataobj_check_name(dataobj_kind k, const char *field, const char *name, rd_err *err)
{
    if (k == DATAOBJ_KEY)
        return names_check(field, name, err);
    size_t n = strlen(name);
    int control = 0;
    for (const char *p = name; *p; p++)
        control |= (unsigned char)*p < ' ' || *p == 0x7f;
    if (n == 0 || n > DATAOBJ_NAME_MAX || control || strpbrk(name, "/\\") || strcmp(name, ".") == 0 ||
        strcmp(name, "..") == 0 || name[0] == ' ' || name[n - 1] == ' ')
        return rd_fail(err, RD_EINVAL, "%s must be 1-%d characters without '/', '\\' or control characters, not \".\" "
                       "or \"..\", without spaces at either end (it becomes a directory name), got '%.*s'", field,
                       DATAOBJ_NAME_MAX, DATAOBJ_NAME_MAX, name);
    return RD_OK;
}

/* "NAME" is the actor's own; "OWNER/NAME" anyone's (a key name has no '/',
 * and neither has a dataset's). */
static rd_code split_ref(cmd_ctx *ctx, dataobj_kind k, const char *ref, char *owner, size_t olen, const char **name,
                         rd_err *err)
{
    char field[32];
    const char *slash = strchr(ref, '/');
    snprintf(field, sizeof field, "%s name", kinds[k].name);
    if (!slash) {
        snprintf(owner, olen, "%s", ctx->actor ? ctx->actor : "");
        *name = ref;
    } else {
        if ((size_t)(slash - ref) >= olen)
            return rd_fail(err, RD_EINVAL, "account name must be 1-63 characters, got '%.*s'", 80, ref);
        memcpy(owner, ref, (size_t)(slash - ref));
        owner[slash - ref] = '\0';
        *name = slash + 1;
        rd_code rc = names_check("account name", owner, err);
        if (rc != RD_OK)
            return rc;
    }
    return dataobj_check_name(k, field, *name, err);
}

rd_code dataobj_get_visible(cmd_ctx *ctx, dataobj_kind k, const char *ref, json_t **doc, rd_err *err)
{
    char owner[NAMES_MAX + 2], key[RD_KEY_MAX];
    const char *name = "";
    *doc = NULL;
    rd_code rc = split_ref(ctx, k, ref, owner, sizeof owner, &name, err);
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, tx_key(key, "%s%s/%s", kinds[k].prefix, owner, name), doc, err);
    if (rc == RD_OK && (!*doc || !access_actor_sees_fleet_of(ctx, owner))) {
        json_decref(*doc);
        *doc = NULL;
        rc = rd_fail(err, RD_ENOTFOUND, "%s '%s' does not exist", kinds[k].name, ref);
    }
    return rc;
}

rd_code dataobj_list_visible(cmd_ctx *ctx, dataobj_kind k, const char *owner, json_t **result, rd_err *err)
{
    json_t *items = NULL;
    rd_code rc = tx_list(ctx->tx, kinds[k].prefix, &items, err);
    if (rc != RD_OK)
        return rc;
    int staff = access_actor_is_staff(ctx);
    for (size_t i = json_array_size(items); i-- > 0;) {
        const char *o = json_string_value(json_object_get(json_array_get(items, i), "owner"));
        if (!o || (!staff && strcmp(o, ctx->actor) != 0) || (owner && strcmp(o, owner) != 0))
            json_array_remove(items, i);
    }
    *result = json_pack("{s:o}", "items", items);
    return *result ? RD_OK : rd_fail(err, RD_ENOMEM, "out of memory");
}

/* A key's refusals name the datasets, checkpoints and models using it. */
static rd_code key_check_unused(cmd_ctx *ctx, const json_t *keydoc, rd_err *err)
{
    const char *owner = json_string_value(json_object_get(keydoc, "owner"));
    const char *name = json_string_value(json_object_get(keydoc, "name"));
    char prefix[RD_KEY_MAX];
    rd_code rc = RD_OK;
    for (int k = 0; rc == RD_OK && k < DATAOBJ_KEY; k++) {
        json_t *items = NULL, *o;
        size_t i;
        rc = tx_list(ctx->tx, tx_key(prefix, "%s%s/", kinds[k].prefix, owner), &items, err);
        json_array_foreach(items, i, o)
            if (rc == RD_OK && json_is_string(json_object_get(o, "key")) &&
                strcmp(json_string_value(json_object_get(o, "key")), name) == 0)
                rc = rd_fail(err, RD_EINVAL, "key remove: %s '%s' fetches with key '%s'; remove it first",
                             kinds[k].name, json_string_value(json_object_get(o, "name")), name);
        json_decref(items);
    }
    json_t *acct = NULL;
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, tx_key(prefix, KEY_ACCOUNTS "%s", owner), &acct, err);
    const char *art = json_string_value(json_object_get(json_object_get(acct, "artifacts"), "key"));
    if (rc == RD_OK && art && strcmp(art, name) == 0)
        rc = rd_fail(err, RD_EINVAL, "key remove: account '%s' stores its artifacts with key '%s' (account set "
                     "--artifacts)", owner, name);
    json_decref(acct);
    return rc;
}

rd_code dataobj_remove(cmd_ctx *ctx, dataobj_kind k, json_t *doc, rd_err *err)
{
    char key[RD_KEY_MAX], what[32];
    const char *owner = json_string_value(json_object_get(doc, "owner"));
    const char *name = json_string_value(json_object_get(doc, "name"));
    rd_code rc = RD_OK;
    snprintf(what, sizeof what, "%s remove", kinds[k].name);
    if (strcmp(owner, ctx->actor) != 0 && access_actor_role(ctx) != ACCESS_ADMIN)
        rc = rd_fail(err, RD_EPERM, "%s: only the owner '%s' or an admin may remove %s '%s'", what, owner,
                     kinds[k].name, name);
    if (rc == RD_OK && k == DATAOBJ_KEY)
        rc = key_check_unused(ctx, doc, err);
    if (rc == RD_OK)
        rc = dataobj_job_check_unused(ctx, k, doc, what, err);
    if (rc == RD_OK)
        rc = tx_delete(ctx->tx, tx_key(key, "%s%s/%s", kinds[k].prefix, owner, name), err);
    return rc;
}

static rd_code obj_add_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    static const dataobj_fields fields = { "--source", "--key", "--endpoint" };
    dataobj_kind k = kind_of(a);
    const char *name = cmd_arg(a, 0);
    char key[RD_KEY_MAX], field[32], ts[RDTIME_BUFLEN];
    json_t *doc = NULL;
    snprintf(field, sizeof field, "%s name", kinds[k].name);
    rd_code rc = dataobj_check_name(k, field, name, err);
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, tx_key(key, "%s%s/%s", kinds[k].prefix, ctx->actor, name), &doc, err);
    if (rc == RD_OK && doc)
        rc = rd_fail(err, RD_EEXISTS, "%s '%s' of account '%s' exists already", kinds[k].name, name, ctx->actor);
    json_decref(doc);
    doc = json_pack("{s:s, s:s, s:s}", "name", name, "owner", ctx->actor, "kind", kinds[k].name);
    if (rc == RD_OK)
        rc = dataobj_location(ctx, &fields, ctx->actor, cmd_opt(a, "source"), cmd_opt(a, "key"),
                              cmd_opt(a, "endpoint"), 0, doc, err);
    if (rc == RD_OK) {
        json_object_set_new(doc, "created_at", json_string(rdtime_format(ctx->now, ts)));
        *result = json_incref(doc);
        rc = tx_put(ctx->tx, key, doc, err);
        doc = NULL;
    }
    json_decref(doc);
    return rc;
}

static rd_code obj_list_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    return dataobj_list_visible(ctx, kind_of(a), cmd_opt(a, "owner"), result, err);
}

static rd_code obj_show_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    return dataobj_get_visible(ctx, kind_of(a), cmd_arg(a, 0), result, err);
}

static rd_code obj_remove_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    dataobj_kind k = kind_of(a);
    json_t *doc = NULL;
    rd_code rc = dataobj_get_visible(ctx, k, cmd_arg(a, 0), &doc, err);
    if (rc == RD_OK)
        rc = dataobj_remove(ctx, k, doc, err);
    if (rc == RD_OK)
        *result = json_incref(doc);
    json_decref(doc);
    return rc;
}

static const cmd_flag obj_add_flags[] = {
    { "source", "URL", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED,
      "s3://, gs://, https://, http://, ftp://, ftps://, a git clone URL or datastore:NAME/PATH" },
    { "key", "K", CMD_FLAG_VALUE, "one of your keys that fits the source (s3: aws|wasabi, gs: gcp, ...)" },
    { "endpoint", "URL", CMD_FLAG_VALUE, "s3:// only: the service URL of an S3-compatible store (wasabi: required)" },
    { 0 }
};
const cmd_flag dataobj_list_flags[] = {
    { "owner", "ACCOUNT", CMD_FLAG_VALUE, "only this account's (staff see every account's)" },
    { 0 }
};

/* `help dataset add` (and checkpoint, model): the sources and the keys
 * that fit them, datasrc.c's table in words. */
static const char *const obj_add_notes[] = {
    "SOURCE\tKEY TYPES THAT FIT (--key)",
    "s3://BUCKET/PREFIX\taws, wasabi (wasabi: --endpoint required)",
    "gs://BUCKET/PREFIX\tgcp",
    "https://...\tazure, huggingface",
    "https://...git, http://...git\thuggingface",
    "ssh://..., user@host:path\tgit",
    "http://, ftp://, ftps://\tnone (public servers)",
    "datastore:NAME/PATH\tnone (a datastore you see; PATH confined under its root)",
    "",
    "--key names one of your own keys; a user name or password in the URL is refused (an ssh:// user is fine).",
    "--endpoint, for s3:// only, is the http(s) service URL of an S3-compatible store.",
    "",
    "  dataset add 'PASCAL VOC' --source s3://voc-bucket/voc2012/ --key aws",
    "  model add code --source git@github.com:org/repo.git --key deploy",
    NULL
};
const cmd_note dataobj_cmd_notes[] = {
    { "dataset add", obj_add_notes },
    { "checkpoint add", obj_add_notes },
    { "model add", obj_add_notes },
    { 0 }
};

#define OBJ_COLUMNS "owner,name,source_type,source,key,created_at"
const cmd_def dataobj_cmd_table[] = {
    { .words = "dataset add", .args = "NAME", .flags = obj_add_flags, .options = CMD_MUTATES,
      .help = "add a dataset jobs attach under /opt/ml/input", .run = obj_add_cmd },
    { .words = "dataset list", .args = "", .flags = dataobj_list_flags, .help = "list the datasets you may see",
      .columns = OBJ_COLUMNS, .run = obj_list_cmd },
    { .words = "dataset show", .args = "NAME", .help = "show a dataset (NAME or OWNER/NAME)", .run = obj_show_cmd },
    { .words = "dataset remove", .args = "NAME", .options = CMD_MUTATES,
      .help = "remove a dataset no waiting or running job uses", .run = obj_remove_cmd },
    { .words = "checkpoint add", .args = "NAME", .flags = obj_add_flags, .options = CMD_MUTATES,
      .help = "add a checkpoint jobs attach under /opt/ml/checkpoint", .run = obj_add_cmd },
    { .words = "checkpoint list", .args = "", .flags = dataobj_list_flags, .help = "list the checkpoints you may see",
      .columns = OBJ_COLUMNS, .run = obj_list_cmd },
    { .words = "checkpoint show", .args = "NAME", .help = "show a checkpoint (NAME or OWNER/NAME)",
      .run = obj_show_cmd },
    { .words = "checkpoint remove", .args = "NAME", .options = CMD_MUTATES,
      .help = "remove a checkpoint no waiting or running job uses", .run = obj_remove_cmd },
    { .words = "model add", .args = "NAME", .flags = obj_add_flags, .options = CMD_MUTATES,
      .help = "add model code jobs load under /opt/ml/models", .run = obj_add_cmd },
    { .words = "model list", .args = "", .flags = dataobj_list_flags, .help = "list the models you may see",
      .columns = OBJ_COLUMNS, .run = obj_list_cmd },
    { .words = "model show", .args = "NAME", .help = "show a model (NAME or OWNER/NAME)", .run = obj_show_cmd },
    { .words = "model remove", .args = "NAME", .options = CMD_MUTATES,
      .help = "remove a model no waiting or running job uses", .run = obj_remove_cmd },
    { 0 }
};
