/* doc.c - reading a field of a JSON document (see doc.h). */
#include "doc.h"

#include "rdtime.h"

const char *doc_str(const json_t *doc, const char *field)
{
    const char *s = json_string_value(json_object_get(doc, field));
    return s ? s : "";
}

int64_t doc_int(const json_t *doc, const char *field)
{
    return doc_int_or(doc, field, 0);
}

int64_t doc_int_or(const json_t *doc, const char *field, int64_t dflt)
{
    const json_t *v = json_object_get(doc, field);
    return json_is_integer(v) ? (int64_t)json_integer_value(v) : dflt;
}

int64_t doc_time(const json_t *doc, const char *field)
{
    rd_time t = 0;
    const char *s = json_string_value(json_object_get(doc, field));
    return s && rdtime_parse(field, s, &t, NULL) == RD_OK ? t : 0;
}
