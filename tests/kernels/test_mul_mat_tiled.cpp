// MUL_MAT_TILED (tiled weights, HVX path) end to end on the device-API TEST DOUBLE: ggml
// quantizes random weights, htp-repack tiles them, the host hooks plan and encode, the NPU
// kernel runs, and the result is compared with a double-precision product of ggml's own
// dequantized weights and the F32 activations (NMSE, as test-backend-ops judges MUL_MAT).
// Shapes cover 1, 2 and odd numbers of activation rows, partial last column tiles,
// broadcasting over planes, K split into chunks (small VTCM) and 16-bit DMA fields.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <vector>

#include "device-api-double.h"
#include "ggml.h"
#include "mul-mat/mul-mat-paths.h"
#include "op-context.h"
#include "htp-repack/repack.h"

int htp_op_mul_mat_tiled(struct htp_op_context * octx);

namespace {

constexpr uint64_t kWindow    = 192ull << 20;
constexpr uint32_t kVtcmBase  = 4096;
constexpr uint64_t kArenaBase = 16ull << 20;
constexpr uint64_t kArenaSize = 160ull << 20;

uint8_t * window_base() {
    return test_double::window(kWindow);
}

dma_addr_t dev(const void * p) {
    return (dma_addr_t) ((const uint8_t *) p - window_base());
}

htp_tensor tensor_of(const ggml_tensor * t, dma_addr_t data) {
    htp_tensor d = {};
    d.data       = data;
    d.type       = t->type;
    for (int i = 0; i < 4; i++) {
        d.ne[i] = (uint32_t) t->ne[i];
        d.nb[i] = (uint32_t) t->nb[i];
    }
    return d;
}

struct Case {
    ggml_type type;
    int64_t   K, N, M;           // weight K x N, M activation rows
    int64_t   w2, w3, a2, a3;    // planes (broadcast a2 / w2, a3 / w3)
};

class MulMatTiled : public ::testing::Test {
  protected:
    ggml_context * ctx = nullptr;
    std::mt19937   rng{ 4321 };
    htp_mul_mat_tiled_params last{};  // params of the last case run
    double         worst = 0;         // largest NMSE seen
    double         last_ns = 0;       // CPU time of the last kernel run (test double: one thread runs all)

    void SetUp() override {
        ggml_init_params ip = { kArenaSize, window_base() + kArenaBase, false };
        ctx                 = ggml_init(ip);
    }

    void TearDown() override { ggml_free(ctx); }

    // Returns false when the plan refuses the case; else runs it and checks the result.
    bool run_case(const htp_device_caps & caps, const Case & c, double * nmse_out) {
        std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
        ggml_tensor * w = ggml_new_tensor_4d(ctx, c.type, c.K, c.N, c.w2, c.w3);
        ggml_tensor * a = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, c.K, c.M, c.a2, c.a3);
        ggml_tensor * d = ggml_mul_mat(ctx, w, a);
        const int64_t n_wrows = c.N * c.w2 * c.w3;
        std::vector<float> wf((size_t) (c.K * n_wrows));
        for (float & x : wf) {
            x = dist(rng);
        }
        ggml_quantize_chunk(c.type, wf.data(), w->data, 0, n_wrows, c.K, nullptr);
        for (int64_t i = 0; i < ggml_nelements(a); i++) {
            ((float *) a->data)[i] = dist(rng);
        }
        // ggml's dequantized weights: the reference multiplies these.
        const ggml_type_traits * tt = ggml_get_type_traits(c.type);
        std::vector<float>       wd((size_t) (c.K * n_wrows));
        tt->to_float(w->data, wd.data(), c.K * n_wrows);

        // Tiled copy: one tiled matrix per plane, planes back to back.
        htp_tiled_weight tw;
        tw.format      = (uint32_t) c.type;
        tw.k_cols      = htp_tile_k_cols((enum htp_type) c.type);
        tw.n_k_tiles   = (uint32_t) (c.K / tw.k_cols);
        tw.n_col_tiles = (uint32_t) ((c.N + 31) / 32);
        tw.tile_bytes  = htp_tile_size((enum htp_type) c.type);
        tw.plane_bytes = htp_tiled_matrix_size((enum htp_type) c.type, c.K, c.N);
        tw.nb2         = tw.plane_bytes;
        tw.nb3         = tw.plane_bytes * (uint64_t) c.w2;
        tw.data_offset = 0;
        ggml_tensor * tiled = ggml_new_tensor_1d(ctx, GGML_TYPE_I8, (int64_t) (tw.plane_bytes * c.w2 * c.w3));
        for (int64_t p = 0; p < c.w2 * c.w3; p++) {
            EXPECT_TRUE(htp_repack_rows((enum htp_type) c.type, (uint8_t *) tiled->data + p * tw.plane_bytes,
                                        (const uint8_t *) w->data + p * w->nb[2], c.K, c.N, 0, c.N));
        }
        if (!mm_tiled_hvx_plan(caps, d, tw)) {
            return false;
        }
        htp_op_desc desc;
        std::memset(&desc, 0, sizeof(desc));
        mm_tiled_hvx_encode(caps, d, tw, desc);
        last = desc.params.mul_mat_tiled;
        EXPECT_EQ(desc.opcode, (uint32_t) HTP_OP_MUL_MAT_TILED);
        const htp_split_params & sp = desc.params.split;
        EXPECT_GE(sp.n_threads, 1u);
        EXPECT_LE(sp.n_threads, caps.n_hvx);
        EXPECT_GE(sp.n_bufs, 2u);
        EXPECT_LE(sp.n_bufs, 16u);

        std::memset(d->data, 0xff, ggml_nbytes(d));  // NaN: every output must be written
        htp_context hc;
        std::memset(&hc, 0, sizeof(hc));
        hc.vtcm_base = kVtcmBase;
        hc.vtcm_size = caps.vtcm_size;
        hc.n_hvx     = caps.n_hvx;
        std::memset(window_base() + kVtcmBase, 0x7f, caps.vtcm_size);  // stale VTCM
        for (uint32_t i = 0; i < HTP_MAX_HVX_THREADS; i++) {
            hc.dma[i]          = test_double::new_queue();
            hc.trace[i].thread = (uint8_t) i;
        }
        htp_op_context octx;
        std::memset(&octx, 0, sizeof(octx));
        octx.ctx    = &hc;
        octx.opcode = desc.opcode;
        octx.n_src  = 2;
        octx.params = &desc.params;
        octx.dst    = tensor_of(d, dev(d->data));
        octx.src[0] = tensor_of(w, dev(tiled->data));
        octx.src[1] = tensor_of(a, dev(a->data));
        test_double::g_dma_field_bits = caps.dma_field_bits;
        test_double::g_fault          = 0;
        timespec t0, t1;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
        EXPECT_EQ(htp_op_mul_mat_tiled(&octx), HTP_STATUS_OK);
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
        last_ns = (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);
        EXPECT_EQ(test_double::g_fault, 0);
        for (uint32_t i = 0; i < HTP_MAX_HVX_THREADS; i++) {
            EXPECT_EQ(test_double::queue_depth(hc.dma[i]), 0u) << "thread " << i << " left DMA transfers unpopped";
            test_double::delete_queue(hc.dma[i]);
        }

        double err = 0, ref2 = 0;
        for (int64_t i3 = 0; i3 < c.a3; i3++) {
            for (int64_t i2 = 0; i2 < c.a2; i2++) {
                const int64_t wp = (i3 / (c.a3 / c.w3)) * c.w2 + i2 / (c.a2 / c.w2);
                for (int64_t i1 = 0; i1 < c.M; i1++) {
                    const float * ar = (const float *) ((const char *) a->data + i1 * a->nb[1] + i2 * a->nb[2] + i3 * a->nb[3]);
                    for (int64_t i0 = 0; i0 < c.N; i0++) {
                        const float * wr  = wd.data() + (wp * c.N + i0) * c.K;
                        double        ref = 0;
                        for (int64_t k = 0; k < c.K; k++) {
                            ref += (double) wr[k] * ar[k];
                        }
                        const float out = *(const float *) ((const char *) d->data + i0 * 4 + i1 * d->nb[1] + i2 * d->nb[2] +
                                                            i3 * d->nb[3]);
                        err += (out - ref) * (out - ref);
                        ref2 += ref * ref;
                    }
                }
            }
        }
        const double nmse = err / ref2;
        *nmse_out         = nmse;
        worst             = std::max(worst, nmse);
        EXPECT_LT(nmse, 5e-4) << ggml_type_name(c.type) << " K=" << c.K << " N=" << c.N << " M=" << c.M << " planes "
                              << c.w2 << "x" << c.w3 << " / " << c.a2 << "x" << c.a3;
        return true;
    }
};

const ggml_type kTypes[] = { GGML_TYPE_Q8_0, GGML_TYPE_Q4_0, GGML_TYPE_Q4_1, GGML_TYPE_Q4_K, GGML_TYPE_Q5_K,
                             GGML_TYPE_Q6_K, GGML_TYPE_Q3_K, GGML_TYPE_Q2_K, GGML_TYPE_Q2_0, GGML_TYPE_Q1_0,
                             GGML_TYPE_MXFP4, GGML_TYPE_Q5_0, GGML_TYPE_Q5_1, GGML_TYPE_IQ4_NL };

bool is_kquant(ggml_type t) {
    return t == GGML_TYPE_Q4_K || t == GGML_TYPE_Q5_K || t == GGML_TYPE_Q6_K || t == GGML_TYPE_Q3_K || t == GGML_TYPE_Q2_K;
}

TEST_F(MulMatTiled, Formats) {
    const htp_device_caps v79   = { 79, 4, 8u << 20, 24 };
    const htp_device_caps small = { 73, 3, 160u << 10, 16 };  // K split into chunks, 16-bit fields
    for (ggml_type t : kTypes) {
        const int64_t K   = is_kquant(t) ? 512 : 256;
        const Case    cases[] = {
            { t, K, 96, 1, 1, 1, 1, 1 },   { t, K, 70, 2, 1, 1, 1, 1 },  { t, K, 33, 5, 1, 1, 1, 1 },
            { t, 2 * K, 64, 3, 2, 1, 4, 1 }, { t, K, 40, 1, 1, 2, 2, 2 },
        };
        for (const Case & c : cases) {
            for (const htp_device_caps & caps : { v79, small }) {
                double nmse = 0;
                EXPECT_TRUE(run_case(caps, c, &nmse)) << ggml_type_name(t) << " refused K=" << c.K << " N=" << c.N << " M=" << c.M << " vtcm=" << caps.vtcm_size;
                ggml_free(ctx);
                ggml_init_params ip = { kArenaSize, window_base() + kArenaBase, false };
                ctx                 = ggml_init(ip);
            }
        }
        std::printf("%-6s worst NMSE %.3g\n", ggml_type_name(t), worst);
        worst = 0;
    }
}

// A large K with tiny VTCM: the column tile's K tiles arrive in several chunks.
TEST_F(MulMatTiled, KChunks) {
    const htp_device_caps tiny = { 73, 1, 90u << 10, 16 };
    for (ggml_type t : { GGML_TYPE_Q8_0, GGML_TYPE_Q4_K, GGML_TYPE_Q6_K, GGML_TYPE_Q2_K, GGML_TYPE_Q5_0 }) {
        const Case c    = { t, 1024, 64, 1, 1, 1, 1, 1 };
        double     nmse = 0;
        htp_device_caps caps = tiny;
        if (t == GGML_TYPE_Q2_K) {  // smaller tiles: less VTCM for the same split
            caps.vtcm_size = 70u << 10;
        }
        EXPECT_TRUE(run_case(caps, c, &nmse)) << ggml_type_name(t) << " refused";
        EXPECT_GT(last.n_kchunks, 1u) << ggml_type_name(t);
    }
}

// Many activation rows (GGML_HEXAGON_MM_SELECT=hvx sends every shape here): several passes.
TEST_F(MulMatTiled, ManyRows) {
    const htp_device_caps v79  = { 79, 4, 8u << 20, 24 };
    const Case            c    = { GGML_TYPE_Q4_K, 256, 64, 70, 1, 1, 1, 1 };
    double                nmse = 0;
    EXPECT_TRUE(run_case(v79, c, &nmse));
    EXPECT_LT(last.act_rows_per_pass, 70u);
    EXPECT_EQ(last.act_private, 0u);
}

}  // namespace

// Not a test: CPU nanoseconds per tile of the kernel for the default model's shapes
// (--gtest_also_run_disabled_tests --gtest_filter='*Bench*').
TEST_F(MulMatTiled, DISABLED_Bench) {
    const htp_device_caps v79 = { 79, 1, 8u << 20, 24 };
    const Case cases[] = { { GGML_TYPE_Q8_0, 640, 8192, 1, 1, 1, 1, 1 }, { GGML_TYPE_Q4_K, 2048, 640, 1, 1, 1, 1, 1 },
                           { GGML_TYPE_Q6_K, 2048, 640, 1, 1, 1, 1, 1 }, { GGML_TYPE_Q4_0, 640, 2048, 1, 1, 1, 1, 1 },
                           { GGML_TYPE_Q8_0, 640, 8192, 2, 1, 1, 1, 1 } };
    for (const Case & c : cases) {
        double nmse = 0;
        EXPECT_TRUE(run_case(v79, c, &nmse));
        const double tiles = (double) (c.K / 32) * ((c.N + 31) / 32);
        std::printf("%-6s K=%lld N=%lld M=%lld: %.1f ns per tile\n", ggml_type_name(c.type), (long long) c.K,
                    (long long) c.N, (long long) c.M, last_ns / tiles);
    }
}
