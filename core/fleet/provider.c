/* provider.c - the `provider` commands: enable, list, show, check.
 *
 * An account enables the providers it builds regions on: physical (its own
 * machines) and gcp (Google Compute Engine, with a service account key that
 * is sealed at rest and never printed).  Payouts go out in the provider's
 * payment mode.
 */
#include "provider.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "access.h"
#include "doc.h"
#include "fleet.h"
#include "gcp_key.h"
#include "keyspace.h"
#include "names.h"

static const char *provider_key(char buf[RD_KEY_MAX], const char *owner, const char *type)
{
    return tx_key(buf, KEY_PROVIDERS "%s/%s", owner, type);
}

rd_code provider_get(cmd_ctx *ctx, const char *owner, const char *type, json_t **doc, rd_err *err)
{
    char key[RD_KEY_MAX];
    return tx_get(ctx->tx, provider_key(key, owner, type), doc, err);
}

/* Seed 000 names two payment modes: credits (daily payouts to the wallet)
 * and Stripe, "coming soon".  Only credits is implemented, so anything else
 * would record a payout the billing run can never make. */
static rd_code provider_check_payment(const char *payment, rd_err *err)
{
    if (strcmp(payment, "credits") == 0)
        return RD_OK;
    if (strcasecmp(payment, "stripe") == 0)
        return rd_fail(err, RD_EINVAL, "--payment stripe is not available yet: the only payment mode is credits");
    return rd_fail(err, RD_EINVAL, "--payment must be credits (the only payment mode), got '%s'", payment);
}

static rd_code provider_enable_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *type = cmd_arg(a, 0);
    const char *key_file = cmd_opt(a, "key-file");
    char key[RD_KEY_MAX], ts[RDTIME_BUFLEN];
    json_t *doc = NULL;
    const char *payment = cmd_opt(a, "payment") ? cmd_opt(a, "payment") : "credits";
    rd_code rc;

    if ((rc = provider_check_payment(payment, err)) != RD_OK)
        return rc;
    if (strcmp(type, "physical") == 0 && key_file)
        return rd_fail(err, RD_EINVAL, "--key-file is only for the gcp provider");
    if (strcmp(type, "gcp") == 0 && !key_file)
        return rd_fail(err, RD_EINVAL, "provider enable gcp: --key-file FILE (the service account's JSON key) is required");
    if ((rc = tx_get(ctx->tx, provider_key(key, ctx->actor, type), &doc, err)) != RD_OK)
        return rc;
    int existed = doc != NULL;
    json_decref(doc);
    doc = json_pack("{s:s, s:s, s:s, s:s, s:s}", "name", type, "type", type, "owner", ctx->actor,
                    "payment", payment,
                    "enabled_at", rdtime_format(ctx->now, ts));
    if (!doc)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    if (key_file) {
        char *text = NULL, *sealed = NULL;
        size_t len = 0;
        gcp_sa_key sa;
        rc = cmd_file_read(ctx, "--key-file", key_file, FLEET_FILE_MAX, &text, &len, err);
        if (rc == RD_OK && (rc = gcp_key_parse(text, len, &sa, err)) == RD_OK) {
            json_object_set_new(doc, "project_id", json_string(sa.project_id));
            json_object_set_new(doc, "client_email", json_string(sa.client_email));
            json_object_set_new(doc, "token_uri", json_string(sa.token_uri));
            gcp_key_free(&sa);
            rc = fleet_seal(ctx, text, len, &sealed, err);
        }
        if (text)
            memset(text, 0, len);
        free(text);
        if (rc == RD_OK)
            json_object_set_new(doc, "secret_key", json_string(sealed));
        free(sealed);
        if (rc != RD_OK) {
            json_decref(doc);
            return rc;
        }
    }
    json_object_set_new(doc, "reenabled", json_boolean(existed));
    *result = json_incref(doc);
    return tx_put(ctx->tx, key, doc, err);
}

static rd_code provider_list_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *items = NULL;
    (void)a;
    rd_code rc = tx_list(ctx->tx, KEY_PROVIDERS, &items, err);
    if (rc != RD_OK)
        return rc;
    if (!access_actor_is_staff(ctx))
        fleet_filter(items, "owner", ctx->actor);
    *result = json_pack("{s:o}", "items", items);
    return RD_OK;
}

static rd_code provider_show_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    char key[RD_KEY_MAX];
    const char *owner = cmd_opt(a, "owner") ? cmd_opt(a, "owner") : ctx->actor;
    rd_code rc = names_check("--owner", owner, err);
    if (rc == RD_OK && access_actor_sees_fleet_of(ctx, owner))
        rc = tx_get(ctx->tx, provider_key(key, owner, cmd_arg(a, 0)), result, err);
    if (rc == RD_OK && !*result)
        rc = rd_fail(err, RD_ENOTFOUND, "provider %s is not enabled for account '%s' (provider enable %s)",
                     cmd_arg(a, 0), owner, cmd_arg(a, 0));
    return rc;
}

/* Opens the sealed GCP key with this host's master key and parses it again:
 * tells an operator at once whether this admin host can act on GCP. */
static rd_code provider_check_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    char key[RD_KEY_MAX];
    json_t *prov = NULL;
    char *plain = NULL;
    size_t len = 0;
    gcp_sa_key sa;
    const char *owner = cmd_opt(a, "owner") ? cmd_opt(a, "owner") : ctx->actor;
    rd_code rc = names_check("--owner", owner, err);
    if (rc == RD_OK && access_actor_sees_fleet_of(ctx, owner))
        rc = tx_get(ctx->tx, provider_key(key, owner, "gcp"), &prov, err);
    if (rc == RD_OK && !prov)
        rc = rd_fail(err, RD_ENOTFOUND, "provider gcp is not enabled for account '%s' (provider enable gcp)", owner);
    if (rc == RD_OK)
        rc = fleet_unseal(ctx, doc_str(prov, "secret_key"), &plain, &len, err);
    if (rc == RD_OK && (rc = gcp_key_parse(plain, len, &sa, err)) == RD_OK) {
        *result = json_pack("{s:s, s:s, s:s, s:s, s:s}", "name", "gcp", "owner", owner, "key", "ok", "project_id",
                            sa.project_id, "client_email", sa.client_email);
        gcp_key_free(&sa);
    }
    if (plain)
        memset(plain, 0, len);
    free(plain);
    json_decref(prov);
    return rc;
}

static const cmd_flag provider_enable_flags[] = {
    { "key-file", "FILE", CMD_FLAG_VALUE, "gcp: the service account's JSON key (sealed at rest)" },
    { "payment", "credits", CMD_FLAG_VALUE, "how earnings are paid out: credits (daily, free; the only mode so far)" },
    { 0 }
};
static const cmd_flag provider_show_flags[] = {
    { "owner", "ACCOUNT", CMD_FLAG_VALUE, "whose provider (default: --as)" },
    { 0 }
};
const cmd_def provider_cmd_table[] = {
    { .words = "provider enable", .args = "physical|gcp", .flags = provider_enable_flags, .options = CMD_MUTATES,
      .help = "enable a provider for the acting account", .run = provider_enable_cmd },
    { .words = "provider list", .args = "", .help = "list enabled providers",
      .columns = "owner,name,payment,project_id,client_email,enabled_at", .run = provider_list_cmd },
    { .words = "provider show", .args = "physical|gcp", .flags = provider_show_flags,
      .help = "show an enabled provider (never its key)", .run = provider_show_cmd },
    { .words = "provider check", .args = "gcp", .flags = provider_show_flags,
      .help = "unseal the stored GCP key with this host's master key and check it", .run = provider_check_cmd },
    { 0 }
};
