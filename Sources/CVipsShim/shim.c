#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include "CVipsShim.h"

/* libvips is opened with dlopen on first use instead of being linked: Debian's build brings
 * about 120 shared libraries, all bound at load time, which cost a process ~40 ms of CPU and
 * ~12 MB of memory before main, even for runs that never decode (downloads, cache commands,
 * JPEGs on the libjpeg-turbo path). Every libvips and GLib function used is called through this
 * table, whose pointer types come from libvips' own prototypes (__typeof__), so a call is
 * checked by the compiler exactly as a direct call would be. */
#define CVS_FUNCTIONS(X) \
    X(vips_init) X(vips_cache_set_max) X(vips_version_string) X(vips_type_find) \
    X(vips_error_clear) X(vips_error_buffer_copy) X(g_free) X(g_object_unref) X(g_log_set_handler) \
    X(vips_foreign_find_load_buffer) X(vips_image_new_from_buffer) X(vips_image_new_from_memory_copy) \
    X(vips_image_write_to_memory) X(vips_thumbnail_buffer) X(vips_thumbnail_image) X(vips_autorot) \
    X(vips_icc_transform) X(vips_colourspace) X(vips_cast_uchar) X(vips_extract_area) X(vips_extract_band) \
    X(vips_gaussblur) X(vips_premultiply) X(vips_unpremultiply) X(vips_array_double_new) X(vips_flatten) \
    X(vips_area_unref) X(vips_jpegsave_buffer) X(vips_pngsave_buffer) X(vips_webpsave_buffer) \
    X(vips_gifsave_buffer) X(vips_heifsave_buffer) X(vips_image_get_typeof) X(vips_image_get_int) \
    X(vips_image_get_array_int) X(vips_image_get_blob) X(vips_image_get_string) X(vips_image_set_int) \
    X(vips_image_set_array_int) X(vips_image_get_width) X(vips_image_get_height) X(vips_image_get_bands) \
    X(vips_image_get_format) X(vips_image_get_interpretation)

#define CVS_POINTER(name) __typeof__(name) *name;
static struct { CVS_FUNCTIONS(CVS_POINTER) } lib;

static cvs_log_callback log_callback = NULL;

static void cvs_log_handler(const gchar *domain, GLogLevelFlags flags, const gchar *message, gpointer data) {
    (void)domain; (void)data;
    cvs_log_callback cb = __atomic_load_n(&log_callback, __ATOMIC_ACQUIRE);
    if (cb == NULL) return;
    int level = 1;
    if (flags & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL)) level = 2;
    else if (flags & (G_LOG_LEVEL_INFO | G_LOG_LEVEL_DEBUG)) level = 0;
    cb(level, message ? message : "");
}

static void failure(char *error, size_t capacity, const char *what, const char *detail) {
    if (error && capacity) snprintf(error, capacity, "%s%s%s", what, detail ? ": " : "", detail ? detail : "");
}

int cvs_start(const char *program_name, char *error, size_t capacity) {
    /* The soname of the libvips these headers describe (libtool: current - age). */
    char soname[32];
    snprintf(soname, sizeof soname, "libvips.so.%d", VIPS_LIBRARY_CURRENT - VIPS_LIBRARY_AGE);
    void *handle = dlopen(soname, RTLD_NOW | RTLD_GLOBAL);
    if (handle == NULL) { failure(error, capacity, "cannot load libvips", dlerror()); return -1; }
#define CVS_LOOKUP(name) \
    if ((lib.name = (__typeof__(name) *)dlsym(handle, #name)) == NULL) { \
        failure(error, capacity, soname, "has no " #name); return -1; }
    CVS_FUNCTIONS(CVS_LOOKUP)
#undef CVS_LOOKUP
    if (lib.vips_init(program_name) != 0) {
        char *text = lib.vips_error_buffer_copy();
        failure(error, capacity, "vips_init failed", text);
        lib.g_free(text);
        return -1;
    }
    /* A caching library must not hide a second cache inside libvips, and benchmarks must be real. */
    lib.vips_cache_set_max(0);
    lib.g_log_set_handler("VIPS", G_LOG_LEVEL_MASK | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION,
                          cvs_log_handler, NULL);
    return 0;
}

const char *cvs_version_string(void) { return lib.vips_version_string(); }
int cvs_has_operation(const char *nickname) { return lib.vips_type_find("VipsOperation", nickname) != 0; }
void cvs_error_clear(void) { lib.vips_error_clear(); }
char *cvs_error_buffer_copy(void) { return lib.vips_error_buffer_copy(); }
void cvs_free(void *pointer) { lib.g_free(pointer); }
void cvs_unref(VipsImage *image) { lib.g_object_unref(image); }
int cvs_width(VipsImage *image) { return lib.vips_image_get_width(image); }
int cvs_height(VipsImage *image) { return lib.vips_image_get_height(image); }
int cvs_bands(VipsImage *image) { return lib.vips_image_get_bands(image); }
VipsBandFormat cvs_format(VipsImage *image) { return lib.vips_image_get_format(image); }
VipsInterpretation cvs_interpretation(VipsImage *image) { return lib.vips_image_get_interpretation(image); }
void *cvs_write_to_memory(VipsImage *image, size_t *size) { return lib.vips_image_write_to_memory(image, size); }
VipsImage *cvs_new_from_memory_copy(const void *data, size_t size, int width, int height, int bands) {
    return lib.vips_image_new_from_memory_copy(data, size, width, height, bands, VIPS_FORMAT_UCHAR);
}
void cvs_set_int(VipsImage *image, const char *name, int value) { lib.vips_image_set_int(image, name, value); }
void cvs_set_int_array(VipsImage *image, const char *name, int *values, int count) {
    lib.vips_image_set_array_int(image, name, values, count);
}

void cvs_set_log_callback(cvs_log_callback callback) {
    __atomic_store_n(&log_callback, callback, __ATOMIC_RELEASE);
}

/* Only multi-page loaders take "n"; passing it to any other loader fails. Loader class names
 * are like "VipsForeignLoadNsgifBuffer". */
static int is_paged(const char *loader) {
    return strstr(loader, "gifBuffer") || strstr(loader, "GifBuffer") || strstr(loader, "WebpBuffer") ||
           strstr(loader, "HeifBuffer") || strstr(loader, "TiffBuffer");
}

static VipsFailOn fail_on(int truncated) {
    return truncated ? VIPS_FAIL_ON_TRUNCATED : VIPS_FAIL_ON_NONE;
}

int cvs_load_buffer(const void *buf, size_t len, int fail_on_truncated, int n, int random_access,
                    VipsImage **out) {
    VipsAccess access = random_access ? VIPS_ACCESS_RANDOM : VIPS_ACCESS_SEQUENTIAL;
    const char *loader = lib.vips_foreign_find_load_buffer(buf, len);
    if (loader == NULL) return -1;
    int paged = is_paged(loader);
    *out = paged
        ? lib.vips_image_new_from_buffer(buf, len, "", "access", access,
                                     "fail_on", fail_on(fail_on_truncated), "n", n, NULL)
        : lib.vips_image_new_from_buffer(buf, len, "", "access", access,
                                     "fail_on", fail_on(fail_on_truncated), NULL);
    return *out ? 0 : -1;
}

int cvs_thumbnail_buffer(const void *buf, size_t len, int width, int height, int size, int crop,
                         int fail_on_truncated, int n, int export_srgb, VipsImage **out) {
    const char *loader = lib.vips_foreign_find_load_buffer(buf, len);
    if (loader == NULL) return -1;
    int paged = is_paged(loader);
    char options[64];
    if (paged)
        snprintf(options, sizeof options, "fail_on=%s,n=%d", fail_on_truncated ? "truncated" : "none", n);
    else
        snprintf(options, sizeof options, "fail_on=%s", fail_on_truncated ? "truncated" : "none");
    return lib.vips_thumbnail_buffer((void *)buf, len, out, width,
        "height", height > 0 ? height : VIPS_MAX_COORD,
        "size", (VipsSize)size,
        "crop", crop ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE,
        "option_string", options,
        "export_profile", export_srgb ? "srgb" : NULL,
        NULL);
}

int cvs_thumbnail_image(VipsImage *in, int width, int height, int size, int crop, VipsImage **out) {
    return lib.vips_thumbnail_image(in, out, width,
        "height", height > 0 ? height : VIPS_MAX_COORD,
        "size", (VipsSize)size,
        "crop", crop ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE,
        "no_rotate", TRUE,
        NULL);
}

int cvs_autorot(VipsImage *in, VipsImage **out) { return lib.vips_autorot(in, out, NULL); }

int cvs_icc_to_srgb(VipsImage *in, const char *fallback_profile, int use_embedded, VipsImage **out) {
    return lib.vips_icc_transform(in, out, "srgb", "embedded", use_embedded ? TRUE : FALSE, "input_profile", fallback_profile,
                              "intent", VIPS_INTENT_RELATIVE, "depth", 8, NULL);
}

int cvs_colourspace(VipsImage *in, VipsInterpretation space, VipsImage **out) {
    return lib.vips_colourspace(in, out, space, NULL);
}

int cvs_cast_uchar(VipsImage *in, VipsImage **out) { return lib.vips_cast_uchar(in, out, NULL); }

int cvs_extract_area(VipsImage *in, int left, int top, int width, int height, VipsImage **out) {
    return lib.vips_extract_area(in, out, left, top, width, height, NULL);
}

int cvs_extract_bands(VipsImage *in, int band, int n, VipsImage **out) {
    return lib.vips_extract_band(in, out, band, "n", n, NULL);
}

int cvs_gaussblur(VipsImage *in, double sigma, VipsImage **out) { return lib.vips_gaussblur(in, out, sigma, NULL); }
int cvs_premultiply(VipsImage *in, VipsImage **out) { return lib.vips_premultiply(in, out, NULL); }
int cvs_unpremultiply(VipsImage *in, VipsImage **out) { return lib.vips_unpremultiply(in, out, NULL); }

int cvs_flatten(VipsImage *in, double background, VipsImage **out) {
    double bg[3] = { background, background, background };
    VipsArrayDouble *array = lib.vips_array_double_new(bg, in->Bands > 2 ? 3 : 1);
    int result = lib.vips_flatten(in, out, "background", array, NULL);
    lib.vips_area_unref(VIPS_AREA(array));
    return result;
}

int cvs_jpegsave_buffer(VipsImage *in, int quality, void **buf, size_t *len) {
    return lib.vips_jpegsave_buffer(in, buf, len, "Q", quality, "strip", TRUE, NULL);
}
int cvs_pngsave_buffer(VipsImage *in, int compression, void **buf, size_t *len) {
    return lib.vips_pngsave_buffer(in, buf, len, "compression", compression, "strip", TRUE, NULL);
}
int cvs_webpsave_buffer(VipsImage *in, int quality, int lossless, int effort, void **buf, size_t *len) {
    return lib.vips_webpsave_buffer(in, buf, len, "Q", quality, "lossless", lossless ? TRUE : FALSE,
                                "effort", effort, "strip", TRUE, NULL);
}
int cvs_gifsave_buffer(VipsImage *in, void **buf, size_t *len) {
    return lib.vips_gifsave_buffer(in, buf, len, "strip", TRUE, NULL);
}
int cvs_avifsave_buffer(VipsImage *in, int quality, void **buf, size_t *len) {
    return lib.vips_heifsave_buffer(in, buf, len, "Q", quality, "compression", VIPS_FOREIGN_HEIF_COMPRESSION_AV1,
                                "strip", TRUE, NULL);
}

int cvs_get_int(VipsImage *in, const char *name, int fallback) {
    int value;
    if (lib.vips_image_get_typeof(in, name) == 0) return fallback;
    if (lib.vips_image_get_int(in, name, &value)) { lib.vips_error_clear(); return fallback; }
    return value;
}

int cvs_get_int_array(VipsImage *in, const char *name, int *out, int capacity) {
    int *values = NULL, n = 0;
    if (lib.vips_image_get_typeof(in, name) == 0) return 0;
    if (lib.vips_image_get_array_int(in, name, &values, &n)) { lib.vips_error_clear(); return 0; }
    if (n > capacity) n = capacity;
    for (int i = 0; i < n; i++) out[i] = values[i];
    return n;
}

void cvs_set_interpretation(VipsImage *in, int bands) {
    in->Type = bands >= 3 ? VIPS_INTERPRETATION_sRGB : VIPS_INTERPRETATION_B_W;
}

const void *cvs_icc_blob(VipsImage *in, size_t *length) {
    const void *data = NULL;
    *length = 0;
    if (lib.vips_image_get_typeof(in, VIPS_META_ICC_NAME) == 0) return NULL;
    if (lib.vips_image_get_blob(in, VIPS_META_ICC_NAME, &data, length)) { lib.vips_error_clear(); *length = 0; return NULL; }
    return data;
}

int cvs_has_icc(VipsImage *in) { return lib.vips_image_get_typeof(in, VIPS_META_ICC_NAME) != 0; }

const char *cvs_loader(VipsImage *in) {
    const char *name = NULL;
    if (lib.vips_image_get_typeof(in, VIPS_META_LOADER) == 0) return NULL;
    if (lib.vips_image_get_string(in, VIPS_META_LOADER, &name)) { lib.vips_error_clear(); return NULL; }
    return name;
}
