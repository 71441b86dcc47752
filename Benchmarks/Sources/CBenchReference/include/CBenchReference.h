// C references for the benchmark suite: the physical floors Pictor is compared against.
#ifndef CBENCH_REFERENCE_H
#define CBENCH_REFERENCE_H
#include <stddef.h>
#include <stdint.h>

/// open/fstat/read/close of `path` into a fresh malloc'd buffer (freed before returning, as a
/// cache returning a new buffer would allocate one). Returns bytes read, or -1.
long cbench_read_file(const char *path);

/// Writes `len` bytes to `dir/.tmp-<name>`, closes it and renames it to `dir/name` (no fsync).
/// Returns 0, or -1 on error.
int cbench_write_rename(const char *dir, const char *name, const uint8_t *bytes, size_t len);

/// AES-256-GCM decryption of `len` bytes with a 12-byte nonce and a 16-byte tag through an EVP
/// context and cipher fetched once. Returns 1 when the tag verifies, 0 otherwise.
int cbench_aes_gcm_open(const uint8_t key[32], const uint8_t nonce[12], const uint8_t *cipher,
                        size_t len, const uint8_t tag[16], uint8_t *out);

/// AES-256-GCM encryption, the inverse of `cbench_aes_gcm_open`. Returns 1 on success.
int cbench_aes_gcm_seal(const uint8_t key[32], const uint8_t nonce[12], const uint8_t *plain,
                        size_t len, uint8_t *out, uint8_t tag[16]);

/// Reads `path` and AES-256-GCM-opens its bytes laid out as nonce(12) | ciphertext | tag(16).
/// Returns plaintext length, or -1.
long cbench_read_and_open(const char *path, const uint8_t key[32]);

/// Returns freed heap pages to the system (glibc `malloc_trim(0)`), so that RSS measures what a
/// phase uses rather than what earlier phases freed.
void cbench_malloc_trim(void);

/// Starts libvips in this process (`VIPS_INIT`, operation cache off, as PictorVips does).
/// Returns 0, or -1 when libvips cannot start.
int cbench_vips_start(void);

/// libvips in-process thumbnail: `vips_thumbnail_buffer(bytes, size, height: size)` then
/// `vips_jpegsave_buffer(Q: quality)`. Returns the JPEG's length, or -1.
long cbench_vips_thumbnail_jpeg(const void *bytes, size_t len, int size, int quality);

/// Full-size JPEG decode to RGBA with `tjDecompress2` (one handle per thread, reused; a fresh
/// output buffer per image). Returns the bitmap's byte count, or -1.
long cbench_tj_decode_rgba(const void *bytes, size_t len);

/// SHA-256 of `bytes` as 64 lowercase hex characters plus NUL, through an `EVP_MD` fetched once
/// and a reused `EVP_MD_CTX`. Returns 1, or 0 on failure.
int cbench_sha256_hex(const void *bytes, size_t len, char out[65]);

/// `stat(path)`: 1 when the file exists, 0 otherwise.
int cbench_stat(const char *path);

/// `sync()` then writes 3 to /proc/sys/vm/drop_caches (needs root). Returns 1 when it worked.
int cbench_drop_caches(void);

#endif
