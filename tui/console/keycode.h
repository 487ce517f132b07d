/* keycode.h - console key codes and line editing by key, shared by the
 * bindings, the input modes and the forms.
 */
#ifndef RD_KEYCODE_H
#define RD_KEYCODE_H

#include "prompt.h"

/* Console key codes: Unicode code points for characters, CK_FN(KEY_x) for
 * curses function keys (so KEY_* never collides with a character). */
#define CK_FN(k) ((k) | 0x1000000)
#define CK_IS_FN(k) (((k) & 0x1000000) != 0)
#define CK_CTRL(c) ((c) & 0x1f)
#define CK_ESC 27

/* Applies an editing key to a line editor (UTF-8 aware); returns 1 if the
 * key was an editing key. */
int keycode_edit_line(ledit *e, int key, lhistory *h);

/* 1 for Enter / Return. */
int keycode_is_enter(int key);

#endif
