/* fuzz.h - what a fuzz target (tests/fuzz/fuzz_<parser>.c) and the driver
 * (driver.c) share.
 *
 * A target is one parser that takes outside input, behind libFuzzer's
 * entry point: LLVMFuzzerTestOneInput(data, size) runs one input and
 * returns 0; LLVMFuzzerInitialize runs once before the first.  The same
 * file therefore builds two ways:
 *   - with driver.c (the Makefile does this, into $BUILD/tests/test_fuzz_*):
 *     every seed of tests/fuzz/corpus/<parser>/, then a bounded number of
 *     deterministic mutations of them, so `make test` and `make asan` run it;
 *   - with clang -fsanitize=fuzzer,address,undefined and no driver.c, for a
 *     coverage-guided campaign of any length (tests/fuzz/README.md).
 * A target checks its parser's promises with FUZZ_CHECK: a broken one
 * aborts, and the driver prints the input that broke it.
 */
#ifndef RD_FUZZ_H
#define RD_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Words worth splicing into this target's inputs (NULL-terminated; the
 * driver adds numbers and bytes that break parsers of any kind). */
extern const char *const fuzz_target_dict[];

/* Directories of the repository's own fixtures whose files are seeds too,
 * besides tests/fuzz/corpus/<parser>/ (NULL-terminated; may be empty). */
extern const char *const fuzz_target_seed_dirs[];

/* How many mutated inputs the driver runs by default (a tenth of it under
 * RIGDECK_WRAP): a few seconds' worth on a busy machine. */
extern const unsigned long fuzz_target_runs;

#define FUZZ_CHECK(cond)                                                                                     \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            fprintf(stderr, "%s:%d: fuzz check failed: %s\n", __FILE__, __LINE__, #cond);                   \
            abort();                                                                                         \
        }                                                                                                    \
    } while (0)

/* A NUL-terminated copy of the input (malloc'd; aborts when out of memory):
 * most parsers here take C strings. */
static inline char *fuzz_strdup(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    for (size_t i = 0; i < size; i++)
        s[i] = (char)data[i];
    s[size] = '\0';
    return s;
}

#endif
