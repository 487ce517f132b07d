/* stage_rclone.c - how the stager (stage_fetch.c) asks rclone for a folder
 * or an object: the command line and the RCLONE_* variables of an
 * on-the-fly remote (":s3:bucket/path", ":gcs:bucket/path", ":ftp:/path",
 * ":azureblob:container/path") for s3://, gs://, ftp:// and ftps://
 * sources and Azure Blob URLs fetched with an azure key (execution.md §5).
 *
 * Every option, credentials included, goes in the child's environment and
 * never its argv (which any local user reads in /proc) or a config file:
 * `--config /dev/null`.  rclone wants a password in its own "obscured"
 * form; obscuring is not encryption (the key is rclone's published
 * constant) and is done here with OpenSSL rather than by running `rclone
 * obscure PASSWORD`, which would put the password on a command line.
 */
#include "agent_stage.h"

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void stage_env_add(char **env, size_t cap, const char *k, const char *v)
{
    size_t i = 0;
    while (env[i])
        i++;
    if (i + 1 < cap && v && asprintf(&env[i], "%s=%s", k, v) < 0)
        env[i] = NULL;
}

/* The value of line "NAME=..." in text, into out. */
static int key_line(const char *text, const char *name, char *out, size_t len)
{
    size_t n = strlen(name);
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (strncmp(p, name, n) == 0 && p[n] == '=') {
            size_t l = strcspn(p + n + 1, "\r\n");
            snprintf(out, len, "%.*s", (int)l, p + n + 1);
            return 1;
        }
    return 0;
}

int stage_rclone_obscure(const char *plain, const unsigned char iv_in[16], char *out, size_t len)
{
    /* rclone's fs/config/obscure: AES-256-CTR under this fixed key, the IV
     * first, base64 (URL alphabet, no padding) */
    static const unsigned char key[32] = { 0x9c, 0x93, 0x5b, 0x48, 0x73, 0x0a, 0x55, 0x4d, 0x6b, 0xfd, 0x7c,
                                           0x63, 0xc8, 0x86, 0xa9, 0x2b, 0xd3, 0x90, 0x19, 0x8e, 0xb8, 0x12,
                                           0x8a, 0xfb, 0xf4, 0xde, 0x16, 0x2b, 0x8b, 0x95, 0xf6, 0x38 };
    size_t n = strlen(plain);
    unsigned char raw[16 + 512];
    unsigned char b64[4 * ((sizeof raw + 2) / 3) + 1];
    int outl = 0, fin = 0, ok;
    if (n > sizeof raw - 16)
        return -1;
    if (iv_in)
        memcpy(raw, iv_in, 16);
    else if (RAND_bytes(raw, 16) != 1)
        return -1;
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    ok = c && EVP_EncryptInit_ex(c, EVP_aes_256_ctr(), NULL, key, raw) == 1 &&
         EVP_EncryptUpdate(c, raw + 16, &outl, (const unsigned char *)plain, (int)n) == 1 &&
         EVP_EncryptFinal_ex(c, raw + 16 + outl, &fin) == 1;
    EVP_CIPHER_CTX_free(c);
    if (!ok)
        return -1;
    int m = EVP_EncodeBlock(b64, raw, 16 + outl + fin);
    explicit_bzero(raw, sizeof raw);
    while (m > 0 && b64[m - 1] == '=')
        m--;
    if ((size_t)m >= len)
        return -1;
    for (int i = 0; i < m; i++)
        out[i] = b64[i] == '+' ? '-' : b64[i] == '/' ? '_' : (char)b64[i];
    out[m] = '\0';
    return 0;
}

/* ftp://HOST[:PORT]/PATH (or any URL of that shape): the host (no brackets), the port ("" when none)
 * and the path, percent-decoded, into the three buffers. */
static int ftp_parts(const char *url, char *host, size_t hlen, char *port, size_t plen, char *path, size_t len)
{
    const char *h = strstr(url, "://");
    if (!h)
        return -1;
    h += 3;
    const char *slash = strchr(h, '/'), *end = slash ? slash : h + strlen(h), *colon;
    if (*h == '[') {   /* [::1]:2121 */
        const char *close = memchr(h, ']', (size_t)(end - h));
        if (!close)
            return -1;
        snprintf(host, hlen, "%.*s", (int)(close - h - 1), h + 1);
        colon = close[1] == ':' ? close + 1 : NULL;
    } else {
        colon = memchr(h, ':', (size_t)(end - h));
        snprintf(host, hlen, "%.*s", (int)((colon ? colon : end) - h), h);
    }
    snprintf(port, plen, "%.*s", colon ? (int)(end - colon - 1) : 0, colon ? colon + 1 : "");
    size_t o = 0;
    for (const char *p = slash ? slash : "/"; *p && o + 1 < len; p++) {
        unsigned hi, lo;
        if (*p == '%' && sscanf(p + 1, "%1x%1x", &hi, &lo) == 2) {
            path[o++] = (char)(hi * 16 + lo);
            p += 2;
        } else {
            path[o++] = *p;
        }
    }
    path[o] = '\0';
    return *host ? 0 : -1;
}

int stage_azure_blob(const char *url)
{
    /* https://ACCOUNT.blob.core.windows.net/CONTAINER/... */
    const char *h = strncmp(url, "https://", 8) == 0 ? url + 8 : NULL;
    const char *suffix = h ? strstr(h, ".blob.core.windows.net/") : NULL;
    return suffix && suffix > h && !memchr(h, '/', (size_t)(suffix - h)) && suffix[23] && suffix[23] != '/';
}

/* The value of "Name=value;" in an Azure connection string; "" if absent. */
static void conn_field(const char *text, const char *name, char *out, size_t len)
{
    size_t n = strlen(name);
    out[0] = '\0';
    for (const char *p = text; p && *p; p = strchr(p, ';') ? strchr(p, ';') + 1 : NULL)
        if (strncmp(p, name, n) == 0 && p[n] == '=') {
            snprintf(out, len, "%.*s", (int)strcspn(p + n + 1, ";\r\n"), p + n + 1);
            return;
        }
}

int stage_rclone_env(const char *kind, const char *url, const char *endpoint, const char *key_type,
                     const char *key_value, const char *key_file, char **env, size_t cap)
{
    char id[512] = "", secret[512] = "";
    memset(env, 0, cap * sizeof *env);
    if (strcmp(kind, "s3") == 0) {
        int creds = key_value && key_line(key_value, "AWS_ACCESS_KEY_ID", id, sizeof id) &&
                    key_line(key_value, "AWS_SECRET_ACCESS_KEY", secret, sizeof secret);
        stage_env_add(env, cap, "RCLONE_S3_PROVIDER", endpoint ? "Other" : "AWS");
        if (endpoint)
            stage_env_add(env, cap, "RCLONE_S3_ENDPOINT", endpoint);
        stage_env_add(env, cap, "RCLONE_S3_ENV_AUTH", "false");
        if (creds) {
            stage_env_add(env, cap, "RCLONE_S3_ACCESS_KEY_ID", id);
            stage_env_add(env, cap, "RCLONE_S3_SECRET_ACCESS_KEY", secret);
            if (key_line(key_value, "AWS_SESSION_TOKEN", secret, sizeof secret))
                stage_env_add(env, cap, "RCLONE_S3_SESSION_TOKEN", secret);
            if (key_line(key_value, "AWS_REGION", id, sizeof id) ||
                key_line(key_value, "AWS_DEFAULT_REGION", id, sizeof id))
                stage_env_add(env, cap, "RCLONE_S3_REGION", id);
        }
        explicit_bzero(secret, sizeof secret);
        return 0;
    }
    if (strcmp(kind, "gs") == 0) {
        if (key_type && strcmp(key_type, "gcp") == 0 && key_file)
            stage_env_add(env, cap, "RCLONE_GCS_SERVICE_ACCOUNT_FILE", key_file);
        else
            stage_env_add(env, cap, "RCLONE_GCS_ANONYMOUS", "true");
        return 0;
    }
    if (strcmp(kind, "azureblob") == 0) {
        /* an account key as the account and its key; a SAS-only connection
         * string as a container SAS URL (what rclone takes for one) */
        char host[256], port[16], path[2048], v[1024], *sas;
        if (!url || !stage_azure_blob(url) || ftp_parts(url, host, sizeof host, port, sizeof port, path, sizeof path))
            return -1;
        host[strcspn(host, ".")] = '\0';
        conn_field(key_value ? key_value : "", "AccountKey", v, sizeof v);
        if (*v) {
            stage_env_add(env, cap, "RCLONE_AZUREBLOB_ACCOUNT", host);
            stage_env_add(env, cap, "RCLONE_AZUREBLOB_KEY", v);
        } else {
            conn_field(key_value ? key_value : "", "SharedAccessSignature", v, sizeof v);
            if (*v && asprintf(&sas, "https://%s.blob.core.windows.net/%.*s?%s", host,
                               (int)strcspn(path + 1, "/"), path + 1, v) >= 0) {
                stage_env_add(env, cap, "RCLONE_AZUREBLOB_SAS_URL", sas);
                explicit_bzero(sas, strlen(sas));
                free(sas);
            }
        }
        explicit_bzero(v, sizeof v);
        return 0;
    }
    if (strcmp(kind, "ftp") == 0 || strcmp(kind, "ftps") == 0) {
        /* a public server (datasrc.c refuses credentials in the URL and
         * takes no key for ftp): anonymous, whose password is by custom
         * any word, still obscured as rclone wants every password */
        char host[256], port[16], path[2048], pass[128];
        if (!url || ftp_parts(url, host, sizeof host, port, sizeof port, path, sizeof path) != 0 ||
            stage_rclone_obscure("anonymous", NULL, pass, sizeof pass) != 0)
            return -1;
        stage_env_add(env, cap, "RCLONE_FTP_HOST", host);
        if (*port)
            stage_env_add(env, cap, "RCLONE_FTP_PORT", port);
        stage_env_add(env, cap, "RCLONE_FTP_USER", "anonymous");
        stage_env_add(env, cap, "RCLONE_FTP_PASS", pass);
        /* ftps:// is implicit TLS, as libcurl reads it for one file */
        if (strcmp(kind, "ftps") == 0)
            stage_env_add(env, cap, "RCLONE_FTP_TLS", "true");
        return 0;
    }
    return -1;
}

int stage_rclone_argv(const char *kind, const char *url, const char *dest, char *src, size_t len, const char **argv)
{
    /* s3://bucket/path -> :s3:bucket/path; ftp://host/path -> :ftp:/path
     * (host and port in RCLONE_FTP_*); http(s) folder -> :http: with
     * RCLONE_HTTP_URL (the caller adds it) */
    char host[256], port[16], path[2048];
    if (strcmp(kind, "s3") == 0 || strcmp(kind, "gs") == 0)
        snprintf(src, len, ":%s:%s", strcmp(kind, "s3") == 0 ? "s3" : "gcs", url + 5);
    else if ((strcmp(kind, "ftp") == 0 || strcmp(kind, "ftps") == 0) &&
             ftp_parts(url, host, sizeof host, port, sizeof port, path, sizeof path) == 0)
        snprintf(src, len, ":ftp:%s", path);
    else if (strcmp(kind, "azureblob") == 0 && ftp_parts(url, host, sizeof host, port, sizeof port, path, sizeof path) == 0)
        snprintf(src, len, ":azureblob:%s", path + 1);   /* CONTAINER/PATH */
    else
        snprintf(src, len, ":http:");
    int i = 0;
    const char *ca = getenv("AWS_CA_BUNDLE");
    argv[i++] = "rclone";
    argv[i++] = "copy";
    argv[i++] = "--config";
    argv[i++] = "/dev/null";
    argv[i++] = "--error-on-no-transfer";   /* a source that is gone is an error, not an empty folder */
    if (ca && *ca) {
        argv[i++] = "--ca-cert";
        argv[i++] = ca;
    }
    argv[i++] = src;
    argv[i++] = dest;
    argv[i] = NULL;
    return i;
}
