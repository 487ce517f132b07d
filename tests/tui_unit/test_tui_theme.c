/* Unit tests of themes: colour parsing and mapping, the shipped theme
 * files, fallback to default.yaml, warnings for unknown keys, NO_COLOR. */
#include "testutil.h"

#include "theme.h"
#include "yamljson.h"

static const char *const dirs[] = { "themes", NULL };

static int colour(const char *text)
{
    json_t *v = json_string(text);
    int c = -99;
    if (theme_parse_colour(v, &c) != 0)
        c = -99;
    json_decref(v);
    return c;
}

static void test_parse_colours(void **state)
{
    (void)state;
    assert_int_equal(colour("red"), 1);
    assert_int_equal(colour("bright-blue"), 12);
    assert_int_equal(colour("Bright_White"), 15);
    assert_int_equal(colour("gray"), 8);
    assert_int_equal(colour("default"), THEME_DEFAULT);
    assert_int_equal(colour("208"), 208);
    assert_int_equal(colour("#ff8700"), THEME_RGB | 0xff8700);
    assert_int_equal(colour("#f80"), THEME_RGB | 0xff8800);
    assert_int_equal(colour("256"), -99);
    assert_int_equal(colour("#12345"), -99);
    assert_int_equal(colour("#gg0000"), -99);
    assert_int_equal(colour("purple-ish"), -99);
    json_t *n = json_integer(42);
    int c;
    assert_int_equal(theme_parse_colour(n, &c), 0);
    assert_int_equal(c, 42);
    json_decref(n);
}

static void test_map_colours(void **state)
{
    (void)state;
    /* 256 colours: hex to the cube, indexes kept. */
    assert_int_equal(theme_map_colour(THEME_RGB | 0xff0000, 256), 196);
    assert_int_equal(theme_map_colour(THEME_RGB | 0x000000, 256), 16);
    assert_int_equal(theme_map_colour(THEME_RGB | 0x5fafd7, 256), 74);
    assert_int_equal(theme_map_colour(208, 256), 208);
    /* 8 colours: nearest basic colour; bright-x becomes x. */
    assert_int_equal(theme_map_colour(THEME_RGB | 0xff0000, 8), 1);
    assert_int_equal(theme_map_colour(THEME_RGB | 0x00d000, 8), 2);
    assert_int_equal(theme_map_colour(9, 8), 1);
    assert_int_equal(theme_map_colour(196, 8), 1);
    assert_int_equal(theme_map_colour(196, 16), 9);
    /* No colours, or the terminal's own. */
    assert_int_equal(theme_map_colour(THEME_RGB | 0xff0000, 0), THEME_DEFAULT);
    assert_int_equal(theme_map_colour(THEME_DEFAULT, 256), THEME_DEFAULT);
    for (int i = 0; i < 256; i++) {
        assert_true(theme_map_colour(i, 8) < 8);
        assert_true(theme_map_colour(i, 16) < 16);
    }
}

static void test_shipped_themes_load_clean(void **state)
{
    static const char *const names[] = { "default", "light", "high-contrast", "mono" };
    (void)state;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        theme t;
        rd_err err;
        assert_int_equal(theme_load(&t, names[i], dirs, &err), RD_OK);
        if (t.nwarnings)
            fail_msg("theme %s: %s", names[i], t.warnings[0]);
        theme_free(&t);
    }
}

static void test_default_has_colours_mono_has_none(void **state)
{
    theme t;
    rd_err err;
    (void)state;
    assert_int_equal(theme_load(&t, "default", dirs, &err), RD_OK);
    assert_true(t.style[TH_HEADER].bg != THEME_DEFAULT);
    assert_true(t.style[TH_STATE_ACTIVE].fg != THEME_DEFAULT);
    theme_free(&t);
    assert_int_equal(theme_load(&t, "mono", dirs, &err), RD_OK);
    for (int e = 0; e < TH_COUNT; e++) {
        assert_int_equal(t.style[e].fg, THEME_DEFAULT);
        assert_int_equal(t.style[e].bg, THEME_DEFAULT);
    }
    assert_true(t.style[TH_ROW_SELECTED].attrs & TH_A_REVERSE);
    theme_free(&t);
}

static void test_light_falls_back_to_default(void **state)
{
    theme d, l;
    rd_err err;
    (void)state;
    assert_int_equal(theme_load(&d, "default", dirs, &err), RD_OK);
    assert_int_equal(theme_load(&l, "light", dirs, &err), RD_OK);
    /* light.yaml sets only a palette: the elements come from default.yaml
     * (same attributes) but in light's colours. */
    assert_int_equal(l.style[TH_HEADER].attrs, d.style[TH_HEADER].attrs);
    assert_true(l.style[TH_HEADER].bg != d.style[TH_HEADER].bg);
    theme_free(&d);
    theme_free(&l);
}

static void test_unknown_keys_warn(void **state)
{
    const char *text = "palette: {accent: red, broken: '#12'}\n"
                       "ui:\n"
                       "  header: {fg: accent, sparkle: yes, attrs: [bold, blinky]}\n"
                       "  headr: {fg: red}\n"
                       "  row: {fg: nosuchcolour}\n"
                       "states: {active: {fg: 2}}\n"
                       "extra: 1\n";
    json_t *doc = NULL;
    rd_err err;
    theme t;
    (void)state;
    assert_int_equal(yamljson_parse(text, strlen(text), "t.yaml", &doc, &err), RD_OK);
    theme_init_builtin(&t);
    theme_overlay(&t, doc, json_object_get(doc, "palette"), "t.yaml");
    assert_int_equal(t.style[TH_HEADER].fg, 1);            /* through the palette */
    assert_true(t.style[TH_HEADER].attrs & TH_A_BOLD);
    assert_int_equal(t.style[TH_STATE_ACTIVE].fg, 2);
    assert_int_equal(t.style[TH_ROW].fg, THEME_DEFAULT);   /* bad colour: kept default */
    const char *expect[] = { "sparkle", "blinky", "headr", "nosuchcolour", "extra" };
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
        int found = 0;
        for (size_t w = 0; w < t.nwarnings; w++)
            found |= strstr(t.warnings[w], expect[i]) != NULL;
        if (!found)
            fail_msg("no warning mentions '%s'", expect[i]);
    }
    theme_free(&t);
    json_decref(doc);
}

static void test_unknown_theme(void **state)
{
    theme t;
    rd_err err;
    (void)state;
    assert_int_equal(theme_load(&t, "neon", dirs, &err), RD_ENOTFOUND);
    assert_non_null(strstr(err.msg, "no theme 'neon'"));
    assert_non_null(strstr(err.msg, "mono"));
    theme_free(&t);
}

static void test_missing_default_uses_builtin(void **state)
{
    static const char *const none[] = { "/nonexistent", NULL };
    theme t;
    rd_err err;
    (void)state;
    assert_int_equal(theme_load(&t, "default", none, &err), RD_OK);
    assert_int_equal(t.nwarnings, 1);
    assert_true(t.style[TH_ROW_SELECTED].attrs & TH_A_REVERSE);
    assert_int_equal(t.style[TH_ROW_SELECTED].bg, THEME_DEFAULT);
    theme_free(&t);
}

static void test_no_color(void **state)
{
    theme t;
    rd_err err;
    (void)state;
    assert_int_equal(theme_load(&t, "default", dirs, &err), RD_OK);
    theme_strip_colours(&t);
    for (int e = 0; e < TH_COUNT; e++)
        assert_int_equal(t.style[e].fg, THEME_DEFAULT);
    /* The header was told apart by its background: now by reverse video. */
    assert_true(t.style[TH_HEADER].attrs & TH_A_REVERSE);
    theme_free(&t);
}

static void test_state_words(void **state)
{
    (void)state;
    assert_int_equal(theme_state_elem("active"), TH_STATE_ACTIVE);
    assert_int_equal(theme_state_elem("waiting_gpus"), TH_STATE_WAITING);
    assert_int_equal(theme_state_elem("rejected"), TH_STATE_REJECTED);
    assert_int_equal(theme_state_elem("starting"), TH_STATE_STARTING);
    assert_int_equal(theme_state_elem("stopping"), TH_STATE_STOPPING);
    assert_int_equal(theme_state_elem("online"), TH_STATE_ONLINE);
    assert_int_equal(theme_state_elem("lost"), TH_STATE_LOST);
    assert_int_equal(theme_state_elem("a100"), TH_NORMAL);
    assert_int_equal(theme_state_elem(NULL), TH_NORMAL);
    for (int e = 0; e < TH_COUNT; e++) {
        assert_true(strlen(theme_elem_name((theme_elem)e)) > 0);
        assert_true(strcmp(theme_elem_section((theme_elem)e), "ui") == 0 ||
                    strcmp(theme_elem_section((theme_elem)e), "states") == 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_colours),
        cmocka_unit_test(test_map_colours),
        cmocka_unit_test(test_shipped_themes_load_clean),
        cmocka_unit_test(test_default_has_colours_mono_has_none),
        cmocka_unit_test(test_light_falls_back_to_default),
        cmocka_unit_test(test_unknown_keys_warn),
        cmocka_unit_test(test_unknown_theme),
        cmocka_unit_test(test_missing_default_uses_builtin),
        cmocka_unit_test(test_no_color),
        cmocka_unit_test(test_state_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
