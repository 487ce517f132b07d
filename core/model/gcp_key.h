/* gcp_key.h - Google Cloud service-account key files (the JSON that the GCP
 * console downloads), checked before rigdeck seals and stores one.
 *
 * Messages say what is wrong with the file and never quote the key
 * material.
 */
#ifndef RD_GCP_KEY_H
#define RD_GCP_KEY_H

#include <stddef.h>

#include "err.h"

#define GCP_KEY_DEFAULT_TOKEN_URI "https://oauth2.googleapis.com/token"

typedef struct {
    char *project_id;
    char *client_email;
    char *private_key_id; /* "" when the file has none */
    char *private_key;    /* the PEM text, as in the file */
    char *token_uri;      /* GCP_KEY_DEFAULT_TOKEN_URI when the file has none */
} gcp_sa_key;

/* Parses and checks a key file: JSON object with "type": "service_account",
 * a non-empty project_id, an email-shaped client_email, a private_key that
 * OpenSSL loads as an unencrypted RSA private key, and a token_uri that is
 * https:// (or http:// to 127.0.0.1 / [::1] / localhost, for test servers)
 * with no user name or password, its host as libcurl reads it.  On
 * success *out owns copies of the fields (gcp_key_free); on failure *out is
 * all NULL. */
rd_code gcp_key_parse(const char *text, size_t len, gcp_sa_key *out, rd_err *err);

/* Frees the fields (wiping the private key first) and NULLs them; k may be
 * already freed or zeroed. */
void gcp_key_free(gcp_sa_key *k);

#endif
