/* grid.c - rows, filter, stable sort, cursor and marks of one table. */
#include "grid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

void grid_init(grid *g, size_t ncols)
{
    memset(g, 0, sizeof *g);
    g->ncols = ncols;
    g->sort_col = -1;
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
    memset(g, 0, sizeof *g);
    g->sort_col = -1;
}

grid_row *grid_add_row(grid *g, const char *key, const char *const *cells)
{
    if (g->nrows == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 64;
        grid_row *rows = realloc(g->rows, cap * sizeof *rows);
        if (!rows)
            return NULL;
        g->rows = rows;
        g->cap = cap;
    }
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
    for (size_t i = 0; i < g->ncols; i++) {
        r->cells[i] = text;
        text = stpcpy(text, cells && cells[i] ? cells[i] : "-") + 1;
    }
    g->nrows++;
    return r;
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
}

int grid_replace_row(grid *g, grid *from)
{
    if (from->nrows != 1)
        return 0;
    for (size_t i = 0; i < g->nrows; i++) {
        if (strcmp(g->rows[i].key, from->rows[0].key) == 0) {
            grid_row old = g->rows[i];
            g->rows[i] = from->rows[0];
            from->rows[0] = old;
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

/* qsort is not stable and has no context argument; a file-local pointer is
 * the portable way, and the console is single-threaded. */
static const grid *sorting;

static int compare_rows(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    const grid *g = sorting;
    const char *ca = g->rows[a].cells[g->sort_col];
    const char *cb = g->rows[b].cells[g->sort_col];
    double na, nb;
    int c;
    if (cell_number(ca, &na) && cell_number(cb, &nb))
        c = na < nb ? -1 : na > nb ? 1 : 0;
    else
        c = strcmp(ca, cb);
    if (g->sort_desc)
        c = -c;
    if (c == 0)
        c = a < b ? -1 : a > b ? 1 : 0;   /* stable: fall back to load order */
    return c;
}

void grid_apply(grid *g)
{
    const grid_row *cur = grid_current(g);
    char *keep = g->keep ? g->keep : cur ? strdup(cur->key) : NULL;
    g->keep = NULL;
    free(g->view);
    g->view = g->nrows ? malloc(g->nrows * sizeof *g->view) : NULL;
    g->nview = 0;
    for (size_t i = 0; g->view && i < g->nrows; i++)
        if (grid_row_matches(&g->rows[i], g->ncols, g->filter))
            g->view[g->nview++] = i;
    if (g->sort_col >= 0 && (size_t)g->sort_col < g->ncols && g->nview > 1) {
        sorting = g;
        qsort(g->view, g->nview, sizeof *g->view, compare_rows);
        sorting = NULL;
    }
    if (!keep || !grid_select_key(g, keep)) {
        if (g->cursor >= g->nview)
            g->cursor = g->nview ? g->nview - 1 : 0;
    }
    if (g->top > g->cursor)
        g->top = g->cursor;
    free(keep);
}

void grid_set_filter(grid *g, const char *filter)
{
    snprintf(g->filter, sizeof g->filter, "%s", filter ? filter : "");
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
    for (size_t i = 0; i < g->nview; i++) {
        if (strcmp(g->rows[g->view[i]].key, key) == 0) {
            g->cursor = i;
            return 1;
        }
    }
    return 0;
}
