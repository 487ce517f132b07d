/* yamljson.h - YAML (and therefore JSON) text to a jansson value.
 *
 * One loader for every YAML input rigdeck reads (inventories, job specs,
 * themes).  It is deliberately a strict subset of YAML 1.2:
 *   - mappings become objects, sequences arrays;
 *   - quoted and block scalars are always strings;
 *   - plain scalars resolve like the YAML 1.2 core schema: integers
 *     (decimal, 0x hex, 0o octal) -> json integer, decimals -> json real,
 *     true/True/TRUE/false/False/FALSE -> bool, null/Null/NULL/~/empty -> null,
 *     anything else a string ("yes", "on", "1_000" stay strings);
 *   - refused: syntax errors, duplicate keys, anchors and aliases, tags other
 *     than !!str/!!map/!!seq, more than one document, non-scalar keys,
 *     .inf/.nan, integers outside int64, nesting deeper than 100 levels.
 * Every refusal is one line "SOURCE:LINE:COLUMN: what is wrong", and never
 * quotes the text: a file may be anyone's secret (docs/security.md).
 */
#ifndef RD_YAMLJSON_H
#define RD_YAMLJSON_H

#include <stddef.h>

#include <jansson.h>

#include "err.h"

/* Parses len bytes of text (need not be NUL-terminated) into a new jansson
 * value stored in *out (caller owns it); source prefixes every message.  An
 * empty document (nothing, or only comments / "---") is RD_EINVAL "SOURCE:
 * the document is empty".  On failure *out is NULL. */
rd_code yamljson_parse(const char *text, size_t len, const char *source, json_t **out, rd_err *err);

/* What a refusal may say of a value read from a file, into buf: a number,
 * true, false or "nothing" as it is, anything else by its kind ("a
 * string", "a list", "a mapping"), never a string's text.  Returns buf. */
const char *yamljson_describe(const json_t *v, char *buf, size_t len);

/* The same for a mapping's key: a key that reads like a field name (a-z,
 * 0-9, '_' and '-', starting with a letter or '_', at most 32 characters)
 * as it is, so a misspelt field can be named; any other key as "a key"
 * (a line of /etc/shadow parses as a one-key mapping). */
const char *yamljson_describe_key(const char *key, char *buf, size_t len);

#endif
