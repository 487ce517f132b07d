/* datakey.c - the `key` commands: third-party keys of an account (aws,
 * gcp, azure, wasabi, git, huggingface, wandb, env), which jobs attach with
 * environment.keys and datasets, checkpoints and models fetch with.
 *
 * The file is read through cmd_file_read (a relayed command reads only the
 * text its sender sent), checked for its type (datakey_file.c), sealed with
 * the master key and stored as "secret_value": the executor drops every
 * "secret..." field from results and audit records, so list, show, JSON,
 * CSV and the audit trail carry name, type, owner and created_at only.
 */
#include "data.h"

#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "keyspace.h"
#include "names.h"

static rd_code key_add_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *name = cmd_arg(a, 0), *type = cmd_opt(a, "type"), *file = cmd_opt(a, "file");
    char key[RD_KEY_MAX], ts[RDTIME_BUFLEN], field[600];
    char *text = NULL, *sealed = NULL;
    size_t len = 0;
    json_t *doc = NULL;
    rd_code rc = names_check("key name", name, err);
    if (rc == RD_OK && !datakey_type_known(type))
        rc = rd_fail(err, RD_EINVAL, "--type must be one of aws, gcp, azure, wasabi, git, huggingface, wandb, env, "
                     "got '%s'", type);
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, tx_key(key, KEY_DATAKEYS "%s/%s", ctx->actor, name), &doc, err);
    if (rc == RD_OK && doc)
        rc = rd_fail(err, RD_EEXISTS, "key '%s' of account '%s' exists already", name, ctx->actor);
    json_decref(doc);
    doc = NULL;
    if (rc == RD_OK)
        rc = cmd_file_read(ctx, "--file", file, DATAKEY_FILE_MAX, &text, &len, err);
    snprintf(field, sizeof field, "--file %.500s", file);
    if (rc == RD_OK)
        rc = datakey_file_check(type, field, text, len, err);
    if (rc == RD_OK)
        rc = fleet_seal(ctx, text, len, &sealed, err);
    if (text)
        memset(text, 0, len);
    free(text);
    if (rc == RD_OK) {
        doc = json_pack("{s:s, s:s, s:s, s:s, s:s}", "name", name, "owner", ctx->actor, "type", type, "created_at",
                        rdtime_format(ctx->now, ts), "secret_value", sealed);
        *result = json_incref(doc);
        rc = tx_put(ctx->tx, key, doc, err);   /* takes doc */
    }
    free(sealed);
    return rc;
}

static rd_code key_list_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    return dataobj_list_visible(ctx, DATAOBJ_KEY, cmd_opt(a, "owner"), result, err);
}

static rd_code key_show_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    return dataobj_get_visible(ctx, DATAOBJ_KEY, cmd_arg(a, 0), result, err);
}

static rd_code key_remove_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *doc = NULL;
    rd_code rc = dataobj_get_visible(ctx, DATAOBJ_KEY, cmd_arg(a, 0), &doc, err);
    if (rc == RD_OK)
        rc = dataobj_remove(ctx, DATAOBJ_KEY, doc, err);
    if (rc == RD_OK)
        *result = json_incref(doc);
    json_decref(doc);
    return rc;
}

static const cmd_flag key_add_flags[] = {
    { "type", "aws|gcp|azure|wasabi|git|huggingface|wandb|env", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED,
      "what the key is for" },
    { "file", "FILE", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "the key's file (sealed at rest, never shown)" },
    { 0 }
};
static const cmd_flag key_list_flags[] = {
    { "owner", "ACCOUNT", CMD_FLAG_VALUE, "only this account's (staff see every account's)" },
    { 0 }
};
const cmd_def datakey_cmd_table[] = {
    { .words = "key add", .args = "NAME", .flags = key_add_flags, .options = CMD_MUTATES,
      .help = "add a third-party key for jobs and data sources", .run = key_add_cmd },
    { .words = "key list", .args = "", .flags = key_list_flags,
      .help = "list the keys you may see (never their values)", .columns = "owner,name,type,created_at",
      .run = key_list_cmd },
    { .words = "key show", .args = "NAME",
      .help = "show a key's name, type and owner (NAME or OWNER/NAME; never its value)", .run = key_show_cmd },
    { .words = "key remove", .args = "NAME", .options = CMD_MUTATES,
      .help = "remove a key no dataset, checkpoint, model or live job uses", .run = key_remove_cmd },
    { 0 }
};
