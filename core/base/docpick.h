/* docpick.h - some top-level fields of a stored JSON document, decoded
 * without decoding the rest.
 *
 * A list that shows a few fields of many large documents (the console's
 * Jobs table: 100,000 jobs of a kilobyte each) spends most of its time and
 * memory building JSON values it then throws away.  docpick reads the
 * document's text, skips the values of unwanted members by their syntax
 * alone, and decodes only the wanted ones, as jansson would.
 */
#ifndef RD_DOCPICK_H
#define RD_DOCPICK_H

#include <stddef.h>

#include <jansson.h>

/* A new object holding the members of the JSON object in text[0..len)
 * whose names are among names[0..n) (a member given twice: the last, as
 * jansson keeps it), each decoded as json_loadb would decode it.  A name
 * "a.b" asks for member a in part: of an object a, its member b; of an
 * array a, member b of each object in it (a listed whole wins).  NULL when
 * the text is not a JSON object docpick can read (malformed, or a member
 * name with escapes) or memory ran out: the caller then decodes the whole
 * document, whose error (if any) is the one to report. */
json_t *docpick_fields(const char *text, size_t len, const char *const *names, size_t n);

/* The same pick from a decoded document: a new object whose values are
 * doc's own (shared, not copied) or, for members asked in part, new
 * containers of doc's values. */
json_t *docpick_copy(const json_t *doc, const char *const *names, size_t n);

#endif
