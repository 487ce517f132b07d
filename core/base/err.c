/* err.c - status codes, their names and exit statuses. */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>

rd_code rd_fail(rd_err *err, rd_code code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

void rd_err_clear(rd_err *err)
{
    if (err) {
        err->code = RD_OK;
        err->msg[0] = '\0';
    }
}

const char *rd_code_name(rd_code code)
{
    switch (code) {
    case RD_OK:        return "ok";
    case RD_EINVAL:    return "invalid";
    case RD_ENOTFOUND: return "not_found";
    case RD_EEXISTS:   return "exists";
    case RD_EPERM:     return "forbidden";
    case RD_ECONFLICT: return "conflict";
    case RD_ECORRUPT:  return "corrupt";
    case RD_EUSAGE:    return "usage";
    case RD_ESTORE:    return "store_unavailable";
    case RD_ENOMEM:    return "out_of_memory";
    }
    return "unknown";
}

int rd_code_exit_status(rd_code code)
{
    switch (code) {
    case RD_OK:     return 0;
    case RD_EUSAGE: return 2;
    case RD_ESTORE:
    case RD_ENOMEM: return 3;
    default:        return 1;
    }
}
