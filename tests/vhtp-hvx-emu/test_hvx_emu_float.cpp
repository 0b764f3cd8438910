// Float HVX intrinsics (IEEE sf arithmetic, int->sf, hf<->sf conversions) against scalar
// references: host scalar IEEE arithmetic, and an independent bit-level binary16 model.
#include <gtest/gtest.h>

#include <immintrin.h>

#include <cmath>
#include <limits>

#include "hvx-emu-test-util.h"

using namespace hvx_test;

static const std::vector<float> kF = {
    0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 3.0f,
    std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
    std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
    std::numeric_limits<float>::min(), std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min(),
    1e-40f, 65504.0f, 65520.0f, 65519.996f, 6.1e-5f, 5.96e-8f, 2.98e-8f, 2.99e-8f, 1.0e-8f, 1.00048828125f,
};

static bool same_float(float a, float b) {
    if (std::isnan(a) || std::isnan(b)) {
        return std::isnan(a) && std::isnan(b);
    }
    uint32_t x, y;
    std::memcpy(&x, &a, 4);
    std::memcpy(&y, &b, 4);
    return x == y;  // bit-exact, including the sign of zero
}

TEST(HvxEmuIeee, AddSubMpyAreRoundedIeee) {
    auto a = vectors<float>(21, kF), b = vectors<float>(22, kF);
    for (size_t k = 0; k < a.size(); k++) {
        HVX_Vector add = Q6_Vsf_vadd_VsfVsf(a[k], b[k]), sub = Q6_Vsf_vsub_VsfVsf(a[k], b[k]);
        HVX_Vector mpy = Q6_Vsf_vmpy_VsfVsf(a[k], b[k]);
        for (int i = 0; i < 32; i++) {
            volatile float x = lane<float>(a[k], i), y = lane<float>(b[k], i);
            EXPECT_TRUE(same_float(lane<float>(add, i), x + y)) << x << " + " << y;
            EXPECT_TRUE(same_float(lane<float>(sub, i), x - y)) << x << " - " << y;
            EXPECT_TRUE(same_float(lane<float>(mpy, i), x * y)) << x << " * " << y;
        }
    }
}

// The NaN rule bit for bit: a NaN result is 0x7fffffff whatever the inputs' sign and payload
// (quiet or signalling), every other lane the host's IEEE result, subnormals included.
TEST(HvxEmuIeee, NanResultIsTheDefaultNan) {
    std::vector<float> edges = kF;
    for (uint32_t bits : { 0x7fa00001u, 0xffa00001u, 0xffc00000u, 0x7fc12345u, 0x00000001u, 0x807fffffu }) {
        float f;
        std::memcpy(&f, &bits, 4);
        edges.push_back(f);  // signalling and negative NaNs, subnormals
    }
    auto a = vectors<float>(27, edges, 256), b = vectors<float>(28, edges, 256);
    for (size_t k = 0; k < a.size(); k++) {
        const HVX_Vector r[3] = { Q6_Vsf_vadd_VsfVsf(a[k], b[k]), Q6_Vsf_vsub_VsfVsf(a[k], b[k]),
                                  Q6_Vsf_vmpy_VsfVsf(a[k], b[k]) };
        for (int i = 0; i < 32; i++) {
            volatile float x = lane<float>(a[k], i), y = lane<float>(b[k], i);
            const float    want[3] = { x + y, x - y, x * y };
            for (int op = 0; op < 3; op++) {
                uint32_t w;
                std::memcpy(&w, &want[op], 4);
                if (std::isnan(want[op])) {
                    w = 0x7fffffffu;
                }
                ASSERT_EQ(lane<uint32_t>(r[op], i), w) << "op " << op << " " << x << ", " << y;
            }
        }
    }
}

TEST(HvxEmuConvert, HalfwordToHf) {
    // Lane for lane int16 -> fp16 with round to nearest-even (2049 ties down to 2048, 2051 up).
    auto a = vectors<int16_t>(23, { 0, 1, -1, 127, -128, 2049, 2051, -2049, INT16_MAX, INT16_MIN });
    for (auto & v : a) {
        HVX_Vector f = Q6_Vhf_vcvt_Vh(v);
        for (int i = 0; i < 64; i++) {
            const float x = (float) lane<int16_t>(v, i);
            EXPECT_EQ(lane<uint16_t>(f, i), (uint16_t) _cvtss_sh(x, 0)) << x;
        }
    }
}

TEST(HvxEmuConvert, HfToSfPairIsEvenOddSplit) {
    std::vector<int16_t> edges = { 0, (int16_t) 0x8000, 0x0001, (int16_t) 0x8001, 0x03ff, 0x0400, 0x3c00,
                                   0x7bff, 0x7c00, (int16_t) 0xfc00, 0x7e00, 0x7c01 };
    auto                 a     = vectors<int16_t>(24, edges);
    for (auto & v : a) {
        HVX_VectorPair w = Q6_Wsf_vcvt_Vhf(v);
        for (int i = 0; i < 64; i++) {
            uint16_t h   = lane<uint16_t>(v, i);
            float    got = lane<float>(w, (i & 1) * 32 + i / 2);
            if (((h >> 10) & 31) == 31) {
                EXPECT_TRUE((h & 1023) ? std::isnan(got) : std::isinf(got));
                EXPECT_EQ(std::signbit(got), (h & 1023) ? false : (h & 0x8000) != 0);  // default NaN is positive
            } else {
                EXPECT_TRUE(same_float(got, (float) half_value(h))) << std::hex << h;
            }
            EXPECT_TRUE(same_float(hvx_emu_f16_to_f32(h), got)) << std::hex << h;
        }
    }
}

TEST(HvxEmuConvert, SfToHfRoundsToNearestEvenAndInterleaves) {
    auto a = vectors<float>(25, kF, 128), b = vectors<float>(26, kF, 128);
    std::mt19937 rng(27);
    for (size_t k = 0; k < a.size(); k++) {
        // Also values spread over the half range, where rounding matters.
        for (int i = 0; i < 32; i += 3) {
            float x = std::ldexp((float) (rng() & 0xffffff), (int) (rng() % 48) - 60);
            set_lane<float>(a[k], i, (rng() & 1) ? -x : x);
        }
        HVX_Vector h = Q6_Vhf_vcvt_VsfVsf(a[k], b[k]);
        for (int i = 0; i < 32; i++) {
            float fu = lane<float>(b[k], i), fv = lane<float>(a[k], i);  // Vu (a) -> even lanes
            uint16_t ev = lane<uint16_t>(h, 2 * i), od = lane<uint16_t>(h, 2 * i + 1);
            if (std::isnan(fv)) {
                EXPECT_EQ(ev, 0x7fff);  // the HVX default NaN
            } else {
                EXPECT_EQ(ev, half_nearest(fv)) << fv;
            }
            if (std::isnan(fu)) {
                EXPECT_EQ(od, 0x7fff);
            } else {
                EXPECT_EQ(od, half_nearest(fu)) << fu;
                EXPECT_EQ(hvx_emu_f32_to_f16(fu), od) << fu;  // portable path agrees
            }
        }
    }
}

TEST(HvxEmuConvert, InOrderRoundTripIdiom) {
    // The kernels' idiom: fp16 -> fp32 in order, and back.
    HVX_Vector h;
    for (int i = 0; i < 64; i++) {
        set_lane<uint16_t>(h, i, (uint16_t) (0x3c00 + i));
    }
    HVX_VectorPair w = Q6_Wsf_vcvt_Vhf(Q6_Vh_vshuff_Vh(h));
    for (int i = 0; i < 64; i++) {
        EXPECT_EQ(lane<float>(w, i), (float) half_value((uint16_t) (0x3c00 + i)));
    }
    HVX_Vector back = Q6_Vh_vdeal_Vh(Q6_Vhf_vcvt_VsfVsf(Q6_V_lo_W(w), Q6_V_hi_W(w)));
    EXPECT_EQ(std::memcmp(&back, &h, 128), 0);
}
