/* spark.c - sparklines (see spark.h). */
#include "spark.h"

#include <math.h>
#include <string.h>

static const char *const blocks[SPARK_LEVELS_UTF8] = {
    "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588",
};
static const char ascii_levels[SPARK_LEVELS_ASCII + 1] = "_.-=+*#";

size_t spark_resample(const double *v, size_t n, int width, double *cells)
{
    size_t filled = 0;
    if (width <= 0)
        return 0;
    size_t w = (size_t)width;
    for (size_t j = 0; j < w; j++)
        cells[j] = NAN;
    if (n <= w) {
        /* Right-aligned: the newest value at the right edge. */
        for (size_t i = 0; i < n; i++)
            if (isfinite(v[i])) {
                cells[w - n + i] = v[i];
                filled++;
            }
        return filled;
    }
    for (size_t j = 0; j < w; j++) {
        size_t from = j * n / w, to = (j + 1) * n / w;
        for (size_t i = from; i < to; i++)
            if (isfinite(v[i]) && (isnan(cells[j]) || v[i] > cells[j]))
                cells[j] = v[i];
        filled += !isnan(cells[j]);
    }
    return filled;
}

spark_summary spark_summarise(const double *v, size_t n)
{
    spark_summary s = { 0, 0, 0, 0 };
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i]))
            continue;
        if (s.count == 0 || v[i] < s.min)
            s.min = v[i];
        if (s.count == 0 || v[i] > s.max)
            s.max = v[i];
        s.last = v[i];
        s.count++;
    }
    return s;
}

spark_range spark_auto_range(const double *v, size_t n)
{
    spark_summary s = spark_summarise(v, n);
    spark_range r = { s.min, s.max };
    return r;
}

int spark_level(double v, spark_range r, int levels)
{
    if (levels <= 1)
        return 0;
    if (!(r.hi > r.lo))
        return v > 0 ? levels / 2 : 0;
    double f = (v - r.lo) / (r.hi - r.lo);
    if (!(f > 0))   /* also NaN: the caller draws gaps itself */
        return 0;
    if (f >= 1)
        return levels - 1;
    /* Rounded, so a value a hair above lo is not lifted a whole bar. */
    int l = (int)(f * (levels - 1) + 0.5);
    return l < 0 ? 0 : l > levels - 1 ? levels - 1 : l;
}

int spark_render(const double *v, size_t n, int width, const spark_range *range, int ascii, char *out,
                 size_t len)
{
    double cells[1024];
    if (len == 0)
        return 0;
    out[0] = '\0';
    if (width <= 0 || len < (size_t)width * SPARK_CELL_BYTES + 1)
        return 0;
    if (width > (int)(sizeof cells / sizeof cells[0]))
        width = (int)(sizeof cells / sizeof cells[0]);
    spark_resample(v, n, width, cells);
    spark_range r = range ? *range : spark_auto_range(cells, (size_t)width);
    int levels = ascii ? SPARK_LEVELS_ASCII : SPARK_LEVELS_UTF8;
    size_t used = 0;
    for (int j = 0; j < width; j++) {
        if (isnan(cells[j])) {
            out[used++] = ' ';
            continue;
        }
        int l = spark_level(cells[j], r, levels);
        if (ascii) {
            out[used++] = ascii_levels[l];
        } else {
            size_t bl = strlen(blocks[l]);
            memcpy(out + used, blocks[l], bl);
            used += bl;
        }
    }
    out[used] = '\0';
    return width;
}
