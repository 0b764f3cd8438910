// Tiled weight formats -> FP16 HMX tiles (see tile-dequant.h; layouts in docs/tiled-formats.md).
#include "tile-dequant.h"

namespace htp_ops {
namespace {

constexpr int NR = HTP_TENSOR_TILE_N_ROWS;

inline uint16_t rd16(const uint8_t * p) {
    return (uint16_t) (p[0] | (p[1] << 8));
}

// IEEE binary16 -> binary32 (exact, subnormals and specials included).
inline float h2f(uint16_t h) {
    const uint32_t s = (uint32_t) (h & 0x8000) << 16;
    uint32_t       e = (h >> 10) & 0x1f, m = h & 0x3ff, bits;
    if (e == 0x1f) {
        bits = s | 0x7f800000u | (m << 13);
    } else if (e != 0) {
        bits = s | ((e + 112) << 23) | (m << 13);
    } else if (m == 0) {
        bits = s;
    } else {
        e = 113;
        while (!(m & 0x400)) {
            m <<= 1;
            e--;
        }
        bits = s | (e << 23) | ((m & 0x3ff) << 13);
    }
    float f;
    __builtin_memcpy(&f, &bits, 4);
    return f;
}

const int8_t kIq4nl[16] = { -127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113 };
const float  kMxfp4[16] = { 0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f,
                            0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f };

// 4-bit code of column c, row r, in the shared block-32 nibble layout (byte 32*cp + r).
inline int nib32(const uint8_t * t, int r, int c) {
    return (t[32 * (c / 2) + r] >> (4 * (c & 1))) & 15;
}

// 2-bit code in vrmpy order: vector k/16, byte 4r + k%4, bits 2*((k/4)%4).
inline int v2(const uint8_t * t, int r, int k) {
    return (t[128 * (k / 16) + 4 * r + (k % 4)] >> (2 * ((k / 4) % 4))) & 3;
}

// 32 x 32 floats -> one FP16 HMX tile (64 floats per output vector: rows 2v, 2v+1).
inline void to_f16(HVX_Vector * out, const float * f) {
    f32_to_f16_vectors(out, (const HVX_Vector *) f, 16);
}

// Q5_0 / Q5_1: the 4-bit nibbles plus the fifth-bit plane at `qh` (column k of row r: byte
// 32*((k/2)%4) + r, bit 2*(k/8) + k%2). Q5_0: (code - 16) * d, d at 640 + 2r; Q5_1:
// code * d + m, (d, m) at 512 + 4r.
void dequant_q5(uint32_t type, const uint8_t * t, float * f) {
    const bool      q5_1 = type == HTP_TYPE_Q5_1;
    const uint8_t * qh   = t + (q5_1 ? HTP_TILE_Q5_1_QH : HTP_TILE_Q5_0_QH);
    for (int r = 0; r < NR; r++) {
        const float d = h2f(rd16(q5_1 ? t + HTP_TILE_Q5_1_SCALES + 4 * r : t + HTP_TILE_Q5_0_SCALES + 2 * r));
        const float m = q5_1 ? h2f(rd16(t + HTP_TILE_Q5_1_SCALES + 4 * r + 2)) : 0.0f;
        for (int k = 0; k < 32; k++) {
            const int q   = nib32(t, r, k) | (((qh[32 * ((k / 2) % 4) + r] >> (2 * (k / 8) + (k & 1))) & 1) << 4);
            f[r * 32 + k] = q5_1 ? (float) q * d + m : (float) (q - 16) * d;
        }
    }
}

}  // namespace

bool tile_dequant_f16(uint32_t type, const uint8_t * t, const uint8_t * sb_first, HVX_Vector * out, float * f) {
    switch (type) {
        case HTP_TYPE_Q4_0:
        case HTP_TYPE_IQ4_NL:
            for (int r = 0; r < NR; r++) {
                const float d = h2f(rd16(t + HTP_TILE_Q4_0_SCALES + 2 * r));
                for (int c = 0; c < 32; c++) {
                    const int q  = nib32(t, r, c);
                    f[r * 32 + c] = type == HTP_TYPE_Q4_0 ? (float) (q - 8) * d : d * (float) kIq4nl[q];
                }
            }
            break;
        case HTP_TYPE_Q4_1:
            for (int r = 0; r < NR; r++) {
                const float d = h2f(rd16(t + HTP_TILE_Q4_1_SCALES + 4 * r));
                const float m = h2f(rd16(t + HTP_TILE_Q4_1_SCALES + 4 * r + 2));
                for (int c = 0; c < 32; c++) {
                    f[r * 32 + c] = (float) nib32(t, r, c) * d + m;
                }
            }
            break;
        case HTP_TYPE_MXFP4:
            for (int r = 0; r < NR; r++) {
                const int   e  = t[HTP_TILE_MXFP4_SCALES + r];
                const int   eh = e - 112 < 0 ? 0 : (e - 112 > 30 ? 30 : e - 112);
                const float s  = h2f((uint16_t) (eh << 10));
                for (int c = 0; c < 32; c++) {
                    f[r * 32 + c] = kMxfp4[nib32(t, r, c)] * s;
                }
            }
            break;
        case HTP_TYPE_Q8_0:
            for (int r = 0; r < NR; r++) {
                const float d = h2f(rd16(t + HTP_TILE_Q8_0_SCALES + 2 * r));
                for (int c = 0; c < 32; c++) {
                    f[r * 32 + c] = (float) (int8_t) t[(c / 2) * 64 + 2 * r + (c & 1)] * d;
                }
            }
            break;
        case HTP_TYPE_Q1_0:
            for (int o = 0; o < 4; o++) {
                for (int r = 0; r < NR; r++) {
                    const float d = h2f(rd16(t + HTP_TILE_Q1_0_SCALES + 2 * r));
                    for (int c = 0; c < 32; c++) {
                        const int bit = (t[128 * o + 4 * r + (c % 4)] >> (c / 4)) & 1;
                        f[r * 32 + c] = bit ? d : -d;
                    }
                }
                to_f16(out + 16 * o, f);
            }
            return true;
        case HTP_TYPE_Q2_0:
            for (int o = 0; o < 2; o++) {
                for (int r = 0; r < NR; r++) {
                    const float d = h2f(rd16(t + HTP_TILE_Q2_0_SCALES + 2 * r));
                    for (int c = 0; c < 32; c++) {
                        f[r * 32 + c] = (float) (v2(t, r, 32 * o + c) - 1) * d;
                    }
                }
                to_f16(out + 16 * o, f);
            }
            return true;
        case HTP_TYPE_Q2_K: {
            constexpr uint32_t T2 = HTP_TENSOR_TILE_SIZE_Q2_K;
            for (int r = 0; r < NR; r++) {
                const float d    = h2f(rd16(sb_first + (r / 8) * T2 + HTP_TILE_Q2_K_DM + 2 * (r % 8)));
                const float dmin = -h2f(rd16(sb_first + (4 + r / 8) * T2 + HTP_TILE_Q2_K_DM + 2 * (r % 8)));
                for (int k = 0; k < 32; k++) {
                    const int   sc = t[HTP_TILE_Q2_K_SCALES + 32 * (k / 16) + r];
                    const float dl = d * (float) (sc & 0xf);
                    const float ml = dmin * (float) (sc >> 4);
                    f[r * 32 + k]  = dl * (float) v2(t, r, k) - ml;
                }
            }
            break;
        }
        case HTP_TYPE_Q3_K:
            for (int r = 0; r < NR; r++) {
                for (int k = 0; k < 32; k++) {
                    const float s   = h2f(rd16(t + HTP_TILE_Q3_K_SCALES + 2 * (32 * (k / 16) + r)));
                    const int   neg = (t[HTP_TILE_Q3_K_SIGNS + 4 * r + (k % 4)] >> (k / 4)) & 1;
                    f[r * 32 + k]   = s * (float) (v2(t, r, k) - 4 * neg);
                }
            }
            break;
        case HTP_TYPE_Q4_K:
        case HTP_TYPE_Q5_K:
            for (int r = 0; r < NR; r++) {
                const float s = h2f(rd16(t + HTP_TILE_Q4_K_SCALES + 4 * r));
                const float m = h2f(rd16(t + HTP_TILE_Q4_K_SCALES + 4 * r + 2));
                for (int k = 0; k < 32; k++) {
                    int q = nib32(t, r, k);
                    if (type == HTP_TYPE_Q5_K) {
                        q |= ((t[HTP_TILE_Q5_K_QH + 32 * ((k / 2) % 4) + r] >> (2 * (k / 8) + (k & 1))) & 1) << 4;
                    }
                    f[r * 32 + k] = s * (float) q + m;
                }
            }
            break;
        case HTP_TYPE_Q6_K:
            for (int r = 0; r < NR; r++) {
                for (int k = 0; k < 32; k++) {
                    const float s  = h2f(rd16(t + HTP_TILE_Q6_K_SCALES + 2 * (32 * (k / 16) + r)));
                    const int   lo = (t[128 * (k / 8) + 4 * r + (k % 4)] >> (4 * ((k / 4) % 2))) & 15;
                    const int   hi = v2(t + HTP_TILE_Q6_K_QH, r, k);
                    f[r * 32 + k]  = s * (float) ((lo | (hi << 4)) - 32);
                }
            }
            break;
        case HTP_TYPE_Q5_0:
        case HTP_TYPE_Q5_1:
            dequant_q5(type, t, f);
            break;
        default:
            return false;
    }
    to_f16(out, f);
    return true;
}

}  // namespace htp_ops
