// Micro-benchmark of the HVX host emulation: each intrinsic of the hot families (multiply,
// logic, shift, arithmetic, and the float ops the kernels use) streamed over an L1-resident
// buffer, against the same lane semantics written as a scalar per-lane loop (not vectorised).
// Prints ns per 128-byte vector for both and the speed-up. Not a test: numbers only.
//   hvx-micro [iterations]      (default 20000 passes over 64 vectors)
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include "htp/hvx.h"

namespace {

constexpr int kVecs = 64;  // 8 KiB per operand buffer: stays in L1

alignas(128) uint8_t g_a[kVecs][128], g_b[kVecs][128], g_out[kVecs][256];

template <typename T> T * lanes(uint8_t * p) { return reinterpret_cast<T *>(p); }

double now_ns() {
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <typename F> double time_per_vector(F f, int iters) {
    f();  // warm up
    const double t0 = now_ns();
    for (int it = 0; it < iters; it++) {
        f();
        // keep every pass: the buffers escape into the asm, so no compiler may assume it leaves
        // them alone (clang did for the internal-linkage arrays and dropped the loops)
        asm volatile("" : : "r"(g_a), "r"(g_b), "r"(g_out) : "memory");
    }
    return (now_ns() - t0) / ((double) iters * kVecs);
}

#if defined(__clang__)
// clang has no optimize attribute; the target has -fno-vectorize -fno-slp-vectorize instead
// (bench/hvx-micro/CMakeLists.txt), which only this file's baselines care about.
#    define NOVEC __attribute__((noinline))
#else
#    define NOVEC __attribute__((noinline, optimize("no-tree-vectorize")))
#endif

// --- scalar per-lane baselines (the ISA's lane semantics, one lane at a time)
NOVEC void s_vmpyi_h() {
    for (int v = 0; v < kVecs; v++)
        for (int i = 0; i < 64; i++)
            lanes<int16_t>(g_out[v])[i] = (int16_t) (lanes<int16_t>(g_a[v])[i] * lanes<int16_t>(g_b[v])[i]);
}
NOVEC void s_vmpy_hh_w() {
    for (int v = 0; v < kVecs; v++)
        for (int i = 0; i < 32; i++) {
            lanes<int32_t>(g_out[v])[i]      = lanes<int16_t>(g_a[v])[2 * i] * lanes<int16_t>(g_b[v])[2 * i];
            lanes<int32_t>(g_out[v])[32 + i] = lanes<int16_t>(g_a[v])[2 * i + 1] * lanes<int16_t>(g_b[v])[2 * i + 1];
        }
}
NOVEC void s_vand() {
    for (int v = 0; v < kVecs; v++)
        for (int i = 0; i < 32; i++) lanes<uint32_t>(g_out[v])[i] = lanes<uint32_t>(g_a[v])[i] & lanes<uint32_t>(g_b[v])[i];
}
NOVEC void s_vxor() {
    for (int v = 0; v < kVecs; v++)
        for (int i = 0; i < 32; i++) lanes<uint32_t>(g_out[v])[i] = lanes<uint32_t>(g_a[v])[i] ^ lanes<uint32_t>(g_b[v])[i];
}
NOVEC void s_vasr_w(int r) {
    for (int v = 0; v < kVecs; v++)
        for (int i = 0; i < 32; i++) lanes<int32_t>(g_out[v])[i] = lanes<int32_t>(g_a[v])[i] >> (r & 31);
}
NOVEC void s_vlsr_uh(int r) {
    for (int v = 0; v < kVecs; v++)
        for (int i = 0; i < 64; i++) lanes<uint16_t>(g_out[v])[i] = (uint16_t) (lanes<uint16_t>(g_a[v])[i] >> (r & 15));
}
NOVEC void s_vror(int r) {
    for (int v = 0; v < kVecs; v++)
        for (int i = 0; i < 128; i++) g_out[v][i] = g_a[v][(i + r) & 127];
}
NOVEC void s_vadd_h() {
    for (int v = 0; v < kVecs; v++)
        for (int i = 0; i < 64; i++)
            lanes<int16_t>(g_out[v])[i] = (int16_t) (lanes<int16_t>(g_a[v])[i] + lanes<int16_t>(g_b[v])[i]);
}
NOVEC void s_vadd_w_sat() {
    for (int v = 0; v < kVecs; v++)
        for (int i = 0; i < 32; i++) {
            const int64_t s = (int64_t) lanes<int32_t>(g_a[v])[i] + lanes<int32_t>(g_b[v])[i];
            lanes<int32_t>(g_out[v])[i] = (int32_t) (s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s);
        }
}
NOVEC void s_vmax_w() {
    for (int v = 0; v < kVecs; v++)
        for (int i = 0; i < 32; i++) {
            const int32_t x = lanes<int32_t>(g_a[v])[i], y = lanes<int32_t>(g_b[v])[i];
            lanes<int32_t>(g_out[v])[i] = x > y ? x : y;
        }
}
NOVEC void s_vadd_sf() {
    for (int v = 0; v < kVecs; v++)
        for (int i = 0; i < 32; i++) {
            float r = lanes<float>(g_a[v])[i] + lanes<float>(g_b[v])[i];
            if (r != r) {
                uint32_t d = 0x7fffffff;
                std::memcpy(&r, &d, 4);
            }
            lanes<float>(g_out[v])[i] = r;
        }
}
NOVEC void s_vmpy_sf() {
    for (int v = 0; v < kVecs; v++)
        for (int i = 0; i < 32; i++) {
            float r = lanes<float>(g_a[v])[i] * lanes<float>(g_b[v])[i];
            if (r != r) {
                uint32_t d = 0x7fffffff;
                std::memcpy(&r, &d, 4);
            }
            lanes<float>(g_out[v])[i] = r;
        }
}
NOVEC void s_cvt_sf_hf() {
    for (int v = 0; v < kVecs; v++)
        for (int i = 0; i < 64; i++) {
            const float f = hvx_emu_f16_to_f32(lanes<uint16_t>(g_a[v])[i]);
            lanes<float>(g_out[v])[(i & 1) * 32 + i / 2] = f;
        }
}
NOVEC void s_cvt_hf_sf() {
    for (int v = 0; v < kVecs; v++)
        for (int i = 0; i < 32; i++) {
            lanes<uint16_t>(g_out[v])[2 * i]     = hvx_emu_f32_to_f16(lanes<float>(g_a[v])[i]);
            lanes<uint16_t>(g_out[v])[2 * i + 1] = hvx_emu_f32_to_f16(lanes<float>(g_b[v])[i]);
        }
}

// --- the emulation
#define EMU2(F) [] { for (int v = 0; v < kVecs; v++) *(HVX_Vector *) g_out[v] = F(*(HVX_Vector *) g_a[v], *(HVX_Vector *) g_b[v]); }
#define EMU2W(F) [] { for (int v = 0; v < kVecs; v++) *(HVX_VectorPair *) g_out[v] = F(*(HVX_Vector *) g_a[v], *(HVX_Vector *) g_b[v]); }
#define EMUR(F, R) [] { for (int v = 0; v < kVecs; v++) *(HVX_Vector *) g_out[v] = F(*(HVX_Vector *) g_a[v], R); }

struct Row {
    const char * family;
    const char * name;
    double       emu, scalar;
};

}  // namespace

int main(int argc, char ** argv) {
    if (argc > 1 && (!std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help"))) {
        printf("usage: %s [iterations]   (default 20000 passes over 64 vectors): ns per vector, emulated\n"
               "       HVX intrinsics against a scalar per-lane loop (docs/hvx-microbench.md)\n",
               argv[0]);
        return 0;
    }
    char * end = nullptr;
    if (argc > 2 || (argc == 2 && (std::strtol(argv[1], &end, 10) <= 0 || *end))) {
        fprintf(stderr, "%s: expected one positive iteration count, got '%s' (see --help)\n", argv[0],
                argc > 2 ? argv[2] : argv[1]);
        return 2;
    }
    const int    iters = argc > 1 ? std::atoi(argv[1]) : 20000;
    std::mt19937 rng(1);
    for (int v = 0; v < kVecs; v++) {
        for (int i = 0; i < 32; i++) {  // finite floats in [2^-8, 2^8): no NaN slow paths
            const uint32_t fa = (rng() & 0x807fffffu) | ((119u + rng() % 16) << 23);
            const uint32_t fb = (rng() & 0x807fffffu) | ((119u + rng() % 16) << 23);
            std::memcpy(g_a[v] + 4 * i, &fa, 4);
            std::memcpy(g_b[v] + 4 * i, &fb, 4);
        }
    }
    static volatile int shift = 5, rot64 = 64, rot4 = 4;  // a whole-chunk and a byte-level rotation
    const Row rows[] = {
        { "multiply", "Q6_Vh_vmpyi_VhVh", time_per_vector(EMU2(Q6_Vh_vmpyi_VhVh), iters), time_per_vector(s_vmpyi_h, iters) },
        { "multiply", "Q6_Ww_vmpy_VhVh", time_per_vector(EMU2W(Q6_Ww_vmpy_VhVh), iters), time_per_vector(s_vmpy_hh_w, iters) },
        { "logic", "Q6_V_vand_VV", time_per_vector(EMU2(Q6_V_vand_VV), iters), time_per_vector(s_vand, iters) },
        { "logic", "Q6_V_vxor_VV", time_per_vector(EMU2(Q6_V_vxor_VV), iters), time_per_vector(s_vxor, iters) },
        { "shift", "Q6_Vw_vasr_VwR", time_per_vector(EMUR(Q6_Vw_vasr_VwR, shift), iters),
          time_per_vector([] { s_vasr_w(shift); }, iters) },
        { "shift", "Q6_Vuh_vlsr_VuhR", time_per_vector(EMUR(Q6_Vuh_vlsr_VuhR, shift), iters),
          time_per_vector([] { s_vlsr_uh(shift); }, iters) },
        { "permute", "Q6_V_vror_VR (64)", time_per_vector(EMUR(Q6_V_vror_VR, rot64), iters),
          time_per_vector([] { s_vror(rot64); }, iters) },
        { "permute", "Q6_V_vror_VR (4)", time_per_vector(EMUR(Q6_V_vror_VR, rot4), iters),
          time_per_vector([] { s_vror(rot4); }, iters) },
        { "arithmetic", "Q6_Vh_vadd_VhVh", time_per_vector(EMU2(Q6_Vh_vadd_VhVh), iters), time_per_vector(s_vadd_h, iters) },
        { "arithmetic", "Q6_Vw_vadd_VwVw_sat", time_per_vector(EMU2(Q6_Vw_vadd_VwVw_sat), iters),
          time_per_vector(s_vadd_w_sat, iters) },
        { "arithmetic", "Q6_Vw_vmax_VwVw", time_per_vector(EMU2(Q6_Vw_vmax_VwVw), iters), time_per_vector(s_vmax_w, iters) },
        { "float", "Q6_Vsf_vadd_VsfVsf", time_per_vector(EMU2(Q6_Vsf_vadd_VsfVsf), iters), time_per_vector(s_vadd_sf, iters) },
        { "float", "Q6_Vsf_vmpy_VsfVsf", time_per_vector(EMU2(Q6_Vsf_vmpy_VsfVsf), iters), time_per_vector(s_vmpy_sf, iters) },
        { "float", "Q6_Wsf_vcvt_Vhf", time_per_vector([] { for (int v = 0; v < kVecs; v++) *(HVX_VectorPair *) g_out[v] = Q6_Wsf_vcvt_Vhf(*(HVX_Vector *) g_a[v]); }, iters),
          time_per_vector(s_cvt_sf_hf, iters) },
        { "float", "Q6_Vhf_vcvt_VsfVsf", time_per_vector(EMU2(Q6_Vhf_vcvt_VsfVsf), iters), time_per_vector(s_cvt_hf_sf, iters) },
    };
    std::printf("%-10s %-22s %10s %12s %8s\n", "family", "intrinsic", "emu ns/vec", "scalar ns/vec", "speedup");
    for (const Row & r : rows) {
        std::printf("%-10s %-22s %10.2f %12.2f %7.1fx\n", r.family, r.name, r.emu, r.scalar, r.scalar / r.emu);
    }
    return 0;
}
