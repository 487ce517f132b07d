/* mouse.h - the mouse: a click on a tab switches pane, on a column header
 * sorts by it (again: the other way), on a row selects it; the wheel
 * scrolls.  A click is read against the layout the screen was drawn by
 * (layout.c, draw_layout, draw_table_columns), so it hits what is shown.
 * Everything the mouse does a key does too; the mouse is off where the
 * terminal reports none and when RIGDECK_NO_MOUSE is set (non-empty), so
 * the terminal's own selection works as before.
 */
#ifndef RD_MOUSE_H
#define RD_MOUSE_H

#include "layout.h"
#include "pane_list.h"
#include "session.h"

#define MOUSE_MAX_COLS 16
/* Rows (or lines) one notch of the wheel moves. */
#define MOUSE_WHEEL_ROWS 3

typedef enum { MOUSE_PRESS, MOUSE_WHEEL_UP, MOUSE_WHEEL_DOWN, MOUSE_OTHER } mouse_button;

typedef enum {
    MOUSE_NONE,     /* nothing there */
    MOUSE_TAB,      /* arg: the pane */
    MOUSE_HEADER,   /* arg: the column (the view's, wherever it is shown) */
    MOUSE_ROW,      /* arg: the row on screen, 0 the first under the header */
    MOUSE_WHEEL     /* arg: rows to move, negative up */
} mouse_kind;

typedef struct {
    mouse_kind kind;
    int arg;
} mouse_action;

/* What a click is read against: the screen's layout, the tabs, and the
 * table's columns (absolute x, width; width 0: hidden). */
typedef struct {
    lay_screen s;
    int tab_x[PANE_COUNT], tab_w[PANE_COUNT];
    int ncols;
    int col_x[MOUSE_MAX_COLS], col_w[MOUSE_MAX_COLS];
    int col_of[MOUSE_MAX_COLS];     /* the column shown at each place */
    int table;      /* 1: the table's area shows a table (not the Dashboard) */
} mouse_geom;

/* Pure: the geometry from a layout, the tabs' label widths (layout_tabs)
 * and the table's n places with the column at each and its width
 * (draw_table_columns). */
void mouse_geom_make(mouse_geom *g, const lay_screen *s, const int (*tab_cols)[3], const int *ord, const int *width,
                     int n, int table);

/* Pure: what a button at (y, x) means on that geometry. */
mouse_action mouse_map(const mouse_geom *g, int y, int x, mouse_button b);

/* Asks the terminal for mouse events unless RIGDECK_NO_MOUSE says not;
 * sets c->mouse.  After initscr. */
void mouse_start(session *c);

/* The pending mouse event (after KEY_MOUSE): what it does.  Where a key
 * does the same (a tab's digit, the wheel's Up and Down) *key and *times
 * say which key to handle how often instead (0 times: none). */
act_result mouse_event(session *c, int *key, int *times);

#endif
