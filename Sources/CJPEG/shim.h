// libjpeg's API (libjpeg62-turbo), for CJPEGShim's progressive previews only: libjpeg reports
// errors with setjmp/longjmp, which Swift cannot do, so no Swift module calls it directly.
#include <stdio.h>
#include <jpeglib.h>
