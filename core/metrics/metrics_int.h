/* metrics_int.h - what the metrics files share and nobody else needs: the
 * lengths of the periods and aligning a time to one. */
#ifndef RD_METRICS_INT_H
#define RD_METRICS_INT_H

#include "cmd.h"
#include "metrics.h"

enum { METRICS_MINUTE = 60, METRICS_BLOCK = 60 * METRICS_BLOCK_MINUTES, METRICS_HOUR = 3600, METRICS_DAY = 86400 };

/* The start of the period of length step that holds t (UTC-aligned). */
rd_time metrics_floor(rd_time t, rd_time step);

/* `metrics fleet --by BY [--region R]` for the actor (metrics_fleet.c):
 * RD_EINVAL naming --by when BY is neither region nor account. */
rd_code metrics_fleet_rollup_cmd(cmd_ctx *ctx, const char *by, const char *region, json_t **result, rd_err *err);

#endif
