/* agent_transfer.h - data of type local: the agent's side of `job send`
 * and `job receive` (agent_transfer.c; the user's side is
 * core/jobs/job_transfer.c). */
#ifndef RD_AGENT_TRANSFER_H
#define RD_AGENT_TRANSFER_H

#include <jansson.h>
#include <stddef.h>

#include "agent_stage.h"

/* The local items (data.input, model.source of type local) of the worker
 * in dir: READY when there are none or every one was sent and unpacked
 * into dir's /opt/ml; BUSY while it waits for `job send` (the first time:
 * the transfer server listens, a fresh token, and `job report ... staging
 * --message "waiting for job send" --transfer HOST:PORT --token SEALED`);
 * FAILED with msg once the wait passed its deadline (RIGDECK_TRANSFER_WAIT
 * seconds, default 3600). */
stage_state agent_transfer_stage(agent_state *a, const json_t *job, const char *dir, size_t index, char *msg,
                                 size_t len, agent_stage_report_fn report);

/* Offers the output archive zip of worker index of job (dir: its folder)
 * to `job receive`: 0 while it waits (the first time: listens, reports
 * `uploading` with the message "waiting for job receive" and where), 1
 * once the receiver said it has it, -1 with msg past the deadline. */
int agent_transfer_offer(agent_state *a, const char *job, int index, const char *dir, const char *zip, char *msg,
                         size_t len, agent_stage_report_fn report);

/* Forgets the staging (output 0) or output (1) transfer of the worker in
 * dir (it ended, or was dropped). */
void agent_transfer_forget(const char *dir, int output);

#endif
