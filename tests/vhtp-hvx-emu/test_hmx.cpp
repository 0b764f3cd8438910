// HMX unit of the vHTP: tile products against a scalar reference of each arithmetic model (exact
// sums in binary128 for `exact`, sequential fp32 sums for `fp32`), the fp32 model's error bound
// against the exact one, per-column scale/bias, special values, operand checks, and exclusive
// use from several threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "hmx.h"
#include "htp-abi/htp-status.h"
#include "hvx-emu-test-util.h"
#include "vhtp-test-util.h"

namespace {

constexpr int      D     = HTP_HMX_TILE_DIM;
constexpr uint32_t kVtcm = 1u << 20;

using hvx_test::half_nearest;
using hvx_test::half_value;

uint16_t random_half(std::mt19937 & rng, int emin = 8, int espan = 14) {
    const uint16_t e = (uint16_t) (emin + rng() % espan);
    return (uint16_t) (((rng() & 1) << 15) | (e << 10) | (rng() & 1023));
}

// The reference models, per tile pair: `exact` takes the exact sum of its 32 products
// (binary128 holds it exactly: fp16 products span at most 2^-48..2^32) rounded to fp32; `fp32`
// sums the products in fp32 from +0 in k order, one rounding per addition (a product of two
// fp16 values is exact in fp32). Either sum is then added to the fp32 acc.
struct Reference {
    vhtp::hmx_model model = vhtp::hmx_model::exact;
    float           acc[D][D] = {};
    explicit Reference(vhtp::hmx_model m = vhtp::hmx_model::exact) : model(m) {}
    void mma(const uint16_t * act, const uint16_t * w, uint32_t n_k) {
        for (uint32_t t = 0; t < n_k; t++) {
            for (int m = 0; m < D; m++) {
                for (int n = 0; n < D; n++) {
                    const uint16_t * a = act + t * D * D + m * D;
                    const uint16_t * b = w + t * D * D + n * D;
                    float            sum;
                    if (model == vhtp::hmx_model::exact) {
                        __float128 s = 0;
                        for (int k = 0; k < D; k++) {
                            s += (__float128) half_value(a[k]) * (__float128) half_value(b[k]);
                        }
                        sum = (float) s;
                    } else {
                        sum = 0.0f;
                        for (int k = 0; k < D; k++) {
                            sum = std::fma((float) half_value(a[k]), (float) half_value(b[k]), sum);
                        }
                    }
                    acc[m][n] = acc[m][n] + sum;
                }
            }
        }
    }
    float out(int m, int n, float scale, float bias) const { return std::fma(acc[m][n], scale, bias); }
};

// The unit with one arithmetic model: HmxModels runs a test under both, HmxExact under the exact
// model only (what only exact sums keep), HmxFp32 compares the fp32 model with the exact one.
class HmxUnit : public ::testing::Test {
  protected:
    void SetUp() override {
        vtcm.assign(kVtcm, 0);
        hmx        = vhtp::hmx_create(vtcm.data(), 0, kVtcm);
        hmx->model = model;
    }
    void TearDown() override { vhtp::hmx_destroy(hmx); }
    uint16_t * half_at(dma_addr_t a) { return reinterpret_cast<uint16_t *>(vtcm.data() + a); }
    float *    float_at(dma_addr_t a) { return reinterpret_cast<float *>(vtcm.data() + a); }
    // Column params of scale 1 and bias 0 at a.
    void unit_params(dma_addr_t a) {
        for (int n = 0; n < D; n++) {
            float_at(a)[n]     = 1.0f;
            float_at(a)[D + n] = 0.0f;
        }
    }
    // One owned round: acquire, mma over n_k tile pairs, F32 store, release; false on any error.
    bool mma_f32(dma_addr_t act, dma_addr_t w, uint32_t n_k, dma_addr_t params, dma_addr_t out32) {
        return htp_hmx_acquire(hmx) == HTP_STATUS_OK && htp_hmx_mma(hmx, act, w, n_k) == HTP_STATUS_OK &&
               htp_hmx_store(hmx, out32, params, HTP_HMX_OUT_F32) == HTP_STATUS_OK &&
               htp_hmx_release(hmx) == HTP_STATUS_OK;
    }

    std::vector<uint8_t> vtcm;
    htp_hmx *            hmx   = nullptr;
    vhtp::hmx_model      model = vhtp::hmx_model::exact;
};

class HmxModels : public HmxUnit, public ::testing::WithParamInterface<vhtp::hmx_model> {
  protected:
    void SetUp() override {
        model = GetParam();
        HmxUnit::SetUp();
    }
};

class HmxExact : public HmxUnit {};

class HmxFp32 : public HmxUnit {
  protected:
    void SetUp() override {
        model = vhtp::hmx_model::fp32;
        HmxUnit::SetUp();
    }
};

// Fills n_k activation and weight tiles and the column params; returns the reference.
// Exponents emin .. emin + espan - 1 (0 = subnormals and zeros, 30 = the largest finite).
Reference fill(vhtp::hmx_model model, uint16_t * act, uint16_t * w, float * params, uint32_t n_k, std::mt19937 & rng,
               int emin = 8, int espan = 14) {
    for (uint32_t i = 0; i < n_k * D * D; i++) {
        act[i] = random_half(rng, emin, espan);
        w[i]   = random_half(rng, emin, espan);
    }
    for (int n = 0; n < D; n++) {
        params[n]     = std::ldexp((float) (rng() % 2000) / 1000.0f - 1.0f, -(int) (rng() % 6));
        params[D + n] = (float) ((int) (rng() % 200) - 100) / 8.0f;
    }
    Reference r(model);
    r.mma(act, w, n_k);
    return r;
}

// F32 outputs at out32 that differ (bit for bit) from the reference with the column params.
int f32_mismatches(const Reference & ref, const float * out32, const float * params) {
    int bad = 0;
    for (int m = 0; m < D; m++) {
        for (int n = 0; n < D; n++) {
            const float y = ref.out(m, n, params[n], params[D + n]);
            uint32_t    yb, gb;
            std::memcpy(&yb, &y, 4);
            std::memcpy(&gb, out32 + m * D + n, 4);
            bad += yb != gb;
        }
    }
    return bad;
}

}  // namespace

TEST_P(HmxModels, MatmulMatchesReferenceF16AndF32Outputs) {
    std::mt19937 rng(1);
    for (uint32_t n_k : { 1u, 3u, 8u }) {
        const dma_addr_t act = 0, w = 64 * 1024, params = 128 * 1024, out16 = 132 * 1024, out32 = 140 * 1024;
        Reference        ref = fill(model, half_at(act), half_at(w), float_at(params), n_k, rng);
        ASSERT_EQ(htp_hmx_acquire(hmx), HTP_STATUS_OK);
        // Two mma calls that split K must equal one (the accumulator persists across calls).
        ASSERT_EQ(htp_hmx_mma(hmx, act, w, 1), HTP_STATUS_OK);
        if (n_k > 1) {
            ASSERT_EQ(htp_hmx_mma(hmx, act + HTP_HMX_TILE_BYTES, w + HTP_HMX_TILE_BYTES, n_k - 1), HTP_STATUS_OK);
        }
        ASSERT_EQ(htp_hmx_store(hmx, out16, params, HTP_HMX_OUT_F16), HTP_STATUS_OK);
        ASSERT_EQ(htp_hmx_store(hmx, out32, params, HTP_HMX_OUT_F32), HTP_STATUS_OK);
        ASSERT_EQ(htp_hmx_release(hmx), HTP_STATUS_OK);
        int bad = f32_mismatches(ref, float_at(out32), float_at(params));
        for (int m = 0; m < D; m++) {
            for (int n = 0; n < D; n++) {
                const float y = ref.out(m, n, float_at(params)[n], float_at(params)[D + n]);
                bad += half_at(out16)[m * D + n] != half_nearest(y, 0x7fff);
            }
        }
        EXPECT_EQ(bad, 0) << "n_k " << n_k;
    }
}

// Every finite exponent (subnormals to 65504), so products span 2^-48..2^32 and one tile
// pair's terms differ by up to 80 bits: the exact model's sum must still be exact, rounded
// once, and the fp32 model's must be its sequential fp32 sum bit for bit.
TEST_P(HmxModels, WholeExponentRangeMatchesReference) {
    std::mt19937 rng(7);
    for (int round = 0; round < 4; round++) {
        const uint32_t   n_k = 2;
        const dma_addr_t act = 0, w = 64 * 1024, params = 128 * 1024, out32 = 140 * 1024;
        // Narrow and wide spreads around the middle and the ends of the range.
        const int        emin[4] = { 0, 0, 12, 20 }, espan[4] = { 31, 8, 19, 11 };
        Reference ref = fill(model, half_at(act), half_at(w), float_at(params), n_k, rng, emin[round], espan[round]);
        ASSERT_TRUE(mma_f32(act, w, n_k, params, out32));
        EXPECT_EQ(f32_mismatches(ref, float_at(out32), float_at(params)), 0)
            << "exponents " << emin[round] << " + " << espan[round];
    }
}

// Rows of one tile on different paths: the unit sums a row's 32 pairs side by side when all of
// them are exact in doubles (narrow exponent spreads) and pair by pair otherwise. Even rows
// narrow, odd rows cancelling large terms next to subnormals (only an exact sum keeps those), a
// zero row, and a weight row with an infinity: all must match.
TEST_P(HmxModels, RowsOnTheVectorAndThePairPathsMatchReference) {
    std::mt19937     rng(5);
    const dma_addr_t act = 0, w = 8192, params = 16384, out32 = 20480;
    for (int weight_inf = 0; weight_inf < 2; weight_inf++) {
        uint16_t * a = half_at(act), *b = half_at(w);
        for (int m = 0; m < D; m++) {
            for (int k = 0; k < D; k++) {
                // odd rows: subnormals, plus +-65504 at K 2 and 9 below (they cancel)
                a[m * D + k] = m % 2 ? (uint16_t) (((rng() & 1) << 15) | (1 + rng() % 1023)) : random_half(rng, 10, 6);
                b[m * D + k] = random_half(rng, 12, 5);
            }
        }
        for (int m = 1; m < D; m += 2) {
            a[m * D + 2] = 0x7bff;
            a[m * D + 9] = 0xfbff;
        }
        for (int n = 0; n < D; n++) {
            b[n * D + 9] = b[n * D + 2];
        }
        for (int k = 0; k < D; k++) {
            a[3 * D + k] = 0;  // an all-zero row
        }
        if (weight_inf) {
            b[7 * D + 5] = 0x7c00;  // +inf in weight row 7: every row falls back to IEEE sums there
        }
        unit_params(params);
        Reference ref(model);
        ref.mma(a, b, 1);
        ASSERT_TRUE(mma_f32(act, w, 1, params, out32));
        EXPECT_EQ(f32_mismatches(ref, float_at(out32), float_at(params)), 0) << "weight inf " << weight_inf;
    }
}

// A kernel multiplies the same weight tiles with one activation block after another, and the
// unit keeps their decoded form between calls. Each call must still see the bytes in VTCM now:
// a weight rewritten by one ulp in one tile, a tile moved to another address, a call with
// fewer tiles, and rows summed pair by pair over kept tiles.
TEST_P(HmxModels, KeptWeightTilesFollowTheirBytes) {
    std::mt19937     rng(13);
    const uint32_t   n_k = 4;
    const dma_addr_t act = 0, w = 64 * 1024, w2 = 96 * 1024, params = 128 * 1024, out32 = 140 * 1024;
    Reference        ref = fill(model, half_at(act), half_at(w), float_at(params), n_k, rng);
    // Weight row 0 of tile 0 spans subnormals to 65504: that tile's pairs are summed pair by
    // pair, from its rows decoded again when the tile comes from what the unit kept.
    for (int k = 0; k < D; k++) {
        half_at(w)[k] = k % 2 ? (uint16_t) (1 + rng() % 1023) : (uint16_t) 0x7bff;
    }
    ref = Reference(model);
    ref.mma(half_at(act), half_at(w), n_k);
    auto run = [&](dma_addr_t wa, uint32_t k) {
        EXPECT_TRUE(mma_f32(act, wa, k, params, out32));
        return f32_mismatches(ref, float_at(out32), float_at(params));
    };
    EXPECT_EQ(run(w, n_k), 0) << "first call";
    EXPECT_EQ(run(w, n_k), 0) << "same tiles again";
    for (int round = 0; round < 8; round++) {  // one halfword of one tile up by one ulp
        uint16_t & h = half_at(w)[(rng() % n_k) * D * D + rng() % (D * D)];
        h            = (uint16_t) (h + 1);
        ref          = Reference(model);
        ref.mma(half_at(act), half_at(w), n_k);
        EXPECT_EQ(run(w, n_k), 0) << "changed weight, round " << round;
    }
    std::memcpy(half_at(w2), half_at(w), n_k * HTP_HMX_TILE_BYTES);  // same bytes elsewhere...
    half_at(w2)[5] ^= 0x0200;  // ...but one of them differs
    ref = Reference(model);
    ref.mma(half_at(act), half_at(w2), n_k);
    EXPECT_EQ(run(w2, n_k), 0) << "moved tiles";
    ref = Reference(model);
    ref.mma(half_at(act), half_at(w2), 2);
    EXPECT_EQ(run(w2, 2), 0) << "fewer tiles";
    for (int k = 0; k < D; k++) {  // activation row 6: subnormals next to 65504, the pair path
        half_at(act)[6 * D + k] = k % 2 ? (uint16_t) (1 + rng() % 1023) : (uint16_t) 0x7bff;
    }
    ref = Reference(model);
    ref.mma(half_at(act), half_at(w2), n_k);
    EXPECT_EQ(run(w2, n_k), 0) << "pair-path row over kept tiles";
}

// Large terms that cancel (+-65504 in two K positions) next to subnormal ones: the result is
// the small terms' sum, which any summation that is not exact over the whole range loses.
TEST_F(HmxExact, CancellingLargeTermsKeepTheSmallOnes) {
    std::mt19937     rng(11);
    const dma_addr_t act = 0, w = 8192, params = 16384, out32 = 20480;
    uint16_t *       a = half_at(act), *b = half_at(w);
    for (int i = 0; i < D * D; i++) {
        a[i] = (uint16_t) (((rng() & 1) << 15) | (1 + rng() % 1023));  // subnormal
        b[i] = (uint16_t) (((rng() & 1) << 15) | ((14 + rng() % 4) << 10) | (rng() & 1023));
    }
    for (int m = 0; m < D; m++) {
        const int k0 = (int) (rng() % D), k1 = (k0 + 1 + (int) (rng() % (D - 1))) % D;
        a[m * D + k0] = 0x7bff;  // +65504
        a[m * D + k1] = 0xfbff;  // -65504
        for (int n = 0; n < D; n++) {
            b[n * D + k1] = b[n * D + k0];
        }
    }
    unit_params(params);
    Reference ref(model);
    ref.mma(a, b, 1);
    ASSERT_TRUE(mma_f32(act, w, 1, params, out32));
    EXPECT_EQ(f32_mismatches(ref, float_at(out32), float_at(params)), 0);
}

TEST_P(HmxModels, SpecialValuesSubnormalsAndOverflow) {
    const dma_addr_t act = 0, w = 8192, params = 16384, out = 20480;
    uint16_t *       a = half_at(act), *b = half_at(w);
    for (int i = 0; i < D * D; i++) {
        a[i] = 0x0001;  // smallest subnormal
        b[i] = 0x3c00;  // 1.0
    }
    a[0 * D + 0] = 0x7c00;  // row 0: +inf * 1 -> +inf
    a[1 * D + 0] = 0x7c00;  // row 1: +inf * 0 -> NaN
    b[0 * D + 0] = 0x3c00;
    for (int n = 1; n < D; n++) {
        b[n * D + 0] = 0x0000;
    }
    a[2 * D + 0] = 0x7bff;  // row 2: 65504 + tiny, times scale 2 -> overflows fp16 on store
    float * p = float_at(params);
    for (int n = 0; n < D; n++) {
        p[n]     = 2.0f;
        p[D + n] = 0.0f;
    }
    ASSERT_EQ(htp_hmx_acquire(hmx), HTP_STATUS_OK);
    ASSERT_EQ(htp_hmx_mma(hmx, act, w, 1), HTP_STATUS_OK);
    ASSERT_EQ(htp_hmx_store(hmx, out, params, HTP_HMX_OUT_F16), HTP_STATUS_OK);
    ASSERT_EQ(htp_hmx_release(hmx), HTP_STATUS_OK);
    const uint16_t * o = half_at(out);
    EXPECT_EQ(o[0 * D + 0], 0x7c00);  // inf * 1
    EXPECT_EQ(o[1 * D + 1], 0x7fff);  // inf * 0: NaN
    EXPECT_EQ(o[2 * D + 0], 0x7c00);  // 2 * (65504 + 31 * 2^-24) overflows
    // Row 3 column 5: 32 subnormal products (k = 0 weight is 0 for n >= 1: 31 of them) = 31 * 2^-24,
    // times 2 -> 62 * 2^-24, a subnormal fp16 kept exactly.
    EXPECT_EQ(o[3 * D + 5], 62);
}

TEST_F(HmxUnit, OwnershipAndOperandChecks) {
    EXPECT_EQ(htp_hmx_mma(hmx, 0, 2048, 1), HTP_STATUS_INTERNAL);  // not acquired
    EXPECT_EQ(htp_hmx_release(hmx), HTP_STATUS_INTERNAL);
    ASSERT_EQ(htp_hmx_acquire(hmx), HTP_STATUS_OK);
    EXPECT_EQ(htp_hmx_acquire(hmx), HTP_STATUS_INTERNAL);  // already the owner
    EXPECT_EQ(htp_hmx_mma(hmx, 1024, 4096, 1), HTP_STATUS_BAD_PARAMS);  // misaligned tile
    EXPECT_EQ(htp_hmx_mma(hmx, kVtcm - 2048, 0, 2), HTP_STATUS_BAD_PARAMS);  // past VTCM's end
    EXPECT_EQ(htp_hmx_store(hmx, kVtcm - 1024, 0, HTP_HMX_OUT_F16), HTP_STATUS_BAD_PARAMS);
    EXPECT_EQ(htp_hmx_store(hmx, 0, 4096, 7), HTP_STATUS_BAD_PARAMS);  // unknown flags
    std::thread other([&] { EXPECT_EQ(htp_hmx_clear(hmx), HTP_STATUS_INTERNAL); });  // not its owner
    other.join();
    EXPECT_EQ(htp_hmx_release(hmx), HTP_STATUS_OK);
}

TEST_P(HmxModels, ExclusiveUseFromSeveralThreads) {
    constexpr int      kThreads = 4, kRounds = 6;
    constexpr uint32_t kStride  = 64 * 1024;  // each thread's region: 2 act, 2 weight tiles, params, out
    std::vector<Reference> refs;
    std::mt19937           rng(3);
    for (int t = 0; t < kThreads; t++) {
        const dma_addr_t base = t * kStride;
        refs.push_back(fill(model, half_at(base), half_at(base + 8192), float_at(base + 16384), 2, rng));
    }
    std::atomic<int> inside{ 0 }, max_inside{ 0 }, failures{ 0 };
    std::vector<std::thread> th;
    for (int t = 0; t < kThreads; t++) {
        th.emplace_back([&, t] {
            const dma_addr_t base = t * kStride;
            for (int r = 0; r < kRounds; r++) {
                if (htp_hmx_acquire(hmx) != HTP_STATUS_OK) {
                    failures++;
                    continue;
                }
                const int now = ++inside;
                int       seen = max_inside.load();
                while (now > seen && !max_inside.compare_exchange_weak(seen, now)) {
                }
                // The accumulator starts cleared for each owner; a half-done product would show.
                failures += htp_hmx_mma(hmx, base, base + 8192, 1) != HTP_STATUS_OK;
                std::this_thread::yield();
                failures += htp_hmx_mma(hmx, base + 2048, base + 8192 + 2048, 1) != HTP_STATUS_OK;
                failures += htp_hmx_store(hmx, base + 20480 + (uint32_t) r * 4096, base + 16384, HTP_HMX_OUT_F32) != HTP_STATUS_OK;
                --inside;
                failures += htp_hmx_release(hmx) != HTP_STATUS_OK;
            }
        });
    }
    for (auto & x : th) {
        x.join();
    }
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(max_inside.load(), 1);
    for (int t = 0; t < kThreads; t++) {
        const dma_addr_t base = t * kStride;
        const float *    p    = float_at(base + 16384);
        int              bad  = 0;
        for (int r = 0; r < kRounds; r++) {
            const float * o = float_at(base + 20480 + (uint32_t) r * 4096);
            for (int m = 0; m < D; m++) {
                for (int n = 0; n < D; n++) {
                    const float y = refs[t].out(m, n, p[n], p[D + n]);
                    bad += std::memcmp(&y, o + m * D + n, 4) != 0;
                }
            }
        }
        EXPECT_EQ(bad, 0) << "thread " << t;
    }
}

INSTANTIATE_TEST_SUITE_P(Models, HmxModels, ::testing::Values(vhtp::hmx_model::fp32, vhtp::hmx_model::exact),
                         [](const ::testing::TestParamInfo<vhtp::hmx_model> & i) {
                             return std::string(i.param == vhtp::hmx_model::fp32 ? "fp32" : "exact");
                         });

// The fp32 model against the exact one (the bound docs/hvx-conformance.md "HMX" states). With
// s the exact sum of a tile pair's 32 products and S the sum of their magnitudes, the fp32
// model's recursive sum is within gamma_31 * S of s, and the exact model's fp32 rounding within
// u * |s| <= u * S (u = 2^-24), so one tile pair's results differ by at most 32 u S. Over n_k
// tile pairs the fp32 accumulator adds its n_k - 1 roundings: the fp32 model stays within
// (32 + n_k) u S of the exact dot product over all of K. Random tiles over narrow, wide and
// the whole exponent range, including sums that cancel; the models must also differ somewhere
// (or the test would compare one model with itself).
TEST_F(HmxFp32, ErrorAgainstTheExactModelStaysWithinItsBound) {
    std::mt19937     rng(17);
    const dma_addr_t act = 0, w = 64 * 1024, params = 128 * 1024, out_f = 132 * 1024, out_x = 148 * 1024;
    const double     u = std::ldexp(1.0, -24);
    int              differ = 0;
    double           worst  = 0;  // largest |difference| / (u S) seen
    const int        emin[5] = { 8, 0, 12, 0, 14 }, espan[5] = { 14, 31, 19, 8, 3 };
    for (int round = 0; round < 5; round++) {
        for (uint32_t n_k : { 1u, 4u }) {
            fill(model, half_at(act), half_at(w), float_at(params), n_k, rng, emin[round], espan[round]);
            if (round == 4) {  // large terms that cancel next to small ones
                for (int m = 0; m < D; m++) {
                    half_at(act)[m * D + 3] = 0x7bff;
                    half_at(act)[m * D + 7] = 0xfbff;
                }
                for (uint32_t t = 0; t < n_k; t++) {
                    for (int n = 0; n < D; n++) {
                        half_at(w)[t * D * D + n * D + 7] = half_at(w)[t * D * D + n * D + 3];
                    }
                }
            }
            unit_params(params);
            hmx->model = vhtp::hmx_model::fp32;
            ASSERT_TRUE(mma_f32(act, w, n_k, params, out_f));
            hmx->model = vhtp::hmx_model::exact;
            ASSERT_TRUE(mma_f32(act, w, n_k, params, out_x));
            int bad = 0;
            for (int m = 0; m < D; m++) {
                for (int n = 0; n < D; n++) {
                    __float128 s = 0, mag = 0;
                    for (uint32_t t = 0; t < n_k; t++) {
                        for (int k = 0; k < D; k++) {
                            const __float128 p = (__float128) half_value(half_at(act)[t * D * D + m * D + k]) *
                                                 (__float128) half_value(half_at(w)[t * D * D + n * D + k]);
                            s += p;
                            mag += p < 0 ? -p : p;
                        }
                    }
                    const double f = float_at(out_f)[m * D + n], x = float_at(out_x)[m * D + n];
                    const double S = (double) mag;
                    differ += f != x;
                    const double to_exact = std::fabs(f - (double) s), to_model = std::fabs(f - x);
                    if (n_k == 1) {
                        bad += to_model > 32 * u * S;
                    }
                    bad += to_exact > (32 + n_k) * u * S;
                    if (S > 0) {
                        worst = std::max(worst, to_exact / (u * S));
                    }
                }
            }
            EXPECT_EQ(bad, 0) << "exponents " << emin[round] << " + " << espan[round] << ", n_k " << n_k;
        }
    }
    EXPECT_GT(differ, 0);
    RecordProperty("worst_error_in_u_times_sum_of_magnitudes", std::to_string(worst));
}

// GGML_HEXAGON_HMX_MODEL picks a new unit's model: fp32 unset or "fp32", exact for "exact",
// fp32 for anything else (with one line).
TEST(HmxModel, EnvironmentPicksTheModel) {
    const char * saved = std::getenv("GGML_HEXAGON_HMX_MODEL");
    const std::string keep = saved ? saved : "";
    unsetenv("GGML_HEXAGON_HMX_MODEL");
    EXPECT_EQ(vhtp::hmx_default_model(), vhtp::hmx_model::fp32);
    setenv("GGML_HEXAGON_HMX_MODEL", "exact", 1);
    EXPECT_EQ(vhtp::hmx_default_model(), vhtp::hmx_model::exact);
    std::vector<uint8_t> vtcm(64 * 1024);
    htp_hmx *            h = vhtp::hmx_create(vtcm.data(), 0, (uint32_t) vtcm.size());
    EXPECT_EQ(h->model, vhtp::hmx_model::exact);
    vhtp::hmx_destroy(h);
    setenv("GGML_HEXAGON_HMX_MODEL", "fp32", 1);
    EXPECT_EQ(vhtp::hmx_default_model(), vhtp::hmx_model::fp32);
    setenv("GGML_HEXAGON_HMX_MODEL", "double", 1);
    EXPECT_EQ(vhtp::hmx_default_model(), vhtp::hmx_model::fp32);
    if (saved) {
        setenv("GGML_HEXAGON_HMX_MODEL", keep.c_str(), 1);
    } else {
        unsetenv("GGML_HEXAGON_HMX_MODEL");
    }
}

// The session core creates the unit over its VTCM and hands it to the NPU library.
class HmxSession : public vhtp_test::core_fixture {};

TEST_F(HmxSession, SessionInfoCarriesTheUnitOverVtcm) {
    htp_hmx * hmx = c->sinfo.hmx;
    ASSERT_NE(hmx, nullptr);
    const dma_addr_t base = c->sinfo.vtcm_base;
    uint16_t *       a    = static_cast<uint16_t *>(htp_va(base));
    uint16_t *       w    = static_cast<uint16_t *>(htp_va(base + 2048));
    float *          p    = static_cast<float *>(htp_va(base + 4096));
    for (int i = 0; i < D * D; i++) {
        a[i] = 0x3c00;                         // 1.0
        w[i] = (i / D) % 2 ? 0x4000 : 0x3800;  // column n: 2.0 (odd n) or 0.5
    }
    for (int n = 0; n < D; n++) {
        p[n]     = 1.0f;
        p[D + n] = (float) n;
    }
    ASSERT_EQ(htp_hmx_acquire(hmx), HTP_STATUS_OK);
    ASSERT_EQ(htp_hmx_mma(hmx, base, base + 2048, 1), HTP_STATUS_OK);
    ASSERT_EQ(htp_hmx_store(hmx, base + 8192, base + 4096, HTP_HMX_OUT_F32), HTP_STATUS_OK);
    ASSERT_EQ(htp_hmx_release(hmx), HTP_STATUS_OK);
    const float * o = static_cast<const float *>(htp_va(base + 8192));
    for (int n = 0; n < D; n++) {
        EXPECT_EQ(o[5 * D + n], (n % 2 ? 64.0f : 16.0f) + (float) n);
    }
    EXPECT_EQ(htp_hmx_mma(hmx, 0, 2048, 1), HTP_STATUS_INTERNAL);
}
