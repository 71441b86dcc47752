#ifndef CJPEGSHIM_H
#define CJPEGSHIM_H
// Previews of a JPEG while its bytes arrive, over a suspending source: libjpeg's buffered-image
// mode renders a progressive file's completed scans, and its ordinary scanline decoding keeps
// the rows of a single-scan (baseline) file decoded so far, the rest mid-grey. Bytes are appended as they come; each call consumes what it can and
// reports "need more data" instead of blocking or reading past what it was given. libjpeg's
// errors (setjmp/longjmp) stay inside this file: every entry point returns a status.
#include <stddef.h>
#include <stdint.h>

/// The result codes of the pjpeg_* calls.
enum pjpeg_status {
    PJPEG_OK = 0,
    /// More bytes are needed before anything new can be decoded.
    PJPEG_NEED_MORE = 1,
    /// The header is read: call pjpeg_image_size, then pjpeg_start with the scale.
    PJPEG_HEADER_READY = 2,
    /// The file is not a JPEG this shim previews (CMYK, 12-bit, arithmetic-coded, a sequential
    /// file in several scans, or a baseline file when rows were not asked for…).
    PJPEG_UNSUPPORTED = -1,
    /// libjpeg failed (damaged data); the message is in pjpeg_message. The decoder is dead.
    PJPEG_ERROR = -2,
    /// Out of memory, or more unread bytes than the limit given to pjpeg_new.
    PJPEG_EMEMORY = -3,
    /// The image has more pixels than the limit given to pjpeg_new.
    PJPEG_ETOOLARGE = -4,
};

typedef struct pjpeg_decoder pjpeg_decoder;

/// A decoder. `max_pixels` bounds the declared image (0: no bound); `max_buffered` the unread
/// bytes kept (0: no bound); `allows_rows` non-zero decodes a single-scan file row by row (else
/// it is PJPEG_UNSUPPORTED). NULL when out of memory.
pjpeg_decoder *pjpeg_new(uint64_t max_pixels, size_t max_buffered, int allows_rows);

/// Frees the decoder and everything libjpeg allocated for it; NULL is ignored.
void pjpeg_free(pjpeg_decoder *decoder);

/// Appends the next `count` bytes of the file and consumes as much as they allow. Returns
/// PJPEG_OK or PJPEG_NEED_MORE (both: go on), PJPEG_HEADER_READY (until pjpeg_start is called)
/// or an error. Only an 8-bit, Huffman-coded, grey, YCbCr or RGB JPEG, progressive or (with
/// `allows_rows`) in a single scan, gets past its header.
int pjpeg_append(pjpeg_decoder *decoder, const uint8_t *bytes, size_t count);

/// The image's declared size, once the header was read (else PJPEG_NEED_MORE).
int pjpeg_image_size(const pjpeg_decoder *decoder, uint32_t *width, uint32_t *height);

/// Starts decoding at the DCT scale 1/`scale_denominator` (1, 2, 4 or 8), buffered-image for a
/// progressive file, row by row for a single-scan one (whose output buffer of
/// `width × height × channels` bytes at that scale is allocated here, mid-grey), and consumes
/// the bytes already appended; returns as pjpeg_append.
int pjpeg_start(pjpeg_decoder *decoder, unsigned scale_denominator);

/// The number of scans whose data has arrived completely (0 before the first one ends; always
/// 0 for a file decoded row by row).
int pjpeg_completed_scans(const pjpeg_decoder *decoder);

/// Non-zero once the header showed a single-scan file that is decoded row by row.
int pjpeg_is_sequential(const pjpeg_decoder *decoder);

/// The rows decoded so far at the output scale, for a file decoded row by row (else 0).
uint32_t pjpeg_completed_rows(const pjpeg_decoder *decoder);

/// The preview's size, known once the header was read (else PJPEG_NEED_MORE): width and height
/// in pixels at the chosen scale, channels 1 (grey) or 3 (RGB).
int pjpeg_output_size(const pjpeg_decoder *decoder, uint32_t *width, uint32_t *height, uint32_t *channels);

/// Renders the completed scans, or copies the rows decoded so far (the rest mid-grey), into
/// `pixels` (`width × height × channels` bytes, rows packed, of pjpeg_output_size; `capacity`
/// is checked). PJPEG_NEED_MORE when no scan (or no row) is complete.
int pjpeg_render(pjpeg_decoder *decoder, uint8_t *pixels, size_t capacity);

/// libjpeg's message for the last PJPEG_ERROR, or "".
const char *pjpeg_message(const pjpeg_decoder *decoder);

#endif
