/* data.h - an account's data objects (docs/operations.md, "Data"):
 * third-party keys (datakey.c, their files checked by datakey_file.c),
 * datasets, checkpoints and models (dataobj.c, one implementation for the
 * three), their source URLs (model/datasrc.h) and locations
 * (fleet/dataloc.h), and what `job submit` and the removal of an object
 * ask of them (dataobj_job.c).
 *
 * Every object belongs to the account that created it and is stored as
 * <prefix><owner>/<name>: names are unique per account.  Its owner, staff
 * (admin, operator) and nobody else sees it; a key's value is sealed with
 * the master key ("secret_value") and never leaves the store in clear.
 * The documents carry what staging needs: the source URL and its type,
 * the key's name and type, the endpoint, and for a datastore source the
 * datastore, its region and the path confined under its root.
 */
#ifndef RD_DATA_H
#define RD_DATA_H

#include <jansson.h>
#include <stddef.h>

#include "cmd.h"
#include "dataloc.h"
#include "datasrc.h"
#include "err.h"

#define DATAKEY_FILE_MAX (64 * 1024)
#define DATAOBJ_NAME_MAX 128   /* as JOBSPEC_NAME_MAX: the names a job spec lists */

/* ---- keys (datakey_file.c) ------------------------------------------------ */

/* The key types, in the order help lists them; NULL-terminated. */
extern const char *const datakey_types[];

/* 1 when type is one of datakey_types. */
int datakey_type_known(const char *type);

/* Checks the text of a key file of type type (execution.md §5): aws and
 * wasabi AWS_ACCESS_KEY_ID= and AWS_SECRET_ACCESS_KEY= lines; gcp a
 * service-account JSON key; azure a connection string with AccountName=
 * and AccountKey=, or SharedAccessSignature=; git an SSH private key (PEM
 * or OpenSSH, not encrypted); huggingface and wandb one token line; env
 * K=V lines with valid variable names.  A refusal names field, the line
 * and the rule, never the file's content. */
rd_code datakey_file_check(const char *type, const char *field, const char *text, size_t len, rd_err *err);

/* ---- objects (dataobj.c, datakey.c) --------------------------------------- */

/* The data object kinds; DATAOBJ_KEY last. */
typedef enum { DATAOBJ_DATASET, DATAOBJ_CHECKPOINT, DATAOBJ_MODEL, DATAOBJ_KEY, DATAOBJ_NKINDS } dataobj_kind;

/* "dataset", "checkpoint", "model", "key". */
const char *dataobj_kind_name(dataobj_kind k);

/* The store prefix of kind's documents (KEY_DATASETS ...). */
const char *dataobj_prefix(dataobj_kind k);

/* A dataset, checkpoint or model name: 1-128 characters, no '/' or '\',
 * no control characters, not "." or "..", no space at either end (it
 * becomes a directory name in the worker, spaces as '_').  Key names
 * follow names_check. */
rd_code dataobj_check_name(dataobj_kind k, const char *field, const char *name, rd_err *err);

/* The object of kind called ref, "NAME" (the actor's own) or "OWNER/NAME",
 * when the actor may see it (owner or staff); an object it may not see is
 * answered exactly like a missing one. */
rd_code dataobj_get_visible(cmd_ctx *ctx, dataobj_kind k, const char *ref, json_t **doc, rd_err *err);

/* Lists kind's objects the actor sees (--owner filters) as {"items": [...]}. */
rd_code dataobj_list_visible(cmd_ctx *ctx, dataobj_kind k, const char *owner, json_t **result, rd_err *err);

/* Removes doc (of kind), refused while a waiting or running job refers to
 * it, or (a key) while a dataset, checkpoint or model names it; only the
 * owner or an admin. */
rd_code dataobj_remove(cmd_ctx *ctx, dataobj_kind k, json_t *doc, rd_err *err);

/* ---- jobs (dataobj_job.c) ------------------------------------------------- */

/* Resolves the data objects a normalised job spec names, in the creator's
 * (ctx->actor's) account: data.datasets, model.checkpoints, model.location
 * for model.source rigdeck and environment.keys.  A name the creator has
 * not is refused naming the field path ("data.datasets[1]: dataset 'x'
 * does not exist").  Stores job["data_refs"]: for each, the object's
 * owner, name and what staging fetches (source, source_type, key,
 * key_type, endpoint, datastore, path) and in "secret_keys" {NAME:
 * {type, secret_value}} the sealed value of every key they use (attached
 * or an object's own), for the node's stager; never a value in clear.
 * In "datastores" {NAME: {name, type, address, root, username,
 * secret_password}} each datastore the node mounts (regional.datastore,
 * named again in "regional_datastore", and the datastores objects are
 * read from), for agent_mount.c. */
rd_code dataobj_job_resolve(cmd_ctx *ctx, json_t *job, rd_err *err);

/* RD_OK when no waiting or running job refers to the object; else
 * RD_EINVAL "<what>: job J refers to <kind> 'NAME'". */
rd_code dataobj_job_check_unused(cmd_ctx *ctx, dataobj_kind k, const json_t *doc, const char *what, rd_err *err);

#endif
