/* theme_term.c - the curses half of themes: colour pairs and attributes.
 *
 * One colour pair per element (pair = element + 1), set up once after
 * initscr; theme_attr() is then a table lookup, cheap enough per cell.
 */
#define NCURSES_WIDECHAR 1
#include <curses.h>

#include "theme.h"

static int attrs[TH_COUNT];

static int curses_attrs(unsigned a)
{
    int r = 0;
    if (a & TH_A_BOLD)
        r |= A_BOLD;
    if (a & TH_A_UNDERLINE)
        r |= A_UNDERLINE;
    if (a & TH_A_REVERSE)
        r |= A_REVERSE;
    if (a & TH_A_DIM)
        r |= A_DIM;
    if (a & TH_A_ITALIC)
        r |= (int)A_ITALIC;
    if (a & TH_A_STANDOUT)
        r |= A_STANDOUT;
    return r;
}

void theme_apply(const theme *t)
{
    int ncolors = 0;
    if (has_colors() && start_color() == OK) {
        ncolors = COLORS;
        /* -1 (the terminal's own colours) needs use_default_colors; without
         * it the default is white on black. */
        if (use_default_colors() != OK)
            assume_default_colors(COLOR_WHITE, COLOR_BLACK);
    }
    for (int e = 0; e < TH_COUNT; e++) {
        const theme_style *st = &t->style[e];
        int a = curses_attrs(st->attrs);
        int fg = theme_map_colour(st->fg, ncolors);
        int bg = theme_map_colour(st->bg, ncolors);
        if (ncolors > 0 && (fg != THEME_DEFAULT || bg != THEME_DEFAULT) && e + 1 < COLOR_PAIRS) {
            init_pair((short)(e + 1), (short)fg, (short)bg);
            a |= COLOR_PAIR(e + 1);
        }
        attrs[e] = a;
    }
}

int theme_attr(theme_elem e)
{
    return e < TH_COUNT ? attrs[e] : 0;
}
