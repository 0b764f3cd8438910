// Freestanding declarations of the libm functions the Hexagon SDK's C library provides
// (single precision first: that is what NPU scalar code uses).
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

float  sqrtf(float x);
float  expf(float x);
float  logf(float x);
float  tanhf(float x);
float  fabsf(float x);
float  floorf(float x);
float  ceilf(float x);
float  roundf(float x);
float  powf(float x, float y);
float  sinf(float x);
float  cosf(float x);
float  fmaxf(float x, float y);
float  fminf(float x, float y);
long   lrintf(float x);
double sqrt(double x);
double exp(double x);
double fabs(double x);

#ifdef __cplusplus
}
#endif

#define INFINITY (__builtin_inff())
#define NAN      (__builtin_nanf(""))
#define HUGE_VALF (__builtin_huge_valf())
#define isnan(x) __builtin_isnan(x)
#define isinf(x) __builtin_isinf(x)
