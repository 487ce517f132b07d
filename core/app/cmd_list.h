/* cmd_list.h - the command tables of every family (cmd_list.c). */
#ifndef RD_CMD_LIST_H
#define RD_CMD_LIST_H

#include <stddef.h>

#include "cmd.h"

/* Tables contributed by subsystems (each terminated by {0}). */
extern const cmd_def account_cmd_table[];
extern const cmd_def project_cmd_table[];
extern const cmd_def audit_cmd_table[];
extern const cmd_def agent_cmd_table[];
extern const cmd_def alert_rule_cmd_table[];
extern const cmd_def alert_cmd_table[];
extern const cmd_def serve_cmd_table[];
extern const cmd_def metrics_cmd_table[];
extern const cmd_def metrics_import_cmd_table[];
extern const cmd_def metrics_prune_cmd_table[];
extern const cmd_def store_cmd_table[];
extern const cmd_def secure_cmd_table[];
extern const cmd_def gpu_cmd_table[];
extern const cmd_def gcp_cmd_table[];
extern const cmd_def provider_cmd_table[];
extern const cmd_def region_cmd_table[];
extern const cmd_def quota_cmd_table[];
extern const cmd_def cloud_cmd_table[];
extern const cmd_def node_cmd_table[];
extern const cmd_def node_health_cmd_table[];
extern const cmd_def device_cmd_table[];
extern const cmd_def device_agent_cmd_table[];
extern const cmd_def device_config_cmd_table[];
extern const cmd_def datastore_cmd_table[];
extern const cmd_def reservation_cmd_table[];
extern const cmd_def datakey_cmd_table[];
extern const cmd_def dataobj_cmd_table[];
extern const cmd_def job_cmd_table[];
extern const cmd_def job_why_cmd_table[];
extern const cmd_def job_connect_cmd_table[];
extern const cmd_def environment_cmd_table[];
extern const cmd_def job_logs_cmd_table[];
extern const cmd_def job_transfer_cmd_table[];
extern const cmd_def sched_cmd_table[];
extern const cmd_def price_cmd_table[];
extern const cmd_def ledger_cmd_table[];
extern const cmd_def bill_cmd_table[];
extern const cmd_def report_cmd_table[];


/* Longer help of some commands (cmd_note; each table ends with {0}). */
extern const cmd_note job_cmd_notes[];
extern const cmd_note node_cmd_notes[];
extern const cmd_note report_cmd_notes[];
extern const cmd_note dataobj_cmd_notes[];
extern const cmd_note *const cmd_list_notes[];
extern const size_t cmd_list_nnotes;

/* Every table above, in help order; cmd_list_ntables of them. */
extern const cmd_def *const cmd_list_tables[];
extern const size_t cmd_list_ntables;

#endif
