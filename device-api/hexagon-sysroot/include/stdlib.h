// Freestanding declarations of the stdlib functions the Hexagon SDK's C library provides.
#pragma once
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void * malloc(size_t size);
void * calloc(size_t n, size_t size);
void * realloc(void * p, size_t size);
void   free(void * p);
int    posix_memalign(void ** p, size_t align, size_t size);
void * aligned_alloc(size_t align, size_t size);
__attribute__((noreturn)) void abort(void);
int    abs(int x);

#ifdef __cplusplus
}
#endif
