/* strbuf.h - the one growing string: appended to, always NUL-terminated.
 *
 * Front ends build help and tables with it (wrap.c lays text into one),
 * the scheduler splices job text into one, the HTTP clients (etcd, GCP)
 * collect answers and the etcd watch its partial lines in one.  An allocation failure frees
 * the text and marks the buffer failed; later appends do nothing, so a
 * builder checks once at the end.  (jsonout.c keeps its own inline buffer:
 * it is the encoder's hot loop.)
 */
#ifndef RD_STRBUF_H
#define RD_STRBUF_H

#include <stddef.h>

/* text is NULL until something is appended (or room reserved) and after
 * an allocation failure (failed is then 1).  Zero-initialise to start. */
typedef struct {
    char *text;
    size_t len, cap;
    int failed;
} strbuf;

/* Room for at least cap bytes in all (the terminating NUL counted),
 * allocated exactly when it must grow: for a builder that knows its size.
 * 0 on success, -1 when memory ran out (the buffer is then failed). */
int strbuf_reserve(strbuf *b, size_t cap);

/* Appends n bytes of s. */
void strbuf_append(strbuf *b, const char *s, size_t n);

/* Appends the string s. */
void strbuf_puts(strbuf *b, const char *s);

/* Empties the text but keeps its allocation, and clears a failure: for a
 * buffer reused once per request. */
void strbuf_clear(strbuf *b);

/* Removes the first n bytes (n <= len); the rest moves to the front. */
void strbuf_drop(strbuf *b, size_t n);

/* Frees the text; the buffer is empty and usable again. */
void strbuf_free(strbuf *b);

#endif
