// Progressive JPEG previews over libjpeg's buffered-image mode, and baseline JPEG previews of
// the rows decoded so far over its ordinary scanline decoding (see CJPEGShim.h).
//
// The source manager never blocks: fill_input_buffer answers FALSE ("suspend") when the bytes
// appended so far are used up, and libjpeg backs up to the start of the unit it was reading
// (a marker segment, an MCU), so appending more bytes and calling again resumes there. Only
// the unread bytes are kept: libjpeg never reads behind next_input_byte, so what it has
// consumed is dropped when the buffer is compacted on the next append.
#include "CJPEGShim.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

enum phase { PHASE_HEADER, PHASE_READY, PHASE_STARTING, PHASE_SCANNING, PHASE_DEAD };

struct error_manager {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
};

struct pjpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    struct error_manager error;
    struct jpeg_source_mgr source;
    enum phase phase;
    int status_when_dead;
    uint8_t *buffer;
    size_t capacity;
    /// Bytes libjpeg asked to skip beyond what had arrived (skip_input_data).
    size_t skip_pending;
    /// Scans whose data arrived completely.
    int completed_scans;
    /// Whether an output pass ended while its scan's successor had not arrived yet: libjpeg is
    /// then in its "buffered post" state, and jpeg_finish_output must be called again before
    /// the next jpeg_start_output.
    int finishing_output;
    uint64_t max_pixels;
    size_t max_buffered;
    /// Whether a single-scan (baseline or extended sequential) file is decoded row by row.
    int allows_rows;
    /// Whether this file is decoded row by row (single scan) rather than scan by scan.
    int sequential;
    /// The rows decoded so far at the output scale, the rest mid-grey (sequential only).
    uint8_t *rows;
    size_t rows_size;
    char message[JMSG_LENGTH_MAX];
};

static void error_exit(j_common_ptr cinfo) {
    struct error_manager *error = (struct error_manager *)cinfo->err;
    longjmp(error->jump, 1);
}

// Warnings (corrupt data libjpeg can go on past) are not printed: the final decode reports
// what matters, and a preview is best effort.
static void output_message(j_common_ptr cinfo) { (void)cinfo; }

static void init_source(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean fill_input_buffer(j_decompress_ptr cinfo) {
    (void)cinfo;
    return FALSE;
}

static void skip_input_data(j_decompress_ptr cinfo, long count) {
    if (count <= 0) return;
    struct jpeg_source_mgr *source = cinfo->src;
    pjpeg_decoder *decoder = (pjpeg_decoder *)cinfo->client_data;
    size_t wanted = (size_t)count;
    if (wanted <= source->bytes_in_buffer) {
        source->next_input_byte += wanted;
        source->bytes_in_buffer -= wanted;
    } else {
        decoder->skip_pending += wanted - source->bytes_in_buffer;
        source->next_input_byte += source->bytes_in_buffer;
        source->bytes_in_buffer = 0;
    }
}

static void term_source(j_decompress_ptr cinfo) { (void)cinfo; }

static int die(pjpeg_decoder *decoder, int status) {
    decoder->phase = PHASE_DEAD;
    decoder->status_when_dead = status;
    return status;
}

pjpeg_decoder *pjpeg_new(uint64_t max_pixels, size_t max_buffered, int allows_rows) {
    pjpeg_decoder *decoder = calloc(1, sizeof(pjpeg_decoder));
    if (!decoder) return NULL;
    decoder->max_pixels = max_pixels;
    decoder->max_buffered = max_buffered;
    decoder->allows_rows = allows_rows != 0;
    decoder->cinfo.err = jpeg_std_error(&decoder->error.pub);
    decoder->error.pub.error_exit = error_exit;
    decoder->error.pub.output_message = output_message;
    if (setjmp(decoder->error.jump)) {
        // Only an allocation failure can get here.
        jpeg_destroy_decompress(&decoder->cinfo);
        free(decoder);
        return NULL;
    }
    jpeg_create_decompress(&decoder->cinfo);
    decoder->cinfo.client_data = decoder;
    decoder->source.init_source = init_source;
    decoder->source.fill_input_buffer = fill_input_buffer;
    decoder->source.skip_input_data = skip_input_data;
    decoder->source.resync_to_restart = jpeg_resync_to_restart;
    decoder->source.term_source = term_source;
    decoder->source.next_input_byte = NULL;
    decoder->source.bytes_in_buffer = 0;
    decoder->cinfo.src = &decoder->source;
    decoder->phase = PHASE_HEADER;
    return decoder;
}

void pjpeg_free(pjpeg_decoder *decoder) {
    if (!decoder) return;
    jpeg_destroy_decompress(&decoder->cinfo);
    free(decoder->buffer);
    free(decoder->rows);
    free(decoder);
}

/// Keeps the unread bytes and `count` new ones, contiguous at the start of the buffer.
static int store(pjpeg_decoder *decoder, const uint8_t *bytes, size_t count) {
    size_t skipped = decoder->skip_pending < count ? decoder->skip_pending : count;
    decoder->skip_pending -= skipped;
    bytes += skipped;
    count -= skipped;
    if (count == 0) return PJPEG_OK;
    size_t unread = decoder->source.bytes_in_buffer;
    const uint8_t *next = decoder->source.next_input_byte;
    if (count > SIZE_MAX - unread) return PJPEG_EMEMORY;
    size_t needed = unread + count;
    if (decoder->max_buffered && needed > decoder->max_buffered) return PJPEG_EMEMORY;
    if (needed > decoder->capacity) {
        size_t grown = decoder->capacity > SIZE_MAX / 2 ? SIZE_MAX : decoder->capacity * 2;
        if (grown < needed) grown = needed;
        if (grown < 64 * 1024) grown = 64 * 1024;
        uint8_t *fresh = malloc(grown);
        if (!fresh) return PJPEG_EMEMORY;
        if (unread) memcpy(fresh, next, unread);
        free(decoder->buffer);
        decoder->buffer = fresh;
        decoder->capacity = grown;
    } else if (unread && next != decoder->buffer) {
        memmove(decoder->buffer, next, unread);
    }
    memcpy(decoder->buffer + unread, bytes, count);
    decoder->source.next_input_byte = decoder->buffer;
    decoder->source.bytes_in_buffer = needed;
    return PJPEG_OK;
}

/// Reads the header (once) and every scan the bytes so far allow. Called under setjmp.
static int consume(pjpeg_decoder *decoder) {
    j_decompress_ptr cinfo = &decoder->cinfo;
    if (decoder->phase == PHASE_HEADER) {
        int header = jpeg_read_header(cinfo, TRUE);
        if (header == JPEG_SUSPENDED) return PJPEG_NEED_MORE;
        if (header != JPEG_HEADER_OK) return die(decoder, PJPEG_UNSUPPORTED);
        // libjpeg's arithmetic decoder cannot suspend (it fails with "Suspension not allowed
        // here" when the bytes run out inside a scan), so only Huffman-coded files are previewed.
        if (cinfo->data_precision != 8 || cinfo->arith_code) return die(decoder, PJPEG_UNSUPPORTED);
        if (cinfo->progressive_mode) {
            decoder->sequential = 0;
        } else if (!jpeg_has_multiple_scans(cinfo) && decoder->allows_rows) {
            decoder->sequential = 1;
        } else {
            // A sequential file in several scans (one per component) would show its first
            // component alone, in false colours: no previews.
            return die(decoder, PJPEG_UNSUPPORTED);
        }
        if (cinfo->num_components == 1) {
            cinfo->out_color_space = JCS_GRAYSCALE;
        } else if (cinfo->num_components == 3 && (cinfo->jpeg_color_space == JCS_YCbCr || cinfo->jpeg_color_space == JCS_RGB)) {
            cinfo->out_color_space = JCS_RGB;
        } else {
            return die(decoder, PJPEG_UNSUPPORTED);
        }
        if (decoder->max_pixels && (uint64_t)cinfo->image_width * cinfo->image_height > decoder->max_pixels) {
            return die(decoder, PJPEG_ETOOLARGE);
        }
        decoder->phase = PHASE_READY;
    }
    if (decoder->phase == PHASE_READY) return PJPEG_HEADER_READY;
    if (decoder->phase == PHASE_STARTING) {
        if (!jpeg_start_decompress(cinfo)) return PJPEG_NEED_MORE;
        decoder->phase = PHASE_SCANNING;
    }
    if (decoder->sequential) {
        size_t stride = (size_t)cinfo->output_width * (size_t)cinfo->output_components;
        while (cinfo->output_scanline < cinfo->output_height) {
            JSAMPROW rows[32];
            JDIMENSION count = cinfo->output_height - cinfo->output_scanline;
            if (count > 32) count = 32;
            for (JDIMENSION i = 0; i < count; i++) rows[i] = decoder->rows + (size_t)(cinfo->output_scanline + i) * stride;
            // 0 when the next row group's data has not arrived: libjpeg backs up to the start
            // of the MCU row it was reading and resumes there on the next call.
            if (jpeg_read_scanlines(cinfo, rows, count) == 0) return PJPEG_NEED_MORE;
        }
        return PJPEG_OK;
    }
    while (!jpeg_input_complete(cinfo)) {
        switch (jpeg_consume_input(cinfo)) {
        case JPEG_SUSPENDED:
            return PJPEG_NEED_MORE;
        case JPEG_SCAN_COMPLETED:
        case JPEG_REACHED_EOI:
            decoder->completed_scans = cinfo->input_scan_number;
            break;
        default:
            break;
        }
    }
    return PJPEG_OK;
}

int pjpeg_append(pjpeg_decoder *decoder, const uint8_t *bytes, size_t count) {
    if (decoder->phase == PHASE_DEAD) return decoder->status_when_dead;
    int stored = store(decoder, bytes, count);
    if (stored != PJPEG_OK) return die(decoder, stored);
    if (setjmp(decoder->error.jump)) {
        decoder->error.pub.format_message((j_common_ptr)&decoder->cinfo, decoder->message);
        return die(decoder, PJPEG_ERROR);
    }
    return consume(decoder);
}

int pjpeg_image_size(const pjpeg_decoder *decoder, uint32_t *width, uint32_t *height) {
    if (decoder->phase == PHASE_DEAD) return decoder->status_when_dead;
    if (decoder->phase == PHASE_HEADER) return PJPEG_NEED_MORE;
    *width = decoder->cinfo.image_width;
    *height = decoder->cinfo.image_height;
    return PJPEG_OK;
}

int pjpeg_start(pjpeg_decoder *decoder, unsigned scale_denominator) {
    if (decoder->phase == PHASE_DEAD) return decoder->status_when_dead;
    if (decoder->phase != PHASE_READY) return PJPEG_ERROR;
    if (scale_denominator != 1 && scale_denominator != 2 && scale_denominator != 4 && scale_denominator != 8) {
        return PJPEG_ERROR;
    }
    j_decompress_ptr cinfo = &decoder->cinfo;
    if (setjmp(decoder->error.jump)) {
        decoder->error.pub.format_message((j_common_ptr)cinfo, decoder->message);
        return die(decoder, PJPEG_ERROR);
    }
    cinfo->scale_num = 1;
    cinfo->scale_denom = scale_denominator;
    if (decoder->sequential) {
        // libjpeg's defaults (accurate DCT, fancy upsampling), as TurboJPEG's final decode, so
        // that the rows shown are the final image's rows.
        jpeg_calc_output_dimensions(cinfo);
        size_t stride = (size_t)cinfo->output_width * (size_t)cinfo->output_components;
        if (cinfo->output_height && stride > SIZE_MAX / cinfo->output_height) return die(decoder, PJPEG_EMEMORY);
        decoder->rows_size = stride * cinfo->output_height;
        decoder->rows = malloc(decoder->rows_size ? decoder->rows_size : 1);
        if (!decoder->rows) return die(decoder, PJPEG_EMEMORY);
        memset(decoder->rows, 128, decoder->rows_size);
        decoder->phase = PHASE_STARTING;
        return consume(decoder);
    }
    cinfo->buffered_image = TRUE;
    cinfo->dct_method = JDCT_IFAST;
    // Block smoothing of an early scan wants the DC values of the two rows below the last one
    // output, so rendering a scan that just completed would ask for input that has not come.
    cinfo->do_block_smoothing = FALSE;
    // In buffered-image mode this sets up the passes without reading any input.
    if (!jpeg_start_decompress(cinfo)) return die(decoder, PJPEG_UNSUPPORTED);
    decoder->phase = PHASE_SCANNING;
    return consume(decoder);
}

int pjpeg_completed_scans(const pjpeg_decoder *decoder) {
    return decoder->phase == PHASE_SCANNING && !decoder->sequential ? decoder->completed_scans : 0;
}

int pjpeg_is_sequential(const pjpeg_decoder *decoder) {
    return decoder->phase != PHASE_HEADER && decoder->phase != PHASE_DEAD && decoder->sequential;
}

uint32_t pjpeg_completed_rows(const pjpeg_decoder *decoder) {
    return decoder->phase == PHASE_SCANNING && decoder->sequential ? decoder->cinfo.output_scanline : 0;
}

int pjpeg_output_size(const pjpeg_decoder *decoder, uint32_t *width, uint32_t *height, uint32_t *channels) {
    if (decoder->phase == PHASE_DEAD) return decoder->status_when_dead;
    if (decoder->phase != PHASE_SCANNING) return PJPEG_NEED_MORE;
    *width = decoder->cinfo.output_width;
    *height = decoder->cinfo.output_height;
    *channels = (uint32_t)decoder->cinfo.output_components;
    return PJPEG_OK;
}

int pjpeg_render(pjpeg_decoder *decoder, uint8_t *pixels, size_t capacity) {
    if (decoder->phase == PHASE_DEAD) return decoder->status_when_dead;
    j_decompress_ptr cinfo = &decoder->cinfo;
    if (decoder->sequential) {
        if (decoder->phase != PHASE_SCANNING || cinfo->output_scanline == 0) return PJPEG_NEED_MORE;
        if (capacity < decoder->rows_size) return PJPEG_EMEMORY;
        memcpy(pixels, decoder->rows, decoder->rows_size);
        return PJPEG_OK;
    }
    if (decoder->phase != PHASE_SCANNING || decoder->completed_scans == 0) return PJPEG_NEED_MORE;
    size_t stride = (size_t)cinfo->output_width * (size_t)cinfo->output_components;
    if (cinfo->output_height && stride > capacity / cinfo->output_height) return PJPEG_EMEMORY;
    if (setjmp(decoder->error.jump)) {
        decoder->error.pub.format_message((j_common_ptr)cinfo, decoder->message);
        return die(decoder, PJPEG_ERROR);
    }
    if (decoder->finishing_output) {
        // The scan after the last one rendered has started (a scan completed since), so this
        // finds its start marker in what was consumed and does not suspend.
        if (!jpeg_finish_output(cinfo)) return PJPEG_NEED_MORE;
        decoder->finishing_output = 0;
    }
    if (!jpeg_start_output(cinfo, decoder->completed_scans)) return die(decoder, PJPEG_ERROR);
    while (cinfo->output_scanline < cinfo->output_height) {
        JSAMPROW row = pixels + (size_t)cinfo->output_scanline * stride;
        // The scan rendered is complete in the coefficient buffer: no input is needed, so a
        // suspension here would be a libjpeg surprise, not a lack of bytes.
        if (jpeg_read_scanlines(cinfo, &row, 1) != 1) {
            snprintf(decoder->message, sizeof decoder->message, "the output pass suspended");
            return die(decoder, PJPEG_ERROR);
        }
    }
    if (!jpeg_finish_output(cinfo)) decoder->finishing_output = 1;
    return PJPEG_OK;
}

const char *pjpeg_message(const pjpeg_decoder *decoder) { return decoder->message; }
