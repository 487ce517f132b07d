/* fleetmap.h - the fleet grid's geometry and shading: cells in groups
 * (a region's nodes, then its edge devices) laid out one character each,
 * wrapping at a width, with a heading per group; which cell is above or
 * below another; a figure's level on a scale and its shade glyph.  Pure:
 * no curses, no rigdeck objects (pane_fleet.c fills it, unit tested in
 * tests/tui_unit/test_tui_fleetmap.c).
 *
 * Cells are of two kinds, nodes and devices: a group's devices follow its
 * nodes after a separator (one column, FMAP_SEP), so the two read apart
 * without colour whatever glyphs they show.
 *
 * Two layouts.  Blocks: each group's heading on a line of its own, its
 * cells on the lines below.  Flow: the heading inline ("lab: " then the
 * cells), the groups following one another on the same lines, so a fleet
 * of many groups wastes no line end (10,000 nodes in 10 regions take 52
 * lines of 196 columns).  fmap_layout picks blocks when they fit the
 * height, else flow; what still does not fit scrolls.
 */
#ifndef RD_FLEETMAP_H
#define RD_FLEETMAP_H

#include <stddef.h>

/* Where things go, in lines from the top of the grid and columns from its
 * left edge.  Cells are numbered in group order. */
typedef struct {
    int *cell_y, *cell_x;       /* n cells */
    unsigned char *kind;        /* n cells: FMAP_NODE or FMAP_DEVICE */
    int *head_y, *head_x;       /* ngroups headings */
    int *sep_y, *sep_x;         /* ngroups separators before the devices; -1: a group without */
    size_t n, ngroups, cap, gcap;
    int lines;                  /* lines used */
    int flow;                   /* 1: the flow layout */
} fmap_layout;

enum { FMAP_NODE, FMAP_DEVICE };
/* The separator's glyph, between a group's nodes and its devices. */
#define FMAP_SEP '|'

/* Lays out groups of count[g] node cells and then dcount[g] device cells
 * (dcount NULL: none), with headings of head_w[g] columns ("lab: " is 5)
 * in width columns, blocks when they fit height lines, else flow.  Cells
 * are numbered group by group, a group's nodes before its devices.  0
 * when out of memory (the layout is then empty). */
int fmap_lay(fmap_layout *L, const size_t *count, const size_t *dcount, const int *head_w, size_t ngroups,
             int width, int height);

/* Frees the layout's arrays. */
void fmap_free(fmap_layout *L);

/* The cell on the nearest line above (dir -1) or below (+1) cur that has
 * cells, nearest in column; cur when there is none. */
size_t fmap_vertical(const fmap_layout *L, size_t cur, int dir);

/* The first line to show so that line y is within a window of rows lines
 * starting at top (scrolls as little as it can). */
int fmap_scroll(int top, int y, int rows, int lines);

/* The level 0..levels-1 of v on [lo, hi] (below lo: 0, above hi: the
 * top); -1 for a figure that is not a number (NaN: no reading). */
int fmap_level(double v, double lo, double hi, int levels);

/* The shade glyph of level 0..FMAP_SHADES-1, low to high: ". : + # @"
 * (every other step of " .:-=+*#%@", less the blank, which would read as
 * no cell); '?' for -1 (no reading). */
#define FMAP_SHADES 5
char fmap_shade(int level);

#endif
