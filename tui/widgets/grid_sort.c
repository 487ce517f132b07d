/* grid_sort.c - sorting 100,000 rows within a keypress.
 *
 * qsort through a comparison function with strcmp on rows scattered over
 * the heap takes 25-45 ms for the Jobs table.  When grid_make_keys found
 * the column's comparison a total order, every row gets its rank among the
 * column's distinct cells once, from a radix sort on keys made once per row
 * (a number's value; a text's first 8 bytes, then the next 8 for the rows
 * sharing them, and so on), one group of text cells and one of numbers in
 * the order ktext_first says; only runs of texts sharing their first 16
 * bytes read the rows again.  A sort of the column is then a counting sort
 * on the ranks, stable, which keeps ties in load order. */
#include "grid_sort.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The ranking sorts kord in place: scratch of two arrays of 24 bytes a row
 * beside it was the console's peak memory for 100,000 rows
 * (docs/performance.md, "The console").  A key holds 8 bytes of the cell
 * at a time; rows sharing them are ordered by the next 8 afterwards
 * (grid_sort_rank_run). */
static void entry_set_key(grid_key *e, uint64_t k)
{
    e->hi = (uint32_t)(k >> 32);
    e->lo = (uint32_t)k;
}

static int entry_same_key(const grid_key *a, const grid_key *b)
{
    return a->hi == b->hi && a->lo == b->lo;
}

unsigned long long grid_sort_make_key(int is_number, double num, const char *text)
{
    uint64_t k = 0;
    if (is_number) {
        /* -0 equals 0 for the comparison, so both get 0's key; then the
         * IEEE bits order like integers once negatives are flipped. */
        double x = num == 0 ? 0.0 : num;
        memcpy(&k, &x, sizeof k);
        return k >> 63 ? ~k : k | (UINT64_C(1) << 63);
    }
    /* Big-endian, zero padded: the end of a short text is its smallest
     * byte, as for strcmp (which compares unsigned chars). */
    int i = 0;
    for (; i < 8 && text[i]; i++)
        k = k << 8 | (unsigned char)text[i];
    for (; i < 8; i++)
        k <<= 8;
    return k;
}

/* A short run: insertion sort, without radix's passes of 256. */
static void grid_sort_by_insertion(grid_key *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        grid_key x = a[i];
        size_t j = i;
        for (; j > 0 && (a[j - 1].hi > x.hi || (a[j - 1].hi == x.hi && a[j - 1].lo > x.lo)); j--)
            a[j] = a[j - 1];
        a[j] = x;
    }
}

double grid_sort_key_number(unsigned long long key)
{
    uint64_t k = key >> 63 ? key ^ (UINT64_C(1) << 63) : ~(uint64_t)key;
    double x;
    memcpy(&x, &k, sizeof x);
    return x;
}

/* MSD radix in place (American flag sort) on the key, from the byte at
 * shift down: no second array of entries, and ranks need no stability.
 * Bytes every key shares (the high bytes of numbers near each other, an
 * id's prefix) cost only their count. */
#define ENTRY_BYTE(e, shift) ((unsigned)(((shift) < 32 ? (e).lo >> (shift) : (e).hi >> ((shift) - 32)) & 255))
static void grid_sort_by_radix(grid_key *a, size_t n, int shift)
{
    for (; n >= 32; shift -= 8) {
        size_t count[256] = { 0 }, next[256], end[256], at = 0;
        for (size_t i = 0; i < n; i++)
            count[ENTRY_BYTE(a[i], shift)]++;
        if (count[ENTRY_BYTE(a[0], shift)] == n) {
            if (shift == 0)
                return;
            continue;
        }
        for (unsigned b = 0; b < 256; b++) {
            next[b] = at;
            at += count[b];
            end[b] = at;
        }
        /* Each entry goes to its byte's next free place, and the one it
         * displaces goes on, until an entry of this byte's bucket comes. */
        for (unsigned b = 0; b < 256; b++) {
            while (next[b] < end[b]) {
                grid_key x = a[next[b]];
                for (unsigned xb; (xb = ENTRY_BYTE(x, shift)) != b;) {
                    grid_key t = a[next[xb]];
                    a[next[xb]++] = x;
                    x = t;
                }
                a[next[b]++] = x;
            }
        }
        for (unsigned b = 0; shift > 0 && b < 256; b++)
            if (count[b] > 1)
                grid_sort_by_radix(a + end[b] - count[b], count[b], shift - 8);
        return;
    }
    grid_sort_by_insertion(a, n);
}

/* Sorts e (whose keys hold bytes 8 * depth on of their cells) and gives
 * each cell, in order, the next rank: a run of equal numbers' keys, or of
 * texts' keys ending in a NUL, is one cell; a run of texts going on is
 * sorted again by their next 8 bytes (made with the first as kord2, later
 * ones read from the rows). */
static void grid_sort_rank_run(grid *g, grid_key *e, size_t n, size_t depth, uint32_t *rank)
{
    grid_sort_by_radix(e, n, 56);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && entry_same_key(&e[j], &e[i]))
            j++;
        if (j - i > 1 && !g->kis[e[i].row] && (e[i].lo & 255)) {
            for (size_t x = i; x < j; x++) {
                const char *rest = g->rows[e[x].row].cells[g->kcol] + 8 * (depth + 1);
                entry_set_key(&e[x], depth == 0 ? g->kord2[e[x].row] : grid_sort_make_key(0, 0, rest));
            }
            grid_sort_rank_run(g, e + i, j - i, depth + 1, rank);
        } else {
            for (size_t x = i; x < j; x++)
                g->krank[e[x].row] = *rank;
            ++*rank;
        }
        i = j;
    }
}

int grid_sort_rank(grid *g)
{
    size_t n = g->nrows;
    /* The old ranks are of other rows: gone before the new ones come. */
    free(g->krank);
    g->krank = malloc((n ? n : 1) * sizeof *g->krank);
    if (!g->krank)
        return 0;
    grid_key *e = g->kord;
    g->kord = NULL;
    /* One group of text cells and one of numbers, in the order ktext_first
     * says: a number's key and a text's key never compare. */
    size_t nfirst = 0;
    for (size_t i = 0; i < n; i++) {
        if (!g->kis[e[i].row] == !!g->ktext_first) {
            grid_key t = e[nfirst];
            e[nfirst++] = e[i];
            e[i] = t;
        }
    }
    uint32_t rank = 0;
    grid_sort_rank_run(g, e, nfirst, 0, &rank);
    grid_sort_rank_run(g, e + nfirst, n - nfirst, 0, &rank);
    free(e);
    free(g->kord2);
    g->kord2 = NULL;
    /* Sorts of a ranked column read only the ranks. */
    g->nrank = rank ? rank : 1;
    return 1;
}

int grid_sort_view(grid *g)
{
    if (!g->nrank)
        return 0;
    /* A counting sort on the ranks, stable, so equal cells stay in load
     * order both ways: two passes over the rows instead of a sort. */
    uint32_t *count = calloc(g->nrank + 1, sizeof *count);
    if (!count)
        return 0;
    size_t top = g->nrank - 1;
    for (size_t i = 0; i < g->nmatch; i++) {
        size_t r = g->krank[g->match[i]];
        count[(g->sort_desc ? top - r : r) + 1]++;
    }
    for (size_t r = 0; r < g->nrank; r++)
        count[r + 1] += count[r];
    for (size_t i = 0; i < g->nmatch; i++) {
        uint32_t row = g->match[i];
        size_t r = g->krank[row];
        g->view[count[g->sort_desc ? top - r : r]++] = row;
    }
    g->nview = g->nmatch;
    free(count);
    return 1;
}
