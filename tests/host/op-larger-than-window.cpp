// An op whose buffers cannot fit the session window's budget at once (GGML_HEXAGON_VMEM=64 and
// an 80 MiB weight) through ggml's public API, as any ggml program sees it: the graph fails
// with a status (the backend logs the one-line reason), nothing crashes, the device stays
// registered and the next graph on the same backend computes the right result.
// usage: op-larger-than-window BIN_DIR    (exit 0: all checks passed)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml.h"

namespace {

int failures = 0;
std::string errors;  // what the backend logged at error level

void capture_log(ggml_log_level level, const char * text, void *) {
    if (level == GGML_LOG_LEVEL_ERROR) {
        errors += text;
    }
    fputs(text, stderr);
}

void check(bool ok, const char * what) {
    printf("%s: %s\n", ok ? "ok" : "FAIL", what);
    failures += ok ? 0 : 1;
}

ggml_context * new_context() {
    ggml_init_params p = { 16 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true };
    return ggml_init(p);
}

}  // namespace

int main(int argc, char ** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s BIN_DIR\n", argv[0]);
        return 2;
    }
    setenv("GGML_HEXAGON_VMEM", "64", 1);
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
    ggml_backend_buffer_type_t buft = ggml_backend_dev_buffer_type(dev);

    // 1. An 80 MiB weight times a vector: more than the 64 MiB budget by itself.
    {
        ggml_context * w_ctx = new_context();
        ggml_tensor *  w     = ggml_new_tensor_2d(w_ctx, GGML_TYPE_F32, 4096, 5120);
        ggml_set_name(w, "big_weight");
        ggml_backend_buffer_t w_buf = ggml_backend_alloc_ctx_tensors_from_buft(w_ctx, buft);
        check(w_buf != nullptr, "80 MiB weight buffer allocated (device memory is not the window)");
        ggml_backend_buffer_set_usage(w_buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
        ggml_backend_buffer_clear(w_buf, 0);

        ggml_context * ctx = new_context();
        ggml_tensor *  x   = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4096);
        ggml_tensor *  y   = ggml_mul_mat(ctx, w, x);
        ggml_cgraph *  gf  = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, y);
        check(ggml_backend_supports_op(backend, y), "HTP0 supports the MUL_MAT");
        ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors_from_buft(ctx, buft);
        std::vector<float> ones(4096, 1.0f);
        ggml_backend_tensor_set(x, ones.data(), 0, ones.size() * sizeof(float));
        const ggml_status st = ggml_backend_graph_compute(backend, gf);
        check(st == GGML_STATUS_FAILED, "the graph whose op needs more than the budget fails with a status");
        const size_t at = errors.find("ggml-hexagon: HTP0: op MUL_MAT ");
        check(at != std::string::npos && errors.find("'big_weight' in a 80.0 MiB weights buffer", at) != std::string::npos &&
                  errors.find("window budget of 64.0 MiB", at) != std::string::npos,
              "one error line names the op, the weight and its size, and the budget");
        errors.clear();
        ggml_backend_buffer_free(buf);
        ggml_free(ctx);
        ggml_backend_buffer_free(w_buf);
        ggml_free(w_ctx);
    }

    // 2. The same device and backend run the next graph.
    {
        check(ggml_backend_dev_by_name("HTP0") == dev, "HTP0 still registered");
        ggml_context * ctx = new_context();
        ggml_tensor *  a   = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1024);
        ggml_tensor *  b   = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1024);
        ggml_tensor *  c   = ggml_add(ctx, a, b);
        ggml_cgraph *  gf  = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, c);
        ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors_from_buft(ctx, buft);
        std::vector<float> va(1024), vb(1024), vc(1024, -1.0f);
        for (int i = 0; i < 1024; i++) {
            va[i] = (float) i;
            vb[i] = 0.5f * (float) i;
        }
        ggml_backend_tensor_set(a, va.data(), 0, sizeof(float) * 1024);
        ggml_backend_tensor_set(b, vb.data(), 0, sizeof(float) * 1024);
        check(ggml_backend_graph_compute(backend, gf) == GGML_STATUS_SUCCESS, "the next graph computes");
        ggml_backend_tensor_get(c, vc.data(), 0, sizeof(float) * 1024);
        bool same = true;
        for (int i = 0; i < 1024; i++) {
            same = same && vc[i] == 1.5f * (float) i;
        }
        check(same, "and its result is right");
        ggml_backend_buffer_free(buf);
        ggml_free(ctx);
    }
    ggml_backend_free(backend);
    printf("%s\n", failures ? "FAIL" : "PASS");
    return failures ? 1 : 0;
}
