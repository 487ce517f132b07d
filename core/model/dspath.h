/* dspath.h - where a datastore path points on the datastore's server.
 *
 * A datastore has a root path on its server; jobs, devices and datasets ask
 * for paths relative to that root ("/subdir2" with root "/dir2" is
 * "/dir2/subdir2" on the server) and must never reach above it.  Rather
 * than trying to resolve tricks, every form that could climb or be decoded
 * differently by an NFS/SMB server is refused outright.
 */
#ifndef RD_DSPATH_H
#define RD_DSPATH_H

#include "err.h"

#define DSPATH_MAX 4096

/* Joins root and path into a new normalised server-side path in *out (free
 * it).  root must be absolute; path must start with "/" (it is relative to
 * the root; "/" is the root itself).  Duplicate slashes, "." segments and a
 * trailing slash are normalised away.  Refused (RD_EINVAL naming the rule):
 * ".." segments and segments of only dots and spaces, percent-encoding ('%'
 * and two hex digits), backslashes, control characters, invalid UTF-8, '~'
 * at the start of a segment, results longer than DSPATH_MAX, and anything
 * that does not end up at or under the root.  Root "/" with "/subdir2" gives
 * "/subdir2".  On failure *out is NULL. */
rd_code dspath_resolve(const char *root, const char *path, char **out, rd_err *err);

#endif
