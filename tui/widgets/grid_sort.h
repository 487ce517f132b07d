/* grid_sort.h - for grid.c only: the sort of a column whose comparison is a
 * total order, by radix on keys made once per column. */
#ifndef RD_GRID_SORT_H
#define RD_GRID_SORT_H

#include <stdint.h>

#include "grid.h"

/* A row's key in grid's kord: 12 bytes, not 16 (in halves, so nothing pads
 * it), since grid_sort_rank sorts the keys of 100,000 rows in place. */
typedef struct grid_key {
    uint32_t hi, lo;
    uint32_t row;
} grid_key;

/* The 64-bit key whose unsigned order is the cell's order among cells of
 * its kind: a number's value, or a text's first 8 bytes as strcmp sees
 * them (the next 8: the key of text + 8, when the first 8 hold no NUL). */
unsigned long long grid_sort_make_key(int is_number, double num, const char *text);

/* The number a number's key was made of (-0 comes back as 0). */
double grid_sort_key_number(unsigned long long key);

static inline void grid_key_set(grid_key *k, unsigned long long key, size_t row)
{
    k->hi = (uint32_t)(key >> 32);
    k->lo = (uint32_t)key;
    k->row = (uint32_t)row;
}

static inline unsigned long long grid_key_get(const grid_key *k)
{
    return (unsigned long long)k->hi << 32 | k->lo;
}

/* Ranks every row by kcol's cell (ktotal must hold): equal cells the same
 * rank, so each later sort of the column is a counting sort.  kord is
 * sorted in place, then freed.  0 when out of memory (nrank 0, kord as it
 * was: sorts are grid.c's qsort on the keys). */
int grid_sort_rank(grid *g);

/* Puts g->match's rows into g->view in sort_col's order by the ranks (the
 * one order any correct sort gives).  0 without ranks or when out of
 * memory, with the view untouched. */
int grid_sort_view(grid *g);

#endif
