/* grow.c - growing an array in place, checked.
 *
 * Every growing array of the library goes through here, so a failed
 * realloc is never mistaken for success and never loses the old block. */
#include "grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int grow_array(void *arrp, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 8;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            return -1;
        ncap *= 2;
    }
    if (elem && ncap > SIZE_MAX / elem)
        return -1;
    void *old;
    memcpy(&old, arrp, sizeof old);   /* arrp points at a T *, not a void * */
    void *p = realloc(old, ncap * elem);
    if (!p)
        return -1;
    memcpy(arrp, &p, sizeof p);
    *cap = ncap;
    return 0;
}
