/* Unit tests of the one table of global options (tui/app/options.c): the
 * daemons (`rigdeck serve`, `rigdeck agent`) take their global options from
 * it, not from a second list, and read the same environment variables into
 * the same fields as the console and batch. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "options.h"

/* The global options the daemons took before they shared the table. */
static const char *const daemon_globals[] = {
    "store", "as", "now", "master-key", "cacert", "cert", "key", "etcd-user", "etcd-password-file",
};
#define NGLOBALS (sizeof daemon_globals / sizeof daemon_globals[0])

static void test_daemons_take_the_tables_globals(void **state)
{
    (void)state;
    struct option o[32];
    size_t n = options_daemon_longopts(o, 32);
    assert_int_equal(n, NGLOBALS);
    for (size_t i = 0; i < NGLOBALS; i++) {
        size_t k = 0;
        while (k < n && strcmp(o[k].name, daemon_globals[i]) != 0)
            k++;
        assert_true(k < n);
        assert_int_equal(o[k].has_arg, required_argument);
        assert_true(o[k].val < 512);            /* below the daemons' own codes */
        /* the same option the console parses, marked for the daemons */
        size_t t = 0;
        const options_global *g;
        while ((g = options_global_at(t)) && !(g->name[1] == '-' && strcmp(g->name + 2, o[k].name) == 0))
            t++;
        assert_non_null(g);
        assert_true(g->daemons);
    }
    /* console-only options stay the console's */
    for (size_t k = 0; k < n; k++) {
        assert_string_not_equal(o[k].name, "batch");
        assert_string_not_equal(o[k].name, "theme");
        assert_string_not_equal(o[k].name, "output");
    }
    /* room for fewer: no overrun */
    assert_int_equal(options_daemon_longopts(o, 2), 2);
}

static void test_env_and_options_set_the_same_fields(void **state)
{
    (void)state;
    rd_options g;
    memset(&g, 0, sizeof g);
    setenv("RIGDECK_STORE", "/tmp/x.db", 1);
    setenv("RIGDECK_ACCOUNT", "alice", 1);
    setenv("RIGDECK_MASTER_KEY", "/tmp/mk", 1);
    setenv("RIGDECK_ETCD_USER", "u", 1);
    setenv("RIGDECK_ETCD_PASSWORD_FILE", "/tmp/pw", 1);
    options_read_env(&g);
    assert_string_equal(g.store_given, "/tmp/x.db");
    assert_string_equal(g.actor, "alice");
    assert_string_equal(g.master_key, "/tmp/mk");
    assert_string_equal(g.etcd_user, "u");
    assert_string_equal(g.etcd_password_file, "/tmp/pw");
    struct option o[32];
    size_t n = options_daemon_longopts(o, 32);
    for (size_t k = 0; k < n; k++)
        if (strcmp(o[k].name, "as") == 0)
            assert_true(options_set_global(&g, o[k].val, "bob"));
    assert_string_equal(g.actor, "bob");
    assert_false(options_set_global(&g, 600, "x"));
    /* the console's parse reads them the same way */
    rd_options c;
    char *argv[] = { "rigdeck", "--batch", "--as", "carol", NULL };
    assert_int_equal(options_parse(4, argv, &c), 0);
    assert_string_equal(c.store_url, "/tmp/x.db");
    assert_string_equal(c.actor, "carol");
    assert_string_equal(c.master_key, "/tmp/mk");
    options_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_daemons_take_the_tables_globals),
        cmocka_unit_test(test_env_and_options_set_the_same_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
