#include <string.h>
#include "CVipsShim.h"

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

int cvs_init(const char *program_name) {
    int result = vips_init(program_name);
    g_log_set_handler("VIPS", G_LOG_LEVEL_MASK | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION,
                      cvs_log_handler, NULL);
    return result;
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
    const char *loader = vips_foreign_find_load_buffer(buf, len);
    if (loader == NULL) return -1;
    int paged = is_paged(loader);
    *out = paged
        ? vips_image_new_from_buffer(buf, len, "", "access", access,
                                     "fail_on", fail_on(fail_on_truncated), "n", n, NULL)
        : vips_image_new_from_buffer(buf, len, "", "access", access,
                                     "fail_on", fail_on(fail_on_truncated), NULL);
    return *out ? 0 : -1;
}

int cvs_thumbnail_buffer(const void *buf, size_t len, int width, int height, int size, int crop,
                         int fail_on_truncated, int n, int export_srgb, VipsImage **out) {
    const char *loader = vips_foreign_find_load_buffer(buf, len);
    if (loader == NULL) return -1;
    int paged = is_paged(loader);
    char options[64];
    if (paged)
        g_snprintf(options, sizeof options, "fail_on=%s,n=%d", fail_on_truncated ? "truncated" : "none", n);
    else
        g_snprintf(options, sizeof options, "fail_on=%s", fail_on_truncated ? "truncated" : "none");
    return vips_thumbnail_buffer((void *)buf, len, out, width,
        "height", height > 0 ? height : VIPS_MAX_COORD,
        "size", (VipsSize)size,
        "crop", crop ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE,
        "option_string", options,
        "export_profile", export_srgb ? "srgb" : NULL,
        NULL);
}

int cvs_thumbnail_image(VipsImage *in, int width, int height, int size, int crop, VipsImage **out) {
    return vips_thumbnail_image(in, out, width,
        "height", height > 0 ? height : VIPS_MAX_COORD,
        "size", (VipsSize)size,
        "crop", crop ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE,
        "no_rotate", TRUE,
        NULL);
}

int cvs_autorot(VipsImage *in, VipsImage **out) { return vips_autorot(in, out, NULL); }

int cvs_icc_to_srgb(VipsImage *in, const char *fallback_profile, int use_embedded, VipsImage **out) {
    return vips_icc_transform(in, out, "srgb", "embedded", use_embedded ? TRUE : FALSE, "input_profile", fallback_profile,
                              "intent", VIPS_INTENT_RELATIVE, "depth", 8, NULL);
}

int cvs_colourspace(VipsImage *in, VipsInterpretation space, VipsImage **out) {
    return vips_colourspace(in, out, space, NULL);
}

int cvs_cast_uchar(VipsImage *in, VipsImage **out) { return vips_cast_uchar(in, out, NULL); }

int cvs_extract_area(VipsImage *in, int left, int top, int width, int height, VipsImage **out) {
    return vips_extract_area(in, out, left, top, width, height, NULL);
}

int cvs_extract_bands(VipsImage *in, int band, int n, VipsImage **out) {
    return vips_extract_band(in, out, band, "n", n, NULL);
}

int cvs_gaussblur(VipsImage *in, double sigma, VipsImage **out) { return vips_gaussblur(in, out, sigma, NULL); }
int cvs_premultiply(VipsImage *in, VipsImage **out) { return vips_premultiply(in, out, NULL); }
int cvs_unpremultiply(VipsImage *in, VipsImage **out) { return vips_unpremultiply(in, out, NULL); }

int cvs_flatten(VipsImage *in, double background, VipsImage **out) {
    double bg[3] = { background, background, background };
    VipsArrayDouble *array = vips_array_double_new(bg, in->Bands > 2 ? 3 : 1);
    int result = vips_flatten(in, out, "background", array, NULL);
    vips_area_unref(VIPS_AREA(array));
    return result;
}

int cvs_jpegsave_buffer(VipsImage *in, int quality, void **buf, size_t *len) {
    return vips_jpegsave_buffer(in, buf, len, "Q", quality, "strip", TRUE, NULL);
}
int cvs_pngsave_buffer(VipsImage *in, int compression, void **buf, size_t *len) {
    return vips_pngsave_buffer(in, buf, len, "compression", compression, "strip", TRUE, NULL);
}
int cvs_webpsave_buffer(VipsImage *in, int quality, int lossless, void **buf, size_t *len) {
    return vips_webpsave_buffer(in, buf, len, "Q", quality, "lossless", lossless ? TRUE : FALSE,
                                "strip", TRUE, NULL);
}
int cvs_gifsave_buffer(VipsImage *in, void **buf, size_t *len) {
    return vips_gifsave_buffer(in, buf, len, "strip", TRUE, NULL);
}
int cvs_avifsave_buffer(VipsImage *in, int quality, void **buf, size_t *len) {
    return vips_heifsave_buffer(in, buf, len, "Q", quality, "compression", VIPS_FOREIGN_HEIF_COMPRESSION_AV1,
                                "strip", TRUE, NULL);
}

int cvs_get_int(VipsImage *in, const char *name, int fallback) {
    int value;
    if (vips_image_get_typeof(in, name) == 0) return fallback;
    if (vips_image_get_int(in, name, &value)) { vips_error_clear(); return fallback; }
    return value;
}

int cvs_get_int_array(VipsImage *in, const char *name, int *out, int capacity) {
    int *values = NULL, n = 0;
    if (vips_image_get_typeof(in, name) == 0) return 0;
    if (vips_image_get_array_int(in, name, &values, &n)) { vips_error_clear(); return 0; }
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
    if (vips_image_get_typeof(in, VIPS_META_ICC_NAME) == 0) return NULL;
    if (vips_image_get_blob(in, VIPS_META_ICC_NAME, &data, length)) { vips_error_clear(); *length = 0; return NULL; }
    return data;
}

int cvs_has_icc(VipsImage *in) { return vips_image_get_typeof(in, VIPS_META_ICC_NAME) != 0; }

const char *cvs_loader(VipsImage *in) {
    const char *name = NULL;
    if (vips_image_get_typeof(in, VIPS_META_LOADER) == 0) return NULL;
    if (vips_image_get_string(in, VIPS_META_LOADER, &name)) { vips_error_clear(); return NULL; }
    return name;
}
