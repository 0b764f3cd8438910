// Time per run of one ADD (F32, a [ne0, ne1] + b of the same shape) on an HTP device, after a
// warm-up run, repeated until --min-time seconds and --min-runs runs; the result is compared
// with a scalar sum (max abs error). One tab-separated line on stdout:
//
//   device  ne0  ne1  us_per_run  runs  max_abs_err
//
// Run it per device, e.g. GGML_HEXAGON_DEVICES='HTP0[0-3]' add-bench --ne0 1048576, against
// GGML_HEXAGON_DEVICES=HTP0 (docs/multi-device.md "Element partition"). Not a test.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml.h"

int main(int argc, char ** argv) {
    int64_t     ne0 = 1 << 20, ne1 = 1;
    std::string device   = "HTP0";
    double      min_time = 1.0;
    int         min_runs = 3;
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        if (a == "-h" || a == "--help") {
            printf("usage: %s [--ne0 N] [--ne1 N] [--device HTP0] [--min-time S] [--min-runs R]\n", argv[0]);
            return 0;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "%s: missing value or unknown option '%s' (see --help)\n", argv[0], a.c_str());
            return 2;
        }
        const char * v = argv[++i];
        if (a == "--ne0") {
            ne0 = atoll(v);
        } else if (a == "--ne1") {
            ne1 = atoll(v);
        } else if (a == "--device") {
            device = v;
        } else if (a == "--min-time") {
            min_time = atof(v);
        } else if (a == "--min-runs") {
            min_runs = atoi(v);
        } else {
            fprintf(stderr, "%s: unknown option '%s' (see --help)\n", argv[0], a.c_str());
            return 2;
        }
    }
    if (ne0 <= 0 || ne1 <= 0) {
        fprintf(stderr, "%s: bad shape %lld x %lld\n", argv[0], (long long) ne0, (long long) ne1);
        return 2;
    }
    ggml_backend_load_all();
    ggml_backend_dev_t dev = ggml_backend_dev_by_name(device.c_str());
    ggml_backend_t     be  = dev ? ggml_backend_dev_init(dev, nullptr) : nullptr;
    if (!be) {
        fprintf(stderr, "%s: no device %s\n", argv[0], device.c_str());
        return 1;
    }
    ggml_init_params ip  = { 4 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true };
    ggml_context *   ctx = ggml_init(ip);
    ggml_tensor *    a   = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, ne0, ne1);
    ggml_tensor *    b   = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, ne0, ne1);
    ggml_tensor *    y   = ggml_add(ctx, a, b);
    ggml_cgraph *    gf  = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, y);
    if (!ggml_backend_dev_supports_op(dev, y)) {
        printf("%s\t%lld\t%lld\tunsupported\t-\t-\n", device.c_str(), (long long) ne0, (long long) ne1);
        return 0;
    }
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, be);
    if (!buf) {
        fprintf(stderr, "%s: cannot allocate buffers\n", argv[0]);
        return 1;
    }
    const size_t          n = (size_t) (ne0 * ne1);
    std::vector<float>    av(n), bv(n), yv(n);
    std::mt19937          rng(7);
    std::uniform_real_distribution<float> d(-1, 1);
    for (size_t i = 0; i < n; i++) {
        av[i] = d(rng);
        bv[i] = d(rng);
    }
    ggml_backend_tensor_set(a, av.data(), 0, n * 4);
    ggml_backend_tensor_set(b, bv.data(), 0, n * 4);
    auto run = [&] { return ggml_backend_graph_compute(be, gf) == GGML_STATUS_SUCCESS; };
    if (!run()) {
        fprintf(stderr, "%s: the op failed\n", argv[0]);
        return 1;
    }
    using clock   = std::chrono::steady_clock;
    const auto t0 = clock::now();
    int        runs = 0;
    double     el   = 0;
    while (el < min_time || runs < min_runs) {
        if (!run()) {
            fprintf(stderr, "%s: the op failed\n", argv[0]);
            return 1;
        }
        runs++;
        el = std::chrono::duration<double>(clock::now() - t0).count();
    }
    ggml_backend_tensor_get(y, yv.data(), 0, n * 4);
    double err = 0;
    for (size_t i = 0; i < n; i++) {
        err = std::fmax(err, std::fabs((double) yv[i] - ((double) av[i] + bv[i])));
    }
    printf("%s\t%lld\t%lld\t%.1f\t%d\t%.3g\n", device.c_str(), (long long) ne0, (long long) ne1, el * 1e6 / runs, runs,
           err);
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
    ggml_backend_free(be);
    return 0;
}
