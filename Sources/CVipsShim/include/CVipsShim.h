#ifndef CVIPSSHIM_H
#define CVIPSSHIM_H
// Pictor's only way into libvips: the library is loaded on first use (cvs_start), and every
// call goes through these fixed-arity wrappers (Swift cannot call libvips' variadic,
// NULL-terminated option lists), plus a GLib log handler that routes the VIPS domain to a
// callback. Only libvips' headers are used at build time; nothing links against it.
// Every function returns 0 on success and -1 on failure (vips' convention), except where noted;
// on failure the text is in vips' error buffer.
#include <stddef.h>
#include <vips/vips.h>

/// Loads libvips (dlopen of the soname these headers describe), resolves every function this
/// shim calls, starts it (vips_init), turns its operation cache off and routes its GLib log
/// domain to the callback below. Call once, before any other function here. Returns 0, or -1
/// with a one-line reason written to `error` (at most `capacity` bytes).
int cvs_start(const char *program_name, char *error, size_t capacity);

/// libvips' version string, for example "8.14.1".
const char *cvs_version_string(void);
/// Non-zero when this libvips build has the operation `nickname` ("jpegload_buffer", ...).
int cvs_has_operation(const char *nickname);
/// Clears libvips' process-wide error buffer.
void cvs_error_clear(void);
/// A copy of libvips' error buffer, to be released with cvs_free.
char *cvs_error_buffer_copy(void);
/// Releases memory libvips or GLib allocated (g_free).
void cvs_free(void *pointer);
/// Drops one reference to an image (g_object_unref).
void cvs_unref(VipsImage *image);
int cvs_width(VipsImage *image);
int cvs_height(VipsImage *image);
int cvs_bands(VipsImage *image);
VipsBandFormat cvs_format(VipsImage *image);
VipsInterpretation cvs_interpretation(VipsImage *image);
/// Evaluates the image into one packed buffer (release with cvs_free); NULL on failure.
void *cvs_write_to_memory(VipsImage *image, size_t *size);
/// An 8-bit image of `bands` bands over a copy of `data`; NULL on failure.
VipsImage *cvs_new_from_memory_copy(const void *data, size_t size, int width, int height, int bands);
void cvs_set_int(VipsImage *image, const char *name, int value);
void cvs_set_int_array(VipsImage *image, const char *name, int *values, int count);

/// Receives a warning or message logged by libvips (GLib domain "VIPS"):
/// level is 0 for debug/info, 1 for message/warning, 2 for critical/error.
typedef void (*cvs_log_callback)(int level, const char *message);
/// Installs `callback` as the GLib log handler for the VIPS domain (NULL drops messages).
void cvs_set_log_callback(cvs_log_callback callback);

/// Header-only open of an encoded buffer (lazy; pixels are decoded on evaluation).
/// fail_on_truncated: VIPS_FAIL_ON_TRUNCATED when non-zero, else VIPS_FAIL_ON_NONE.
/// n: number of pages to load (-1 for all, 1 for the first).
/// random_access: non-zero for VIPS_ACCESS_RANDOM (needed before a rotation), else sequential.
int cvs_load_buffer(const void *buf, size_t len, int fail_on_truncated, int n, int random_access,
                    VipsImage **out);

/// Shrink-on-load thumbnail of an encoded buffer.
/// height <= 0 means "derived from the width"; size is a VipsSize; crop non-zero crops the centre.
/// export_srgb non-zero converts embedded ICC profiles to sRGB.
int cvs_thumbnail_buffer(const void *buf, size_t len, int width, int height, int size, int crop,
                         int fail_on_truncated, int n, int export_srgb, VipsImage **out);
/// Thumbnail of an image already in memory (no rotation, no colour management).
int cvs_thumbnail_image(VipsImage *in, int width, int height, int size, int crop, VipsImage **out);

int cvs_autorot(VipsImage *in, VipsImage **out);
/// ICC transform to sRGB using the embedded profile (when use_embedded is non-zero and there is
/// one), else `fallback_profile` ("srgb", "cmyk").
int cvs_icc_to_srgb(VipsImage *in, const char *fallback_profile, int use_embedded, VipsImage **out);
int cvs_colourspace(VipsImage *in, VipsInterpretation space, VipsImage **out);
int cvs_cast_uchar(VipsImage *in, VipsImage **out);
int cvs_extract_area(VipsImage *in, int left, int top, int width, int height, VipsImage **out);
int cvs_extract_bands(VipsImage *in, int band, int n, VipsImage **out);
int cvs_gaussblur(VipsImage *in, double sigma, VipsImage **out);
int cvs_premultiply(VipsImage *in, VipsImage **out);
int cvs_unpremultiply(VipsImage *in, VipsImage **out);
/// Removes alpha by blending over an opaque background grey/RGB value (0...255, same for all bands).
int cvs_flatten(VipsImage *in, double background, VipsImage **out);

int cvs_jpegsave_buffer(VipsImage *in, int quality, void **buf, size_t *len);
int cvs_pngsave_buffer(VipsImage *in, int compression, void **buf, size_t *len);
int cvs_webpsave_buffer(VipsImage *in, int quality, int lossless, int effort, void **buf, size_t *len);
/// GIF (palette quantised by libvips/cgif; animated when the image has "page-height").
int cvs_gifsave_buffer(VipsImage *in, void **buf, size_t *len);
/// AVIF (HEIF container, AV1 compression).
int cvs_avifsave_buffer(VipsImage *in, int quality, void **buf, size_t *len);

/// Header fields (non-variadic helpers kept here so Swift needs no GValue).
int cvs_get_int(VipsImage *in, const char *name, int fallback);
/// Copies up to `capacity` ints of an int-array field into `out`; returns the count copied (0 when absent).
int cvs_get_int_array(VipsImage *in, const char *name, int *out, int capacity);
/// Marks a freshly made image (one reference, not yet evaluated) as sRGB (3 or 4 bands) or grey
/// (1 or 2 bands): libvips treats the last band as alpha, and premultiplies it before
/// resampling, only when the interpretation says so.
void cvs_set_interpretation(VipsImage *in, int bands);
/// The embedded ICC profile's bytes (owned by the image) and their count, or NULL when none.
const void *cvs_icc_blob(VipsImage *in, size_t *length);
/// Non-zero when the image carries an embedded ICC profile.
int cvs_has_icc(VipsImage *in);
/// Name of the loader that produced the image ("jpegload_buffer", ...), or NULL.
const char *cvs_loader(VipsImage *in);

#endif
