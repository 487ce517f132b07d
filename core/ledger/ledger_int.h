/* ledger_int.h - what ledger.c and ledger_verify.c share (not an API). */
#ifndef RD_LEDGER_INT_H
#define RD_LEDGER_INT_H

/* The four running sums of a ledger account document, in this order. */
enum { SUM_DEBITS_POSTED, SUM_CREDITS_POSTED, SUM_DEBITS_PENDING, SUM_CREDITS_PENDING, SUM_COUNT };

/* Their member names: "debits_posted_ucr", ... */
extern const char *const ledger_sum_fields[SUM_COUNT];

#endif
