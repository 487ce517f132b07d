/* draw_base.c - the drawing primitives every part of the screen uses
 * (draw.c's frame, draw_dash.c's Dashboard): cut text, filled runs, boxes,
 * always in a theme element. */
#define NCURSES_WIDECHAR 1
#include "draw.h"

#include <curses.h>
#include <stdio.h>

#include "text.h"

/* Writes s at (y, x) cut to w columns in element e; returns columns used. */
int draw_text(int y, int x, int w, const char *s, theme_elem e)
{
    char buf[2048];
    if (w <= 0)
        return 0;
    int used = text_fit(s, w, buf, sizeof buf);
    attrset(theme_attr(e));
    mvaddstr(y, x, buf);
    return used;
}

void draw_fill(int y, int x, int w, theme_elem e)
{
    if (w <= 0)
        return;
    attrset(theme_attr(e));
    mvhline(y, x, ' ', w);
}

void draw_box(lay_rect r, theme_elem e, const char *title)
{
    if (r.h < 2 || r.w < 2)
        return;
    for (int y = 0; y < r.h; y++)
        draw_fill(r.y + y, r.x, r.w, e);
    attrset(theme_attr(e));
    mvaddstr(r.y, r.x, text_glyph(GL_TL));
    mvaddstr(r.y, r.x + r.w - 1, text_glyph(GL_TR));
    mvaddstr(r.y + r.h - 1, r.x, text_glyph(GL_BL));
    mvaddstr(r.y + r.h - 1, r.x + r.w - 1, text_glyph(GL_BR));
    for (int x = 1; x < r.w - 1; x++) {
        mvaddstr(r.y, r.x + x, text_glyph(GL_HLINE));
        mvaddstr(r.y + r.h - 1, r.x + x, text_glyph(GL_HLINE));
    }
    for (int y = 1; y < r.h - 1; y++) {
        mvaddstr(r.y + y, r.x, text_glyph(GL_VLINE));
        mvaddstr(r.y + y, r.x + r.w - 1, text_glyph(GL_VLINE));
    }
    if (title && *title) {
        char t[256];
        snprintf(t, sizeof t, " %s ", title);
        draw_text(r.y, r.x + 2, r.w - 4, t, TH_DIALOG_TITLE);
    }
}
