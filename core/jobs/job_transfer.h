/* job_transfer.h - data of type local, the user's side: `job send`,
 * `job receive`, and the worker's transfer record (job_transfer.c). */
#ifndef RD_JOB_TRANSFER_H
#define RD_JOB_TRANSFER_H

#include <jansson.h>

#include "cmd.h"

/* `job report ... --transfer HOST:PORT --token SEALED`: RD_OK when both go
 * together with a staging/uploading report (waits) and HOST:PORT parses. */
rd_code job_transfer_check(const cmd_args *a, int waits, rd_err *err);

/* Records what a staging/uploading report says in worker: with
 * --transfer, "transfer" {host, port, token} and "message"; without it,
 * neither any longer. */
void job_transfer_record(const cmd_args *a, json_t *worker);

extern const cmd_def job_transfer_cmd_table[];

#endif
