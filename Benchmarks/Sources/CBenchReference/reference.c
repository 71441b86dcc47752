#include "CBenchReference.h"
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <openssl/evp.h>

static long read_all(const char *path, uint8_t **out) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) != 0) { close(fd); return -1; }
    size_t size = (size_t)st.st_size;
    uint8_t *buf = malloc(size ? size : 1);
    size_t done = 0;
    while (done < size) {
        ssize_t n = read(fd, buf + done, size - done);
        if (n <= 0) break;
        done += (size_t)n;
    }
    close(fd);
    *out = buf;
    return (long)done;
}

long cbench_read_file(const char *path) {
    uint8_t *buf = NULL;
    long n = read_all(path, &buf);
    if (n > 0) {
        volatile uint8_t sink = buf[n - 1];
        (void)sink;
    }
    free(buf);
    return n;
}

int cbench_write_rename(const char *dir, const char *name, const uint8_t *bytes, size_t len) {
    char tmp[4096], dst[4096];
    snprintf(tmp, sizeof tmp, "%s/.tmp-%s", dir, name);
    snprintf(dst, sizeof dst, "%s/%s", dir, name);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, bytes + done, len - done);
        if (n <= 0) { close(fd); return -1; }
        done += (size_t)n;
    }
    if (close(fd) != 0) return -1;
    return rename(tmp, dst) == 0 ? 0 : -1;
}

static EVP_CIPHER *cipher_once(void) {
    static EVP_CIPHER *cipher = NULL;
    if (!cipher) cipher = EVP_CIPHER_fetch(NULL, "AES-256-GCM", NULL);
    return cipher;
}

static EVP_CIPHER_CTX *ctx_once(void) {
    static __thread EVP_CIPHER_CTX *ctx = NULL;
    if (!ctx) ctx = EVP_CIPHER_CTX_new();
    return ctx;
}

int cbench_aes_gcm_open(const uint8_t key[32], const uint8_t nonce[12], const uint8_t *cipher,
                        size_t len, const uint8_t tag[16], uint8_t *out) {
    EVP_CIPHER_CTX *ctx = ctx_once();
    int outl = 0, ok = 1;
    ok &= EVP_DecryptInit_ex2(ctx, cipher_once(), key, nonce, NULL);
    ok &= EVP_DecryptUpdate(ctx, out, &outl, cipher, (int)len);
    ok &= EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, 16, (void *)tag);
    ok &= EVP_DecryptFinal_ex(ctx, out + outl, &outl) > 0;
    return ok;
}

int cbench_aes_gcm_seal(const uint8_t key[32], const uint8_t nonce[12], const uint8_t *plain,
                        size_t len, uint8_t *out, uint8_t tag[16]) {
    EVP_CIPHER_CTX *ctx = ctx_once();
    int outl = 0, ok = 1;
    ok &= EVP_EncryptInit_ex2(ctx, cipher_once(), key, nonce, NULL);
    ok &= EVP_EncryptUpdate(ctx, out, &outl, plain, (int)len);
    ok &= EVP_EncryptFinal_ex(ctx, out + outl, &outl);
    ok &= EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, tag);
    return ok;
}

long cbench_read_and_open(const char *path, const uint8_t key[32]) {
    uint8_t *buf = NULL;
    long n = read_all(path, &buf);
    if (n < 28) { free(buf); return -1; }
    size_t plain = (size_t)n - 28;
    uint8_t *out = malloc(plain ? plain : 1);
    int ok = cbench_aes_gcm_open(key, buf, buf + 12, plain, buf + 12 + plain, out);
    free(out);
    free(buf);
    return ok ? (long)plain : -1;
}

void cbench_malloc_trim(void) { malloc_trim(0); }
