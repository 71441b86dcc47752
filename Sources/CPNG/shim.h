// libpng's API (libpng16), for CPNGShim's incremental previews only: libpng reports errors with
// setjmp/longjmp, which Swift cannot do, so no Swift module calls it directly.
#include <png.h>
