/* driver.c - the driver every fuzz target is linked with for `make test`
 * and `make asan` (fuzz.h): runs each seed of the target's corpus, then a
 * bounded number of mutations of them from a seeded PRNG, so a run is the
 * same inputs in the same order on every machine.
 *
 *   test_fuzz_X              the corpus (tests/fuzz/corpus/X/ and the
 *                            target's fixture directories) and
 *                            RIGDECK_FUZZ_RUNS mutations (default the
 *                            target's fuzz_target_runs, a tenth of it
 *                            under RIGDECK_WRAP, i.e. valgrind)
 *   test_fuzz_X FILE...      just these inputs (reproducing a crash)
 *
 * RIGDECK_FUZZ_SEED picks another sequence of mutations; RIGDECK_FUZZ_CORPUS
 * another seed directory.  An input that crashes, trips a sanitizer, fails
 * a FUZZ_CHECK or runs past the time limit is written to
 * $RIGDECK_FUZZ_SAVE (default $TMPDIR, else /tmp) as fuzz-crash-X, and its
 * first bytes are printed.  Output is cmocka's summary lines, which
 * tests/run.sh counts.
 */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

#ifndef FUZZ_NAME
#define FUZZ_NAME "target"
#endif
#ifndef FUZZ_CORPUS
#define FUZZ_CORPUS "tests/fuzz/corpus/" FUZZ_NAME
#endif

enum { INPUT_MAX_LEN = 1 << 16, SEEDS_MAX = 512, TIMEOUT_S = 30, WRAP_TIMEOUT_S = 300 };

typedef struct {
    uint8_t *data;
    size_t len;
    char name[256];
} seed;

static seed seeds[SEEDS_MAX];
static size_t nseeds;

/* The input being run, for the crash report (read by a signal handler). */
static const uint8_t *cur_data;
static size_t cur_len;
static char cur_what[512];
static char save_path[1024];

/* ---- the crash report (async-signal-safe: write(2) only) --------------------- */

static void put(const char *s)
{
    ssize_t w = write(2, s, strlen(s));
    (void)w;
}

static void report_crash(const char *why)
{
    static const char hex[] = "0123456789abcdef";
    char line[4 * 512 + 8];
    size_t n = 0;
    if (!cur_data)
        return;
    put("\nfuzz: ");
    put(FUZZ_NAME);
    put(": ");
    put(why);
    put(" on ");
    put(cur_what);
    put("\n");
    int fd = open(save_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) {
        ssize_t w = write(fd, cur_data, cur_len);
        (void)w;
        close(fd);
        put("fuzz: the input is saved in ");
        put(save_path);
        put(" (run the program with that file to repeat it)\n");
    }
    put("fuzz: its first bytes: \"");
    for (size_t i = 0; i < cur_len && i < 512; i++) {
        unsigned char c = cur_data[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            line[n++] = (char)c;
        } else {
            line[n++] = '\\';
            line[n++] = 'x';
            line[n++] = hex[c >> 4];
            line[n++] = hex[c & 15];
        }
    }
    line[n] = '\0';
    put(line);
    put(cur_len > 512 ? "\"...\n" : "\"\n");
    cur_data = NULL;
}

static void on_signal(int sig)
{
    report_crash(sig == SIGALRM ? "time limit passed (a hang?)" : strsignal(sig));
    signal(sig, SIG_DFL);
    if (sig == SIGALRM)
        sig = SIGABRT;
    raise(sig);
}

#if defined(__SANITIZE_ADDRESS__)
static void on_sanitizer_death(void)
{
    report_crash("a sanitizer stopped it");
}
#endif

/* ---- the corpus -------------------------------------------------------------- */

static int read_file(const char *path, seed *s)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    s->data = malloc(INPUT_MAX_LEN);
    if (!s->data) {
        fclose(f);
        return -1;
    }
    s->len = fread(s->data, 1, INPUT_MAX_LEN, f);
    fclose(f);
    snprintf(s->name, sizeof s->name, "%s", path);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const seed *)a)->name, ((const seed *)b)->name);
}

static size_t load_corpus(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    if (!d)
        return 0;
    while ((de = readdir(d)) != NULL && nseeds < SEEDS_MAX) {
        char path[1024];
        struct stat st;
        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && read_file(path, &seeds[nseeds]) == 0)
            nseeds++;
    }
    closedir(d);
    return nseeds;
}

/* ---- mutations ------------------------------------------------------------------ */

static uint64_t rng_state;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static size_t below(size_t n)
{
    return n ? (size_t)(rnd() % n) : 0;
}

/* Values that break parsers: the ends of every integer width, numbers a
 * double cannot hold or an int64 sum of two overflows (9e16 hundredths),
 * NaN and infinity spelled the ways parsers accept, and bytes that end or
 * split strings, lines, fields and documents. */
static const char *const common_dict[] = {
    "0", "-1", "-0", "1", "127", "128", "255", "256", "-128", "32767", "65535", "65536", "2147483647",
    "-2147483648", "4294967295", "4294967296", "9223372036854775807", "-9223372036854775808",
    "9223372036854775808", "18446744073709551615", "18446744073709551616", "99999999999999999999999",
    "9e16", "9e18", "1e308", "1e309", "-1e308", "4.9e-324", "1e-400", "0.1", "0.5", "0.005", "1.7976931348623157e308",
    "NaN", "nan", "-nan", "inf", "-inf", "Infinity", ".inf", ".nan", "0x7fffffffffffffff", "0x", "1e", "1.",
    "", "\n", "\r\n", "\r", "\t", " ", ",", ":", ";", "=", "\"", "'", "\\", "\\0", "\\u0000", "%s%s%n", "%",
    "{", "}", "[", "]", "[[[[[[[[[[[[[[[[", "{}", "[]", "null", "true", "false", "~", "-", "- ", "---", "...",
    "&a", "*a", "!!binary", "!!int", "<<", "|", ">", "#", "\xff", "\xfe\xff", "\xc3\xa9", "\xe2\x80\xae",
    "\xf0\x9f\x98\x80", "\xc0\x80",
};

static const char *dict_word(void)
{
    size_t nt = 0, nc = sizeof common_dict / sizeof common_dict[0];
    while (fuzz_target_dict[nt])
        nt++;
    size_t i = below(nc + 2 * nt);   /* the target's words twice as often */
    return i < nc ? common_dict[i] : fuzz_target_dict[(i - nc) % nt];
}

static void insert(uint8_t *buf, size_t *len, size_t at, const uint8_t *what, size_t n)
{
    if (*len + n > INPUT_MAX_LEN)
        n = INPUT_MAX_LEN - *len;
    memmove(buf + at + n, buf + at, *len - at);
    memcpy(buf + at, what, n);
    *len += n;
}

static void erase(uint8_t *buf, size_t *len, size_t at, size_t n)
{
    if (at + n > *len)
        n = *len - at;
    memmove(buf + at, buf + at + n, *len - at - n);
    *len -= n;
}

/* The extent [*at, *at + *n) of the number (digits, sign, point, exponent)
 * around a random digit of buf; 0 when buf has no digit. */
static int find_number(const uint8_t *buf, size_t len, size_t *at, size_t *n)
{
    size_t start = below(len);
    for (size_t k = 0; k < len; k++) {
        size_t i = (start + k) % len;
        if (buf[i] < '0' || buf[i] > '9')
            continue;
        size_t a = i, b = i;
        while (a > 0 && strchr("0123456789.-+eE", buf[a - 1]) && buf[a - 1])
            a--;
        while (b < len && strchr("0123456789.-+eE", buf[b]) && buf[b])
            b++;
        *at = a;
        *n = b - a;
        return 1;
    }
    return 0;
}

static void mutate_once(uint8_t *buf, size_t *len)
{
    size_t at = below(*len + 1), n;
    switch (below(11)) {
    case 0: /* flip a bit */
        if (*len)
            buf[below(*len)] ^= (uint8_t)(1u << below(8));
        break;
    case 1: /* set a byte, often to one that matters */
        if (*len) {
            static const uint8_t special[] = { 0, '\n', '"', '\'', '\\', ',', ':', 0x7f, 0x80, 0xff };
            buf[below(*len)] = below(2) ? special[below(sizeof special)] : (uint8_t)rnd();
        }
        break;
    case 2: { /* insert random bytes */
        uint8_t r[8];
        n = 1 + below(sizeof r);
        for (size_t i = 0; i < n; i++)
            r[i] = (uint8_t)rnd();
        insert(buf, len, at, r, n);
        break;
    }
    case 3: /* delete a range */
        if (*len)
            erase(buf, len, below(*len), 1 + below(*len < 16 ? *len : 16));
        break;
    case 4: /* repeat a chunk many times: long fields, deep nesting, many lines */
        if (*len) {
            size_t from = below(*len), cn = 1 + below(*len - from < 64 ? *len - from : 64);
            uint8_t chunk[64];
            memcpy(chunk, buf + from, cn);
            for (size_t times = 1 + below(below(2) ? 8 : 2000); times-- && *len + cn <= INPUT_MAX_LEN;)
                insert(buf, len, from, chunk, cn);
        }
        break;
    case 5: { /* splice: this input's head, another seed's tail */
        const seed *o = &seeds[below(nseeds)];
        size_t from = below(o->len + 1);
        *len = at;
        insert(buf, len, at, o->data + from, o->len - from);
        break;
    }
    case 6:
    case 7: { /* a number becomes one that breaks things */
        const char *w = dict_word();
        if (find_number(buf, *len, &at, &n))
            erase(buf, len, at, n);
        insert(buf, len, at, (const uint8_t *)w, strlen(w));
        break;
    }
    case 8: { /* a word of the dictionary anywhere */
        const char *w = dict_word();
        insert(buf, len, at, (const uint8_t *)w, strlen(w));
        break;
    }
    case 9: /* cut short */
        *len = at;
        break;
    default: { /* a whole line of this input copied elsewhere (a sample twice in a minute) */
        size_t s = below(*len + 1), e;
        while (s > 0 && buf[s - 1] != '\n')
            s--;
        for (e = s; e < *len && buf[e] != '\n'; e++)
            ;
        if (e < *len)
            e++;
        uint8_t tmp[4096];
        n = e - s < sizeof tmp ? e - s : sizeof tmp;
        memcpy(tmp, buf + s, n);
        insert(buf, len, below(2) ? e : s, tmp, n);
        break;
    }
    }
}

/* ---- running ------------------------------------------------------------------- */

/* Runs one input from a buffer of exactly its size, so that AddressSanitizer
 * sees a parser that reads one byte past the end. */
static void run_one(const uint8_t *data, size_t len, unsigned timeout_s)
{
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy)
        abort();
    memcpy(copy, data, len);
    cur_data = copy;
    cur_len = len;
    alarm(timeout_s);
    LLVMFuzzerTestOneInput(copy, len);
    alarm(0);
    cur_data = NULL;
    free(copy);
}

static unsigned long env_num(const char *name, unsigned long dflt)
{
    const char *v = getenv(name);
    char *end;
    if (!v || !*v)
        return dflt;
    errno = 0;
    unsigned long n = strtoul(v, &end, 10);
    return errno || *end ? dflt : n;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    int wrapped = getenv("RIGDECK_WRAP") && *getenv("RIGDECK_WRAP");
    unsigned long runs = env_num("RIGDECK_FUZZ_RUNS", wrapped ? fuzz_target_runs / 10 : fuzz_target_runs);
    unsigned timeout_s = wrapped ? WRAP_TIMEOUT_S : TIMEOUT_S;
    const char *save = getenv("RIGDECK_FUZZ_SAVE");
    const char *tmp = getenv("TMPDIR");

    snprintf(save_path, sizeof save_path, "%s/fuzz-crash-%s", save && *save ? save : tmp && *tmp ? tmp : "/tmp",
             FUZZ_NAME);
    static const int sigs[] = { SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGALRM };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], on_signal);
    signal(SIGPIPE, SIG_IGN);
#if defined(__SANITIZE_ADDRESS__)
    __sanitizer_set_death_callback(on_sanitizer_death);
#endif
    LLVMFuzzerInitialize(&argc, &argv);

    if (argc > 1) {   /* just the files given */
        printf("[==========] Running %d test(s).\n", argc - 1);
        for (int i = 1; i < argc; i++) {
            seed s;
            printf("[ RUN      ] %s\n", argv[i]);
            if (read_file(argv[i], &s) != 0) {
                printf("[  FAILED  ] 1 test(s), listed below:\n[  FAILED  ] %s: cannot read it\n", argv[i]);
                return 1;
            }
            snprintf(cur_what, sizeof cur_what, "%s", argv[i]);
            run_one(s.data, s.len, timeout_s);
            free(s.data);
            printf("[       OK ] %s\n", argv[i]);
        }
        printf("[==========] %d test(s) run.\n[  PASSED  ] %d test(s).\n", argc - 1, argc - 1);
        return 0;
    }

    const char *dir = getenv("RIGDECK_FUZZ_CORPUS");
    dir = dir && *dir ? dir : FUZZ_CORPUS;
    printf("[==========] Running 2 test(s).\n[ RUN      ] seeds\n");
    fflush(stdout);
    load_corpus(dir);
    if (!getenv("RIGDECK_FUZZ_CORPUS") || !*getenv("RIGDECK_FUZZ_CORPUS"))
        for (const char *const *d = fuzz_target_seed_dirs; *d; d++)
            load_corpus(*d);
    qsort(seeds, nseeds, sizeof seeds[0], by_name);   /* readdir's order is the filesystem's */
    if (nseeds == 0) {
        printf("[  FAILED  ] 1 test(s), listed below:\n[  FAILED  ] seeds: no seed files in %s\n", dir);
        return 1;
    }
    double t0 = now_s();
    for (size_t i = 0; i < nseeds; i++) {
        snprintf(cur_what, sizeof cur_what, "seed %s", seeds[i].name);
        run_one(seeds[i].data, seeds[i].len, timeout_s);
    }
    printf("[       OK ] seeds (%zu inputs)\n[ RUN      ] mutations\n", nseeds);
    fflush(stdout);

    /* The target's name in the seed: each target its own sequence. */
    rng_state = env_num("RIGDECK_FUZZ_SEED", 1) * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
    for (const char *p = FUZZ_NAME; *p; p++)
        rng_state = (rng_state ^ (uint8_t)*p) * 0x100000001b3ull;
    if (!rng_state)
        rng_state = 1;
    uint8_t *buf = malloc(INPUT_MAX_LEN);
    if (!buf)
        return 1;
    for (unsigned long r = 0; r < runs; r++) {
        const seed *s = &seeds[r % nseeds];
        size_t len = s->len;
        memcpy(buf, s->data, len);
        for (size_t k = 1 + below(4); k--;)
            mutate_once(buf, &len);
        snprintf(cur_what, sizeof cur_what, "mutation %lu of seed %s (RIGDECK_FUZZ_SEED=%lu)", r, s->name,
                 env_num("RIGDECK_FUZZ_SEED", 1));
        run_one(buf, len, timeout_s);
    }
    free(buf);
    printf("[       OK ] mutations (%lu inputs, %.1f s in all)\n", runs, now_s() - t0);
    printf("[==========] 2 test(s) run.\n[  PASSED  ] 2 test(s).\n");
    for (size_t i = 0; i < nseeds; i++)
        free(seeds[i].data);
    return 0;
}
