/* spark.h - sparklines: a series of values (with gaps) as one row of
 * block characters, scaled to a width.  Pure (no curses, no store): the
 * Dashboard draws what these return, and tests/tui_unit checks them.
 *
 * A gap is a value that is not finite (NaN: a minute without samples);
 * it shows as a blank cell, never as the lowest bar, so "no data" and
 * "zero" look different.
 */
#ifndef RD_SPARK_H
#define RD_SPARK_H

#include <stddef.h>

/* Bar heights: Unicode has eight blocks, ASCII makes do with seven. */
#define SPARK_LEVELS_UTF8 8
#define SPARK_LEVELS_ASCII 7
/* Bytes a cell may take (a Unicode block is 3). */
#define SPARK_CELL_BYTES 3

typedef struct {
    double lo, hi;      /* the values drawn as the lowest and highest bar */
} spark_range;

typedef struct {
    size_t count;       /* finite values */
    double min, max;
    double last;        /* the newest finite value */
} spark_summary;

/* Folds n values into width cells, oldest left, newest right: with more
 * values than cells each cell takes the MAX of its share (a one-minute
 * spike must not vanish in an average); with fewer, one value per cell,
 * right-aligned (the newest at the right edge), the cells before them
 * gaps.  A cell with no finite value is NaN.  Returns the cells that hold
 * a value. */
size_t spark_resample(const double *v, size_t n, int width, double *cells);

/* The finite values' count, min, max and newest (all 0 when count is 0). */
spark_summary spark_summarise(const double *v, size_t n);

/* The range auto-scaling uses: the values' min..max (0..0 when none). */
spark_range spark_auto_range(const double *v, size_t n);

/* The bar (0..levels-1) of value v within r, clamped; a flat range
 * (hi <= lo) draws a positive value at the middle, since "steady" is all
 * such a series says, and zero or less at the floor (no ECC errors must
 * not look like some). */
int spark_level(double v, spark_range r, int levels);

/* The sparkline of n values in width cells into out (NUL-terminated):
 * resampled as spark_resample, scaled to *range (NULL: auto-scaled to the
 * cells' values), Unicode blocks, or ASCII "_.-=+*#" when ascii.  Gaps
 * are blanks.  Returns the cells written (width, or 0 when out is too
 * small: it needs width * SPARK_CELL_BYTES + 1 bytes). */
int spark_render(const double *v, size_t n, int width, const spark_range *range, int ascii, char *out,
                 size_t len);

#endif
