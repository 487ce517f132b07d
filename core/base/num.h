/* num.h - exact parsing of the numbers operators type: whole numbers,
 * credits (to integer micro-credits) and GPU fractions (to hundredths).
 * No floating point: "12.5" credits is exactly 12500000 µcr. */
#ifndef RD_NUM_H
#define RD_NUM_H

#include <stdint.h>

#include "err.h"

#define NUM_UCR_PER_CREDIT 1000000LL

/* A whole decimal number in [min, max]; field names it in the message. */
rd_code num_parse_int(const char *field, const char *text, int64_t min, int64_t max, int64_t *out, rd_err *err);

/* Credits with up to 6 decimals ("100", "12.5", "0.000001") into µcr, in
 * [min_ucr, max_ucr].  More decimals, signs where min_ucr >= 0, exponents
 * and junk are refused. */
rd_code num_parse_credits(const char *field, const char *text, int64_t min_ucr, int64_t max_ucr, int64_t *out,
                          rd_err *err);

/* A decimal with up to `places` decimals as an integer scaled by 10^places
 * ("0.25" with 2 places is 25), in [min, max] (scaled). */
rd_code num_parse_fixed(const char *field, const char *text, int places, int64_t min, int64_t max, int64_t *out,
                        rd_err *err);

#define NUM_CREDITS_BUFLEN 32

/* Formats µcr as credits the way operators write prices: at least two
 * decimals, no trailing zeros beyond them ("2.50", "0.125", "1.265"). */
char *num_format_credits(int64_t ucr, char buf[NUM_CREDITS_BUFLEN]);

#endif
