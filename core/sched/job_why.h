/* job_why.h - `job why` (job_why.c). */
#ifndef RD_JOB_WHY_H
#define RD_JOB_WHY_H

#include <jansson.h>

#include "cmd.h"

/* `job why ID`: for a waiting job, how many nodes each constraint rules
 * out, judged as the next pass would (aged claims replayed). */
rd_code job_why_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err);

#endif
