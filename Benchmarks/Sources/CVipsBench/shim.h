// libvips for the benchmark's C references (pkg-config vips supplies the include paths).
#include <vips/vips.h>
