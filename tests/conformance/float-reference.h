// Scalar reference definitions of the HVX floating-point instructions (v68+ IEEE sf/hf with
// -mhvx-ieee-fp, and the conversions), one small function per instruction lane, written from
// the documented semantics (HVX PRM; QEMU's target/hexagon/imported/mmvec/ext.idef and
// mmvec/hvx_ieee_fp.c read for facts). They never use the host's float unit to round: values
// are decoded exactly into doubles, combined exactly (products of two sf or hf fit in a double)
// or rounded to odd (sums), and rounded to the target format by the bit-level encoder below.
// Rounding to odd at 53 bits, then to nearest-even at <= 24 bits, is a correct single rounding.
//
// Rules every instruction shares:
//  - round to nearest, ties to even; subnormals are inputs and results (no flush to zero);
//  - any NaN result is the HVX default NaN: 0x7fffffff (sf), 0x7fff (hf); payloads and signs of
//    NaN inputs are not propagated (vmin/vmax and vabs/vfneg are the exceptions, see each);
//  - overflow gives infinity; invalid (inf - inf, 0 * inf) gives the default NaN.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

namespace fref {

constexpr uint32_t SF_DNAN = 0x7fffffffu;
constexpr uint16_t HF_DNAN = 0x7fffu;

// ------------------------------------------------------------------------------ decode / encode
inline bool sf_is_nan(uint32_t x) { return (x & 0x7fffffffu) > 0x7f800000u; }
inline bool hf_is_nan(uint16_t x) { return (x & 0x7fffu) > 0x7c00u; }

// Exact value of a binary format (mant_bits fraction bits, bias); NaN for NaN encodings.
inline double decode(uint32_t bits, int mant_bits, int exp_bits) {
    const uint32_t emask = (1u << exp_bits) - 1, bias = emask >> 1;
    const uint32_t e = (bits >> mant_bits) & emask, m = bits & ((1u << mant_bits) - 1);
    const bool     neg = (bits >> (mant_bits + exp_bits)) & 1;
    double         v;
    if (e == emask) {
        v = m ? NAN : INFINITY;
    } else if (e == 0) {
        v = std::ldexp((double) m, 1 - (int) bias - mant_bits);
    } else {
        v = std::ldexp((double) (m | (1u << mant_bits)), (int) e - (int) bias - mant_bits);
    }
    return neg ? -v : v;
}
inline double sf_value(uint32_t x) { return decode(x, 23, 8); }
inline double hf_value(uint16_t x) { return decode(x, 10, 5); }

// Round x (not NaN) to nearest-even in a binary format; subnormal results kept, overflow to inf.
inline uint32_t encode(double x, int mant_bits, int exp_bits) {
    const int      bias = (1 << (exp_bits - 1)) - 1, emin = 1 - bias, emax = bias;
    const uint32_t sign = std::signbit(x) ? 1u << (mant_bits + exp_bits) : 0u;
    const uint32_t inf  = ((1u << exp_bits) - 1) << mant_bits;
    const double   a    = std::fabs(x);
    if (a == 0) {
        return sign;
    }
    if (std::isinf(a)) {
        return sign | inf;
    }
    int e;
    std::frexp(a, &e);  // a in [2^(e-1), 2^e)
    int       q = (e - 1 < emin ? emin : e - 1) - mant_bits;  // exponent of the result's ulp
    const double scaled = std::ldexp(a, -q);                   // exact: a power-of-two scaling
    double       n      = std::floor(scaled);
    const double frac   = scaled - n;
    if (frac > 0.5 || (frac == 0.5 && std::fmod(n, 2.0) == 1.0)) {
        n += 1;
    }
    uint64_t m = (uint64_t) n;
    if (m == (2ull << mant_bits)) {  // rounded up into the next binade
        m >>= 1;
        q++;
    }
    if (q + mant_bits > emax) {
        return sign | inf;
    }
    if (m < (1ull << mant_bits)) {  // subnormal (or rounded up to the smallest normal above)
        return sign | (uint32_t) m;
    }
    const uint32_t efield = (uint32_t) (q + mant_bits + bias);
    return sign | (efield << mant_bits) | (uint32_t) (m - (1ull << mant_bits));
}
inline uint32_t sf_round(double x) { return std::isnan(x) ? SF_DNAN : encode(x, 23, 8); }
inline uint16_t hf_round(double x) { return std::isnan(x) ? HF_DNAN : (uint16_t) encode(x, 10, 5); }

// a + b rounded to odd at double precision (TwoSum gives the exact error): a later rounding to
// sf or hf is then the correct rounding of the exact sum.
inline double add_odd(double a, double b) {
    const double s = a + b;
    if (!std::isfinite(s)) {
        return s;
    }
    const double bb = s - a;
    const double err = (a - (s - bb)) + (b - bb);
    if (err == 0) {
        return s;
    }
    uint64_t bits;
    std::memcpy(&bits, &s, 8);
    if (bits & 1) {
        return s;
    }
    return std::nextafter(s, err > 0 ? INFINITY : -INFINITY);
}

// ------------------------------------------------------------------------------ IEEE sf / hf
inline uint32_t sf_add(uint32_t a, uint32_t b) { return sf_round(add_odd(sf_value(a), sf_value(b))); }
inline uint32_t sf_sub(uint32_t a, uint32_t b) { return sf_round(add_odd(sf_value(a), -sf_value(b))); }
inline uint32_t sf_mpy(uint32_t a, uint32_t b) { return sf_round(sf_value(a) * sf_value(b)); }  // exact
inline uint16_t hf_add(uint16_t a, uint16_t b) { return hf_round(add_odd(hf_value(a), hf_value(b))); }
inline uint16_t hf_sub(uint16_t a, uint16_t b) { return hf_round(add_odd(hf_value(a), -hf_value(b))); }
inline uint16_t hf_mpy(uint16_t a, uint16_t b) { return hf_round(hf_value(a) * hf_value(b)); }
// Vx.hf += vmpy(Vu.hf, Vv.hf): fused, one rounding
inline uint16_t hf_mpyacc(uint16_t x, uint16_t a, uint16_t b) {
    return hf_round(add_odd(hf_value(a) * hf_value(b), hf_value(x)));
}
// hf inputs widened to sf, then an sf operation (Wsf vadd/vsub/vmpy of hf)
inline uint32_t sf_add_hf(uint16_t a, uint16_t b) { return sf_round(add_odd(hf_value(a), hf_value(b))); }
inline uint32_t sf_sub_hf(uint16_t a, uint16_t b) { return sf_round(add_odd(hf_value(a), -hf_value(b))); }
inline uint32_t sf_mpy_hf(uint16_t a, uint16_t b) { return sf_round(hf_value(a) * hf_value(b)); }
// Vxx.sf += vmpy(Vu.hf, Vv.hf): fused multiply-add in sf
inline uint32_t sf_mpyacc_hf(uint32_t x, uint16_t a, uint16_t b) {
    return sf_round(add_odd(hf_value(a) * hf_value(b), sf_value(x)));
}
// Vd.sf = vdmpy(Vu.hf, Vv.hf): the two products are exact in sf; one rounded sf add.
inline uint32_t sf_dmpy_hf(uint16_t a0, uint16_t a1, uint16_t b0, uint16_t b1) {
    const double p0 = hf_value(a0) * hf_value(b0), p1 = hf_value(a1) * hf_value(b1);
    return sf_round(add_odd(p1, p0));
}
// Vx.sf += vdmpy(...): the dot product rounded to sf first, then a second rounded sf add.
inline uint32_t sf_dmpyacc_hf(uint32_t x, uint16_t a0, uint16_t a1, uint16_t b0, uint16_t b1) {
    const uint32_t d = sf_dmpy_hf(a0, a1, b0, b1);
    return sf_round(add_odd(sf_value(d), sf_value(x)));
}

// vfmin/vfmax (IEEE): a NaN operand gives the default NaN; -0 < +0.
inline uint32_t minmax_bits(double va, double vb, uint32_t a, uint32_t b, bool is_max, uint32_t sign_bit) {
    if (va == vb) {  // equal values (incl. +0/-0): the one with the wanted sign
        const bool a_neg = a & sign_bit;
        return (is_max ? !a_neg : a_neg) ? a : b;
    }
    return ((va > vb) == is_max) ? a : b;
}
inline uint32_t sf_fmax(uint32_t a, uint32_t b) {
    return (sf_is_nan(a) || sf_is_nan(b)) ? SF_DNAN : minmax_bits(sf_value(a), sf_value(b), a, b, true, 1u << 31);
}
inline uint32_t sf_fmin(uint32_t a, uint32_t b) {
    return (sf_is_nan(a) || sf_is_nan(b)) ? SF_DNAN : minmax_bits(sf_value(a), sf_value(b), a, b, false, 1u << 31);
}
inline uint16_t hf_fmax(uint16_t a, uint16_t b) {
    return (hf_is_nan(a) || hf_is_nan(b)) ? HF_DNAN : (uint16_t) minmax_bits(hf_value(a), hf_value(b), a, b, true, 0x8000);
}
inline uint16_t hf_fmin(uint16_t a, uint16_t b) {
    return (hf_is_nan(a) || hf_is_nan(b)) ? HF_DNAN : (uint16_t) minmax_bits(hf_value(a), hf_value(b), a, b, false, 0x8000);
}
// vmin/vmax (the qfloat-unit forms): a NaN orders by its sign, +NaN above +inf and -NaN below
// -inf, and is returned with its own bits; otherwise as vfmin/vfmax.
template <typename T> inline T q_max(T a, T b, bool a_nan, bool b_nan, T sign_bit, T fmax_ab) {
    const bool a_pos_nan = a_nan && !(a & sign_bit), a_neg_nan = a_nan && (a & sign_bit);
    const bool b_pos_nan = b_nan && !(b & sign_bit), b_neg_nan = b_nan && (b & sign_bit);
    if (a_pos_nan || b_neg_nan) {
        return a;
    }
    if (b_pos_nan || a_neg_nan) {
        return b;
    }
    return fmax_ab;
}
template <typename T> inline T q_min(T a, T b, bool a_nan, bool b_nan, T sign_bit, T fmin_ab) {
    const bool a_pos_nan = a_nan && !(a & sign_bit), a_neg_nan = a_nan && (a & sign_bit);
    const bool b_pos_nan = b_nan && !(b & sign_bit), b_neg_nan = b_nan && (b & sign_bit);
    if (a_pos_nan || b_neg_nan) {
        return b;
    }
    if (b_pos_nan || a_neg_nan) {
        return a;
    }
    return fmin_ab;
}
inline uint32_t sf_max(uint32_t a, uint32_t b) {
    return q_max<uint32_t>(a, b, sf_is_nan(a), sf_is_nan(b), 1u << 31, sf_fmax(a, b));
}
inline uint32_t sf_min(uint32_t a, uint32_t b) {
    return q_min<uint32_t>(a, b, sf_is_nan(a), sf_is_nan(b), 1u << 31, sf_fmin(a, b));
}
inline uint16_t hf_max(uint16_t a, uint16_t b) {
    return q_max<uint16_t>(a, b, hf_is_nan(a), hf_is_nan(b), 0x8000, hf_fmax(a, b));
}
inline uint16_t hf_min(uint16_t a, uint16_t b) {
    return q_min<uint16_t>(a, b, hf_is_nan(a), hf_is_nan(b), 0x8000, hf_fmin(a, b));
}
// vabs/vfneg: sign-bit operations, NaNs included
inline uint32_t sf_abs(uint32_t a) { return a & 0x7fffffffu; }
inline uint32_t sf_neg(uint32_t a) { return a ^ 0x80000000u; }
inline uint16_t hf_abs(uint16_t a) { return a & 0x7fffu; }
inline uint16_t hf_neg(uint16_t a) { return a ^ 0x8000u; }

// ------------------------------------------------------------------------------ conversions
inline uint32_t sf_from_hf(uint16_t a) { return sf_round(hf_value(a)); }  // exact, NaN -> default
inline uint16_t hf_from_sf(uint32_t a) { return hf_round(sf_value(a)); }
inline uint32_t sf_from_w(int32_t a) { return sf_round((double) a); }     // vconv_sf_w
inline uint16_t hf_from_int(int32_t a) { return hf_round((double) a); }   // vcvt hf <- h/uh/b/ub
// hf -> integer (vcvt h/uh/b/ub <- hf): round to nearest-even, saturate; NaN gives the maximum
// whatever its sign; -inf and negatives of an unsigned type give the minimum.
inline int32_t int_from_hf(uint16_t a, int32_t lo, int32_t hi) {
    if (hf_is_nan(a)) {
        return hi;
    }
    const double v = hf_value(a);
    if (std::isinf(v)) {
        return v > 0 ? hi : lo;
    }
    double n = std::floor(v);
    const double frac = v - n;
    if (frac > 0.5 || (frac == 0.5 && std::fmod(n, 2.0) != 0)) {
        n += 1;
    }
    return n > hi ? hi : n < lo ? lo : (int32_t) n;
}

}  // namespace fref
