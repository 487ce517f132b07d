/* table.h - prints command results as aligned plain-text tables (batch). */
#ifndef RD_TABLE_H
#define RD_TABLE_H

#include <jansson.h>
#include <stdio.h>

/* Prints result: {"items": [...]} as a table (columns: the comma-separated
 * list, or every key seen), any other object as "field  value" lines with
 * lists of objects as nested tables.  Money (*_ucr) shows in credits.
 * -1 when a cell or the table could not be made (out of memory): what was
 * printed is missing something. */
int table_print(FILE *out, const json_t *result, const char *columns);

/* Prints result as CSV: a list's items one row each under a header, any
 * other object as rows of (section, fields..., value); money in credits.
 * -1 as table_print. */
int table_print_csv(FILE *out, const json_t *result, const char *columns);

/* One value as a table cell shows it (malloc'd): money in credits, yes/no,
 * a list joined by ", ", anything else compact JSON. */
char *table_cell_text(const char *key, const json_t *v);

/* Formats micro-credits as credits with up to 6 decimals ("1.265", "-0.5"). */
char *table_format_credits(long long ucr, char *buf, size_t len);

#endif
