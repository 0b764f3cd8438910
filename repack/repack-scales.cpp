// Refitting a super-block scale and integer sub-block scales to the FP16 products a lossy
// K-quant tile stores (unrepack of Q3_K, Q4_K, Q5_K, Q6_K).
//
// The tile holds p[i] = fl16(d * a[i]). The largest |p[i]| comes from an a[i] of large
// magnitude, and ggml's quantizers give the largest sub-block scale the extreme code (63, -32,
// -128), so trying a = extreme first for that entry, then smaller |a|, and FP16 neighbours of
// p/a (p was rounded), finds ggml's own d in practice. Any exact fit reproduces the tile bit
// for bit when repacked again.
#include <math.h>

#include "repack-internal.h"

namespace htp_repack {
namespace {

bool finite16(uint16_t h) { return (h & 0x7c00) != 0x7c00; }

// Integer nearest to v in [lo, hi]; NaN gives 0 clamped.
int nearest_clamped(float v, int lo, int hi) {
    if (!(v == v)) {
        v = 0.0f;
    }
    if (v <= (float) lo) {
        return lo;
    }
    if (v >= (float) hi) {
        return hi;
    }
    return (int) lrintf(v);
}

// Error of representing p by fl16(d * a): 0 only for identical bits.
float fit_error(uint16_t p, float d, int a) {
    const uint16_t got = fp32_to_fp16(d * (float) a);
    if (got == p) {
        return 0.0f;
    }
    const float diff = fabsf(fp16_to_fp32(got) - fp16_to_fp32(p));
    if (!(diff == diff) || diff == INFINITY) {
        return INFINITY;
    }
    return diff > 0.0f ? diff : 0x1p-60f;   // +0 vs -0: equal value, still worse than exact
}

// Best a in [lo, hi] for one product under a candidate d; returns its error.
float best_code(uint16_t p, float d, int lo, int hi, int * a) {
    const int guess = nearest_clamped(fp16_to_fp32(p) / d, lo, hi);
    float     best  = INFINITY;
    *a              = guess;
    for (int c = guess - 1; c <= guess + 1; c++) {
        if (c < lo || c > hi) {
            continue;
        }
        const float err = fit_error(p, d, c);
        if (err < best) {
            best = err;
            *a   = c;
        }
    }
    return best;
}

}  // namespace

bool fit_scales(const uint16_t * p, int n, int lo, int hi, uint16_t * d_out, int * a_out) {
    // Reference entry: the largest finite magnitude.
    int   ref     = -1;
    float ref_abs = 0.0f;
    for (int i = 0; i < n; i++) {
        const float v = fabsf(fp16_to_fp32(p[i]));
        if (finite16(p[i]) && v > ref_abs) {
            ref_abs = v;
            ref     = i;
        }
    }
    const int zero_code = lo > 0 ? lo : (hi < 0 ? hi : 0);
    if (ref < 0) {
        // All products are zero (or not finite): d = +-0 with the products' sign, codes 0.
        *d_out = (uint16_t) (p[0] & 0x8000);
        for (int i = 0; i < n; i++) {
            a_out[i] = zero_code;
        }
        bool exact = true;
        for (int i = 0; i < n; i++) {
            exact = exact && fit_error(p[i], fp16_to_fp32(*d_out), a_out[i]) == 0.0f;
        }
        return exact;
    }

    float best_err = INFINITY;
    int   a_try[256];
    const int max_abs = hi > -lo ? hi : -lo;
    for (int mag = max_abs; mag >= 1; mag--) {
        for (int sgn = -1; sgn <= 1; sgn += 2) {
            const int a_ref = sgn * mag;
            if (a_ref < lo || a_ref > hi) {
                continue;
            }
            const uint16_t d0 = fp32_to_fp16(fp16_to_fp32(p[ref]) / (float) a_ref);
            for (int delta = -2; delta <= 2; delta++) {
                const uint16_t d16 = (uint16_t) (d0 + delta);
                // Stay within d0's sign and finite range: neighbours by bit pattern.
                if (((d16 ^ d0) & 0x8000) || !finite16(d16) || (d16 & 0x7fff) == 0) {
                    continue;
                }
                const float d   = fp16_to_fp32(d16);
                float       err = 0.0f;
                for (int i = 0; i < n && err <= best_err; i++) {
                    const float e = best_code(p[i], d, lo, hi, &a_try[i]);
                    err           = e > err ? e : err;
                }
                if (err < best_err) {
                    best_err = err;
                    *d_out   = d16;
                    for (int i = 0; i < n; i++) {
                        a_out[i] = a_try[i];
                    }
                    if (err == 0.0f) {
                        return true;
                    }
                }
            }
        }
    }
    if (best_err == INFINITY) {   // nothing finite fits (non-finite products): zero the block
        *d_out = 0;
        for (int i = 0; i < n; i++) {
            a_out[i] = zero_code;
        }
    }
    return false;
}

}  // namespace htp_repack
