/* gcp_int.h - what the GCP files share (not an API).
 *
 * The files call one another one way only:
 *   gcp.c -> gcp_api.c -> gcp_auth.c -> gcp_http.c   (and gcp.c -> gcp_key.c)
 * with gcp.c and gcp_api.c also using gcp_http.c directly.  Each group
 * below names the file that owns it. */
#ifndef RD_GCP_INT_H
#define RD_GCP_INT_H

#include <curl/curl.h>

#include "gcp.h"

struct gcp_client {
    gcp_sa_key key;
    char *endpoint;       /* Compute API base URL, no trailing '/' */
    char label[128];      /* "gcp us-central1" */
    CURL *curl;
};

/* Attempts of one API call (gcp_api.c) before a transient failure is
 * final; the messages of gcp_fault_text() quote it. */
#define GCP_API_ATTEMPTS 5

/* ---- gcp_http.c: plain HTTP, no token -------------------------------- */

/* One HTTP exchange, no retries: *status 0 and curl's message in cerr (256
 * bytes) when no answer came.  headers may be NULL.  *resp is the body
 * (NUL-terminated, malloc'd, possibly empty); *retry_after_s the
 * Retry-After header (-1 when absent). */
rd_code gcp_http_raw(gcp_client *c, const char *method, const char *url, struct curl_slist *headers,
                     const char *body, size_t body_len, long *status, char **resp, long *retry_after_s,
                     char cerr[256], rd_err *err);

/* Fills err (and maps the fault to an rd_code) for a failed call. */
rd_code gcp_fail(gcp_client *c, const char *what, const gcp_fault *f, rd_err *err);

/* Makes sure libcurl is initialised (once per process). */
rd_code gcp_curl_ready(rd_err *err);

/* ---- gcp_api.c: the authenticated call ------------------------------- */

/* One Compute API call with a bearer token, retries and backoff (429, 5xx,
 * network), and one token refresh on 401.  body may be NULL (no body).
 * what names the call for messages ("instances.insert rigdeck-x in
 * us-central1-a").  *resp (may be NULL) gets the parsed answer. */
rd_code gcp_api_call(gcp_client *c, const char *method, const char *url, const json_t *body, const char *what,
                     json_t **resp, gcp_fault *f, rd_err *err);

/* ---- gcp_auth.c: tokens (gcp_access_token is in gcp.h) --------------- */

/* Drops the cached token of c's key when it is still `bad`. */
void gcp_token_invalidate(gcp_client *c, const char *bad);

#endif
