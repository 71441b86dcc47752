#include "CVipsShim.h"
