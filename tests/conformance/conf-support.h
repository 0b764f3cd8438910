// What the generated conformance program needs besides the intrinsics: loading operands from
// the input pools and printing results as hex, on Hexagon (freestanding, hexagon-rt) and on
// hosts (the hvx-emu headers, stdio). Operands travel only through the HVX API itself:
// pairs through vcombine/hi/lo, predicates through vand(V,R) and vand(Q,R).
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "htp/hvx.h"

#if defined(__hexagon__)
#    include "hexagon-rt.h"
#    define CONF_MAIN hexagon_main
static inline void conf_put_str(const char * s) { rt_puts(s); }
static inline void conf_put_u32(uint32_t v) { rt_put_u32(v); }
static inline void conf_put_hex(const void * p, size_t n) { rt_put_hex(p, n); }
// Pools are 128-byte aligned: a plain vector load.
static inline HVX_Vector conf_ld(const uint8_t * p) { return *(const HVX_Vector *) p; }
static inline void conf_st(uint8_t * p, HVX_Vector v) { *(HVX_Vector *) p = v; }
#else
#    include <stdio.h>
#    include <string.h>
#    define CONF_MAIN main
static_assert(sizeof(HVX_Vector) == 128, "HVX_Vector must be 128 bytes");
static inline void conf_put_str(const char * s) { fputs(s, stdout); }
static inline void conf_put_u32(uint32_t v) { printf("%u", (unsigned) v); }
static inline void conf_put_hex(const void * p, size_t n) {
    static const char digits[] = "0123456789abcdef";
    char buf[2 * 256];
    const uint8_t * b = (const uint8_t *) p;
    for (size_t i = 0; i < n; i++) {
        buf[2 * i] = digits[b[i] >> 4];
        buf[2 * i + 1] = digits[b[i] & 15];
    }
    fwrite(buf, 1, 2 * n, stdout);
}
static inline HVX_Vector conf_ld(const uint8_t * p) {
    HVX_Vector v;
    memcpy(&v, p, sizeof(v));
    return v;
}
static inline void conf_st(uint8_t * p, HVX_Vector v) { memcpy(p, &v, sizeof(v)); }
#endif

#define CONF_ALIGNED __attribute__((aligned(128)))

// Pairs and predicates move through these macros (not functions) so that a program that has
// none of them compiles against an emulation that lacks vcombine/hi/lo or vand(Q,R).
#define conf_ldw(lo, hi) Q6_W_vcombine_VV(conf_ld(hi), conf_ld(lo))
// Predicate pool entries are vectors of 0/1 bytes: one predicate bit per vector byte.
#define conf_ldq(p)      Q6_Q_vand_VR(conf_ld(p), -1)
#define conf_out_q(q)    conf_out_v(Q6_V_vand_QR((q), -1))
// The low vector first: the pair's memory order on Hexagon.
#define conf_out_w(w)                  \
    do {                               \
        HVX_VectorPair w_ = (w);       \
        conf_out_v(Q6_V_lo_W(w_));     \
        conf_out_v(Q6_V_hi_W(w_));     \
    } while (0)

static inline void conf_out_v(HVX_Vector v) {
    uint8_t b[128] CONF_ALIGNED;
    conf_st(b, v);
    conf_put_hex(b, 128);
}
static inline void conf_out_r(int32_t r) {
    uint8_t b[4] = { (uint8_t) r, (uint8_t) (r >> 8), (uint8_t) (r >> 16), (uint8_t) (r >> 24) };
    conf_put_hex(b, 4);
}
static inline void conf_head(uint32_t id, uint32_t c) {
    conf_put_u32(id);
    conf_put_str(" ");
    conf_put_u32(c);
    conf_put_str(" ");
}
static inline void conf_end(void) { conf_put_str("\n"); }
static inline int64_t conf_r64(uint32_t lo, uint32_t hi) {
    return (int64_t) (((uint64_t) hi << 32) | lo);
}
