/* fleetmap.c - the fleet grid's geometry and shading (fleetmap.h). */
#include "fleetmap.h"

#include <math.h>
#include <stdlib.h>

static int grow(fmap_layout *L, size_t n, size_t ngroups)
{
    if (n > L->cap) {
        int *y = realloc(L->cell_y, n * sizeof *y);
        if (y)
            L->cell_y = y;
        int *x = y ? realloc(L->cell_x, n * sizeof *x) : NULL;
        if (x)
            L->cell_x = x;
        if (!y || !x)
            return 0;
        L->cap = n;
    }
    if (ngroups > L->gcap) {
        int *y = realloc(L->head_y, ngroups * sizeof *y);
        if (y)
            L->head_y = y;
        int *x = y ? realloc(L->head_x, ngroups * sizeof *x) : NULL;
        if (x)
            L->head_x = x;
        if (!y || !x)
            return 0;
        L->gcap = ngroups;
    }
    return 1;
}

/* Blocks: a heading line, then the cells wrapping below it. */
static void lay_blocks(fmap_layout *L, const size_t *count, size_t ngroups, int width)
{
    int y = 0;
    size_t k = 0;
    for (size_t g = 0; g < ngroups; g++) {
        L->head_y[g] = y++;
        L->head_x[g] = 0;
        for (size_t i = 0; i < count[g]; i++, k++) {
            L->cell_y[k] = y + (int)(i / (size_t)width);
            L->cell_x[k] = (int)(i % (size_t)width);
        }
        y += count[g] ? (int)((count[g] - 1) / (size_t)width) + 1 : 0;
    }
    L->lines = y;
}

/* Flow: "head: " inline, the cells after it, every group on from where the
 * last one ended (a heading never splits across lines). */
static void lay_flow(fmap_layout *L, const size_t *count, const int *head_w, size_t ngroups, int width)
{
    int y = 0, x = 0;
    size_t k = 0;
    for (size_t g = 0; g < ngroups; g++) {
        int hw = head_w[g] < width ? head_w[g] : width - 1;
        if (x > 0 && x + hw + 1 > width) {
            y++;
            x = 0;
        }
        L->head_y[g] = y;
        L->head_x[g] = x;
        x += hw;
        for (size_t i = 0; i < count[g]; i++, k++) {
            if (x >= width) {
                y++;
                x = 0;
            }
            L->cell_y[k] = y;
            L->cell_x[k] = x++;
        }
        x++;   /* a blank between groups */
    }
    L->lines = x > 0 ? y + 1 : y;
}

int fmap_lay(fmap_layout *L, const size_t *count, const int *head_w, size_t ngroups, int width, int height)
{
    size_t n = 0;
    for (size_t g = 0; g < ngroups; g++)
        n += count[g];
    L->n = L->ngroups = 0;
    L->lines = 0;
    L->flow = 0;
    if (width < 2 || !grow(L, n ? n : 1, ngroups ? ngroups : 1))
        return width < 2;
    L->n = n;
    L->ngroups = ngroups;
    lay_blocks(L, count, ngroups, width);
    if (L->lines > height) {
        L->flow = 1;
        lay_flow(L, count, head_w, ngroups, width);
    }
    return 1;
}

void fmap_free(fmap_layout *L)
{
    free(L->cell_y);
    free(L->cell_x);
    free(L->head_y);
    free(L->head_x);
    L->cell_y = L->cell_x = L->head_y = L->head_x = NULL;
    L->n = L->ngroups = L->cap = L->gcap = 0;
}

size_t fmap_vertical(const fmap_layout *L, size_t cur, int dir)
{
    if (cur >= L->n)
        return cur;
    int y = L->cell_y[cur], x = L->cell_x[cur];
    /* Cells run in line order: the first cell met on another line names
     * the line to land on; then the nearest column on it. */
    size_t i = cur, best = cur;
    int line = y, found = 0;
    while (dir < 0 ? i > 0 : i + 1 < L->n) {
        i = dir < 0 ? i - 1 : i + 1;
        if (!found && L->cell_y[i] != y) {
            line = L->cell_y[i];
            found = 1;
            best = i;
        }
        if (found) {
            if (L->cell_y[i] != line)
                break;
            if (abs(L->cell_x[i] - x) < abs(L->cell_x[best] - x))
                best = i;
        }
    }
    return best;
}

int fmap_scroll(int top, int y, int rows, int lines)
{
    if (rows <= 0)
        return 0;
    if (y < top)
        top = y;
    if (y >= top + rows)
        top = y - rows + 1;
    if (top > lines - rows)
        top = lines - rows;
    return top < 0 ? 0 : top;
}

int fmap_level(double v, double lo, double hi, int levels)
{
    if (isnan(v) || levels <= 0)
        return -1;
    if (hi <= lo || v <= lo)
        return 0;
    if (v >= hi)
        return levels - 1;
    int l = (int)((v - lo) / (hi - lo) * levels);
    return l >= levels ? levels - 1 : l;
}

char fmap_shade(int level)
{
    static const char shades[FMAP_SHADES + 1] = ".:+#@";
    if (level < 0)
        return '?';
    return shades[level >= FMAP_SHADES ? FMAP_SHADES - 1 : level];
}
