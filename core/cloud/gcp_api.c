/* gcp_api.c - one authenticated Compute API call: the bearer token
 * (gcp_auth.c) on a plain HTTP exchange (gcp_http.c), with the retry policy.
 *
 * Retried with exponential backoff (and jitter, honouring a short
 * Retry-After): 429, 403 rateLimitExceeded, 5xx and answers that never came.
 * 401 is retried once with a fresh token.  Everything else is final and
 * classified so callers can act on it (another zone, give up, report).
 * It lives above both the token code and the transport so that neither of
 * those calls the other back: auth -> http, api -> auth and http.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcp_int.h"

#define BACKOFF_CAP_MS 16000L
#define RETRY_AFTER_CAP_S 30

/* ---- one API call ------------------------------------------------------ */

static long backoff_for(int attempt, long retry_after_s)
{
    long ms = gcp_backoff_ms() << (attempt < 8 ? attempt : 8);
    if (ms > BACKOFF_CAP_MS)
        ms = BACKOFF_CAP_MS;
    ms += ms > 0 ? rand() % (ms / 4 + 1) : 0;
    if (retry_after_s > 0 && retry_after_s <= RETRY_AFTER_CAP_S && retry_after_s * 1000 > ms)
        ms = retry_after_s * 1000;
    return ms;
}

rd_code gcp_api_call(gcp_client *c, const char *method, const char *url, const json_t *body, const char *what,
                     json_t **resp, gcp_fault *f, rd_err *err)
{
    gcp_fault local;
    char *text = NULL, *token = NULL, cerr[256];
    int refreshed = 0;
    rd_code rc;
    if (!f)
        f = &local;
    memset(f, 0, sizeof *f);
    f->limit = -1;
    if (resp)
        *resp = NULL;
    if ((rc = gcp_curl_ready(err)) != RD_OK)
        return rc;
    if (body && !(text = json_dumps(body, JSON_COMPACT)))
        return rd_fail(err, RD_ENOMEM, "out of memory");
    for (int attempt = 0;;) {
        char *answer = NULL, auth[4096 + 32];
        long status = 0, retry_after = -1;
        struct curl_slist *hdrs = NULL;
        if (!token && (rc = gcp_access_token(c, &token, f, err)) != RD_OK)
            break;
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
        hdrs = curl_slist_append(hdrs, auth);
        if (hdrs && text)
            hdrs = curl_slist_append(hdrs, "Content-Type: application/json");
        if (!hdrs) {
            rc = rd_fail(err, RD_ENOMEM, "out of memory");
            break;
        }
        rc = gcp_http_raw(c, method, url, hdrs, text, text ? strlen(text) : 0, &status, &answer, &retry_after, cerr,
                          err);
        curl_slist_free_all(hdrs);
        if (rc != RD_OK)
            break;
        json_t *doc = *answer ? json_loads(answer, 0, NULL) : json_object();
        free(answer);
        if (status >= 200 && status < 300) {
            if (!doc) {
                f->status = GCP_PROTOCOL;
                f->http = status;
                snprintf(f->detail, sizeof f->detail, "the answer is not JSON");
                rc = gcp_fail(c, what, f, err);
            } else if (resp) {
                *resp = doc;
                doc = NULL;
            }
            json_decref(doc);
            break;
        }
        if (status == 0) {
            memset(f, 0, sizeof *f);
            f->status = GCP_NETWORK;
            f->limit = -1;
            snprintf(f->detail, sizeof f->detail, "%s", cerr);
        } else {
            gcp_classify_http(status, doc, f);
        }
        json_decref(doc);
        if (status == 401 && !refreshed) {
            /* The token expired or was revoked: exactly one fresh one. */
            gcp_token_invalidate(c, token);
            free(token);
            token = NULL;
            refreshed = 1;
            continue;
        }
        if (f->status == GCP_UNAUTHENTICATED || !(f->status == GCP_RATE_LIMITED || f->status == GCP_UNAVAILABLE ||
                                                  f->status == GCP_NETWORK) ||
            ++attempt >= GCP_API_ATTEMPTS) {
            rc = gcp_fail(c, what, f, err);
            break;
        }
        gcp_sleep_ms(backoff_for(attempt - 1, retry_after));
    }
    if (token)
        memset(token, 0, strlen(token));
    free(token);
    free(text);
    return rc;
}
