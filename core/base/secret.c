/* secret.c - the master key file, AES-256-GCM sealing of secrets, and
 * secrets derived from the key (HMAC-SHA256). */
#include "secret.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "fileio.h"

#define SEAL_PREFIX "rdsec1:"
#define PREFIX_LEN 7
#define FP_HEX 16
#define NONCE_LEN 12
#define TAG_LEN 16
#define KEY_HEX (2 * SECRET_KEY_LEN)

/* ---- small helpers -------------------------------------------------------- */

static void hex_encode(const unsigned char *in, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * n] = '\0';
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decodes exactly 2n hex characters; 0 when any is not hex. */
static int hex_decode(const char *in, size_t n, unsigned char *out)
{
    for (size_t i = 0; i < n; i++) {
        int hi = hex_value(in[2 * i]), lo = hex_value(in[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return 0;
        out[i] = (unsigned char)(hi << 4 | lo);
    }
    return 1;
}

void secret_key_fingerprint(const unsigned char key[SECRET_KEY_LEN], char out[17])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;

    if (!EVP_Digest(key, SECRET_KEY_LEN, md, &mdlen, EVP_sha256(), NULL) || mdlen < 8)
        memset(md, 0, 8);
    hex_encode(md, 8, out);
}

rd_code secret_derive(const unsigned char key[SECRET_KEY_LEN], const char *label, char out[SECRET_DERIVED_HEX + 1],
                      rd_err *err)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    if (!HMAC(EVP_sha256(), key, SECRET_KEY_LEN, (const unsigned char *)label, strlen(label), md, &mdlen) ||
        mdlen * 2 < SECRET_DERIVED_HEX)
        return rd_fail(err, RD_EINVAL, "cannot derive a secret: HMAC-SHA256 failed");
    hex_encode(md, SECRET_DERIVED_HEX / 2, out);
    OPENSSL_cleanse(md, sizeof md);
    return RD_OK;
}

/* ---- the master key file -------------------------------------------------- */

rd_code secret_master_key_path(const char *override, char *buf, size_t len, rd_err *err)
{
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    int n;

    if (override && *override)
        n = snprintf(buf, len, "%s", override);
    else if (xdg && xdg[0] == '/') /* XDG says: relative values are to be ignored */
        n = snprintf(buf, len, "%s/rigdeck/master.key", xdg);
    else if (home && *home)
        n = snprintf(buf, len, "%s/.config/rigdeck/master.key", home);
    else
        return rd_fail(err, RD_EINVAL,
                       "master key: neither XDG_CONFIG_HOME nor HOME is set; give --master-key FILE");
    if (n < 0 || (size_t)n >= len)
        return rd_fail(err, RD_EINVAL, "master key path is longer than %zu characters", len ? len - 1 : 0);
    return RD_OK;
}

/* mkdir -p of the directories above path, each new one 0700. */
static rd_code make_parents(const char *path, rd_err *err)
{
    char dir[4096];
    int n = snprintf(dir, sizeof dir, "%s", path);

    if (n < 0 || (size_t)n >= sizeof dir)
        return rd_fail(err, RD_EINVAL, "master key path %s is too long", path);
    for (char *p = dir + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        if (mkdir(dir, 0700) != 0 && errno != EEXIST)
            return rd_fail(err, RD_EINVAL, "cannot create directory %s for the master key: %s", dir,
                           strerror(errno));
        *p = '/';
    }
    return RD_OK;
}

/* Writes a fresh key beside path and links it into place: a reader never
 * sees a half-written key, and if another process got there first its key
 * stays (link fails with EEXIST) and is the one both processes load. */
static rd_code create_key_file(const char *path, rd_err *err)
{
    unsigned char key[SECRET_KEY_LEN];
    char text[KEY_HEX + 2], tmp[4200];
    rd_code rc = RD_OK;
    int fd, n;

    if ((rc = make_parents(path, err)) != RD_OK)
        return rc;
    n = snprintf(tmp, sizeof tmp, "%s.new.XXXXXX", path);
    if (n < 0 || (size_t)n >= sizeof tmp)
        return rd_fail(err, RD_EINVAL, "master key path %s is too long", path);
    if (RAND_bytes(key, sizeof key) != 1)
        return rd_fail(err, RD_EINVAL, "master key: the random generator failed");
    hex_encode(key, sizeof key, text);
    OPENSSL_cleanse(key, sizeof key);
    strcat(text, "\n");

    if ((fd = mkstemp(tmp)) < 0) {
        rc = rd_fail(err, RD_EINVAL, "cannot create master key %s: %s", path, strerror(errno));
        goto out;
    }
    if (fchmod(fd, 0600) != 0 || fileio_write_all(fd, text, KEY_HEX + 1) != 0 || fsync(fd) != 0) {
        rc = rd_fail(err, RD_EINVAL, "cannot write master key %s: %s", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        goto out;
    }
    close(fd);
    if (link(tmp, path) != 0 && errno != EEXIST) {
        /* File systems without hard links: exclusive create, then write. */
        int fd2 = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd2 >= 0) {
            if (fileio_write_all(fd2, text, KEY_HEX + 1) != 0 || fsync(fd2) != 0)
                rc = rd_fail(err, RD_EINVAL, "cannot write master key %s: %s", path, strerror(errno));
            close(fd2);
        } else if (errno != EEXIST) {
            rc = rd_fail(err, RD_EINVAL, "cannot create master key %s: %s", path, strerror(errno));
        }
    }
    unlink(tmp);
out:
    OPENSSL_cleanse(text, sizeof text);
    return rc;
}

/* Reads and checks an existing key file. */
static rd_code read_key_file(int fd, const char *path, unsigned char key[SECRET_KEY_LEN], rd_err *err)
{
    char buf[KEY_HEX + 8];
    size_t n = 0;
    struct stat st;
    rd_code rc = RD_OK;

    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return rd_fail(err, RD_EINVAL, "master key %s must be a regular file", path);
    if (st.st_mode & (S_IRGRP | S_IROTH))
        return rd_fail(err, RD_EINVAL, "master key %s must not be readable by group or others (chmod 600)", path);
    if (st.st_mode & (S_IWGRP | S_IWOTH | S_IXGRP | S_IXOTH))
        return rd_fail(err, RD_EINVAL, "master key %s must not be writable by group or others (chmod 600)", path);
    for (;;) {
        ssize_t r = read(fd, buf + n, sizeof buf - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = rd_fail(err, RD_EINVAL, "cannot read master key %s: %s", path, strerror(errno));
            goto out;
        }
        if (r == 0 || (n += (size_t)r) == sizeof buf)
            break;
    }
    if (!(n == KEY_HEX || (n == KEY_HEX + 1 && buf[KEY_HEX] == '\n')) || !hex_decode(buf, SECRET_KEY_LEN, key)) {
        OPENSSL_cleanse(key, SECRET_KEY_LEN);
        rc = rd_fail(err, RD_EINVAL,
                     "master key %s must hold exactly 64 hexadecimal characters (a 32-byte key) and an optional "
                     "newline", path);
    }
out:
    OPENSSL_cleanse(buf, sizeof buf);
    return rc;
}

rd_code secret_master_key_load(const char *path, int create, unsigned char key[SECRET_KEY_LEN], rd_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    rd_code rc;

    if (fd < 0 && errno == ENOENT) {
        if (!create)
            return rd_fail(err, RD_EINVAL,
                           "master key %s does not exist; the store's secrets were sealed with another admin "
                           "host's key: copy it here (see docs)", path);
        if ((rc = create_key_file(path, err)) != RD_OK)
            return rc;
        fd = open(path, O_RDONLY | O_CLOEXEC);
    }
    if (fd < 0)
        return rd_fail(err, RD_EINVAL, "cannot open master key %s: %s", path, strerror(errno));
    rc = read_key_file(fd, path, key, err);
    close(fd);
    return rc;
}

/* ---- sealing -------------------------------------------------------------- */

/* The authenticated header binds the format version and key fingerprint. */
static int set_aad(EVP_CIPHER_CTX *ctx, int enc, const char *fp)
{
    char aad[PREFIX_LEN + FP_HEX + 1];
    int outl;
    memcpy(aad, SEAL_PREFIX, PREFIX_LEN);
    memcpy(aad + PREFIX_LEN, fp, FP_HEX);
    return (enc ? EVP_EncryptUpdate : EVP_DecryptUpdate)(ctx, NULL, &outl, (const unsigned char *)aad,
                                                         PREFIX_LEN + FP_HEX) == 1;
}

rd_code secret_seal(const unsigned char key[SECRET_KEY_LEN], const char *plain, size_t len, char **sealed,
                    rd_err *err)
{
    char fp[17];
    unsigned char *blob = NULL;
    size_t blen = NONCE_LEN + len + TAG_LEN, b64len = 4 * ((blen + 2) / 3);
    EVP_CIPHER_CTX *ctx = NULL;
    int outl = 0, finl = 0, ok;
    char *out = NULL;

    *sealed = NULL;
    if (len > SECRET_MAX_PLAIN)
        return rd_fail(err, RD_EINVAL, "secret is %zu bytes; at most %d are allowed", len, SECRET_MAX_PLAIN);
    secret_key_fingerprint(key, fp);
    blob = malloc(blen);
    out = malloc(PREFIX_LEN + FP_HEX + 1 + b64len + 1);
    ctx = EVP_CIPHER_CTX_new();
    if (!blob || !out || !ctx) {
        free(blob);
        free(out);
        EVP_CIPHER_CTX_free(ctx);
        return rd_fail(err, RD_ENOMEM, "secret: out of memory");
    }
    ok = RAND_bytes(blob, NONCE_LEN) == 1 &&
         EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, key, blob) == 1 && set_aad(ctx, 1, fp) &&
         EVP_EncryptUpdate(ctx, blob + NONCE_LEN, &outl, (const unsigned char *)(plain ? plain : ""), (int)len) == 1 &&
         EVP_EncryptFinal_ex(ctx, blob + NONCE_LEN + outl, &finl) == 1 &&
         (size_t)outl + (size_t)finl == len &&
         EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, TAG_LEN, blob + NONCE_LEN + len) == 1;
    EVP_CIPHER_CTX_free(ctx);
    if (ok) {
        int n = snprintf(out, PREFIX_LEN + FP_HEX + 2, SEAL_PREFIX "%s:", fp);
        EVP_EncodeBlock((unsigned char *)out + n, blob, (int)blen);
        *sealed = out;
    } else {
        free(out);
    }
    OPENSSL_cleanse(blob, blen);
    free(blob);
    return ok ? RD_OK : rd_fail(err, RD_EINVAL, "secret: encryption failed (OpenSSL)");
}

/* Strict base64: whole quads of the standard alphabet, '=' only as the
 * final padding.  Returns the decoded length, or -1. */
static long base64_decode(const char *in, unsigned char *out)
{
    size_t n = strlen(in), pad = 0;
    int got;

    if (n == 0 || n % 4 != 0)
        return -1;
    if (in[n - 1] == '=')
        pad = in[n - 2] == '=' ? 2 : 1;
    for (size_t i = 0; i < n - pad; i++) {
        char c = in[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/'))
            return -1;
    }
    /* Canonical only: the bits of the last character that padding leaves
     * unused must be zero, or two different texts would open to the same
     * bytes and a changed character could go unnoticed. */
    if (pad) {
        static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        const char *at = strchr(alphabet, in[n - pad - 1]);
        if (!at || ((at - alphabet) & (pad == 1 ? 0x3 : 0xf)) != 0)
            return -1;
    }
    got = EVP_DecodeBlock(out, (const unsigned char *)in, (int)n);
    if (got < 0)
        return -1;
    return (long)got - (long)pad;
}

rd_code secret_open(const unsigned char key[SECRET_KEY_LEN], const char *sealed, char **plain, size_t *len,
                    rd_err *err)
{
    char fp[17], mine[17];
    const char *b64;
    unsigned char *blob = NULL;
    char *out = NULL;
    long blen;
    size_t clen;
    EVP_CIPHER_CTX *ctx = NULL;
    int outl = 0, finl = 0, ok;

    *plain = NULL;
    *len = 0;
    if (strncmp(sealed, SEAL_PREFIX, PREFIX_LEN) != 0)
        return rd_fail(err, RD_ECORRUPT, "secret is not a sealed rigdeck secret (expected rdsec1:...)");
    /* strnlen first: a truncated text must not be read past its end. */
    if (strnlen(sealed + PREFIX_LEN, FP_HEX + 1) < FP_HEX + 1)
        return rd_fail(err, RD_ECORRUPT, "secret is damaged: it is truncated");
    memcpy(fp, sealed + PREFIX_LEN, FP_HEX);
    fp[FP_HEX] = '\0';
    if ( strspn(fp, "0123456789abcdef") != FP_HEX || sealed[PREFIX_LEN + FP_HEX] != ':')
        return rd_fail(err, RD_ECORRUPT, "secret is damaged: the key fingerprint is malformed");
    secret_key_fingerprint(key, mine);
    if (strcmp(fp, mine) != 0)
        return rd_fail(err, RD_EINVAL,
                       "this secret was sealed with a different master key (fingerprint %s, yours %s): use the "
                       "same key file on every admin host", fp, mine);
    b64 = sealed + PREFIX_LEN + FP_HEX + 1;
    if (strlen(b64) > 4 * ((NONCE_LEN + SECRET_MAX_PLAIN + TAG_LEN + 2) / 3))
        return rd_fail(err, RD_ECORRUPT, "secret is damaged: it is longer than any sealed secret");
    if (!(blob = malloc(strlen(b64) / 4 * 3 + 3)))
        return rd_fail(err, RD_ENOMEM, "secret: out of memory");
    blen = base64_decode(b64, blob);
    if (blen < NONCE_LEN + TAG_LEN) {
        free(blob);
        return rd_fail(err, RD_ECORRUPT, "secret is damaged: %s", blen < 0 ? "not valid base64" : "too short");
    }
    clen = (size_t)blen - NONCE_LEN - TAG_LEN;
    out = malloc(clen + 1);
    ctx = EVP_CIPHER_CTX_new();
    if (!out || !ctx) {
        free(out);
        EVP_CIPHER_CTX_free(ctx);
        free(blob);
        return rd_fail(err, RD_ENOMEM, "secret: out of memory");
    }
    ok = EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, key, blob) == 1 && set_aad(ctx, 0, fp) &&
         EVP_DecryptUpdate(ctx, (unsigned char *)out, &outl, blob + NONCE_LEN, (int)clen) == 1 &&
         EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, TAG_LEN, blob + NONCE_LEN + clen) == 1 &&
         EVP_DecryptFinal_ex(ctx, (unsigned char *)out + outl, &finl) == 1 && (size_t)outl + (size_t)finl == clen;
    EVP_CIPHER_CTX_free(ctx);
    OPENSSL_cleanse(blob, (size_t)blen);
    free(blob);
    if (!ok) {
        /* GCM released no verified bytes: wipe whatever Update wrote. */
        OPENSSL_cleanse(out, clen + 1);
        free(out);
        return rd_fail(err, RD_ECORRUPT, "secret is damaged or was altered: authentication failed");
    }
    out[clen] = '\0';
    *plain = out;
    *len = clen;
    return RD_OK;
}
