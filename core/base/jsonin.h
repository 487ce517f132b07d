/* jsonin.h - stored documents decoded fast, to exactly what
 * json_loadb(text, len, 0) gives (see jsonin.c). */
#ifndef RIGDECK_JSONIN_H
#define RIGDECK_JSONIN_H

#include <stddef.h>

#include <jansson.h>

/* The document, or NULL when the text is anything but the common case
 * (see jsonin.c) or memory ran out: then jansson must decide. */
json_t *jsonin_loadb(const char *text, size_t len);

/* jsonin_loadb, else json_loadb(text, len, 0, jerr): jansson's answer in
 * every case, error included. */
json_t *jsonin_loadb_any(const char *text, size_t len, json_error_t *jerr);

#endif
