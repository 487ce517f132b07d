/* text.h - display-width aware strings and the console's glyphs.
 *
 * Cells hold UTF-8; what matters on screen is columns, not bytes.  Glyphs
 * (box lines, bar blocks, marks, arrows) come from one table with a UTF-8 and
 * an ASCII column; --ascii, or a locale that is not UTF-8, picks ASCII.
 */
#ifndef RD_TEXT_H
#define RD_TEXT_H

#include <stddef.h>

typedef enum {
    GL_HLINE, GL_VLINE, GL_TL, GL_TR, GL_BL, GL_BR,
    GL_BAR_FULL, GL_BAR_EMPTY, GL_MARK, GL_UNMARKED, GL_SORT_UP, GL_SORT_DOWN,
    GL_ELLIPSIS, GL_SEP, GL_MORE_UP, GL_MORE_DOWN,
    GL_COUNT
} glyph_id;

/* Chooses ASCII glyphs (1) or UTF-8 ones (0). */
void text_set_ascii(int ascii);

/* 1 when ASCII glyphs are in use. */
int text_is_ascii(void);

/* The glyph's string (one display column wide). */
const char *text_glyph(glyph_id g);

/* Display columns of a UTF-8 string (invalid bytes count as one column). */
int text_cols(const char *s);

/* Copies s into out (outlen bytes) cut to at most cols display columns; a
 * cut string ends with the ellipsis glyph.  Returns the columns used. */
int text_fit(const char *s, int cols, char *out, size_t outlen);

/* The part of s after its first cols display columns ("" past the end). */
const char *text_skip(const char *s, int cols);

/* A usage bar of width cols for frac (0..1, clamped): filled glyphs then
 * empty ones, written to out.  *filled receives the filled cell count. */
void text_bar(double frac, int cols, char *out, size_t outlen, int *filled);

/* Case-insensitive substring test (ASCII folding). */
int text_contains(const char *hay, const char *needle);

/* Columns of padding after an amount ("12.5", "-3", up to 6 decimals) that
 * line its decimal point up with the others of a right-aligned column; 0
 * for text that is not an amount. */
int text_money_pad(const char *amount);

#endif
