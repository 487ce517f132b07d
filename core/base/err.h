/* err.h - the status every core call returns.
 *
 * A core function returns an rd_code and, on failure, fills an rd_err with a
 * one-line human message that names the field and the rule.  The code decides
 * the batch exit status (see spec/commands.md): refusals exit 1, usage errors
 * exit 2, an unreachable store exits 3.
 */
#ifndef RD_ERR_H
#define RD_ERR_H

typedef enum {
    RD_OK = 0,
    RD_EINVAL,      /* bad input: a field broke a rule            -> exit 1 */
    RD_ENOTFOUND,   /* the named object does not exist            -> exit 1 */
    RD_EEXISTS,     /* an object with that name exists already    -> exit 1 */
    RD_EPERM,       /* the acting account may not do this         -> exit 1 */
    RD_ECONFLICT,   /* a concurrent change won; retries exhausted -> exit 1 */
    RD_ECORRUPT,    /* stored data broke an invariant             -> exit 1 */
    RD_EUSAGE,      /* unknown command or option, wrong arity     -> exit 2 */
    RD_ESTORE,      /* the store could not be reached or opened   -> exit 3 */
    RD_ENOMEM       /* out of memory                              -> exit 3 */
} rd_code;

typedef struct {
    rd_code code;
    char msg[512];
} rd_err;

/* Records code and a printf-style message in err (if err is non-NULL);
 * returns code so callers can write `return rd_fail(err, RD_EINVAL, ...)`. */
rd_code rd_fail(rd_err *err, rd_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Clears err to RD_OK with an empty message. */
void rd_err_clear(rd_err *err);

/* The stable lower-case word for a code, used as JSON "error.code". */
const char *rd_code_name(rd_code code);

/* The batch exit status that a failure with this code produces (0..3). */
int rd_code_exit_status(rd_code code);

#endif
