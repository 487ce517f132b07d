/* strbuf.c - the growing string (see strbuf.h). */
#include "strbuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void fail(strbuf *b)
{
    strbuf_free(b);
    b->failed = 1;
}

/* Resizes the text to exactly cap bytes (cap > b->cap); 0, or -1 failed. */
static int resize(strbuf *b, size_t cap)
{
    char *p = realloc(b->text, cap);
    if (!p) {
        fail(b);
        return -1;
    }
    if (!b->text)
        p[0] = '\0';
    b->text = p;
    b->cap = cap;
    return 0;
}

int strbuf_reserve(strbuf *b, size_t want)
{
    if (b->failed)
        return -1;
    if (want > PTRDIFF_MAX) {   /* no object is that large: fail without asking */
        fail(b);
        return -1;
    }
    return want <= b->cap ? 0 : resize(b, want);
}

void strbuf_append(strbuf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        /* doubling from 256: appends cost amortised O(1) */
        size_t need = b->len + n + 1, cap = b->cap ? b->cap : 256;
        while (cap < need && cap <= PTRDIFF_MAX / 2)
            cap *= 2;
        if (cap < need || resize(b, cap) != 0) {
            fail(b);
            return;
        }
    }
    memcpy(b->text + b->len, s, n);
    b->len += n;
    b->text[b->len] = '\0';
}

void strbuf_puts(strbuf *b, const char *s)
{
    strbuf_append(b, s, strlen(s));
}

void strbuf_clear(strbuf *b)
{
    b->len = 0;
    if (b->text)
        b->text[0] = '\0';
    b->failed = 0;
}

void strbuf_drop(strbuf *b, size_t n)
{
    if (!b->text)
        return;
    if (n > b->len)
        n = b->len;
    memmove(b->text, b->text + n, b->len - n);
    b->len -= n;
    b->text[b->len] = '\0';
}

void strbuf_free(strbuf *b)
{
    free(b->text);
    b->text = NULL;
    b->len = b->cap = 0;
}
