/* gcp_int.h - what gcp.c, gcp_auth.c and gcp_http.c share (not an API). */
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

/* One HTTP exchange, no retries: *status 0 and curl's message in cerr (256
 * bytes) when no answer came.  headers may be NULL.  *resp is the body
 * (NUL-terminated, malloc'd, possibly empty); *retry_after_s the
 * Retry-After header (-1 when absent). */
rd_code gcp_http_raw(gcp_client *c, const char *method, const char *url, struct curl_slist *headers,
                     const char *body, size_t body_len, long *status, char **resp, long *retry_after_s,
                     char cerr[256], rd_err *err);

/* One Compute API call with a bearer token, retries and backoff (429, 5xx,
 * network), and one token refresh on 401.  body may be NULL (no body).
 * what names the call for messages ("instances.insert rigdeck-x in
 * us-central1-a").  *resp (may be NULL) gets the parsed answer. */
rd_code gcp_api_call(gcp_client *c, const char *method, const char *url, const json_t *body, const char *what,
                     json_t **resp, gcp_fault *f, rd_err *err);

/* Drops the cached token of c's key when it is still `bad`. */
void gcp_token_invalidate(gcp_client *c, const char *bad);

/* Fills err (and maps the fault to an rd_code) for a failed call. */
rd_code gcp_fail(gcp_client *c, const char *what, const gcp_fault *f, rd_err *err);

/* Makes sure libcurl is initialised (once per process). */
rd_code gcp_curl_ready(rd_err *err);

#endif
