// The HMX unit's arithmetic (htp/hmx.h "Arithmetic"), for hmx.cpp's entry points: fp16
// conversions, a tile pair's sum in the exact model (doubles or 128-bit fixed point, one fp32
// rounding per tile pair) and the fp32 model (one rounding per product added, in k order), and
// the decoded weight tiles both read, 4 or 8 columns per AVX2 vector. Only hmx.cpp includes it.
#pragma once
#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "htp/hmx.h"

namespace vhtp {
namespace hmx_arith {

constexpr int D = HTP_HMX_TILE_DIM;

inline float f16_to_f32(uint16_t h) {
    const int e = (h >> 10) & 31, m = h & 1023;
    float     v;
    if (e == 31) {
        v = m ? NAN : INFINITY;
    } else if (e == 0) {
        v = std::ldexp((float) m, -24);
    } else {
        v = std::ldexp((float) (m | 1024), e - 25);
    }
    return (h & 0x8000) ? -v : v;
}

// fp32 -> fp16, nearest-even, subnormals kept, overflow to infinity, NaN -> 0x7fff.
inline uint16_t f32_to_f16(float f) {
    if (std::isnan(f)) {
        return 0x7fff;
    }
    const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
    const double   a    = std::fabs((double) f);
    if (a == 0) {
        return sign;
    }
    if (std::isinf(a)) {
        return sign | 0x7c00;
    }
    int e;
    std::frexp(a, &e);
    int          q = (e - 1 < -14 ? -14 : e - 1) - 10;
    const double s = std::ldexp(a, -q);
    double       n = std::floor(s);
    const double r = s - n;
    if (r > 0.5 || (r == 0.5 && std::fmod(n, 2.0) == 1.0)) {
        n += 1;
    }
    uint32_t m = (uint32_t) n;
    if (m == 2048) {
        m >>= 1;
        q++;
    }
    if (q + 10 > 15) {
        return sign | 0x7c00;
    }
    if (m < 1024) {
        return sign | (uint16_t) m;
    }
    return sign | (uint16_t) (((q + 25) << 10) | (m - 1024));
}

// 2^k as a double, for |k| < 1000 (exact, no libm call on the hot path).
inline double pow2(int k) {
    const uint64_t bits = (uint64_t) (1023 + k) << 52;
    double         d;
    std::memcpy(&d, &bits, 8);
    return d;
}

// An fp16 operand row (32 values along K) decoded once per tile: the values as doubles
// (exact) and the range of their binades s (value = m * 2^(s - 24), |m| < 2^11, s = max(e - 1, 0))
// over the nonzero ones.
typedef double v4d __attribute__((vector_size(32)));

struct fp16_row {
    v4d  v[D / 4];     // the values as doubles, 4 per vector
    int  smin, smax;   // over nonzero values (0, 0 for an all-zero row)
    bool special;      // an inf or NaN in the row: the pair falls back to IEEE arithmetic
};

// Smallest of 16 unsigned halfwords.
inline int min_u16(__m256i v) {
    const __m128i m = _mm_min_epu16(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    return _mm_cvtsi128_si32(_mm_minpos_epu16(m)) & 0xffff;
}

inline void decode_row(const uint16_t * h, fp16_row & r) {
    // Per value: binade s = max(e - 1, 0), nonzero, inf/NaN; 16 halfwords per AVX2 register.
    const __m256i x0 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(h));
    const __m256i x1 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(h + 16));
    const __m256i c31 = _mm256_set1_epi16(31), one = _mm256_set1_epi16(1), zero = _mm256_setzero_si256();
    const __m256i e0 = _mm256_and_si256(_mm256_srli_epi16(x0, 10), c31);
    const __m256i e1 = _mm256_and_si256(_mm256_srli_epi16(x1, 10), c31);
    const __m256i s0 = _mm256_subs_epu16(e0, one), s1 = _mm256_subs_epu16(e1, one);
    const __m256i mag = _mm256_set1_epi16(0x7fff);
    const __m256i z0  = _mm256_cmpeq_epi16(_mm256_and_si256(x0, mag), zero);  // zero lanes
    const __m256i z1  = _mm256_cmpeq_epi16(_mm256_and_si256(x1, mag), zero);
    const __m256i sp  = _mm256_or_si256(_mm256_cmpeq_epi16(e0, c31), _mm256_cmpeq_epi16(e1, c31));
    // min over nonzero lanes (zeros read as 64); max as 0xffff - min of 0xffff - s (zeros as 0)
    const __m256i big = _mm256_set1_epi16(64), ones = _mm256_set1_epi16(-1);
    const int     smin = min_u16(_mm256_min_epu16(_mm256_blendv_epi8(s0, big, z0), _mm256_blendv_epi8(s1, big, z1)));
    const int     smax = 0xffff - min_u16(_mm256_min_epu16(_mm256_sub_epi16(ones, _mm256_andnot_si256(z0, s0)),
                                                            _mm256_sub_epi16(ones, _mm256_andnot_si256(z1, s1))));
    r.special = !_mm256_testz_si256(sp, sp);
    r.smin    = smin > smax ? smax : smin;
    r.smax    = smax;
    for (int i = 0; i < D / 8; i++) {  // fp16 -> fp32 -> fp64, both exact
        const __m256 f = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(h + 8 * i)));
        r.v[2 * i]     = (v4d) _mm256_cvtps_pd(_mm256_castps256_ps128(f));
        r.v[2 * i + 1] = (v4d) _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1));
    }
}

// value = fixed_mant(h) * 2^(fixed_shift(h) - 24)
inline int64_t fixed_mant(uint16_t h) {
    const int e = (h >> 10) & 31, m = h & 1023;
    const int v = e == 0 ? m : (m | 1024);
    return (h & 0x8000) ? -v : v;
}

inline int fixed_shift(uint16_t h) {
    const int e = (h >> 10) & 31;
    return e == 0 ? 0 : e - 1;
}

// One tile pair's contribution: the 32 products (exact) summed exactly, rounded once to fp32
// (nearest-even), then added to the fp32 accumulator (a second rounding). Products are
// multiples of 2^-48 below 2^32 (|m_a * m_w| < 2^22 shifted by s_a + s_w <= 58). Exact
// fixed point in two int64 halves: shifts >= 30 go to hi in units of 2^(30-48), the rest to
// lo in units of 2^-48 (each < 2^51 per term, 32 terms < 2^56), joined in 128 bits once.
// An inf/NaN operand falls back to IEEE arithmetic (inf propagates; inf - inf and 0 * inf
// give NaN).
inline float tile_dot(const fp16_row & a, const fp16_row & w, const uint16_t * ah, const uint16_t * wh) {
    if (a.special || w.special) {
        double s = 0;
        for (int j = 0; j < D; j++) {
            s += (double) f16_to_f32(ah[j]) * (double) f16_to_f32(wh[j]);
        }
        return (float) s;
    }
    // Fast path: when the pair's terms span few enough binades, plain double arithmetic is
    // already exact. Every term is a multiple of 2^(smin_a + smin_w - 48) and the sum of their
    // magnitudes is below 2^(smax_a + smax_w - 48 + 22 + 5); with a spread of at most 26 that
    // fits in 53 bits, so every partial sum, in any order, is exact.
    if ((a.smax - a.smin) + (w.smax - w.smin) <= 26) {
        v4d acc = { 0, 0, 0, 0 };  // an exact zero sum is +0, as on the fixed-point path
        for (int i = 0; i < D / 4; i++) {
            acc += a.v[i] * w.v[i];
        }
        return (float) ((acc[0] + acc[1]) + (acc[2] + acc[3]));
    }
    int64_t hi = 0, lo = 0;
    for (int k = 0; k < D; k++) {
        const int64_t p  = fixed_mant(ah[k]) * fixed_mant(wh[k]);
        const int     sh = fixed_shift(ah[k]) + fixed_shift(wh[k]);
        if (sh >= 30) {
            hi += p * ((int64_t) 1 << (sh - 30));
        } else {
            lo += p * ((int64_t) 1 << sh);
        }
    }
    const __int128 sum = (__int128) hi * ((__int128) 1 << 30) + lo;  // units of 2^-48
    if (sum == 0) {
        return 0.0f;
    }
    const bool              neg  = sum < 0;
    const unsigned __int128 u    = neg ? -(unsigned __int128) sum : (unsigned __int128) sum;
    const uint64_t          uhi  = (uint64_t) (u >> 64);
    const int               bits = uhi ? 128 - __builtin_clzll(uhi) : 64 - __builtin_clzll((uint64_t) u);
    const int               sh   = bits > 53 ? bits - 53 : 0;
    uint64_t                v    = (uint64_t) (u >> sh);
    if (sh && (u & (((unsigned __int128) 1 << sh) - 1))) {
        v |= 1;  // round to odd at 53 bits: the fp32 rounding below is then a single correct one
    }
    const double d = (double) v * pow2(sh - 48);  // v < 2^53: exact
    return (float) (neg ? -d : d);
}

// A weight tile ready for the side-by-side row sums: wt[k][n / 4][n % 4] = w[n][k] as doubles,
// the largest binade spread of its rows and whether any value is inf/NaN.
struct weight_tile {
    v4d        wt[D][D / 4];
    int        spread;
    bool       special;
    bool       valid;         // raw and addr describe the tile decoded above
    dma_addr_t addr;
    uint16_t   raw[D * D];    // the tile's bytes when it was decoded
};

// Decodes weight tile b into rw (its rows) and wt (transposed, in 4x4 blocks of doubles in
// registers).
inline void decode_weight_tile(const uint16_t * b, fp16_row * rw, weight_tile & wt) {
    wt.spread  = 0;
    wt.special = false;
    for (int i = 0; i < D; i++) {
        decode_row(b + i * D, rw[i]);
        wt.spread  = rw[i].smax - rw[i].smin > wt.spread ? rw[i].smax - rw[i].smin : wt.spread;
        wt.special = wt.special || rw[i].special;
    }
    for (int n0 = 0; n0 < D; n0 += 4) {
        for (int k0 = 0; k0 < D; k0 += 4) {
            const __m256d r0 = (__m256d) rw[n0].v[k0 / 4], r1 = (__m256d) rw[n0 + 1].v[k0 / 4];
            const __m256d r2 = (__m256d) rw[n0 + 2].v[k0 / 4], r3 = (__m256d) rw[n0 + 3].v[k0 / 4];
            const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
            const __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
            wt.wt[k0][n0 / 4]     = (v4d) _mm256_permute2f128_pd(t0, t2, 0x20);
            wt.wt[k0 + 1][n0 / 4] = (v4d) _mm256_permute2f128_pd(t1, t3, 0x20);
            wt.wt[k0 + 2][n0 / 4] = (v4d) _mm256_permute2f128_pd(t0, t2, 0x31);
            wt.wt[k0 + 3][n0 / 4] = (v4d) _mm256_permute2f128_pd(t1, t3, 0x31);
        }
    }
}

// A row on the exact double path against a weight tile: its 32 sums are formed side by side, 4
// columns per vector, over the transposed tile (same sums and roundings as tile_dot's double
// path, in any order).
inline void row_side_by_side(const fp16_row & a, const weight_tile & w, float * acc) {
    v4d s[D / 4] = {};
    for (int k = 0; k < D; k++) {
        const double x  = a.v[k / 4][k % 4];
        const v4d    xv = { x, x, x, x };
        for (int j = 0; j < D / 4; j++) {
            s[j] += xv * w.wt[k][j];
        }
    }
    for (int j = 0; j < D / 4; j++) {
        const __m128 f = _mm256_cvtpd_ps((__m256d) s[j]);
        _mm_storeu_ps(acc + 4 * j, _mm_add_ps(_mm_loadu_ps(acc + 4 * j), f));
    }
}

// Three such rows at once, per half of the columns: 12 independent FMA chains (one chain of 8
// would wait on the FMA latency) that share each weight load three times; 15 of the 16 ymm
// registers.
inline void rows3_side_by_side(const fp16_row & a0, const fp16_row & a1, const fp16_row & a2, const weight_tile & w,
                               float * acc0, float * acc1, float * acc2) {
    const double * x0 = reinterpret_cast<const double *>(a0.v);
    const double * x1 = reinterpret_cast<const double *>(a1.v);
    const double * x2 = reinterpret_cast<const double *>(a2.v);
    for (int half = 0; half < 2; half++) {
        __m256d s[3][4];  // row r, columns 4 j .. 4 j + 3 of the half (constant indices: registers)
        for (int r = 0; r < 3; r++) {
            for (int j = 0; j < 4; j++) {
                s[r][j] = _mm256_setzero_pd();
            }
        }
        for (int k = 0; k < D; k++) {
            const __m256d * wk   = reinterpret_cast<const __m256d *>(&w.wt[k][4 * half]);
            const __m256d   b[3] = { _mm256_broadcast_sd(x0 + k), _mm256_broadcast_sd(x1 + k),
                                     _mm256_broadcast_sd(x2 + k) };
            for (int j = 0; j < 4; j++) {
                for (int r = 0; r < 3; r++) {
                    s[r][j] = _mm256_fmadd_pd(b[r], wk[j], s[r][j]);
                }
            }
        }
        float * const accs[3]    = { acc0 + 16 * half, acc1 + 16 * half, acc2 + 16 * half };
        for (int r = 0; r < 3; r++) {
            for (int j = 0; j < 4; j++) {
                const __m128 f = _mm256_cvtpd_ps(s[r][j]);
                _mm_storeu_ps(accs[r] + 4 * j, _mm_add_ps(_mm_loadu_ps(accs[r] + 4 * j), f));
            }
        }
    }
}

// The fp32 model. A weight tile ready for it: wt[k][n] = w[n][k] as floats (fp16 -> fp32 is
// exact), so one k's 32 weights are 4 vectors of 8 columns.
struct weight_tile_f {
    alignas(32) float wt[D][D];
    bool       valid;         // raw and addr describe the tile decoded above
    dma_addr_t addr;
    uint16_t   raw[D * D];    // the tile's bytes when it was decoded
};

// Rows of fp16 as floats, 8 per conversion.
inline void halves_to_floats(const uint16_t * h, float * f, int n) {
    for (int i = 0; i < n; i += 8) {
        _mm256_store_ps(f + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(h + i))));
    }
}

// Decodes weight tile b into wt: its rows as floats, transposed in 8x8 blocks in registers.
inline void decode_weight_tile_f(const uint16_t * b, weight_tile_f & wt) {
    alignas(32) float rows[D][D];
    halves_to_floats(b, &rows[0][0], D * D);
    for (int n0 = 0; n0 < D; n0 += 8) {
        for (int k0 = 0; k0 < D; k0 += 8) {
            __m256 r[8];
            for (int i = 0; i < 8; i++) {
                r[i] = _mm256_load_ps(&rows[n0 + i][k0]);
            }
            const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
            const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
            const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
            const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
            const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xee);
            const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xee);
            const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xee);
            const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xee);
            _mm256_store_ps(&wt.wt[k0 + 0][n0], _mm256_permute2f128_ps(u0, u4, 0x20));
            _mm256_store_ps(&wt.wt[k0 + 1][n0], _mm256_permute2f128_ps(u1, u5, 0x20));
            _mm256_store_ps(&wt.wt[k0 + 2][n0], _mm256_permute2f128_ps(u2, u6, 0x20));
            _mm256_store_ps(&wt.wt[k0 + 3][n0], _mm256_permute2f128_ps(u3, u7, 0x20));
            _mm256_store_ps(&wt.wt[k0 + 4][n0], _mm256_permute2f128_ps(u0, u4, 0x31));
            _mm256_store_ps(&wt.wt[k0 + 5][n0], _mm256_permute2f128_ps(u1, u5, 0x31));
            _mm256_store_ps(&wt.wt[k0 + 6][n0], _mm256_permute2f128_ps(u2, u6, 0x31));
            _mm256_store_ps(&wt.wt[k0 + 7][n0], _mm256_permute2f128_ps(u3, u7, 0x31));
        }
    }
}

// R activation rows (floats) against a weight tile in the fp32 model: per output column, the
// 32 products (exact in fp32: 11-bit by 11-bit significands, exponents within fp32's range)
// are summed from +0 in k order with one rounding each (an FMA), and the sum is added to the
// accumulator (one more rounding). The R x 4 sums are independent FMA chains sharing each
// weight load R times (R = 3: 12 chains, 3 broadcasts and a weight in the 16 ymm registers).
template <int R> inline void rows_f32(const float * const * a, const weight_tile_f & w, float * const * acc) {
    __m256 s[R][4];
    for (int r = 0; r < R; r++) {
        for (int j = 0; j < 4; j++) {
            s[r][j] = _mm256_setzero_ps();
        }
    }
    for (int k = 0; k < D; k++) {
        __m256 b[R];
        for (int r = 0; r < R; r++) {
            b[r] = _mm256_broadcast_ss(a[r] + k);
        }
        for (int j = 0; j < 4; j++) {
            const __m256 wk = _mm256_load_ps(&w.wt[k][8 * j]);
            for (int r = 0; r < R; r++) {
                s[r][j] = _mm256_fmadd_ps(b[r], wk, s[r][j]);
            }
        }
    }
    for (int r = 0; r < R; r++) {
        for (int j = 0; j < 4; j++) {
            _mm256_storeu_ps(acc[r] + 8 * j, _mm256_add_ps(_mm256_loadu_ps(acc[r] + 8 * j), s[r][j]));
        }
    }
}

}  // namespace hmx_arith
}  // namespace vhtp
