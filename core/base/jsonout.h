/* jsonout.h - compact JSON text of a document, as json_dumps(JSON_COMPACT)
 * writes it, faster (see jsonout.c). */
#ifndef RIGDECK_JSONOUT_H
#define RIGDECK_JSONOUT_H

#include <stddef.h>

#include <jansson.h>

/* The text (malloc'd, NUL-terminated; *len its length when len is not
 * NULL), or NULL when doc holds a real, nests too deep, or memory ran out. */
char *jsonout_dumps(const json_t *doc, size_t *len);

/* The same, falling back to jansson for what jsonout_dumps leaves to it;
 * NULL only when memory ran out (or doc is NULL). */
char *jsonout_dumps_any(const json_t *doc, size_t *len);

#endif
