/* job_connect.h - where notebook and endpoint workers serve (job_connect.c):
 * the agent's `job report ID serving` and `job connect`. */
#ifndef RD_JOB_CONNECT_H
#define RD_JOB_CONNECT_H

#include <jansson.h>

#include "cmd.h"

/* `job report ID serving --worker N --host H --port P [--token SEALED]`:
 * a starting or running notebook or endpoint worker of job listens on
 * H:P; kept as the worker's serving {host, port, secret_token}: a
 * notebook's token comes sealed with the master key (secret.h), and no
 * command result shows a secret* field.
 * Sets the worker's fields in job (the caller writes it). */
rd_code job_report_serving(const cmd_args *a, json_t *job, int64_t w, rd_err *err);

extern const cmd_def job_connect_cmd_table[];

#endif
