/* secret.h - secrets (cloud keys, SMB passwords, third-party keys) sealed
 * with the admin host's master key before they reach the store.
 *
 * The master key file holds the 32-byte key as 64 hexadecimal characters,
 * optionally followed by one newline (text, so it can be copied between
 * admin hosts by any means), mode 0600.  A sealed secret is the text
 *     rdsec1:<fingerprint: 16 hex>:<base64(nonce[12] || ciphertext || tag[16])>
 * made with AES-256-GCM; the fingerprint (first 8 bytes of SHA-256 of the
 * key) tells a wrong key apart from a damaged secret.
 */
#ifndef RD_SECRET_H
#define RD_SECRET_H

#include <stddef.h>

#include "err.h"

#define SECRET_KEY_LEN 32
#define SECRET_MAX_PLAIN (1024 * 1024)

/* Writes the master key file path into buf: override when non-empty (from
 * --master-key or RIGDECK_MASTER_KEY, read by the caller), else
 * $XDG_CONFIG_HOME/rigdeck/master.key, else $HOME/.config/rigdeck/master.key. */
rd_code secret_master_key_path(const char *override, char *buf, size_t len, rd_err *err);

/* Loads the key at path into key.  create=1 makes a new random key (parent
 * directories 0700, file 0600) if none exists, safely against a concurrent
 * creator (both end up with the same key).  Refuses files that are not 64
 * hex characters or that group/others may access.  A missing file with
 * create=0 is RD_EINVAL telling the operator to copy the key here. */
rd_code secret_master_key_load(const char *path, int create, unsigned char key[SECRET_KEY_LEN], rd_err *err);

/* Seals len bytes of plain into a new NUL-terminated text in *sealed (free
 * it); plain may contain any bytes; at most SECRET_MAX_PLAIN. */
rd_code secret_seal(const unsigned char key[SECRET_KEY_LEN], const char *plain, size_t len, char **sealed,
                    rd_err *err);

/* Opens a sealed text: *plain (free it; NUL-terminated for convenience) and
 * *len.  A different key is RD_EINVAL naming both fingerprints; any damage
 * or tampering is RD_ECORRUPT and yields no plaintext at all. */
rd_code secret_open(const unsigned char key[SECRET_KEY_LEN], const char *sealed, char **plain, size_t *len,
                    rd_err *err);

/* A secret derived from the key and label: the hex of HMAC-SHA256(key,
 * label), the same for the same label and key, and nothing of the key
 * follows from it (a cloud node's store password, cloud_agent.c). */
#define SECRET_DERIVED_HEX 64
rd_code secret_derive(const unsigned char key[SECRET_KEY_LEN], const char *label, char out[SECRET_DERIVED_HEX + 1],
                      rd_err *err);

/* The 16-hex fingerprint of key into out (17 bytes). */
void secret_key_fingerprint(const unsigned char key[SECRET_KEY_LEN], char out[17]);

#endif
