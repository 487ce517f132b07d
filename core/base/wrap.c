/* wrap.c - word wrapping of plain text to a column width (see wrap.h). */
#include "wrap.h"

#include <stdlib.h>
#include <string.h>

void wrap_pad(strbuf *b, size_t n)
{
    static const char spaces[] = "                                ";
    while (n > 0) {
        size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
        strbuf_append(b, spaces, k);
        n -= k;
    }
}


static int is_cont(char c)
{
    return ((unsigned char)c & 0xC0) == 0x80;
}

static size_t cols_n(const char *s, size_t n)
{
    size_t cols = 0;
    for (size_t i = 0; i < n; i++)
        cols += !is_cont(s[i]);
    return cols;
}

size_t wrap_cols(const char *s)
{
    return cols_n(s, strlen(s));
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Bytes of the next token at s: a run of non-blanks, or with groups a
 * balanced [...] that may hold blanks (an unbalanced one is a plain run). */
static size_t token_len(const char *s, size_t n, int groups)
{
    size_t i = 0;
    if (groups && s[0] == '[') {
        int depth = 0;
        for (i = 0; i < n; i++) {
            depth += (s[i] == '[') - (s[i] == ']');
            if (depth == 0 && (i + 1 == n || is_blank(s[i + 1])))
                return i + 1;
        }
        i = 0;
    }
    while (i < n && !is_blank(s[i]))
        i++;
    return i;
}

typedef struct {
    strbuf *b;
    size_t *col;
    size_t indent, width;
    int on_line;        /* a token of this text is already on the line */
} wrap_state;

static void wrap_newline(wrap_state *w)
{
    strbuf_puts(w->b, "\n");
    wrap_pad(w->b, w->indent);
    *w->col = w->indent;
    w->on_line = 0;
}

static void wrap_words(wrap_state *w, const char *s, size_t n, int groups);

/* Cuts a word that no line can hold at the width, code point by code point. */
static void wrap_split(wrap_state *w, const char *t, size_t n)
{
    while (n > 0) {
        size_t avail = w->width > *w->col ? w->width - *w->col : 1, i = 0, c = 0;
        while (i < n && (c < avail || is_cont(t[i]))) {
            c += !is_cont(t[i]);
            i++;
        }
        strbuf_append(w->b, t, i);
        *w->col += c;
        t += i;
        n -= i;
        if (n > 0)
            wrap_newline(w);
    }
    w->on_line = 1;
}

static void wrap_token(wrap_state *w, const char *t, size_t n, int group)
{
    size_t tw = cols_n(t, n), sep = w->on_line ? 1 : 0;
    if (*w->col + sep + tw <= w->width) {
        wrap_pad(w->b, sep);
        strbuf_append(w->b, t, n);
        *w->col += sep + tw;
        w->on_line = 1;
        return;
    }
    /* A fresh line gives more room only when this one is already used. */
    if (w->on_line || *w->col > w->indent) {
        wrap_newline(w);
        if (w->indent + tw <= w->width) {
            strbuf_append(w->b, t, n);
            *w->col += tw;
            w->on_line = 1;
            return;
        }
    }
    if (group)
        wrap_words(w, t, n, 0);
    else
        wrap_split(w, t, n);
}

static void wrap_words(wrap_state *w, const char *s, size_t n, int groups)
{
    size_t i = 0;
    while (i < n) {
        while (i < n && is_blank(s[i]))
            i++;
        if (i == n)
            break;
        size_t len = token_len(s + i, n - i, groups);
        wrap_token(w, s + i, len, groups && memchr(s + i, ' ', len) != NULL);
        i += len;
    }
}

void wrap_text(strbuf *b, const char *text, size_t *col, size_t indent, size_t width,
               int keep_groups)
{
    wrap_state w = { b, col, indent, width, 0 };
    if (text)
        wrap_words(&w, text, strlen(text), keep_groups);
}
