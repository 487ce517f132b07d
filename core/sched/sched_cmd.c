/* sched_cmd.c - the `sched` commands' table: `sched run` (one pass,
 * sched_run.c) and `sched config` (the scheduler's settings: how long a
 * job may wait before it claims capacity first). */
#include <jansson.h>

#include "access.h"
#include "cmd.h"
#include "keyspace.h"
#include "rdtime.h"
#include "sched_run.h"

static rd_code sched_config_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *cfg = NULL;
    int64_t age = 0;
    rd_code rc = tx_get(ctx->tx, KEY_SCHED_CONFIG, &cfg, err);
    if (rc != RD_OK)
        return rc;
    if (!cfg)
        cfg = json_pack("{s:s, s:I}", "name", "sched", "max_wait_s", (json_int_t)3600);
    if (cmd_opt(a, "max-wait")) {
        if (!access_actor_is_admin(ctx))
            rc = rd_fail(err, RD_EPERM, "sched config: only an administering account changes scheduler settings");
        if (rc == RD_OK)
            rc = rdtime_parse_duration("--max-wait", cmd_opt(a, "max-wait"), &age, err);
        if (rc == RD_OK) {
            json_object_set_new(cfg, "max_wait_s", json_integer(age));
            rc = tx_put(ctx->tx, KEY_SCHED_CONFIG, json_incref(cfg), err);
        }
    }
    if (rc == RD_OK)
        *result = cfg;
    else
        json_decref(cfg);
    return rc;
}

static const cmd_flag sched_config_flags[] = {
    { "max-wait", "DURATION", CMD_FLAG_VALUE, "a job waiting longer claims capacity first (default 1h)" },
    { 0 }
};

static const cmd_flag sched_run_flags[] = {
    { "dry-run", NULL, 0, "show what would be placed, change nothing" },
    { 0 }
};

const cmd_def sched_cmd_table[] = {
    { .words = "sched run", .args = "", .flags = sched_run_flags, .options = CMD_MUTATES,
      .help = "one scheduling pass: place waiting workers", .run = sched_run_cmd, .access = CMD_ACCESS_FLEET },
    { .words = "sched config", .args = "", .flags = sched_config_flags, .options = CMD_MUTATES,
      .help = "show or change the scheduler's settings", .run = sched_config_cmd,
      .access = CMD_ACCESS_READ /* anyone may show them; changing them is admin only (sched_config_cmd) */ },
    { 0 }
};
