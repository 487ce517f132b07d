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

/* Paints the screen for the current terminal size and refreshes it. */
void draw_screen(session *c);

#endif
