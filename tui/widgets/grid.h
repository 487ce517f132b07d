/* grid.h - the table model behind every pane: rows of text cells with a
 * filter, a sort, a cursor and marks.  No curses and no store here: panes
 * fill it from command results, draw.c paints it, and it is unit tested.
 *
 * The filter is a case-insensitive substring matched against every cell of a
 * row; a leading '!' keeps the rows that do NOT match.  Sorting compares
 * numbers as numbers (so "10" sorts after "9") and text as text, and is
 * stable.  Marks and the cursor follow row keys, so they survive a reload.
 */
#ifndef RD_GRID_H
#define RD_GRID_H

#include <stddef.h>
#include <stdint.h>

#define GRID_FILTER_MAX 128
#define GRID_TERMS_MAX 8
#define GRID_TERM_MAX 64

/* A `column:value` term of a filter: the row's cell in col holds value
 * (case-insensitive substring), or with negate ("state:!active") not. */
typedef struct {
    int col;
    int negate;
    char value[GRID_TERM_MAX];
} grid_term;

typedef struct {
    char **cells;       /* ncols strings, owned */
    char *key;          /* the object's name or id, used to build commands */
    double bar;         /* 0..1 for a bar column, < 0: none */
    unsigned khash;     /* of key, so grid_select_key reads few keys */
} grid_row;

typedef struct {
    size_t ncols;
    grid_row *rows;
    size_t nrows, cap;
    uint32_t *view;     /* indices of rows shown, filtered and sorted (a
                         * grid holds at most UINT32_MAX rows: 4 bytes an
                         * index, not 8, for 100,000 jobs twice) */
    size_t nview;
    char filter[GRID_FILTER_MAX];   /* the plain part: a substring of any cell */
    char query[GRID_FILTER_MAX];    /* the filter as typed, terms and all */
    grid_term terms[GRID_TERMS_MAX];    /* the column:value terms, ANDed */
    size_t nterms;
    int sort_col;       /* -1: load order */
    int sort_desc;
    size_t cursor;      /* index into view */
    size_t top;         /* first view index on screen */
    char **marks;       /* keys of marked rows */
    size_t nmarks;
    char *keep;         /* the cursor's key across grid_clear_rows..grid_apply */
    /* What grid_apply keeps between calls so a key costs less than the
     * table (docs/performance.md, "The console"); any change to the rows
     * drops it.  Sort keys: sort column's cells parsed once (kord and
     * kord2 freed once the column is ranked: only the ranks are needed
     * then). */
    unsigned char *kis; /* nrows: 1 when the cell reads as a number */
    struct grid_key *kord; /* nrows, in load order: each row's
                         * order-keeping key of its number or of a text's
                         * bytes 0-7 (grid_sort.h) */
    unsigned long long *kord2; /* nrows: a text's bytes 8-15 */
    uint32_t *krank;    /* nrows: the row's place among distinct cells */
    size_t nrank;       /* distinct cells; 0: no ranks */
    int kcol;           /* the column kis and kord hold, -1: none */
    int ktotal;         /* 1: the comparison orders kcol totally */
    int ktext_first;    /* when ktotal: text cells sort before numbers */
    /* The rows passing mfilter, in load order, and how view was sorted. */
    uint32_t *match;
    size_t nmatch;
    size_t mrows;       /* rows match has looked at: those appended since
                         * (grid_add_row, grid_append_rows) are searched alone */
    int mvalid;         /* match and view follow rows [0, mrows) and mfilter */
    int vcol, vdesc;    /* the sort view holds (vcol -1: load order) */
    char mfilter[GRID_FILTER_MAX];
    grid_term mterms[GRID_TERMS_MAX];   /* the terms match was made with */
    size_t nmterms;
} grid;

/* Prepares an empty grid of ncols columns. */
void grid_init(grid *g, size_t ncols);

/* Frees rows, view and marks. */
void grid_free(grid *g);

/* Drops every row (keeping filter, sort and marks) before a reload. */
void grid_clear_rows(grid *g);

/* Appends a row; cells are copied (NULL shows as "-").  Returns the row or
 * NULL when out of memory. */
grid_row *grid_add_row(grid *g, const char *key, const char *const *cells);

/* Moves from's rows to the end of g's, leaving from empty; filter, sort,
 * cursor and marks stay g's.  The next grid_apply searches only the moved
 * rows for a filter it already applied (a table read page by page). */
void grid_append_rows(grid *g, grid *from);

/* Replaces g's rows by from's (a table built elsewhere, in steps), leaving
 * from empty; filter, sort, cursor and marks stay g's.  grid_apply next. */
void grid_take_rows(grid *g, grid *from);

/* Puts from's one row in place of g's row with the same key (from gets the
 * old row); 0 when g has none.  grid_apply next. */
int grid_replace_row(grid *g, grid *from);

/* Puts from's one row in place of g's row r (from gets the old row).
 * grid_apply next. */
void grid_swap_row(grid *g, size_t r, grid *from);

/* Rebuilds the view from filter and sort, keeping the cursor on the row
 * whose key was under it when possible. */
void grid_apply(grid *g);

/* 1 when the row passes filter (pure: "" passes all, "!x" negates). */
int grid_row_matches(const grid_row *r, size_t ncols, const char *filter);

/* Sets the filter text (a plain substring, no column terms) and re-applies. */
void grid_set_filter(grid *g, const char *filter);

/* Splits a filter as typed into its plain part and its `column:value`
 * terms (grid_filter.c).  A word is a term when it starts with a letter,
 * holds only letters, digits, '_' and '-' before its ':' ("10:30" and
 * "10.0.0.1:22" stay plain); its column is the header it names, any case,
 * spaces written as '_' or '-' or left out ("waiting_reason").  The plain
 * part is the other words (the text itself when it has no term).  0 with
 * a one-line err naming the column and the valid ones when a term names
 * no column, or when there are too many terms. */
int grid_filter_parse(const char *text, const char *const *headers, size_t nheaders, char *plain, size_t plainlen,
                      grid_term *terms, size_t *nterms, char *err, size_t errlen);

/* Sets the filter from text as typed (grid_filter_parse) and re-applies;
 * 0 and err, the grid unchanged, when it does not parse. */
int grid_set_query(grid *g, const char *text, const char *const *headers, size_t nheaders, char *err, size_t errlen);

/* 1 when row r passes the terms (all of them). */
int grid_row_passes_terms(const grid_row *r, size_t ncols, const grid_term *terms, size_t nterms);

/* Moves the cursor to the next (dir 1) or previous (-1) row of the view,
 * going round at either end; 1 when it went round. */
int grid_step_wrap(grid *g, int dir, int page);

/* Cycles the sort: each column ascending, then descending, then load order. */
void grid_cycle_sort(grid *g);

/* Sorts by column col, ascending; the column already sorted by turns
 * round (the sort picker). */
void grid_sort_by(grid *g, int col);

/* In load order, makes ready the keys of the column the first sort key
 * will sort (0), so that key costs no parse: work for a quiet moment (on
 * 100,000 rows about 10 ms, once per load). */
void grid_prepare_sort(grid *g);

/* Moves the cursor by delta rows (clamped) and scrolls so it stays in a
 * window of page rows. */
void grid_move(grid *g, long delta, int page);

/* Moves the cursor to the first (0) or last (1) row. */
void grid_move_edge(grid *g, int last, int page);

/* The row under the cursor, or NULL when the view is empty. */
const grid_row *grid_current(const grid *g);

/* Toggles the mark of the row under the cursor. */
void grid_toggle_mark(grid *g);

/* 1 when the key is marked. */
int grid_is_marked(const grid *g, const char *key);

/* Forgets every mark. */
void grid_clear_marks(grid *g);

/* Places the cursor on the row with this key if it is in the view. */
int grid_select_key(grid *g, const char *key);

#endif
