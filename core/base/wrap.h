/* wrap.h - word wrapping of plain text to a column width.
 *
 * Pure text layout for front ends that print prose (help): the caller
 * chooses the width, nothing here knows about terminals.  Columns count
 * UTF-8 code points.
 */
#ifndef RD_WRAP_H
#define RD_WRAP_H

#include <stddef.h>

#include "strbuf.h"

/* Text is laid into a strbuf (strbuf.h). */

/* Appends n spaces. */
void wrap_pad(strbuf *b, size_t n);

/* Display columns of s (UTF-8 code points). */
size_t wrap_cols(const char *s);

/* Appends text in lines of at most width columns.  The first line goes on
 * at column *col (what the caller has already put on it); every further
 * line starts with indent spaces.  Text breaks only at blanks; with
 * keep_groups a bracketed group ("[--plan free|team]") moves to the next
 * line whole while it fits on one.  A word longer than a whole line is the
 * only thing ever split.  Ends without a newline; *col is where it ended. */
void wrap_text(strbuf *b, const char *text, size_t *col, size_t indent, size_t width,
               int keep_groups);


#endif
