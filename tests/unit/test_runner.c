/* Unit tests of the worker runner (core/agent/runner.c): real processes
 * under a real shim.  Every wait polls runner_status (or the log) against a
 * generous deadline; no fixed sleep decides success. */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "runner.h"
#include "runner_int.h"
#include "runtime.h"

#define DEADLINE_MS 20000

static char root[1024];

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void nap_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* A fresh worker dir under the program's tmpdir (not created). */
static const char *wdir(const char *name)
{
    static char buf[2048];
    snprintf(buf, sizeof buf, "%s/%s/0", root, name);
    return buf;
}

static runner_spec proc_spec(const char *dir, const char *command)
{
    runner_spec s;
    memset(&s, 0, sizeof s);
    s.kind = RUNNER_PROCESS;
    s.dir = dir;
    s.job_id = "job-1";
    s.worker_index = 0;
    s.command = command;
    return s;
}

static runner_info start_ok(const runner_spec *s)
{
    runner_info info;
    rd_err err;
    if (runner_start(s, &info, &err) != RD_OK)
        fail_msg("runner_start: %s", err.msg);
    return info;
}

static runner_status_t status_of(const char *dir)
{
    runner_status_t st;
    rd_err err;
    if (runner_status(dir, &st, &err) != RD_OK)
        fail_msg("runner_status: %s", err.msg);
    return st;
}

/* Polls until the worker is in `want`; fails after the deadline. */
static runner_status_t wait_state(const char *dir, runner_state want)
{
    int64_t end = mono_ms() + DEADLINE_MS;
    for (;;) {
        runner_status_t st = status_of(dir);
        if (st.state == want)
            return st;
        if (mono_ms() > end)
            fail_msg("%s: still %s after %d ms, wanted %s", dir, runner_state_name(st.state), DEADLINE_MS,
                     runner_state_name(want));
        nap_ms(20);
    }
}

static char *log_of(const char *dir, size_t max, size_t *len, int64_t *total)
{
    char *text;
    size_t l;
    int64_t t;
    rd_err err;
    if (runner_log_tail(dir, max, &text, &l, &t, &err) != RD_OK)
        fail_msg("runner_log_tail: %s", err.msg);
    if (len)
        *len = l;
    if (total)
        *total = t;
    return text;
}

/* Polls until the log holds `needle`. */
static void wait_log(const char *dir, const char *needle)
{
    int64_t end = mono_ms() + DEADLINE_MS;
    for (;;) {
        char *text = log_of(dir, RUNNER_LOG_TAIL_MAX, NULL, NULL);
        int found = strstr(text, needle) != NULL;
        free(text);
        if (found)
            return;
        if (mono_ms() > end)
            fail_msg("%s: log never showed \"%s\"", dir, needle);
        nap_ms(20);
    }
}

static void touch(const char *dir, const char *file)
{
    char path[PATH_MAX];
    int fd;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    fd = open(path, O_WRONLY | O_CREAT, 0600);
    assert_true(fd >= 0);
    close(fd);
}

/* Parent pid (field 4) of a process, from /proc. */
static int ppid_of(int pid)
{
    char path[64], buf[1024];
    FILE *f;
    int ppid = -1;
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    if (!(f = fopen(path, "r")))
        return -1;
    if (fgets(buf, sizeof buf, f)) {
        char *p = strrchr(buf, ')');
        if (p)
            sscanf(p + 2, "%*c %d", &ppid);
    }
    fclose(f);
    return ppid;
}

/* ---- exit, output, environment, working directory ---------------------- */

static void test_exit_code_log_env_cwd(void **state)
{
    const char *dir = wdir("exit3");
    const char *env[] = { "FOO=bar baz", "RIGDECK_JOB_ID=forged", "FOO=final", NULL };
    runner_spec s = proc_spec(dir, "echo out; echo err >&2; "
                                   "echo \"job=$RIGDECK_JOB_ID w=$RIGDECK_WORKER_INDEX gpus=$CUDA_VISIBLE_DEVICES\"; "
                                   "echo \"foo=$FOO secret=${RIGDECK_TEST_SECRET-unset}\"; echo \"cwd=$(pwd)\"; "
                                   "exit 3");
    runner_status_t st;
    runner_info info;
    char *text, want[PATH_MAX + 8], real[PATH_MAX];
    int64_t t0 = (int64_t)time(NULL) * 1000;
    (void)state;
    s.env = env;
    s.gpus = "0,2";
    s.worker_index = 4;
    setenv("RIGDECK_TEST_SECRET", "agent-only", 1);
    info = start_ok(&s);
    unsetenv("RIGDECK_TEST_SECRET");
    assert_true(info.shim_pid > 0 && info.worker_pid > 0 && info.shim_pid != info.worker_pid);
    assert_true(info.started_at >= t0 - 1000 && info.started_at <= t0 + 60000);
    st = wait_state(dir, RUNNER_EXITED);
    assert_int_equal(st.exit_code, 3);
    assert_int_equal(st.signal, 0);
    assert_int_equal(st.kind, RUNNER_PROCESS);
    assert_int_equal(st.started_at, info.started_at);
    assert_true(st.ended_at >= st.started_at);
    text = log_of(dir, RUNNER_LOG_TAIL_MAX, NULL, NULL);
    assert_non_null(strstr(text, "out\n"));
    assert_non_null(strstr(text, "err\n"));
    assert_non_null(strstr(text, "job=job-1 w=4 gpus=0,2\n"));
    assert_non_null(strstr(text, "foo=final secret=unset\n"));
    assert_non_null(realpath(dir, real));
    snprintf(want, sizeof want, "cwd=%s\n", real);
    assert_non_null(strstr(text, want));
    free(text);
}

static void test_exit_zero_and_no_gpus(void **state)
{
    const char *dir = wdir("exit0");
    runner_spec s = proc_spec(dir, "echo \"gpus=[${CUDA_VISIBLE_DEVICES-unset}]\"");
    runner_status_t st;
    char *text;
    (void)state;
    start_ok(&s);
    st = wait_state(dir, RUNNER_EXITED);
    assert_int_equal(st.exit_code, 0);
    text = log_of(dir, 1024, NULL, NULL);
    assert_string_equal(text, "gpus=[]\n");
    free(text);
}

/* ---- signals ----------------------------------------------------------- */

/* sh -c with one simple command execs it (dash and bash both do), so the
 * signal that ends it is what the record says, not 128+N. */
static void test_sigterm_records_signal(void **state)
{
    const char *dir = wdir("term");
    runner_spec s = proc_spec(dir, "sleep 60");
    runner_status_t st;
    rd_err err;
    (void)state;
    start_ok(&s);
    st = status_of(dir);
    assert_int_equal(st.state, RUNNER_RUNNING);
    assert_int_equal(runner_signal(dir, SIGTERM, &err), RD_OK);
    st = wait_state(dir, RUNNER_EXITED);
    assert_int_equal(st.signal, SIGTERM);
    assert_int_equal(st.exit_code, -1);
    /* Signalling an ended worker is fine. */
    assert_int_equal(runner_signal(dir, SIGKILL, &err), RD_OK);
}

static void test_term_ignored_then_sigkill(void **state)
{
    const char *dir = wdir("kill");
    runner_spec s = proc_spec(dir, "trap '' TERM; echo trapped; while :; do sleep 1; done");
    runner_status_t st;
    rd_err err;
    (void)state;
    start_ok(&s);
    wait_log(dir, "trapped\n");
    assert_int_equal(runner_signal(dir, SIGTERM, &err), RD_OK);
    nap_ms(300); /* not a success condition: it must merely still be running */
    assert_int_equal(status_of(dir).state, RUNNER_RUNNING);
    assert_int_equal(runner_signal(dir, SIGKILL, &err), RD_OK);
    st = wait_state(dir, RUNNER_EXITED);
    assert_int_equal(st.signal, SIGKILL);
}

/* The shim passes SIGTERM sent to it on to the worker's group. */
static void test_shim_forwards_sigterm(void **state)
{
    const char *dir = wdir("fwd");
    runner_spec s = proc_spec(dir, "sleep 60");
    runner_info info;
    runner_status_t st;
    (void)state;
    info = start_ok(&s);
    assert_int_equal(kill(info.shim_pid, SIGTERM), 0);
    st = wait_state(dir, RUNNER_EXITED);
    assert_int_equal(st.signal, SIGTERM);
}

/* What the command leaves running in its group ends with it. */
static void test_leftovers_in_group_are_killed(void **state)
{
    const char *dir = wdir("leftover");
    runner_spec s = proc_spec(dir, "sleep 60 & echo $! > bg.pid");
    char path[PATH_MAX];
    FILE *f;
    int bg = 0;
    int64_t end;
    (void)state;
    start_ok(&s);
    assert_int_equal(wait_state(dir, RUNNER_EXITED).exit_code, 0);
    snprintf(path, sizeof path, "%s/bg.pid", dir);
    f = fopen(path, "r");
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%d", &bg), 1);
    fclose(f);
    end = mono_ms() + DEADLINE_MS;
    while (kill(bg, 0) == 0 && ppid_of(bg) >= 0) {
        char st_path[64], buf[512];
        FILE *sf;
        snprintf(st_path, sizeof st_path, "/proc/%d/stat", bg);
        if ((sf = fopen(st_path, "r")) != NULL) {
            int zombie = fgets(buf, sizeof buf, sf) && strrchr(buf, ')') && strrchr(buf, ')')[2] == 'Z';
            fclose(sf);
            if (zombie)
                break;
        }
        if (mono_ms() > end)
            fail_msg("the background sleep %d outlived its worker", bg);
        nap_ms(20);
    }
}

/* ---- adoption ---------------------------------------------------------- */

/* An "agent" process starts the worker and dies; this process, which did
 * not start it, sees it running, can stop it or see it end. */
static void start_from_dying_child(const runner_spec *s)
{
    pid_t pid = fork();
    int status;
    assert_true(pid >= 0);
    if (pid == 0) {
        rd_err err;
        _exit(runner_start(s, NULL, &err) == RD_OK ? 0 : 1);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_adoption_sees_running_then_exit_code(void **state)
{
    const char *dir = wdir("adopt");
    runner_spec s = proc_spec(dir, "while [ ! -e go ]; do sleep 0.05; done; echo done; exit 7");
    runner_status_t st;
    (void)state;
    start_from_dying_child(&s);
    st = status_of(dir);
    assert_int_equal(st.state, RUNNER_RUNNING);
    /* The shim was never this process's child, nor the dead agent's. */
    assert_int_not_equal(ppid_of(st.shim_pid), getpid());
    assert_int_equal(ppid_of(st.worker_pid), st.shim_pid);
    touch(dir, "go");
    st = wait_state(dir, RUNNER_EXITED);
    assert_int_equal(st.exit_code, 7);
    wait_log(dir, "done\n");
}

static void test_adoption_can_stop(void **state)
{
    const char *dir = wdir("adoptstop");
    runner_spec s = proc_spec(dir, "sleep 60");
    runner_status_t st;
    rd_err err;
    (void)state;
    start_from_dying_child(&s);
    assert_int_equal(status_of(dir).state, RUNNER_RUNNING);
    assert_int_equal(runner_signal(dir, SIGTERM, &err), RD_OK);
    st = wait_state(dir, RUNNER_EXITED);
    assert_int_equal(st.signal, SIGTERM);
}

/* ---- the fence: a held worker runs only once released ------------------- */

static int exists_in(const char *dir, const char *file)
{
    char path[PATH_MAX];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    return stat(path, &sb) == 0;
}

static runner_spec held_spec(const char *dir)
{
    runner_spec s = proc_spec(dir, "echo ran >marker; exit 0");
    s.hold = 1;
    return s;
}

static void test_held_runs_only_once_released(void **state)
{
    const char *dir = wdir("hold");
    runner_spec s = held_spec(dir);
    runner_status_t st;
    rd_err err;
    (void)state;
    start_ok(&s);
    st = status_of(dir);
    assert_int_equal(st.state, RUNNER_RUNNING);
    assert_true(st.hold);
    assert_false(st.released);
    nap_ms(4 * RUNNER_HOLD_TICK_MS);
    assert_false(exists_in(dir, "marker"));
    assert_int_equal(status_of(dir).state, RUNNER_RUNNING);
    assert_int_equal(runner_release(dir, &err), RD_OK);
    assert_int_equal(runner_release(dir, &err), RD_OK); /* said twice: still released */
    st = wait_state(dir, RUNNER_EXITED);
    assert_int_equal(st.exit_code, 0);
    assert_true(st.released);
    assert_false(st.unstarted);
    assert_true(exists_in(dir, "marker"));
    assert_int_equal(runner_abandon(dir, &err), RD_ECONFLICT); /* the first word stands */
}

static void start_from_dying_child(const runner_spec *s);

/* The agent that started it dies before releasing it (killed between the
 * start and the store's word): the command never runs, and a late release
 * cannot change that. */
static void test_held_dies_with_its_agent(void **state)
{
    const char *dir = wdir("holddead");
    runner_spec s = held_spec(dir);
    runner_status_t st;
    rd_err err;
    (void)state;
    start_from_dying_child(&s);
    st = wait_state(dir, RUNNER_EXITED);
    assert_true(st.unstarted);
    assert_false(st.released);
    assert_false(exists_in(dir, "marker"));
    assert_int_equal(runner_release(dir, &err), RD_ECONFLICT);
    assert_false(exists_in(dir, "marker"));
}

static void test_held_abandoned_or_signalled(void **state)
{
    char dir[2048], dir2[2048];
    runner_spec s, s2;
    runner_status_t st;
    rd_err err;
    (void)state;
    snprintf(dir, sizeof dir, "%s", wdir("holdab"));
    snprintf(dir2, sizeof dir2, "%s", wdir("holdsig"));
    s = held_spec(dir);
    s2 = held_spec(dir2);
    start_ok(&s);
    assert_int_equal(runner_abandon(dir, &err), RD_OK);
    assert_int_equal(runner_abandon(dir, &err), RD_OK);
    assert_int_equal(runner_release(dir, &err), RD_ECONFLICT);
    st = wait_state(dir, RUNNER_EXITED);
    assert_true(st.unstarted);
    assert_false(exists_in(dir, "marker"));
    /* stopping a held worker (job stop before its release) never runs it */
    start_ok(&s2);
    assert_int_equal(runner_signal(dir2, SIGTERM, &err), RD_OK);
    st = wait_state(dir2, RUNNER_EXITED);
    assert_true(st.unstarted);
    assert_true(st.signal > 0);
    assert_int_equal(runner_release(dir2, &err), RD_ECONFLICT);
    assert_false(exists_in(dir2, "marker"));
    /* a worker started without the fence has nothing to release */
    assert_int_equal(runner_release(wdir("adopt"), &err), RD_OK);
}

/* ---- lost and never started -------------------------------------------- */

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void fake_pid_record(const char *dir, const char *boot, int shim, unsigned long long shim_start, int worker,
                            unsigned long long worker_start)
{
    char path[PATH_MAX], text[512];
    snprintf(path, sizeof path, "mkdir -p %s/.rigdeck", dir);
    assert_int_equal(system(path), 0);
    snprintf(path, sizeof path, "%s/.rigdeck/pid", dir);
    snprintf(text, sizeof text,
             "rigdeck-runner 1\nboot %s\nkind process\nshim %d %llu\nworker %d %llu\nstarted_ms 1700000000000\n",
             boot, shim, shim_start, worker, worker_start);
    write_file(path, text);
}

static unsigned long long start_time_of(int pid)
{
    char path[64], buf[1024];
    FILE *f;
    unsigned long long t = 0;
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(buf, sizeof buf, f));
    fclose(f);
    assert_int_equal(sscanf(strrchr(buf, ')') + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d "
                                                   "%*d %*d %*d %llu",
                            &t),
                     1);
    return t;
}

static void boot_now(char out[64])
{
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    assert_non_null(f);
    assert_non_null(fgets(out, 64, f));
    fclose(f);
    out[strcspn(out, "\n")] = '\0';
}

static void test_gone_none_and_reused_pids(void **state)
{
    const char *dir;
    char boot[64], path[PATH_MAX];
    runner_status_t st;
    rd_err err;
    pid_t dead = fork();
    unsigned long long me = start_time_of(getpid());
    (void)state;
    if (dead == 0)
        _exit(0);
    assert_int_equal(waitpid(dead, NULL, 0), dead);
    boot_now(boot);

    dir = wdir("none");
    assert_int_equal(runner_status(dir, &st, &err), RD_OK);
    assert_int_equal(st.state, RUNNER_NONE);
    assert_int_equal(runner_signal(dir, SIGTERM, &err), RD_OK);

    dir = wdir("gone");
    fake_pid_record(dir, boot, dead, 1, dead, 1);
    st = status_of(dir);
    assert_int_equal(st.state, RUNNER_GONE);
    assert_int_equal(st.started_at, 1700000000000LL);
    assert_int_equal(runner_signal(dir, SIGTERM, &err), RD_OK);

    /* A live pid with another start time is a reused pid, not the worker. */
    dir = wdir("reused");
    fake_pid_record(dir, boot, getpid(), me + 1, getpid(), me + 1);
    assert_int_equal(status_of(dir).state, RUNNER_GONE);
    assert_int_equal(runner_signal(dir, SIGTERM, &err), RD_OK); /* and is not signalled */

    /* Same pid and start time, but from another boot. */
    dir = wdir("reboot");
    fake_pid_record(dir, "00000000-0000-0000-0000-000000000000", getpid(), me, getpid(), me);
    assert_int_equal(status_of(dir).state, RUNNER_GONE);

    /* The control: this very process does count as alive. */
    dir = wdir("alive");
    fake_pid_record(dir, boot, getpid(), me, getpid(), me);
    assert_int_equal(status_of(dir).state, RUNNER_RUNNING);
    assert_int_equal(runner_cleanup(dir, &err), RD_ECONFLICT);

    dir = wdir("corrupt");
    fake_pid_record(dir, boot, dead, 1, dead, 1);
    snprintf(path, sizeof path, "%s/.rigdeck/exit", dir);
    write_file(path, "exit banana\n");
    assert_int_equal(runner_status(dir, &st, &err), RD_ECORRUPT);
    snprintf(path, sizeof path, "%s/.rigdeck/pid", dir);
    write_file(path, "rigdeck-runner 1\nboot x\n");
    assert_int_equal(runner_status(dir, &st, &err), RD_ECORRUPT);
    assert_non_null(strstr(err.msg, "pid record"));
    assert_int_equal(runner_cleanup(dir, &err), RD_OK); /* damaged is still removable */
}

/* ---- log --------------------------------------------------------------- */

static void test_log_tail_over_256k(void **state)
{
    const char *dir = wdir("bigl");
    runner_spec s = proc_spec(dir, "i=0; while [ $i -lt 6000 ]; do "
                                   "echo \"line $i ..................................................\"; "
                                   "i=$((i+1)); done; echo LAST");
    char *text;
    size_t len;
    int64_t total, total2;
    (void)state;
    start_ok(&s);
    assert_int_equal(wait_state(dir, RUNNER_EXITED).exit_code, 0);
    text = log_of(dir, RUNNER_LOG_TAIL_MAX, &len, &total);
    assert_true(total > RUNNER_LOG_TAIL_MAX);
    assert_true(len <= RUNNER_LOG_TAIL_MAX && len > RUNNER_LOG_TAIL_MAX - 200);
    assert_int_equal(strlen(text), len);
    assert_int_equal(strncmp(text, "line ", 5), 0); /* cut after a newline */
    assert_string_equal(text + len - 5, "LAST\n");
    free(text);
    text = log_of(dir, RUNNER_LOG_TAIL_MAX, &len, &total2);
    assert_int_equal(total2, total); /* unchanged output, unchanged total */
    free(text);
}

static void test_log_tail_cuts(void **state)
{
    const char *dir = wdir("cuts");
    char path[PATH_MAX], *text;
    size_t len;
    int64_t total;
    rd_err err;
    (void)state;
    fake_pid_record(dir, "x", 1, 1, 1, 1);
    snprintf(path, sizeof path, "%s/.rigdeck/output.log", dir);
    write_file(path, "abc\ndefgh\n");
    text = log_of(dir, 8, &len, &total); /* "c\ndefgh\n" -> after the newline */
    assert_string_equal(text, "defgh\n");
    assert_int_equal(total, 10);
    free(text);
    text = log_of(dir, 5, &len, &total); /* only the final newline: keep all */
    assert_string_equal(text, "efgh\n");
    free(text);
    text = log_of(dir, 100, &len, &total); /* not cut */
    assert_string_equal(text, "abc\ndefgh\n");
    free(text);
    text = log_of(dir, 0, &len, &total);
    assert_int_equal(len, 0);
    free(text);
    assert_int_equal(runner_log_tail(wdir("nolog"), 10, &text, &len, &total, &err), RD_ENOTFOUND);
    assert_null(text);
}

/* One "line" longer than the tail (a progress bar redrawn with '\r'): its
 * tail is kept, not dropped for the lines after it. */
static void test_log_tail_keeps_a_long_line(void **state)
{
    char dirs[2][2048];
    (void)state;
    snprintf(dirs[0], sizeof dirs[0], "%s", wdir("longcr"));
    snprintf(dirs[1], sizeof dirs[1], "%s", wdir("longline"));
    for (int k = 0; k < 2; k++) {
        char path[PATH_MAX], *text;
        size_t len;
        int64_t total;
        FILE *f;
        fake_pid_record(dirs[k], "x", 1, 1, 1, 1);
        snprintf(path, sizeof path, "%s/.rigdeck/output.log", dirs[k]);
        assert_non_null(f = fopen(path, "w"));
        fputs("before\n", f);
        for (int i = 0; i < 3000; i++)   /* 300 KB, one line */
            fprintf(f, k == 0 ? "\r%5d%%|%-91s" : "%5d%%|%-92s", i, "######");
        fputs("\ndone\n", f);
        fclose(f);
        text = log_of(dirs[k], RUNNER_LOG_TAIL_MAX, &len, &total);
        assert_true(total > RUNNER_LOG_TAIL_MAX);
        assert_true(len > RUNNER_LOG_TAIL_MAX - 200);
        assert_string_equal(text + len - 6, "\ndone\n");
        assert_null(strstr(text, "before"));
        if (k == 0)
            assert_true(text[0] == ' ' || (text[0] >= '0' && text[0] <= '9')); /* after a '\r' */
        free(text);
    }
}

/* More than RUNNER_LOG_CAP on disk: the shim frees the front's blocks, the
 * tail stays readable and the size keeps counting. */
static void test_log_front_is_punched(void **state)
{
    const char *dir = wdir("punch");
    runner_spec s = proc_spec(dir, "yes 0123456789abcdef | head -c 6000000; echo; echo END; "
                                   "while [ ! -e go ]; do sleep 0.05; done");
    char path[PATH_MAX], *text;
    size_t len;
    int64_t total, end;
    struct stat sb;
    (void)state;
    start_ok(&s);
    wait_log(dir, "END\n");
    snprintf(path, sizeof path, "%s/.rigdeck/output.log", dir);
    end = mono_ms() + DEADLINE_MS;
    for (;;) {
        assert_int_equal(stat(path, &sb), 0);
        if ((long long)sb.st_blocks * 512 < 3 * 1024 * 1024)
            break;
        if (mono_ms() > end) {
            print_message("skipped: the log was not punched (file system without PUNCH_HOLE?)\n");
            break;
        }
        nap_ms(50);
    }
    text = log_of(dir, RUNNER_LOG_TAIL_MAX, &len, &total);
    assert_int_equal(total, 6000005);
    assert_true(len > 0 && len <= RUNNER_LOG_TAIL_MAX);
    assert_int_equal(strlen(text), len); /* no zeros from the hole */
    assert_string_equal(text + len - 4, "END\n");
    free(text);
    text = log_of(dir, 8 * 1024 * 1024, &len, &total); /* asking past the hole */
    assert_int_equal(strlen(text), len);
    assert_true(len >= RUNNER_LOG_KEEP && len < 6000005 - 1024 * 1024);
    free(text);
    touch(dir, "go");
    assert_int_equal(wait_state(dir, RUNNER_EXITED).exit_code, 0);
}

/* ---- descriptors ------------------------------------------------------- */

/* No fd of the starting process other than the log and /dev/null. */
static void assert_clean_fds(int pid, const char *secret)
{
    char path[64], link[PATH_MAX], target[PATH_MAX];
    for (int fd = 0; fd < 1024; fd++) {
        ssize_t n;
        snprintf(link, sizeof link, "/proc/%d/fd/%d", pid, fd);
        n = readlink(link, target, sizeof target - 1);
        if (n < 0)
            continue;
        target[n] = '\0';
        if (fd > 2)
            fail_msg("pid %d keeps fd %d (%s)", pid, fd, target);
        assert_null(strstr(target, secret));
    }
    (void)path;
}

static void test_shim_and_worker_drop_inherited_fds(void **state)
{
    const char *dir = wdir("fds");
    char secret[PATH_MAX];
    runner_spec s = proc_spec(dir, "sleep 60");
    runner_info info;
    rd_err err;
    int fd;
    (void)state;
    snprintf(secret, sizeof secret, "%s/agent-store.db", root);
    fd = open(secret, O_RDWR | O_CREAT, 0600); /* not O_CLOEXEC, like a careless library */
    assert_true(fd >= 0);
    info = start_ok(&s);
    assert_clean_fds(info.shim_pid, secret);
    assert_clean_fds(info.worker_pid, secret);
    close(fd);
    assert_int_equal(runner_signal(dir, SIGKILL, &err), RD_OK);
    assert_int_equal(wait_state(dir, RUNNER_EXITED).signal, SIGKILL);
}

/* ---- refusals, cleanup, names ------------------------------------------ */

static void test_refusals(void **state)
{
    const char *dir = wdir("refuse");
    const char *bad_env[] = { "1X=y", NULL };
    runner_spec s = proc_spec(dir, "exit 0");
    rd_err err;
    (void)state;
    s.kind = RUNNER_AUTO;
    assert_int_equal(runner_start(&s, NULL, &err), RD_EINVAL);
    s = proc_spec("relative/dir", "exit 0");
    assert_int_equal(runner_start(&s, NULL, &err), RD_EINVAL);
    s = proc_spec(dir, "");
    assert_int_equal(runner_start(&s, NULL, &err), RD_EINVAL);
    s = proc_spec(dir, "exit 0");
    s.gpus = "0,,2";
    assert_int_equal(runner_start(&s, NULL, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "gpus"));
    s.gpus = "1";
    s.env = bad_env;
    assert_int_equal(runner_start(&s, NULL, &err), RD_EINVAL);
    s.env = NULL;
    s.kind = RUNNER_DOCKER;
    assert_int_equal(runner_start(&s, NULL, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "image"));
    s.kind = RUNNER_PROCESS;
    start_ok(&s);
    assert_int_equal(runner_start(&s, NULL, &err), RD_EEXISTS);
    wait_state(dir, RUNNER_EXITED);
    assert_int_equal(runner_start(&s, NULL, &err), RD_EEXISTS);
}

static void test_cleanup(void **state)
{
    const char *dir = wdir("clean");
    runner_spec s = proc_spec(dir, "while [ ! -e go ]; do sleep 0.05; done");
    struct stat sb;
    rd_err err;
    (void)state;
    start_ok(&s);
    assert_int_equal(runner_cleanup(dir, &err), RD_ECONFLICT);
    touch(dir, "go");
    wait_state(dir, RUNNER_EXITED);
    assert_int_equal(runner_cleanup(dir, &err), RD_OK);
    assert_int_equal(stat(dir, &sb), -1);
    assert_int_equal(runner_status(dir, &(runner_status_t){ 0 }, &err), RD_OK);
    assert_int_equal(runner_cleanup(dir, &err), RD_OK); /* already gone */
    assert_int_equal(runner_reap(), 0);
}

static void test_kind_names(void **state)
{
    runner_kind k;
    rd_err err;
    (void)state;
    for (int i = RUNNER_AUTO; i <= RUNNER_DOCKER; i++) {
        assert_int_equal(runner_kind_parse(runner_kind_name((runner_kind)i), &k, &err), RD_OK);
        assert_int_equal(k, i);
    }
    assert_int_equal(runner_kind_parse("lxc", &k, &err), RD_EINVAL);
    /* the names come from the runtimes' registry (runtime.c) */
    assert_string_equal(err.msg, "runtime \"lxc\" must be auto, process, podman or docker");
    assert_string_equal(runner_state_name(RUNNER_GONE), "gone");
}

/* ---- containers -------------------------------------------------------- */

static int argv_has(char **argv, const char *a, const char *b)
{
    for (size_t i = 0; argv[i]; i++)
        if (strcmp(argv[i], a) == 0 && (!b || (argv[i + 1] && strcmp(argv[i + 1], b) == 0)))
            return 1;
    return 0;
}

static int envp_has(char **envp, const char *kv)
{
    for (size_t i = 0; envp[i]; i++)
        if (strcmp(envp[i], kv) == 0)
            return 1;
    return 0;
}

static void test_container_command_lines(void **state)
{
    const char *env[] = { "TOKEN=s3cret", "HOME=/job/home", NULL };
    runner_mount mounts[] = { { "/data", "/mnt/data", 1 }, { "/scratch", "/scratch", 0 } };
    runner_spec s = proc_spec("/w/j/1", "python train.py");
    runner_plan p;
    rd_err err;
    size_t n;
    (void)state;
    s.kind = RUNNER_PODMAN;
    s.image = "registry.example/train:1";
    s.env = env;
    s.gpus = "0,2";
    s.mounts = mounts;
    s.n_mounts = 2;
    s.job_id = "job 7/x";
    s.worker_index = 1;
    s.workdir = "/app";
    setenv("HOME", "/agent/home", 1);
    assert_int_equal(runner_plan_build(&s, &p, &err), RD_OK);
    assert_string_equal(p.argv[0], "podman");
    assert_true(argv_has(p.argv, "run", NULL) && argv_has(p.argv, "--rm", NULL) && argv_has(p.argv, "--init", NULL));
    assert_true(argv_has(p.argv, "--replace", NULL) && argv_has(p.argv, "--sig-proxy=true", NULL));
    assert_true(argv_has(p.argv, "--name", "rigdeck-job-7-x-1"));
    assert_true(argv_has(p.argv, "--device", "nvidia.com/gpu=0") && argv_has(p.argv, "--device", "nvidia.com/gpu=2"));
    assert_true(argv_has(p.argv, "-v", "/data:/mnt/data:ro") && argv_has(p.argv, "-v", "/scratch:/scratch:rw"));
    /* Values by name through the client's environment... */
    assert_true(argv_has(p.argv, "-e", "TOKEN") && envp_has(p.envp, "TOKEN=s3cret"));
    assert_false(argv_has(p.argv, "-e", "TOKEN=s3cret"));
    assert_true(argv_has(p.argv, "-e", "RIGDECK_JOB_ID") && envp_has(p.envp, "RIGDECK_JOB_ID=job 7/x"));
    assert_true(envp_has(p.envp, "CUDA_VISIBLE_DEVICES=0,1")); /* renumbered inside */
    /* ...except one the client itself has, which must stay the agent's. */
    assert_true(argv_has(p.argv, "-e", "HOME=/job/home") && envp_has(p.envp, "HOME=/agent/home"));
    assert_true(argv_has(p.argv, "--workdir", "/app"));
    for (n = 0; p.argv[n]; n++)
        ;
    /* the entry writes "started", waits for "go", then runs the command */
    assert_string_equal(p.argv[n - 6], "registry.example/train:1");
    assert_string_equal(p.argv[n - 5], "/bin/sh");
    assert_string_equal(p.argv[n - 3], RUNTIME_ENTRY);
    assert_string_equal(p.argv[n - 1], "python train.py");
    assert_true(argv_has(p.argv, "--pull=never", NULL));
    assert_true(argv_has(p.argv, "-v", "/w/j/1/.rigdeck/ctl:/.rigdeck:rw"));
    assert_string_equal(p.ctl, "/w/j/1/.rigdeck/ctl");
    assert_non_null(strstr(p.record, "kind podman\n"));
    assert_non_null(strstr(p.record, "name rigdeck-job-7-x-1\n"));
    runner_plan_free(&p);

    s.kind = RUNNER_DOCKER;
    s.name = "-my name";
    s.workdir = NULL;
    assert_int_equal(runner_plan_build(&s, &p, &err), RD_OK);
    assert_string_equal(p.argv[0], "docker");
    assert_false(argv_has(p.argv, "--replace", NULL));
    assert_true(argv_has(p.argv, "--gpus", "\"device=0,2\""));
    assert_true(argv_has(p.argv, "--name", "r-my-name"));
    assert_false(argv_has(p.argv, "--workdir", NULL));
    runner_plan_free(&p);

    mounts[0].host_path = "/a:b";
    assert_int_equal(runner_plan_build(&s, &p, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "mount 0"));
}

/* A runtime that is not installed: the worker still starts, exits 127 and
 * the log says why. */
static void test_missing_runtime_exits_127(void **state)
{
    const char *dir = wdir("noruntime");
    runner_spec s = proc_spec(dir, "echo hi");
    char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL, *text;
    runner_status_t st;
    (void)state;
    s.kind = RUNNER_PODMAN;
    s.image = "busybox";
    setenv("PATH", "/nonexistent-rigdeck-path", 1);
    start_ok(&s);
    if (old)
        setenv("PATH", old, 1);
    free(old);
    st = wait_state(dir, RUNNER_EXITED);
    assert_int_equal(st.exit_code, 127);
    assert_int_equal(st.kind, RUNNER_PODMAN);
    text = log_of(dir, 4096, NULL, NULL);
    assert_non_null(strstr(text, "cannot run podman: No such file or directory"));
    free(text);
}

/* The first line of `cmd` (run by sh), or "" - for the container probe. */
static void first_line(const char *cmd, char *out, size_t cap)
{
    FILE *p = popen(cmd, "r");
    out[0] = '\0';
    if (!p)
        return;
    if (!fgets(out, (int)cap, p))
        out[0] = '\0';
    out[strcspn(out, "\n")] = '\0';
    pclose(p);
}

/* Why `prog` cannot run a container here, or NULL; image gets a local one. */
static const char *container_unusable(const char *prog, char *image, size_t cap)
{
    char cmd[256], line[256];
    snprintf(cmd, sizeof cmd, "command -v %s", prog);
    first_line(cmd, line, sizeof line);
    if (!line[0])
        return "not on PATH";
    {
        /* `info` answering is not enough (issue 31): the runtime's own
         * check must run a container */
        static char why[600];
        char scratch[2048];
        rd_err err = { 0 };
        snprintf(scratch, sizeof scratch, "%s/check", root);
        const runtime_ops *rt = runtime_find(strcmp(prog, "podman") == 0 ? RUNNER_PODMAN : RUNNER_DOCKER);
        if (rt->check(rt, scratch, &err) != RD_OK) {
            snprintf(why, sizeof why, "its check fails: %s", err.msg);
            return why;
        }
    }
    snprintf(cmd, sizeof cmd, "%s images --format '{{.Repository}}:{{.Tag}}' 2>/dev/null | grep -v '<none>'", prog);
    first_line(cmd, image, cap);
    if (!image[0])
        return "no image stored locally and no network to pull one";
    return NULL;
}

static void test_real_containers_when_usable(void **state)
{
    static const char *const progs[] = { "podman", "docker" };
    static const runner_kind kinds[] = { RUNNER_PODMAN, RUNNER_DOCKER };
    int usable[2];
    (void)state;
    for (int i = 0; i < 2; i++) {
        char image[256], name[64];
        const char *why = container_unusable(progs[i], image, sizeof image);
        runner_spec s;
        runner_status_t st;
        char *text;
        usable[i] = !why || strcmp(why, "no image stored locally and no network to pull one") == 0;
        if (why) {
            print_message("skipped: %s not usable (%s)\n", progs[i], why);
            continue;
        }
        snprintf(name, sizeof name, "ctr-%s", progs[i]);
        s = proc_spec(wdir(name), "echo \"in container $RIGDECK_JOB_ID\"; exit 4");
        s.kind = kinds[i];
        s.image = image;
        start_ok(&s);
        st = wait_state(s.dir, RUNNER_EXITED);
        text = log_of(s.dir, 4096, NULL, NULL);
        if (st.exit_code != 4)
            fail_msg("%s run of %s: exit %d, log: %s", progs[i], image, st.exit_code, text);
        assert_non_null(strstr(text, "in container job-1\n"));
        free(text);
    }
    /* which runtime `auto` takes is runtime_pick's (test_runtime.c) */
    (void)usable;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_code_log_env_cwd),
        cmocka_unit_test(test_exit_zero_and_no_gpus),
        cmocka_unit_test(test_sigterm_records_signal),
        cmocka_unit_test(test_term_ignored_then_sigkill),
        cmocka_unit_test(test_shim_forwards_sigterm),
        cmocka_unit_test(test_leftovers_in_group_are_killed),
        cmocka_unit_test(test_adoption_sees_running_then_exit_code),
        cmocka_unit_test(test_adoption_can_stop),
        cmocka_unit_test(test_held_runs_only_once_released),
        cmocka_unit_test(test_held_dies_with_its_agent),
        cmocka_unit_test(test_held_abandoned_or_signalled),
        cmocka_unit_test(test_gone_none_and_reused_pids),
        cmocka_unit_test(test_log_tail_over_256k),
        cmocka_unit_test(test_log_tail_cuts),
        cmocka_unit_test(test_log_tail_keeps_a_long_line),
        cmocka_unit_test(test_log_front_is_punched),
        cmocka_unit_test(test_shim_and_worker_drop_inherited_fds),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_cleanup),
        cmocka_unit_test(test_kind_names),
        cmocka_unit_test(test_container_command_lines),
        cmocka_unit_test(test_missing_runtime_exits_127),
        cmocka_unit_test(test_real_containers_when_usable),
    };
    testutil_tmpdir(root, sizeof root);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
