/* Unit tests of display widths, fitting, bars, glyphs, and the command
 * lines that forms build (quoting included). */
#include "testutil.h"

#include <locale.h>

#include "form.h"
#include "panes.h"
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
    prompt_quote_word(out, sizeof out, "gpu-07");
    assert_string_equal(out, "gpu-07");
    out[0] = '\0';
    prompt_quote_word(out, sizeof out, "python serve.py");
    assert_string_equal(out, "'python serve.py'");
    out[0] = '\0';
    prompt_quote_word(out, sizeof out, "it's");
    assert_string_equal(out, "'it'\\''s'");
    out[0] = '\0';
    prompt_quote_word(out, sizeof out, "");
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

/* The forms added for every pane with an add or set command. */
static void test_more_forms(void **state)
{
    char line[1024];
    const char *missing;
    (void)state;
    /* A positional choice: from the command's argument string. */
    form_state *f = form_open(FORM_PROVIDER_ENABLE, NULL);
    assert_string_equal(f->choices[0], "physical|gcp");
    assert_string_equal(f->choices[2], "credits");
    ledit_set(&f->val[0], "gcp");
    ledit_set(&f->val[1], "/tmp/sa key.json");
    assert_int_equal(form_build_line(f, line, sizeof line, &missing), 0);
    assert_string_equal(line, "provider enable gcp --key-file '/tmp/sa key.json'");
    form_close(f);

    /* Repeatable flags: one --env per word. */
    f = form_open(FORM_CONFIG_CREATE, NULL);
    ledit_set(&f->val[0], "edge");
    ledit_set(&f->val[1], "cam");
    ledit_set(&f->val[2], "img:1");
    ledit_set(&f->val[3], "jetson-orin-nano");
    ledit_set(&f->val[4], "python run.py");
    ledit_set(&f->val[8], "A=1  B=2");
    assert_int_equal(form_build_line(f, line, sizeof line, &missing), 0);
    assert_string_equal(line, "device-config create edge cam --image img:1 --model jetson-orin-nano "
                              "--command 'python run.py' --env A=1 --env B=2");
    form_close(f);

    /* Edit forms prefill from the row: numbers, and OWNER/NAME joined. */
    json_t *item = json_pack("{s:s, s:s, s:i, s:i}", "region", "burst", "metric", "NVIDIA_A100_GPUS", "limit", 8,
                             "usage", 2);
    f = form_open(FORM_QUOTA_SET, item);
    assert_int_equal(form_build_line(f, line, sizeof line, &missing), 0);
    assert_string_equal(line, "quota set burst NVIDIA_A100_GPUS 8 --usage 2");
    form_close(f);
    json_decref(item);
    item = json_pack("{s:s, s:s, s:s}", "owner", "alice", "name", "default", "on_quota_exhausted", "move");
    f = form_open(FORM_PROJECT_SET, item);
    assert_string_equal(f->choices[1], "fail|move");
    ledit_set(&f->val[1], "fail");
    assert_int_equal(form_build_line(f, line, sizeof line, &missing), 0);
    assert_string_equal(line, "project set alice/default --on-quota-exhausted fail");
    form_close(f);
    json_decref(item);
    item = json_pack("{s:s, s:s}", "name", "cam-01", "config", "cam");
    f = form_open(FORM_DEVICE_SET_CONFIG, item);
    assert_int_equal(form_build_line(f, line, sizeof line, &missing), 0);
    assert_string_equal(line, "device set-config cam-01 cam");
    ledit_set(&f->val[1], "");
    assert_int_equal(form_build_line(f, line, sizeof line, &missing), -1);
    assert_string_equal(missing, "Config");
    form_close(f);
    json_decref(item);
}

/* Rows named by two fields: keys and the arguments commands get. */
static void test_composite_keys(void **state)
{
    char key[128], line[256];
    (void)state;
    const pane_view *configs = pane_view_get(PANE_DEVICES, 1);
    const pane_view *projects = pane_view_get(PANE_JOBS, 1);
    assert_string_equal(configs->title, "Configs");
    json_t *item = json_pack("{s:s, s:s, s:s}", "region", "edge", "name", "cam", "owner", "alice");
    pane_item_key(configs, item, key, sizeof key);
    assert_string_equal(key, "edge cam");
    snprintf(line, sizeof line, "%s ", configs->remove_cmd);
    pane_append_key(configs, key, line, sizeof line);
    assert_string_equal(line, "device-config remove edge cam");
    pane_item_key(projects, item, key, sizeof key);
    assert_string_equal(key, "alice/cam");
    snprintf(line, sizeof line, "%s ", projects->show_cmd);
    pane_append_key(projects, key, line, sizeof line);
    assert_string_equal(line, "project show alice/cam");
    json_decref(item);
}

static void test_money_pad(void **state)
{
    (void)state;
    assert_int_equal(text_money_pad("30405.915834"), 0);
    assert_int_equal(text_money_pad("85360.27718"), 1);
    assert_int_equal(text_money_pad("-159.6"), 5);
    assert_int_equal(text_money_pad("0"), 7);
    assert_int_equal(text_money_pad("-"), 0);
    assert_int_equal(text_money_pad("yes"), 0);
    assert_int_equal(text_money_pad(""), 0);
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_widths),
        cmocka_unit_test(test_bars),
        cmocka_unit_test(test_quote),
        cmocka_unit_test(test_form_line),
        cmocka_unit_test(test_more_forms),
        cmocka_unit_test(test_composite_keys),
        cmocka_unit_test(test_money_pad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
