/* names.c - one place for the characters a name may contain. */
#include "names.h"

#include <string.h>

static int is_lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

rd_code names_check(const char *field, const char *name, rd_err *err)
{
    size_t n = strlen(name);
    if (n == 0 || n > NAMES_MAX || !is_lower_alnum(name[0]))
        goto bad;
    for (size_t i = 0; i < n; i++)
        if (!is_lower_alnum(name[i]) && !strchr("-_.", name[i]))
            goto bad;
    return RD_OK;
bad:
    return rd_fail(err, RD_EINVAL,
                   "%s must be 1-63 characters of a-z, 0-9, '-', '_' or '.', starting with a letter or digit, got '%s'",
                   field, name);
}

rd_code names_check_dns_label(const char *field, const char *name, rd_err *err)
{
    size_t n = strlen(name);
    if (n == 0 || n > NAMES_MAX || !is_lower_alnum(name[0]) || !is_lower_alnum(name[n - 1]))
        goto bad;
    for (size_t i = 0; i < n; i++)
        if (!is_lower_alnum(name[i]) && name[i] != '-')
            goto bad;
    return RD_OK;
bad:
    return rd_fail(err, RD_EINVAL,
                   "%s must be a DNS label: 1-63 characters of a-z, 0-9 and '-', starting and ending with a letter or digit, got '%s'",
                   field, name);
}
