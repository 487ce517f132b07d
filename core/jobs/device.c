/* device.c - edge devices: the `device` commands.
 *
 * Devices (Jetson modules) live only in physical regions with central
 * storage whose storage node exists.  A device is `provisioning` until its
 * agent registers (or it reports ready), then `active`; `offline` while its
 * agent is silent (device_agent.c); `removed` when removed.  A device runs
 * one configuration at a time: `device set-config` chooses it, `device
 * deploy` sends it (its "deployment" object: config, state `deploying`,
 * exit_code, deployed_at, started_at, ended_at, and a serial the agent
 * names in its reports), and the device's agent reports `running`, then
 * `failed` with the exit status once the command ends.  A new deploy or
 * the device's removal stops what runs: the deployment it replaces is
 * `stopped`.  Every stay of a device in the fleet is kept as a tenure record
 * (/rigdeck/device-tenures/<owner>/<added_at>-<name>) so the daily device fee
 * can count devices present at the start of a day plus every addition.
 * What a device runs is a configuration (device_config.c).
 */
#include <stdlib.h>
#include <string.h>

#include "access_view.h"
#include "catalog.h"
#include "data.h"
#include "device_agent.h"
#include "device_config.h"
#include "doc.h"
#include "fleet.h"
#include "keyspace.h"
#include "names.h"
#include "num.h"

static const char *device_key(char buf[RD_KEY_MAX], const char *name)
{
    return tx_key(buf, KEY_DEVICES "%s", name);
}

static rd_code device_get(cmd_ctx *ctx, const char *name, json_t **dev, rd_err *err)
{
    rd_code rc = fleet_get_live(ctx, "device", name, dev, err);
    if (rc == RD_OK)
        device_deployment_normalize(*dev);
    return rc;
}

static rd_code device_put(cmd_ctx *ctx, json_t *dev, json_t **result, rd_err *err)
{
    char key[RD_KEY_MAX];
    *result = json_incref(dev);
    return tx_put(ctx->tx, device_key(key, doc_str(dev, "name")), dev, err);
}

/* The device's region, checked to belong to the acting account. */
static rd_code device_region(cmd_ctx *ctx, const json_t *dev, const char *what, json_t **region, rd_err *err)
{
    rd_code rc = fleet_region_get(ctx, doc_str(dev, "region"), region, err);
    if (rc == RD_OK)
        rc = fleet_require_owner(ctx, *region, what, err);
    return rc;
}

static rd_code tenure_update(cmd_ctx *ctx, const json_t *dev, int removing, rd_err *err)
{
    char key[RD_KEY_MAX], ts[RDTIME_BUFLEN];
    tx_key(key, KEY_DEVICE_TENURES "%s/%s-%s", doc_str(dev, "owner"), doc_str(dev, "added_at"),
           doc_str(dev, "name"));
    json_t *t = NULL;
    rd_code rc = tx_get(ctx->tx, key, &t, err);
    if (rc != RD_OK)
        return rc;
    if (!t)
        t = json_pack("{s:s, s:s, s:s, s:s, s:n}", "name", doc_str(dev, "name"), "owner", doc_str(dev, "owner"),
                      "region", doc_str(dev, "region"), "added_at", doc_str(dev, "added_at"), "removed_at");
    if (removing)
        json_object_set_new(t, "removed_at", json_string(rdtime_format(ctx->now, ts)));
    return tx_put(ctx->tx, key, t, err);
}

static rd_code device_add_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *rname = cmd_arg(a, 0), *name = cmd_arg(a, 1);
    char key[RD_KEY_MAX], object[RD_KEY_MAX], ts[RDTIME_BUFLEN];
    json_t *region = NULL, *old = NULL, *dev = NULL;
    rd_code rc = fleet_region_get(ctx, rname, &region, err);
    if (rc == RD_OK)
        rc = fleet_require_owner(ctx, region, "device add", err);
    if (rc == RD_OK && !fleet_region_is_central(region))
        rc = rd_fail(err, RD_EINVAL, "device add: devices need a physical region with central storage; region '%s' is %s",
                     rname, fleet_region_is_physical(region) ? "in local storage mode (create another region)" : "a GCP region");
    if (rc == RD_OK && !*doc_str(region, "storage_node"))
        rc = rd_fail(err, RD_EINVAL, "device add: region '%s' has no storage node yet; add it before any device", rname);
    if (rc == RD_OK)
        rc = catalog_check_device("--model", cmd_opt(a, "model"), err);
    if (rc == RD_OK)
        rc = names_check("device name", name, err);
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, device_key(key, name), &old, err);
    if (rc == RD_OK && old && strcmp(doc_str(old, "state"), "removed") != 0)
        rc = rd_fail(err, RD_EEXISTS, "device '%s' exists already (in region '%s')", name, doc_str(old, "region"));
    if (rc == RD_OK)
        rc = fleet_claim_minion(ctx, cmd_opt(a, "minion"), tx_key(object, "device/%s", name), err);
    if (rc == RD_OK) {
        rdtime_format(ctx->now, ts);
        dev = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:n, s:n, s:n, s:n, s:s, s:s}", "name", name, "region", rname,
                        "owner", doc_str(region, "owner"), "minion_id", cmd_opt(a, "minion"), "model",
                        cmd_opt(a, "model"), "state", "provisioning", "config", "deployed_config", "deployment",
                        "last_deployed_at", "added_at", ts, "state_changed_at", ts);
        rc = dev ? tenure_update(ctx, dev, 0, err) : rd_fail(err, RD_ENOMEM, "out of memory");
    }
    if (rc == RD_OK) {
        rc = device_put(ctx, dev, result, err);
        dev = NULL;
    }
    json_decref(dev);
    json_decref(old);
    json_decref(region);
    return rc;
}

static rd_code device_set_config_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *dev = NULL, *region = NULL, *cfg = NULL;
    rd_code rc = device_get(ctx, cmd_arg(a, 0), &dev, err);
    if (rc == RD_OK)
        rc = device_region(ctx, dev, "device set-config", &region, err);
    if (rc == RD_OK)
        rc = device_config_get(ctx, doc_str(dev, "region"), cmd_arg(a, 1), &cfg, err);
    if (rc == RD_OK) {
        json_object_set_new(dev, "config", json_string(cmd_arg(a, 1)));
        rc = device_put(ctx, dev, result, err);
        dev = NULL;
    }
    json_decref(cfg);
    json_decref(region);
    json_decref(dev);
    return rc;
}

/* What the agent stages for cfg, frozen now as a job's data is at submit
 * (dataobj_job_resolve): the model, the checkpoints, the keys with their
 * values sealed, and the datastore (its password still sealed).  *refs is that object, or, when an object named is not
 * there (yet), a string saying so: the deploy stands and the agent reports
 * the deployment failed with it (a configuration may name a model before
 * it is registered). */
static rd_code deploy_data(cmd_ctx *ctx, const json_t *cfg, json_t **refs, rd_err *err)
{
    json_t *job = json_pack("{s:s, s:{s:s, s:s, s:O}, s:{s:O}, s:{}}", "id", doc_str(cfg, "name"), "model", "source",
                            "rigdeck", "location", doc_str(cfg, "model"), "checkpoints",
                            json_object_get(cfg, "checkpoints"), "environment", "keys", json_object_get(cfg, "keys"),
                            "data");
    rd_err why = { 0 };
    if (!job)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    /* the datastore at the output path, as a job's regional one: the
     * deployment carries a copy of it (data_refs.datastores, its password
     * sealed) that the device's agent mounts (agent_device_mount_output) */
    const char *ds = json_string_value(json_object_get(cfg, "datastore"));
    if (ds && *ds) {
        json_object_set_new(job, "regional", json_pack("{s:s}", "datastore", ds));
        json_object_set_new(json_object_get(job, "data"), "output",
                            json_pack("{s:s, s:s}", "type", "regional", "path", doc_str(cfg, "datastore_path")));
    }
    rd_code rc = dataobj_job_resolve(ctx, job, &why);
    if (rc == RD_OK)
        *refs = json_incref(json_object_get(job, "data_refs"));
    else if (rc == RD_EINVAL)
        *refs = json_string(why.msg);
    else
        rd_fail(err, rc, "%s", why.msg);
    json_decref(job);
    return rc == RD_EINVAL ? RD_OK : rc;
}

static rd_code device_deploy_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *dev = NULL, *region = NULL, *cfg = NULL;
    rd_code rc = device_get(ctx, cmd_arg(a, 0), &dev, err);
    if (rc == RD_OK)
        rc = device_region(ctx, dev, "device deploy", &region, err);
    if (rc == RD_OK && strcmp(doc_str(dev, "state"), "active") != 0)
        rc = rd_fail(err, RD_EINVAL, "device deploy: device '%s' is %s; it must be active (it reports ready when provisioned)",
                     cmd_arg(a, 0), doc_str(dev, "state"));
    if (rc == RD_OK && !*doc_str(dev, "config"))
        rc = rd_fail(err, RD_EINVAL, "device deploy: device '%s' has no configuration (device set-config %s CONFIG)",
                     cmd_arg(a, 0), cmd_arg(a, 0));
    if (rc == RD_OK)   /* the configuration may have been removed since */
        rc = device_config_get(ctx, doc_str(dev, "region"), doc_str(dev, "config"), &cfg, err);
    json_t *refs = NULL;
    if (rc == RD_OK)
        rc = deploy_data(ctx, cfg, &refs, err);
    if (rc == RD_OK) {
        char ts[RDTIME_BUFLEN];
        json_t *old = json_object_get(dev, "deployment");
        int64_t serial = json_is_object(old) ? doc_int(old, "serial") + 1 : 1;
        rdtime_format(ctx->now, ts);
        if (device_deployment_live(old)) {   /* what ran is stopped: the agent ends it */
            json_t *prev = json_deep_copy(old);
            json_object_set_new(prev, "state", json_string("stopped"));
            json_object_set_new(prev, "ended_at", json_string(ts));
            json_object_set_new(dev, "previous_deployment", prev);
        }
        json_t *d = json_pack("{s:s, s:s, s:n, s:s, s:n, s:n, s:I}", "config", doc_str(dev, "config"), "state",
                              "deploying", "exit_code", "deployed_at", ts, "started_at", "ended_at", "serial",
                              (json_int_t)serial);
        if (d && json_is_object(refs))
            json_object_set(d, "data_refs", refs);
        else if (d && json_is_string(refs))
            json_object_set(d, "data_error", refs);
        json_object_set_new(dev, "deployed_config", json_string(doc_str(dev, "config")));
        json_object_set_new(dev, "deployment", d);
        rc = device_put(ctx, dev, result, err);
        dev = NULL;
    }
    json_decref(refs);
    json_decref(cfg);
    json_decref(region);
    json_decref(dev);
    return rc;
}

/* What a device (its agent) sends: ready (provisioned), or how its
 * deployment goes: running (its command started; again after the agent
 * restarted, whatever the last run's end), failed (it ended: --exit-code
 * its status, or --reason and --message when it could not start).  Named
 * by --deployment SERIAL, a report about a deployment since replaced is
 * refused; a run ends once: failed is taken only from running or
 * deploying. */
static rd_code device_report_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *status = cmd_opt(a, "status");
    char ts[RDTIME_BUFLEN];
    json_t *dev = NULL, *region = NULL;
    int64_t serial = 0, code = -1;
    rd_code rc = device_get(ctx, cmd_arg(a, 0), &dev, err);
    if (rc == RD_OK)
        rc = device_region(ctx, dev, "device report", &region, err);
    json_decref(region);
    if (rc == RD_OK && cmd_opt(a, "deployment"))
        rc = num_parse_int("--deployment", cmd_opt(a, "deployment"), 1, INT64_MAX, &serial, err);
    if (rc == RD_OK && cmd_opt(a, "exit-code"))
        rc = num_parse_int("--exit-code", cmd_opt(a, "exit-code"), 0, 255, &code, err);
    if (rc == RD_OK && cmd_opt(a, "exit-code") && strcmp(status, "failed") != 0)
        rc = rd_fail(err, RD_EINVAL, "--exit-code goes with --status failed only");
    if (rc != RD_OK) {
        json_decref(dev);
        return rc;
    }
    rdtime_format(ctx->now, ts);
    json_t *d = json_object_get(dev, "deployment");
    const char *dstate = doc_str(d, "state");
    if (strcmp(status, "ready") == 0) {
        if (strcmp(doc_str(dev, "state"), "active") != 0) {
            json_object_set_new(dev, "state", json_string("active"));
            json_object_set_new(dev, "state_changed_at", json_string(ts));
        }
    } else if (strcmp(doc_str(dev, "state"), "active") != 0 || !json_is_object(d)) {
        rc = rd_fail(err, RD_EINVAL, "device report: device '%s' cannot be %s: it is %s with %s", cmd_arg(a, 0), status,
                     doc_str(dev, "state"), json_is_object(d) ? "a deployment" : "nothing deployed");
    } else if (serial && serial != doc_int(d, "serial")) {
        rc = rd_fail(err, RD_ECONFLICT, "device report: deployment %lld of device '%s' was replaced by deployment %lld",
                     (long long)serial, cmd_arg(a, 0), (long long)doc_int(d, "serial"));
    } else if (strcmp(dstate, "stopped") == 0 ||
               (strcmp(status, "failed") == 0 && strcmp(dstate, "running") != 0 && strcmp(dstate, "deploying") != 0)) {
        rc = rd_fail(err, RD_ECONFLICT, "device report: the deployment of device '%s' is %s; it cannot turn %s",
                     cmd_arg(a, 0), dstate, status);
    } else {
        json_object_set_new(d, "state", json_string(status));
        json_object_del(d, "reason");
        json_object_del(d, "message");
        if (strcmp(status, "running") == 0) {
            json_object_set_new(d, "started_at", json_string(ts));
            json_object_set_new(d, "ended_at", json_null());
            json_object_set_new(d, "exit_code", json_null());
            json_object_set_new(dev, "last_deployed_at", json_string(ts));
        } else {
            json_object_set_new(d, "ended_at", json_string(ts));
            json_object_set_new(d, "exit_code", code >= 0 ? json_integer(code) : json_null());
            if (cmd_opt(a, "reason"))
                json_object_set_new(d, "reason", json_string(cmd_opt(a, "reason")));
            if (cmd_opt(a, "message"))
                json_object_set_new(d, "message", json_string(cmd_opt(a, "message")));
        }
    }
    if (rc != RD_OK) {
        json_decref(dev);
        return rc;
    }
    json_object_set_new(dev, "reported_at", json_string(ts));
    return device_put(ctx, dev, result, err);
}

static rd_code device_remove_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    char ts[RDTIME_BUFLEN];
    json_t *dev = NULL, *region = NULL;
    rd_code rc = device_get(ctx, cmd_arg(a, 0), &dev, err);
    if (rc == RD_OK)
        rc = device_region(ctx, dev, "device remove", &region, err);
    if (rc == RD_OK)
        rc = tenure_update(ctx, dev, 1, err);
    if (rc == RD_OK)
        rc = fleet_release_minion(ctx, doc_str(dev, "minion_id"), err);
    if (rc == RD_OK) {
        rdtime_format(ctx->now, ts);
        json_object_set_new(dev, "state", json_string("removed"));
        json_object_set_new(dev, "state_changed_at", json_string(ts));
        json_object_set_new(dev, "removed_at", json_string(ts));
        json_t *d = json_object_get(dev, "deployment");
        if (device_deployment_live(d)) {   /* its agent ends the command */
            json_object_set_new(d, "state", json_string("stopped"));
            json_object_set_new(d, "ended_at", json_string(ts));
        }
        rc = device_put(ctx, dev, result, err);
        dev = NULL;
    }
    json_decref(region);
    json_decref(dev);
    return rc;
}

static rd_code device_list_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *items = NULL;
    access_view view;
    access_view_open(ctx, &view);
    rd_code rc = tx_list(ctx->tx, KEY_DEVICES, &items, err);
    if (rc == RD_OK)
        access_view_filter(&view, items, access_view_sees_owned);
    access_view_close(&view);
    if (rc != RD_OK)
        return rc;
    fleet_filter(items, "region", cmd_opt(a, "region"));
    fleet_filter(items, "state", cmd_opt(a, "state"));
    if (!cmd_opt(a, "state") && !cmd_opt_given(a, "all"))
        fleet_drop_removed(items);
    size_t i;
    json_t *d;
    json_array_foreach(items, i, d)
        device_deployment_normalize(d);
    *result = json_pack("{s:o}", "items", items);
    return RD_OK;
}

static rd_code device_show_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    char key[RD_KEY_MAX];
    access_view view;
    access_view_open(ctx, &view);
    rd_code rc = names_check("device name", cmd_arg(a, 0), err);
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, device_key(key, cmd_arg(a, 0)), result, err);
    if (rc == RD_OK && *result && !access_view_owned(&view, *result)) {
        json_decref(*result);
        *result = NULL;
    }
    access_view_close(&view);
    if (rc == RD_OK && !*result)
        rc = access_view_missing(err, "device", cmd_arg(a, 0));
    if (rc == RD_OK) {
        device_deployment_normalize(*result);
        json_object_set_new(*result, "agent", device_agent_describe(ctx->tx, cmd_arg(a, 0), ctx->now));
    }
    return rc;
}

static rd_code device_models_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *items = json_array();
    (void)ctx;
    (void)a;
    for (size_t i = 0; i < catalog_device_count(); i++)
        json_array_append_new(items, json_pack("{s:s, s:s}", "name", catalog_device_at(i)->id, "display_name",
                                               catalog_device_at(i)->name));
    *result = json_pack("{s:o}", "items", items);
    return *result ? RD_OK : rd_fail(err, RD_ENOMEM, "out of memory");
}

static const cmd_flag device_add_flags[] = {
    { "minion", "ID", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "the minion id on the device's sticker" },
    { "model", "MODEL", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "the device model (device models lists them)" },
    { 0 }
};
static const cmd_flag device_list_flags[] = {
    { "region", "R", CMD_FLAG_VALUE, "only devices of this region" },
    { "state", "provisioning|active|offline|removed", CMD_FLAG_VALUE, "only devices in this state" },
    { "all", NULL, 0, "include removed devices" },
    { 0 }
};
static const cmd_flag device_report_flags[] = {
    { "status", "ready|running|failed", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "provisioned, or the deployment's outcome" },
    { "deployment", "SERIAL", CMD_FLAG_VALUE, "the deployment reported on (refused once another replaced it)" },
    { "exit-code", "N", CMD_FLAG_VALUE, "failed: the command's exit status" },
    { "reason", "WORD", CMD_FLAG_VALUE, "failed: why it could not start (staging_failed, start_failed ...)" },
    { "message", "TEXT", CMD_FLAG_VALUE, "failed: the cause in words" },
    { 0 }
};
const cmd_def device_cmd_table[] = {
    { .words = "device add", .args = "REGION NAME", .flags = device_add_flags, .options = CMD_MUTATES,
      .help = "add an edge device to a central-storage region", .run = device_add_cmd, .access = CMD_ACCESS_FLEET },
    { .words = "device list", .args = "", .flags = device_list_flags, .help = "list devices",
      .columns = "name,region,model,state,config,deployed_config,deployment.state,last_deployed_at",
      .run = device_list_cmd },
    { .words = "device show", .args = "NAME", .help = "show a device", .run = device_show_cmd },
    { .words = "device set-config", .args = "DEVICE CONFIG", .options = CMD_MUTATES,
      .help = "choose the configuration a device runs", .run = device_set_config_cmd, .access = CMD_ACCESS_FLEET },
    { .words = "device deploy", .args = "DEVICE", .options = CMD_MUTATES, .help = "deploy the device's configuration",
      .run = device_deploy_cmd, .access = CMD_ACCESS_FLEET },
    { .words = "device remove", .args = "DEVICE", .options = CMD_MUTATES,
      .help = "remove a device (its fee stops after today)", .run = device_remove_cmd, .access = CMD_ACCESS_FLEET },
    { .words = "device report", .args = "DEVICE", .flags = device_report_flags, .options = CMD_MUTATES,
      .help = "what a device sends: ready, running or failed", .run = device_report_cmd, .access = CMD_ACCESS_FLEET },
    { .words = "device models", .args = "", .options = CMD_NO_STORE, .help = "the edge device models devices may be",
      .run = device_models_cmd },
    { 0 }
};
