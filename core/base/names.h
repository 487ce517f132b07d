/* names.h - the naming rules for everything an operator names. */
#ifndef RD_NAMES_H
#define RD_NAMES_H

#include "err.h"

#define NAMES_MAX 63

/* Object names (accounts, projects, nodes, devices, ...): 1 to 63 characters
 * of lower-case letters a-z, digits 0-9, '-', '_' and '.', starting with a
 * letter or digit.  field names the field for the message ("account name"). */
rd_code names_check(const char *field, const char *name, rd_err *err);

/* DNS labels (physical region names): 1 to 63 characters of a-z, 0-9 and
 * '-', starting and ending with a letter or digit. */
rd_code names_check_dns_label(const char *field, const char *name, rd_err *err);

#endif
