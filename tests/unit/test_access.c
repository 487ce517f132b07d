/* Unit tests of access_role_may (access.c): what the console asks before
 * it offers a key.  The answers are the guard's (access_check_command) and
 * the handlers' ownership rule, from one table: a viewer runs nothing that
 * changes the store, a member changes only what its account owns, an
 * operator any tenant's fleet but no tenant work, an admin everything. */
#include "testutil.h"

#include "access.h"
#include "cmd.h"

static rd_code may(access_role role, const char *actor, const char *words, const char *owner, rd_err *err)
{
    const cmd_def *def = cmd_find(words);
    assert_non_null(def);
    rd_err_clear(err);
    return access_role_may(role, actor, def, owner, "n1", err);
}

static void test_find(void **state)
{
    (void)state;
    assert_string_equal(cmd_find("node maintenance")->words, "node maintenance");
    assert_null(cmd_find("node"));
    assert_null(cmd_find("node maintenance n1"));
    assert_null(cmd_find(NULL));
}

static void test_viewer_reads_only(void **state)
{
    (void)state;
    rd_err err;
    assert_int_equal(may(ACCESS_VIEWER, "bob", "node list", NULL, &err), RD_OK);
    assert_int_equal(may(ACCESS_VIEWER, "bob", "node maintenance", NULL, &err), RD_EPERM);
    assert_non_null(strstr(err.msg, "node maintenance: account 'bob' is a viewer and may only read"));
    assert_int_equal(may(ACCESS_VIEWER, "bob", "node maintenance", "bob", &err), RD_EPERM);
    assert_int_equal(may(ACCESS_VIEWER, "bob", "job submit", NULL, &err), RD_EPERM);
}

static void test_member_changes_its_own(void **state)
{
    (void)state;
    rd_err err;
    assert_int_equal(may(ACCESS_MEMBER, "alice", "node maintenance", NULL, &err), RD_OK);
    assert_int_equal(may(ACCESS_MEMBER, "alice", "node maintenance", "alice", &err), RD_OK);
    assert_int_equal(may(ACCESS_MEMBER, "alice", "node maintenance", "default", &err), RD_EPERM);
    assert_non_null(strstr(err.msg, "'n1' belongs to account 'default'; account 'alice' has role member"));
    assert_int_equal(may(ACCESS_MEMBER, "alice", "region remove", "default", &err), RD_EPERM);
    assert_int_equal(may(ACCESS_MEMBER, "alice", "job submit", NULL, &err), RD_OK);
    /* staff commands and money: not at all */
    assert_int_equal(may(ACCESS_MEMBER, "alice", "alert rule add", NULL, &err), RD_EPERM);
    assert_int_equal(may(ACCESS_MEMBER, "alice", "account create", NULL, &err), RD_EPERM);
    /* a read is anyone's, whoever owns the row */
    assert_int_equal(may(ACCESS_MEMBER, "alice", "node show", "default", &err), RD_OK);
}

static void test_operator_and_admin(void **state)
{
    (void)state;
    rd_err err;
    assert_int_equal(may(ACCESS_OPERATOR, "ops", "node maintenance", "alice", &err), RD_OK);
    assert_int_equal(may(ACCESS_OPERATOR, "ops", "node remove", "alice", &err), RD_OK);
    assert_int_equal(may(ACCESS_OPERATOR, "ops", "job submit", NULL, &err), RD_EPERM);
    assert_int_equal(may(ACCESS_OPERATOR, "ops", "price set", NULL, &err), RD_EPERM);
    assert_int_equal(may(ACCESS_ADMIN, "default", "node maintenance", "alice", &err), RD_OK);
    assert_int_equal(may(ACCESS_ADMIN, "default", "job stop", "alice", &err), RD_OK);
    assert_int_equal(may(ACCESS_ADMIN, "default", "account create", NULL, &err), RD_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_viewer_reads_only),
        cmocka_unit_test(test_member_changes_its_own),
        cmocka_unit_test(test_operator_and_admin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
