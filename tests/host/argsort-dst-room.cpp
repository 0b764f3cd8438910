// An ARGSORT row longer than a thread's VTCM share is merged through DDR right after its dst
// (npu/ops/argsort.cpp argsort_runs), which the device buffer type reserves (get_alloc_size,
// host/src/buffer.cpp) through ggml's public API, as any ggml program sees it: a 16 KiB VTCM
// share (GGML_HEXAGON_VTCM_SIZE=98304 over 6 threads) makes a 4097-key row such a row. In a
// device buffer the node gets the room and sorts right (both orders); in the host buffer type
// (no room after it) the graph fails with a status and one error line.
// usage: argsort-dst-room BIN_DIR    (exit 0: all checks passed)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml.h"

namespace {

int         failures = 0;
std::string errors;  // what the backend logged at error level

void capture_log(ggml_log_level level, const char * text, void *) {
    if (level == GGML_LOG_LEVEL_ERROR) {
        errors += text;
    }
    fputs(text, stderr);
}

void check(bool ok, const std::string & what) {
    printf("%s: %s\n", ok ? "ok" : "FAIL", what.c_str());
    failures += ok ? 0 : 1;
}

constexpr int64_t kNe0 = 4097, kRows = 3;

// Sorts kRows rows of distinct shuffled values in buffers of buft; returns the graph's status,
// and in `right` whether every row came out as the sorted order of its values.
ggml_status sort_rows(ggml_backend_t backend, ggml_backend_buffer_type_t buft, ggml_sort_order order, bool & right) {
    ggml_init_params p   = { 8 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true };
    ggml_context *   ctx = ggml_init(p);
    ggml_tensor *    a   = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, kNe0, kRows);
    ggml_tensor *    y   = ggml_argsort(ctx, a, order);
    ggml_cgraph *    gf  = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, y);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors_from_buft(ctx, buft);
    std::vector<float>    x(kNe0 * kRows);
    std::mt19937          rng(7);
    for (int64_t r = 0; r < kRows; r++) {
        std::iota(x.begin() + r * kNe0, x.begin() + (r + 1) * kNe0, -2000.0f);
        std::shuffle(x.begin() + r * kNe0, x.begin() + (r + 1) * kNe0, rng);
    }
    ggml_backend_tensor_set(a, x.data(), 0, x.size() * sizeof(float));
    std::vector<int32_t> got(kNe0 * kRows, -1);
    ggml_backend_tensor_set(y, got.data(), 0, got.size() * sizeof(int32_t));
    const ggml_status st = ggml_backend_graph_compute(backend, gf);
    ggml_backend_tensor_get(y, got.data(), 0, got.size() * sizeof(int32_t));
    right = true;
    for (int64_t r = 0; r < kRows; r++) {
        for (int64_t j = 0; j < kNe0; j++) {  // the values are -2000 .. 2096, each once
            const int32_t i    = got[r * kNe0 + j];
            const float   want = order == GGML_SORT_ORDER_ASC ? -2000.0f + j : 2096.0f - j;
            right              = right && i >= 0 && i < kNe0 && x[r * kNe0 + i] == want;
        }
    }
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
    return st;
}

}  // namespace

int main(int argc, char ** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s BIN_DIR\n", argv[0]);
        return 2;
    }
    setenv("GGML_HEXAGON_NHVX", "6", 1);
    setenv("GGML_HEXAGON_VTCM_SIZE", "98304", 1);
    setenv("GGML_HEXAGON_HOSTBUF", "1", 1);
    ggml_log_set(capture_log, nullptr);
    ggml_backend_load_all_from_path(argv[1]);
    ggml_backend_dev_t dev = ggml_backend_dev_by_name("HTP0");
    if (!dev) {
        printf("FAIL: no HTP0 device\n");
        return 1;
    }
    ggml_backend_t backend = ggml_backend_dev_init(dev, nullptr);
    check(backend != nullptr, "HTP0 backend initialised");
    if (!backend) {
        return 1;
    }
    for (ggml_sort_order order : { GGML_SORT_ORDER_ASC, GGML_SORT_ORDER_DESC }) {
        bool right = false;
        check(sort_rows(backend, ggml_backend_dev_buffer_type(dev), order, right) == GGML_STATUS_SUCCESS && right,
              std::string("rows of 4097 keys sort right in a device buffer, ") + (order ? "descending" : "ascending"));
    }
    ggml_backend_buffer_type_t host = ggml_backend_dev_host_buffer_type(dev);
    check(host != nullptr, "HTP0 offers its host buffer type");
    if (host) {
        bool right = false;
        check(sort_rows(backend, host, GGML_SORT_ORDER_ASC, right) == GGML_STATUS_FAILED,
              "in the host buffer type (no room after the dst) the graph fails with a status");
        const size_t at = errors.find("ggml-hexagon: HTP0: cannot run ARGSORT");
        check(at != std::string::npos && errors.find("no room", at) != std::string::npos &&
                  std::count(errors.begin(), errors.end(), '\n') == 1,
              "one error line names the op and the missing room");
    }
    ggml_backend_free(backend);
    printf("%s\n", failures ? "FAIL" : "PASS");
    return failures ? 1 : 0;
}
