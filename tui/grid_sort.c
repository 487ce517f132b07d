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
 * on the ranks, which keeps ties in load order. */
#include "grid_sort.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* 12 bytes, not 24: the ranking's two arrays of these for 100,000 rows
 * were the console's peak (docs/performance.md, "The console").  A key
 * holds 8 bytes of the cell at a time, in halves so nothing pads it; rows
 * sharing them are ordered by the next 8 afterwards (grid_sort_finish_texts). */
typedef struct {
    uint32_t hi, lo;
    uint32_t row;
} sort_entry;

static void entry_set_key(sort_entry *e, uint64_t k)
{
    e->hi = (uint32_t)(k >> 32);
    e->lo = (uint32_t)k;
}

static int entry_same_key(const sort_entry *a, const sort_entry *b)
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

/* Stable LSD radix on the key, a byte at a time; bytes every key shares
 * (the high bytes of numbers near each other) cost only their count. */
#define ENTRY_BYTE(e, shift) ((unsigned)(((shift) < 32 ? (e).lo >> (shift) : (e).hi >> ((shift) - 32)) & 255))
static sort_entry *grid_sort_by_radix(sort_entry *a, sort_entry *tmp, size_t n)
{
    for (int shift = 0; n > 1 && shift < 64; shift += 8) {
        size_t count[256] = { 0 }, at = 0;
        for (size_t i = 0; i < n; i++)
            count[ENTRY_BYTE(a[i], shift)]++;
        if (count[ENTRY_BYTE(a[0], shift)] == n)
            continue;
        for (int b = 0; b < 256; b++) {
            size_t c = count[b];
            count[b] = at;
            at += c;
        }
        for (size_t i = 0; i < n; i++)
            tmp[count[ENTRY_BYTE(a[i], shift)]++] = a[i];
        sort_entry *t = a;
        a = tmp;
        tmp = t;
    }
    return a;
}

/* A short run: insertion sort, without radix's 8 passes of 256. */
static void grid_sort_by_insertion(sort_entry *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        sort_entry x = a[i];
        size_t j = i;
        for (; j > 0 && (a[j - 1].hi > x.hi || (a[j - 1].hi == x.hi && a[j - 1].lo > x.lo)); j--)
            a[j] = a[j - 1];
        a[j] = x;
    }
}

/* Orders each run of texts with equal keys by their next 8 bytes, and so
 * on down (a string sort 8 bytes at a time); a run whose key ends in a NUL
 * holds equal texts.  Bytes 8-15 were made with the first (kord2), later
 * ones are read from the rows.  e holds bytes 8 * depth on; tmp has room
 * for n. */
static void grid_sort_finish_texts(const grid *g, sort_entry *e, sort_entry *tmp, size_t n, size_t depth)
{
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && entry_same_key(&e[j], &e[i]))
            j++;
        if (j - i > 1 && !g->kis[e[i].row] && (e[i].lo & 255)) {
            for (size_t x = i; x < j; x++) {
                const char *rest = g->rows[e[x].row].cells[g->kcol] + 8 * (depth + 1);
                entry_set_key(&e[x], depth == 0 ? g->kord2[e[x].row] : grid_sort_make_key(0, 0, rest));
            }
            if (j - i < 32) {
                grid_sort_by_insertion(e + i, j - i);
            } else {
                sort_entry *out = grid_sort_by_radix(e + i, tmp, j - i);
                if (out != e + i)
                    memcpy(e + i, out, (j - i) * sizeof *e);
            }
            grid_sort_finish_texts(g, e + i, tmp, j - i, depth + 1);
        }
        i = j;
    }
}

/* 1 when rows a and b hold equal cells for the comparison. */
static int grid_sort_same_cells(const grid *g, size_t a, size_t b)
{
    if (g->kis[a] != g->kis[b] || g->kord[a] != g->kord[b])
        return 0;
    /* A number's key is its value (-0 and 0 share it, and a total order
     * has no NaN). */
    if (g->kis[a])
        return 1;
    if (g->kord2[a] != g->kord2[b])
        return 0;
    /* Texts longer than 16 bytes: the keys saw only their start. */
    return !(g->kord[a] & 255) || !(g->kord2[a] & 255) ||
           strcmp(g->rows[a].cells[g->kcol], g->rows[b].cells[g->kcol]) == 0;
}

int grid_sort_rank(grid *g)
{
    size_t n = g->nrows;
    if (n > UINT32_MAX)
        return 0;
    uint32_t *rank = realloc(g->krank, (n ? n : 1) * sizeof *rank);
    if (!rank)
        return 0;
    g->krank = rank;
    sort_entry *e = malloc((n ? n : 1) * 2 * sizeof *e);
    if (!e)
        return 0;
    /* One group of text cells and one of numbers, in the order ktext_first
     * says: a number's key and a text's key never compare. */
    size_t nfirst = 0;
    for (size_t r = 0; r < n; r++)
        nfirst += !g->kis[r] == !!g->ktext_first;
    size_t at[2] = { 0, nfirst };
    for (size_t r = 0; r < n; r++) {
        sort_entry *x = &e[at[!g->kis[r] != !!g->ktext_first]++];
        entry_set_key(x, g->kord[r]);
        x->row = (uint32_t)r;
    }
    uint32_t r = 0;
    size_t prev = 0, done = 0;
    for (int part = 0; part < 2; part++) {
        size_t len = part ? n - nfirst : nfirst;
        sort_entry *base = part ? e + nfirst : e;
        sort_entry *sorted = grid_sort_by_radix(base, base + n, len);
        grid_sort_finish_texts(g, sorted, sorted == base ? base + n : base, len, 0);
        for (size_t i = 0; i < len; i++) {
            size_t row = sorted[i].row;
            r += done++ > 0 && !grid_sort_same_cells(g, prev, row);
            rank[row] = r;
            prev = row;
        }
    }
    free(e);
    g->nrank = (size_t)r + 1;
    /* Sorts of a ranked column read only the ranks: 1.6 MB less. */
    free(g->kord);
    free(g->kord2);
    g->kord = g->kord2 = NULL;
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
        size_t row = g->match[i], r = g->krank[row];
        g->view[count[g->sort_desc ? top - r : r]++] = row;
    }
    g->nview = g->nmatch;
    free(count);
    return 1;
}
