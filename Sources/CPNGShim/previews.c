// Previews of a PNG while its bytes arrive (see CPNGShim.h), over libpng's progressive reader:
// png_process_data takes the bytes in any pieces and calls back with the header (once the
// chunks before the image data are read), with each row (or each row of an Adam7 pass), and at
// the end. libpng reports errors with longjmp, so the setjmp lives here, in cpng_rows_append,
// the only call that runs libpng's decoding.
#include "CPNGShim.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum phase { PHASE_READING, PHASE_DONE, PHASE_DEAD };

// Adam7: each pass's first column and row, and its column and row steps.
static const uint32_t pass_x0[7] = {0, 4, 0, 2, 0, 1, 0};
static const uint32_t pass_y0[7] = {0, 0, 4, 0, 2, 0, 1};
static const uint32_t pass_dx[7] = {8, 8, 4, 4, 2, 2, 1};
static const uint32_t pass_dy[7] = {8, 8, 8, 4, 4, 2, 2};
// The grid the pixels of passes 1...p fill together: the nearest one above-left is shown.
static const uint32_t grid_dx[7] = {8, 4, 4, 2, 2, 1, 1};
static const uint32_t grid_dy[7] = {8, 8, 4, 4, 2, 2, 1};

struct cpng_rows {
    png_structp png;
    png_infop info;
    enum phase phase;
    int status_when_dead;
    uint64_t max_pixels;
    /// Set by the info callback: the image is allocated and rows may come.
    int ready;
    uint32_t width, height, channels;
    int interlaced;
    /// Each Adam7 pass's width and height in pixels (0 for a pass with no pixels).
    uint32_t pass_width[7], pass_height[7];
    /// The image at full size, `width × height × channels` bytes: the rows (or the passes'
    /// pixels) so far, the rest mid-grey with alpha 0.
    uint8_t *image;
    size_t image_size;
    uint32_t rows_done, passes_done;
    char message[160];
};

static void on_error(png_structp png, png_const_charp message) {
    cpng_rows *d = (cpng_rows *)png_get_error_ptr(png);
    snprintf(d->message, sizeof d->message, "libpng: %s", message ? message : "error");
    png_longjmp(png, 1);
}

// Warnings (a bad ancillary CRC, extra compressed data) are not printed: the final decode
// judges the file, and a preview is best effort.
static void on_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

static void on_info(png_structp png, png_infop info) {
    cpng_rows *d = (cpng_rows *)png_get_progressive_ptr(png);
    png_uint_32 width = 0, height = 0;
    int depth = 0, colour_type = 0, interlace = 0;
    png_get_IHDR(png, info, &width, &height, &depth, &colour_type, &interlace, NULL, NULL);
    // Before libpng or this allocates anything the size of the image.
    if (d->max_pixels && (uint64_t)width * height > d->max_pixels) png_error(png, "more pixels than the decoding limit");
    // Samples as the final decode (libvips) gives them: a palette becomes RGB, grey of 1, 2 or
    // 4 bits 8-bit grey, a tRNS chunk an alpha band; 16-bit colour samples their high byte (its
    // RGB16 to sRGB), 16-bit grey v / 257 rounded (its GREY16 to B_W). Grey stays grey.
    png_set_expand(png);
    if (colour_type & PNG_COLOR_MASK_COLOR) {
        png_set_strip_16(png);
    } else {
        png_set_scale_16(png);
    }
    // No png_set_interlace_handling: an interlaced image's rows come pass by pass at the
    // pass's own width, and on_row places each pixel where it belongs.
    png_read_update_info(png, info);
    uint32_t channels = png_get_channels(png, info);
    if (png_get_bit_depth(png, info) != 8 || channels < 1 || channels > 4 ||
        png_get_rowbytes(png, info) != (size_t)width * channels)
        png_error(png, "an unexpected row layout after the transforms");
    size_t pixels = (size_t)width * height;
    if (pixels > SIZE_MAX / 4) png_error(png, "out of memory");
    d->image_size = pixels * channels;
    d->image = malloc(d->image_size ? d->image_size : 1);
    if (!d->image) png_error(png, "out of memory");
    if (channels == 2 || channels == 4) {
        for (size_t i = 0; i < pixels; i++) {
            uint8_t *px = d->image + i * channels;
            memset(px, 128, channels - 1);
            px[channels - 1] = 0;
        }
    } else {
        memset(d->image, 128, d->image_size);
    }
    d->width = width;
    d->height = height;
    d->channels = channels;
    d->interlaced = interlace != PNG_INTERLACE_NONE;
    for (int p = 0; p < 7; p++) {
        d->pass_width[p] = width > pass_x0[p] ? (width - pass_x0[p] + pass_dx[p] - 1) / pass_dx[p] : 0;
        d->pass_height[p] = height > pass_y0[p] ? (height - pass_y0[p] + pass_dy[p] - 1) / pass_dy[p] : 0;
        if (!d->pass_width[p]) d->pass_height[p] = 0;
    }
    d->ready = 1;
}

/// Marks pass `pass` complete, and the empty passes after it (libpng skips those).
static void complete_pass(cpng_rows *d, uint32_t pass) {
    d->passes_done = pass + 1;
    while (d->passes_done < 7 && d->pass_height[d->passes_done] == 0) d->passes_done++;
}

static void on_row(png_structp png, png_bytep row, png_uint_32 number, int pass) {
    cpng_rows *d = (cpng_rows *)png_get_progressive_ptr(png);
    if (!row || !d->ready) return;
    size_t oc = d->channels, stride = (size_t)d->width * oc;
    if (!d->interlaced) {
        if (number >= d->height) return;
        memcpy(d->image + (size_t)number * stride, row, stride);
        d->rows_done = number + 1;
        return;
    }
    if (pass < 0 || pass > 6 || number >= d->pass_height[pass]) return;
    uint32_t y = pass_y0[pass] + number * pass_dy[pass];
    uint8_t *line = d->image + (size_t)y * stride;
    for (uint32_t i = 0; i < d->pass_width[pass]; i++)
        memcpy(line + (size_t)(pass_x0[pass] + i * pass_dx[pass]) * oc, row + (size_t)i * oc, oc);
    if (number + 1 == d->pass_height[pass]) complete_pass(d, (uint32_t)pass);
}

static void on_end(png_structp png, png_infop info) {
    (void)info;
    cpng_rows *d = (cpng_rows *)png_get_progressive_ptr(png);
    d->phase = PHASE_DONE;
}

cpng_rows *cpng_rows_new(uint64_t max_pixels) {
    cpng_rows *d = calloc(1, sizeof(cpng_rows));
    if (!d) return NULL;
    d->max_pixels = max_pixels;
    d->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, d, on_error, on_warning);
    if (d->png) d->info = png_create_info_struct(d->png);
    if (!d->png || !d->info) {
        cpng_rows_free(d);
        return NULL;
    }
    // libpng's own bound on the header (its default is a million pixels a side), before the
    // info callback's pixel count.
    png_uint_32 side = max_pixels && max_pixels < 0x7FFFFFFF ? (png_uint_32)max_pixels : 0x7FFFFFFF;
    png_set_user_limits(d->png, side, side);
    // Only the chunks a preview needs: every ancillary chunk but tRNS is skipped unread.
    png_set_keep_unknown_chunks(d->png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);
    // zlib checks the Adler-32 in the call that inflates the last rows, and libpng drops those
    // rows when it fails: a preview shows them (the final decode judges the checksum).
    png_set_option(d->png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
    png_set_progressive_read_fn(d->png, d, on_info, on_row, on_end);
    return d;
}

void cpng_rows_free(cpng_rows *d) {
    if (!d) return;
    if (d->png) png_destroy_read_struct(&d->png, d->info ? &d->info : NULL, NULL);
    free(d->image);
    free(d);
}

int cpng_rows_append(cpng_rows *d, const uint8_t *bytes, size_t count) {
    if (d->phase == PHASE_DEAD) return d->status_when_dead;
    if (d->phase == PHASE_DONE) return CPNG_OK;   // bytes after IEND are ignored
    if (count == 0) return CPNG_ROWS_NEED_MORE;
    if (setjmp(png_jmpbuf(d->png))) {
        if (d->ready && (d->interlaced ? d->passes_done == 7 : d->rows_done == d->height)) {
            // Every row is in: what libpng checks after the last one (the Adler-32, the last
            // IDAT's CRC, the chunks after it) is the final decode's to judge, as a preview is
            // best effort; the previews end with the whole image.
            d->phase = PHASE_DONE;
            return CPNG_OK;
        }
        d->phase = PHASE_DEAD;
        uint64_t pixels = (uint64_t)png_get_image_width(d->png, d->info) * png_get_image_height(d->png, d->info);
        if (d->max_pixels && pixels > d->max_pixels) {
            // The info callback's check, or libpng's user limits on the header.
            d->status_when_dead = CPNG_ROWS_ETOOLARGE;
        } else {
            d->status_when_dead = d->ready ? CPNG_ROWS_ELIBPNG : CPNG_ROWS_EFORMAT;
        }
        return d->status_when_dead;
    }
    png_process_data(d->png, d->info, (png_bytep)bytes, count);
    return d->phase == PHASE_DONE ? CPNG_OK : CPNG_ROWS_NEED_MORE;
}

const char *cpng_rows_message(const cpng_rows *d) { return d->message; }

int cpng_rows_info(const cpng_rows *d, uint32_t *width, uint32_t *height, uint32_t *channels, int *interlaced) {
    if (d->phase == PHASE_DEAD) return d->status_when_dead;
    if (!d->ready) return CPNG_ROWS_NEED_MORE;
    *width = d->width;
    *height = d->height;
    *channels = d->channels;
    *interlaced = d->interlaced;
    return CPNG_OK;
}

uint32_t cpng_rows_progress(const cpng_rows *d) {
    if (d->phase == PHASE_DEAD || !d->ready) return 0;
    return d->interlaced ? d->passes_done : d->rows_done;
}

int cpng_rows_render(const cpng_rows *d, uint8_t *out, size_t capacity) {
    if (d->phase == PHASE_DEAD) return d->status_when_dead;
    if (!d->ready || cpng_rows_progress(d) == 0) return CPNG_ROWS_NEED_MORE;
    if (capacity < d->image_size) return CPNG_EMEMORY;
    if (!d->interlaced || d->passes_done == 7) {
        memcpy(out, d->image, d->image_size);
        return CPNG_OK;
    }
    uint32_t gx = grid_dx[d->passes_done - 1], gy = grid_dy[d->passes_done - 1];
    size_t oc = d->channels, stride = (size_t)d->width * oc;
    for (uint32_t y = 0; y < d->height; y++) {
        const uint8_t *source = d->image + (size_t)(y - y % gy) * stride;
        uint8_t *target = out + (size_t)y * stride;
        for (uint32_t x = 0; x < d->width; x++) memcpy(target + (size_t)x * oc, source + (size_t)(x - x % gx) * oc, oc);
    }
    return CPNG_OK;
}
