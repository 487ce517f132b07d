/* fileio.h - the one write-all: a whole buffer to a file descriptor.
 *
 * write(2) may take part of a buffer (a pipe, a terminal, a signal in
 * between); every writer that means "all of it" loops here instead of
 * keeping its own loop.  Only write(2) is called, so it is safe between
 * fork() and exec (the runner's shim uses it there).
 */
#ifndef RD_FILEIO_H
#define RD_FILEIO_H

#include <stddef.h>

/* Writes all n bytes of buf to fd, again after EINTR.  0 when all were
 * written; -1 otherwise, errno set (EIO when write took nothing). */
int fileio_write_all(int fd, const void *buf, size_t n);

#endif
