// mm_widen_staged (npu/ops/mul-mat/mul-mat-rows.h), the MUL_MAT paths' one conversion of F16 /
// BF16 activation rows in their staging slots, against ggml's own fp16 / bf16 -> fp32 (the
// CPU's conversion of src1): every 16-bit pattern, element e of the 16-bit row (at byte 2e, where
// the staging DMA puts the element the F32 layout keeps at byte 4e) must become F32 element e,
// in place, writing nothing past 2 n_in vectors; F32 rows are left alone.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "ggml.h"
#include "mul-mat/mul-mat-rows.h"

using namespace htp_ops;

namespace {

// A VTCM-like slot of n aligned vectors.
struct slot {
    uint32_t  n;
    uint8_t * p;
    explicit slot(uint32_t n_vec) : n(n_vec), p((uint8_t *) std::aligned_alloc(128, 128 * (size_t) n_vec)) {}
    ~slot() { std::free(p); }
    uint8_t *    bytes() { return p; }
    HVX_Vector * vec() { return (HVX_Vector *) p; }
};

// Widens n_in vectors of 16-bit patterns (pattern(e) for element e) and checks every element
// and that the vector after the 2 n_in written ones keeps its bytes.
template <class P> void check(htp_type type, uint32_t n_in, P pattern) {
    const uint32_t n = 64 * n_in;
    slot           s(2 * n_in + 1);
    std::memset(s.bytes(), 0xA5, s.n * 128);
    std::vector<uint16_t> h(n);
    for (uint32_t e = 0; e < n; e++) {
        h[e] = pattern(e);
    }
    std::memcpy(s.bytes(), h.data(), 2 * n);
    htp_mm_act act = {};
    act.type       = type;
    act.elem_bytes = 2;
    mm_widen_staged(s.vec(), act, n_in);
    const float * f = (const float *) s.bytes();
    for (uint32_t e = 0; e < n; e++) {
        float ref;
        if (type == HTP_TYPE_F16) {
            ggml_fp16_t x;
            std::memcpy(&x, &h[e], 2);
            ref = ggml_fp16_to_fp32(x);
        } else {
            ggml_bf16_t x;
            std::memcpy(&x, &h[e], 2);
            ref = ggml_bf16_to_fp32(x);
        }
        if (std::isnan(ref)) {
            ASSERT_TRUE(std::isnan(f[e])) << "element " << e << " of " << n << ", bits 0x" << std::hex << h[e];
            continue;
        }
        uint32_t got, want;
        std::memcpy(&got, &f[e], 4);
        std::memcpy(&want, &ref, 4);
        ASSERT_EQ(got, want) << "element " << e << " of " << n << ", bits 0x" << std::hex << h[e];
    }
    for (uint32_t b = 0; b < 128; b++) {
        ASSERT_EQ(s.bytes()[2 * n_in * 128 + b], 0xA5) << "wrote past 2 n_in vectors";
    }
}

TEST(MulMatStage, F16EveryPatternInPlace) {
    check(HTP_TYPE_F16, 1024, [](uint32_t e) { return (uint16_t) e; });
}

TEST(MulMatStage, Bf16EveryPatternInPlace) {
    check(HTP_TYPE_BF16, 1024, [](uint32_t e) { return (uint16_t) e; });
}

// Short rows (the FP path's K of 4: one vector; odd counts): each vector's outputs land on
// vectors not read yet only when the walk goes last vector first.
TEST(MulMatStage, ShortRowsBothTypes) {
    for (uint32_t n_in : { 1u, 2u, 3u, 5u }) {
        auto pat = [n_in](uint32_t e) { return (uint16_t) (0x3c00 + 37 * e + n_in); };
        check(HTP_TYPE_F16, n_in, pat);
        check(HTP_TYPE_BF16, n_in, pat);
    }
}

TEST(MulMatStage, F32RowsUntouched) {
    slot s(3);
    for (uint32_t b = 0; b < 3 * 128; b++) {
        s.bytes()[b] = (uint8_t) (7 * b + 1);
    }
    htp_mm_act act = {};
    act.type       = HTP_TYPE_F32;
    act.elem_bytes = 4;
    mm_widen_staged(s.vec(), act, 1);
    for (uint32_t b = 0; b < 3 * 128; b++) {
        ASSERT_EQ(s.bytes()[b], (uint8_t) (7 * b + 1));
    }
}

}  // namespace
