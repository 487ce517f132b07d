/* grid.c - rows, filter, stable sort, cursor and marks of one table. */
#include "grid.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid_sort.h"
#include "text.h"

void grid_init(grid *g, size_t ncols)
{
    memset(g, 0, sizeof *g);
    g->ncols = ncols;
    g->sort_col = -1;
    g->kcol = g->vcol = -1;
}

/* The parsed sort keys and the kept match set describe the rows as they
 * were: every change to the rows forgets them. */
static void grid_forget_rows(grid *g)
{
    g->kcol = -1;
    g->mvalid = 0;
}

/* A row is one allocation: the cell pointers, then the key and the cells'
 * text (a table of 100,000 jobs would otherwise be a million small blocks). */
static void row_free(grid_row *r, size_t ncols)
{
    (void)ncols;
    free(r->cells);
}

void grid_clear_rows(grid *g)
{
    /* Remember where the cursor was: the rows it points into go away. */
    const grid_row *cur = grid_current(g);
    if (cur && !g->keep)
        g->keep = strdup(cur->key);
    for (size_t i = 0; i < g->nrows; i++)
        row_free(&g->rows[i], g->ncols);
    g->nrows = 0;
    g->nview = 0;
    grid_forget_rows(g);
}

void grid_clear_marks(grid *g)
{
    for (size_t i = 0; i < g->nmarks; i++)
        free(g->marks[i]);
    free(g->marks);
    g->marks = NULL;
    g->nmarks = 0;
}

void grid_free(grid *g)
{
    grid_clear_rows(g);
    grid_clear_marks(g);
    free(g->keep);
    free(g->rows);
    free(g->view);
    free(g->kis);
    free(g->kord);
    free(g->kord2);
    free(g->krank);
    free(g->match);
    memset(g, 0, sizeof *g);
    g->sort_col = -1;
    g->kcol = g->vcol = -1;
}

/* FNV-1a: cheap, and enough to skip nearly every row without reading its
 * key, which lives in a block of its own elsewhere on the heap. */
static unsigned grid_hash_key(const char *key)
{
    unsigned h = 2166136261u;
    for (; *key; key++)
        h = (h ^ (unsigned char)*key) * 16777619u;
    return h;
}

/* Room for n rows in g->rows. */
static int grid_reserve_rows(grid *g, size_t n)
{
    if (n <= g->cap)
        return 1;
    if (n > UINT32_MAX)
        return 0;
    size_t cap = g->cap ? g->cap * 2 : 64;
    while (cap < n)
        cap *= 2;
    grid_row *rows = realloc(g->rows, cap * sizeof *rows);
    if (!rows)
        return 0;
    g->rows = rows;
    g->cap = cap;
    return 1;
}

grid_row *grid_add_row(grid *g, const char *key, const char *const *cells)
{
    if (!grid_reserve_rows(g, g->nrows + 1))
        return NULL;
    /* The kept match set stays: it knows which rows it has not seen. */
    g->kcol = -1;
    grid_row *r = &g->rows[g->nrows];
    memset(r, 0, sizeof *r);
    r->bar = -1;
    size_t nptr = g->ncols ? g->ncols : 1, size = nptr * sizeof(char *) + strlen(key ? key : "") + 1;
    for (size_t i = 0; i < g->ncols; i++)
        size += strlen(cells && cells[i] ? cells[i] : "-") + 1;
    char **block = malloc(size);
    if (!block)
        return NULL;
    char *text = (char *)(block + nptr);
    r->cells = block;
    r->key = text;
    text = stpcpy(text, key ? key : "") + 1;
    r->khash = grid_hash_key(r->key);
    for (size_t i = 0; i < g->ncols; i++) {
        r->cells[i] = text;
        text = stpcpy(text, cells && cells[i] ? cells[i] : "-") + 1;
    }
    g->nrows++;
    return r;
}

void grid_append_rows(grid *g, grid *from)
{
    if (from->nrows == 0)
        return;
    if (g->nrows == 0) {
        /* A table's first rows (read while another pane showed: all of
         * them) change hands rather than being copied beside themselves,
         * 3.2 MB more for 100,000 rows at the console's peak. */
        grid_row *rows = g->rows;
        size_t cap = g->cap;
        g->rows = from->rows;
        g->cap = from->cap;
        g->nrows = from->nrows;
        from->rows = rows;
        from->cap = cap;
    } else {
        if (!grid_reserve_rows(g, g->nrows + from->nrows))
            return;
        memcpy(g->rows + g->nrows, from->rows, from->nrows * sizeof *from->rows);
        g->nrows += from->nrows;
    }
    g->kcol = -1;
    from->nrows = 0;
    grid_forget_rows(from);
}

void grid_take_rows(grid *g, grid *from)
{
    grid_clear_rows(g);
    free(g->rows);
    g->rows = from->rows;
    g->nrows = from->nrows;
    g->cap = from->cap;
    from->rows = NULL;
    from->nrows = from->cap = 0;
    grid_forget_rows(from);
}

int grid_replace_row(grid *g, grid *from)
{
    if (from->nrows != 1)
        return 0;
    for (size_t i = 0; i < g->nrows; i++) {
        if (strcmp(g->rows[i].key, from->rows[0].key) == 0) {
            grid_swap_row(g, i, from);
            return 1;
        }
    }
    return 0;
}

int grid_row_matches(const grid_row *r, size_t ncols, const char *filter)
{
    int negate = filter[0] == '!';
    const char *needle = filter + negate;
    if (!*needle)
        return 1;
    int hit = 0;
    for (size_t i = 0; i < ncols && !hit; i++)
        hit = text_contains(r->cells[i], needle);
    return negate ? !hit : hit;
}

/* A job explained in idle moments replaces its row many times a second;
 * the kept sort keys and match set stay true when the row's sort cell is
 * the same text (every comparison answers as before) and it passes the
 * filter as the old row did, so the next key need not redo 100,000 rows. */
void grid_swap_row(grid *g, size_t r, grid *from)
{
    if (r >= g->nrows || from->nrows != 1)
        return;
    grid_row old = g->rows[r];
    g->rows[r] = from->rows[0];
    from->rows[0] = old;
    const grid_row *now = &g->rows[r];
    if (g->kcol >= 0 && strcmp(old.cells[g->kcol], now->cells[g->kcol]) != 0)
        g->kcol = -1;
    if (g->mvalid && ((g->vcol >= 0 && strcmp(old.cells[g->vcol], now->cells[g->vcol]) != 0) ||
                      (grid_row_matches(&old, g->ncols, g->mfilter) &&
                       grid_row_passes_terms(&old, g->ncols, g->mterms, g->nmterms)) !=
                      (grid_row_matches(now, g->ncols, g->mfilter) &&
                       grid_row_passes_terms(now, g->ncols, g->mterms, g->nmterms))))
        g->mvalid = 0;
    grid_forget_rows(from);
}

/* Parses a whole cell as a number ("12", "0.5", "-3", "2.5/4" counts its
 * first number) so numeric columns sort by value. */
static int cell_number(const char *s, double *out)
{
    char *end;
    if (!*s)
        return 0;
    *out = strtod(s, &end);
    return end != s && (*end == '\0' || *end == '/' || *end == ' ' || *end == '%');
}

/* Parses the sort column of every row once, so that a sort compares ready
 * keys instead of running strtod twice in each of its n log n comparisons
 * (30 ms on 100,000 jobs).  It also works out whether the comparison
 * (numbers by value when both cells are numbers, text by strcmp otherwise)
 * orders this column totally: a column mixing numbers and text can make it
 * go round ("10" < "1x" and "1x" < "9" as text, "9" < "10" as numbers), and
 * a NaN equals everything; then only the same qsort call over the same
 * input as before gives the same order.  When every text cell sorts before
 * (or after) every number cell as text, it is total, any correct sort gives
 * that one order, and a narrower filter may keep the sorted view. */
static int grid_make_keys(grid *g, int column)
{
    size_t col = (size_t)column, n = g->nrows ? g->nrows : 1;
    if (g->kcol == column)
        return 1;
    unsigned char *kis = realloc(g->kis, n);
    if (kis)
        g->kis = kis;
    grid_key *kord = kis ? realloc(g->kord, n * sizeof *kord) : NULL;
    if (kord)
        g->kord = kord;
    unsigned long long *kord2 = kord ? realloc(g->kord2, n * sizeof *kord2) : NULL;
    if (!kord2)
        return 0;
    g->kord2 = kord2;
    const char *num_lo = NULL, *num_hi = NULL, *text_lo = NULL, *text_hi = NULL;
    int nan = 0;
    for (size_t i = 0; i < g->nrows; i++) {
        const char *s = g->rows[i].cells[col];
        double num = 0;
        kis[i] = (unsigned char)cell_number(s, &num);
        /* A number's key keeps its value (grid_sort_key_number): no array
         * of the numbers beside the keys. */
        unsigned long long k = grid_sort_make_key(kis[i], num, s);
        grid_key_set(&kord[i], k, i);
        kord2[i] = !kis[i] && (k & 255) ? grid_sort_make_key(0, 0, s + 8) : 0;
        const char **lo = kis[i] ? &num_lo : &text_lo, **hi = kis[i] ? &num_hi : &text_hi;
        nan |= kis[i] && num != num;
        if (!*lo || strcmp(s, *lo) < 0)
            *lo = s;
        if (!*hi || strcmp(s, *hi) > 0)
            *hi = s;
    }
    g->ktext_first = !num_lo || !text_lo || strcmp(text_hi, num_lo) < 0;
    g->ktotal = !nan && (g->ktext_first || strcmp(text_lo, num_hi) > 0);
    g->kcol = column;
    g->nrank = 0;
    if (g->ktotal)
        grid_sort_rank(g);
    return 1;
}

/* qsort is not stable and has no context argument; a file-local pointer is
 * the portable way, and the console is single-threaded. */
static const grid *sorting;

/* The comparison of old (cell_number on both cells each time), on the keys
 * grid_make_keys parsed: the same answer for every pair (a NaN equals
 * every number, as before).  With a total order it is the fallback when
 * memory ran short: the ranks when there are some, else the keys. */
static int grid_compare_rows(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    const grid *g = sorting;
    int c;
    if (g->nrank) {
        c = (g->krank[a] > g->krank[b]) - (g->krank[a] < g->krank[b]);
    } else if (g->kis[a] && g->kis[b]) {
        double x = grid_sort_key_number(grid_key_get(&g->kord[a]));
        double y = grid_sort_key_number(grid_key_get(&g->kord[b]));
        c = x < y ? -1 : x > y ? 1 : 0;
    } else {
        c = strcmp(g->rows[a].cells[g->sort_col], g->rows[b].cells[g->sort_col]);
    }
    if (g->sort_desc)
        c = -c;
    if (c == 0)
        c = a < b ? -1 : a > b ? 1 : 0;   /* stable: fall back to load order */
    return c;
}

/* 1 when the terms are those the match set was made with. */
static int grid_terms_same(const grid *g)
{
    if (g->nterms != g->nmterms)
        return 0;
    for (size_t i = 0; i < g->nterms; i++)
        if (g->terms[i].col != g->mterms[i].col || g->terms[i].negate != g->mterms[i].negate ||
            strcmp(g->terms[i].value, g->mterms[i].value) != 0)
            return 0;
    return 1;
}

/* 1 when no row can pass filter that failed mfilter, so only the kept match
 * set needs searching: the old filter passed everything, or the text grew
 * at its end (a cell holding the longer text holds the shorter).  Not with
 * '!': a longer negated needle lets more rows through, not fewer. */
static int grid_test_narrowing(const grid *g)
{
    const char *old = g->mfilter, *now = g->filter;
    if (!g->mvalid || !grid_terms_same(g))
        return 0;
    if (old[0] == '\0' || strcmp(old, "!") == 0)
        return 1;
    return old[0] != '!' && now[0] != '!' && strncmp(now, old, strlen(old)) == 0;
}

/* The filter made ready for many rows: the needle folded once, and the
 * bytes its first byte folds from, which memchr finds (SIMD in libc) far
 * faster than tolower can step through every byte of every cell. */
typedef struct {
    unsigned char fold[256];
    unsigned char needle[GRID_FILTER_MAX];
    size_t len;
    unsigned char first[4];
    int nfirst;         /* 0: too many to memchr for, step byte by byte */
    int negate;
} grid_needle;

static void grid_prepare_needle(grid_needle *nd, const char *filter)
{
    nd->negate = filter[0] == '!';
    const char *needle = filter + nd->negate;
    /* tolower as text_contains uses it, so the locale folds alike. */
    for (int c = 0; c < 256; c++)
        nd->fold[c] = (unsigned char)tolower(c);
    nd->len = strlen(needle);
    for (size_t i = 0; i < nd->len; i++)
        nd->needle[i] = nd->fold[(unsigned char)needle[i]];
    nd->nfirst = 0;
    for (int c = 1; c < 256 && nd->len; c++) {
        if (nd->fold[c] != nd->needle[0])
            continue;
        if (nd->nfirst == (int)sizeof nd->first) {
            nd->nfirst = 0;
            break;
        }
        nd->first[nd->nfirst++] = (unsigned char)c;
    }
}

/* grid_row_matches with a ready needle.  grid_add_row lays a row's cells
 * end to end, each ended by a NUL, so they are searched as one span: no
 * needle byte folds to NUL, so no match runs from one cell into the next. */
static int grid_match_needle(const grid_needle *nd, const grid_row *r, size_t ncols)
{
    if (!nd->len)
        return 1;
    if (!ncols)
        return nd->negate;
    const unsigned char *span = (const unsigned char *)r->cells[0];
    const unsigned char *end = (const unsigned char *)r->cells[ncols - 1] + strlen(r->cells[ncols - 1]);
    int hit = 0;
    for (int f = 0; f < (nd->nfirst ? nd->nfirst : 1) && !hit; f++) {
        for (const unsigned char *p = span; p < end && !hit; p++) {
            if (nd->nfirst) {
                p = memchr(p, nd->first[f], (size_t)(end - p));
                if (!p)
                    break;
            } else if (nd->fold[*p] != nd->needle[0]) {
                continue;
            }
            size_t i = 1;
            while (i < nd->len && nd->fold[p[i]] == nd->needle[i])
                i++;
            hit = i == nd->len;
        }
    }
    return nd->negate ? !hit : hit;
}

/* A row's text is a block of its own among the console's other 70 MB
 * (JSON of the pages read): searching 100,000 rows waits on memory more
 * than it compares, so the blocks a few rows ahead are asked for early. */
#define GRID_PREFETCH 12

static void grid_prefetch_row(const grid_row *r)
{
    __builtin_prefetch(r->cells);
    __builtin_prefetch((const char *)r->cells + 64);
    __builtin_prefetch((const char *)r->cells + 128);
}

/* Keeps in the view, in its order, the rows still in the match set. */
static int grid_narrow_view(grid *g)
{
    unsigned char *in = calloc(g->nrows ? g->nrows : 1, 1);
    if (!in)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < g->nmatch; i++)
        in[g->match[i]] = 1;
    for (size_t i = 0; i < g->nview; i++)
        if (in[g->view[i]])
            g->view[n++] = g->view[i];
    g->nview = n;
    free(in);
    return 1;
}

/* Rows appended since the match set was made are searched alone, with
 * the filter it was made with; a view in load order takes the new matches
 * at its end, a sorted one is sorted again (grid_build_view). */
static void grid_extend_match(grid *g)
{
    if (!g->mvalid || g->mrows >= g->nrows)
        return;
    size_t n = g->nrows;
    uint32_t *match = realloc(g->match, n * sizeof *match), *view = match ? realloc(g->view, n * sizeof *view) : NULL;
    g->match = match ? match : g->match;
    g->view = view ? view : g->view;
    if (!match || !view) {
        g->mvalid = 0;
        return;
    }
    grid_needle nd;
    grid_prepare_needle(&nd, g->mfilter);
    for (size_t i = g->mrows; i < n; i++) {
        if (i + GRID_PREFETCH < n)
            grid_prefetch_row(&g->rows[i + GRID_PREFETCH]);
        if (!grid_match_needle(&nd, &g->rows[i], g->ncols) ||
            !grid_row_passes_terms(&g->rows[i], g->ncols, g->mterms, g->nmterms))
            continue;
        g->match[g->nmatch++] = (uint32_t)i;
        if (g->vcol < 0)
            g->view[g->nview++] = (uint32_t)i;
    }
    if (g->vcol >= 0)
        g->vcol = -2;   /* no sort wanted is -2: the view is made again */
    g->mrows = n;
}

/* Brings match and view up to filter and sort, searching and sorting no
 * more than the change asks: the same filter searches nothing, a grown one
 * only the rows that passed before, and a view already in the wanted order
 * is only narrowed when that order is total (see grid_make_keys). */
static void grid_build_view(grid *g)
{
    grid_extend_match(g);
    size_t n = g->nrows ? g->nrows : 1;
    int sorted = g->sort_col >= 0 && (size_t)g->sort_col < g->ncols && g->nrows > 1 && grid_make_keys(g, g->sort_col);
    int vcol = sorted ? g->sort_col : -1;
    int in_order = g->mvalid && g->vcol == vcol && (!sorted || (g->vdesc == g->sort_desc && g->ktotal));
    int same = g->mvalid && strcmp(g->filter, g->mfilter) == 0 && grid_terms_same(g);
    if (!g->mvalid || !g->match || !g->view) {
        uint32_t *match = realloc(g->match, n * sizeof *match), *view = match ? realloc(g->view, n * sizeof *view) : NULL;
        g->match = match ? match : g->match;
        g->view = view;
        g->nview = g->nmatch = 0;
        g->mvalid = 0;
        if (!match || !view)
            return;
    }
    if (same && in_order)
        return;
    grid_needle nd;
    grid_prepare_needle(&nd, g->filter);
    if (!same && !grid_test_narrowing(g)) {
        g->nmatch = 0;
        for (size_t i = 0; i < g->nrows; i++) {
            if (i + GRID_PREFETCH < g->nrows)
                grid_prefetch_row(&g->rows[i + GRID_PREFETCH]);
            if (grid_match_needle(&nd, &g->rows[i], g->ncols) &&
                grid_row_passes_terms(&g->rows[i], g->ncols, g->terms, g->nterms))
                g->match[g->nmatch++] = (uint32_t)i;
        }
        in_order = 0;
    } else if (!same) {
        /* In load order, which is memory order: the rows of a sorted view
         * are all over the heap. */
        size_t m = 0;
        for (size_t i = 0; i < g->nmatch; i++) {
            if (i + GRID_PREFETCH < g->nmatch)
                grid_prefetch_row(&g->rows[g->match[i + GRID_PREFETCH]]);
            if (grid_match_needle(&nd, &g->rows[g->match[i]], g->ncols) &&
                grid_row_passes_terms(&g->rows[g->match[i]], g->ncols, g->terms, g->nterms))
                g->match[m++] = g->match[i];
        }
        g->nmatch = m;
        in_order = in_order && grid_narrow_view(g);
    }
    if (!in_order) {
        memcpy(g->view, g->match, g->nmatch * sizeof *g->view);
        g->nview = g->nmatch;
        if (sorted && g->nview > 1 && !(g->ktotal && grid_sort_view(g))) {
            sorting = g;
            qsort(g->view, g->nview, sizeof *g->view, grid_compare_rows);
            sorting = NULL;
        }
    }
    snprintf(g->mfilter, sizeof g->mfilter, "%s", g->filter);
    memcpy(g->mterms, g->terms, g->nterms * sizeof *g->terms);
    g->nmterms = g->nterms;
    g->mrows = g->nrows;
    g->vcol = vcol;
    g->vdesc = g->sort_desc;
    g->mvalid = 1;
}

void grid_apply(grid *g)
{
    const grid_row *cur = grid_current(g);
    char *keep = g->keep ? g->keep : cur ? strdup(cur->key) : NULL;
    g->keep = NULL;
    grid_build_view(g);
    if (!keep || !grid_select_key(g, keep)) {
        if (g->cursor >= g->nview)
            g->cursor = g->nview ? g->nview - 1 : 0;
    }
    if (g->top > g->cursor)
        g->top = g->cursor;
    free(keep);
}

void grid_prepare_sort(grid *g)
{
    if (g->sort_col < 0 && g->ncols > 0 && g->nrows > 1 && g->kcol != 0)
        grid_make_keys(g, 0);
}

void grid_set_filter(grid *g, const char *filter)
{
    snprintf(g->filter, sizeof g->filter, "%s", filter ? filter : "");
    snprintf(g->query, sizeof g->query, "%s", g->filter);
    g->nterms = 0;
    grid_apply(g);
}

void grid_cycle_sort(grid *g)
{
    if (g->sort_col < 0) {
        g->sort_col = 0;
        g->sort_desc = 0;
    } else if (!g->sort_desc) {
        g->sort_desc = 1;
    } else if ((size_t)g->sort_col + 1 < g->ncols) {
        g->sort_col++;
        g->sort_desc = 0;
    } else {
        g->sort_col = -1;
        g->sort_desc = 0;
    }
    grid_apply(g);
}

void grid_sort_by(grid *g, int col)
{
    if (col < 0 || (size_t)col >= g->ncols)
        return;
    g->sort_desc = g->sort_col == col ? !g->sort_desc : 0;
    g->sort_col = col;
    grid_apply(g);
}

static void scroll_to_cursor(grid *g, int page)
{
    if (page < 1)
        page = 1;
    if (g->cursor < g->top)
        g->top = g->cursor;
    if (g->cursor >= g->top + (size_t)page)
        g->top = g->cursor - (size_t)page + 1;
    /* No empty space below the last row when the list could fill the page. */
    if (g->nview > (size_t)page && g->top > g->nview - (size_t)page)
        g->top = g->nview - (size_t)page;
    if (g->nview <= (size_t)page)
        g->top = 0;
}

void grid_move(grid *g, long delta, int page)
{
    if (g->nview == 0) {
        g->cursor = g->top = 0;
        return;
    }
    long c = (long)g->cursor + delta;
    if (c < 0)
        c = 0;
    if (c >= (long)g->nview)
        c = (long)g->nview - 1;
    g->cursor = (size_t)c;
    scroll_to_cursor(g, page);
}

void grid_move_edge(grid *g, int last, int page)
{
    g->cursor = last && g->nview ? g->nview - 1 : 0;
    scroll_to_cursor(g, page);
}

const grid_row *grid_current(const grid *g)
{
    if (!g->view || g->cursor >= g->nview)
        return NULL;
    return &g->rows[g->view[g->cursor]];
}

int grid_is_marked(const grid *g, const char *key)
{
    for (size_t i = 0; i < g->nmarks; i++)
        if (strcmp(g->marks[i], key) == 0)
            return 1;
    return 0;
}

void grid_toggle_mark(grid *g)
{
    const grid_row *r = grid_current(g);
    if (!r)
        return;
    for (size_t i = 0; i < g->nmarks; i++) {
        if (strcmp(g->marks[i], r->key) == 0) {
            free(g->marks[i]);
            g->marks[i] = g->marks[--g->nmarks];
            return;
        }
    }
    char **m = realloc(g->marks, (g->nmarks + 1) * sizeof *m);
    if (!m)
        return;
    g->marks = m;
    if ((m[g->nmarks] = strdup(r->key)) != NULL)
        g->nmarks++;
}

int grid_select_key(grid *g, const char *key)
{
    unsigned h = grid_hash_key(key);
    for (size_t i = 0; i < g->nview; i++) {
        const grid_row *r = &g->rows[g->view[i]];
        if (r->khash == h && strcmp(r->key, key) == 0) {
            g->cursor = i;
            return 1;
        }
    }
    return 0;
}

int grid_set_query(grid *g, const char *text, const char *const *headers, size_t nheaders, char *err, size_t errlen)
{
    char plain[GRID_FILTER_MAX];
    grid_term terms[GRID_TERMS_MAX];
    size_t nterms = 0;
    if (!grid_filter_parse(text ? text : "", headers, nheaders, plain, sizeof plain, terms, &nterms, err, errlen))
        return 0;
    snprintf(g->filter, sizeof g->filter, "%s", plain);
    snprintf(g->query, sizeof g->query, "%s", text ? text : "");
    memcpy(g->terms, terms, nterms * sizeof *terms);
    g->nterms = nterms;
    grid_apply(g);
    return 1;
}

int grid_step_wrap(grid *g, int dir, int page)
{
    if (g->nview == 0)
        return 0;
    int wrapped = 0;
    if (dir > 0 && g->cursor + 1 >= g->nview) {
        grid_move_edge(g, 0, page);
        wrapped = 1;
    } else if (dir < 0 && g->cursor == 0) {
        grid_move_edge(g, 1, page);
        wrapped = 1;
    } else {
        grid_move(g, dir, page);
    }
    return wrapped;
}
