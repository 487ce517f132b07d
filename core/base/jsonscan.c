/* jsonscan.c - lexical skipping over JSON text (see jsonscan.h): the only
 * skipper the text readers use, so their rules cannot drift apart.
 */
#include "jsonscan.h"

/* Bytes a string's skipping must look at: its end, an escape, a control
 * character (not JSON). */
static const unsigned char string_stop[256] = {
    [0x00] = 1, [0x01] = 1, [0x02] = 1, [0x03] = 1, [0x04] = 1, [0x05] = 1, [0x06] = 1, [0x07] = 1,
    [0x08] = 1, [0x09] = 1, [0x0a] = 1, [0x0b] = 1, [0x0c] = 1, [0x0d] = 1, [0x0e] = 1, [0x0f] = 1,
    [0x10] = 1, [0x11] = 1, [0x12] = 1, [0x13] = 1, [0x14] = 1, [0x15] = 1, [0x16] = 1, [0x17] = 1,
    [0x18] = 1, [0x19] = 1, [0x1a] = 1, [0x1b] = 1, [0x1c] = 1, [0x1d] = 1, [0x1e] = 1, [0x1f] = 1,
    ['"'] = 1, ['\\'] = 1,
};

const char *jsonscan_string(const char *p, const char *end, int *plain)
{
    if (plain)
        *plain = 1;
    for (p++; p < end; p++) {
        while (p < end && !string_stop[(unsigned char)*p])
            p++;
        if (p >= end)
            break;
        if (*p == '"')
            return p + 1;
        if (*p == '\\') {
            if (plain)
                *plain = 0;
            if (++p >= end)   /* the escaped byte: never the string's end */
                break;
        } else {
            return NULL;   /* a control character: not JSON */
        }
    }
    return NULL;
}

const unsigned char jsonscan_scalar_end[256] = {
    [0] = 1, [','] = 1, [':'] = 1, ['{'] = 1, ['}'] = 1, ['['] = 1, [']'] = 1, ['"'] = 1,
    [' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1,
};

const char *jsonscan_value(const char *p, const char *end)
{
    int depth = 0;
    do {
        p = jsonscan_ws(p, end);
        if (p >= end)
            return NULL;
        if (*p == '"') {
            if (!(p = jsonscan_string(p, end, NULL)))
                return NULL;
        } else if (*p == '{' || *p == '[') {
            if (++depth > JSONSCAN_MAX_DEPTH)
                return NULL;
            p++;
        } else if (*p == '}' || *p == ']') {
            if (--depth < 0)
                return NULL;
            p++;
        } else if (*p == ',' || *p == ':') {
            if (depth == 0)
                return NULL;
            p++;
        } else {
            const char *s = p;
            while (p < end && !jsonscan_scalar_end[(unsigned char)*p])
                p++;
            if (p == s)
                return NULL;   /* a NUL byte */
        }
    } while (depth > 0);
    return p;
}
