/* clipboard.h - copying text into the operator's own clipboard through the
 * terminal: the OSC 52 escape (ESC ] 52 ; c ; BASE64 BEL), which xterm
 * defined and most terminals accept, and which travels over SSH like any
 * other output, so a console on a remote machine copies into the clipboard
 * of the machine the operator sits at.
 *
 * This file owns the bytes: base64, the escape, the wrapping for tmux, the
 * size cap and the test record.  It knows nothing of curses or of the
 * console: copy.c decides what to copy and when to write it (after a
 * refresh, so the escape never lands inside a screen update).
 *
 * Inside tmux ($TMUX set) the escape goes out twice:
 *   - as it is: tmux takes it when its option `set-clipboard` is `on`
 *     (it then makes a tmux buffer and sets the outer terminal's clipboard
 *     itself, when that terminal's terminfo has the Ms capability); with
 *     `external`, tmux's default, or `off` tmux ignores it (tmux(1),
 *     set-clipboard);
 *   - wrapped in tmux's passthrough, ESC P tmux; <the escape with every ESC
 *     doubled> ESC \, which tmux hands to the outer terminal unchanged when
 *     `allow-passthrough` is on (tmux 3.3 and later; earlier ones always
 *     pass it; when it is off tmux drops the whole DCS silently).
 * Where both options are on the outer terminal is told the same thing
 * twice, which changes nothing; where both are off nothing can reach it.
 */
#ifndef RD_CLIPBOARD_H
#define RD_CLIPBOARD_H

#include <stddef.h>

/* The most text one copy sends: hterm and chromium's osc52.sh refuse an
 * OSC 52 sequence over 100,000 bytes, of which 7 are "ESC ] 52 ; c ;", 1
 * the BEL and 99,992 the base64 of 74,994 bytes of text (the figure tmux
 * yank scripts use, after https://sunaku.github.io/tmux-yank-osc52.html). */
#define CLIP_MAX_TEXT 74994
#define CLIP_MAX_SEQUENCE 100000

/* How many characters the base64 of n bytes has (without the NUL). */
size_t clip_base64_len(size_t n);

/* Writes the standard base64 (RFC 4648, '=' padded, no line breaks) of
 * n bytes of in to out, NUL-terminated; out holds clip_base64_len(n) + 1. */
void clip_base64(const void *in, size_t n, char *out);

/* The escape that sets the clipboard to n bytes of text: ESC ] 52 ; c ;
 * BASE64 BEL (malloc'd, NUL-terminated; NULL when out of memory). */
char *clip_osc52(const char *text, size_t n);

/* seq inside tmux's passthrough: ESC P tmux; SEQ-with-ESC-doubled ESC \
 * (malloc'd; NULL when out of memory). */
char *clip_tmux_wrap(const char *seq);

/* Where the escape goes, decided from the environment's values. */
typedef struct {
    int tmux;       /* inside tmux: also send the passthrough copy */
    int terminal;   /* 0: this terminal would print the escape (the Linux console) */
} clip_target;

/* tmux_env: $TMUX; term_env: $TERM (either may be NULL). */
clip_target clip_target_of(const char *tmux_env, const char *term_env);

/* The bytes to write for text under target t (malloc'd, *len set; NULL
 * with why filled when the text is too long, holds a NUL byte, or memory
 * runs out). */
char *clip_sequence(const char *text, clip_target t, size_t *len, char *why, size_t whylen);

/* The test hook: appends text and a newline to the file at path
 * ($RIGDECK_CLIPBOARD_FILE), created with mode 0600; 0 on success. */
int clip_record(const char *path, const char *text);

#endif
