// npu/ops/hvx-math.h against libm (double references): ulp or absolute error bounds over
// sweeps of each function's range, and the IEEE special values (0, inf, NaN, subnormals).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "hvx-math.h"

using namespace htp_ops;

namespace {

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

// Applies f to xs 32 lanes at a time.
template <class F> std::vector<float> run(F f, const std::vector<float> & xs) {
    std::vector<float> out(xs.size());
    for (size_t i = 0; i < xs.size(); i += 32) {
        float in[32] = {};
        for (size_t j = 0; j < 32 && i + j < xs.size(); j++) {
            in[j] = xs[i + j];
        }
        HVX_Vector v;
        std::memcpy(&v, in, 128);
        const HVX_Vector y = f(v);
        float            o[32];
        std::memcpy(o, &y, 128);
        for (size_t j = 0; j < 32 && i + j < xs.size(); j++) {
            out[i + j] = o[j];
        }
    }
    return out;
}

std::vector<float> sweep(float lo, float hi, int n) {
    std::vector<float> v;
    for (int i = 0; i <= n; i++) {
        v.push_back(lo + (hi - lo) * (float) i / (float) n);
    }
    return v;
}

// Positive floats spread over all exponents (every 2^k, k step 1, with 7 mantissas each).
std::vector<float> positives() {
    std::vector<float> v;
    for (int e = -149; e <= 127; e++) {
        for (float m : { 1.0f, 1.1f, 1.3333f, 1.5f, 1.7f, 1.9f, 1.99999f }) {
            const float x = std::ldexp(m, e);
            if (std::isfinite(x) && x > 0) {
                v.push_back(x);
            }
        }
    }
    return v;
}

double ulps(float got, double ref) {
    const double r = (double) (float) ref;
    if (r == 0.0) {
        return got == 0.0f ? 0.0 : 1e9;
    }
    int e;
    std::frexp(r, &e);
    const double ulp = std::ldexp(1.0, std::max(e - 24, -149));
    return std::fabs((double) got - ref) / ulp;
}

bool same(float a, float b) {
    if (std::isnan(a) || std::isnan(b)) {
        return std::isnan(a) && std::isnan(b);
    }
    return std::memcmp(&a, &b, 4) == 0;
}

}  // namespace

TEST(HvxMath, ExpWithin3Ulp) {
    const auto xs = sweep(-87.0f, 88.7f, 40000);
    const auto ys = run(exp_sf, xs);
    for (size_t i = 0; i < xs.size(); i++) {
        const double ref = std::exp((double) xs[i]);
        if (ref < 1.2e-38) {  // subnormal results: absolute error of a subnormal ulp
            EXPECT_LE(std::fabs(ys[i] - ref), 2e-45) << xs[i];
        } else {
            EXPECT_LE(ulps(ys[i], ref), 3.0) << xs[i];
        }
    }
    const auto s = run(exp_sf, { 0.0f, -0.0f, kInf, -kInf, kNaN, 89.0f, 100.0f, -104.0f, -200.0f });
    EXPECT_EQ(s[0], 1.0f);
    EXPECT_EQ(s[1], 1.0f);
    EXPECT_EQ(s[2], kInf);
    EXPECT_EQ(s[3], 0.0f);
    EXPECT_TRUE(std::isnan(s[4]));
    EXPECT_EQ(s[5], kInf);
    EXPECT_EQ(s[6], kInf);
    EXPECT_EQ(s[8], 0.0f);
}

TEST(HvxMath, LogWithin3Ulp) {
    auto xs = positives();
    const auto sw = sweep(0.5f, 2.0f, 20000);
    xs.insert(xs.end(), sw.begin(), sw.end());
    const auto ys = run(log_sf, xs);
    for (size_t i = 0; i < xs.size(); i++) {
        const double ref = std::log((double) xs[i]);
        if (std::fabs(ref) < 1e-6) {
            EXPECT_LE(std::fabs(ys[i] - ref), 1e-13) << xs[i];
        } else {
            EXPECT_LE(ulps(ys[i], ref), 3.0) << xs[i];
        }
    }
    const auto s = run(log_sf, { 0.0f, -0.0f, kInf, -1.0f, -kInf, kNaN, 1.0f });
    EXPECT_EQ(s[0], -kInf);
    EXPECT_EQ(s[1], -kInf);
    EXPECT_EQ(s[2], kInf);
    EXPECT_TRUE(std::isnan(s[3]));
    EXPECT_TRUE(std::isnan(s[4]));
    EXPECT_TRUE(std::isnan(s[5]));
    EXPECT_EQ(s[6], 0.0f);
}

TEST(HvxMath, SqrtWithin1Ulp) {
    const auto xs = positives();
    const auto ys = run(sqrt_sf, xs);
    for (size_t i = 0; i < xs.size(); i++) {
        EXPECT_LE(ulps(ys[i], std::sqrt((double) xs[i])), 1.0) << xs[i];
    }
    const auto s = run(sqrt_sf, { 0.0f, -0.0f, kInf, -1.0f, kNaN, 4.0f });
    EXPECT_TRUE(same(s[0], 0.0f));
    EXPECT_TRUE(same(s[1], -0.0f));
    EXPECT_EQ(s[2], kInf);
    EXPECT_TRUE(std::isnan(s[3]));
    EXPECT_TRUE(std::isnan(s[4]));
    EXPECT_EQ(s[5], 2.0f);
}

// sqrt_f32 (scalar, inline for the norms' row loops) is sqrtf bit for bit: every mantissa of
// an even and an odd exponent (the algorithm sees only the exponent's parity), every
// subnormal, and the special values.
TEST(HvxMath, ScalarSqrtIsSqrtf) {
    uint32_t bad = 0, first = 0;
    auto check = [&](uint32_t bits) {
        float x;
        std::memcpy(&x, &bits, 4);
        const float a = sqrt_f32(x), b = std::sqrt(x);
        if (std::memcmp(&a, &b, 4) != 0 && !(std::isnan(a) && std::isnan(b))) {
            first = bad++ ? first : bits;
        }
    };
    for (uint32_t m = 0; m < (1u << 23); m++) {
        check((127u << 23) | m);  // [1, 2)
        check((128u << 23) | m);  // [2, 4)
        check(m);                 // 0 and the subnormals
    }
    for (uint32_t bits : { 0x00000000u, 0x80000000u, 0x7f800000u, 0x7f7fffffu, 0x00800000u, 0x7fc00000u,
                           0x7f800001u, 0xff800000u, 0xbf800000u }) {
        check(bits);
    }
    EXPECT_EQ(bad, 0u) << "first mismatch at bits 0x" << std::hex << first;
    EXPECT_TRUE(std::isnan(sqrt_f32(-1.0f)));
    EXPECT_EQ(sqrt_f32(-0.0f), -0.0f);
    EXPECT_TRUE(std::signbit(sqrt_f32(-0.0f)));
}

TEST(HvxMath, ActivationsWithinAbsoluteBounds) {
    const auto xs = sweep(-30.0f, 30.0f, 60000);
    const auto th = run(tanh_sf, xs);
    const auto sg = run(sigmoid_sf, xs);
    const auto ef = run(erf_sf, xs);
    const auto em = run(expm1_sf, sweep(-30.0f, 30.0f, 60000));
    for (size_t i = 0; i < xs.size(); i++) {
        const double x = xs[i];
        EXPECT_LE(std::fabs(th[i] - std::tanh(x)), 2.5e-7 + 2e-7 * std::fabs(std::tanh(x))) << x;
        EXPECT_LE(std::fabs(sg[i] - 1.0 / (1.0 + std::exp(-x))), 3e-7) << x;
        EXPECT_LE(std::fabs(ef[i] - std::erf(x)), 5e-7) << x;
        const double e1 = std::expm1(x);
        EXPECT_LE(std::fabs(em[i] - e1), 3e-7 * std::max(1.0, std::fabs(e1))) << x;
    }
    const auto s = run(tanh_sf, { kInf, -kInf, kNaN, -0.0f });
    EXPECT_EQ(s[0], 1.0f);
    EXPECT_EQ(s[1], -1.0f);
    EXPECT_TRUE(std::isnan(s[2]));
    EXPECT_TRUE(same(s[3], -0.0f));
}

// Where 1 + e^-x rounds to 1, sigmoid is exactly 1 (ggml-cpu's 1 / (1 + expf(-x))), so that
// x * sigmoid(x) * g keeps the exact product of BF16 x and g: 92 * 34 = 3128 lies halfway
// between two BF16 values, and a step below it rounds to the other one.
TEST(HvxMath, SigmoidExactOne) {
    const auto xs = sweep(17.0f, 120.0f, 4000);
    const auto sg = run(sigmoid_sf, xs);
    for (size_t i = 0; i < xs.size(); i++) {
        EXPECT_EQ(sg[i], 1.0f / (1.0f + std::exp(-xs[i]))) << xs[i];
    }
    const auto p = run([](HVX_Vector x) { return Q6_Vsf_vmpy_VsfVsf(Q6_Vsf_vmpy_VsfVsf(x, sigmoid_sf(x)), splat_f32(34.0f)); },
                       { 92.0f });
    EXPECT_EQ(p[0], 3128.0f);
}

TEST(HvxMath, FloatOrderMinMax) {
    const std::vector<float> a = { -2.0f, -0.0f, 0.0f, 3.0f, -kInf, kInf, 1e-40f, -1e-40f };
    const auto mn = run([](HVX_Vector v) { return sf_min(v, splat_f32(0.5f)); }, a);
    const auto mx = run([](HVX_Vector v) { return sf_max(v, splat_f32(-1.0f)); }, a);
    for (size_t i = 0; i < a.size(); i++) {
        EXPECT_EQ(mn[i], std::min(a[i], 0.5f)) << a[i];
        EXPECT_EQ(mx[i], std::max(a[i], -1.0f)) << a[i];
    }
}
