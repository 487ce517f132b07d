/* clipboard.c - the bytes of a copy through the terminal: base64, the OSC 52
 * escape, tmux's passthrough wrapping, the size cap, writing them out and
 * the test record (clipboard.h says which terminal takes what). */
#include "clipboard.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"

#define ESC '\033'
#define BEL '\007'
#define OSC52_HEAD "\033]52;c;"

size_t clip_base64_len(size_t n)
{
    return (n + 2) / 3 * 4;
}

void clip_base64(const void *in, size_t n, char *out)
{
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *p = in;
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned long v = (unsigned long)p[i] << 16;
        if (i + 1 < n)
            v |= (unsigned long)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        out[o++] = alphabet[(v >> 18) & 63];
        out[o++] = alphabet[(v >> 12) & 63];
        out[o++] = i + 1 < n ? alphabet[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? alphabet[v & 63] : '=';
    }
    out[o] = '\0';
}

char *clip_osc52(const char *text, size_t n)
{
    size_t head = strlen(OSC52_HEAD);
    size_t b64 = clip_base64_len(n);
    char *seq = malloc(head + b64 + 2);
    if (!seq)
        return NULL;
    memcpy(seq, OSC52_HEAD, head);
    clip_base64(text, n, seq + head);
    /* BEL, not ESC \: every terminal that takes OSC 52 takes BEL, and it
     * is one byte inside tmux's passthrough, where an ESC would double. */
    seq[head + b64] = BEL;
    seq[head + b64 + 1] = '\0';
    return seq;
}

char *clip_tmux_wrap(const char *seq)
{
    static const char head[] = "\033Ptmux;";
    size_t n = strlen(seq), escs = 0;
    for (size_t i = 0; i < n; i++)
        escs += seq[i] == ESC;
    char *out = malloc(sizeof head - 1 + n + escs + 3);
    if (!out)
        return NULL;
    size_t o = sizeof head - 1;
    memcpy(out, head, o);
    /* tmux ends the DCS at the first lone ESC \: every ESC of the wrapped
     * sequence is sent twice, and tmux passes one of each pair on. */
    for (size_t i = 0; i < n; i++) {
        if (seq[i] == ESC)
            out[o++] = ESC;
        out[o++] = seq[i];
    }
    out[o++] = ESC;
    out[o++] = '\\';
    out[o] = '\0';
    return out;
}

clip_target clip_target_of(const char *tmux_env, const char *term_env)
{
    clip_target t;
    t.tmux = tmux_env && *tmux_env;
    /* The Linux virtual console knows no OSC 52: it ends an OSC it does
     * not know at once and would print the base64 over the screen.  A
     * dumb terminal has no escapes at all. */
    t.terminal = !(term_env && (strncmp(term_env, "linux", 5) == 0 || strcmp(term_env, "dumb") == 0));
    return t;
}

char *clip_sequence(const char *text, clip_target t, size_t *len, char *why, size_t whylen)
{
    size_t n = strlen(text);
    *len = 0;
    if (n > CLIP_MAX_TEXT) {
        snprintf(why, whylen, "%zu bytes is more than a terminal takes in one copy (%d)", n, CLIP_MAX_TEXT);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)text[i] < 0x20 && text[i] != '\t') {
            /* ids, names and URLs have none; one would end up in the
             * operator's clipboard, where a newline runs a pasted line */
            snprintf(why, whylen, "the text holds a control character");
            return NULL;
        }
    char *plain = clip_osc52(text, n);
    if (!plain) {
        snprintf(why, whylen, "out of memory");
        return NULL;
    }
    if (!t.tmux) {
        *len = strlen(plain);
        return plain;
    }
    char *wrapped = clip_tmux_wrap(plain);
    size_t pn = strlen(plain), wn = wrapped ? strlen(wrapped) : 0;
    char *both = wrapped ? malloc(pn + wn + 1) : NULL;
    if (!both) {
        free(plain);
        free(wrapped);
        snprintf(why, whylen, "out of memory");
        return NULL;
    }
    memcpy(both, plain, pn);
    memcpy(both + pn, wrapped, wn + 1);
    free(plain);
    free(wrapped);
    *len = pn + wn;
    return both;
}

int clip_record(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    size_t n = strlen(text);
    char *line = malloc(n + 2);
    int rc = -1;
    if (line) {
        memcpy(line, text, n);
        line[n] = '\n';
        rc = fileio_write_all(fd, line, n + 1);
        free(line);
    }
    if (close(fd) != 0)
        rc = -1;
    return rc;
}
