/* probe_gpu.c - the GPUs of this machine, from nvidia-smi: running it, parsing
 * its CSV into probe_gpu readings and mapping its names to catalog ids. */
#include "probe.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "catalog.h"
#include "grow.h"
#include "rdtime.h"

extern char **environ;

#define NCOLS 10
#define OUT_MAX (4u << 20) /* far beyond 64 GPUs' worth; a runaway program is cut off */
#define ERR_KEEP 4096

static const char *const col_names[NCOLS] = {
    "index", "name", "memory.total", "pcie.link.gen.max", "pcie.link.width.max", "utilization.gpu",
    "memory.used", "temperature.gpu", "power.draw", "ecc.errors.uncorrected.volatile.total",
};

/* ---- names ---------------------------------------------------------------- */

static int word_is(const char *w, size_t n, const char *const *list)
{
    for (; *list; list++)
        if (strlen(*list) == n && strncmp(w, *list, n) == 0)
            return 1;
    return 0;
}

/* Lower-cases name into buf as space-separated words, dropping leading brand
 * words and form-factor words anywhere: the same card is "Tesla
 * V100-SXM2-16GB" or "NVIDIA V100-PCIE-16GB" by driver and slot, and neither
 * word says anything the catalog distinguishes.  0 when it does not fit. */
static int name_words(const char *name, char *buf, size_t len)
{
    static const char *const brand[] = { "nvidia", "tesla", "geforce", "quadro", NULL };
    static const char *const form[] = { "pcie", "sxm", "sxm2", "sxm3", "sxm4", NULL };
    char low[128];
    size_t used = 0, n = 0;
    int leading = 1;

    if (strlen(name) >= sizeof low)
        return 0;
    for (const char *p = name; *p; p++)
        low[n++] = (char)tolower((unsigned char)*p);
    low[n] = '\0';
    buf[0] = '\0';
    for (const char *p = low; *p;) {
        size_t w;
        while (*p == ' ' || *p == '-' || *p == '_')
            p++;
        w = strcspn(p, " -_");
        if (w == 0)
            break;
        if (!(leading && word_is(p, w, brand)) && !word_is(p, w, form)) {
            leading = 0;
            if (used + w + 2 > len)
                return 0;
            if (used)
                buf[used++] = ' ';
            memcpy(buf + used, p, w);
            used += w;
            buf[used] = '\0';
        }
        p += w;
    }
    return 1;
}

/* 1 for a memory-size word ("16gb"), which a driver's spelling may leave out. */
static int size_word(const char *w, size_t n)
{
    if (n < 3 || strncmp(w + n - 2, "gb", 2) != 0)
        return 0;
    for (size_t i = 0; i < n - 2; i++)
        if (!isdigit((unsigned char)w[i]))
            return 0;
    return 1;
}

/* Drops the size words from words (name_words' form), in place. */
static void drop_size_words(char *words)
{
    char *o = words;
    for (const char *p = words; *p;) {
        size_t n = strcspn(p, " ");
        if (!size_word(p, n)) {
            if (o != words)
                *o++ = ' ';
            memmove(o, p, n);
            o += n;
        }
        p += n;
        while (*p == ' ')
            p++;
    }
    *o = '\0';
}

/* 1 when the catalog name listed reads as words: the same words, or the same
 * but for the size words listed has and words leaves out. */
static int listed_as(const char *listed, const char *words)
{
    char lw[128];
    if (!name_words(listed, lw, sizeof lw) || !lw[0])
        return 0;
    if (strcmp(lw, words) == 0)
        return 1;
    drop_size_words(lw);
    return strcmp(lw, words) == 0;
}

/* How far a type's memory is from the card's (MiB); the nearest wins. */
static long memory_gap(const gpu_type *t, int memory_mib)
{
    long d = (long)t->memory_gb * 1024 - memory_mib;
    return d < 0 ? -d : d;
}

const char *probe_gpu_model(const char *name, int memory_mib)
{
    char words[128];
    const gpu_type *listed = name ? catalog_gpu_by_nvidia_name(name) : NULL, *best = NULL;

    /* Only the catalog's records name cards: first their names as listed
     * (the operator's added types among them: spec/execution.md's rule,
     * any case, with or without "NVIDIA "); then a shipped type's names as
     * older drivers spell them, word for word once brand and form words
     * are gone ("NVIDIA V100-PCIE-16GB" for "Tesla V100-PCIE-16GB"),
     * perhaps without the size ("NVIDIA A100"), when the card's memory
     * picks among the types.  An added type matches only as listed: the
     * operator wrote its names, and a looser match would take a card it
     * did not mean. */
    if (listed)
        return listed->id;
    if (!name || !name_words(name, words, sizeof words) || !words[0])
        return NULL;
    for (size_t i = 0; i < catalog_gpu_count(); i++) {
        const gpu_type *t = catalog_gpu_at(i);
        int hit = 0;
        if (!t->builtin)
            continue;
        for (const char *const *n = t->nvidia_names; n && *n && !hit; n++)
            hit = listed_as(*n, words);
        if (hit && (!best || memory_gap(t, memory_mib) < memory_gap(best, memory_mib)))
            best = t;
    }
    return best ? best->id : NULL;
}

int probe_gpu_memory_gb(const probe_gpu *g)
{
    const gpu_type *t = g->model[0] ? catalog_gpu(g->model) : NULL;
    int gb;

    /* memory.total without a reading (a GB10 or GH200 sharing host memory
     * says [N/A]): the catalog's figure for the card, as spec/execution.md
     * asks; nothing at all is known of an unknown card's. */
    if (g->memory_mib <= 0)
        return t && t->memory_gb > 0 ? t->memory_gb : 1;

    /* The driver keeps back ECC and firmware memory, so a card shows a little
     * under its nameplate; up to 15% under still is that card. */
    if (t && t->memory_gb > 0 && g->memory_mib <= t->memory_gb * 1024 + 512 &&
        (long)g->memory_mib * 100 >= (long)t->memory_gb * 1024 * 85)
        return t->memory_gb;
    gb = (g->memory_mib + 512) / 1024;
    return gb < 1 ? 1 : gb;
}

/* ---- the CSV -------------------------------------------------------------- */

static int is_na(const char *s)
{
    size_t n = strlen(s);
    /* nvidia-smi's bracketed words: [N/A], [Not Supported], [Unknown Error],
     * [Insufficient Permissions]; all mean "no reading", and so does an
     * empty column (some drivers print nothing for an unsupported field). */
    return n == 0 || (n >= 2 && s[0] == '[' && s[n - 1] == ']') || strcmp(s, "N/A") == 0 ||
           strcmp(s, "Not Supported") == 0;
}

/* A whole number 0..max, digits only; -1 when it is not one. */
static int64_t whole(const char *s, int64_t max)
{
    int64_t v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (!isdigit((unsigned char)*s) || v > (max - (*s - '0')) / 10)
            return -1;
        v = v * 10 + (*s - '0');
    }
    return v;
}

/* Watts with up to three decimals ("68.52") as milliwatts; -1 when not one. */
static int milliwatts(const char *s)
{
    size_t ip = strspn(s, "0123456789"), fp = 0;
    int64_t w, mw;
    char ibuf[12];

    if (ip == 0 || ip >= sizeof ibuf)
        return -1;
    memcpy(ibuf, s, ip);
    ibuf[ip] = '\0';
    w = whole(ibuf, 1000000);
    mw = w * 1000;
    if (s[ip] == '.') {
        int scale = 100;
        fp = strspn(s + ip + 1, "0123456789");
        if (fp == 0)
            return -1;
        for (size_t i = 0; i < fp; i++, scale /= 10) {
            int d = s[ip + 1 + i] - '0';
            if (scale >= 1)
                mw += d * scale;
            else if (i == 3 && d >= 5) /* round on the fourth decimal */
                mw += 1;
        }
        fp += 1;
    }
    return w < 0 || s[ip + fp] != '\0' ? -1 : (int)mw;
}

static void trim(char **s)
{
    char *p = *s, *e;
    while (*p == ' ' || *p == '\t')
        p++;
    e = p + strlen(p);
    while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        *--e = '\0';
    *s = p;
}

static rd_code bad_field(rd_err *err, int line, int col, const char *rule, const char *got)
{
    return rd_fail(err, RD_EINVAL, "nvidia-smi output line %d column %d (%s) must be %s, got '%.40s'", line,
                   col + 1, col_names[col], rule, got);
}

/* One reading column: a whole number 0..max, or N/A (-> na). */
static rd_code reading(char *f, int line, int col, int64_t max, int64_t na, int64_t *out, rd_err *err)
{
    if (is_na(f)) {
        *out = na;
        return RD_OK;
    }
    if ((*out = whole(f, max)) < 0) {
        char rule[48];
        snprintf(rule, sizeof rule, "a whole number 0..%lld or [N/A]", (long long)max);
        return bad_field(err, line, col, rule, f);
    }
    return RD_OK;
}

static rd_code parse_line(char *text, int line, int row, probe_gpu *g, rd_err *err)
{
    char *f[NCOLS], *p = text;
    int n = 0;
    int64_t v;
    rd_code rc;

    for (;;) {
        char *comma = strchr(p, ',');
        if (n < NCOLS)
            f[n] = p;
        n++;
        if (!comma)
            break;
        *comma = '\0';
        p = comma + 1;
    }
    if (n != NCOLS)
        return rd_fail(err, RD_EINVAL,
                       "nvidia-smi output line %d has %d columns, must have %d (index, name, memory.total, "
                       "pcie.link.gen.max, ..., ecc.errors.uncorrected.volatile.total)",
                       line, n, NCOLS);
    for (int i = 0; i < NCOLS; i++)
        trim(&f[i]);
    memset(g, 0, sizeof *g);
    /* nvidia-smi numbers its GPUs in the order it lists them: an index
     * without a reading is the row's place. */
    if (is_na(f[0]))
        g->index = row;
    else if ((v = whole(f[0], 1023)) < 0)
        return bad_field(err, line, 0, "a whole number 0..1023 or [N/A]", f[0]);
    else
        g->index = (int)v;
    if (strlen(f[1]) >= sizeof g->name)
        return bad_field(err, line, 1, "a GPU name of 1..95 characters", f[1]);
    /* A name without a reading is a card the catalog cannot know: it is
     * kept as printed, so the node says what it could not map. */
    snprintf(g->name, sizeof g->name, "%s", *f[1] ? f[1] : "[N/A]");
    if (is_na(f[2]))
        g->memory_mib = 0;   /* no reading: probe_gpu_memory_gb takes the catalog's */
    else if ((v = whole(f[2], 1024 * 1024)) < 1)
        return bad_field(err, line, 2, "a whole number of MiB 1..1048576 or [N/A]", f[2]);
    else
        g->memory_mib = (int)v;
    if ((rc = reading(f[3], line, 3, 99, 0, &v, err)) != RD_OK)
        return rc;
    g->pcie_gen = (int)v;
    if ((rc = reading(f[4], line, 4, 64, 0, &v, err)) != RD_OK)
        return rc;
    g->pcie_lanes = (int)v;
    if ((rc = reading(f[5], line, 5, 100, -1, &v, err)) != RD_OK)
        return rc;
    g->util_pct = (int)v;
    if ((rc = reading(f[6], line, 6, 1024 * 1024, -1, &v, err)) != RD_OK)
        return rc;
    g->mem_used_mib = (int)v;
    if ((rc = reading(f[7], line, 7, 250, -1, &v, err)) != RD_OK)
        return rc;
    g->temp_c = (int)v;
    if (is_na(f[8]))
        g->power_mw = -1;
    else if ((g->power_mw = milliwatts(f[8])) < 0)
        return bad_field(err, line, 8, "watts such as 68.52 or [N/A]", f[8]);
    if ((rc = reading(f[9], line, 9, INT64_MAX, -1, &g->ecc_errors, err)) != RD_OK)
        return rc;
    if (g->ecc_errors > PROBE_ECC_MAX)
        g->ecc_errors = PROBE_ECC_MAX;
    const char *model = is_na(f[1]) ? NULL : probe_gpu_model(g->name, g->memory_mib);
    snprintf(g->model, sizeof g->model, "%s", model ? model : "");
    return RD_OK;
}

rd_code probe_gpus_parse(const char *csv, probe_gpu **out, size_t *count, rd_err *err)
{
    probe_gpu *gpus = NULL;
    size_t n = 0, cap = 0;
    char *copy = strdup(csv ? csv : ""), *p;
    int line = 0;
    rd_code rc = RD_OK;

    *out = NULL;
    *count = 0;
    if (!copy)
        return rd_fail(err, RD_ENOMEM, "out of memory reading nvidia-smi output");
    for (p = copy; *p && rc == RD_OK;) {
        char *nl = strchr(p, '\n'), *t;
        if (nl)
            *nl = '\0';
        line++;
        t = p;
        trim(&t);
        if (*t) {
            if (grow_array(&gpus, &cap, n + 1, sizeof *gpus) != 0)
                rc = rd_fail(err, RD_ENOMEM, "out of memory reading nvidia-smi output");
            else if ((rc = parse_line(t, line, (int)n, &gpus[n], err)) == RD_OK)
                n++;
        }
        p = nl ? nl + 1 : p + strlen(p);
    }
    free(copy);
    if (rc != RD_OK) {
        free(gpus);
        return rc;
    }
    *out = gpus;
    *count = n;
    rd_err_clear(err);
    return RD_OK;
}

/* ---- running nvidia-smi --------------------------------------------------- */

static int is_exec_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The program to run in path (len bytes), or "" when it is absent; RD_EINVAL
 * when it exists but cannot be run, which is a broken install, not a
 * machine without GPUs. */
static rd_code find_program(const char *prog, char *path, size_t len, rd_err *err)
{
    const char *dirs;
    struct stat st;

    path[0] = '\0';
    if (strchr(prog, '/')) {
        if (stat(prog, &st) != 0)
            return RD_OK;
        if (!is_exec_file(prog))
            return rd_fail(err, RD_EINVAL, "nvidia-smi '%s' is not an executable file", prog);
        snprintf(path, len, "%s", prog);
        return RD_OK;
    }
    dirs = getenv("PATH");
    if (!dirs || !*dirs)
        dirs = "/usr/local/bin:/usr/bin:/bin";
    while (*dirs) {
        size_t d = strcspn(dirs, ":");
        int w = snprintf(path, len, "%.*s/%s", (int)(d ? d : 1), d ? dirs : ".", prog);
        if (w > 0 && (size_t)w < len && is_exec_file(path))
            return RD_OK;
        dirs += d + (dirs[d] == ':');
    }
    path[0] = '\0';
    return RD_OK;
}

typedef struct {
    char *out;
    size_t nout, capout;
    char err[ERR_KEEP];
    size_t nerr;
    int too_much;
} capture;

/* Reads what is ready on fd into the capture; 0 at EOF. */
static int drain(int fd, int is_err, capture *c)
{
    char buf[4096];
    ssize_t r = read(fd, buf, sizeof buf);

    if (r < 0)
        return errno == EINTR || errno == EAGAIN;
    if (r == 0)
        return 0;
    if (is_err) {
        size_t keep = (size_t)r < ERR_KEEP - 1 - c->nerr ? (size_t)r : ERR_KEEP - 1 - c->nerr;
        memcpy(c->err + c->nerr, buf, keep);
        c->nerr += keep;
        c->err[c->nerr] = '\0';
        return 1;
    }
    if (c->nout + (size_t)r + 1 > OUT_MAX) {
        c->too_much = 1;
        return 1;
    }
    if (c->nout + (size_t)r + 1 > c->capout) {
        if (grow_array(&c->out, &c->capout, c->nout + (size_t)r + 1, 1) != 0) {
            c->too_much = 1;
            return 1;
        }
    }
    memcpy(c->out + c->nout, buf, (size_t)r);
    c->nout += (size_t)r;
    c->out[c->nout] = '\0';
    return 1;
}

/* The first non-blank line of s, printable, into buf. */
static void first_line(const char *s, char *buf, size_t len)
{
    size_t n;
    while (*s && isspace((unsigned char)*s))
        s++;
    n = strcspn(s, "\r\n");
    snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), s);
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
}

/* Starts path with the query, its own process group (so a timeout kills
 * whatever it started too), default signals and stdin from /dev/null. */
static int spawn(const char *path, int outfd, int errfd, pid_t *pid)
{
    char *const argv[] = { (char *)path, (char *)PROBE_NVIDIA_SMI_QUERY, (char *)PROBE_NVIDIA_SMI_FORMAT, NULL };
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t none, dfl;
    int rc;

    sigemptyset(&none);
    sigemptyset(&dfl);
    sigaddset(&dfl, SIGPIPE);
    sigaddset(&dfl, SIGCHLD);
    if (posix_spawn_file_actions_init(&fa) != 0)
        return ENOMEM;
    if (posix_spawnattr_init(&at) != 0) {
        posix_spawn_file_actions_destroy(&fa);
        return ENOMEM;
    }
    rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    rc = rc ? rc : posix_spawn_file_actions_adddup2(&fa, outfd, 1);
    rc = rc ? rc : posix_spawn_file_actions_adddup2(&fa, errfd, 2);
    rc = rc ? rc : posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    rc = rc ? rc : posix_spawnattr_setpgroup(&at, 0);
    rc = rc ? rc : posix_spawnattr_setsigmask(&at, &none);
    rc = rc ? rc : posix_spawnattr_setsigdefault(&at, &dfl);
    rc = rc ? rc : posix_spawn(pid, path, &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    return rc;
}

/* Runs path to its end or the deadline; *status is its wait status, or -1
 * when it was killed for running too long. */
static rd_code run_capture(const char *path, int timeout_ms, capture *c, int *status, rd_err *err)
{
    int outp[2], errp[2], open_fds = 2, st = 0;
    pid_t pid;
    long long deadline = rdtime_mono_ms() + timeout_ms;

    if (pipe2(outp, O_CLOEXEC) != 0)
        return rd_fail(err, RD_EINVAL, "nvidia-smi '%s' could not be run: %s", path, strerror(errno));
    if (pipe2(errp, O_CLOEXEC) != 0) {
        close(outp[0]);
        close(outp[1]);
        return rd_fail(err, RD_EINVAL, "nvidia-smi '%s' could not be run: %s", path, strerror(errno));
    }
    int rc = spawn(path, outp[1], errp[1], &pid);
    close(outp[1]);
    close(errp[1]);
    if (rc != 0) {
        close(outp[0]);
        close(errp[0]);
        return rd_fail(err, RD_EINVAL, "nvidia-smi '%s' could not be run: %s", path, strerror(rc));
    }
    struct pollfd pf[2] = { { outp[0], POLLIN, 0 }, { errp[0], POLLIN, 0 } };
    *status = -1;
    for (;;) {
        long long left = deadline - rdtime_mono_ms();
        if (open_fds == 0) {
            pid_t w = waitpid(pid, &st, WNOHANG);
            if (w == pid || (w < 0 && errno != EINTR)) {
                *status = w == pid ? st : 0;
                break;
            }
        }
        if (left <= 0) {
            kill(-pid, SIGKILL);
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
                ;
            break;
        }
        /* A poll that cannot work would leave us blind: end it as a timeout. */
        if (poll(pf, 2, open_fds ? (int)(left < 50 ? left : 50) : 0) < 0 && errno != EINTR) {
            deadline = 0;
            continue;
        }
        if (open_fds == 0) {
            struct timespec ts = { 0, 5 * 1000000 };
            nanosleep(&ts, NULL);
        }
        for (int i = 0; i < 2; i++) {
            if (pf[i].fd >= 0 && (pf[i].revents & (POLLIN | POLLHUP | POLLERR)) && !drain(pf[i].fd, i, c)) {
                close(pf[i].fd);
                pf[i].fd = -1;
                open_fds--;
            }
        }
    }
    for (int i = 0; i < 2; i++)
        if (pf[i].fd >= 0)
            close(pf[i].fd);
    return RD_OK;
}

/* ---- what an answer means ------------------------------------------------ */

static int contains_ci(const char *s, const char *word)
{
    size_t n = strlen(word);
    for (; *s; s++) {
        size_t i = 0;
        while (i < n && s[i] && tolower((unsigned char)s[i]) == word[i])
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

int probe_smi_says_lost(const char *line)
{
    /* NVML's words for a GPU the driver can no longer reach (nvidia-smi
     * exit status 15, NVML_ERROR_GPU_IS_LOST), and the kernel's for one
     * that left the PCIe bus. */
    return contains_ci(line, "gpu is lost") || contains_ci(line, "fallen off the bus") ||
           contains_ci(line, "unable to determine the device handle");
}

/* The GPU index a failure line names as "GPU 3: ..." or "GPU 3 ...", -1
 * when it names none or names it only by PCI address ("GPU 0000:3B:00.0"),
 * which the agent's query does not list; that GPU is then found as the one
 * missing from the rows. */
static int named_index(const char *line)
{
    for (const char *p = line; (p = strstr(p, "GPU ")) != NULL; p += 4) {
        const char *d = p + 4;
        size_t k = strspn(d, "0123456789");
        if (k == 0 || k > 4)
            continue;
        if (d[k] == '\0' || d[k] == ' ' || (d[k] == ':' && (d[k + 1] == ' ' || d[k + 1] == '\0')))
            return atoi(d);
    }
    return -1;
}

static void answer_line(char *t, int is_out, int line_no, probe_smi *res, probe_gpu **gpus, size_t *n,
                        size_t *cap, int *bad, rd_err *perr, int *nomem)
{
    int says_lost = probe_smi_says_lost(t);
    probe_gpu g;
    rd_err e;
    char copy[1024];

    if (says_lost) {
        int k = named_index(t);
        res->lost = 1;
        if (k >= 0 && k < PROBE_LOST_MAX)
            res->lost_index[k] = 1;
    }
    if (!is_out || strlen(t) >= sizeof copy) {
        if (!res->line[0] || (says_lost && !probe_smi_says_lost(res->line)))
            first_line(t, res->line, sizeof res->line);
        return;
    }
    snprintf(copy, sizeof copy, "%s", t);
    if (parse_line(copy, line_no, (int)*n, &g, &e) != RD_OK) {
        /* what a failing nvidia-smi says is its first line that is no row
         * (stderr's first); a line saying a GPU is lost says most */
        if (!res->line[0] || (says_lost && !probe_smi_says_lost(res->line)))
            first_line(t, res->line, sizeof res->line);
        if (!says_lost && !*bad) {
            *bad = 1;
            *perr = e;
        }
        return;
    }
    if (says_lost) {   /* a row whose readings say the GPU is gone */
        if (g.index < PROBE_LOST_MAX)
            res->lost_index[g.index] = 1;
        return;
    }
    if (grow_array(gpus, cap, *n + 1, sizeof **gpus) != 0) {
        *nomem = 1;
        return;
    }
    (*gpus)[(*n)++] = g;
}

rd_code probe_gpus_answer(const char *out, const char *errtext, int status, probe_gpu **gpus, size_t *count,
                          probe_smi *res, rd_err *err)
{
    probe_gpu *list = NULL;
    size_t n = 0, cap = 0;
    int bad = 0, nomem = 0;
    rd_err perr;
    char line[200];

    *gpus = NULL;
    *count = 0;
    memset(res, 0, sizeof *res);
    res->present = 1;
    res->status = status;
    res->lost = status == 15;
    rd_err_clear(&perr);
    for (int is_out = 0; is_out <= 1; is_out++) {
        char *copy = strdup(is_out ? (out ? out : "") : (errtext ? errtext : ""));
        if (!copy)
            return rd_fail(err, RD_ENOMEM, "out of memory reading nvidia-smi output");
        int line_no = 0;
        for (char *p = copy; *p && !nomem;) {
            char *nl = strchr(p, '\n'), *t = p;
            if (nl)
                *nl = '\0';
            line_no++;
            trim(&t);
            if (*t)
                answer_line(t, is_out, line_no, res, &list, &n, &cap, &bad, &perr, &nomem);
            p = nl ? nl + 1 : p + strlen(p);
        }
        free(copy);
    }
    if (nomem) {
        free(list);
        return rd_fail(err, RD_ENOMEM, "out of memory reading nvidia-smi output");
    }
    if (res->line[0])
        snprintf(line, sizeof line, "%s", res->line);
    else
        first_line(out ? out : "", line, sizeof line);
    if (status > 0)
        snprintf(res->detail, sizeof res->detail, "nvidia-smi failed with exit status %d: %s", status,
                 line[0] ? line : "(no output)");
    else if (status < 0)
        snprintf(res->detail, sizeof res->detail, "nvidia-smi did not answer: %s", line[0] ? line : "(no output)");
    else if (res->lost)
        snprintf(res->detail, sizeof res->detail, "nvidia-smi says a GPU is lost: %s", line);
    else if (bad)
        snprintf(res->detail, sizeof res->detail, "%s", perr.msg);
    res->answered = status == 0 && !bad && !res->lost;
    /* a failing run's rows count only when it failed over a lost GPU */
    if (!res->answered && !res->lost) {
        free(list);
        list = NULL;
        n = 0;
    }
    *gpus = list;
    *count = n;
    rd_err_clear(err);
    return RD_OK;
}

rd_code probe_gpus_query(const char *nvidia_smi, int timeout_ms, probe_gpu **out, size_t *count, probe_smi *res,
                         rd_err *err)
{
    const char *prog = nvidia_smi && *nvidia_smi ? nvidia_smi : getenv("RIGDECK_NVIDIA_SMI");
    char path[4096];
    capture c;
    int status = -1;
    rd_err e;
    rd_code rc;

    *out = NULL;
    *count = 0;
    memset(res, 0, sizeof *res);
    rd_err_clear(&e);
    if (!prog || !*prog)
        prog = "nvidia-smi";
    if (find_program(prog, path, sizeof path, &e) != RD_OK) {
        res->present = 1;
        res->status = -1;
        snprintf(res->detail, sizeof res->detail, "%s", e.msg);
        rd_err_clear(err);
        return RD_OK;
    }
    if (!path[0]) {
        rd_err_clear(err);
        return RD_OK;
    }
    memset(&c, 0, sizeof c);
    if (run_capture(path, timeout_ms, &c, &status, &e) != RD_OK) {
        free(c.out);
        res->present = 1;
        res->status = -1;
        snprintf(res->detail, sizeof res->detail, "%s", e.msg);
        rd_err_clear(err);
        return RD_OK;
    }
    if (status == -1 || c.too_much) {
        free(c.out);
        res->present = 1;
        res->status = -1;
        if (status == -1)
            snprintf(res->detail, sizeof res->detail, "nvidia-smi '%.200s' did not finish within %d ms and was killed",
                     path, timeout_ms);
        else
            snprintf(res->detail, sizeof res->detail, "nvidia-smi '%.200s' printed more than %u bytes", path, OUT_MAX);
        rd_err_clear(err);
        return RD_OK;
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    rc = probe_gpus_answer(c.out ? c.out : "", c.err, code, out, count, res, err);
    if (rc == RD_OK && code != 0) {
        char line[200];
        if (res->line[0])
            snprintf(line, sizeof line, "%s", res->line);
        else
            first_line(c.out ? c.out : "", line, sizeof line);
        if (code < 0)
            snprintf(res->detail, sizeof res->detail, "nvidia-smi '%.200s' was killed by signal %d: %s", path,
                     WIFSIGNALED(status) ? WTERMSIG(status) : 0, line[0] ? line : "(no output)");
        else
            snprintf(res->detail, sizeof res->detail, "nvidia-smi '%.200s' failed with exit status %d: %s", path, code,
                     line[0] ? line : "(no output)");
    }
    free(c.out);
    return rc;
}

rd_code probe_gpus_read_within(const char *nvidia_smi, int timeout_ms, probe_gpu **out, size_t *count,
                               int *present, rd_err *err)
{
    probe_smi res;
    rd_code rc = probe_gpus_query(nvidia_smi, timeout_ms, out, count, &res, err);

    *present = res.present;
    if (rc != RD_OK || !res.present || res.answered)
        return rc;
    free(*out);
    *out = NULL;
    *count = 0;
    return rd_fail(err, RD_EINVAL, "%s", res.detail);
}

rd_code probe_gpus_read(const char *nvidia_smi, probe_gpu **out, size_t *count, int *present, rd_err *err)
{
    return probe_gpus_read_within(nvidia_smi, PROBE_NVIDIA_SMI_TIMEOUT_MS, out, count, present, err);
}
