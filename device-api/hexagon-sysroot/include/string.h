// Freestanding declarations of the string functions the Hexagon SDK's C library provides.
#pragma once
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void * memcpy(void * __restrict dst, const void * __restrict src, size_t n);
void * memmove(void * dst, const void * src, size_t n);
void * memset(void * dst, int c, size_t n);
int    memcmp(const void * a, const void * b, size_t n);
size_t strlen(const char * s);
int    strcmp(const char * a, const char * b);
int    strncmp(const char * a, const char * b, size_t n);
char * strncpy(char * __restrict dst, const char * __restrict src, size_t n);

#ifdef __cplusplus
}
#endif
