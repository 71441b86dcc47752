#ifndef CPNGSHIM_H
#define CPNGSHIM_H
// The pixel data of plain PNGs, decoded without a streaming inflater: Debian's libspng inflates
// through zlib 1.2 row by row and unfilters with scalar code (≈ 50 ms for a 1024×768 RGB photo
// here, against 14 ms for libdeflate's whole-buffer inflate). The chunk structure before the
// image data is libspng's to check; this only reads the IDAT chunks.
#include <stddef.h>
#include <stdint.h>

/// The result codes of cpng_decode_8bit.
enum cpng_status {
    CPNG_OK = 0,
    /// Chunks run past the end, no IDAT, or IDAT chunks that do not follow one another.
    CPNG_ESTRUCTURE = -1,
    /// An IDAT chunk's CRC does not match its bytes.
    CPNG_ECRC = -2,
    /// The zlib stream is damaged, ends early, holds more than the image or leaves bytes unread.
    CPNG_EINFLATE = -3,
    /// A row starts with a filter type other than 0...4.
    CPNG_EFILTER = -4,
    /// Out of memory.
    CPNG_EMEMORY = -5,
    /// The image data ends before the last row.
    CPNG_ESHORT = -6,
    /// The zlib stream of the image data is damaged (a bad block, code or Adler-32).
    CPNG_EZLIB = -7,
};

/// Decodes the pixels of a non-interlaced PNG with 8-bit samples and `channels` samples per
/// pixel (1 grey, 2 grey + alpha, 3 RGB, 4 RGBA: colour types 0, 4, 2, 6; no palette) into
/// `out`, which holds `width * height * channels` bytes, rows packed top to bottom.
///
/// `png` is the whole file (signature first); its IHDR must already have been checked to say
/// `width × height`, 8-bit, non-interlaced, with that colour type. The IDAT chunks must follow
/// one another; their CRCs are checked, and the zlib stream (with its Adler-32) must hold
/// at least the filtered rows (more, which libpng only warns about, is ignored, unless the stream
/// inflates to more than four times the rows: CPNG_EINFLATE). Chunks after the image data are
/// not read.
/// Returns CPNG_OK, or a negative cpng_status (then `out` is partly written).
int cpng_decode_8bit(const uint8_t *png, size_t length, uint32_t width, uint32_t height, int channels, uint8_t *out);

/// Checks the IDAT chunks as cpng_decode_8bit does (they follow one another, none runs past
/// the end, every CRC matches) without decoding them: libspng does not stop on a bad IDAT CRC,
/// and libpng (so libvips) does. Returns CPNG_OK or a negative cpng_status.
int cpng_check_idat(const uint8_t *png, size_t length);

/// Non-zero when a chunk of type `type` (4 ASCII letters) comes before the first IDAT chunk.
/// Stops, returning 0, at the first IDAT or at a chunk that runs past the end.
int cpng_has_chunk_before_idat(const uint8_t *png, size_t length, const char *type);

/// Checks the image data of a PNG without decoding its pixels: every IDAT CRC, the zlib stream
/// (inflated into scratch memory), that it holds every row of the image, each with its filter
/// type, and that every filter type is 0...4. `bits_per_pixel` is the samples per pixel times
/// the bit depth; an interlaced (Adam7) image's rows are those of its seven reduced images.
/// Returns CPNG_OK, CPNG_ESHORT, CPNG_EZLIB, CPNG_EFILTER, or another negative cpng_status.
int cpng_check_image_data(const uint8_t *png, size_t length, uint32_t bits_per_pixel, uint32_t width, uint32_t height,
                          int interlaced);

// Previews of a PNG while its bytes arrive, over libpng's progressive reader (CPNG): it takes
// the bytes in any pieces and hands over each row as it is decoded, which goes into an image at
// full size, so that what has arrived can be shown at any time. Every colour type and bit depth
// is read, with libpng's transforms: samples become 8 bits (16-bit colour: the high byte; 16-bit
// grey: v / 257 rounded, as libvips converts each), a palette RGB, and a tRNS chunk an alpha band. libpng checks the chunks' CRCs and the deflate data (not
// the Adler-32); a preview is best effort, and the final decode judges the file.

/// The result codes of the cpng_rows_* calls, beside the negative cpng_status values.
enum cpng_rows_status {
    /// More bytes are needed before anything new can be decoded (also: go on).
    CPNG_ROWS_NEED_MORE = 1,
    /// The image has more pixels than the limit given to cpng_rows_new.
    CPNG_ROWS_ETOOLARGE = -20,
    /// Not a PNG, or a header or chunk before the image data that libpng refuses.
    CPNG_ROWS_EFORMAT = -21,
    /// libpng stopped in the image data (damaged data); the message is in cpng_rows_message.
    CPNG_ROWS_ELIBPNG = -22,
};

typedef struct cpng_rows cpng_rows;

/// A decoder. `max_pixels` bounds the declared image (0: no bound), checked before the image is
/// allocated. NULL when out of memory.
cpng_rows *cpng_rows_new(uint64_t max_pixels);

/// Frees the decoder; NULL is ignored.
void cpng_rows_free(cpng_rows *decoder);

/// Reads the next `count` bytes of the file. libpng keeps a copy of what it cannot use yet: a
/// chunk other than image data is gathered whole before it is read (PLTE, tRNS) or skipped
/// (every other ancillary chunk). Returns CPNG_OK (the file's end was read; later bytes are ignored),
/// CPNG_ROWS_NEED_MORE, or a negative status (then the decoder is dead and keeps answering it).
/// An error libpng reports once every row is in (a wrong Adler-32, the last IDAT's CRC, a bad
/// chunk after the image data) ends the decode like IEND does: CPNG_OK.
int cpng_rows_append(cpng_rows *decoder, const uint8_t *bytes, size_t count);

/// libpng's message for the error that killed the decoder, or "".
const char *cpng_rows_message(const cpng_rows *decoder);

/// The image's size and output channels (1 grey, 2 grey + alpha, 3 RGB, 4 RGBA) and whether
/// it is interlaced (Adam7), once its image data has started (else CPNG_ROWS_NEED_MORE).
int cpng_rows_info(const cpng_rows *decoder, uint32_t *width, uint32_t *height, uint32_t *channels, int *interlaced);

/// How much of the image is decoded: rows for a non-interlaced image, completed Adam7 passes
/// (0...7) for an interlaced one.
uint32_t cpng_rows_progress(const cpng_rows *decoder);

/// Copies the image so far into `out` (`width × height × channels` bytes, rows packed;
/// `capacity` is checked): the rows decoded so far, the rest mid-grey (128) with alpha 0; for
/// an interlaced image, each pixel from the nearest one above-left that the completed passes
/// hold (a coarse whole image, as browsers show Adam7 passes). CPNG_ROWS_NEED_MORE before the
/// first row (or pass).
int cpng_rows_render(const cpng_rows *decoder, uint8_t *out, size_t capacity);

#endif
