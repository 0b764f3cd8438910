// Integer HVX intrinsics against scalar references written from the ISA semantics
// (arithmetic, multiply, logic and shifts, compares and predicates, permutes, unpack).
#include <gtest/gtest.h>

#include <climits>

#include "hvx-emu-test-util.h"

using namespace hvx_test;

static const std::vector<int32_t> kW = { 0, 1, -1, INT32_MAX, INT32_MIN, INT32_MAX - 1, INT32_MIN + 1, 0x7f800000 };
static const std::vector<int16_t> kH = { 0, 1, -1, INT16_MAX, INT16_MIN, 0x7fff - 1 };
static const std::vector<int8_t>  kB = { 0, 1, -1, 127, -128 };

TEST(HvxEmuArith, WordAddSubWrapAndSat) {
    auto a = vectors<int32_t>(1, kW), b = vectors<int32_t>(2, kW);
    for (size_t k = 0; k < a.size(); k++) {
        HVX_Vector add = Q6_Vw_vadd_VwVw(a[k], b[k]), sub = Q6_Vw_vsub_VwVw(a[k], b[k]);
        HVX_Vector adds = Q6_Vw_vadd_VwVw_sat(a[k], b[k]), subs = Q6_Vw_vsub_VwVw_sat(a[k], b[k]);
        HVX_Vector mx = Q6_Vw_vmax_VwVw(a[k], b[k]), mn = Q6_Vw_vmin_VwVw(a[k], b[k]);
        for (int i = 0; i < 32; i++) {
            int64_t x = lane<int32_t>(a[k], i), y = lane<int32_t>(b[k], i);
            EXPECT_EQ(lane<int32_t>(add, i), (int32_t) (uint32_t) (x + y));
            EXPECT_EQ(lane<int32_t>(sub, i), (int32_t) (uint32_t) (x - y));
            EXPECT_EQ(lane<int32_t>(adds, i), (int32_t) std::max<int64_t>(INT32_MIN, std::min<int64_t>(INT32_MAX, x + y)));
            EXPECT_EQ(lane<int32_t>(subs, i), (int32_t) std::max<int64_t>(INT32_MIN, std::min<int64_t>(INT32_MAX, x - y)));
            EXPECT_EQ(lane<int32_t>(mx, i), (int32_t) std::max(x, y));
            EXPECT_EQ(lane<int32_t>(mn, i), (int32_t) std::min(x, y));
        }
    }
}

TEST(HvxEmuArith, HalfAddSubWrap) {
    auto a = vectors<int16_t>(3, kH), b = vectors<int16_t>(4, kH);
    for (size_t k = 0; k < a.size(); k++) {
        HVX_Vector add = Q6_Vh_vadd_VhVh(a[k], b[k]), sub = Q6_Vh_vsub_VhVh(a[k], b[k]);
        for (int i = 0; i < 64; i++) {
            int32_t x = lane<int16_t>(a[k], i), y = lane<int16_t>(b[k], i);
            EXPECT_EQ(lane<int16_t>(add, i), (int16_t) (uint16_t) (x + y));
            EXPECT_EQ(lane<int16_t>(sub, i), (int16_t) (uint16_t) (x - y));
        }
    }
}

TEST(HvxEmuMultiply, HalfwordProducts) {
    auto a = vectors<int16_t>(5, kH), b = vectors<int16_t>(6, kH);
    for (size_t k = 0; k < a.size(); k++) {
        HVX_Vector     lo16 = Q6_Vh_vmpyi_VhVh(a[k], b[k]);
        HVX_VectorPair w    = Q6_Ww_vmpy_VhVh(a[k], b[k]);
        for (int i = 0; i < 64; i++) {
            int32_t p = (int32_t) lane<int16_t>(a[k], i) * lane<int16_t>(b[k], i);
            EXPECT_EQ(lane<int16_t>(lo16, i), (int16_t) (uint16_t) p);
            // even lanes -> low register word i/2, odd lanes -> high register word i/2
            EXPECT_EQ(lane<int32_t>(w, (i & 1) * 32 + i / 2), p);
        }
    }
}

// vrmpy reference: word i = sum of the four signed byte products of bytes 4i..4i+3.
static int32_t ref_vrmpy(const HVX_Vector & u, const HVX_Vector & v, int i) {
    int32_t s = 0;
    for (int j = 0; j < 4; j++) {
        s += (int32_t) lane<int8_t>(u, 4 * i + j) * lane<int8_t>(v, 4 * i + j);
    }
    return s;
}

static void expect_vrmpy(const HVX_Vector & u, const HVX_Vector & v, const char * what, size_t k) {
    const HVX_Vector d = Q6_Vw_vrmpy_VbVb(u, v);
    HVX_Vector       x = Q6_V_vzero();
    for (int i = 0; i < 32; i++) {
        set_lane<int32_t>(x, i, (int32_t) (0x7ffff000u + 977u * (uint32_t) i));  // near INT32_MAX
    }
    const HVX_Vector acc = Q6_Vw_vrmpyacc_VwVbVb(x, u, v);
    for (int i = 0; i < 32; i++) {
        const int32_t r = ref_vrmpy(u, v, i);
        ASSERT_EQ(lane<int32_t>(d, i), r) << what << " vector " << k << " word " << i;
        // the accumulating form wraps modulo 2^32
        ASSERT_EQ(lane<int32_t>(acc, i), (int32_t) ((uint32_t) lane<int32_t>(x, i) + (uint32_t) r))
            << what << " vector " << k << " word " << i;
    }
}

// Every byte pair (a, b), a in -128..127 (outer), b in lo..hi (inner), laid out 128 pairs per
// vector: the a bytes when second is false, the b bytes when it is true. all_pairs(false, ..)
// and all_pairs(true, ..) with the same bounds are thus the two operands of every pair.
static std::vector<VecBox> all_pairs(bool second, int lo, int hi) {
    std::vector<VecBox> out;
    HVX_Vector          cur = Q6_V_vzero();
    int                 n   = 0;
    for (int a = -128; a <= 127; a++) {
        for (int b = lo; b <= hi; b++) {
            set_lane<int8_t>(cur, n % 128, (int8_t) (second ? b : a));
            n++;
            if (n % 128 == 0) {
                out.push_back(VecBox{ cur });
            }
        }
    }
    if (n % 128 != 0) {
        for (; n % 128 != 0; n++) {
            set_lane<int8_t>(cur, n % 128, (int8_t) 0);
        }
        out.push_back(VecBox{ cur });
    }
    return out;
}

static bool has_byte_min(const HVX_Vector & v) {
    for (int i = 0; i < 128; i++) {
        if (lane<int8_t>(v, i) == -128) {
            return true;
        }
    }
    return false;
}

// The emulation's vrmpy takes a vpmaddubsw path when one operand has no byte -128 and a
// widening path when both have one (hvx-emu/include/hvx-emu/multiply.h); all must give the
// reference's bits, including products of -128 and sums at +-4 * 128 * 127 and 4 * 128 * 128.
TEST(HvxEmuMultiply, VrmpyEveryBytePair) {
    // v without -128: the sign path on every vector, u over all 256 values (255 = -1 as bytes)
    auto us = all_pairs(false, -127, 127), vs = all_pairs(true, -127, 127);
    ASSERT_EQ(us.size(), vs.size());
    for (size_t k = 0; k < us.size(); k++) {
        ASSERT_FALSE(has_byte_min(vs[k]));
        expect_vrmpy(us[k], vs[k], "v free of -128", k);
        expect_vrmpy(vs[k], us[k], "u free of -128", k);  // the exchanged sign path
    }
    // all 65536 pairs: vectors where both operands hold -128 take the widening path
    auto ua = all_pairs(false, -128, 127), va = all_pairs(true, -128, 127);
    size_t both = 0;
    for (size_t k = 0; k < ua.size(); k++) {
        both += has_byte_min(ua[k]) && has_byte_min(va[k]);
        expect_vrmpy(ua[k], va[k], "all pairs", k);
    }
    EXPECT_GT(both, 0u);
}

TEST(HvxEmuMultiply, VrmpyExtremesAndRandom) {
    // uniform words at the extremes: every product of a word the same
    const int8_t ext[] = { -128, -127, -1, 0, 1, 127 };
    for (int8_t a : ext) {
        for (int8_t b : ext) {
            HVX_Vector u = Q6_V_vsplat_R((int32_t) (0x01010101u * (uint8_t) a));
            HVX_Vector v = Q6_V_vsplat_R((int32_t) (0x01010101u * (uint8_t) b));
            expect_vrmpy(u, v, "splat", (size_t) (256 * (uint8_t) a + (uint8_t) b));
            EXPECT_EQ(lane<int32_t>(Q6_Vw_vrmpy_VbVb(u, v), 7), 4 * (int32_t) a * b);
        }
    }
    // random bytes seeded with the edges, with and without -128 in either operand
    const std::vector<int8_t> no_min = { 0, 1, -1, 127, -127 };
    auto a = vectors<int8_t>(21, kB), b = vectors<int8_t>(22, kB);
    auto c = vectors<int8_t>(23, no_min), d = vectors<int8_t>(24, no_min);
    for (size_t k = 0; k < a.size(); k++) {
        for (int i = 0; i < 128; i++) {  // random bytes may be -128 too: keep c, d free of it
            if (lane<int8_t>(c[k], i) == -128) {
                set_lane<int8_t>(c[k], i, (int8_t) -127);
            }
            if (lane<int8_t>(d[k], i) == -128) {
                set_lane<int8_t>(d[k], i, (int8_t) 127);
            }
        }
        expect_vrmpy(a[k], b[k], "random", k);
        expect_vrmpy(a[k], d[k], "random, v free of -128", k);
        expect_vrmpy(c[k], b[k], "random, u free of -128", k);
        expect_vrmpy(c[k], d[k], "random, both free of -128", k);
    }
}

#if defined(__AVX2__)
// The two 256-bit paths and the -128 check on their own, so each is known to be exercised.
TEST(HvxEmuMultiply, VrmpyPathsDirect) {
    auto us = all_pairs(false, -127, 127), vs = all_pairs(true, -127, 127);
    auto ua = all_pairs(false, -128, 127), va = all_pairs(true, -128, 127);
    for (size_t k = 0; k < us.size(); k++) {
        union {
            HVX_Vector v;
            __m256i    y[4];
        } U, V, S, W, UA, VA, WA;
        U.v  = us[k];
        V.v  = vs[k];
        UA.v = ua[k];
        VA.v = va[k];
        EXPECT_TRUE(hvx_emu_no_byte_min(V.y));
        EXPECT_EQ(hvx_emu_no_byte_min(UA.y), !has_byte_min(ua[k]));
        EXPECT_EQ(hvx_emu_no_byte_min(VA.y), !has_byte_min(va[k]));
        for (int q = 0; q < 4; q++) {
            S.y[q]  = hvx_emu_vrmpy_bb_sign(U.y[q], V.y[q]);
            W.y[q]  = hvx_emu_vrmpy_bb_widen(U.y[q], V.y[q]);
            WA.y[q] = hvx_emu_vrmpy_bb_widen(UA.y[q], VA.y[q]);
        }
        for (int i = 0; i < 32; i++) {
            ASSERT_EQ(lane<int32_t>(S.v, i), ref_vrmpy(us[k], vs[k], i)) << k << " " << i;
            ASSERT_EQ(lane<int32_t>(W.v, i), ref_vrmpy(us[k], vs[k], i)) << k << " " << i;
            ASSERT_EQ(lane<int32_t>(WA.v, i), ref_vrmpy(ua[k], va[k], i)) << k << " " << i;
        }
    }
    // the sign path is wrong exactly where v holds -128 against a negative u (vpsignb cannot
    // make +128), which is why the intrinsic checks for it
    union {
        HVX_Vector v;
        __m256i    y[4];
    } U, V, S;
    U.v = Q6_V_vsplat_R(-1);          // bytes -1
    V.v = Q6_V_vsplat_R((int32_t) 0x80808080u);  // bytes -128
    S.y[0] = hvx_emu_vrmpy_bb_sign(U.y[0], V.y[0]);
    EXPECT_NE(lane<int32_t>(S.v, 0), 4 * 128);
    EXPECT_EQ(lane<int32_t>(Q6_Vw_vrmpy_VbVb(U.v, V.v), 0), 4 * 128);
}
#endif

// One operand with no negative byte (the tile dots' nibbles and codes against signed
// activations, either way round), the case the AVX2 form's vpmaddubsw path and the AVX-512
// form's biased vpdpbusd read most differently; random bytes, -128 included on the signed side.
TEST(HvxEmuMultiply, VrmpyOneOperandNonNegative) {
    auto s = vectors<int8_t>(25, kB, 256), n = vectors<int8_t>(26, { 0, 1, 127, 15, 31 }, 256);
    for (size_t k = 0; k < n.size(); k++) {
        for (int i = 0; i < 128; i++) {  // 0..127, or nibbles 0..15 / codes 0..31 in a third of them
            const uint8_t x = lane<uint8_t>(n[k], i);
            set_lane<uint8_t>(n[k], i, (uint8_t) (k % 3 == 0 ? x & 15 : k % 3 == 1 ? x & 31 : x & 127));
        }
        expect_vrmpy(n[k], s[k], "u >= 0", k);
        expect_vrmpy(s[k], n[k], "v >= 0", k);
        expect_vrmpy(n[k], n[(k + 1) % n.size()], "both >= 0", k);
    }
}

TEST(HvxEmuLogicShift, BitwiseAndShifts) {
    auto a = vectors<int32_t>(7, kW), b = vectors<int32_t>(8, kW);
    const int shifts[] = { 0, 1, 15, 16, 31, 32, 33, -1 };
    for (size_t k = 0; k < a.size(); k++) {
        HVX_Vector vand = Q6_V_vand_VV(a[k], b[k]), vor = Q6_V_vor_VV(a[k], b[k]);
        HVX_Vector vxor = Q6_V_vxor_VV(a[k], b[k]), vnot = Q6_V_vnot_V(a[k]), z = Q6_V_vzero();
        for (int i = 0; i < 32; i++) {
            uint32_t x = lane<uint32_t>(a[k], i), y = lane<uint32_t>(b[k], i);
            EXPECT_EQ(lane<uint32_t>(vand, i), x & y);
            EXPECT_EQ(lane<uint32_t>(vor, i), x | y);
            EXPECT_EQ(lane<uint32_t>(vxor, i), x ^ y);
            EXPECT_EQ(lane<uint32_t>(vnot, i), ~x);
            EXPECT_EQ(lane<uint32_t>(z, i), 0u);
        }
        for (int s : shifts) {
            HVX_Vector asl = Q6_Vw_vasl_VwR(a[k], s), asr = Q6_Vw_vasr_VwR(a[k], s), lsr = Q6_Vuw_vlsr_VuwR(a[k], s);
            HVX_Vector hasl = Q6_Vh_vasl_VhR(a[k], s), hasr = Q6_Vh_vasr_VhR(a[k], s), hlsr = Q6_Vuh_vlsr_VuhR(a[k], s);
            for (int i = 0; i < 32; i++) {
                uint32_t x = lane<uint32_t>(a[k], i);
                EXPECT_EQ(lane<uint32_t>(asl, i), x << (s & 31));
                EXPECT_EQ(lane<int32_t>(asr, i), (int32_t) x >> (s & 31));
                EXPECT_EQ(lane<uint32_t>(lsr, i), x >> (s & 31));
            }
            for (int i = 0; i < 64; i++) {
                uint16_t x = lane<uint16_t>(a[k], i);
                EXPECT_EQ(lane<uint16_t>(hasl, i), (uint16_t) (x << (s & 15)));
                EXPECT_EQ(lane<int16_t>(hasr, i), (int16_t) ((int16_t) x >> (s & 15)));
                EXPECT_EQ(lane<uint16_t>(hlsr, i), (uint16_t) (x >> (s & 15)));
            }
        }
    }
}

TEST(HvxEmuPredicate, ComparesSetOneBitPerByte) {
    auto a = vectors<int32_t>(9, kW), b = vectors<int32_t>(10, kW);
    for (size_t k = 0; k < a.size(); k++) {
        b[k].v = Q6_V_vmux_QVV(Q6_Q_vsetq_R(32), a[k], b[k]);  // some equal lanes
        HVX_VectorPred eq = Q6_Q_vcmp_eq_VwVw(a[k], b[k]), gt = Q6_Q_vcmp_gt_VwVw(a[k], b[k]);
        HVX_VectorPred gtu = Q6_Q_vcmp_gt_VuwVuw(a[k], b[k]);
        HVX_VectorPred heq = Q6_Q_vcmp_eq_VhVh(a[k], b[k]), hgt = Q6_Q_vcmp_gt_VhVh(a[k], b[k]);
        HVX_VectorPred beq = Q6_Q_vcmp_eq_VbVb(a[k], b[k]), bgt = Q6_Q_vcmp_gt_VbVb(a[k], b[k]);
        for (int i = 0; i < 128; i++) {
            int w = i / 4, h = i / 2;
            EXPECT_EQ(hvx_emu_pred_bit(eq, i), lane<int32_t>(a[k], w) == lane<int32_t>(b[k], w));
            EXPECT_EQ(hvx_emu_pred_bit(gt, i), lane<int32_t>(a[k], w) > lane<int32_t>(b[k], w));
            EXPECT_EQ(hvx_emu_pred_bit(gtu, i), lane<uint32_t>(a[k], w) > lane<uint32_t>(b[k], w));
            EXPECT_EQ(hvx_emu_pred_bit(heq, i), lane<int16_t>(a[k], h) == lane<int16_t>(b[k], h));
            EXPECT_EQ(hvx_emu_pred_bit(hgt, i), lane<int16_t>(a[k], h) > lane<int16_t>(b[k], h));
            EXPECT_EQ(hvx_emu_pred_bit(beq, i), lane<int8_t>(a[k], i) == lane<int8_t>(b[k], i));
            EXPECT_EQ(hvx_emu_pred_bit(bgt, i), lane<int8_t>(a[k], i) > lane<int8_t>(b[k], i));
        }
    }
}

TEST(HvxEmuPredicate, MuxAndMaskAndLogic) {
    std::mt19937 rng(11);
    auto         a = vectors<int8_t>(12, kB), b = vectors<int8_t>(13, kB);
    for (size_t k = 0; k < a.size(); k++) {
        HVX_VectorPred q = random_pred(rng), r = random_pred(rng);
        int32_t        rt = (int32_t) rng();
        HVX_Vector     mux = Q6_V_vmux_QVV(q, a[k], b[k]), andqv = Q6_V_vand_QV(q, a[k]);
        HVX_Vector     andqr = Q6_V_vand_QR(q, rt);
        HVX_VectorPred qand = Q6_Q_and_QQ(q, r), qor = Q6_Q_or_QQ(q, r), qnot = Q6_Q_not_Q(q);
        HVX_VectorPred vr = Q6_Q_vand_VR(a[k], rt);
        for (int i = 0; i < 128; i++) {
            int     qi = (int) ((q.q[i / 64] >> (i % 64)) & 1), ri = (int) ((r.q[i / 64] >> (i % 64)) & 1);
            uint8_t rb = (uint8_t) ((uint32_t) rt >> (8 * (i % 4)));
            EXPECT_EQ(lane<int8_t>(mux, i), qi ? lane<int8_t>(a[k], i) : lane<int8_t>(b[k], i));
            EXPECT_EQ(lane<int8_t>(andqv, i), qi ? lane<int8_t>(a[k], i) : 0);
            EXPECT_EQ(lane<uint8_t>(andqr, i), qi ? rb : 0);
            EXPECT_EQ(hvx_emu_pred_bit(qand, i), qi & ri);
            EXPECT_EQ(hvx_emu_pred_bit(qor, i), qi | ri);
            EXPECT_EQ(hvx_emu_pred_bit(qnot, i), !qi);
            EXPECT_EQ(hvx_emu_pred_bit(vr, i), (lane<uint8_t>(a[k], i) & rb) != 0);
        }
        // The AVX2 and portable predicate paths agree.
        hvx_vub m = hvx_emu_pred_to_mask(q), mp = hvx_emu_pred_to_mask_portable(q);
        EXPECT_EQ(std::memcmp(&m, &mp, 128), 0);
        HVX_VectorPred back = hvx_emu_mask_to_pred_portable(m);
        EXPECT_EQ(back.q[0], q.q[0]);
        EXPECT_EQ(back.q[1], q.q[1]);
    }
}

TEST(HvxEmuPredicate, VsetqAndVsetq2) {
    for (int32_t rt : { 0, 1, 2, 31, 32, 63, 64, 65, 100, 127, 128, 129, 255, 256, -1 }) {
        HVX_VectorPred q = Q6_Q_vsetq_R(rt), q2 = Q6_Q_vsetq2_R(rt);
        for (int i = 0; i < 128; i++) {
            EXPECT_EQ(hvx_emu_pred_bit(q, i), i < (rt & 127)) << "rt=" << rt << " i=" << i;
            EXPECT_EQ(hvx_emu_pred_bit(q2, i), (uint32_t) i <= (((uint32_t) rt - 1) & 127)) << "rt=" << rt;
        }
    }
}

TEST(HvxEmuPermute, SplatsPairsRotateAlign) {
    auto a = vectors<int8_t>(14, kB), b = vectors<int8_t>(15, kB);
    EXPECT_EQ(lane<int32_t>(Q6_V_vsplat_R(-7), 31), -7);
    EXPECT_EQ(lane<uint16_t>(Q6_Vh_vsplat_R(0x12345678), 63), 0x5678);
    EXPECT_EQ(lane<uint8_t>(Q6_Vb_vsplat_R(0x1234), 127), 0x34);
    for (size_t k = 0; k < a.size(); k++) {
        HVX_VectorPair w = Q6_W_vcombine_VV(a[k], b[k]);  // hi = a, lo = b
        EXPECT_EQ(std::memcmp(&w, &b[k], 128), 0);
        EXPECT_EQ(std::memcmp(reinterpret_cast<char *>(&w) + 128, &a[k], 128), 0);
        HVX_Vector hi = Q6_V_hi_W(w), lo = Q6_V_lo_W(w);
        EXPECT_EQ(std::memcmp(&hi, &a[k], 128), 0);
        EXPECT_EQ(std::memcmp(&lo, &b[k], 128), 0);
        for (int32_t rt : { 0, 1, 4, 63, 64, 127, 128, 131, -4 }) {
            HVX_Vector ror = Q6_V_vror_VR(a[k], rt), al = Q6_V_valign_VVR(a[k], b[k], rt);
            HVX_Vector lal = Q6_V_vlalign_VVR(a[k], b[k], rt);
            unsigned   s = (unsigned) rt & 127, ls = 128 - s;
            for (unsigned i = 0; i < 128; i++) {
                EXPECT_EQ(lane<uint8_t>(ror, i), lane<uint8_t>(a[k], (i + rt) & 127));
                EXPECT_EQ(lane<uint8_t>(al, i), i + s >= 128 ? lane<uint8_t>(a[k], i + s - 128) : lane<uint8_t>(b[k], i + s));
                EXPECT_EQ(lane<uint8_t>(lal, i), i + ls >= 128 ? lane<uint8_t>(a[k], i + ls - 128) : lane<uint8_t>(b[k], i + ls));
            }
        }
        HVX_Vector sh = Q6_Vh_vshuff_Vh(a[k]), dl = Q6_Vh_vdeal_Vh(a[k]);
        for (int i = 0; i < 32; i++) {
            EXPECT_EQ(lane<uint16_t>(sh, 2 * i), lane<uint16_t>(a[k], i));
            EXPECT_EQ(lane<uint16_t>(sh, 2 * i + 1), lane<uint16_t>(a[k], i + 32));
            EXPECT_EQ(lane<uint16_t>(dl, i), lane<uint16_t>(a[k], 2 * i));
            EXPECT_EQ(lane<uint16_t>(dl, i + 32), lane<uint16_t>(a[k], 2 * i + 1));
        }
    }
}

// vlut32 (128-byte vectors) as the ISA states it: matchval = Rt & 7, oddhalf = (Rt >> 1) & 1,
// lane i = (idx & 0xE0) == matchval << 5 ? Vv.h[idx % 64].b[oddhalf] : 0.
TEST(HvxEmuPermute, Lut32) {
    auto    tbl = vectors<int8_t>(30, kB, 8);
    auto    rnd = vectors<int8_t>(31, kB, 8);
    std::vector<VecBox> idx = rnd;
    for (int half = 0; half < 2; half++) {  // every index 0..255 once
        HVX_Vector ramp;
        for (int i = 0; i < 128; i++) {
            set_lane<uint8_t>(ramp, i, (uint8_t) (128 * half + i));
        }
        idx.push_back(VecBox{ ramp });
    }
    for (const auto & t : tbl) {
        for (const auto & u : idx) {
            for (int32_t rt : { 0, 1, 2, 3, 4, 5, 6, 7, 8, 0x12, -1 }) {
                const HVX_Vector d        = Q6_Vb_vlut32_VbVbR(u, t, rt);
                const unsigned   matchval = (unsigned) rt & 7, oddhalf = ((unsigned) rt >> 1) & 1;
                for (int i = 0; i < 128; i++) {
                    const unsigned x    = lane<uint8_t>(u, i);
                    const uint16_t h    = lane<uint16_t>(t, (int) (x % 64));
                    const uint8_t  want = (x & 0xe0) == matchval << 5 ? (uint8_t) (h >> (8 * oddhalf)) : 0;
                    EXPECT_EQ(lane<uint8_t>(d, i), want) << "rt " << rt << " idx " << x;
                }
            }
        }
    }
}

// vshuff.b (and twice: the tile dots' 4 x 32 transposition), vpacke.h / vpacke.b on random
// vectors against their index formulas.
TEST(HvxEmuPermute, ByteShuffleAndPacke) {
    auto a = vectors<int8_t>(32, kB), b = vectors<int8_t>(33, kB);
    for (size_t k = 0; k < a.size(); k++) {
        const HVX_Vector sh = Q6_Vb_vshuff_Vb(a[k]), sh2 = Q6_Vb_vshuff_Vb(sh);
        for (int i = 0; i < 64; i++) {
            ASSERT_EQ(lane<uint8_t>(sh, 2 * i), lane<uint8_t>(a[k], i)) << k;
            ASSERT_EQ(lane<uint8_t>(sh, 2 * i + 1), lane<uint8_t>(a[k], i + 64)) << k;
        }
        for (int i = 0; i < 128; i++) {  // twice: byte 4 r + c from byte 32 c + r
            ASSERT_EQ(lane<uint8_t>(sh2, i), lane<uint8_t>(a[k], 32 * (i % 4) + i / 4)) << k;
        }
        const HVX_Vector ph = Q6_Vh_vpacke_VwVw(a[k], b[k]), pb = Q6_Vb_vpacke_VhVh(a[k], b[k]);
        for (int i = 0; i < 32; i++) {
            ASSERT_EQ(lane<uint16_t>(ph, i), (uint16_t) lane<uint32_t>(b[k], i)) << k;
            ASSERT_EQ(lane<uint16_t>(ph, i + 32), (uint16_t) lane<uint32_t>(a[k], i)) << k;
        }
        for (int i = 0; i < 64; i++) {
            ASSERT_EQ(lane<uint8_t>(pb, i), (uint8_t) lane<uint16_t>(b[k], i)) << k;
            ASSERT_EQ(lane<uint8_t>(pb, i + 64), (uint8_t) lane<uint16_t>(a[k], i)) << k;
        }
    }
}

TEST(HvxEmuUnpack, KeepsElementOrderAcrossThePair) {
    auto a = vectors<int8_t>(16, kB);
    for (auto & v : a) {
        HVX_VectorPair b = Q6_Wh_vunpack_Vb(v), ub = Q6_Wuh_vunpack_Vub(v);
        HVX_VectorPair h = Q6_Ww_vunpack_Vh(v), uh = Q6_Wuw_vunpack_Vuh(v);
        for (int i = 0; i < 128; i++) {
            EXPECT_EQ(lane<int16_t>(b, i), (int16_t) lane<int8_t>(v, i));
            EXPECT_EQ(lane<uint16_t>(ub, i), (uint16_t) lane<uint8_t>(v, i));
        }
        for (int i = 0; i < 64; i++) {
            EXPECT_EQ(lane<int32_t>(h, i), (int32_t) lane<int16_t>(v, i));
            EXPECT_EQ(lane<uint32_t>(uh, i), (uint32_t) lane<uint16_t>(v, i));
        }
    }
}
