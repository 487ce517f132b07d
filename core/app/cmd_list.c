/* cmd_list.c - every command table, in the order help lists them (app.c
 * hands them to the executor).  A new command family adds its table here
 * (and its extern in cmd_list.h). */
#include "cmd_list.h"

const cmd_def *const cmd_list_tables[] = {
    account_cmd_table,
    project_cmd_table,
    gpu_cmd_table,
    gcp_cmd_table,
    provider_cmd_table,
    region_cmd_table,
    quota_cmd_table,
    cloud_cmd_table,
    node_cmd_table,
    node_health_cmd_table,
    device_cmd_table,
    device_agent_cmd_table,
    device_config_cmd_table,
    datastore_cmd_table,
    reservation_cmd_table,
    datakey_cmd_table,
    dataobj_cmd_table,
    job_cmd_table,
    job_why_cmd_table,
    job_connect_cmd_table,
    environment_cmd_table,
    job_logs_cmd_table,
    job_transfer_cmd_table,
    sched_cmd_table,
    price_cmd_table,
    ledger_cmd_table,
    bill_cmd_table,
    report_cmd_table,
    audit_cmd_table,
    agent_cmd_table,
    alert_rule_cmd_table,
    alert_cmd_table,
    serve_cmd_table,
    metrics_cmd_table,
    metrics_import_cmd_table,
    metrics_prune_cmd_table,
    store_cmd_table,
    secure_cmd_table,
};

const size_t cmd_list_ntables = sizeof cmd_list_tables / sizeof cmd_list_tables[0];

const cmd_note *const cmd_list_notes[] = {
    job_cmd_notes,
    report_cmd_notes,
    node_cmd_notes,
    dataobj_cmd_notes,
};

const size_t cmd_list_nnotes = sizeof cmd_list_notes / sizeof cmd_list_notes[0];
