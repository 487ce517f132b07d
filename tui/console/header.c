/* header.c - the controller indicator of the header (see header.h). */
#include "header.h"

#include <stdio.h>
#include <string.h>

void header_parse_ctl(const json_t *status, header_ctl *ctl)
{
    const json_t *leader = json_object_get(status, "leader");
    const char *host = json_string_value(json_object_get(leader, "host"));
    ctl->known = 1;
    ctl->leading = json_is_object(leader);
    snprintf(ctl->host, sizeof ctl->host, "%s", host ? host : "?");
    ctl->pid = (long long)json_integer_value(json_object_get(leader, "pid"));
    ctl->standby = (long long)json_integer_value(json_object_get(status, "standby"));
}

int header_same_ctl(const header_ctl *a, const header_ctl *b)
{
    return a->known == b->known && a->leading == b->leading && a->pid == b->pid && a->standby == b->standby &&
           strcmp(a->host, b->host) == 0;
}

theme_elem header_format_ctl(const header_ctl *ctl, int cols, char *out, size_t len)
{
    if (!ctl->known) {
        if (len)
            out[0] = '\0';
        return TH_HEADER;
    }
    if (!ctl->leading) {
        snprintf(out, len, "ctl: none");
        return TH_HEADER_WARN;
    }
    if (cols < HEADER_CTL_DETAIL_COLS) {
        snprintf(out, len, "ctl: leading");
        return TH_HEADER;
    }
    /* A long host name is cut: the header has a clock and alerts too. */
    int n = snprintf(out, len, "ctl: leading %.20s:%lld", ctl->host, ctl->pid);
    if (cols >= HEADER_CTL_STANDBY_COLS && ctl->standby > 0 && n > 0 && (size_t)n < len)
        snprintf(out + n, len - (size_t)n, ", %lld standby", ctl->standby);
    return TH_HEADER;
}

theme_elem header_format_alerts(long long firing, char *out, size_t len)
{
    if (firing < 0) {
        if (len)
            out[0] = '\0';
        return TH_HEADER;
    }
    snprintf(out, len, "alerts: %lld", firing);
    return firing > 0 ? TH_HEADER_ALERT : TH_HEADER_DIM;
}
