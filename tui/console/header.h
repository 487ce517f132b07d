/* header.h - the header's controller indicator: what `serve status` said
 * (which `rigdeck serve` leads, how many stand by) and how much of it a
 * header of some width shows; and the count of firing alerts beside it.  Pure (no curses, no store): the loop asks
 * the command and keeps the answer in the session, draw.c paints the text,
 * and the unit tests check it across widths.
 */
#ifndef RD_HEADER_H
#define RD_HEADER_H

#include <stddef.h>

#include <jansson.h>

#include "theme.h"

/* Below this width the indicator drops the leader's host:pid. */
#define HEADER_CTL_DETAIL_COLS 100
/* From this width on it also counts the controllers standing by. */
#define HEADER_CTL_STANDBY_COLS 160

typedef struct {
    int known;              /* 0: never asked, or the last ask failed: nothing shown */
    int leading;            /* a controller leads */
    char host[128];
    long long pid;
    long long standby;
    int stale;              /* the store's serve keys changed: ask again now */
    long long asked_ms;     /* when it was last asked (monotonic ms) */
} header_ctl;

/* Reads a `serve status` result ({"leader": {host, pid, ...} | null,
 * "standby": N}) into ctl (known = 1); the timing fields are kept. */
void header_parse_ctl(const json_t *status, header_ctl *ctl);

/* 1 when a and b would show the same. */
int header_same_ctl(const header_ctl *a, const header_ctl *b);

/* The indicator's text for a header cols wide: "ctl: leading HOST:PID"
 * ("ctl: leading" when narrow, ", N standby" when wide) or "ctl: none";
 * empty when unknown.  Returns the theme element to paint it in:
 * TH_HEADER when a controller leads, TH_HEADER_WARN when none does. */
theme_elem header_format_ctl(const header_ctl *ctl, int cols, char *out, size_t len);

/* The header's count of firing alerts: "alerts: N" in TH_HEADER_ALERT
 * while any fires, "alerts: 0" in TH_HEADER_DIM when none does, empty
 * when unknown (firing < 0: not asked yet, or a core without alerts). */
theme_elem header_format_alerts(long long firing, char *out, size_t len);

#endif
