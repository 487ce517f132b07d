/* jsonscan.h - the one set of lexical skip/scan primitives over JSON text.
 *
 * The text readers that look at stored documents without decoding them
 * (docpick.c's field picker, sched_queue.c's member and splice reader, and
 * jsonin.c's whitespace) all walk JSON by these, so that one rule decides
 * what they step over.  The skipping is lexical: a string to its closing
 * quote, an array or object to its matching bracket, a scalar to the next
 * delimiter; a skipped value is not checked beyond that.  What these
 * refuse (NULL), a reader hands to the full decoder, whose verdict is the
 * one that counts:
 *   - a string holding a raw control byte (below 0x20): not JSON;
 *   - a string or container cut short by the end of the text;
 *   - nesting deeper than JSONSCAN_MAX_DEPTH;
 *   - a stray ',' ':' or closing bracket where a value should start.
 * Escapes are stepped over whole (a backslash and the byte after it), so
 * "\"", "\\" and "\u007b" never end a string or open a container, and
 * braces or brackets inside a string are text.
 */
#ifndef RD_JSONSCAN_H
#define RD_JSONSCAN_H

#include <stddef.h>

enum { JSONSCAN_MAX_DEPTH = 64 };

/* p past JSON whitespace (space, tab, newline, carriage return). */
static inline const char *jsonscan_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* p at an opening quote: past the closing one, or NULL.  *plain (when
 * plain is not NULL) is 1 when the string holds no escape (its text is its
 * value). */
const char *jsonscan_string(const char *p, const char *end, int *plain);

/* Past the one value starting at p (after any whitespace), or NULL when it
 * does not end well (see the list above). */
const char *jsonscan_value(const char *p, const char *end);

/* 1 for the bytes that end a JSON number or literal (delimiters,
 * whitespace, a quote, a bracket, and NUL, which is never part of one). */
extern const unsigned char jsonscan_scalar_end[256];

#endif
