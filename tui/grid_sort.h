/* grid_sort.h - for grid.c only: the sort of a column whose comparison is a
 * total order, by radix on keys made once per column. */
#ifndef RD_GRID_SORT_H
#define RD_GRID_SORT_H

#include "grid.h"

/* The 64-bit key whose unsigned order is the cell's order among cells of
 * its kind: a number's value, or a text's first 8 bytes as strcmp sees
 * them (the next 8: the key of text + 8, when the first 8 hold no NUL). */
unsigned long long grid_sort_make_key(int is_number, double num, const char *text);

/* Ranks every row by kcol's cell (ktotal must hold, knum is not read):
 * equal cells the same rank, so each later sort of the column is a
 * counting sort.  0 when out of memory (nrank 0: sorts are grid.c's qsort
 * on the keys). */
int grid_sort_rank(grid *g);

/* Puts g->match's rows into g->view in sort_col's order by the ranks (the
 * one order any correct sort gives).  0 without ranks or when out of
 * memory, with the view untouched. */
int grid_sort_view(grid *g);

#endif
