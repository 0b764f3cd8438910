// Repacking in the real HTP device buffer (host/src/weight-repack.cpp), all fourteen formats:
// set_tensor on a weights buffer stores exactly the tiles htp_repack_rows makes, get_tensor
// returns the flat bytes (lossless formats: the input; lossy: unrepack(repack(input))), and
// partial writes / reads at any byte offsets (whole rows, partial rows, stacked matrices) give
// the same bytes as one whole write. The backend is loaded with GGML_HEXAGON_REPACK=1.
#include <dlfcn.h>

#include <cstdlib>

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "repack-test-util.h"

namespace {

ggml_backend_reg_t backend_reg() {
    static ggml_backend_reg_t reg = [] {
        setenv("GGML_HEXAGON_REPACK", "1", 1);
        void * h = dlopen(HTP_BACKEND_LIB, RTLD_NOW | RTLD_LOCAL);
        EXPECT_NE(h, nullptr) << dlerror();
        if (!h) {
            return (ggml_backend_reg_t) nullptr;
        }
        auto init = (ggml_backend_reg_t (*)()) dlsym(h, "ggml_backend_init");
        return init ? init() : nullptr;
    }();
    return reg;
}

struct weights {
    ggml_context *        ctx = nullptr;
    ggml_backend_buffer_t buf = nullptr;
    ggml_tensor *         t   = nullptr;
    weights(ggml_type type, int64_t ne0, int64_t ne1, int64_t ne2, ggml_backend_buffer_usage usage) {
        ggml_init_params ip = { 4 * ggml_tensor_overhead(), nullptr, true };
        ctx                 = ggml_init(ip);
        t                   = ggml_new_tensor_3d(ctx, type, ne0, ne1, ne2);
        ggml_backend_dev_t dev = ggml_backend_reg_dev_get(backend_reg(), 0);
        buf = ggml_backend_alloc_ctx_tensors_from_buft(ctx, ggml_backend_dev_buffer_type(dev));
        if (buf) {
            ggml_backend_buffer_set_usage(buf, usage);
        }
    }
    ~weights() {
        ggml_backend_buffer_free(buf);
        ggml_free(ctx);
    }
    const uint8_t * raw() const { return (const uint8_t *) t->data; }  // device buffers are host-mapped
};

class RepackBuffer : public ::testing::TestWithParam<rt::type_case> {};

TEST_P(RepackBuffer, SetGetTiledBytes) {
    const rt::type_case tc = GetParam();
    ASSERT_NE(backend_reg(), nullptr);
    const int64_t ne0 = 2 * rt::k_step(tc), ne1 = 40, ne2 = 2;
    std::mt19937  rng(7);
    const std::vector<float>   x    = rt::random_weights(rng, ne0 * ne1 * ne2);
    const std::vector<uint8_t> flat = rt::quantize(tc.gtype, x, ne0, ne1 * ne2);
    const size_t               n    = flat.size();
    const size_t               mat  = htp_tiled_matrix_size(tc.htype, ne0, ne1);

    std::vector<uint8_t> tiled(mat * ne2, 0);
    ASSERT_TRUE(htp_repack_rows_stacked(tc.htype, tiled.data(), flat.data(), ne0, ne1, 0, ne1 * ne2));
    std::vector<uint8_t> expect(n);
    ASSERT_TRUE(htp_unrepack_rows_stacked(tc.htype, expect.data(), tiled.data(), ne0, ne1, 0, ne1 * ne2));
    if (htp_repack_lossless(tc.htype)) {
        ASSERT_EQ(expect, flat);
    }

    weights w(tc.gtype, ne0, ne1, ne2, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    ASSERT_NE(w.buf, nullptr);
    EXPECT_GE(ggml_backend_buffer_get_size(w.buf), mat * ne2);
    ggml_backend_tensor_set(w.t, flat.data(), 0, n);
    EXPECT_EQ(0, memcmp(w.raw(), tiled.data(), mat * ne2)) << tc.name << ": stored bytes are not the tiles";
    std::vector<uint8_t> got(n);
    ggml_backend_tensor_get(w.t, got.data(), 0, n);
    EXPECT_EQ(got, expect) << tc.name;

    // Partial reads at odd offsets.
    const size_t R = ggml_row_size(tc.gtype, ne0);
    for (size_t off : { (size_t) 0, (size_t) 3, R - 1, R, 5 * R + 7, n - 9 }) {
        const size_t         len = std::min(n - off, 2 * R + 5);
        std::vector<uint8_t> part(len);
        ggml_backend_tensor_get(w.t, part.data(), off, len);
        EXPECT_EQ(0, memcmp(part.data(), expect.data() + off, len)) << tc.name << " read at " << off;
    }

    // The same bytes written in pieces: partial rows, whole rows, across the matrix boundary.
    weights w2(tc.gtype, ne0, ne1, ne2, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    std::uniform_int_distribution<size_t> piece(1, 3 * R);
    for (size_t off = 0; off < n;) {
        const size_t len = std::min(n - off, piece(rng));
        ggml_backend_tensor_set(w2.t, flat.data() + off, off, len);
        off += len;
    }
    std::vector<uint8_t> got2(n);
    ggml_backend_tensor_get(w2.t, got2.data(), 0, n);
    EXPECT_EQ(got2, expect) << tc.name << " (piecewise writes)";
    if (htp_repack_lossless(tc.htype)) {
        EXPECT_EQ(0, memcmp(w2.raw(), tiled.data(), mat * ne2)) << tc.name << " (piecewise writes)";
    }

    // memset turns the tensor flat: the bytes read back are the bytes set.
    ggml_backend_tensor_memset(w2.t, 0, R, R);
    std::vector<uint8_t> got3(n);
    ggml_backend_tensor_get(w2.t, got3.data(), 0, n);
    std::vector<uint8_t> expect3 = got2;
    memset(expect3.data() + R, 0, R);
    EXPECT_EQ(got3, expect3) << tc.name << " (memset)";
}

// A buffer that is not a weights buffer keeps flat bytes (GGML_HEXAGON_REPACK=1).
TEST_P(RepackBuffer, ComputeBufferStaysFlat) {
    const rt::type_case tc = GetParam();
    ASSERT_NE(backend_reg(), nullptr);
    const int64_t ne0 = rt::k_step(tc), ne1 = 33;
    std::mt19937  rng(8);
    const std::vector<uint8_t> flat = rt::quantize(tc.gtype, rt::random_weights(rng, ne0 * ne1), ne0, ne1);
    weights w(tc.gtype, ne0, ne1, 1, GGML_BACKEND_BUFFER_USAGE_ANY);
    ASSERT_NE(w.buf, nullptr);
    ggml_backend_tensor_set(w.t, flat.data(), 0, flat.size());
    EXPECT_EQ(0, memcmp(w.raw(), flat.data(), flat.size()));
}

INSTANTIATE_TEST_SUITE_P(AllFormats, RepackBuffer, ::testing::ValuesIn(rt::all_types()),
                         [](const ::testing::TestParamInfo<rt::type_case> & i) { return std::string(i.param.name); });

}  // namespace
