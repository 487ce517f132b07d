/* grow.h - growing an array in place, checked (grow.c). */
#ifndef RD_GROW_H
#define RD_GROW_H

#include <stddef.h>

/* Makes room for at least `need` elements of `elem` bytes in the array
 * whose pointer is at arrp (a T **), whose capacity is *cap: doubles it
 * (from 8) until it fits.  0 on success; -1 when memory ran out or the size
 * would overflow, and then the array and *cap are as they were. */
int grow_array(void *arrp, size_t *cap, size_t need, size_t elem);

#endif
