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
        unsigned char *k = x ? realloc(L->kind, n * sizeof *k) : NULL;
        if (k)
            L->kind = k;
        if (!y || !x || !k)
            return 0;
        L->cap = n;
    }
    if (ngroups > L->gcap) {
        int **arr[4] = { &L->head_y, &L->head_x, &L->sep_y, &L->sep_x };
        for (int a = 0; a < 4; a++) {
            int *more = realloc(*arr[a], ngroups * sizeof *more);
            if (!more)
                return 0;
            *arr[a] = more;
        }
        L->gcap = ngroups;
    }
    return 1;
}

/* Where the next position of a group goes: blocks wrap each group on its
 * own lines from its heading, flow runs on from where the last one ended. */
typedef struct {
    int y, x, width;
} pen;

static void pen_next(pen *p, int *y, int *x)
{
    if (p->x >= p->width) {
        p->y++;
        p->x = 0;
    }
    *y = p->y;
    *x = p->x++;
}

/* A group's positions from the pen on: its nodes, then (if it has any)
 * the separator and its devices.  k counts the cells. */
static void lay_group(fmap_layout *L, pen *p, size_t g, size_t nodes, size_t devices, size_t *k)
{
    for (size_t i = 0; i < nodes; i++, (*k)++) {
        pen_next(p, &L->cell_y[*k], &L->cell_x[*k]);
        L->kind[*k] = FMAP_NODE;
    }
    L->sep_y[g] = L->sep_x[g] = -1;
    if (!devices)
        return;
    pen_next(p, &L->sep_y[g], &L->sep_x[g]);
    for (size_t i = 0; i < devices; i++, (*k)++) {
        pen_next(p, &L->cell_y[*k], &L->cell_x[*k]);
        L->kind[*k] = FMAP_DEVICE;
    }
}

/* Blocks: a heading line, then the cells wrapping below it. */
static void lay_blocks(fmap_layout *L, const size_t *count, const size_t *dcount, size_t ngroups, int width)
{
    int y = 0;
    size_t k = 0;
    for (size_t g = 0; g < ngroups; g++) {
        L->head_y[g] = y++;
        L->head_x[g] = 0;
        pen p = { y, 0, width };
        size_t d = dcount ? dcount[g] : 0;
        lay_group(L, &p, g, count[g], d, &k);
        size_t used = count[g] + (d ? d + 1 : 0);
        y += used ? (int)((used - 1) / (size_t)width) + 1 : 0;
    }
    L->lines = y;
}

/* Flow: "head: " inline, the cells after it, every group on from where the
 * last one ended (a heading never splits across lines). */
static void lay_flow(fmap_layout *L, const size_t *count, const size_t *dcount, const int *head_w, size_t ngroups,
                     int width)
{
    pen p = { 0, 0, width };
    size_t k = 0;
    for (size_t g = 0; g < ngroups; g++) {
        int hw = head_w[g] < width ? head_w[g] : width - 1;
        if (p.x > 0 && p.x + hw + 1 > width) {
            p.y++;
            p.x = 0;
        }
        L->head_y[g] = p.y;
        L->head_x[g] = p.x;
        p.x += hw;
        lay_group(L, &p, g, count[g], dcount ? dcount[g] : 0, &k);
        p.x++;   /* a blank between groups */
    }
    L->lines = p.x > 0 ? p.y + 1 : p.y;
}

int fmap_lay(fmap_layout *L, const size_t *count, const size_t *dcount, const int *head_w, size_t ngroups,
             int width, int height)
{
    size_t n = 0;
    for (size_t g = 0; g < ngroups; g++)
        n += count[g] + (dcount ? dcount[g] : 0);
    L->n = L->ngroups = 0;
    L->lines = 0;
    L->flow = 0;
    if (width < 2 || !grow(L, n ? n : 1, ngroups ? ngroups : 1))
        return width < 2;
    L->n = n;
    L->ngroups = ngroups;
    lay_blocks(L, count, dcount, ngroups, width);
    if (L->lines > height) {
        L->flow = 1;
        lay_flow(L, count, dcount, head_w, ngroups, width);
    }
    return 1;
}

void fmap_free(fmap_layout *L)
{
    free(L->cell_y);
    free(L->cell_x);
    free(L->kind);
    free(L->head_y);
    free(L->head_x);
    free(L->sep_y);
    free(L->sep_x);
    L->cell_y = L->cell_x = L->head_y = L->head_x = L->sep_y = L->sep_x = NULL;
    L->kind = NULL;
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
