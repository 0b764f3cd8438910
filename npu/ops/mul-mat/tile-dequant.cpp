// Tiled weight formats -> FP16 HMX tiles with HVX (see tile-dequant.h; layouts in
// docs/tiled-formats.md).
//
// The tile layouts keep one byte (or halfword) per row in consecutive lanes, so a whole column
// (32 rows) decodes at once: codes are picked with byte/halfword masks and shifts (4-bit
// codes through vlut32 where they map to a table), widened to words, converted to FP32
// exactly (integer + magic float), scaled per row in FP32 and rounded once to FP16 two columns at
// a time. The 16 vectors of column pairs then go through a 32 x 32 halfword transpose (five
// rounds of two-vector interleaves) into the row-major HMX layout.
#include "tile-dequant.h"

#include "hvx-vmem.h"
#include "quant-luts.h"

namespace htp_ops {
namespace {

// Bytes [p, p + n) (n <= 128) as one vector, p any address: aligned loads that stay inside
// the 128-byte blocks holding those bytes (a tile's last block may be the end of a VTCM
// slot), joined with valign.
inline HVX_Vector load_u(const uint8_t * p, uint32_t n) {
    const uint32_t     off  = (uint32_t) ((uintptr_t) p & 127);
    const HVX_Vector * base = (const HVX_Vector *) (p - off);
    if (off == 0) {
        return hvx_vmem_load(&base[0]);
    }
    const HVX_Vector b0 = hvx_vmem_load(&base[0]);
    return Q6_V_valign_VVR(off + n > 128 ? hvx_vmem_load(&base[1]) : b0, b0, (int32_t) off);
}

// FP16 at p + 2r -> sf lane r (32 rows).
inline HVX_Vector rows_f16(const uint8_t * p) {
    return Q6_V_lo_W(Q6_Wsf_vcvt_Vhf(Q6_Vh_vshuff_Vh(load_u(p, 64))));
}

// int32 lanes (|x| < 2^22) -> sf, exactly: the float with bits 0x4B400000 + x is 1.5 * 2^23 + x.
inline HVX_Vector int_sf(HVX_Vector w) {
    return Q6_Vsf_vsub_VsfVsf(Q6_Vw_vadd_VwVw(w, Q6_V_vsplat_R(0x4B400000)), Q6_V_vsplat_R(0x4B400000));
}

// int16 lanes: lanes 0..31 -> lo sf, lanes 32..63 -> hi sf (exact).
inline HVX_VectorPair codes_sf(HVX_Vector h) {
    const HVX_VectorPair w = Q6_Ww_vunpack_Vh(h);
    return Q6_W_vcombine_VV(int_sf(Q6_V_hi_W(w)), int_sf(Q6_V_lo_W(w)));
}

inline HVX_Vector fmul(HVX_Vector a, HVX_Vector b) {
    return Q6_Vsf_vmpy_VsfVsf(a, b);
}

inline HVX_Vector fadd(HVX_Vector a, HVX_Vector b) {
    return Q6_Vsf_vadd_VsfVsf(a, b);
}

inline HVX_Vector band(HVX_Vector a, uint32_t m) {
    return Q6_V_vand_VV(a, Q6_V_vsplat_R((int32_t) m));
}

inline HVX_Vector lsr_h(HVX_Vector v, int n) {
    return n ? Q6_Vuh_vlsr_VuhR(v, n) : v;
}

// Halfword shift by n (> 0 left, < 0 logical right); callers mask the bits they keep.
inline HVX_Vector shift_h(HVX_Vector v, int n) {
    return n > 0 ? Q6_Vh_vasl_VhR(v, n) : lsr_h(v, -n);
}

// One 32 x 32 FP16 HMX tile, gathered column pair by column pair.
// h[u] lanes: hf[2n + c] = (row n, column 2u + c) after put, the order vcvt produces.
struct tile_f16 {
    HVX_Vector h[16];

    // Columns k, k + 1 (k even) from their sf row vectors.
    void put(int k, HVX_Vector even, HVX_Vector odd) { h[k / 2] = Q6_Vhf_vcvt_VsfVsf(even, odd); }

    // Interleaves the halfwords of a and b: a <- (a[i], b[i]) for i < 32, b <- for i >= 32.
    static void interleave(HVX_Vector & a, HVX_Vector & b) {
        const HVX_VectorPred lo = Q6_Q_vsetq_R(64);
        const HVX_Vector     x  = Q6_V_vmux_QVV(lo, a, Q6_V_vror_VR(b, 64));  // a[0..31] b[0..31]
        const HVX_Vector     y  = Q6_V_vmux_QVV(lo, Q6_V_vror_VR(a, 64), b);  // a[32..63] b[32..63]
        a                       = Q6_Vh_vshuff_Vh(x);
        b                       = Q6_Vh_vshuff_Vh(y);
    }

    // Halfword (n, k) sits at vector index bits k4 k3 k2 k1, lane bits k0 n4 n3 n2 n1 n0 after
    // the vdeal. An interleave on vector bit j pushes j into the lane's bottom and the lane's
    // top bit into j; pushing bits 3, 2, 1, 0, 3 leaves lane n0 k4 k3 k2 k1 k0 in vector
    // n1 n4 n3 n2: the HMX row pair (2m, 2m + 1) of out[m].
    void store(HVX_Vector * out) {
        for (int u = 0; u < 16; u++) {
            h[u] = Q6_Vh_vdeal_Vh(h[u]);
        }
        static const int bits[5] = { 3, 2, 1, 0, 3 };
        for (int s = 0; s < 5; s++) {
            const int j = bits[s];
            for (int u = 0; u < 16; u++) {
                if (!(u & (1 << j))) {
                    interleave(h[u], h[u | (1 << j)]);
                }
            }
        }
        for (int m = 0; m < 16; m++) {
            hvx_vmem_store(&out[m], h[((m & 1) << 3) | (m >> 1)]);
        }
    }
};

// ---- 4-bit formats: byte 32 cp + r = code(r, 2cp) | code(r, 2cp + 1) << 4 -----------------
// Per quant vector v (column pairs 4v..4v+3) the low / high nibble bytes unpack to halfwords
// whose lanes 0..31 / 32..63 are column pairs 4v + 2q and 4v + 2q + 1 (q = 0: lo register).

// Q5_1's tile is laid out as Q5_K's ((d, m) at 512, fifth-bit plane at 640): NIB_Q5_K.
enum nib_kind { NIB_Q4_0, NIB_IQ4_NL, NIB_MXFP4, NIB_Q4_1, NIB_Q5_K, NIB_Q5_0 };

void dequant_nibbles(nib_kind kind, const uint8_t * t, tile_f16 & o) {
    const uint32_t m4 = 0x0F0F0F0F;
    HVX_Vector     x = Q6_V_vzero(), y = Q6_V_vzero();  // value = code * x + y per row
    HVX_Vector     lut = Q6_V_vzero(), fifth = Q6_V_vzero();
    switch (kind) {
        case NIB_Q4_0:
        case NIB_IQ4_NL:
            x   = rows_f16(t + HTP_TILE_Q4_0_SCALES);
            lut = hvx_vmem_load_at(kind == NIB_Q4_0 ? kLutQ4_0 : kLutIq4nl);
            break;
        case NIB_MXFP4: {
            // ggml's scale is FP16 2^(eh - 15), eh = clamp(e - 112, 0, 30) (eh = 0: zero);
            // the table holds 2 * E2M1, so the row factor is half of it: (eh + 111) << 23.
            const HVX_Vector e  = Q6_V_lo_W(Q6_Wuw_vunpack_Vuh(Q6_V_lo_W(Q6_Wuh_vunpack_Vub(
                load_u(t + HTP_TILE_MXFP4_SCALES, 32)))));
            const HVX_Vector eh = Q6_Vw_vmin_VwVw(Q6_Vw_vmax_VwVw(Q6_Vw_vsub_VwVw(e, Q6_V_vsplat_R(112)), Q6_V_vzero()),
                                                  Q6_V_vsplat_R(30));
            x   = Q6_V_vmux_QVV(Q6_Q_vcmp_eq_VwVw(eh, Q6_V_vzero()), Q6_V_vzero(),
                                Q6_Vw_vasl_VwR(Q6_Vw_vadd_VwVw(eh, Q6_V_vsplat_R(111)), 23));
            lut = hvx_vmem_load_at(kLutMxfp4x2);
            break;
        }
        case NIB_Q5_0:  // (code - 16) * d, d at 640, fifth-bit plane at 512
            x     = rows_f16(t + HTP_TILE_Q5_0_SCALES);
            lut   = hvx_vmem_load_at(kLutQ5_0);
            fifth = load_u(t + HTP_TILE_Q5_0_QH, 128);
            break;
        case NIB_Q4_1:
        case NIB_Q5_K: {
            const HVX_VectorPair xy = Q6_Wsf_vcvt_Vhf(load_u(t + HTP_TILE_Q4_1_SCALES, 128));  // (d, m) per row
            x                       = Q6_V_lo_W(xy);
            y                       = Q6_V_hi_W(xy);
            if (kind == NIB_Q5_K) {
                fifth = load_u(t + HTP_TILE_Q5_K_QH, 128);  // byte 32 j + r: bit 2v + nibble of pair 4v + j
            }
            break;
        }
    }
    const bool table = kind == NIB_Q4_0 || kind == NIB_IQ4_NL || kind == NIB_MXFP4 || kind == NIB_Q5_0;
    for (int v = 0; v < 4; v++) {
        const HVX_Vector q = load_u(t + 128 * v, 128);
        HVX_Vector       nib[2] = { band(q, m4), band(lsr_h(q, 4), m4) };
        for (int hn = 0; hn < 2; hn++) {
            if (kind == NIB_Q5_K || kind == NIB_Q5_0) {
                nib[hn] = Q6_V_vor_VV(nib[hn], band(shift_h(fifth, 4 - 2 * v - hn), 0x10101010));
            }
            if (table) {
                nib[hn] = Q6_Vb_vlut32_VbVbR(nib[hn], lut, 0);
            }
        }
        // Codes are below 128 (or signed table values): a signed unpack widens both.
        const HVX_VectorPair w[2] = { Q6_Wh_vunpack_Vb(nib[0]), Q6_Wh_vunpack_Vb(nib[1]) };
        for (int q2 = 0; q2 < 2; q2++) {
            const HVX_VectorPair lo = codes_sf(q2 ? Q6_V_hi_W(w[0]) : Q6_V_lo_W(w[0]));  // columns c, c + 2
            const HVX_VectorPair hi = codes_sf(q2 ? Q6_V_hi_W(w[1]) : Q6_V_lo_W(w[1]));  // c + 1, c + 3
            const int            c  = 8 * v + 4 * q2;
            HVX_Vector           f[4] = { Q6_V_lo_W(lo), Q6_V_lo_W(hi), Q6_V_hi_W(lo), Q6_V_hi_W(hi) };
            for (int i = 0; i < 4; i++) {
                f[i] = table ? fmul(f[i], x) : fadd(fmul(f[i], x), y);
            }
            o.put(c, f[0], f[1]);
            o.put(c + 2, f[2], f[3]);
        }
    }
}

// ---- Q8_0: byte 64 cp + 2r + (k & 1) ------------------------------------------------------
void dequant_q8_0(const uint8_t * t, tile_f16 & o) {
    const HVX_Vector d = rows_f16(t + HTP_TILE_Q8_0_SCALES);
    for (int v = 0; v < 8; v++) {
        const HVX_VectorPair w = Q6_Wh_vunpack_Vb(load_u(t + 128 * v, 128));
        for (int q2 = 0; q2 < 2; q2++) {
            // halfword 2r + c of pair 2v + q2 -> sf lo (c = 0) / hi (c = 1), lane r
            const HVX_VectorPair c = codes_sf(Q6_Vh_vdeal_Vh(q2 ? Q6_V_hi_W(w) : Q6_V_lo_W(w)));
            o.put(4 * v + 2 * q2, fmul(Q6_V_lo_W(c), d), fmul(Q6_V_hi_W(c), d));
        }
    }
}

// ---- vrmpy-order formats: byte 4r + k % 4 of a 128-byte vector ---------------------------
// After vdeal.h halfword lane 32 j1 + r holds row r's bytes k % 4 = 2 j1 (low) and 2 j1 + 1
// (high): a field at bit b of byte j0 is (lane >> (8 j0 + b)), and its lanes 0..31 / 32..63
// are columns base + j0 / base + 2 + j0.
inline HVX_Vector vrmpy_rows(const uint8_t * p) {
    return Q6_Vh_vdeal_Vh(load_u(p, 128));
}

// Puts columns base..base + 3 from the code vectors of j0 = 0, 1 (int16), scaled per row.
template <class F> inline void put4(tile_f16 & o, int base, HVX_Vector c0, HVX_Vector c1, F scale) {
    const HVX_VectorPair a = codes_sf(c0), b = codes_sf(c1);
    o.put(base, scale(Q6_V_lo_W(a)), scale(Q6_V_lo_W(b)));
    o.put(base + 2, scale(Q6_V_hi_W(a)), scale(Q6_V_hi_W(b)));
}

// Q1_0: quarter o = vector o, column 4g + k % 4 at bit g; value (2 bit - 1) * d.
void dequant_q1_0(const uint8_t * t, HVX_Vector * out) {
    const HVX_Vector d   = rows_f16(t + HTP_TILE_Q1_0_SCALES);
    const HVX_Vector one = Q6_Vh_vsplat_R(1);
    auto             mul = [&](HVX_Vector f) { return fmul(f, d); };
    for (int q = 0; q < 4; q++) {
        tile_f16         o;
        const HVX_Vector y = vrmpy_rows(t + 128 * q);
        for (int g = 0; g < 8; g++) {
            HVX_Vector c[2];
            for (int j0 = 0; j0 < 2; j0++) {
                const HVX_Vector bit = Q6_V_vand_VV(lsr_h(y, 8 * j0 + g), one);
                c[j0]                = Q6_Vh_vsub_VhVh(Q6_Vh_vasl_VhR(bit, 1), one);
            }
            put4(o, 4 * g, c[0], c[1], mul);
        }
        o.store(out + 16 * q);
    }
}

// 2-bit code of group g (bits 2g) of byte j0 from a vdealt vrmpy-order vector.
inline HVX_Vector code2(HVX_Vector y, int j0, int g) {
    return Q6_V_vand_VV(lsr_h(y, 8 * j0 + 2 * g), Q6_Vh_vsplat_R(3));
}

// Q2_0: vector k / 16, bits 2 ((k / 4) % 4); value (code - 1) * d; 2 output tiles.
void dequant_q2_0(const uint8_t * t, HVX_Vector * out) {
    const HVX_Vector d   = rows_f16(t + HTP_TILE_Q2_0_SCALES);
    const HVX_Vector one = Q6_Vh_vsplat_R(1);
    auto             mul = [&](HVX_Vector f) { return fmul(f, d); };
    for (int q = 0; q < 2; q++) {
        tile_f16 o;
        for (int w = 0; w < 2; w++) {
            const HVX_Vector y = vrmpy_rows(t + 128 * (2 * q + w));
            for (int g = 0; g < 4; g++) {
                put4(o, 16 * w + 4 * g, Q6_Vh_vsub_VhVh(code2(y, 0, g), one), Q6_Vh_vsub_VhVh(code2(y, 1, g), one), mul);
            }
        }
        o.store(out + 16 * q);
    }
}

// Q3_K: low 2 bits as Q2_0, sign bit k / 4 of the plane at 256 (set: minus 4); FP16 scale per
// row and half (k < 16: 384 + 2r, else 448 + 2r).
void dequant_q3_k(const uint8_t * t, tile_f16 & o) {
    const HVX_VectorPair sc   = Q6_Wsf_vcvt_Vhf(Q6_Vh_vshuff_Vh(load_u(t + HTP_TILE_Q3_K_SCALES, 128)));
    const HVX_Vector     sg   = vrmpy_rows(t + HTP_TILE_Q3_K_SIGNS);
    for (int w = 0; w < 2; w++) {
        const HVX_Vector y   = vrmpy_rows(t + 128 * w);
        const HVX_Vector s   = w ? Q6_V_hi_W(sc) : Q6_V_lo_W(sc);
        auto             mul = [&](HVX_Vector f) { return fmul(f, s); };
        for (int g = 0; g < 4; g++) {
            HVX_Vector c[2];
            for (int j0 = 0; j0 < 2; j0++) {
                const HVX_Vector neg = Q6_V_vand_VV(lsr_h(sg, 8 * j0 + 4 * w + g), Q6_Vh_vsplat_R(1));
                c[j0]                = Q6_Vh_vsub_VhVh(code2(y, j0, g), Q6_Vh_vasl_VhR(neg, 2));
            }
            put4(o, 16 * w + 4 * g, c[0], c[1], mul);
        }
    }
}

// Q6_K: low nibble (k / 4) % 2 of vector k / 8, high 2 bits 2 ((k / 4) % 4) of vector
// 4 + k / 16; value (code - 32) * scale, FP16 scale per row and half at 768.
void dequant_q6_k(const uint8_t * t, tile_f16 & o) {
    const HVX_VectorPair sc = Q6_Wsf_vcvt_Vhf(Q6_Vh_vshuff_Vh(load_u(t + HTP_TILE_Q6_K_SCALES, 128)));
    const HVX_Vector     k32 = Q6_Vh_vsplat_R(32);
    for (int w = 0; w < 2; w++) {
        const HVX_Vector hi  = vrmpy_rows(t + HTP_TILE_Q6_K_QH + 128 * w);
        const HVX_Vector s   = w ? Q6_V_hi_W(sc) : Q6_V_lo_W(sc);
        auto             mul = [&](HVX_Vector f) { return fmul(f, s); };
        for (int a = 2 * w; a < 2 * w + 2; a++) {  // vector k / 8
            const HVX_Vector lo = vrmpy_rows(t + 128 * a);
            for (int b = 0; b < 2; b++) {  // nibble (k / 4) % 2
                HVX_Vector c[2];
                for (int j0 = 0; j0 < 2; j0++) {
                    const HVX_Vector l = Q6_V_vand_VV(lsr_h(lo, 8 * j0 + 4 * b), Q6_Vh_vsplat_R(15));
                    const HVX_Vector h = code2(hi, j0, 2 * (a % 2) + b);
                    c[j0]              = Q6_Vh_vsub_VhVh(Q6_V_vor_VV(l, Q6_Vh_vasl_VhR(h, 4)), k32);
                }
                put4(o, 8 * a + 4 * b, c[0], c[1], mul);
            }
        }
    }
}

// Q2_K: codes as Q2_0's first two vectors; raw scale bytes (min << 4 | sc) at 256 + r (k < 16)
// and 288 + r; FP16 d of rows 8j..8j+7 at 320.. of the super-block's tile j < 4, -dmin in
// tiles 4..7. value = (d * sc) * code + (-dmin) * min.
void dequant_q2_k(const uint8_t * t, const uint8_t * sb, tile_f16 & o) {
    HVX_Vector dm = Q6_V_vzero();  // bytes 16 j.. = tile j's 8 FP16
    for (int j = 0; j < 8; j++) {
        const HVX_VectorPred q = Q6_Q_and_QQ(Q6_Q_vsetq2_R(16 * j + 16), Q6_Q_not_Q(Q6_Q_vsetq_R(16 * j)));
        const HVX_Vector     v = load_u(sb + j * HTP_TENSOR_TILE_SIZE_Q2_K + HTP_TILE_Q2_K_DM, 16);
        dm                     = Q6_V_vmux_QVV(q, Q6_V_vror_VR(v, 128 - 16 * j), dm);
    }
    const HVX_VectorPair dd  = Q6_Wsf_vcvt_Vhf(Q6_Vh_vshuff_Vh(dm));  // lo: d per row, hi: -dmin
    const HVX_Vector     raw = Q6_V_lo_W(Q6_Wuh_vunpack_Vub(load_u(t + HTP_TILE_Q2_K_SCALES, 64)));
    const HVX_VectorPair sc  = codes_sf(Q6_V_vand_VV(raw, Q6_Vh_vsplat_R(15)));
    const HVX_VectorPair mn  = codes_sf(Q6_Vuh_vlsr_VuhR(raw, 4));
    for (int w = 0; w < 2; w++) {
        const HVX_Vector y   = vrmpy_rows(t + 128 * w);
        const HVX_Vector dl  = fmul(Q6_V_lo_W(dd), w ? Q6_V_hi_W(sc) : Q6_V_lo_W(sc));
        const HVX_Vector ml  = fmul(Q6_V_hi_W(dd), w ? Q6_V_hi_W(mn) : Q6_V_lo_W(mn));
        auto             mad = [&](HVX_Vector f) { return fadd(fmul(dl, f), ml); };
        for (int g = 0; g < 4; g++) {
            put4(o, 16 * w + 4 * g, code2(y, 0, g), code2(y, 1, g), mad);
        }
    }
}

}  // namespace

bool tile_dequant_f16(uint32_t type, const uint8_t * t, const uint8_t * sb_first, HVX_Vector * out, float * scratch) {
    (void) scratch;  // the decoders keep everything in vectors
    tile_f16 o;
    switch (type) {
        case HTP_TYPE_Q4_0: dequant_nibbles(NIB_Q4_0, t, o); break;
        case HTP_TYPE_IQ4_NL: dequant_nibbles(NIB_IQ4_NL, t, o); break;
        case HTP_TYPE_MXFP4: dequant_nibbles(NIB_MXFP4, t, o); break;
        case HTP_TYPE_Q4_1:
        case HTP_TYPE_Q4_K: dequant_nibbles(NIB_Q4_1, t, o); break;
        case HTP_TYPE_Q5_K:
        case HTP_TYPE_Q5_1: dequant_nibbles(NIB_Q5_K, t, o); break;
        case HTP_TYPE_Q5_0: dequant_nibbles(NIB_Q5_0, t, o); break;
        case HTP_TYPE_Q8_0: dequant_q8_0(t, o); break;
        case HTP_TYPE_Q1_0: dequant_q1_0(t, out); return true;
        case HTP_TYPE_Q2_0: dequant_q2_0(t, out); return true;
        case HTP_TYPE_Q2_K: dequant_q2_k(t, sb_first, o); break;
        case HTP_TYPE_Q3_K: dequant_q3_k(t, o); break;
        case HTP_TYPE_Q6_K: dequant_q6_k(t, o); break;
        default: return false;
    }
    o.store(out);
    return true;
}

}  // namespace htp_ops
