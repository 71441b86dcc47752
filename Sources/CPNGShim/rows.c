// Previews of a PNG while its bytes arrive (see CPNGShim.h): a chunk reader that takes the
// bytes in any pieces, zlib's streaming inflate, and the five row filters.
#include "CPNGShim.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

enum rows_state { ST_SIGNATURE, ST_CHUNK_HEAD, ST_SMALL, ST_IDAT, ST_SKIP, ST_DONE, ST_DEAD };

// Adam7: each pass's first column and row, and its column and row steps.
static const uint32_t pass_x0[7] = {0, 4, 0, 2, 0, 1, 0};
static const uint32_t pass_y0[7] = {0, 0, 4, 0, 2, 0, 1};
static const uint32_t pass_dx[7] = {8, 8, 4, 4, 2, 2, 1};
static const uint32_t pass_dy[7] = {8, 8, 8, 4, 4, 2, 2};
// The grid the pixels of passes 1...p fill together: the nearest one above-left is shown.
static const uint32_t grid_dx[7] = {8, 4, 4, 2, 2, 1, 1};
static const uint32_t grid_dy[7] = {8, 8, 4, 4, 2, 2, 1};

struct cpng_rows {
    enum rows_state state;
    int status_when_dead;
    uint64_t max_pixels;
    // Bytes gathered for the signature, a chunk header or a small chunk's data.
    uint8_t small[1024];
    size_t small_len;
    size_t small_need;
    uint32_t chunk_type;
    size_t remaining;
    int seen_header;
    int seen_idat;
    // The header.
    uint32_t width, height;
    uint8_t depth, colour_type, interlaced;
    // The palette and transparency.
    uint8_t palette[256 * 3];
    uint32_t palette_count;
    uint8_t trns[256];
    uint32_t trns_len;
    // The image data.
    z_stream zs;
    int zs_ready;
    int stream_ended;
    uint32_t in_channels, bits_per_pixel, filter_bpp;
    uint32_t out_channels;
    uint8_t *image;
    size_t image_size;
    uint8_t *row, *previous;
    size_t row_capacity;
    // Where the decode is: the pass (0 for a non-interlaced image), its size, the row in it,
    // and the bytes of the current row (filter byte first) inflated so far.
    uint32_t pass, pass_width, pass_height, pass_row;
    size_t row_bytes, row_filled;
    uint32_t rows_done, passes_done;
};

static int die(cpng_rows *d, int status) {
    d->state = ST_DEAD;
    d->status_when_dead = status;
    return status;
}

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

static uint32_t type_code(const char *t) { return be32((const uint8_t *)t); }

cpng_rows *cpng_rows_new(uint64_t max_pixels) {
    cpng_rows *d = calloc(1, sizeof(cpng_rows));
    if (!d) return NULL;
    d->max_pixels = max_pixels;
    d->state = ST_SIGNATURE;
    d->small_need = 8;
    return d;
}

void cpng_rows_free(cpng_rows *d) {
    if (!d) return;
    if (d->zs_ready) inflateEnd(&d->zs);
    free(d->image);
    free(d->row);
    free(d->previous);
    free(d);
}

static int check_header(cpng_rows *d) {
    const uint8_t *p = d->small;
    d->width = be32(p);
    d->height = be32(p + 4);
    d->depth = p[8];
    d->colour_type = p[9];
    d->interlaced = p[12];
    if (d->width == 0 || d->height == 0 || d->width > 0x7FFFFFFF || d->height > 0x7FFFFFFF) return CPNG_ROWS_EFORMAT;
    if (p[10] != 0 || p[11] != 0 || d->interlaced > 1) return CPNG_ROWS_EFORMAT;
    uint8_t t = d->colour_type, b = d->depth;
    int ok = (t == 0 && (b == 1 || b == 2 || b == 4 || b == 8 || b == 16)) || (t == 3 && (b == 1 || b == 2 || b == 4 || b == 8)) ||
             ((t == 2 || t == 4 || t == 6) && (b == 8 || b == 16));
    if (!ok) return CPNG_ROWS_EFORMAT;
    if (d->max_pixels && (uint64_t)d->width * d->height > d->max_pixels) return CPNG_ROWS_ETOOLARGE;
    d->in_channels = t == 0 || t == 3 ? 1 : t == 4 ? 2 : t == 2 ? 3 : 4;
    d->bits_per_pixel = d->in_channels * b;
    d->filter_bpp = d->bits_per_pixel < 8 ? 1 : d->bits_per_pixel / 8;
    return CPNG_OK;
}

/// The bytes of one row (without its filter byte) of `width` pixels.
static size_t row_size(const cpng_rows *d, uint32_t width) { return ((size_t)width * d->bits_per_pixel + 7) / 8; }

/// Moves to the next pass that has pixels (or past the last): `pass_height` 0 means done.
static void begin_pass(cpng_rows *d, uint32_t pass) {
    for (; pass < 7; pass++) {
        uint32_t w = d->width > pass_x0[pass] ? (d->width - pass_x0[pass] + pass_dx[pass] - 1) / pass_dx[pass] : 0;
        uint32_t h = d->height > pass_y0[pass] ? (d->height - pass_y0[pass] + pass_dy[pass] - 1) / pass_dy[pass] : 0;
        if (w && h) {
            d->pass = pass;
            d->pass_width = w;
            d->pass_height = h;
            d->pass_row = 0;
            d->row_bytes = row_size(d, w) + 1;
            d->row_filled = 0;
            memset(d->previous, 0, d->row_capacity);
            return;
        }
        // An empty pass is complete at once.
        d->passes_done = pass + 1;
    }
    d->pass = 7;
    d->pass_height = 0;
}

/// The first image data chunk: the output's bands are known (palette and tRNS come before it).
static int start_image(cpng_rows *d) {
    uint8_t t = d->colour_type;
    int alpha = t == 4 || t == 6 || d->trns_len > 0;
    int colour = t == 2 || t == 3 || t == 6;
    d->out_channels = (colour ? 3 : 1) + (alpha ? 1 : 0);
    size_t pixels = (size_t)d->width * d->height;
    if (pixels > SIZE_MAX / 4) return CPNG_EMEMORY;
    d->image_size = pixels * d->out_channels;
    d->image = malloc(d->image_size);
    d->row_capacity = row_size(d, d->width) + 1;
    d->row = malloc(d->row_capacity);
    d->previous = malloc(d->row_capacity);
    if (!d->image || !d->row || !d->previous) return CPNG_EMEMORY;
    if (alpha) {
        for (size_t i = 0; i < pixels; i++) {
            uint8_t *px = d->image + i * d->out_channels;
            memset(px, 128, d->out_channels - 1);
            px[d->out_channels - 1] = 0;
        }
    } else {
        memset(d->image, 128, d->image_size);
    }
    if (inflateInit(&d->zs) != Z_OK) return CPNG_EMEMORY;
    d->zs_ready = 1;
    if (d->interlaced) {
        begin_pass(d, 0);
    } else {
        d->pass = 0;
        d->pass_width = d->width;
        d->pass_height = d->height;
        d->pass_row = 0;
        d->row_bytes = d->row_capacity;
        d->row_filled = 0;
        memset(d->previous, 0, d->row_capacity);
    }
    return CPNG_OK;
}

static uint8_t paeth(uint8_t a, uint8_t b, uint8_t c) {
    int p = (int)a + b - c;
    int pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    if (pa <= pb && pa <= pc) return a;
    return pb <= pc ? b : c;
}

/// Writes the unfiltered row `raw` (of the current pass) into the image.
static void place_row(cpng_rows *d, const uint8_t *raw) {
    uint32_t x0 = d->interlaced ? pass_x0[d->pass] : 0, dx = d->interlaced ? pass_dx[d->pass] : 1;
    uint32_t y = d->interlaced ? pass_y0[d->pass] + d->pass_row * pass_dy[d->pass] : d->pass_row;
    uint8_t t = d->colour_type, b = d->depth;
    uint32_t oc = d->out_channels;
    uint8_t *line = d->image + (size_t)y * d->width * oc;
    uint32_t mask = (1u << (b < 8 ? b : 8)) - 1;
    for (uint32_t i = 0; i < d->pass_width; i++) {
        uint8_t *px = line + (size_t)(x0 + i * dx) * oc;
        if (t == 0 || t == 3) {
            uint32_t v;
            if (b < 8) {
                size_t bit = (size_t)i * b;
                v = (raw[bit / 8] >> (8 - b - bit % 8)) & mask;
            } else if (b == 8) {
                v = raw[i];
            } else {
                v = (uint32_t)raw[2 * i] << 8 | raw[2 * i + 1];
            }
            if (t == 3) {
                if (v < d->palette_count) {
                    memcpy(px, d->palette + 3 * v, 3);
                } else {
                    memset(px, 0, 3);
                }
                if (oc == 4) px[3] = v < d->trns_len ? d->trns[v] : 255;
            } else {
                px[0] = b < 8 ? (uint8_t)(v * 255 / mask) : b == 8 ? (uint8_t)v : (uint8_t)(v >> 8);
                if (oc == 2) px[1] = d->trns_len >= 2 && v == ((uint32_t)d->trns[0] << 8 | d->trns[1]) ? 0 : 255;
            }
        } else {
            uint32_t n = d->in_channels, step = b / 8;
            const uint8_t *s = raw + (size_t)i * n * step;
            for (uint32_t c = 0; c < n; c++) px[c] = s[c * step];
            if (t == 2 && oc == 4) {
                int transparent = d->trns_len >= 6;
                for (uint32_t c = 0; c < 3 && transparent; c++) {
                    uint32_t value = step == 2 ? ((uint32_t)s[2 * c] << 8 | s[2 * c + 1]) : s[c];
                    uint32_t key = (uint32_t)d->trns[2 * c] << 8 | d->trns[2 * c + 1];
                    transparent = value == key;
                }
                px[3] = transparent ? 0 : 255;
            }
        }
    }
}

/// A whole row (filter byte first) was inflated: unfilters it, places it, moves on.
static int finish_row(cpng_rows *d) {
    uint8_t filter = d->row[0];
    uint8_t *cur = d->row + 1, *prev = d->previous + 1;
    size_t n = d->row_bytes - 1, bpp = d->filter_bpp;
    switch (filter) {
    case 0: break;
    case 1: for (size_t i = bpp; i < n; i++) cur[i] += cur[i - bpp]; break;
    case 2: for (size_t i = 0; i < n; i++) cur[i] += prev[i]; break;
    case 3:
        for (size_t i = 0; i < n; i++) cur[i] += (uint8_t)(((i >= bpp ? cur[i - bpp] : 0) + prev[i]) / 2);
        break;
    case 4:
        for (size_t i = 0; i < n; i++) cur[i] += paeth(i >= bpp ? cur[i - bpp] : 0, prev[i], i >= bpp ? prev[i - bpp] : 0);
        break;
    default: return CPNG_EFILTER;
    }
    place_row(d, cur);
    uint8_t *swap = d->previous;
    d->previous = d->row;
    d->row = swap;
    d->row_filled = 0;
    d->pass_row++;
    if (!d->interlaced) {
        d->rows_done = d->pass_row;
        if (d->pass_row == d->height) d->pass_height = 0;
    } else if (d->pass_row == d->pass_height) {
        d->passes_done = d->pass + 1;
        begin_pass(d, d->pass + 1);
    }
    return CPNG_OK;
}

/// Inflates `count` bytes of image data into rows.
static int inflate_data(cpng_rows *d, const uint8_t *bytes, size_t count) {
    if (d->stream_ended) return CPNG_OK;
    d->zs.next_in = (Bytef *)bytes;
    while (count > 0) {
        uInt chunk = count > 0x40000000 ? 0x40000000 : (uInt)count;
        d->zs.avail_in = chunk;
        while (d->zs.avail_in > 0) {
            if (d->pass_height == 0) return CPNG_OK;   // every row is there: the rest is ignored
            d->zs.next_out = d->row + d->row_filled;
            d->zs.avail_out = (uInt)(d->row_bytes - d->row_filled);
            int z = inflate(&d->zs, Z_NO_FLUSH);
            d->row_filled = d->row_bytes - d->zs.avail_out;
            if (d->row_filled == d->row_bytes) {
                int status = finish_row(d);
                if (status != CPNG_OK) return status;
            }
            // The last row is in: what zlib read after it (the end of the stream and its
            // Adler-32, which inflate checks when it has those bytes at once) is ignored, as it
            // is when it comes in a later piece. Checksums are the final decode's to judge.
            if (d->pass_height == 0) return CPNG_OK;
            if (z == Z_STREAM_END) {
                d->stream_ended = 1;
                return CPNG_OK;
            }
            if (z == Z_BUF_ERROR) break;
            if (z != Z_OK) return z == Z_MEM_ERROR ? CPNG_EMEMORY : CPNG_EZLIB;
        }
        count -= chunk - d->zs.avail_in;
        if (d->zs.avail_in > 0) break;
    }
    return CPNG_OK;
}

/// A chunk header was gathered: where its data goes.
static int begin_chunk(cpng_rows *d) {
    uint32_t length = be32(d->small);
    uint32_t type = be32(d->small + 4);
    if (length > 0x7FFFFFFF) return CPNG_ROWS_EFORMAT;
    d->chunk_type = type;
    d->small_len = 0;
    if (!d->seen_header) {
        if (type != type_code("IHDR") || length != 13) return CPNG_ROWS_EFORMAT;
        d->state = ST_SMALL;
        d->small_need = length;
        return CPNG_OK;
    }
    if (type == type_code("IDAT")) {
        if (!d->seen_idat) {
            if (d->colour_type == 3 && d->palette_count == 0) return CPNG_ROWS_EFORMAT;
            int status = start_image(d);
            if (status != CPNG_OK) return status;
            d->seen_idat = 1;
        }
        d->state = ST_IDAT;
        d->remaining = length;
        return CPNG_OK;
    }
    if (type == type_code("IEND")) {
        d->state = ST_DONE;
        return CPNG_OK;
    }
    if (!d->seen_idat && ((type == type_code("PLTE") && length <= 768 && length % 3 == 0) ||
                          (type == type_code("tRNS") && length <= 256))) {
        d->state = ST_SMALL;
        d->small_need = length;
        return CPNG_OK;
    }
    d->state = ST_SKIP;
    d->remaining = (size_t)length + 4;
    return CPNG_OK;
}

/// A small chunk's data was gathered.
static int end_small_chunk(cpng_rows *d) {
    uint32_t type = d->chunk_type;
    if (type == type_code("IHDR")) {
        int status = check_header(d);
        if (status != CPNG_OK) return status;
        d->seen_header = 1;
    } else if (type == type_code("PLTE")) {
        memcpy(d->palette, d->small, d->small_len);
        d->palette_count = (uint32_t)(d->small_len / 3);
    } else if (type == type_code("tRNS")) {
        uint8_t t = d->colour_type;
        size_t wanted = t == 0 ? 2 : t == 2 ? 6 : t == 3 ? d->small_len : 0;
        // A tRNS chunk of the wrong size (or for a type with alpha) is ignored, as libpng does.
        if (wanted && d->small_len == wanted && (t != 3 || wanted <= 256)) {
            memcpy(d->trns, d->small, d->small_len);
            d->trns_len = (uint32_t)d->small_len;
        }
    }
    d->state = ST_SKIP;
    d->remaining = 4;   // the CRC
    return CPNG_OK;
}

int cpng_rows_append(cpng_rows *d, const uint8_t *bytes, size_t count) {
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
    if (d->state == ST_DEAD) return d->status_when_dead;
    while (count > 0 && d->state != ST_DONE) {
        int status = CPNG_OK;
        switch (d->state) {
        case ST_SIGNATURE:
        case ST_CHUNK_HEAD:
        case ST_SMALL: {
            size_t take = d->small_need - d->small_len;
            if (take > count) take = count;
            memcpy(d->small + d->small_len, bytes, take);
            d->small_len += take;
            bytes += take;
            count -= take;
            if (d->small_len < d->small_need) break;
            if (d->state == ST_SIGNATURE) {
                if (memcmp(d->small, signature, 8) != 0) status = CPNG_ROWS_EFORMAT;
                d->state = ST_CHUNK_HEAD;
                d->small_len = 0;
                d->small_need = 8;
            } else if (d->state == ST_CHUNK_HEAD) {
                status = begin_chunk(d);
            } else {
                status = end_small_chunk(d);
            }
            break;
        }
        case ST_IDAT: {
            size_t take = d->remaining < count ? d->remaining : count;
            status = inflate_data(d, bytes, take);
            bytes += take;
            count -= take;
            d->remaining -= take;
            if (d->remaining == 0) {
                d->state = ST_SKIP;
                d->remaining = 4;
            }
            break;
        }
        case ST_SKIP: {
            size_t take = d->remaining < count ? d->remaining : count;
            bytes += take;
            count -= take;
            d->remaining -= take;
            if (d->remaining == 0) {
                d->state = ST_CHUNK_HEAD;
                d->small_len = 0;
                d->small_need = 8;
            }
            break;
        }
        default: break;
        }
        if (status != CPNG_OK) return die(d, status);
    }
    return d->state == ST_DONE ? CPNG_OK : CPNG_ROWS_NEED_MORE;
}

int cpng_rows_info(const cpng_rows *d, uint32_t *width, uint32_t *height, uint32_t *channels, int *interlaced) {
    if (d->state == ST_DEAD) return d->status_when_dead;
    if (!d->seen_idat) return CPNG_ROWS_NEED_MORE;
    *width = d->width;
    *height = d->height;
    *channels = d->out_channels;
    *interlaced = d->interlaced;
    return CPNG_OK;
}

uint32_t cpng_rows_progress(const cpng_rows *d) {
    if (d->state == ST_DEAD || !d->seen_idat) return 0;
    return d->interlaced ? d->passes_done : d->rows_done;
}

int cpng_rows_render(const cpng_rows *d, uint8_t *out, size_t capacity) {
    if (d->state == ST_DEAD) return d->status_when_dead;
    if (!d->seen_idat || cpng_rows_progress(d) == 0) return CPNG_ROWS_NEED_MORE;
    if (capacity < d->image_size) return CPNG_EMEMORY;
    if (!d->interlaced || d->passes_done == 7) {
        memcpy(out, d->image, d->image_size);
        return CPNG_OK;
    }
    uint32_t gx = grid_dx[d->passes_done - 1], gy = grid_dy[d->passes_done - 1];
    size_t oc = d->out_channels, stride = (size_t)d->width * oc;
    for (uint32_t y = 0; y < d->height; y++) {
        const uint8_t *source = d->image + (size_t)(y - y % gy) * stride;
        uint8_t *target = out + (size_t)y * stride;
        for (uint32_t x = 0; x < d->width; x++) memcpy(target + (size_t)x * oc, source + (size_t)(x - x % gx) * oc, oc);
    }
    return CPNG_OK;
}
