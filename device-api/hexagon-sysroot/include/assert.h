// assert() for Hexagon builds of the NPU library: compiled out under NDEBUG, else abort().
#pragma once
#include <stdlib.h>

#ifdef NDEBUG
#    define assert(x) ((void) 0)
#else
#    define assert(x) ((x) ? (void) 0 : abort())
#endif
#ifndef __cplusplus
#    define static_assert _Static_assert
#endif
