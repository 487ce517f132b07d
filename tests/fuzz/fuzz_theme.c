/* fuzz_theme.c - fuzz target (fuzz.h): console themes (`--theme NAME` or a
 * path, tui/console/theme.c) - YAML from any user's directory, laid over
 * themes/default.yaml.
 *
 * The input is written to a file and loaded by path, as the console does.
 * Promises checked: a theme always loads (problems are warnings, never a
 * refusal or a crash), every colour is the terminal's default, 0..255 or
 * RGB, and every attribute is a known bit, before and after NO_COLOR's
 * stripping. */
#include "fuzz.h"

#include <string.h>
#include <unistd.h>

#include "theme.h"

const char *const fuzz_target_seed_dirs[] = { "themes", NULL };

const unsigned long fuzz_target_runs = 2000;

const char *const fuzz_target_dict[] = {
    "palette:", "ui:", "states:", "name:", "description:", "fg:", "bg:", "attrs:", "[bold]", "[bold, underline]",
    "reverse", "dim", "italic", "standout", "header:", "row_selected:", "active:", "failed:", "default", "red",
    "bright-blue", "#5fafd7", "#fff", "#gggggg", "256", "-1", "accent", "\n  ", "\n    ", "{fg: accent}", NULL,
};

static char dir[256], path[300];

/* At exit: the input's file and its directory go. */
static void remove_file(void)
{
    unlink(path);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *base = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/rdfuzz.XXXXXX", base && *base ? base : "/tmp");
    FUZZ_CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/fuzz.yaml", dir);
    atexit(remove_file);
    return 0;
}

static void check_theme(const theme *t)
{
    const unsigned all = TH_A_BOLD | TH_A_UNDERLINE | TH_A_REVERSE | TH_A_DIM | TH_A_ITALIC | TH_A_STANDOUT;
    for (int e = 0; e < TH_COUNT; e++) {
        const theme_style *s = &t->style[e];
        FUZZ_CHECK(s->fg == THEME_DEFAULT || (s->fg >= 0 && s->fg <= 255) ||
                   (s->fg & ~0xffffff) == THEME_RGB);
        FUZZ_CHECK(s->bg == THEME_DEFAULT || (s->bg >= 0 && s->bg <= 255) ||
                   (s->bg & ~0xffffff) == THEME_RGB);
        FUZZ_CHECK((s->attrs & ~all) == 0);
        FUZZ_CHECK(theme_map_colour(s->fg, 8) >= THEME_DEFAULT && theme_map_colour(s->fg, 8) < 8);
        FUZZ_CHECK(theme_map_colour(s->bg, 256) >= THEME_DEFAULT && theme_map_colour(s->bg, 256) < 256);
    }
    for (size_t i = 0; i < t->nwarnings; i++)
        FUZZ_CHECK(t->warnings[i] != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    FUZZ_CHECK(f && fwrite(data, 1, size, f) == size && fclose(f) == 0);
    static const char *const dirs[] = { "themes", NULL };
    theme t;
    rd_err err;
    memset(&t, 0, sizeof t);
    rd_err_clear(&err);
    FUZZ_CHECK(theme_load(&t, path, dirs, &err) == RD_OK);
    check_theme(&t);
    theme_strip_colours(&t);
    check_theme(&t);
    theme_free(&t);
    return 0;
}
