/* Unit tests of display widths, fitting, bars, glyphs, and the command
 * lines that forms build (quoting included). */
#include "testutil.h"

#include <locale.h>

#include "form.h"
#include "text.h"

static void test_widths(void **state)
{
    char out[64];
    (void)state;
    text_set_ascii(0);
    assert_int_equal(text_cols("gpu-01"), 6);
    assert_int_equal(text_cols("caf\xc3\xa9"), 4);          /* é is one column */
    assert_int_equal(text_cols("\xe4\xb8\xad"), 2);         /* a CJK character is two */
    assert_int_equal(text_fit("gpu-01", 10, out, sizeof out), 6);
    assert_string_equal(out, "gpu-01");
    assert_int_equal(text_fit("cloud-storage", 8, out, sizeof out), 8);
    assert_string_equal(out, "cloud-s\xe2\x80\xa6");        /* ends with the ellipsis */
    text_set_ascii(1);
    text_fit("cloud-storage", 8, out, sizeof out);
    assert_string_equal(out, "cloud-s~");
    assert_int_equal(text_fit("x", 0, out, sizeof out), 0);
    assert_string_equal(text_skip("abcdef", 2), "cdef");
    assert_string_equal(text_skip("ab", 5), "");
    assert_true(text_contains("Maintenance", "MAINT"));
    assert_false(text_contains("active", "maint"));
}

static void test_bars(void **state)
{
    char out[128];
    int filled;
    (void)state;
    text_set_ascii(1);
    text_bar(0.5, 10, out, sizeof out, &filled);
    assert_string_equal(out, "#####.....");
    assert_int_equal(filled, 5);
    text_bar(0.01, 10, out, sizeof out, &filled);
    assert_int_equal(filled, 1);                            /* any use shows */
    text_bar(2.0, 4, out, sizeof out, &filled);
    assert_string_equal(out, "####");
    text_bar(-1, 4, out, sizeof out, &filled);
    assert_string_equal(out, "....");
    text_set_ascii(0);
    text_bar(1, 3, out, sizeof out, &filled);
    assert_int_equal(text_cols(out), 3);
    for (int g = 0; g < GL_COUNT; g++) {
        text_set_ascii(1);
        assert_int_equal(strlen(text_glyph((glyph_id)g)), 1);   /* ASCII really is ASCII */
        assert_true((unsigned char)text_glyph((glyph_id)g)[0] < 128);
        text_set_ascii(0);
        assert_int_equal(text_cols(text_glyph((glyph_id)g)), 1);
    }
}

static void test_quote(void **state)
{
    char out[256];
    (void)state;
    out[0] = '\0';
    form_quote(out, sizeof out, "gpu-07");
    assert_string_equal(out, "gpu-07");
    out[0] = '\0';
    form_quote(out, sizeof out, "python serve.py");
    assert_string_equal(out, "'python serve.py'");
    out[0] = '\0';
    form_quote(out, sizeof out, "it's");
    assert_string_equal(out, "'it'\\''s'");
    out[0] = '\0';
    form_quote(out, sizeof out, "");
    assert_string_equal(out, "''");
}

static void test_form_line(void **state)
{
    char line[512];
    const char *missing;
    (void)state;
    form_state *f = form_open(FORM_NODE_ADD, NULL);
    assert_non_null(f);
    /* The role's choices come from the command's own flag table. */
    assert_string_equal(f->choices[3], "compute|storage");
    assert_int_equal(form_build_line(f, line, sizeof line, &missing), -1);
    assert_string_equal(missing, "Region");
    ledit_set(&f->val[0], "dc-east");
    ledit_set(&f->val[1], "gpu-09");
    ledit_set(&f->val[2], "7f3a 0009");
    ledit_set(&f->val[3], "storage");
    assert_int_equal(form_build_line(f, line, sizeof line, &missing), 0);
    assert_string_equal(line, "node add dc-east gpu-09 --minion '7f3a 0009' --role storage");
    form_close(f);

    json_t *item = json_pack("{s:s, s:b, s:b}", "name", "gpu-01", "upnp", 1, "mining", 0);
    f = form_open(FORM_NODE_SET, item);
    assert_int_equal(form_build_line(f, line, sizeof line, &missing), 0);
    assert_string_equal(line, "node set gpu-01 --upnp on --mining off");
    form_close(f);
    json_decref(item);

    f = form_open(FORM_REGION_CREATE, NULL);
    ledit_set(&f->val[0], "edge");
    ledit_set(&f->val[1], "physical");
    ledit_set(&f->val[3], "yes");
    form_build_line(f, line, sizeof line, &missing);
    assert_string_equal(line, "region create edge --provider physical --public");
    form_close(f);
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_widths),
        cmocka_unit_test(test_bars),
        cmocka_unit_test(test_quote),
        cmocka_unit_test(test_form_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
