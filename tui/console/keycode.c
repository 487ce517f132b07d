/* keycode.c - console key codes below the bindings: which keys are Enter,
 * and how an editing key (or a typed code point, as UTF-8) changes a line
 * editor.  The prompt, the filter and the forms all edit through here, so
 * they agree on every editing key.
 */
#define NCURSES_WIDECHAR 1
#include "keycode.h"

#include <curses.h>

int keycode_is_enter(int key)
{
    return key == '\n' || key == '\r' || key == CK_FN(KEY_ENTER);
}

int keycode_edit_line(ledit *e, int key, lhistory *h)
{
    static const struct { int key; int edit; } map[] = {
        { CK_FN(KEY_LEFT), PROMPT_K_LEFT }, { CK_CTRL('b'), PROMPT_K_LEFT },
        { CK_FN(KEY_RIGHT), PROMPT_K_RIGHT }, { CK_CTRL('f'), PROMPT_K_RIGHT },
        { CK_FN(KEY_HOME), PROMPT_K_HOME }, { CK_CTRL('a'), PROMPT_K_HOME },
        { CK_FN(KEY_END), PROMPT_K_END }, { CK_CTRL('e'), PROMPT_K_END },
        { CK_FN(KEY_BACKSPACE), PROMPT_K_BACKSPACE }, { 127, PROMPT_K_BACKSPACE }, { 8, PROMPT_K_BACKSPACE },
        { CK_FN(KEY_DC), PROMPT_K_DELETE }, { CK_CTRL('d'), PROMPT_K_DELETE },
        { CK_CTRL('u'), PROMPT_K_KILL_LINE }, { CK_CTRL('w'), PROMPT_K_KILL_WORD },
        { CK_CTRL('k'), PROMPT_K_KILL_END }, { CK_FN(KEY_UP), PROMPT_K_UP }, { CK_FN(KEY_DOWN), PROMPT_K_DOWN },
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i].key == key)
            return ledit_key(e, map[i].edit, h);
    if (CK_IS_FN(key) || key < 32 || key > 0x10FFFF)
        return 0;
    /* A code point becomes its UTF-8 bytes. */
    unsigned char b[4];
    int n;
    unsigned cp = (unsigned)key;
    if (cp < 0x80) { b[0] = (unsigned char)cp; n = 1; }
    else if (cp < 0x800) { b[0] = (unsigned char)(0xC0 | cp >> 6); b[1] = (unsigned char)(0x80 | (cp & 63)); n = 2; }
    else if (cp < 0x10000) {
        b[0] = (unsigned char)(0xE0 | cp >> 12); b[1] = (unsigned char)(0x80 | (cp >> 6 & 63));
        b[2] = (unsigned char)(0x80 | (cp & 63)); n = 3;
    } else {
        b[0] = (unsigned char)(0xF0 | cp >> 18); b[1] = (unsigned char)(0x80 | (cp >> 12 & 63));
        b[2] = (unsigned char)(0x80 | (cp >> 6 & 63)); b[3] = (unsigned char)(0x80 | (cp & 63)); n = 4;
    }
    if (e->len + (size_t)n + 1 >= sizeof e->buf)
        return 1;
    for (int i = 0; i < n; i++)
        ledit_key(e, b[i], h);
    return 1;
}
