/* Unit tests of the one-line editor, its history and tab completion of
 * command words, flags, choices and names (from the real command table). */
#include "testutil.h"

#include <locale.h>

#include "prompt.h"

static void type(ledit *e, const char *s)
{
    for (; *s; s++)
        ledit_key(e, (unsigned char)*s, NULL);
}

static void test_editing(void **state)
{
    ledit e;
    (void)state;
    ledit_set(&e, "");
    type(&e, "node lst");
    ledit_key(&e, PROMPT_K_LEFT, NULL);
    ledit_key(&e, PROMPT_K_LEFT, NULL);
    type(&e, "i");
    assert_string_equal(e.buf, "node list");
    ledit_key(&e, PROMPT_K_HOME, NULL);
    ledit_key(&e, PROMPT_K_DELETE, NULL);
    assert_string_equal(e.buf, "ode list");
    ledit_key(&e, PROMPT_K_END, NULL);
    ledit_key(&e, PROMPT_K_KILL_WORD, NULL);
    assert_string_equal(e.buf, "ode ");
    ledit_key(&e, PROMPT_K_KILL_LINE, NULL);
    assert_string_equal(e.buf, "");
    /* UTF-8: one backspace removes one character, not one byte. */
    type(&e, "caf\xc3\xa9");
    ledit_key(&e, PROMPT_K_BACKSPACE, NULL);
    assert_string_equal(e.buf, "caf");
    assert_int_equal(e.cur, 3);
}

static void test_history(void **state)
{
    ledit e;
    lhistory h;
    (void)state;
    memset(&h, 0, sizeof h);
    lhistory_add(&h, "node list");
    lhistory_add(&h, "job list");
    lhistory_add(&h, "job list");   /* repeats are kept once */
    lhistory_add(&h, "   ");        /* blanks are not kept */
    assert_int_equal(h.count, 2);
    ledit_set(&e, "draft");
    ledit_key(&e, PROMPT_K_UP, &h);
    assert_string_equal(e.buf, "job list");
    ledit_key(&e, PROMPT_K_UP, &h);
    assert_string_equal(e.buf, "node list");
    ledit_key(&e, PROMPT_K_UP, &h);
    assert_string_equal(e.buf, "node list");
    ledit_key(&e, PROMPT_K_DOWN, &h);
    ledit_key(&e, PROMPT_K_DOWN, &h);
    assert_string_equal(e.buf, "draft");    /* back to what was being typed */
    lhistory_free(&h);
}

static void names(names_kind kind, void (*add)(const char *, void *), void *data, void *ctx)
{
    (void)ctx;
    if (kind == NAMES_NODE) {
        add("gpu-01", data);
        add("gpu-02", data);
        add("ws-01", data);
    } else if (kind == NAMES_REGION) {
        add("dc-east", data);
        add("lab", data);
    } else if (kind == NAMES_PROJECT) {
        add("vision", data);
        add("bob/nlp", data);
    } else if (kind == NAMES_GPU_TYPE) {
        add("a100", data);
        add("t4", data);
    }
}

/* Completes text (cursor at the end) and returns the candidates count. */
static size_t complete(const char *text, char *out, compl_list *l)
{
    ledit e;
    ledit_set(&e, text);
    size_t n = prompt_complete(&e, names, NULL, l);
    strcpy(out, e.buf);
    return n;
}

static void test_complete_words(void **state)
{
    char out[PROMPT_MAX];
    compl_list l = { 0 };
    (void)state;
    assert_int_equal(complete("nod", out, &l), 1);
    assert_string_equal(out, "node ");
    compl_list_free(&l);
    assert_int_equal(complete("node ma", out, &l), 1);
    assert_string_equal(out, "node maintenance ");
    compl_list_free(&l);
    /* "re" is region, reservation, ...: extended to the common prefix. */
    assert_true(complete("re", out, &l) >= 2);
    assert_string_equal(out, "re");
    compl_list_free(&l);
    assert_true(complete("node ", out, &l) >= 5);
    compl_list_free(&l);
    assert_int_equal(complete("zzz", out, &l), 0);
    assert_string_equal(out, "zzz");
    compl_list_free(&l);
}

static void test_complete_arguments(void **state)
{
    char out[PROMPT_MAX];
    compl_list l = { 0 };
    (void)state;
    /* Object names by placeholder. */
    assert_int_equal(complete("node maintenance g", out, &l), 2);
    assert_string_equal(out, "node maintenance gpu-0");
    compl_list_free(&l);
    assert_int_equal(complete("node maintenance w", out, &l), 1);
    assert_string_equal(out, "node maintenance ws-01 ");
    compl_list_free(&l);
    /* Enumerated words of the next argument. */
    assert_int_equal(complete("node maintenance ws-01 ", out, &l), 3);
    assert_string_equal(l.items[0], "off");
    assert_string_equal(l.items[2], "toggle");
    compl_list_free(&l);
    assert_int_equal(complete("node maintenance ws-01 t", out, &l), 1);
    assert_string_equal(out, "node maintenance ws-01 toggle ");
    compl_list_free(&l);
    /* Regions for REGION, flags after "-", a flag's choices. */
    assert_int_equal(complete("node add l", out, &l), 1);
    assert_string_equal(out, "node add lab ");
    compl_list_free(&l);
    assert_int_equal(complete("node add lab n1 --mi", out, &l), 2);   /* --minion, --mining */
    assert_string_equal(out, "node add lab n1 --mini");
    compl_list_free(&l);
    assert_int_equal(complete("node add lab n1 --role ", out, &l), 2);
    compl_list_free(&l);
    assert_int_equal(complete("node add lab n1 --agent ", out, &l), 2);   /* none, required */
    compl_list_free(&l);
    assert_int_equal(complete("node add lab n1 --agent n", out, &l), 1);
    assert_string_equal(out, "node add lab n1 --agent none ");
    compl_list_free(&l);
    assert_int_equal(complete("node list --region d", out, &l), 1);
    assert_string_equal(out, "node list --region dc-east ");
    compl_list_free(&l);
}

/* The candidates for text, joined by spaces, into out. */
static size_t candidates(const char *text, char *out, size_t len)
{
    compl_list l = { 0 };
    size_t n = prompt_candidates(text, names, NULL, &l);
    out[0] = '\0';
    for (size_t i = 0; i < l.count; i++)
        snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? " " : "", l.items[i]);
    compl_list_free(&l);
    return n;
}

static void test_candidates(void **state)
{
    char out[4096];
    (void)state;
    /* the last word of a line, sorted; the line itself is left alone */
    assert_int_equal(candidates("node maintenance ws-01 ", out, sizeof out), 3);
    assert_string_equal(out, "off on toggle");
    assert_int_equal(candidates("job submit spec.yaml --p", out, sizeof out), 2);
    assert_string_equal(out, "--priority --project");
    /* a job's --project P names projects, another account's as OWNER/NAME */
    candidates("job submit spec.yaml --project ", out, sizeof out);
    assert_string_equal(out, "bob/nlp vision");
    candidates("job list --project v", out, sizeof out);
    assert_string_equal(out, "vision");
    /* GPU types for price set */
    candidates("price set ", out, sizeof out);
    assert_string_equal(out, "a100 t4");
    /* help takes command words, never a command's arguments */
    candidates("help no", out, sizeof out);
    assert_string_equal(out, "node");
    candidates("help node ma", out, sizeof out);
    assert_string_equal(out, "maintenance");
    assert_int_equal(candidates("help node maintenance ", out, sizeof out), 0);
}

static void test_value_candidates(void **state)
{
    compl_list l = { 0 };
    (void)state;
    prompt_value_candidates("", "table|json|csv", "", names, NULL, &l);
    assert_int_equal(l.count, 3);
    assert_string_equal(l.items[0], "csv");         /* sorted */
    compl_list_free(&l);
    prompt_value_candidates("", "table|json|csv", "j", names, NULL, &l);
    assert_int_equal(l.count, 1);
    assert_string_equal(l.items[0], "json");
    compl_list_free(&l);
    prompt_value_candidates("node", "NAME", "ws", names, NULL, &l);
    assert_int_equal(l.count, 1);
    assert_string_equal(l.items[0], "ws-01");
    compl_list_free(&l);
    prompt_value_candidates("", "TIME", "", names, NULL, &l);
    assert_int_equal(l.count, 0);
}

static void test_names_kind(void **state)
{
    (void)state;
    assert_int_equal(prompt_names_kind("node", "NAME"), NAMES_NODE);
    assert_int_equal(prompt_names_kind("region", "NAME"), NAMES_REGION);
    assert_int_equal(prompt_names_kind("quota", "REGION"), NAMES_REGION);
    assert_int_equal(prompt_names_kind("job", "ID"), NAMES_JOB);
    assert_int_equal(prompt_names_kind("device", "DEVICE"), NAMES_DEVICE);
    assert_int_equal(prompt_names_kind("job", "FILE"), NAMES_FILE);
    assert_int_equal(prompt_names_kind("node", "NEW_NAME"), NAMES_NONE);
    assert_int_equal(prompt_names_kind("price", "GPU_TYPE"), NAMES_GPU_TYPE);
    assert_int_equal(prompt_names_kind("job", "P"), NAMES_PROJECT);
    assert_int_equal(prompt_names_kind("datastore", "P"), NAMES_NONE);
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_editing),
        cmocka_unit_test(test_history),
        cmocka_unit_test(test_complete_words),
        cmocka_unit_test(test_complete_arguments),
        cmocka_unit_test(test_candidates),
        cmocka_unit_test(test_value_candidates),
        cmocka_unit_test(test_names_kind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
