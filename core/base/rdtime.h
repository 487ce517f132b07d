/* rdtime.h - instants as whole seconds since the Unix epoch (UTC).
 *
 * Core code never reads the system clock: the caller injects "now" (the real
 * clock, or --now).  This module only converts between seconds and RFC 3339.
 */
#ifndef RD_RDTIME_H
#define RD_RDTIME_H

#include <stdint.h>

#include "err.h"

typedef int64_t rd_time;

#define RDTIME_BUFLEN 32

/* Parses RFC 3339 ("2026-11-01T00:00:00Z", "...+02:00", fractional seconds
 * are truncated); field names the option or field for the error message. */
rd_code rdtime_parse(const char *field, const char *text, rd_time *out, rd_err *err);

/* Formats t as "YYYY-MM-DDTHH:MM:SSZ" into buf (RDTIME_BUFLEN bytes). */
char *rdtime_format(rd_time t, char buf[RDTIME_BUFLEN]);

/* Parses a duration such as "90s", "10m", "2h", "1d" or a bare number of
 * seconds; rejects zero, negatives and overflow. */
rd_code rdtime_parse_duration(const char *field, const char *text, int64_t *seconds, rd_err *err);

/* The same in milliseconds, also taking "500ms". */
rd_code rdtime_parse_duration_ms(const char *field, const char *text, int64_t *ms, rd_err *err);

/* Milliseconds on the monotonic clock: for timeouts, retry deadlines and
 * the daemons' periods, never the business clock (that is injected). */
int64_t rdtime_mono_ms(void);

#endif
