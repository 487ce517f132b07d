/* testutil.h - small helpers shared by the cmocka test programs. */
#ifndef RD_TESTUTIL_H
#define RD_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

/* A fresh directory under $TMPDIR (or /tmp) for one test program; the path
 * is written into buf.  Removed by the test runner, not by the program. */
static inline void testutil_tmpdir(char *buf, size_t len)
{
    const char *base = getenv("TMPDIR");
    snprintf(buf, len, "%s/rdtest.XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(buf))
        fail_msg("mkdtemp %s failed", buf);
}

/* xorshift64: the same sequence on every run, for random test data. */
static inline uint64_t testutil_rng(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

#endif
