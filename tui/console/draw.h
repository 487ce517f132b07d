/* draw.h - paints the console from its state.  Every colour goes through
 * theme_attr(); every position comes from layout_compute().  The whole
 * screen is re-painted into curses' buffer and curses sends only the cells
 * that changed, so a redraw costs little over a slow link.
 */
#ifndef RD_DRAW_H
#define RD_DRAW_H

#include "session.h"
#include "layout.h"

/* Fills r with element e and frames it (box glyphs, ASCII with --ascii),
 * with title (may be NULL) in the top edge. */
void draw_box(lay_rect r, theme_elem e, const char *title);

/* Writes s at (y, x) cut to w columns in element e; returns the columns used. */
int draw_text(int y, int x, int w, const char *s, theme_elem e);

/* Fills w cells of row y from x with blanks in element e. */
void draw_fill(int y, int x, int w, theme_elem e);

/* The Dashboard in body (draw_dash.c). */
void draw_dash(session *c, lay_rect body);

/* The most columns a table shows (the rest never draw). */
#define DRAW_MAX_COLS 16

/* Where the screen's parts go now: the layout of a rows x cols terminal
 * with the banner and the details panel as the session has them. */
lay_screen draw_layout(const session *c, int rows, int cols);

/* The current table's columns as draw_table places them in a table drawn
 * in r: for each place k, left to right, the column shown there (ord[k])
 * and its width (width[k]; 0: hidden).  The first starts 2 cells in (after
 * the mark), one blank between shown ones.  Returns the number of places.
 * The column chooser's order and hidden columns apply, and room left over
 * goes to the columns whose text on screen is cut.  A click on a header
 * (mouse.c) reads the same places. */
size_t draw_table_columns(session *c, lay_rect r, int *ord, int *width);

/* Paints the screen for the current terminal size and refreshes it. */
void draw_screen(session *c);

#endif
