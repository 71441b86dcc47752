#ifndef CVIPSSHIM_H
#define CVIPSSHIM_H
#include <stddef.h>
#include <vips/vips.h>
#endif
