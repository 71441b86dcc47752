// C references for decoding (I1–I4) and file-name hashing (D8): libvips and libjpeg-turbo called
// directly, and SHA-256 through a fetched EVP_MD with a reused context.
#include "CBenchReference.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <openssl/evp.h>
#include <turbojpeg.h>
#include <vips/vips.h>

int cbench_vips_start(void) {
    static int started = 0;
    if (!started) {
        if (VIPS_INIT("cbench") != 0) return -1;
        vips_cache_set_max(0);
        started = 1;
    }
    return 0;
}

long cbench_vips_thumbnail_jpeg(const void *bytes, size_t len, int size, int quality) {
    VipsImage *thumb = NULL;
    if (vips_thumbnail_buffer((void *)bytes, len, &thumb, size, "height", size, NULL) != 0) {
        vips_error_clear();
        return -1;
    }
    void *out = NULL;
    size_t out_len = 0;
    int rc = vips_jpegsave_buffer(thumb, &out, &out_len, "Q", quality, NULL);
    g_object_unref(thumb);
    if (rc != 0) { vips_error_clear(); return -1; }
    g_free(out);
    return (long)out_len;
}

long cbench_tj_decode_rgba(const void *bytes, size_t len) {
    static __thread tjhandle handle = NULL;
    if (!handle) handle = tjInitDecompress();
    int width = 0, height = 0, subsamp = 0, colorspace = 0;
    if (tjDecompressHeader3(handle, bytes, (unsigned long)len, &width, &height, &subsamp, &colorspace) != 0)
        return -1;
    size_t size = (size_t)width * (size_t)height * 4;
    unsigned char *out = malloc(size);
    if (!out) return -1;
    int rc = tjDecompress2(handle, bytes, (unsigned long)len, out, width, 0, height, TJPF_RGBA, 0);
    volatile unsigned char sink = out[size - 1];
    (void)sink;
    free(out);
    return rc == 0 ? (long)size : -1;
}

int cbench_sha256_hex(const void *bytes, size_t len, char out[65]) {
    static EVP_MD *md = NULL;
    static __thread EVP_MD_CTX *ctx = NULL;
    static const char digits[] = "0123456789abcdef";
    if (!md) md = EVP_MD_fetch(NULL, "SHA256", NULL);
    if (!ctx) ctx = EVP_MD_CTX_new();
    unsigned char digest[32];
    unsigned int n = 0;
    if (!EVP_DigestInit_ex(ctx, md, NULL) || !EVP_DigestUpdate(ctx, bytes, len) ||
        !EVP_DigestFinal_ex(ctx, digest, &n))
        return 0;
    for (unsigned i = 0; i < 32; i++) {
        out[2 * i] = digits[digest[i] >> 4];
        out[2 * i + 1] = digits[digest[i] & 15];
    }
    out[64] = 0;
    return 1;
}

int cbench_stat(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

int cbench_drop_caches(void) {
    sync();
    FILE *f = fopen("/proc/sys/vm/drop_caches", "w");
    if (!f) return 0;
    int ok = fputs("3\n", f) >= 0;
    return (fclose(f) == 0) && ok;
}
