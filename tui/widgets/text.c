/* text.c - UTF-8 widths, fitting, bars and the glyph table. */
#include "text.h"

#include <ctype.h>
#include <string.h>
#include <wchar.h>

static int ascii_mode;

static const char *const glyphs[GL_COUNT][2] = {
    [GL_HLINE] = { "\u2500", "-" },
    [GL_VLINE] = { "\u2502", "|" },
    [GL_TL] = { "\u250c", "+" },
    [GL_TR] = { "\u2510", "+" },
    [GL_BL] = { "\u2514", "+" },
    [GL_BR] = { "\u2518", "+" },
    [GL_BAR_FULL] = { "\u2588", "#" },
    [GL_BAR_EMPTY] = { "\u2591", "." },
    [GL_MARK] = { "\u25cf", "*" },
    [GL_UNMARKED] = { " ", " " },
    [GL_SORT_UP] = { "\u25b2", "^" },
    [GL_SORT_DOWN] = { "\u25bc", "v" },
    [GL_ELLIPSIS] = { "\u2026", "~" },
    [GL_SEP] = { "\u00b7", "|" },
    [GL_MORE_UP] = { "\u2191", "^" },
    [GL_MORE_DOWN] = { "\u2193", "v" },
};

void text_set_ascii(int ascii)
{
    ascii_mode = ascii != 0;
}

int text_is_ascii(void)
{
    return ascii_mode;
}

const char *text_glyph(glyph_id g)
{
    return g < GL_COUNT ? glyphs[g][ascii_mode] : "?";
}

/* Decodes one character at s: its byte length and display width. */
static size_t char_at(const char *s, size_t left, int *width)
{
    mbstate_t st;
    wchar_t wc;
    memset(&st, 0, sizeof st);
    size_t n = mbrtowc(&wc, s, left, &st);
    if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
        *width = 1;
        return 1;
    }
    int w = wcwidth(wc);
    *width = w < 0 ? 1 : w;
    return n;
}

int text_cols(const char *s)
{
    int cols = 0;
    size_t len = strlen(s);
    for (size_t i = 0; i < len;) {
        int w;
        i += char_at(s + i, len - i, &w);
        cols += w;
    }
    return cols;
}

int text_fit(const char *s, int cols, char *out, size_t outlen)
{
    if (outlen == 0)
        return 0;
    out[0] = '\0';
    if (cols <= 0)
        return 0;
    size_t len = strlen(s);
    if (text_cols(s) <= cols) {
        size_t n = len < outlen - 1 ? len : outlen - 1;
        memcpy(out, s, n);
        out[n] = '\0';
        return text_cols(out);
    }
    /* Keep room for the one-column ellipsis. */
    int used = 0;
    size_t i = 0;
    while (i < len) {
        int w;
        size_t n = char_at(s + i, len - i, &w);
        if (used + w > cols - 1 || i + n >= outlen)
            break;
        i += n;
        used += w;
    }
    memcpy(out, s, i);
    out[i] = '\0';
    const char *e = text_glyph(GL_ELLIPSIS);
    if (i + strlen(e) < outlen) {
        strcat(out, e);
        used++;
    }
    return used;
}

const char *text_skip(const char *s, int cols)
{
    size_t len = strlen(s), i = 0;
    while (i < len && cols > 0) {
        int w;
        i += char_at(s + i, len - i, &w);
        cols -= w;
    }
    return s + i;
}

void text_bar(double frac, int cols, char *out, size_t outlen, int *filled)
{
    if (frac != frac || frac < 0)   /* NaN or negative: empty */
        frac = 0;
    if (frac > 1)
        frac = 1;
    int full = (int)(frac * cols + 0.5);
    if (full == 0 && frac > 0)
        full = 1;   /* any use at all shows */
    if (filled)
        *filled = full;
    size_t pos = 0;
    out[0] = '\0';
    for (int i = 0; i < cols; i++) {
        const char *g = text_glyph(i < full ? GL_BAR_FULL : GL_BAR_EMPTY);
        size_t n = strlen(g);
        if (pos + n >= outlen)
            break;
        memcpy(out + pos, g, n);
        pos += n;
        out[pos] = '\0';
    }
}

int text_contains(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    if (n == 0)
        return 1;
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

/* As on a statement: amounts show up to 6 decimals, so the shorter
 * fractions are padded on the right. */
int text_money_pad(const char *amount)
{
    if (strspn(amount, "-0123456789.") != strlen(amount) || !strpbrk(amount, "0123456789"))
        return 0;
    const char *dot = strchr(amount, '.');
    int decimals = dot ? (int)strlen(dot + 1) : -1;
    return decimals > 6 ? 0 : 6 - decimals;
}
