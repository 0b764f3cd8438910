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
