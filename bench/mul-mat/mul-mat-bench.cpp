// MUL_MAT throughput of one weight type at one shape: ggml's CPU backend against an HTP device
// with flat weights and with repacked (tiled) weights. A graph of one MUL_MAT
// (W [k, m] of the type x A [k, n] F32 -> [m, n] F32) is run once to warm up, then repeated
// until --min-time seconds and --min-runs runs have passed; GFLOPS = 2 m n k / time per run.
// Each HTP result is also compared with the CPU's (NMSE), so a row is only as good as its
// numbers are right. One tab-separated line per backend/layout on stdout:
//
//   type  n  m  k  backend  layout  gflops  us_per_run  runs  nmse
//
// layout: "flat" (device buffer of usage ANY: ggml's own layout with GGML_HEXAGON_REPACK=1),
// "tiled" (usage WEIGHTS: repacked at set_tensor when the type has a tiled format); for the
// CPU "<T>t", T threads. The CPU runs with 1 thread and with all host cores: on a loaded
// machine ggml's spinning thread pool can be many times slower with more threads, so the
// reference for NMSE (and for bench/mul-mat.sh's ratio) is the faster of the two.
// A case that cannot run prints "unsupported" / "error" in the gflops column.
// bench/mul-mat.sh runs it per type and shape and makes docs/bench-mul-mat.md.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml.h"

namespace {

struct options {
    std::string type = "q4_0";
    int64_t     n = 1, m = 2048, k = 2048;
    std::string device    = "HTP0";
    double      min_time  = 1.0;  // seconds of timed runs per case
    int         min_runs  = 2;
    int         max_runs  = 1000;
    int         cpu_threads = 0;  // 0: 1 and all host cores
    bool        flat = true, tiled = true;
};

struct result {
    bool        ok = false;
    std::string why;  // when !ok
    double      us_per_run = 0;
    int         runs       = 0;
    std::vector<float> out;
};

// A W type by its ggml name ("q4_K", "f16", ...).
bool type_by_name(const std::string & name, ggml_type & t) {
    for (int i = 0; i < GGML_TYPE_COUNT; i++) {
        const char * n = ggml_type_name((ggml_type) i);
        if (n && name == n && ggml_type_size((ggml_type) i) > 0) {
            t = (ggml_type) i;
            return true;
        }
    }
    return false;
}

// Runs the case on `backend`; W lives in its own buffer so its usage can be WEIGHTS.
result run_case(ggml_backend_t backend, ggml_backend_dev_t dev, ggml_type wt, const std::vector<uint8_t> & w_bytes,
                const std::vector<float> & a_data, const options & o, bool weights_usage) {
    result r;
    const size_t         ctx_bytes = 8 * ggml_tensor_overhead() + ggml_graph_overhead();
    ggml_init_params     ip        = { ctx_bytes, nullptr, true };
    ggml_context *       cw        = ggml_init(ip);
    ggml_context *       cg        = ggml_init(ip);
    ggml_tensor *        w         = ggml_new_tensor_2d(cw, wt, o.k, o.m);
    ggml_tensor *        a         = ggml_new_tensor_2d(cg, GGML_TYPE_F32, o.k, o.n);
    ggml_tensor *        out       = ggml_mul_mat(cg, w, a);
    ggml_cgraph *        gf        = ggml_new_graph(cg);
    ggml_build_forward_expand(gf, out);
    ggml_backend_buffer_t bw = nullptr, bg = nullptr;

    if (!ggml_backend_dev_supports_op(dev, out)) {
        r.why = "unsupported";
    } else if (!(bw = ggml_backend_alloc_ctx_tensors(cw, backend)) || !(bg = ggml_backend_alloc_ctx_tensors(cg, backend))) {
        r.why = "error";
        fprintf(stderr, "%s: cannot allocate buffers\n", ggml_backend_name(backend));
    } else {
        if (weights_usage) {
            ggml_backend_buffer_set_usage(bw, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
        }
        ggml_backend_tensor_set(w, w_bytes.data(), 0, w_bytes.size());
        ggml_backend_tensor_set(a, a_data.data(), 0, a_data.size() * sizeof(float));
        const auto run = [&]() {
            const ggml_status st = ggml_backend_graph_compute(backend, gf);
            ggml_backend_synchronize(backend);
            return st == GGML_STATUS_SUCCESS;
        };
        if (!run()) {  // warm-up (first-touch of buffers, device-side setup)
            r.why = "error";
        } else {
            using clock   = std::chrono::steady_clock;
            const auto t0 = clock::now();
            double     el = 0;
            bool       ok = true;
            while (ok && r.runs < o.max_runs && (el < o.min_time || r.runs < o.min_runs)) {
                ok = run();
                r.runs++;
                el = std::chrono::duration<double>(clock::now() - t0).count();
            }
            if (!ok) {
                r.why = "error";
            } else {
                r.ok         = true;
                r.us_per_run = el * 1e6 / r.runs;
                r.out.resize((size_t) ggml_nelements(out));
                ggml_backend_tensor_get(out, r.out.data(), 0, r.out.size() * sizeof(float));
            }
        }
    }
    if (bg) {
        ggml_backend_buffer_free(bg);
    }
    if (bw) {
        ggml_backend_buffer_free(bw);
    }
    ggml_free(cg);
    ggml_free(cw);
    return r;
}

double nmse(const std::vector<float> & x, const std::vector<float> & ref) {
    double e = 0, s = 0;
    for (size_t i = 0; i < ref.size(); i++) {
        const double d = (double) x[i] - ref[i];
        e += d * d;
        s += (double) ref[i] * ref[i];
    }
    return s > 0 ? e / s : e;
}

void print_row(const options & o, const char * backend, const char * layout, const result & r, const result * ref) {
    printf("%s\t%lld\t%lld\t%lld\t%s\t%s\t", o.type.c_str(), (long long) o.n, (long long) o.m, (long long) o.k, backend,
           layout);
    if (!r.ok) {
        printf("%s\t-\t-\t-\n", r.why.c_str());
    } else {
        const double gflops = 2.0 * (double) o.m * (double) o.n * (double) o.k / (r.us_per_run * 1e3);
        printf("%.4f\t%.1f\t%d\t", gflops, r.us_per_run, r.runs);
        if (ref && ref->ok) {
            printf("%.3g\n", nmse(r.out, ref->out));
        } else {
            printf("-\n");
        }
    }
    fflush(stdout);
}

void usage(const char * argv0) {
    printf("usage: %s [--type T] [-n N] [-m M] [-k K] [--device HTP0] [--min-time S] [--min-runs R]\n"
           "          [--max-runs R] [--cpu-threads T] [--layouts flat,tiled]\n",
           argv0);
}

// A bad argument is one line on stderr and exit 2 (--help prints the usage).
[[noreturn]] void bad_argument(const char * argv0, const char * what, const std::string & arg) {
    fprintf(stderr, "%s: %s '%s' (see --help)\n", argv0, what, arg.c_str());
    exit(2);
}

// The command line's options (--help: the usage, exit 0; a bad one: one line, exit 2).
options parse_options(int argc, char ** argv) {
    options o;
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        if (a == "-h" || a == "--help") {
            usage(argv[0]);
            exit(0);
        }
        if (i + 1 >= argc) {
            bad_argument(argv[0], "missing value or unknown option", a);
        }
        const char * v = argv[++i];
        if (a == "--type") {
            o.type = v;
        } else if (a == "-n") {
            o.n = atoll(v);
        } else if (a == "-m") {
            o.m = atoll(v);
        } else if (a == "-k") {
            o.k = atoll(v);
        } else if (a == "--device") {
            o.device = v;
        } else if (a == "--min-time") {
            o.min_time = atof(v);
        } else if (a == "--min-runs") {
            o.min_runs = atoi(v);
        } else if (a == "--max-runs") {
            o.max_runs = atoi(v);
        } else if (a == "--cpu-threads") {
            o.cpu_threads = atoi(v);
        } else if (a == "--layouts") {
            const std::string l = v;
            o.flat  = l.find("flat") != std::string::npos;
            o.tiled = l.find("tiled") != std::string::npos;
        } else {
            bad_argument(argv[0], "unknown option", a);
        }
    }
    return o;
}

}  // namespace

int main(int argc, char ** argv) {
    const options o = parse_options(argc, argv);
    ggml_type wt;
    if (!type_by_name(o.type, wt) || o.n <= 0 || o.m <= 0 || o.k <= 0 || o.k % ggml_blck_size(wt) != 0) {
        fprintf(stderr, "bad type or shape: %s m=%lld k=%lld n=%lld\n", o.type.c_str(), (long long) o.m,
                (long long) o.k, (long long) o.n);
        return 2;
    }

    ggml_backend_load_all();
    ggml_backend_dev_t cpu_dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    ggml_backend_dev_t htp_dev = ggml_backend_dev_by_name(o.device.c_str());
    if (!cpu_dev || !htp_dev) {
        fprintf(stderr, "no %s device (CPU %s, %s %s)\n", cpu_dev ? o.device.c_str() : "CPU", cpu_dev ? "ok" : "missing",
                o.device.c_str(), htp_dev ? "ok" : "missing");
        return 1;
    }
    ggml_backend_t cpu = ggml_backend_dev_init(cpu_dev, nullptr);
    ggml_backend_t htp = ggml_backend_dev_init(htp_dev, nullptr);
    if (!cpu || !htp) {
        fprintf(stderr, "cannot initialize the backends\n");
        return 1;
    }
    const int          cores   = (int) std::max(1u, std::thread::hardware_concurrency());
    std::vector<int>   threads = o.cpu_threads > 0 ? std::vector<int>{ o.cpu_threads } : std::vector<int>{ 1, cores };
    threads.erase(std::unique(threads.begin(), threads.end()), threads.end());
    ggml_backend_reg_t cpu_reg = ggml_backend_dev_backend_reg(cpu_dev);
    auto set_threads = (ggml_backend_set_n_threads_t) ggml_backend_reg_get_proc_address(cpu_reg, "ggml_backend_set_n_threads");
    if (!set_threads) {
        threads = { -1 };  // the backend's default
    }

    // Random W (quantized with ggml's reference quantizer) and A, the same for every backend.
    std::mt19937                          rng(1234);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float>                    wf((size_t) (o.m * o.k)), af((size_t) (o.k * o.n));
    for (float & x : wf) {
        x = dist(rng);
    }
    for (float & x : af) {
        x = dist(rng);
    }
    std::vector<uint8_t> wb(ggml_row_size(wt, o.k) * (size_t) o.m);
    ggml_quantize_init(wt);
    ggml_quantize_chunk(wt, wf.data(), wb.data(), 0, o.m, o.k, nullptr);

    result rc;
    for (int nt : threads) {
        if (nt > 0) {
            set_threads(cpu, nt);
        }
        result r = run_case(cpu, cpu_dev, wt, wb, af, o, false);
        print_row(o, "CPU", nt > 0 ? (std::to_string(nt) + "t").c_str() : "-", r, nullptr);
        if (r.ok && (!rc.ok || r.us_per_run < rc.us_per_run)) {
            rc = std::move(r);
        }
    }
    if (o.flat) {
        print_row(o, o.device.c_str(), "flat", run_case(htp, htp_dev, wt, wb, af, o, false), &rc);
    }
    if (o.tiled) {
        print_row(o, o.device.c_str(), "tiled", run_case(htp, htp_dev, wt, wb, af, o, true), &rc);
    }
    ggml_backend_free(htp);
    ggml_backend_free(cpu);
    return 0;
}
