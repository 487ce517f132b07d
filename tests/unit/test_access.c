/* Unit tests of access_role_may (access.c): what the console asks before
 * it offers a key.  The answers are the guard's (access_check_command) and
 * the handlers' ownership rule, from the class on each command's definition:
 * a viewer runs nothing that changes the store, a member changes only what
 * its account owns, an operator any tenant's fleet but no tenant work, an
 * admin everything.  Also the classes of representative commands and the
 * commands flagged as a node's agent's. */
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

/* The class on each command's definition (cmd_def.access) is the guard's
 * rule: a few representative commands of each class, mutating ones above
 * all, so moving a command to another class is a deliberate change here. */
static void test_command_classes(void **state)
{
    (void)state;
    static const struct {
        const char *words;
        cmd_access class;
    } expect[] = {
        { "store dump", CMD_ACCESS_RAW_READ },  { "store watch", CMD_ACCESS_RAW_READ },
        { "node add", CMD_ACCESS_FLEET },       { "node maintenance", CMD_ACCESS_FLEET },
        { "node report", CMD_ACCESS_FLEET },    { "job report", CMD_ACCESS_FLEET },
        { "agent register", CMD_ACCESS_FLEET }, { "alert ack", CMD_ACCESS_FLEET },
        { "sched run", CMD_ACCESS_FLEET },      { "device deploy", CMD_ACCESS_FLEET },
        { "alert rule add", CMD_ACCESS_STAFF }, { "agent check", CMD_ACCESS_STAFF },
        { "metrics import", CMD_ACCESS_STAFF }, { "job logs prune", CMD_ACCESS_STAFF },
        { "account deposit", CMD_ACCESS_MONEY }, { "price set", CMD_ACCESS_MONEY },
        { "bill run", CMD_ACCESS_MONEY },       { "account create", CMD_ACCESS_ADMIN },
        { "gpu add", CMD_ACCESS_ADMIN },        { "store secure", CMD_ACCESS_ADMIN },
        { "store credentials", CMD_ACCESS_ADMIN }, { "environment add", CMD_ACCESS_ADMIN },
        /* mutating, but a read to the guard: the handler refuses changes */
        { "sched config", CMD_ACCESS_READ },
        /* left out of their definitions: tenant work when mutating, else a read */
        { "account set", CMD_ACCESS_TENANT },   { "job submit", CMD_ACCESS_TENANT },
        { "project create", CMD_ACCESS_TENANT }, { "region remove", CMD_ACCESS_TENANT },
        { "node list", CMD_ACCESS_READ },       { "job list", CMD_ACCESS_READ },
    };
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
        const cmd_def *def = cmd_find(expect[i].words);
        assert_non_null(def);
        if (access_command_class(def) != expect[i].class)
            fail_msg("%s: class %d, expected %d", expect[i].words, access_command_class(def), expect[i].class);
    }
    /* an admin-only refusal says why, from the definition */
    rd_err err;
    assert_int_equal(may(ACCESS_OPERATOR, "ops", "gpu add", NULL, &err), RD_EPERM);
    assert_non_null(strstr(err.msg, "gpu add: only an administering account may change the GPU catalog"));
}

/* Every command's class is one the guard knows, and only an admin-only
 * class carries a refusal's reason. */
static void check_class(const cmd_def *def, void *data)
{
    (void)data;
    cmd_access class = access_command_class(def);
    if (class == CMD_ACCESS_DEFAULT || class > CMD_ACCESS_ADMIN)
        fail_msg("%s: class %d", def->words, class);
    if (def->access_why && class != CMD_ACCESS_RAW_READ && class != CMD_ACCESS_MONEY && class != CMD_ACCESS_ADMIN)
        fail_msg("%s: a refusal's reason on a command of class %d, which never shows it", def->words, class);
}

static void test_every_class_known(void **state)
{
    (void)state;
    cmd_foreach(check_class, NULL);
}

/* What a node's agent sends (core/agent: agent_loop.c registers and reports
 * its inventory, agent_vitals.c its GPUs' health, agent_work.c,
 * agent_stage.c, agent_upload.c, agent_transfer.c and agent_serve.c report
 * its workers) is flagged on those commands' definitions, and nothing else
 * is: the relay refuses any other command of an agent. */
static const struct {
    const char *words;
    cmd_agent agent;
} agent_sends[] = {
    { "agent register", CMD_AGENT_OWN_NODE },
    { "node report", CMD_AGENT_OWN_NODE },
    { "node health report", CMD_AGENT_OWN_NODE },
    { "job report", CMD_AGENT_OWN_WORKER },
};

static void check_agent_flag(const cmd_def *def, void *data)
{
    size_t *flagged = data;
    cmd_agent want = CMD_AGENT_NONE;
    for (size_t i = 0; i < sizeof agent_sends / sizeof agent_sends[0]; i++)
        if (strcmp(agent_sends[i].words, def->words) == 0)
            want = agent_sends[i].agent;
    if (def->agent != want)
        fail_msg("%s: agent flag %d, expected %d", def->words, def->agent, want);
    if (def->agent != CMD_AGENT_NONE) {
        (*flagged)++;
        /* an agent's report mutates, and staff or the node's owner may send it too */
        assert_true(def->options & CMD_MUTATES);
        assert_int_equal(access_command_class(def), CMD_ACCESS_FLEET);
    }
}

static void test_agent_commands_flagged(void **state)
{
    (void)state;
    size_t flagged = 0;
    cmd_foreach(check_agent_flag, &flagged);
    assert_int_equal(flagged, sizeof agent_sends / sizeof agent_sends[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_viewer_reads_only),
        cmocka_unit_test(test_member_changes_its_own),
        cmocka_unit_test(test_operator_and_admin),
        cmocka_unit_test(test_command_classes),
        cmocka_unit_test(test_every_class_known),
        cmocka_unit_test(test_agent_commands_flagged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
