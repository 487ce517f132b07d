/* Unit tests of the too-small guard: below 80x24 the console shows only a
 * message, so every key but resize, '?' and 'q' must be ignored; at or above
 * the minimum every key passes on to its mode's handler. */
#include "testutil.h"

#define NCURSES_WIDECHAR 1
#include <curses.h>

#include "keys.h"
#include "layout.h"

/* Keys that would open a form, a prompt, a question, answer one, trigger a
 * sync or move around: each must be dropped on a small terminal. */
static const int acting_keys[] = {
    'm', 'y', 'Y', 'n', 'd', 'a', 'e', ':', '/', 'S', 's', 'v', ' ', 'j', 'k', 'g', 'G', 'r', '1', '9', '\t',
    '\n', '\r', CK_ESC, CK_CTRL('l'), CK_FN(KEY_F(1)), CK_FN(KEY_F(2)), CK_FN(KEY_F(7)), CK_FN(KEY_F(8)),
    CK_FN(KEY_F(9)), CK_FN(KEY_F(10)), CK_FN(KEY_ENTER), CK_FN(KEY_UP), CK_FN(KEY_DOWN), 0x00e9,
};
#define NACTING (sizeof acting_keys / sizeof acting_keys[0])

static void test_small_drops_acting_keys(void **state)
{
    (void)state;
    const int sizes[][2] = { { 23, 80 }, { 24, 79 }, { 20, 70 }, { 1, 1 }, { 0, 0 }, { 23, 300 }, { 100, 79 } };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t i = 0; i < NACTING; i++)
            if (keys_allows_size(sizes[s][0], sizes[s][1], acting_keys[i]))
                fail_msg("%dx%d: key %#x passes the too-small guard", sizes[s][1], sizes[s][0], acting_keys[i]);
}

static void test_small_keeps_resize_help_quit(void **state)
{
    (void)state;
    assert_true(keys_allows_size(20, 70, CK_FN(KEY_RESIZE)));
    assert_true(keys_allows_size(20, 70, '?'));
    assert_true(keys_allows_size(20, 70, 'q'));
    assert_true(keys_allows_size(LAYOUT_MIN_ROWS - 1, LAYOUT_MIN_COLS, 'q'));
}

static void test_big_enough_passes_everything(void **state)
{
    (void)state;
    const int sizes[][2] = { { LAYOUT_MIN_ROWS, LAYOUT_MIN_COLS }, { 40, 120 }, { 60, 200 } };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        for (size_t i = 0; i < NACTING; i++)
            assert_true(keys_allows_size(sizes[s][0], sizes[s][1], acting_keys[i]));
        assert_true(keys_allows_size(sizes[s][0], sizes[s][1], 'q'));
        assert_true(keys_allows_size(sizes[s][0], sizes[s][1], CK_FN(KEY_RESIZE)));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_drops_acting_keys),
        cmocka_unit_test(test_small_keeps_resize_help_quit),
        cmocka_unit_test(test_big_enough_passes_everything),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
