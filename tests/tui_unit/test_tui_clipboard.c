/* Unit tests of the clipboard bytes (tui/console/clipboard.c): base64 against RFC
 * 4648's vectors and a decoder of the test's own, the OSC 52 escape, tmux's
 * passthrough wrapping (every ESC doubled, ended by ESC \), which terminals
 * get which copies, the 100,000-byte cap, and the test record file. */
#include "testutil.h"

#include <sys/stat.h>

#include "clipboard.h"

static void test_base64_rfc4648_vectors(void **state)
{
    static const char *const vec[][2] = {
        { "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" },
        { "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" },
    };
    char out[64];
    (void)state;
    for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++) {
        clip_base64(vec[i][0], strlen(vec[i][0]), out);
        assert_string_equal(out, vec[i][1]);
        assert_int_equal(clip_base64_len(strlen(vec[i][0])), strlen(vec[i][1]));
    }
    /* the two last letters of the alphabet, and bytes above 0x7f */
    const unsigned char hi[] = { 0xfb, 0xff, 0xbf, 0xfe };
    clip_base64(hi, sizeof hi, out);
    assert_string_equal(out, "+/+//g==");
}

static int b64_value(char ch)
{
    const char *alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *p = strchr(alphabet, ch);
    return ch && p ? (int)(p - alphabet) : -1;
}

/* Decodes what clip_base64 wrote; returns the byte count. */
static size_t b64_decode(const char *in, unsigned char *out)
{
    size_t n = 0, len = strlen(in);
    assert_int_equal(len % 4, 0);
    for (size_t i = 0; i < len; i += 4) {
        int v[4];
        for (int k = 0; k < 4; k++)
            v[k] = in[i + k] == '=' ? 0 : b64_value(in[i + k]);
        for (int k = 0; k < 4; k++)
            assert_true(v[k] >= 0);
        unsigned long w = (unsigned long)v[0] << 18 | (unsigned long)v[1] << 12 | (unsigned long)v[2] << 6 | (unsigned long)v[3];
        out[n++] = (unsigned char)(w >> 16);
        if (in[i + 2] != '=')
            out[n++] = (unsigned char)(w >> 8);
        if (in[i + 3] != '=')
            out[n++] = (unsigned char)w;
    }
    return n;
}

static void test_base64_round_trip(void **state)
{
    uint64_t rng = 0x52c0ffee;
    unsigned char in[300], back[300];
    char enc[404];
    (void)state;
    for (size_t len = 0; len < sizeof in; len++) {
        for (size_t i = 0; i < len; i++)
            in[i] = (unsigned char)testutil_rng(&rng);
        clip_base64(in, len, enc);
        assert_int_equal(strlen(enc), clip_base64_len(len));
        assert_int_equal(b64_decode(enc, back), len);
        assert_memory_equal(in, back, len);
    }
}

static void test_osc52_escape(void **state)
{
    (void)state;
    char *seq = clip_osc52("gpu-07", 6);
    /* ESC ] 52 ; c ; base64("gpu-07") BEL */
    assert_string_equal(seq, "\033]52;c;Z3B1LTA3\007");
    free(seq);
    seq = clip_osc52("", 0);
    assert_string_equal(seq, "\033]52;c;\007");
    free(seq);
}

static void test_tmux_wrap_doubles_every_esc(void **state)
{
    (void)state;
    char *w = clip_tmux_wrap("\033]52;c;Z3B1LTA3\007");
    assert_string_equal(w, "\033Ptmux;\033\033]52;c;Z3B1LTA3\007\033\\");
    free(w);
    w = clip_tmux_wrap("a\033b\033\033c");
    assert_string_equal(w, "\033Ptmux;a\033\033b\033\033\033\033c\033\\");
    free(w);
}

static void test_target_from_environment(void **state)
{
    (void)state;
    clip_target t = clip_target_of(NULL, NULL);
    assert_false(t.tmux);
    assert_true(t.terminal);
    t = clip_target_of("", "xterm-256color");
    assert_false(t.tmux);
    assert_true(t.terminal);
    t = clip_target_of("/tmp/tmux-0/default,1234,0", "tmux-256color");
    assert_true(t.tmux);
    assert_true(t.terminal);
    t = clip_target_of("/tmp/tmux-0/default,1234,0", "screen");
    assert_true(t.tmux);
    /* the Linux console would print the base64 over the screen */
    assert_false(clip_target_of(NULL, "linux").terminal);
    assert_false(clip_target_of(NULL, "linux-16color").terminal);
    assert_false(clip_target_of(NULL, "dumb").terminal);
}

static void test_sequence_plain_and_under_tmux(void **state)
{
    char why[160];
    size_t len;
    (void)state;
    clip_target plain = { 0, 1 }, tmux = { 1, 1 };
    char *s = clip_sequence("job-1f2e", plain, &len, why, sizeof why);
    assert_non_null(s);
    assert_string_equal(s, "\033]52;c;am9iLTFmMmU=\007");
    assert_int_equal(len, strlen(s));
    free(s);
    /* tmux: as it is (set-clipboard on), then through the passthrough
     * (allow-passthrough on) */
    s = clip_sequence("job-1f2e", tmux, &len, why, sizeof why);
    assert_non_null(s);
    assert_string_equal(s, "\033]52;c;am9iLTFmMmU=\007\033Ptmux;\033\033]52;c;am9iLTFmMmU=\007\033\\");
    assert_int_equal(len, strlen(s));
    free(s);
}

static void test_size_cap(void **state)
{
    char why[160] = "";
    size_t len;
    (void)state;
    clip_target plain = { 0, 1 };
    char *text = malloc(CLIP_MAX_TEXT + 2);
    memset(text, 'x', CLIP_MAX_TEXT);
    text[CLIP_MAX_TEXT] = '\0';
    char *s = clip_sequence(text, plain, &len, why, sizeof why);
    assert_non_null(s);
    /* the largest copy is exactly hterm's 100,000-byte limit */
    assert_int_equal(len, CLIP_MAX_SEQUENCE);
    free(s);
    text[CLIP_MAX_TEXT] = 'x';
    text[CLIP_MAX_TEXT + 1] = '\0';
    s = clip_sequence(text, plain, &len, why, sizeof why);
    assert_null(s);
    assert_int_equal(len, 0);
    assert_non_null(strstr(why, "74995 bytes"));
    free(text);
}

static void test_control_characters_refused(void **state)
{
    char why[160] = "";
    size_t len;
    (void)state;
    clip_target plain = { 0, 1 };
    assert_null(clip_sequence("gpu-07\nrm -rf /", plain, &len, why, sizeof why));
    assert_non_null(strstr(why, "control character"));
    assert_null(clip_sequence("a\033]0;x\007", plain, &len, why, sizeof why));
    char *s = clip_sequence("caf\xc3\xa9 \t x", plain, &len, why, sizeof why);   /* UTF-8 and a tab are text */
    assert_non_null(s);
    free(s);
}

static void test_record_appends_lines(void **state)
{
    char dir[256], path[300], buf[64] = "";
    struct stat st;
    (void)state;
    testutil_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/clip", dir);
    assert_int_equal(clip_record(path, "job-1f2e"), 0);
    assert_int_equal(clip_record(path, "gpu-07"), 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    assert_string_equal(buf, "job-1f2e\ngpu-07\n");
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    snprintf(path, sizeof path, "%s/no/such/dir", dir);
    assert_int_not_equal(clip_record(path, "x"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_base64_rfc4648_vectors),
        cmocka_unit_test(test_base64_round_trip),
        cmocka_unit_test(test_osc52_escape),
        cmocka_unit_test(test_tmux_wrap_doubles_every_esc),
        cmocka_unit_test(test_target_from_environment),
        cmocka_unit_test(test_sequence_plain_and_under_tmux),
        cmocka_unit_test(test_size_cap),
        cmocka_unit_test(test_control_characters_refused),
        cmocka_unit_test(test_record_appends_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
