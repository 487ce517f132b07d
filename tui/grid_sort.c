/* grid_sort.c - sorting 100,000 rows within a keypress.
 *
 * qsort through a comparison function with strcmp on rows scattered over
 * the heap takes 25-45 ms for the Jobs table.  When grid_make_keys found
 * the column's comparison a total order, the sorted view is unique, so it
 * can come from a stable radix sort on keys made once per row (a number's
 * value; a text's first 16 bytes), one group of text cells and one of
 * numbers in the order ktext_first says, ties left in load order; only
 * runs of texts sharing their first 16 bytes read the rows again. */
#include "grid_sort.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t k, k2;     /* a text's bytes 0-7 and 8-15; k2 0 for numbers */
    size_t row;
} sort_entry;

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

/* Stable LSD radix on k then k2, a byte at a time; bytes every key shares (the
 * high bytes of numbers near each other) cost only their count. */
#define ENTRY_BYTE(e, shift) ((unsigned)(((shift) < 64 ? (e).k2 >> (shift) : (e).k >> ((shift) - 64)) & 255))
static sort_entry *grid_sort_by_radix(sort_entry *a, sort_entry *tmp, size_t n)
{
    for (int shift = 0; n > 1 && shift < 128; shift += 8) {
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

/* A short run: insertion sort, stable, without radix's 8 passes of 256. */
static void grid_sort_by_insertion(sort_entry *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        sort_entry x = a[i];
        size_t j = i;
        for (; j > 0 && (a[j - 1].k > x.k || (a[j - 1].k == x.k && a[j - 1].k2 > x.k2)); j--)
            a[j] = a[j - 1];
        a[j] = x;
    }
}

/* Orders each run of texts with equal keys by their next 16 bytes, and so
 * on down (a string sort 16 bytes at a time); a run whose key ends in a
 * NUL holds equal texts and stays in load order.  tmp has room for n. */
static void grid_sort_finish_texts(const grid *g, sort_entry *e, sort_entry *tmp, size_t n, size_t depth,
                                   uint64_t flip)
{
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && e[j].k == e[i].k && e[j].k2 == e[i].k2)
            j++;
        if (j - i > 1 && !g->kis[e[i].row] && ((e[i].k2 ^ flip) & 255)) {
            for (size_t x = i; x < j; x++) {
                const char *rest = g->rows[e[x].row].cells[g->kcol] + 16 * (depth + 1);
                e[x].k = grid_sort_make_key(0, 0, rest) ^ flip;
                e[x].k2 = (e[x].k ^ flip) & 255 ? grid_sort_make_key(0, 0, rest + 8) ^ flip : flip;
            }
            if (j - i < 32) {
                grid_sort_by_insertion(e + i, j - i);
            } else {
                sort_entry *out = grid_sort_by_radix(e + i, tmp, j - i);
                if (out != e + i)
                    memcpy(e + i, out, (j - i) * sizeof *e);
            }
            grid_sort_finish_texts(g, e + i, tmp, j - i, depth + 1, flip);
        }
        i = j;
    }
}

/* Sorts n rows given in load order into out, by the keys alone. */
static int grid_sort_rows(const grid *g, const size_t *rows, size_t n, int desc, size_t *out)
{
    sort_entry *e = malloc((n ? n : 1) * 2 * sizeof *e);
    if (!e)
        return 0;
    /* Descending flips every key and the group order; ties stay in load
     * order, as the comparison breaks them. */
    uint64_t flip = desc ? UINT64_MAX : 0;
    int first_number = !g->ktext_first != !!desc;
    size_t nfirst = 0, m = 0;
    for (size_t i = 0; i < n; i++)
        nfirst += !g->kis[rows[i]] == !first_number;
    size_t at[2] = { 0, nfirst };
    for (size_t i = 0; i < n; i++) {
        size_t r = rows[i];
        int second = !g->kis[r] != !first_number;
        e[at[second]++] = (sort_entry){ g->kord[r] ^ flip, g->kord2[r] ^ flip, r };
    }
    /* Each group alone: a number's key and a text's key never compare. */
    sort_entry *sorted[2];
    sorted[0] = grid_sort_by_radix(e, e + n, nfirst);
    sorted[1] = nfirst < n ? grid_sort_by_radix(e + nfirst, e + n + nfirst, n - nfirst) : e + nfirst;
    for (int part = 0; part < 2; part++) {
        size_t len = part ? n - nfirst : nfirst;
        sort_entry *base = part ? e + nfirst : e, *other = sorted[part] == base ? base + n : base;
        grid_sort_finish_texts(g, sorted[part], other, len, 0, flip);
        for (size_t i = 0; i < len; i++)
            out[m++] = sorted[part][i].row;
    }
    free(e);
    return 1;
}

/* 1 when rows a and b hold equal cells for the comparison. */
static int grid_sort_same_cells(const grid *g, size_t a, size_t b)
{
    if (g->kis[a] != g->kis[b])
        return 0;
    if (g->kis[a])
        return g->knum[a] == g->knum[b];
    if (g->kord[a] != g->kord[b] || g->kord2[a] != g->kord2[b])
        return 0;
    /* Texts longer than 16 bytes: the keys saw only their start. */
    return !(g->kord[a] & 255) || !(g->kord2[a] & 255) ||
           strcmp(g->rows[a].cells[g->kcol], g->rows[b].cells[g->kcol]) == 0;
}

int grid_sort_rank(grid *g)
{
    size_t n = g->nrows;
    size_t *all = calloc(n ? n : 1, sizeof *all), *order = malloc((n ? n : 1) * sizeof *order);
    size_t *rank = all && order ? realloc(g->krank, (n ? n : 1) * sizeof *rank) : NULL;
    if (rank)
        g->krank = rank;
    for (size_t i = 0; rank && i < n; i++)
        all[i] = i;
    int ok = rank && grid_sort_rows(g, all, n, 0, order);
    size_t r = 0;
    for (size_t i = 0; ok && i < n; i++) {
        r += i > 0 && !grid_sort_same_cells(g, order[i - 1], order[i]);
        rank[order[i]] = r;
    }
    g->nrank = ok ? r + 1 : 0;
    free(all);
    free(order);
    if (ok) {
        /* Sorts of a ranked column read only the ranks: 2.4 MB less. */
        free(g->knum);
        free(g->kord);
        free(g->kord2);
        g->knum = NULL;
        g->kord = g->kord2 = NULL;
    }
    return ok;
}

int grid_sort_view(grid *g)
{
    if (!g->nrank)
        return grid_sort_rows(g, g->match, g->nmatch, g->sort_desc, g->view);
    /* A counting sort on the ranks, stable, so equal cells stay in load
     * order both ways: two passes over the rows instead of a sort. */
    size_t *count = calloc(g->nrank + 1, sizeof *count);
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
