// NPU kernels + host encoders end to end on the device-API TEST DOUBLE: ggml builds the op
// (tensors live inside the fake session window), the encoder checks support and fills
// kernel_params, the kernel runs, and the result is compared with scalar references written
// from ggml's CPU semantics. Shapes cover broadcasting, odd sizes, views and permutes, and
// small VTCM / 16-bit DMA fields so that chunking and multi-buffering are exercised.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "device-api-double.h"
#include "ggml.h"
#include "op-encoders.h"
#include "op-table.h"

extern const htp_op_encoder htp_allreduce_encoder;  // host/ops/allreduce.cpp (a HOST row: no ggml op finds it)

namespace {

constexpr uint64_t kWindow    = 160ull << 20;
constexpr uint32_t kVtcmBase  = 4096;
constexpr uint64_t kArenaBase = 16ull << 20;
constexpr uint64_t kArenaSize = 128ull << 20;

uint8_t * window_base() {
    return test_double::window(kWindow);
}

struct Caps {
    const char *    name;
    htp_device_caps caps;
};

const Caps kCaps[] = {
    { "v79", { 79, 4, 8u << 20, 24 } },
    { "v73-small-vtcm", { 73, 4, 96u << 10, 16 } },
    { "v73-1thread-tiny", { 73, 1, 16u << 10, 16 } },
};

class NpuOps : public ::testing::Test {
  protected:
    ggml_context * ctx = nullptr;
    std::mt19937   rng{ 1234 };
    uint32_t       members = 1;  // run() as a device group of this many members (one after another)
    int            only_member = -1;  // >= 0: run() runs that member of the group alone

    void SetUp() override {
        ggml_init_params ip = { kArenaSize, window_base() + kArenaBase, false };
        ctx                 = ggml_init(ip);
    }

    void TearDown() override { ggml_free(ctx); }

    // a + b into a dst whose data starts on a 128-byte line (a device buffer's alignment; the
    // context aligns to 16 only): pad tensors go before it until it does.
    ggml_tensor * add_line_aligned(ggml_tensor * a, ggml_tensor * b) {
        for (int i = 0; i < 64; i++) {
            ggml_tensor * y = ggml_add(ctx, a, b);
            if ((dev(y->data) & 127) == 0) {
                return y;
            }
            ggml_new_tensor_1d(ctx, GGML_TYPE_I8, 16);
        }
        ADD_FAILURE() << "no line-aligned dst";
        return ggml_add(ctx, a, b);
    }

    void fill_f32(ggml_tensor * t, float lo, float hi) {
        std::uniform_real_distribution<float> d(lo, hi);
        float *                               p = (float *) t->data;
        for (int64_t i = 0; i < ggml_nelements(t); i++) {
            p[i] = d(rng);
        }
    }

    static dma_addr_t dev(const void * p) { return (dma_addr_t) ((const uint8_t *) p - window_base()); }

    static htp_tensor_desc describe(const ggml_tensor * t) {
        htp_tensor_desc d = {};
        d.buf             = 0;
        d.type            = t->type;
        d.offset          = dev(t->data);
        for (int i = 0; i < 4; i++) {
            d.ne[i] = (uint32_t) t->ne[i];
            d.nb[i] = (uint32_t) t->nb[i];
        }
        return d;
    }

    // Encodes and runs op on the NPU kernels; returns false when the encoder refuses it.
    bool run(const htp_device_caps & caps, ggml_tensor * op) {
        std::vector<const ggml_tensor *> srcs;
        for (int i = 0; i < HTP_MAX_SRC && op->src[i]; i++) {
            srcs.push_back(op->src[i]);
        }
        return run_with(caps, htp_find_op_encoder(op), op, srcs);
    }

    // The same with the encoder and the sources given (ops the host issues itself, whose
    // sources are not a ggml node's: ALLREDUCE).
    // patch (optional) changes the encoded params before the kernel runs (a plan the host's
    // encoder would not make, to see that the kernel follows what the params say).
    bool run_with(const htp_device_caps & caps, const htp_op_encoder * enc, ggml_tensor * op,
                  const std::vector<const ggml_tensor *> & srcs,
                  const std::function<void(htp_kernel_params &)> & patch = nullptr) {
        EXPECT_NE(enc, nullptr);
        if (!enc || !enc->supports(caps, op, htp_encode_context())) {
            return false;
        }
        htp_op_desc desc;
        std::memset(&desc, 0, sizeof(desc));
        desc.dst = describe(op);
        for (int i = 0; i < HTP_MAX_SRC; i++) {
            desc.src[i].buf = HTP_NO_BUF;
        }
        for (size_t i = 0; i < srcs.size() && i < HTP_MAX_SRC; i++) {
            desc.src[i] = describe(srcs[i]);
            desc.n_src  = (uint32_t) i + 1;
        }
        // Poison: the op is encoded into params zeroed (as the host does) and into params full
        // of a pattern. Every byte of the op's params struct must come out the same (the
        // encoder writes every field), and the kernel then runs on the poisoned copy, so a
        // field left to chance cannot go unnoticed.
        htp_op_desc zeroed = desc;
        enc->encode(caps, op, zeroed, htp_encode_context());
        std::memset(&desc.params, 0xA5, sizeof(desc.params));
        enc->encode(caps, op, desc, htp_encode_context());
        const uint32_t psize = htp_opcode_params_size(desc.opcode);
        std::string    unset;
        for (uint32_t b = 0; b < psize && b < sizeof(desc.params); b += 4) {
            if (std::memcmp((const uint8_t *) &desc.params + b, (const uint8_t *) &zeroed.params + b, 4) != 0) {
                unset += " " + std::to_string(b);
            }
        }
        EXPECT_TRUE(unset.empty()) << htp_opcode_name(desc.opcode) << ": params bytes the encoder leaves unset (offsets):" << unset;
        const htp_split_params & sp = desc.params.split;
        EXPECT_GE(sp.n_threads, 1u);
        EXPECT_LE(sp.n_threads, caps.n_hvx);
        EXPECT_LE((uint64_t) sp.vtcm_per_thread * sp.n_threads, caps.vtcm_size);
        EXPECT_GE(sp.n_bufs, 2u);
        EXPECT_LE(sp.n_bufs, 16u);
        if (patch) {
            patch(desc.params);
        }

        htp_context hc;
        std::memset(&hc, 0, sizeof(hc));
        hc.vtcm_base = kVtcmBase;
        hc.vtcm_size = caps.vtcm_size;
        hc.n_hvx     = caps.n_hvx;
        for (uint32_t i = 0; i < HTP_MAX_HVX_THREADS; i++) {
            hc.dma[i]          = test_double::new_queue();
            hc.trace[i].thread = (uint8_t) i;
        }
        htp_op_context octx;
        std::memset(&octx, 0, sizeof(octx));
        octx.ctx      = &hc;
        octx.opcode   = desc.opcode;
        octx.n_src    = desc.n_src;
        octx.params   = &desc.params;
        auto tensor   = [](const htp_tensor_desc & d) {
            htp_tensor t = {};
            t.data       = d.buf == HTP_NO_BUF ? 0 : (dma_addr_t) d.offset;
            t.type       = d.type;
            std::memcpy(t.ne, d.ne, sizeof(t.ne));
            std::memcpy(t.nb, d.nb, sizeof(t.nb));
            return t;
        };
        octx.dst = tensor(desc.dst);
        for (int i = 0; i < HTP_MAX_SRC; i++) {
            octx.src[i] = tensor(desc.src[i]);
        }
        test_double::g_dma_field_bits = caps.dma_field_bits;
        test_double::g_fault          = 0;
        const htp_op_fn fn            = htp_op_lookup(desc.opcode);
        EXPECT_NE(fn, nullptr);
        // A device group of `members` runs the op member after member, each on its share.
        for (uint32_t m = 0; m < members; m++) {
            if (only_member >= 0 && m != (uint32_t) only_member) {
                continue;
            }
            hc.mdev.idx       = m;
            hc.mdev.count     = members;
            hc.mdev.count_div = htp_fastdiv_init(members);
            const int st      = fn(&octx);
            EXPECT_EQ(st, HTP_STATUS_OK) << "member " << m << " of " << members;
        }
        EXPECT_EQ(test_double::g_fault, 0);
        for (uint32_t i = 0; i < HTP_MAX_HVX_THREADS; i++) {
            EXPECT_EQ(test_double::queue_depth(hc.dma[i]), 0u) << "thread " << i << " left DMA transfers unpopped";
            test_double::delete_queue(hc.dma[i]);
        }
        return true;
    }
};

template <typename T> T & at(const ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return *(T *) ((char *) t->data + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3]);
}

template <typename F> void for_each(const ggml_tensor * t, F f) {
    for (int64_t i3 = 0; i3 < t->ne[3]; i3++)
        for (int64_t i2 = 0; i2 < t->ne[2]; i2++)
            for (int64_t i1 = 0; i1 < t->ne[1]; i1++)
                for (int64_t i0 = 0; i0 < t->ne[0]; i0++) {
                    f(i0, i1, i2, i3);
                }
}

float ulp_diff(float a, float b) {
    if (a == b || (std::isnan(a) && std::isnan(b))) {
        return 0;
    }
    return std::fabs(a - b) / std::fabs(std::nextafter(b, INFINITY) - b);
}

// ----------------------------------------------------------------------------------------
struct BinCase {
    int64_t a[4], b[4];
    bool    view;  // src0 as a view with padded rows
};

const BinCase kBin[] = {
    { { 33, 7, 3, 2 }, { 33, 7, 3, 2 }, false }, { { 33, 7, 3, 2 }, { 33, 1, 3, 1 }, false },
    { { 33, 7, 3, 2 }, { 33, 7, 1, 2 }, false }, { { 33, 7, 3, 2 }, { 11, 7, 3, 2 }, false },
    { { 64, 5, 1, 1 }, { 1, 1, 1, 1 }, false },  { { 4096, 5, 1, 1 }, { 4096, 1, 1, 1 }, false },
    { { 10, 6, 4, 1 }, { 5, 3, 2, 1 }, false },   { { 1, 9, 1, 1 }, { 1, 9, 1, 1 }, false },
    { { 100, 12, 2, 1 }, { 100, 12, 2, 1 }, true }, { { 17, 20, 1, 1 }, { 17, 4, 1, 1 }, true },
    { { 20000, 2, 1, 1 }, { 20000, 2, 1, 1 }, false },
};

TEST_F(NpuOps, Binary) {
    const ggml_op ops[] = { GGML_OP_ADD, GGML_OP_SUB, GGML_OP_MUL, GGML_OP_DIV };
    for (const Caps & c : kCaps) {
        for (const BinCase & bc : kBin) {
            for (ggml_op o : ops) {
                ggml_tensor * a;
                if (bc.view) {
                    ggml_tensor * big = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, bc.a[0] + 5, bc.a[1], bc.a[2], bc.a[3]);
                    fill_f32(big, -4, 4);
                    a = ggml_view_4d(ctx, big, bc.a[0], bc.a[1], bc.a[2], bc.a[3], big->nb[1], big->nb[2], big->nb[3], 8);
                } else {
                    a = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, bc.a);
                    fill_f32(a, -4, 4);
                }
                ggml_tensor * b = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, bc.b);
                fill_f32(b, 0.25f, 3);
                for (int64_t i = 0; i < ggml_nelements(b); i += 3) {
                    ((float *) b->data)[i] *= -1;
                }
                ggml_tensor * y = o == GGML_OP_ADD ? ggml_add(ctx, a, b) :
                                  o == GGML_OP_SUB ? ggml_sub(ctx, a, b) :
                                  o == GGML_OP_MUL ? ggml_mul(ctx, a, b) : ggml_div(ctx, a, b);
                if (!run(c.caps, y)) {  // refused only when rows cannot fit this VTCM share
                    EXPECT_GT((uint64_t) bc.a[0] * 4 * 4, (uint64_t) c.caps.vtcm_size / c.caps.n_hvx) << c.name;
                    continue;
                }
                int bad = 0;
                for_each(y, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
                    float x = at<float>(a, i0, i1, i2, i3);
                    float z = at<float>(b, i0 % b->ne[0], i1 % b->ne[1], i2 % b->ne[2], i3 % b->ne[3]);
                    float e = o == GGML_OP_ADD ? x + z : o == GGML_OP_SUB ? x - z : o == GGML_OP_MUL ? x * z : x / z;
                    float g = at<float>(y, i0, i1, i2, i3);
                    if (ulp_diff(g, e) > (o == GGML_OP_DIV ? 1.0f : 0.0f) && bad++ < 5) {
                        ADD_FAILURE() << c.name << " " << ggml_op_name(o) << " a=" << bc.a[0] << "x" << bc.a[1] << " b="
                                      << bc.b[0] << "x" << bc.b[1] << " at " << i0 << "," << i1 << "," << i2 << ","
                                      << i3 << " got " << g << " want " << e;
                    }
                });
            }
        }
    }
}

// One long row (same shape, contiguous) runs flat, as rows of one 128-byte line
// (host/ops/binary.cpp): alone, and in device groups that split it by elements in whole lines.
TEST_F(NpuOps, BinaryOneLongRowRunsFlat) {
    const int64_t lens[] = { 1 << 18, (1 << 16) + 32 * 3 };
    for (int64_t n : lens) {
        for (uint32_t g : { 1u, 2u, 3u, 4u }) {
            members         = g;
            ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, n);
            ggml_tensor * b = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, n);
            fill_f32(a, -4, 4);
            fill_f32(b, -4, 4);
            ggml_tensor * y = add_line_aligned(a, b);
            std::memset(y->data, 0xff, ggml_nbytes(y));  // NaN: an element nobody wrote shows
            ASSERT_TRUE(run(kCaps[0].caps, y)) << n;
            int bad = 0;
            for (int64_t i = 0; i < n; i++) {
                const float e = ((float *) a->data)[i] + ((float *) b->data)[i];
                if (((float *) y->data)[i] != e && bad++ < 5) {
                    ADD_FAILURE() << "n " << n << " members " << g << " at " << i << " got " << ((float *) y->data)[i]
                                  << " want " << e;
                }
            }
        }
    }
    members = 1;
}

// The flat op's members take whole lines, about a quarter each of 4: member 1 alone writes
// exactly its share.
TEST_F(NpuOps, BinaryOneLongRowSplitsByElements) {
    const int64_t n = (1 << 16) + 32 * 3;  // 2051 lines: 512 per member, 515 for the last
    members         = 4;
    only_member     = 1;
    ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, n);
    ggml_tensor * b = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, n);
    fill_f32(a, -4, 4);
    fill_f32(b, -4, 4);
    ggml_tensor * y = add_line_aligned(a, b);
    std::memset(y->data, 0xff, ggml_nbytes(y));
    ASSERT_TRUE(run(kCaps[0].caps, y));
    int64_t first = -1, last = -1, written = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!std::isnan(((float *) y->data)[i])) {
            first = first < 0 ? i : first;
            last  = i;
            written++;
        }
    }
    EXPECT_EQ(first, 512 * 32);
    EXPECT_EQ(last, 1024 * 32 - 1);
    EXPECT_EQ(written, 512 * 32);
    members     = 1;
    only_member = -1;
}

TEST_F(NpuOps, DivSpecialValues) {
    const float vals[] = { 0.0f, -0.0f, 1.0f, -3.0f, 1e-30f, 1e30f, 1e38f, 3e38f, -2e-38f, 1e-45f, INFINITY, -INFINITY, NAN, 7.5f };
    const int   n      = sizeof(vals) / sizeof(vals[0]);
    ggml_tensor * a    = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, n * n, 1);
    ggml_tensor * b    = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, n * n, 1);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            ((float *) a->data)[i * n + j] = vals[i];
            ((float *) b->data)[i * n + j] = vals[j];
        }
    }
    ggml_tensor * y = ggml_div(ctx, a, b);
    ASSERT_TRUE(run(kCaps[0].caps, y));
    for (int k = 0; k < n * n; k++) {
        float x = ((float *) a->data)[k], z = ((float *) b->data)[k], e = x / z, g = ((float *) y->data)[k];
        if (std::fpclassify(e) == FP_SUBNORMAL) {
            EXPECT_NEAR(g, e, 2e-45f) << x << " / " << z;
        } else {
            EXPECT_LE(ulp_diff(g, e), 1.0f) << x << " / " << z << " got " << g << " want " << e;
            if (!std::isnan(e)) {  // HVX NaNs are the default NaN, sign clear
                EXPECT_EQ(std::signbit(g), std::signbit(e)) << x << " / " << z;
            }
        }
    }
}

// ARGSORT / TOP_K keys (npu/ops/argsort.cpp compute_keys): the order-preserving int of a float's
// bits, kept off INT32_MIN / INT32_MAX as the kernel keeps it (NaNs with every magnitude bit
// set tie with their neighbours: ggml orders no NaN).
int32_t sort_key(float x) {
    int32_t b;
    std::memcpy(&b, &x, 4);
    const int32_t k = b < 0 ? (int32_t) (b ^ 0x7fffffff) : b;
    return std::min(std::max(k, INT32_MIN + 1), INT32_MAX - 1);
}

float bits_f32(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

// A NaN with every magnitude bit set (0xFFFFFFFF keys where the padding lanes and TOP_K's
// placeholder candidates sort, 0x7FFFFFFF where an ascending sort's padding does) among random
// values: ARGSORT writes a permutation of each row in key order, TOP_K k distinct indices of the
// row whose keys are the k largest; on the whole-row path and on the segmented one (the tiny
// VTCM streams a TOP_K row of 3000 in segments of 1024). Random rows without NaNs check the
// segments' merge of the best (npu/ops/argsort.cpp compute_take_best) against the exact top k.
TEST_F(NpuOps, SortKeysOfAllOnesNaN) {
    struct Case {
        const Caps * c;
        bool         top_k;
        int          order;  // ARGSORT: GGML_SORT_ORDER_*
        int64_t      ne0, k;
        uint32_t     nan_bits;
        int          nan_pct;  // NaNs per 100 values (100: all but 10 of the row)
    };
    const Case cases[] = {
        { &kCaps[0], false, GGML_SORT_ORDER_ASC, 40, 40, 0x7fffffffu, 30 },
        { &kCaps[0], false, GGML_SORT_ORDER_DESC, 40, 40, 0xffffffffu, 30 },
        { &kCaps[0], true, 0, 40, 40, 0xffffffffu, 30 },
        { &kCaps[2], true, 0, 3000, 20, 0xffffffffu, 100 },
        { &kCaps[2], true, 0, 3000, 20, 0xffffffffu, 30 },
        { &kCaps[2], true, 0, 3000, 64, 0, 0 },
        { &kCaps[2], true, 0, 2049, 1, 0, 0 },
    };
    for (const Case & cs : cases) {
        const int64_t rows = cs.ne0 > 1000 ? 4 : 16;  // 16-bit DMA fields: the planes' stride fits
        ggml_tensor * a    = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, cs.ne0, rows);
        fill_f32(a, -100.0f, 100.0f);
        std::uniform_int_distribution<int> pct(0, 99);
        for (int64_t r = 0; r < rows; r++) {
            for (int64_t i = 0; i < cs.ne0; i++) {
                const bool nan = cs.nan_pct == 100 ? i >= 10 : pct(rng) < cs.nan_pct;
                if (nan) {
                    at<float>(a, i, r, 0, 0) = bits_f32(cs.nan_bits);
                }
            }
        }
        ggml_tensor * y = cs.top_k ? ggml_top_k(ctx, a, (int) cs.k) : ggml_argsort(ctx, a, (ggml_sort_order) cs.order);
        std::memset(y->data, 0xff, ggml_nbytes(y));
        ASSERT_TRUE(run(cs.c->caps, y)) << cs.c->name << " ne0 " << cs.ne0;
        for (int64_t r = 0; r < rows; r++) {
            std::vector<bool> taken(cs.ne0, false);
            int32_t           worst = INT32_MAX;
            for (int64_t j = 0; j < cs.k; j++) {
                const int32_t i = at<int32_t>(y, j, r, 0, 0);
                ASSERT_TRUE(i >= 0 && i < cs.ne0 && !taken[i])
                    << cs.c->name << " ne0 " << cs.ne0 << " row " << r << " slot " << j << ": index " << i;
                taken[i] = true;
                const int32_t key = sort_key(at<float>(a, i, r, 0, 0));
                if (!cs.top_k && j > 0) {
                    const int32_t prev = sort_key(at<float>(a, at<int32_t>(y, j - 1, r, 0, 0), r, 0, 0));
                    ASSERT_TRUE(cs.order == GGML_SORT_ORDER_ASC ? prev <= key : prev >= key) << "row " << r << " slot " << j;
                }
                worst = std::min(worst, key);
            }
            for (int64_t i = 0; cs.top_k && i < cs.ne0; i++) {
                ASSERT_TRUE(taken[i] || sort_key(at<float>(a, i, r, 0, 0)) <= worst)
                    << cs.c->name << " ne0 " << cs.ne0 << " k " << cs.k << " row " << r << ": index " << i << " left out";
            }
        }
    }
}

TEST_F(NpuOps, RmsNormAndScale) {
    const int64_t shapes[][4] = { { 1, 3, 1, 1 }, { 31, 5, 2, 1 }, { 32, 4, 1, 2 }, { 33, 7, 3, 1 }, { 4096, 6, 1, 1 }, { 100, 1, 1, 1 } };
    for (const Caps & c : kCaps) {
        for (auto & s : shapes) {
            ggml_tensor * x = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, s);
            fill_f32(x, -3, 3);
            ggml_tensor * y = ggml_rms_norm(ctx, x, 1e-6f);
            if (!run(c.caps, y)) {  // refused only when rows cannot fit this VTCM share
                EXPECT_GT((uint64_t) s[0] * 4 * 4, (uint64_t) c.caps.vtcm_size / c.caps.n_hvx) << c.name;
                continue;
            }
            for (int64_t r = 0; r < ggml_nrows(x); r++) {
                const float * xr = (const float *) x->data + r * s[0];
                const float * yr = (const float *) y->data + r * s[0];
                double        ss = 0;
                for (int64_t i = 0; i < s[0]; i++) {
                    ss += (double) xr[i] * xr[i];
                }
                const float scale = 1.0f / std::sqrt((float) (ss / s[0]) + 1e-6f);
                for (int64_t i = 0; i < s[0]; i++) {
                    ASSERT_NEAR(yr[i], xr[i] * scale, 2e-6f * std::fabs(xr[i] * scale) + 1e-30f) << c.name << " ne0=" << s[0];
                }
            }
            for (float bias : { 0.0f, 0.75f }) {
                ggml_tensor * z = ggml_scale_bias(ctx, x, -1.5f, bias);
                ASSERT_TRUE(run(c.caps, z)) << c.name;
                for (int64_t i = 0; i < ggml_nelements(x); i++) {
                    const float xv = ((float *) x->data)[i];
                    // HVX rounds the product, then the sum (ggml's CPU path may use one FMA
                    // instead; test-backend-ops tolerates that difference).
                    volatile float m = xv * -1.5f;
                    const float    e = bias != 0.0f ? m + bias : (float) m;
                    ASSERT_EQ(((float *) z->data)[i], e);
                }
            }
        }
    }
}

// ROPE with n_dims 0 rotates nothing: ggml's CPU copies every row, and so must the kernel.
TEST_F(NpuOps, RopeZeroDimsCopies) {
    for (const Caps & c : kCaps) {
        ggml_tensor * x   = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 128, 2, 5, 1);
        ggml_tensor * pos = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 5);
        fill_f32(x, -3, 3);
        for (int i = 0; i < 5; i++) {
            ((int32_t *) pos->data)[i] = 7 * i + 1;
        }
        ggml_tensor * y = ggml_rope_ext(ctx, x, pos, nullptr, 0, GGML_ROPE_TYPE_NEOX, 4096, 10000.0f, 1.0f, 0.0f, 1.0f,
                                        0.0f, 0.0f);
        ASSERT_TRUE(run(c.caps, y)) << c.name;
        ASSERT_EQ(std::memcmp(x->data, y->data, ggml_nbytes(x)), 0) << c.name;
    }
}

// ALLREDUCE of three parts on one session (the whole row range): every part ends up holding
// the sum in part order, bit for bit as float additions; rows that are not whole vectors too.
TEST_F(NpuOps, AllReduceSumsIntoEveryPart) {
    const int64_t shapes[][2] = { { 256, 16 }, { 33, 7 }, { 4096, 3 }, { 1, 1 } };
    for (const Caps & c : kCaps) {
        for (auto & s : shapes) {
            std::vector<ggml_tensor *> parts;
            std::vector<std::vector<float>> before;
            for (int k = 0; k < 3; k++) {
                parts.push_back(ggml_new_tensor_2d(ctx, GGML_TYPE_F32, s[0], s[1]));
                fill_f32(parts.back(), -2, 2);
                const float * d = (const float *) parts.back()->data;
                before.emplace_back(d, d + ggml_nelements(parts.back()));
            }
            const std::vector<const ggml_tensor *> srcs(parts.begin(), parts.end());
            if (!run_with(c.caps, &htp_allreduce_encoder, parts[1], srcs)) {
                EXPECT_GT((uint64_t) s[0] * 4 * 4 * 7, (uint64_t) c.caps.vtcm_size / c.caps.n_hvx) << c.name;
                continue;
            }
            for (int64_t i = 0; i < ggml_nelements(parts[0]); i++) {
                volatile float sum = before[0][i] + before[1][i];
                const float    e   = sum + before[2][i];
                for (int k = 0; k < 3; k++) {
                    ASSERT_EQ(((const float *) parts[k]->data)[i], e) << c.name << " part " << k << " element " << i;
                }
            }
        }
    }
}

float get_as_f32(const ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return t->type == GGML_TYPE_F16 ? ggml_fp16_to_fp32(at<ggml_fp16_t>(t, i0, i1, i2, i3)) : at<float>(t, i0, i1, i2, i3);
}

TEST_F(NpuOps, CpyContDup) {
    const ggml_type types[] = { GGML_TYPE_F32, GGML_TYPE_F16 };
    for (const Caps & c : kCaps) {
        for (ggml_type ts : types) {
            for (ggml_type td : types) {
                for (int mode = 0; mode < 6; mode++) {
                    ggml_tensor * src0 = ggml_new_tensor_4d(ctx, ts, 67, 5, 3, 2);
                    for (int64_t i = 0; i < ggml_nelements(src0); i++) {
                        float v = std::ldexp((float) (int) (rng() % 20001 - 10000), -(int) (rng() % 20));
                        if (ts == GGML_TYPE_F16) {
                            ((ggml_fp16_t *) src0->data)[i] = ggml_fp32_to_fp16(v);
                        } else {
                            ((float *) src0->data)[i] = v;
                        }
                    }
                    ggml_tensor * src = src0;
                    ggml_tensor * y   = nullptr;
                    if (mode == 0) {  // contiguous copy
                        y = ggml_cpy(ctx, src, ggml_new_tensor(ctx, td, 4, src->ne));
                    } else if (mode == 1) {  // permuted src -> contiguous (element gather)
                        src = ggml_permute(ctx, src0, 1, 0, 2, 3);
                        y   = ggml_cpy(ctx, src, ggml_new_tensor(ctx, td, 4, src->ne));
                    } else if (mode == 2) {  // rows permuted (planes swapped): strided rows
                        src = ggml_permute(ctx, src0, 0, 2, 1, 3);
                        y   = ggml_cpy(ctx, src, ggml_new_tensor(ctx, td, 4, src->ne));
                    } else if (mode == 3) {  // permuted destination (element scatter)
                        ggml_tensor * d = ggml_new_tensor_4d(ctx, td, 5, 67, 3, 2);
                        y               = ggml_cpy(ctx, src, ggml_permute(ctx, d, 1, 0, 2, 3));
                    } else if (mode == 4) {  // reshape: different shapes, both contiguous
                        y = ggml_cpy(ctx, src, ggml_new_tensor_2d(ctx, td, 30, 67));
                    } else {  // CONT of a transposed view, DUP
                        if (ts != td) {
                            continue;
                        }
                        y = ggml_cont(ctx, ggml_transpose(ctx, ggml_reshape_2d(ctx, src0, 67, 30)));
                        src = y->src[0];
                    }
                    ASSERT_TRUE(run(c.caps, y)) << c.name << " mode " << mode;
                    // Walk both in flat logical order.
                    std::vector<float> want, got;
                    for_each(src, [&](int64_t a, int64_t b, int64_t cc, int64_t d) { want.push_back(get_as_f32(src, a, b, cc, d)); });
                    for_each(y, [&](int64_t a, int64_t b, int64_t cc, int64_t d) { got.push_back(get_as_f32(y, a, b, cc, d)); });
                    ASSERT_EQ(want.size(), got.size());
                    for (size_t i = 0; i < want.size(); i++) {
                        float e = td == GGML_TYPE_F16 ? ggml_fp16_to_fp32(ggml_fp32_to_fp16(want[i])) : want[i];
                        ASSERT_EQ(got[i], e) << c.name << " mode " << mode << " " << ggml_type_name(ts) << "->"
                                             << ggml_type_name(td) << " i=" << i;
                    }
                }
            }
        }
    }
}

TEST_F(NpuOps, GetRows) {
    const ggml_type types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_Q8_0 };
    const int64_t   ne0s[]  = { 32, 96, 256, 2080 };
    for (const Caps & c : kCaps) {
        for (ggml_type t : types) {
            for (int64_t ne0 : ne0s) {
                if (t != GGML_TYPE_Q8_0 && ne0 == 2080) {
                    continue;
                }
                const int64_t ne0u = t == GGML_TYPE_Q8_0 ? ne0 : ne0 + 3;
                ggml_tensor * w    = ggml_new_tensor_4d(ctx, t, ne0u, 10, 3, 1);
                uint8_t *     raw  = (uint8_t *) w->data;
                for (size_t i = 0; i < ggml_nbytes(w); i++) {
                    raw[i] = (uint8_t) rng();
                }
                if (t == GGML_TYPE_F16) {
                    for (int64_t i = 0; i < ggml_nelements(w); i++) {
                        ((ggml_fp16_t *) raw)[i] = ggml_fp32_to_fp16((float) (int) (rng() % 2001 - 1000) / 64.0f);
                    }
                } else if (t == GGML_TYPE_F32) {
                    fill_f32(w, -5, 5);
                } else {
                    for (int64_t bi = 0; bi < ggml_nelements(w) / 32; bi++) {
                        ggml_fp16_t d = ggml_fp32_to_fp16(std::ldexp(1.0f + (rng() % 100) / 100.0f, -(int) (rng() % 8)));
                        std::memcpy(raw + bi * 34, &d, 2);
                    }
                }
                ggml_tensor * idx = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 7, 3);
                for (int64_t i = 0; i < 21; i++) {
                    ((int32_t *) idx->data)[i] = (int32_t) (rng() % 10);
                }
                ggml_tensor * y = ggml_get_rows(ctx, w, idx);
                if (!run(c.caps, y)) {  // refused only when rows cannot fit this VTCM share
                    EXPECT_GT((uint64_t) ne0u * 4 * 3, (uint64_t) c.caps.vtcm_size / c.caps.n_hvx) << c.name;
                    continue;
                }
                for_each(y, [&](int64_t i0, int64_t i1, int64_t i2, int64_t) {
                    const int32_t r = at<int32_t>(idx, i1, i2, 0, 0);
                    float         e;
                    if (t == GGML_TYPE_Q8_0) {
                        const uint8_t * blk = (const uint8_t *) w->data + r * w->nb[1] + i2 * w->nb[2] + (i0 / 32) * 34;
                        ggml_fp16_t     d;
                        std::memcpy(&d, blk, 2);
                        e = (float) (int8_t) blk[2 + i0 % 32] * ggml_fp16_to_fp32(d);
                    } else {
                        e = get_as_f32(w, i0, r, i2, 0);
                    }
                    ASSERT_EQ(at<float>(y, i0, i1, i2, 0), e) << c.name << " " << ggml_type_name(t) << " ne0=" << ne0u;
                });
            }
        }
    }
}

// GET_ROWS of Q1_0, Q2_0, NVFP4, TQ1_0, TQ2_0 is ggml's dequantize_row_* bit for bit: random
// block bytes (every UE4M3 scale code of NVFP4 among them: subnormal, 0x7F, bit 7 set), finite
// FP16 scales; rows of 1 block, of an odd count (Q2_0 and NVFP4 step two blocks at a time), and
// of more than 64 blocks (the scales' second vector); the expected rows come from ggml's
// to_float, which ggml-cpu's GET_ROWS calls.
TEST_F(NpuOps, GetRowsLowBitMatchesGgml) {
    const ggml_type types[] = { GGML_TYPE_Q1_0, GGML_TYPE_Q2_0, GGML_TYPE_NVFP4, GGML_TYPE_TQ1_0, GGML_TYPE_TQ2_0 };
    int             rows    = 0;  // rows compared
    for (const Caps & c : kCaps) {
        for (ggml_type t : types) {
            const int64_t bk = ggml_blck_size(t);
            const size_t  bb = ggml_type_size(t);
            for (int64_t nb : { 1, 3, 67 }) {
                const int64_t ne0 = nb * bk;
                ggml_tensor * w   = ggml_new_tensor_3d(ctx, t, ne0, 6, 2);
                uint8_t *     raw = (uint8_t *) w->data;
                for (size_t i = 0; i < ggml_nbytes(w); i++) {
                    raw[i] = (uint8_t) rng();
                }
                if (t != GGML_TYPE_NVFP4) {  // FP16 d: first in Q1_0 / Q2_0, last in TQ1_0 / TQ2_0
                    for (size_t b = 0; b < ggml_nbytes(w) / bb; b++) {
                        const float       v = std::ldexp(1.0f + (float) (rng() % 100) / 100.0f, -(int) (rng() % 12));
                        const ggml_fp16_t d = ggml_fp32_to_fp16(rng() % 2 ? v : -v);
                        std::memcpy(raw + b * bb + (t == GGML_TYPE_TQ1_0 || t == GGML_TYPE_TQ2_0 ? bb - 2 : 0), &d, 2);
                    }
                }
                ggml_tensor * idx = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 5, 2);
                for (int64_t i = 0; i < 10; i++) {
                    ((int32_t *) idx->data)[i] = (int32_t) (rng() % 6);
                }
                ggml_tensor * y = ggml_get_rows(ctx, w, idx);
                if (!run(c.caps, y)) {  // refused only when rows cannot fit this VTCM share
                    EXPECT_GT((uint64_t) ne0 * 4 * 3, (uint64_t) c.caps.vtcm_size / c.caps.n_hvx) << c.name;
                    continue;
                }
                std::vector<float> want(ne0);
                for (int64_t i2 = 0; i2 < 2; i2++) {
                    for (int64_t i1 = 0; i1 < 5; i1++) {
                        const int32_t r = at<int32_t>(idx, i1, i2, 0, 0);
                        ggml_get_type_traits(t)->to_float((const uint8_t *) w->data + r * w->nb[1] + i2 * w->nb[2],
                                                          want.data(), ne0);
                        const float * got = (const float *) ((const uint8_t *) y->data + i1 * y->nb[1] + i2 * y->nb[2]);
                        ASSERT_EQ(std::memcmp(got, want.data(), ne0 * 4), 0)
                            << c.name << " " << ggml_type_name(t) << " ne0=" << ne0 << " row " << i1 << "," << i2;
                        rows++;
                    }
                }
            }
        }
    }
    EXPECT_GE(rows, 5 * 3 * 10 * 2);  // every type and row length ran on two of the three caps at least
}

// GET_ROWS of the IQ codebook types (npu/ops/get-rows-iq.h): rows of 1, 3 and 5 super-blocks
// of random bytes (every index, sign and scale byte is a valid code; d set to a finite FP16,
// IQ1_M's assembled d kept finite by clearing its exponent's top bit), against ggml's
// to_float bit for bit.
TEST_F(NpuOps, GetRowsIqMatchesGgml) {
    const ggml_type types[] = { GGML_TYPE_IQ2_XXS, GGML_TYPE_IQ2_XS, GGML_TYPE_IQ2_S, GGML_TYPE_IQ3_XXS,
                                GGML_TYPE_IQ3_S,   GGML_TYPE_IQ1_S,  GGML_TYPE_IQ1_M };
    int             rows    = 0;
    for (const Caps & c : kCaps) {
        for (ggml_type t : types) {
            const size_t bb = ggml_type_size(t);
            for (int64_t nb : { 1, 3, 5 }) {
                const int64_t ne0 = nb * 256;
                ggml_tensor * w   = ggml_new_tensor_3d(ctx, t, ne0, 6, 2);
                uint8_t *     raw = (uint8_t *) w->data;
                for (size_t i = 0; i < ggml_nbytes(w); i++) {
                    raw[i] = (uint8_t) rng();
                }
                for (size_t b = 0; b < ggml_nbytes(w) / bb; b++) {
                    if (t == GGML_TYPE_IQ1_M) {
                        raw[b * bb + 55] &= 0xbf;  // bit 14 of the FP16 d (the top of scales[3]'s nibble)
                        continue;
                    }
                    const float       v = std::ldexp(1.0f + (float) (rng() % 100) / 100.0f, -(int) (rng() % 12));
                    const ggml_fp16_t d = ggml_fp32_to_fp16(rng() % 2 ? v : -v);
                    std::memcpy(raw + b * bb, &d, 2);
                }
                ggml_tensor * idx = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 5, 2);
                for (int64_t i = 0; i < 10; i++) {
                    ((int32_t *) idx->data)[i] = (int32_t) (rng() % 6);
                }
                ggml_tensor * y = ggml_get_rows(ctx, w, idx);
                if (!run(c.caps, y)) {  // refused only when rows cannot fit this VTCM share
                    EXPECT_GT((uint64_t) ne0 * 4 * 3, (uint64_t) c.caps.vtcm_size / c.caps.n_hvx) << c.name;
                    continue;
                }
                std::vector<float> want((size_t) ne0);
                for (int64_t i2 = 0; i2 < 2; i2++) {
                    for (int64_t i1 = 0; i1 < 5; i1++) {
                        const int32_t r = at<int32_t>(idx, i1, i2, 0, 0);
                        ggml_get_type_traits(t)->to_float((const uint8_t *) w->data + r * w->nb[1] + i2 * w->nb[2],
                                                          want.data(), ne0);
                        const float * got = (const float *) ((const uint8_t *) y->data + i1 * y->nb[1] + i2 * y->nb[2]);
                        for (int64_t k = 0; k < ne0; k++) {
                            ASSERT_EQ(std::memcmp(&got[k], &want[(size_t) k], 4), 0)
                                << c.name << " " << ggml_type_name(t) << " ne0=" << ne0 << " row " << i1 << "," << i2
                                << " element " << k << ": " << got[k] << " vs " << want[(size_t) k];
                        }
                        rows++;
                    }
                }
            }
        }
    }
    EXPECT_GE(rows, 7 * 3 * 10 * 2);  // every type and row length ran on two of the three caps at least
}

// MUL_MAT with IQ4_XS weights (the flat path's mm_prep_b16<MM_B16_IQ4_XS>: IQ4_NL's codes,
// the sub-block scales d * (ls - 32) from 8-byte block headers, 16 headers a VTCM vector) for
// rows of 1, 16, 17 and 33 super-blocks (17 and 33: the headers of a row span two and three
// vectors; test-backend-ops' IQ4_XS cases stop at 16), weights quantized by ggml, against
// ggml's to_float weights times the activations in double. The kernel quantizes the
// activations to 8 bits per 32 elements (docs/mul-mat.md), so it is close, not equal: the
// NMSE of that rounding is ~1e-5; a wrong code, sub-block scale or header gives 1e-2 and more.
TEST_F(NpuOps, MulMatIq4XsMatchesGgml) {
    std::normal_distribution<float> gauss(0.0f, 1.0f);
    int                             runs = 0;
    for (const Caps & c : kCaps) {
        for (int64_t nsb : { 1, 16, 17, 33 }) {
            const int64_t      K = 256 * nsb, M = 37, N = 3;
            ggml_tensor *      w = ggml_new_tensor_2d(ctx, GGML_TYPE_IQ4_XS, K, M);
            std::vector<float> wf((size_t) (K * M));
            for (float & v : wf) {
                v = gauss(rng);
            }
            ggml_quantize_chunk(GGML_TYPE_IQ4_XS, wf.data(), w->data, 0, M, K, nullptr);
            ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, N);
            fill_f32(a, -1.0f, 1.0f);
            ggml_tensor * y = ggml_mul_mat(ctx, w, a);
            if (!run(c.caps, y)) {  // refused only by the small VTCMs (long rows do not fit)
                EXPECT_LT(c.caps.vtcm_size, 1u << 20) << c.name << " K=" << K;
                continue;
            }
            std::vector<float> wd((size_t) K);
            double             err = 0.0, ref = 0.0;
            for (int64_t i = 0; i < M; i++) {
                ggml_get_type_traits(GGML_TYPE_IQ4_XS)->to_float((const uint8_t *) w->data + i * w->nb[1], wd.data(), K);
                for (int64_t j = 0; j < N; j++) {
                    double s = 0.0;
                    for (int64_t k = 0; k < K; k++) {
                        s += (double) wd[(size_t) k] * at<float>(a, k, j, 0, 0);
                    }
                    const double d = at<float>(y, i, j, 0, 0) - s;
                    err += d * d;
                    ref += s * s;
                }
            }
            EXPECT_LT(err / ref, 1e-4) << c.name << " K=" << K;
            runs++;
        }
    }
    EXPECT_GE(runs, 6);  // every row length on v79 (its refusals fail above), the short ones on small VTCMs
}

TEST_F(NpuOps, SetRows) {
    for (const Caps & c : kCaps) {
        for (ggml_type td : { GGML_TYPE_F32, GGML_TYPE_F16 }) {
            for (ggml_type ti : { GGML_TYPE_I64, GGML_TYPE_I32 }) {
                for (int64_t ne0 : { 1, 64, 129, 1000 }) {
                    ggml_tensor * dst = ggml_new_tensor_4d(ctx, td, ne0, 20, 4, 1);
                    std::memset(dst->data, 0x11, ggml_nbytes(dst));
                    std::vector<uint8_t> before((uint8_t *) dst->data, (uint8_t *) dst->data + ggml_nbytes(dst));
                    ggml_tensor *        src = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, ne0, 6, 4, 1);
                    fill_f32(src, -100, 100);
                    ggml_tensor * idx = ggml_new_tensor_3d(ctx, ti, 6, 2, 1);
                    for (int j = 0; j < 2; j++) {
                        std::vector<int> perm(20);
                        for (int i = 0; i < 20; i++) {
                            perm[i] = i;
                        }
                        std::shuffle(perm.begin(), perm.end(), rng);
                        for (int i = 0; i < 6; i++) {
                            if (ti == GGML_TYPE_I64) {
                                at<int64_t>(idx, i, j, 0, 0) = perm[i];
                            } else {
                                at<int32_t>(idx, i, j, 0, 0) = perm[i];
                            }
                        }
                    }
                    ggml_tensor * y = ggml_set_rows(ctx, dst, src, idx);
                    ASSERT_TRUE(run(c.caps, y)) << c.name;
                    std::vector<bool> written(20 * 4, false);
                    for (int64_t i2 = 0; i2 < 4; i2++) {
                        for (int64_t i1 = 0; i1 < 6; i1++) {
                            const int64_t r = ti == GGML_TYPE_I64 ? at<int64_t>(idx, i1, i2 % 2, 0, 0) : at<int32_t>(idx, i1, i2 % 2, 0, 0);
                            written[i2 * 20 + r] = true;
                            for (int64_t i0 = 0; i0 < ne0; i0++) {
                                const float v = at<float>(src, i0, i1, i2, 0);
                                const float e = td == GGML_TYPE_F16 ? ggml_fp16_to_fp32(ggml_fp32_to_fp16(v)) : v;
                                ASSERT_EQ(get_as_f32(dst, i0, r, i2, 0), e) << c.name << " ne0=" << ne0;
                            }
                        }
                    }
                    for (int64_t k = 0; k < 80; k++) {
                        if (!written[k]) {
                            const size_t off = (size_t) k * dst->nb[1];
                            ASSERT_EQ(std::memcmp((uint8_t *) dst->data + off, before.data() + off, dst->nb[1]), 0) << "row " << k;
                        }
                    }
                }
            }
        }
    }
}

// ggml-cpu's quantize_row_q8_0 (the x86 SIMD one test-backend-ops compares with): d = amax / 127
// as fp16, q = round-half-even(x * (127 / amax)). Bit for bit, ties included.
TEST_F(NpuOps, SetRowsQ8_0) {
    for (const Caps & c : kCaps) {
        for (int64_t ne0 : { 32, 96, 2080 }) {
            ggml_tensor * dst = ggml_new_tensor_4d(ctx, GGML_TYPE_Q8_0, ne0, 9, 2, 1);
            std::memset(dst->data, 0x11, ggml_nbytes(dst));
            ggml_tensor * src = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, ne0, 4, 2, 1);
            fill_f32(src, -3, 3);
            float * x = (float *) src->data;
            for (int64_t i = 0; i < 32; i++) {  // block 0 of row 0: amax 127, halves everywhere (ties)
                x[i] = (float) (i - 16) + 0.5f;
            }
            x[0] = 127.0f;
            for (int64_t i = 32; i < 64 && i < ne0; i++) {  // block 1: all zero
                x[i] = 0.0f;
            }
            ggml_tensor * idx = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 4);
            for (int i = 0; i < 4; i++) {
                ((int32_t *) idx->data)[i] = (i * 5 + 2) % 9;
            }
            ggml_tensor * y = ggml_set_rows(ctx, dst, src, idx);
            if (!htp_find_op_encoder(y)->supports(c.caps, y, htp_encode_context())) {
                EXPECT_GT(ne0 * 4, 4096) << c.name << ": only rows too long for the tiny VTCM may be refused";
                continue;
            }
            ASSERT_TRUE(run(c.caps, y)) << c.name;
            for (int64_t i2 = 0; i2 < 2; i2++) {
                for (int64_t i1 = 0; i1 < 4; i1++) {
                    const int64_t   r  = ((int32_t *) idx->data)[i1];
                    const float *   xr = (const float *) ((const uint8_t *) src->data + i1 * src->nb[1] + i2 * src->nb[2]);
                    const uint8_t * yr = (const uint8_t *) dst->data + r * dst->nb[1] + i2 * dst->nb[2];
                    for (int64_t b = 0; b < ne0 / 32; b++) {
                        float amax = 0.0f;
                        for (int k = 0; k < 32; k++) {
                            amax = std::max(amax, std::fabs(xr[b * 32 + k]));
                        }
                        const ggml_fp16_t d  = ggml_fp32_to_fp16(amax / 127.f);
                        const float       id = amax != 0.0f ? 127.f / amax : 0.0f;
                        ggml_fp16_t       got_d;
                        std::memcpy(&got_d, yr + b * 34, 2);
                        ASSERT_EQ(got_d, d) << c.name << " ne0=" << ne0 << " block " << b;
                        for (int k = 0; k < 32; k++) {
                            const int8_t e = (int8_t) std::nearbyint(xr[b * 32 + k] * id);
                            ASSERT_EQ((int8_t) yr[b * 34 + 2 + k], e) << c.name << " ne0=" << ne0 << " block " << b << " k " << k;
                        }
                    }
                }
            }
        }
    }
}

// The quantizers of SET_ROWS (npu/ops/quantize-row.h) against ggml's own (from_float_ref: the
// quantize_row_*_ref that ggml-cpu's quantize_row_* call), bit for bit, from F32 and F16 rows:
// random blocks and blocks that test the edges: halves everywhere (rounding ties), all zero,
// a negative and a positive value of the same largest magnitude (the first one sets the
// sign), and values below IQ4_NL's 1e-15 (d = 0: there its quant bytes are not compared,
// they decode to 0 whatever they are). BF16 rows as ggml_fp32_to_bf16.
TEST_F(NpuOps, SetRowsQuantizedMatchesGgml) {
    const ggml_type types[] = { GGML_TYPE_Q4_0, GGML_TYPE_Q4_1, GGML_TYPE_Q5_0, GGML_TYPE_Q5_1,
                                GGML_TYPE_IQ4_NL, GGML_TYPE_BF16 };
    for (const Caps & c : kCaps) {
        for (ggml_type t : types) {
            for (ggml_type ts : { GGML_TYPE_F32, GGML_TYPE_F16 }) {
                for (int64_t ne0 : { 32, 96, 2080 }) {
                    ggml_tensor * dst = ggml_new_tensor_4d(ctx, t, ne0, 9, 2, 1);
                    std::memset(dst->data, 0x11, ggml_nbytes(dst));
                    ggml_tensor * src32 = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, ne0, 4, 2, 1);
                    fill_f32(src32, -3, 3);
                    float * x = (float *) src32->data;
                    for (int64_t i = 0; i < 32; i++) {  // block 0 of row 0: ties of the codes
                        x[i] = (float) (i - 16) * 0.25f + 0.125f;
                    }
                    for (int64_t i = 32; i < 64 && i < ne0; i++) {  // block 1: zero
                        x[i] = 0.0f;
                    }
                    if (ne0 >= 128) {
                        x[64 + 5]  = -4.0f;  // block 2: -4 before +4
                        x[64 + 20] = 4.0f;
                        for (int64_t i = 96; i < 128; i++) {  // block 3: below 1e-15
                            x[i] = (float) (i - 100) * 1e-17f;
                        }
                    }
                    ggml_tensor * src = src32;
                    if (ts == GGML_TYPE_F16) {
                        src = ggml_new_tensor_4d(ctx, GGML_TYPE_F16, ne0, 4, 2, 1);
                        for (int64_t i = 0; i < ggml_nelements(src); i++) {
                            ((ggml_fp16_t *) src->data)[i] = ggml_fp32_to_fp16(x[i]);
                        }
                    }
                    ggml_tensor * idx = ggml_new_tensor_1d(ctx, GGML_TYPE_I64, 4);
                    for (int i = 0; i < 4; i++) {
                        ((int64_t *) idx->data)[i] = (i * 5 + 2) % 9;
                    }
                    ggml_tensor * y = ggml_set_rows(ctx, dst, src, idx);
                    if (!htp_find_op_encoder(y)->supports(c.caps, y, htp_encode_context())) {
                        EXPECT_GT(ne0 * 4, 4096) << c.name << ": only rows too long for the tiny VTCM may be refused";
                        continue;
                    }
                    ASSERT_TRUE(run(c.caps, y)) << c.name;
                    const size_t         rs = ggml_row_size(t, ne0);
                    std::vector<float>   xr(ne0);
                    std::vector<uint8_t> want(rs);
                    for (int64_t i2 = 0; i2 < 2; i2++) {
                        for (int64_t i1 = 0; i1 < 4; i1++) {
                            for (int64_t k = 0; k < ne0; k++) {
                                const float v = x[(i2 * 4 + i1) * ne0 + k];
                                xr[k] = ts == GGML_TYPE_F16 ? ggml_fp16_to_fp32(ggml_fp32_to_fp16(v)) : v;
                            }
                            if (t == GGML_TYPE_BF16) {
                                for (int64_t k = 0; k < ne0; k++) {
                                    const ggml_bf16_t b = ggml_fp32_to_bf16(xr[k]);
                                    std::memcpy(&want[2 * k], &b, 2);
                                }
                            } else {
                                ggml_get_type_traits(t)->from_float_ref(xr.data(), want.data(), ne0);
                            }
                            const int64_t   r   = ((int64_t *) idx->data)[i1];
                            const uint8_t * got = (const uint8_t *) dst->data + r * dst->nb[1] + i2 * dst->nb[2];
                            const size_t    bb  = ggml_type_size(t);
                            for (size_t b = 0; b < rs / bb; b++) {
                                float amax = 0.0f;
                                for (int k = 0; k < 32 && t != GGML_TYPE_BF16; k++) {
                                    amax = std::max(amax, std::fabs(xr[b * 32 + k]));
                                }
                                // IQ4_NL's d = 0 block: only d (its first 2 bytes) is defined
                                const size_t n = t == GGML_TYPE_IQ4_NL && amax < 1e-15f ? 2 : bb;
                                ASSERT_EQ(std::memcmp(got + b * bb, want.data() + b * bb, n), 0)
                                    << c.name << " " << ggml_type_name(t) << " from " << ggml_type_name(ts)
                                    << " ne0=" << ne0 << " row " << i1 << "," << i2 << " block " << b;
                            }
                        }
                    }
                }
            }
        }
    }
}

// FLASH_ATTN_EXT streams K / V in the chunks and through the slots split says: the host plans
// 64-row chunks in 2 slots; the same op run with 16-row chunks in 1 slot and 32-row chunks
// in 2 slots (both fit the planned layout) gives the same attention (chunking changes the
// online softmax's rounding only) and leaves no DMA unpopped (run_with checks).
TEST_F(NpuOps, FlashAttnFollowsSplitChunksAndBuffers) {
    const Caps &  c = kCaps[0];
    ggml_tensor * q = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 64, 3, 4, 1);
    ggml_tensor * k = ggml_new_tensor_4d(ctx, GGML_TYPE_F16, 64, 150, 2, 1);
    ggml_tensor * v = ggml_new_tensor_4d(ctx, GGML_TYPE_F16, 64, 150, 2, 1);
    fill_f32(q, -1, 1);
    std::uniform_real_distribution<float> d(-1, 1);
    for (ggml_tensor * t : { k, v }) {
        for (int64_t i = 0; i < ggml_nelements(t); i++) {
            ((ggml_fp16_t *) t->data)[i] = ggml_fp32_to_fp16(d(rng));
        }
    }
    ggml_tensor * y = ggml_flash_attn_ext(ctx, q, k, v, nullptr, 0.125f, 0.0f, 0.0f);
    std::vector<const ggml_tensor *> srcs = { q, k, v };
    const htp_op_encoder *           enc  = htp_find_op_encoder(y);
    ASSERT_TRUE(run_with(c.caps, enc, y, srcs)) << c.name;
    const std::vector<float> want((const float *) y->data, (const float *) y->data + ggml_nelements(y));
    // The planned run against attention in double (dst is [dv, head, q row]; q head h reads
    // K/V head h / 2): chunks of 64, 64 and 22 rows, so also a chunk of fewer than 32.
    for (int64_t h = 0; h < 4; h++) {
        for (int64_t i = 0; i < 3; i++) {
            std::vector<double> sc(150);
            double              mx = -INFINITY, sum = 0;
            for (int64_t j = 0; j < 150; j++) {
                double dot = 0;
                for (int64_t e = 0; e < 64; e++) {
                    dot += (double) at<float>(q, e, i, h, 0) * ggml_fp16_to_fp32(at<ggml_fp16_t>(k, e, j, h / 2, 0));
                }
                sc[j] = dot * 0.125;
                mx    = std::max(mx, sc[j]);
            }
            for (int64_t j = 0; j < 150; j++) {
                sc[j] = std::exp(sc[j] - mx);
                sum += sc[j];
            }
            for (int64_t e = 0; e < 64; e++) {
                double o = 0;
                for (int64_t j = 0; j < 150; j++) {
                    o += sc[j] * ggml_fp16_to_fp32(at<ggml_fp16_t>(v, e, j, h / 2, 0));
                }
                ASSERT_NEAR(at<float>(y, e, h, i, 0), o / sum, 1e-4) << "head " << h << " row " << i << " elem " << e;
            }
        }
    }
    for (uint32_t rpc : { 16u, 32u }) {
        const uint32_t n_bufs = rpc == 16 ? 1 : 2;
        std::memset(y->data, 0, ggml_nbytes(y));
        ASSERT_TRUE(run_with(c.caps, enc, y, srcs, [&](htp_kernel_params & kp) {
            EXPECT_EQ(kp.flash_attn.split.rows_per_chunk, 64u);
            EXPECT_EQ(kp.flash_attn.split.n_bufs, 2u);
            kp.flash_attn.split.rows_per_chunk = rpc;
            kp.flash_attn.split.n_bufs         = n_bufs;
            kp.flash_attn.n_kv_chunks          = (kp.flash_attn.n_kv + rpc - 1) / rpc;
        }));
        const float * got = (const float *) y->data;
        for (size_t i = 0; i < want.size(); i++) {
            ASSERT_NEAR(got[i], want[i], 1e-5f * (1.0f + std::fabs(want[i]))) << "rows_per_chunk " << rpc << " at " << i;
        }
    }
}

}  // namespace

// SET_ROWS into quantized row types against ggml's own quantizer (from_float_ref, the
// quantize_row_*_ref of ggml-quants.c), every byte: rows of 1, 3 and 9 super-blocks of 256
// (for the K-quants: a group of 4 left partly empty, two groups and a tail) from F32 and F16
// sources, 3 rows of 2 planes scattered by I32 indices; edge(b, sb) rewrites super-block sb
// (256 values at b) of the random source. Returns the rows compared.
class NpuQuantRows : public NpuOps {
  protected:
    int set_rows_match_ggml(const std::vector<ggml_type> & types, const std::function<void(float *, int64_t)> & edge) {
        int rows = 0;
        for (const Caps & c : kCaps) {
            for (ggml_type t : types) {
                for (ggml_type ts : { GGML_TYPE_F32, GGML_TYPE_F16 }) {
                    for (int64_t ne0 : { 256, 768, 2304 }) {
                        rows += set_rows_case(c, t, ts, ne0, edge);
                        if (HasFatalFailure()) {
                            return rows;
                        }
                    }
                }
            }
        }
        return rows;
    }

    int set_rows_case(const Caps & c, ggml_type t, ggml_type ts, int64_t ne0, const std::function<void(float *, int64_t)> & edge) {
        ggml_tensor * dst = ggml_new_tensor_4d(ctx, t, ne0, 7, 2, 1);
        std::memset(dst->data, 0x11, ggml_nbytes(dst));
        ggml_tensor * src32 = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, ne0, 3, 2, 1);
        fill_f32(src32, -3, 3);
        float * x = (float *) src32->data;
        for (int64_t sb = 0; sb < ggml_nelements(src32) / 256; sb++) {
            edge(x + 256 * sb, sb);
        }
        ggml_tensor * src = src32;
        if (ts == GGML_TYPE_F16) {
            src = ggml_new_tensor_4d(ctx, GGML_TYPE_F16, ne0, 3, 2, 1);
            for (int64_t i = 0; i < ggml_nelements(src); i++) {
                ((ggml_fp16_t *) src->data)[i] = ggml_fp32_to_fp16(x[i]);
            }
        }
        ggml_tensor * idx = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 3);
        for (int i = 0; i < 3; i++) {
            ((int32_t *) idx->data)[i] = (i * 3 + 1) % 7;
        }
        ggml_tensor * y = ggml_set_rows(ctx, dst, src, idx);
        if (!htp_find_op_encoder(y)->supports(c.caps, y, htp_encode_context())) {
            EXPECT_LT(c.caps.vtcm_size, 1u << 20) << c.name << ": only a small VTCM may refuse";
            return 0;
        }
        EXPECT_TRUE(run(c.caps, y)) << c.name;
        const size_t         rs = ggml_row_size(t, ne0), bb = ggml_type_size(t);
        std::vector<float>   xr(ne0);
        std::vector<uint8_t> want(rs);
        int                  rows = 0;
        for (int64_t i2 = 0; i2 < 2; i2++) {
            for (int64_t i1 = 0; i1 < 3; i1++) {
                for (int64_t k = 0; k < ne0; k++) {
                    const float v = x[(i2 * 3 + i1) * ne0 + k];
                    xr[k] = ts == GGML_TYPE_F16 ? ggml_fp16_to_fp32(ggml_fp32_to_fp16(v)) : v;
                }
                ggml_get_type_traits(t)->from_float_ref(xr.data(), want.data(), ne0);
                const int64_t   r   = ((int32_t *) idx->data)[i1];
                const uint8_t * got = (const uint8_t *) dst->data + r * dst->nb[1] + i2 * dst->nb[2];
                for (size_t b = 0; b < rs / bb; b++) {
                    if (std::memcmp(got + b * bb, want.data() + b * bb, bb) != 0) {
                        ADD_FAILURE() << c.name << " " << ggml_type_name(t) << " from " << ggml_type_name(ts) << " ne0=" << ne0
                                      << " row " << i1 << "," << i2 << " block " << b;
                        return rows;
                    }
                }
                rows++;
            }
        }
        return rows;
    }
};

// The K-quant quantizers of SET_ROWS (npu/ops/quantize-kquants.h) and Q1_0 / Q2_0's
// (npu/ops/quantize-row.h) against ggml's quantize_row_{q2_K..q6_K,iq4_xs,q1_0,q2_0}_ref:
// random super-blocks and edge ones: all zero, one large value among small ones, negative
// only, halves of quarters (rounding ties), values below 1e-15 (Q6_K's zero block), -2 .. 2
// (Q2_0's ties x / d = +-0.5) then one value alone.
TEST_F(NpuQuantRows, SetRowsKQuantsMatchGgml) {
    const int rows = set_rows_match_ggml(
        { GGML_TYPE_Q2_K, GGML_TYPE_Q3_K, GGML_TYPE_Q4_K, GGML_TYPE_Q5_K, GGML_TYPE_Q6_K, GGML_TYPE_IQ4_XS,
          GGML_TYPE_Q1_0, GGML_TYPE_Q2_0 },
        [](float * b, int64_t sb) {
            switch (sb % 7) {
                case 0: for (int i = 0; i < 256; i++) { b[i] = 0.0f; } break;
                case 1: for (int i = 0; i < 256; i++) { b[i] *= 0.01f; } b[37] = 1000.0f; break;
                case 2: for (int i = 0; i < 256; i++) { b[i] = -std::fabs(b[i]); } break;
                case 3: for (int i = 0; i < 256; i++) { b[i] = (float) (i % 32 - 16) * 0.25f + 0.125f; } break;
                case 4: for (int i = 0; i < 256; i++) { b[i] *= 1e-17f; } break;
                case 5: for (int i = 0; i < 256; i++) { b[i] = i < 128 ? (float) (i % 5 - 2) : i == 200 ? -2.5f : 0.0f; } break;
                default: break;  // random
            }
        });
    EXPECT_GE(rows, 8 * 2 * 3 * 6);  // every type, source and length on the large VTCM at least
}

// The FP4 and ternary quantizers (npu/ops/quantize-fp4.h, npu/ops/quantize-ternary.h) against
// ggml's quantize_row_{mxfp4,nvfp4,tq1_0,tq2_0}_ref. Edge super-blocks besides the random ones:
// all zero; one large value among small ones; negative only; values below 1e-15; -2 .. 2 with
// max 2 (the ternary codes' ties x / d = +-0.5); per block of 32 a max |x| a few floats below
// a power of two (MXFP4's exponent: log2f rounds up to the integer there, within a distance that
// grows with the exponent) among smaller values; E2M1 ties: per block of 32 the midpoints
// between the grid values of its scale, both signs, the grid values, +-0; per group of 16 a
// max of 6.375 * 2^s, whose max / 6 = 1.0625 * 2^s is a UE4M3 rounding tie (s = -10 .. 9: the
// scales' subnormals and the clamp at 448 too).
TEST_F(NpuQuantRows, SetRowsFp4TernaryMatchGgml) {
    std::mt19937 gen(7);
    int          boundary = 0;
    const auto   edge     = [&](float * b, int64_t sb) {
        std::uniform_real_distribution<float> u(-0.9f, 0.9f);
        switch (sb % 9) {
            case 0: for (int i = 0; i < 256; i++) { b[i] = 0.0f; } break;
            case 1: for (int i = 0; i < 256; i++) { b[i] *= 0.01f; } b[37] = 1000.0f; break;
            case 2: for (int i = 0; i < 256; i++) { b[i] = -std::fabs(b[i]); } break;
            case 3: for (int i = 0; i < 256; i++) { b[i] *= 1e-17f; } break;
            case 4: for (int i = 0; i < 256; i++) { b[i] = (float) (i % 5 - 2); } break;
            case 5:  // 2^n less j floats, n and j stepping through lists
                for (int blk = 0; blk < 8; blk++, boundary++) {
                    static const int kN[] = { 3, 4, 5, 8, 9, 12, 15, -2, -3, -4, -8, -9, -14, 0, 1, 2 };  // F16 keeps them finite
                    static const int kJ[] = { 1, 2, 3, 5, 6, 11, 12, 22, 23, 44, 45 };
                    const int n = kN[boundary % 16], j = kJ[boundary / 16 % 11];
                    float     amax = std::ldexp(1.0f, n);
                    for (int k = 0; k < j; k++) {
                        amax = std::nextafter(amax, 0.0f);
                    }
                    for (int i = 0; i < 32; i++) {
                        b[32 * blk + i] = u(gen) * std::ldexp(1.0f, n);
                    }
                    b[32 * blk + (blk * 7) % 32] = blk % 2 ? -amax : amax;
                }
                break;
            case 6:  // MXFP4 with max 5 * 2^s: d = 2^(s - 1), grid v * d, v in 0 1 2 3 4 6 8 12
                for (int blk = 0; blk < 8; blk++) {
                    static const float kT[16] = { 0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f, 0.5f,
                                                  1.0f,  1.5f,  2.0f,  3.0f,  4.0f, 0.0f, 0.1f, 2.2f };
                    const int s = blk + (int) (sb % 5) * 3 - 8;
                    for (int i = 0; i < 32; i++) {
                        const float v  = std::ldexp(kT[i % 16], s);
                        b[32 * blk + i] = i < 16 ? v : -v;
                    }
                }
                break;
            case 7:
                for (int g = 0; g < 16; g++) {
                    const int s = (int) ((g + sb) % 20) - 10;
                    for (int i = 0; i < 16; i++) {
                        b[16 * g + i] = u(gen) * std::ldexp(6.0f, s);
                    }
                    b[16 * g + g] = std::ldexp(g % 2 ? -6.375f : 6.375f, s);
                }
                break;
            default: break;  // random
        }
    };
    const std::vector<ggml_type> types = { GGML_TYPE_MXFP4, GGML_TYPE_NVFP4, GGML_TYPE_TQ2_0, GGML_TYPE_TQ1_0 };
    const int                    rows  = set_rows_match_ggml(types, edge);
    EXPECT_GE(rows, (int) types.size() * 2 * 3 * 6);  // every type, source and length on the large VTCM at least
    EXPECT_GE(boundary, 16 * 11);  // every (n, j) pair of the boundary list ran
}

// CPY with each side in its own shape (htp_cpy_params dst_shape): both sides strided, as a
// permuted src [ne0, 2, 3, 4] (0, 3, 1, 2) into a permuted dst (0, 2, 1, 3) of the same rows
// in another order of dims, for F32, F16, Q4_0, Q6_K and MXFP4 (rows of 17 / 51 bytes: the
// byte unit); and a reshaped block copy of contiguous Q4_0 [32, 3, 5, 7] into [32, 7, 5, 3].
// Row r of src in its shape must land as row r of dst in its shape, every byte.
TEST_F(NpuOps, CpyWalksEachSideInItsOwnShape) {
    struct Case {
        ggml_type t;
        int64_t   ne0;
        bool      reshape;
    };
    const Case cases[] = { { GGML_TYPE_F32, 8, false },   { GGML_TYPE_F16, 40, false }, { GGML_TYPE_Q4_0, 64, false },
                           { GGML_TYPE_Q6_K, 256, false }, { GGML_TYPE_MXFP4, 32, false }, { GGML_TYPE_MXFP4, 96, false },
                           { GGML_TYPE_Q4_0, 32, true } };
    int        checked = 0;
    for (const Caps & c : kCaps) {
        for (const Case & k : cases) {
            ggml_tensor * s0 = k.reshape ? ggml_new_tensor_4d(ctx, k.t, k.ne0, 3, 5, 7) : ggml_new_tensor_4d(ctx, k.t, k.ne0, 2, 3, 4);
            for (size_t i = 0; i < ggml_nbytes(s0); i++) {
                ((uint8_t *) s0->data)[i] = (uint8_t) (rng() & 0x3f);  // bytes that are finite F16 / F32 values too
            }
            ggml_tensor * s = k.reshape ? s0 : ggml_permute(ctx, s0, 0, 3, 1, 2);
            ggml_tensor * d = k.reshape ? ggml_new_tensor_4d(ctx, k.t, k.ne0, 7, 5, 3)
                                        : ggml_permute(ctx, ggml_new_tensor(ctx, k.t, 4, s->ne), 0, 2, 1, 3);
            std::memset(d->data, 0x55, ggml_nbytes(d));
            ggml_tensor * y = ggml_cpy(ctx, s, d);
            ASSERT_TRUE(run(c.caps, y)) << c.name << " " << ggml_type_name(k.t) << " ne0=" << k.ne0;
            const size_t rb = ggml_row_size(k.t, k.ne0);
            for (int64_t r = 0; r < ggml_nrows(s); r++) {
                const auto      row = [&](const ggml_tensor * t) {
                    const int64_t i1 = r % t->ne[1], i2 = r / t->ne[1] % t->ne[2], i3 = r / t->ne[1] / t->ne[2];
                    return (const uint8_t *) t->data + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3];
                };
                ASSERT_EQ(std::memcmp(row(d), row(s), rb), 0) << c.name << " " << ggml_type_name(k.t) << " ne0=" << k.ne0 << " row " << r;
            }
            checked++;
        }
    }
    EXPECT_EQ(checked, 3 * 7);
}

// CPY of a transposed row longer than a thread's VTCM share (the 16 KiB VTCM: 6000 F32 values
// gathered at a stride of 8 bytes, 24 KB a row and as much again in the dst slot) runs in
// segments of a divisor of the row (host/ops/cpy.cpp cpy_plan_walk); every value must land.
TEST_F(NpuOps, CpyCutsLongRowsIntoSegments) {
    for (const Caps & c : kCaps) {
        ggml_tensor * s0 = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 2, 6000, 1, 1);
        fill_f32(s0, -1, 1);
        ggml_tensor * s = ggml_permute(ctx, s0, 1, 0, 2, 3);  // [6000, 2], nb0 = 8
        ggml_tensor * y = ggml_cont(ctx, s);
        std::memset(y->data, 0, ggml_nbytes(y));
        ASSERT_TRUE(run(c.caps, y)) << c.name;
        for (int64_t i1 = 0; i1 < 2; i1++) {
            for (int64_t i0 = 0; i0 < 6000; i0++) {
                ASSERT_EQ(at<float>(y, i0, i1, 0, 0), at<float>(s0, i1, i0, 0, 0)) << c.name << " at " << i0 << "," << i1;
            }
        }
    }
}
