#include <stdlib.h>
#include <string.h>
#include <libdeflate.h>
#include "CPNGShim.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

int cpng_has_chunk_before_idat(const uint8_t *png, size_t length, const char *type) {
    size_t i = 8;
    while (i + 12 <= length) {
        uint32_t size = be32(png + i);
        if (memcmp(png + i + 4, "IDAT", 4) == 0) return 0;
        if (memcmp(png + i + 4, type, 4) == 0) return 1;
        if (size > length - i - 12) return 0;
        i += 12 + (size_t)size;
    }
    return 0;
}

/// The Paeth predictor of one byte: a left, b above, c upper left (PNG spec §9.4).
static inline uint8_t paeth(int a, int b, int c) {
    int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
    if (pa <= pb && pa <= pc) return (uint8_t)a;
    return (uint8_t)(pb <= pc ? b : c);
}

static void unpaeth_scalar(uint8_t *out, const uint8_t *raw, const uint8_t *prev, size_t rowbytes, int bpp) {
    for (int i = 0; i < bpp; i++) out[i] = (uint8_t)(raw[i] + prev[i]);
    for (size_t i = (size_t)bpp; i < rowbytes; i++) out[i] = (uint8_t)(raw[i] + paeth(out[i - bpp], prev[i], prev[i - bpp]));
}

#if defined(__SSE2__)
// One pixel (3 or 4 bytes) at a time, its bytes in 16-bit lanes: the pixels of a row depend on
// each other, but the bytes of one pixel do not. Branch-free, and several times faster than the
// byte loop on photos, where most rows are Paeth-filtered.
// Pixels are read and written through registers, byte by byte for 3: a memcpy of a variable
// length here became a call per pixel and a store-forwarding stall (38 % of a thumbnail's CPU).
static inline __m128i load_pixel(const uint8_t *p, int bpp) {
    uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
    if (bpp == 4) v |= (uint32_t)p[3] << 24;
    return _mm_unpacklo_epi8(_mm_cvtsi32_si128((int)v), _mm_setzero_si128());
}

static inline void store_pixel(uint8_t *p, __m128i value, int bpp) {
    uint32_t v = (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(value, value));
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    if (bpp == 4) p[3] = (uint8_t)(v >> 24);
}

static inline __m128i abs16(__m128i x) {
    return _mm_max_epi16(x, _mm_sub_epi16(_mm_setzero_si128(), x));
}

// Always inlined into the two callers below, so `bpp` is a constant in each loop.
static inline __attribute__((always_inline)) void unpaeth_sse2(uint8_t *out, const uint8_t *raw, const uint8_t *prev,
                                                              size_t rowbytes, int bpp) {
    __m128i a = _mm_setzero_si128(), c = _mm_setzero_si128();
    const __m128i low = _mm_set1_epi16(0xFF);
    for (size_t i = 0; i < rowbytes; i += (size_t)bpp) {
        __m128i b = load_pixel(prev + i, bpp), x = load_pixel(raw + i, bpp);
        __m128i pa = abs16(_mm_sub_epi16(b, c));
        __m128i pb = abs16(_mm_sub_epi16(a, c));
        __m128i pc = abs16(_mm_sub_epi16(_mm_add_epi16(a, b), _mm_add_epi16(c, c)));
        // b unless pb > pc (then c); a unless pa exceeds the smaller of pb and pc.
        __m128i takes_c = _mm_cmpgt_epi16(pb, pc);
        __m128i bc = _mm_or_si128(_mm_and_si128(takes_c, c), _mm_andnot_si128(takes_c, b));
        __m128i not_a = _mm_cmpgt_epi16(pa, _mm_min_epi16(pb, pc));
        __m128i predicted = _mm_or_si128(_mm_and_si128(not_a, bc), _mm_andnot_si128(not_a, a));
        __m128i value = _mm_and_si128(_mm_add_epi16(x, predicted), low);
        store_pixel(out + i, value, bpp);
        a = value;
        c = b;
    }
}

static void unpaeth_sse2_3(uint8_t *out, const uint8_t *raw, const uint8_t *prev, size_t rowbytes) {
    unpaeth_sse2(out, raw, prev, rowbytes, 3);
}

static void unpaeth_sse2_4(uint8_t *out, const uint8_t *raw, const uint8_t *prev, size_t rowbytes) {
    unpaeth_sse2(out, raw, prev, rowbytes, 4);
}
#endif

/// Undoes one row's filter: `raw` is the filtered row (without its type byte), `prev` the
/// previous unfiltered row (zeros for the first), `out` receives the row.
static int unfilter_row(int type, uint8_t *out, const uint8_t *raw, const uint8_t *prev, size_t rowbytes, int bpp) {
    switch (type) {
    case 0:
        memcpy(out, raw, rowbytes);
        return CPNG_OK;
    case 1:
        memcpy(out, raw, (size_t)bpp);
        for (size_t i = (size_t)bpp; i < rowbytes; i++) out[i] = (uint8_t)(raw[i] + out[i - bpp]);
        return CPNG_OK;
    case 2:
        for (size_t i = 0; i < rowbytes; i++) out[i] = (uint8_t)(raw[i] + prev[i]);
        return CPNG_OK;
    case 3:
        for (int i = 0; i < bpp; i++) out[i] = (uint8_t)(raw[i] + (prev[i] >> 1));
        for (size_t i = (size_t)bpp; i < rowbytes; i++) out[i] = (uint8_t)(raw[i] + ((out[i - bpp] + prev[i]) >> 1));
        return CPNG_OK;
    case 4:
#if defined(__SSE2__)
        if (bpp == 3) { unpaeth_sse2_3(out, raw, prev, rowbytes); return CPNG_OK; }
        if (bpp == 4) { unpaeth_sse2_4(out, raw, prev, rowbytes); return CPNG_OK; }
#endif
        unpaeth_scalar(out, raw, prev, rowbytes, bpp);
        return CPNG_OK;
    default:
        return CPNG_EFILTER;
    }
}

/// Finds the run of IDAT chunks (from `*first` to `*end`, their payloads `*total` bytes in
/// `*count` chunks) and checks every chunk's CRC.
static int find_idat(const uint8_t *png, size_t length, size_t *first_out, size_t *end_out, size_t *total_out, size_t *count_out) {
    size_t i = 8, first = 0, end = 0, total = 0, count = 0;
    // Find the run of IDAT chunks and check it before copying anything.
    while (i + 12 <= length) {
        uint32_t size = be32(png + i);
        if (size > length - i - 12) return CPNG_ESTRUCTURE;
        int is_idat = memcmp(png + i + 4, "IDAT", 4) == 0;
        if (is_idat) {
            if (count == 0) first = i;
            if (libdeflate_crc32(0, png + i + 4, (size_t)size + 4) != be32(png + i + 8 + size)) return CPNG_ECRC;
            total += size;
            count++;
        } else if (count > 0) {
            end = i;
            break;
        }
        i += 12 + (size_t)size;
    }
    if (count == 0 || end == 0) return CPNG_ESTRUCTURE;
    *first_out = first; *end_out = end; *total_out = total; *count_out = count;
    return CPNG_OK;
}

int cpng_check_idat(const uint8_t *png, size_t length) {
    size_t first, end, total, count;
    return find_idat(png, length, &first, &end, &total, &count);
}

/// The zlib stream of the IDAT chunks: a pointer into `png` when there is one chunk, else a
/// copy (`*owned`, to free). Checks every chunk's CRC.
static int gather_idat(const uint8_t *png, size_t length, const uint8_t **stream, size_t *stream_length, uint8_t **owned) {
    size_t first, end, total, count, i;
    int status = find_idat(png, length, &first, &end, &total, &count);
    if (status != CPNG_OK) return status;
    if (count == 1) {
        *stream = png + first + 8;
        *stream_length = total;
        return CPNG_OK;
    }
    uint8_t *copy = malloc(total ? total : 1);
    if (!copy) return CPNG_EMEMORY;
    size_t at = 0;
    for (i = first; i < end;) {
        uint32_t size = be32(png + i);
        memcpy(copy + at, png + i + 8, size);
        at += size;
        i += 12 + (size_t)size;
    }
    *stream = copy;
    *stream_length = total;
    *owned = copy;
    return CPNG_OK;
}

/// Inflates the whole zlib `stream`, which holds more than `expected` bytes, within
/// `4 × expected` bytes, and copies its first `expected` bytes to `out` (libdeflate leaves the
/// output of a stream that does not fit partly unwritten). LIBDEFLATE_SUCCESS when copied,
/// LIBDEFLATE_BAD_DATA for a damaged stream (bad data or a wrong Adler-32), or
/// LIBDEFLATE_INSUFFICIENT_SPACE when the stream is longer than that or there is no memory.
static enum libdeflate_result inflate_past_end(struct libdeflate_decompressor *inflater, const uint8_t *stream,
                                               size_t stream_length, uint8_t *out, size_t expected) {
    if (expected > SIZE_MAX / 4) return LIBDEFLATE_INSUFFICIENT_SPACE;
    size_t room = expected * 4;
    uint8_t *scratch = malloc(room);
    if (!scratch) return LIBDEFLATE_INSUFFICIENT_SPACE;
    size_t produced = 0;
    enum libdeflate_result result = libdeflate_zlib_decompress_ex(inflater, stream, stream_length, scratch, room, NULL, &produced);
    if (result == LIBDEFLATE_SUCCESS) memcpy(out, scratch, expected);
    free(scratch);
    return result;
}

/// Inflates the image data (IDAT CRCs checked) into `filtered`, `filtered_length` bytes.
/// CPNG_OK when the stream holds at least that much; `*extra` is then 0, 1 when it holds more
/// (bytes left unread, or inflated past the end and checked), or 2 when it holds more than four
/// times the image and `filtered` is only known as far as libdeflate wrote it. CPNG_EZLIB for
/// a damaged stream and CPNG_ESHORT for too little data: libvips 8.14 would return rows it
/// never wrote for either.
static int inflate_image_data(const uint8_t *png, size_t length, uint8_t *filtered, size_t filtered_length, int *extra) {
    const uint8_t *stream = NULL;
    size_t stream_length = 0;
    uint8_t *owned = NULL;
    int status = gather_idat(png, length, &stream, &stream_length, &owned);
    if (status != CPNG_OK) return status;
    struct libdeflate_decompressor *inflater = libdeflate_alloc_decompressor();
    if (!inflater) {
        free(owned);
        return CPNG_EMEMORY;
    }
    size_t used = 0, produced = 0;
    enum libdeflate_result result = libdeflate_zlib_decompress_ex(inflater, stream, stream_length, filtered, filtered_length,
                                                                  &used, &produced);
    // More data than the image holds: libpng only warns, and libvips 8.14 then returns the
    // rows, so a stream damaged in a way that still inflates past the end (its checksum is
    // never reached) would give garbage rows. The whole stream is inflated once more, within
    // four times the image's size, to check its Adler-32: a mismatch is a damaged stream.
    int rows_unknown = 0;
    if (result == LIBDEFLATE_INSUFFICIENT_SPACE) {
        enum libdeflate_result whole = inflate_past_end(inflater, stream, stream_length, filtered, filtered_length);
        if (whole == LIBDEFLATE_BAD_DATA) result = LIBDEFLATE_BAD_DATA;
        rows_unknown = whole != LIBDEFLATE_SUCCESS;
    }
    libdeflate_free_decompressor(inflater);
    free(owned);
    if (result == LIBDEFLATE_BAD_DATA) return CPNG_EZLIB;
    if (result == LIBDEFLATE_SUCCESS && produced < filtered_length) return CPNG_ESHORT;
    if (result != LIBDEFLATE_SUCCESS && result != LIBDEFLATE_INSUFFICIENT_SPACE) return CPNG_EINFLATE;
    *extra = rows_unknown ? 2 : result == LIBDEFLATE_INSUFFICIENT_SPACE || used != stream_length;
    return CPNG_OK;
}

int cpng_decode_8bit(const uint8_t *png, size_t length, uint32_t width, uint32_t height, int channels, uint8_t *out) {
    if (channels < 1 || channels > 4 || width == 0 || height == 0) return CPNG_ESTRUCTURE;
    const size_t rowbytes = (size_t)width * (size_t)channels;
    if (rowbytes / channels != width || (rowbytes + 1) > SIZE_MAX / height) return CPNG_EMEMORY;
    const size_t filtered_length = (rowbytes + 1) * height;

    // `filtered` is not cleared: the inflate must fill it exactly. The zero row stands in for
    // the row above the first.
    int status = CPNG_OK, extra = 0;
    uint8_t *filtered = malloc(filtered_length);
    uint8_t *zeros = calloc(rowbytes, 1);
    if (!filtered || !zeros) {
        status = CPNG_EMEMORY;
        goto done;
    }
    // Data past the last row (an intact stream that holds more, or bytes after its end) is
    // ignored: libpng only warns about it, and libvips 8.14 returns the same rows. A stream of
    // more than four times the image is not inflated to its end: CPNG_EINFLATE.
    status = inflate_image_data(png, length, filtered, filtered_length, &extra);
    if (status == CPNG_OK && extra == 2) status = CPNG_EINFLATE;
    if (status != CPNG_OK) goto done;
    for (uint32_t y = 0; y < height; y++) {
        const uint8_t *row = filtered + (size_t)y * (rowbytes + 1);
        uint8_t *target = out + (size_t)y * rowbytes;
        const uint8_t *prev = y == 0 ? zeros : target - rowbytes;
        status = unfilter_row(row[0], target, row + 1, prev, rowbytes, channels);
        if (status != CPNG_OK) goto done;
    }
done:
    free(zeros);
    free(filtered);
    return status;
}

/// Adam7's seven passes: first column and row, column and row steps.
static const uint8_t adam7[7][4] = {{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4}, {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}};

int cpng_check_image_data(const uint8_t *png, size_t length, uint32_t bits_per_pixel, uint32_t width, uint32_t height,
                          int interlaced) {
    if (bits_per_pixel == 0 || width == 0 || height == 0) return CPNG_EMEMORY;
    // The reduced images (one for a plain file, up to seven for Adam7; an empty one has no
    // rows and no filter bytes), each as rows of `rowbytes` plus their filter type byte.
    size_t rowbytes[7];
    uint32_t rows[7];
    int passes = 0;
    size_t filtered_length = 0;
    for (int pass = 0; pass < (interlaced ? 7 : 1); pass++) {
        const uint32_t x0 = interlaced ? adam7[pass][0] : 0, y0 = interlaced ? adam7[pass][1] : 0;
        const uint32_t dx = interlaced ? adam7[pass][2] : 1, dy = interlaced ? adam7[pass][3] : 1;
        if (width <= x0 || height <= y0) continue;
        const uint64_t columns = ((uint64_t)width - x0 + dx - 1) / dx, lines = ((uint64_t)height - y0 + dy - 1) / dy;
        const uint64_t bytes = (columns * bits_per_pixel + 7) / 8;
        if (bytes + 1 > (SIZE_MAX - filtered_length) / lines) return CPNG_EMEMORY;
        filtered_length += (size_t)(bytes + 1) * (size_t)lines;
        rowbytes[passes] = (size_t)bytes;
        rows[passes] = (uint32_t)lines;
        passes++;
    }
    // Cleared: with more data than the image holds, libdeflate stops without saying how much
    // it wrote, and the rows are then checked as far as they are known.
    uint8_t *filtered = calloc(filtered_length, 1);
    if (!filtered) return CPNG_EMEMORY;
    int extra = 0;
    int status = inflate_image_data(png, length, filtered, filtered_length, &extra);
    if (status != CPNG_OK) goto done;
    size_t at = 0;
    for (int pass = 0; pass < passes; pass++) {
        for (uint32_t y = 0; y < rows[pass]; y++, at += rowbytes[pass] + 1) {
            if (filtered[at] > 4) { status = CPNG_EFILTER; goto done; }
        }
    }
done:
    free(filtered);
    return status;
}
