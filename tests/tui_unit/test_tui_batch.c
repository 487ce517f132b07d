/* Unit tests of the batch runner's choice of width for help text: $COLUMNS
 * first (as git does), then the terminal's width, then 80. */
#include "testutil.h"

#include "batch.h"

static void test_text_width(void **state)
{
    (void)state;
    assert_int_equal(batch_text_width(NULL, 0), 80);          /* a pipe or a file */
    assert_int_equal(batch_text_width(NULL, 132), 132);       /* the terminal */
    assert_int_equal(batch_text_width("100", 132), 100);      /* $COLUMNS wins */
    assert_int_equal(batch_text_width("", 60), 60);           /* empty: unset */
    assert_int_equal(batch_text_width("0", 60), 60);          /* not a width */
    assert_int_equal(batch_text_width("-5", 0), 80);
    assert_int_equal(batch_text_width("80x", 0), 80);
    assert_int_equal(batch_text_width("99999999999999999999", 0), 80);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_width),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
