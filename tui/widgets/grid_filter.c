/* grid_filter.c - a filter as typed: its plain substring and its
 * `column:value` terms (grid.h), parsing and matching.  grid.c's fast
 * search runs the plain part; the terms are checked after it, on the few
 * rows that pass.  Calls nothing of grid.c (grid.c calls this). */
#include "grid.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "text.h"

/* A header compared as the user may type it: letters and digits only,
 * any case ("WAITING REASON" is "waiting_reason", "waitingreason"). */
static int header_names(const char *header, const char *word, size_t wlen)
{
    size_t i = 0;
    for (const char *h = header; *h; h++) {
        if (!isalnum((unsigned char)*h))
            continue;
        while (i < wlen && !isalnum((unsigned char)word[i]))
            i++;
        if (i >= wlen || tolower((unsigned char)*h) != tolower((unsigned char)word[i]))
            return 0;
        i++;
    }
    while (i < wlen && !isalnum((unsigned char)word[i]))
        i++;
    return i == wlen;
}

/* The length of a term's column word ("state" of "state:active"), or 0
 * when the word is no term. */
static size_t term_column_len(const char *w, size_t wlen)
{
    if (!isalpha((unsigned char)w[0]))
        return 0;
    for (size_t i = 1; i < wlen; i++) {
        if (w[i] == ':')
            return i;
        if (!isalnum((unsigned char)w[i]) && w[i] != '_' && w[i] != '-')
            return 0;
    }
    return 0;
}

static void list_columns(const char *const *headers, size_t nheaders, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < nheaders && used < len; i++) {
        char name[64];
        size_t n = 0;
        for (const char *h = headers[i]; *h && n + 1 < sizeof name; h++)
            name[n++] = *h == ' ' ? '_' : (char)tolower((unsigned char)*h);
        name[n] = '\0';
        used += (size_t)snprintf(out + used, len - used, "%s%s", i ? ", " : "", name);
    }
}

int grid_filter_parse(const char *text, const char *const *headers, size_t nheaders, char *plain, size_t plainlen,
                      grid_term *terms, size_t *nterms, char *err, size_t errlen)
{
    size_t nt = 0, used = 0;
    char rest[GRID_FILTER_MAX];
    rest[0] = '\0';
    if (err && errlen)
        err[0] = '\0';
    for (const char *p = text; *p;) {
        p += strspn(p, " ");
        size_t wlen = strcspn(p, " ");
        if (!wlen)
            break;
        size_t clen = term_column_len(p, wlen);
        if (!clen) {
            if (used < sizeof rest)
                used += (size_t)snprintf(rest + used, sizeof rest - used, "%s%.*s", used ? " " : "", (int)wlen, p);
            p += wlen;
            continue;
        }
        size_t col = nheaders;
        for (size_t i = 0; i < nheaders && col == nheaders; i++)
            if (header_names(headers[i], p, clen))
                col = i;
        if (col == nheaders) {
            char list[512];
            list_columns(headers, nheaders, list, sizeof list);
            snprintf(err, errlen, "filter: no column '%.*s' in this table; columns: %s", (int)clen, p, list);
            return 0;
        }
        if (nt == GRID_TERMS_MAX) {
            snprintf(err, errlen, "filter: at most %d column:value terms", GRID_TERMS_MAX);
            return 0;
        }
        const char *v = p + clen + 1;
        size_t vlen = wlen - clen - 1;
        terms[nt].col = (int)col;
        terms[nt].negate = vlen > 0 && v[0] == '!';
        snprintf(terms[nt].value, sizeof terms[nt].value, "%.*s", (int)(vlen - (size_t)terms[nt].negate),
                 v + terms[nt].negate);
        nt++;
        p += wlen;
    }
    /* Without terms the text is kept as typed: "a  b" searched for itself. */
    snprintf(plain, plainlen, "%s", nt ? rest : text);
    *nterms = nt;
    return 1;
}

int grid_row_passes_terms(const grid_row *r, size_t ncols, const grid_term *terms, size_t nterms)
{
    for (size_t i = 0; i < nterms; i++) {
        if ((size_t)terms[i].col >= ncols)
            continue;
        int hit = text_contains(r->cells[terms[i].col], terms[i].value);
        if (hit == terms[i].negate)
            return 0;
    }
    return 1;
}
