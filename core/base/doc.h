/* doc.h - reading a field of a JSON document (doc.c): the one set of
 * getters every module uses, each with the same answer for a field that is
 * missing or of another type, so no caller has to guard every lookup. */
#ifndef RD_DOC_H
#define RD_DOC_H

#include <jansson.h>
#include <stdint.h>

/* The string value of field, or "" when it is missing or not a string. */
const char *doc_str(const json_t *doc, const char *field);

/* The integer value of field, or 0 when it is missing or not an integer. */
int64_t doc_int(const json_t *doc, const char *field);

/* The integer value of field, or dflt when it is missing or not an integer. */
int64_t doc_int_or(const json_t *doc, const char *field, int64_t dflt);

/* The RFC 3339 time in field as unix seconds, or 0 when it is missing or
 * not a time. */
int64_t doc_time(const json_t *doc, const char *field);

#endif
