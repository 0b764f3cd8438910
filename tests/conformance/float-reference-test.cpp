// Floating-point HVX intrinsics of the host emulation against the scalar references of
// float-reference.h, bit for bit, on edge and random inputs. float-reference.py builds this
// with -DFREF_HAVE_<name> for each float intrinsic the emulation defines, so exactly those run.
// Output: one line per mismatching case (first few per intrinsic), then
// "N intrinsics, M cases, K mismatches"; exit 1 when K > 0 or the references' self-check fails.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <functional>
#if defined(__F16C__)
#    include <immintrin.h>
#endif
#include <random>
#include <string>
#include <vector>

#include "float-reference.h"
#include "htp/hvx.h"

namespace {

struct alignas(128) Buf {
    uint8_t b[256];
};

// Lane access through memory, independent of the emulation.
template <typename T> T ld(const Buf & v, int i) {
    T x;
    std::memcpy(&x, v.b + i * sizeof(T), sizeof(T));
    return x;
}
template <typename T> void st(Buf & v, int i, T x) { std::memcpy(v.b + i * sizeof(T), &x, sizeof(T)); }

HVX_Vector getv(const Buf & b) {
    HVX_Vector v;
    std::memcpy(&v, b.b, 128);
    return v;
}
[[maybe_unused]] HVX_VectorPair getw(const Buf & b) {
    HVX_VectorPair w;
    std::memcpy(&w, b.b, 256);
    return w;
}
void put(Buf & r, HVX_Vector v) { std::memcpy(r.b, &v, 128); }
void put(Buf & r, HVX_VectorPair w) { std::memcpy(r.b, &w, 256); }

// Operand kinds: lane type of a vector (or of a pair, WSF).
enum Kind { SF, HF, W32, H16, UH16, B8, UB8, WSF };
int lane_bytes(Kind k) { return k == SF || k == W32 || k == WSF ? 4 : k == B8 || k == UB8 ? 1 : 2; }
int vec_bytes(Kind k) { return k == WSF ? 256 : 128; }

const std::vector<uint32_t> kSfEdges = {
    0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x3f000000, 0x3fc00000, 0x40200000,  // 0 -0 1 -1 .5 1.5 2.5
    0x00000001, 0x80000001, 0x007fffff, 0x00800000, 0x80800000, 0x00800001,              // subnormals, min normal
    0x7f7fffff, 0xff7fffff, 0x7f7ffffe, 0x7f800000, 0xff800000,                          // max, inf
    0x7fc00000, 0xffc00000, 0x7f800001, 0x7fffffff, 0xffbfffff,                          // NaNs (quiet, signalling)
    0x3f800001, 0x4b800000, 0x4b800001, 0x33800000, 0x34000000,                          // 1+ulp, 2^24, ulps
    0x477fe000, 0x477fefff, 0x477ff000, 0xc77ff000, 0x47800000,                          // hf max, round to inf
    0x33000000, 0x33000001, 0x33400000, 0x387fc000, 0x38800000, 0x387fe000,              // hf subnormal ties
    0x3f801000, 0x3f803000, 0x3f801001, 0xbf801000,                                      // hf ties at 1
};
const std::vector<uint32_t> kHfEdges = {
    0x0000, 0x8000, 0x3c00, 0xbc00, 0x3800, 0x3e00, 0x4100, 0x4300, 0xc100,  // 0 -0 1 -1 .5 1.5 2.5 3.5 -2.5
    0x0001, 0x8001, 0x03ff, 0x0400, 0x8400, 0x0401, 0x3c01, 0x1400, 0x1001,  // subnormals, normals, ulps
    0x7bff, 0xfbff, 0x7bfe, 0x7c00, 0xfc00,                                  // max, inf
    0x7e00, 0xfe00, 0x7c01, 0x7fff, 0xfd00,                                  // NaNs
    0x57f0, 0x57f8, 0x5800, 0x5804, 0xd800, 0xd808, 0x5bf8, 0x5bfc, 0x5c00,  // 127 127.5 128 128.5 -128 -129 255 255.5 256
    0x77ff, 0x7800, 0xf800, 0xf801, 0x7bfc, 0x3555, 0xb555,                  // 32752 32768 -32768 -32800
};
const std::vector<uint32_t> kW32Edges = {0, 1, 0xffffffff, 0x7fffffff, 0x80000000, 16777216, 16777217, 16777219,
                                         0xfefffffd, 0x7fffffc0, 0x7fffff80, 0x7fffffbf, 33554435, 0xff000001};
const std::vector<uint32_t> kH16Edges = {0, 1, 0xffff, 0x7fff, 0x8000, 2048, 2049, 2050, 2051, 0xf7ff, 4097, 4099};
const std::vector<uint32_t> kUH16Edges = {0, 1, 0xffff, 0x7fff, 0x8000, 2049, 2051, 65504, 65519, 65520, 65535, 32767};
const std::vector<uint32_t> kB8Edges = {0, 1, 0xff, 0x7f, 0x80, 0x81, 0x7e};

const std::vector<uint32_t> & edges(Kind k) {
    switch (k) {
        case SF: case WSF: return kSfEdges;
        case HF:           return kHfEdges;
        case W32:          return kW32Edges;
        case H16:          return kH16Edges;
        case UH16:         return kUH16Edges;
        default:           return kB8Edges;
    }
}

// A random lane value: raw bits, or a value with a small exponent range (so sums cancel and
// round), or an edge value.
uint32_t random_lane(Kind k, std::mt19937 & rng) {
    const uint32_t r = rng(), pick = rng() % 8;
    if (pick == 0) {
        const auto & e = edges(k);
        return e[rng() % e.size()];
    }
    switch (k) {
        case SF: case WSF:
            if (pick <= 2) return r;
            if (pick <= 5) return (r & 0x807fffffu) | ((120u + rng() % 16) << 23);           // ~[2^-7, 2^8)
            return (r & 0x807fffffu) | ((103u + rng() % 40) << 23);                          // hf range
        case HF:
            if (pick <= 2) return r & 0xffff;
            if (pick <= 5) return (r & 0x83ffu) | ((12u + rng() % 8) << 10);
            return r & 0xfbffu;                                                              // finite
        case W32: return pick <= 3 ? r : (uint32_t) ((int32_t) r >> (rng() % 31));
        case H16: case UH16: return r & 0xffff;
        default: return r & 0xff;
    }
}

struct Test {
    const char *                                     name;
    std::vector<Kind>                                kinds;
    int                                              result_bytes;
    std::function<void(const Buf *, Buf &)>          emu;
    std::function<void(const Buf *, Buf &)>          ref;
};

void fill_lane(Buf & b, Kind k, int lane, uint32_t x) {
    switch (lane_bytes(k)) {
        case 4:  st<uint32_t>(b, lane, x); break;
        case 2:  st<uint16_t>(b, lane, (uint16_t) x); break;
        default: st<uint8_t>(b, lane, (uint8_t) x); break;
    }
}

std::string hex(const Buf & b, int n) {
    std::string s;
    char        t[4];
    for (int i = n - 1; i >= 0; i--) {
        std::snprintf(t, sizeof t, "%02x", b.b[i]);
        s += t;
    }
    return s;
}

struct Totals {
    int  intrinsics = 0;
    long cases = 0, mismatches = 0;
};

void run(const Test & t, Totals & tot) {
    const size_t n_ops = t.kinds.size();
    std::vector<std::vector<Buf>> cases;  // cases[c][operand]
    // Edge phase: every combination of the first two operands' edges (the third cycles), packed
    // into the lanes of the first operand's lane count.
    const int    lanes0 = vec_bytes(t.kinds[0]) / lane_bytes(t.kinds[0]);
    const size_t e0 = edges(t.kinds[0]).size(), e1 = n_ops > 1 ? edges(t.kinds[1]).size() : 1;
    const size_t combos = e0 * e1, n_edge_cases = (combos + lanes0 - 1) / lanes0;
    for (size_t c = 0; c < n_edge_cases; c++) {
        std::vector<Buf> ops(n_ops);
        for (size_t j = 0; j < n_ops; j++) {
            const Kind   k     = t.kinds[j];
            const auto & e     = edges(k);
            const int    lanes = vec_bytes(k) / lane_bytes(k);
            for (int l = 0; l < lanes; l++) {
                const size_t idx = (c * lanes0 + (size_t) l % lanes0) % combos;
                const size_t sel = j == 0 ? idx % e0 : j == 1 ? idx / e0 : idx + c;
                fill_lane(ops[j], k, l, e[sel % e.size()]);
            }
        }
        cases.push_back(ops);
    }
    std::mt19937 rng(0x5eed0000u ^ (uint32_t) std::hash<std::string>()(t.name));
    for (int c = 0; c < 96; c++) {
        std::vector<Buf> ops(n_ops);
        for (size_t j = 0; j < n_ops; j++) {
            const int lanes = vec_bytes(t.kinds[j]) / lane_bytes(t.kinds[j]);
            for (int l = 0; l < lanes; l++) {
                fill_lane(ops[j], t.kinds[j], l, random_lane(t.kinds[j], rng));
            }
            // Sometimes the second operand is close to the first: cancellation and ties.
            if (j == 1 && t.kinds[1] == t.kinds[0] && c % 4 == 3) {
                for (int l = 0; l < lanes; l++) {
                    const uint32_t a = lane_bytes(t.kinds[0]) == 4 ? ld<uint32_t>(ops[0], l) : ld<uint16_t>(ops[0], l);
                    fill_lane(ops[1], t.kinds[1], l, (a ^ (rng() & 7)) ^ ((rng() & 1) << (lane_bytes(t.kinds[0]) * 8 - 1)));
                }
            }
        }
        cases.push_back(ops);
    }
    int shown = 0;
    long bad  = 0;
    for (size_t c = 0; c < cases.size(); c++) {
        Buf want{}, got{};
        t.ref(cases[c].data(), want);
        t.emu(cases[c].data(), got);
        if (std::memcmp(want.b, got.b, t.result_bytes) != 0) {
            bad++;
            if (shown++ < 3) {
                int first = 0;
                while (want.b[first] == got.b[first]) {
                    first++;
                }
                std::printf("MISMATCH %s case %zu, first differing byte %d\n", t.name, c, first);
                for (size_t j = 0; j < n_ops; j++) {
                    std::printf("  op%zu %s\n", j, hex(cases[c][j], vec_bytes(t.kinds[j])).c_str());
                }
                std::printf("  want %s\n  got  %s\n", hex(want, t.result_bytes).c_str(), hex(got, t.result_bytes).c_str());
            }
        }
    }
    std::printf("%-32s %4zu cases %4ld mismatches\n", t.name, cases.size(), bad);
    tot.intrinsics++;
    tot.cases += (long) cases.size();
    tot.mismatches += bad;
}

// Lane-wise helpers for the references.
using u32 = uint32_t;
using u16 = uint16_t;
template <typename R, typename A, typename F> void map1(const Buf * o, Buf & r, int n, F f) {
    for (int i = 0; i < n; i++) st<R>(r, i, (R) f(ld<A>(o[0], i)));
}
template <typename R, typename A, typename F> void map2(const Buf * o, Buf & r, int n, F f) {
    for (int i = 0; i < n; i++) st<R>(r, i, (R) f(ld<A>(o[0], i), ld<A>(o[1], i)));
}
// Wsf = op(Vu.hf, Vv.hf): even hf lanes to the low register, odd to the high one
template <typename F> void widen2(const Buf * o, Buf & r, F f) {
    for (int i = 0; i < 32; i++) {
        st<u32>(r, i, f(ld<u16>(o[0], 2 * i), ld<u16>(o[1], 2 * i)));
        st<u32>(r, 32 + i, f(ld<u16>(o[0], 2 * i + 1), ld<u16>(o[1], 2 * i + 1)));
    }
}

// Self-check of the references against the host's IEEE arithmetic and F16C conversions on
// non-NaN results (x86 SSE rounds to nearest-even with subnormals): the references must be
// right before they can judge the emulation.
long self_check() {
    std::mt19937 rng(7);
    long         bad = 0;
    for (int i = 0; i < 200000; i++) {
        const u32 a = random_lane(SF, rng), b = random_lane(SF, rng);
        float     fa, fb;
        std::memcpy(&fa, &a, 4);
        std::memcpy(&fb, &b, 4);
        const volatile float s = fa + fb, p = fa * fb;
        u32                  sb, pb;
        const float          s_ = s, p_ = p;
        std::memcpy(&sb, &s_, 4);
        std::memcpy(&pb, &p_, 4);
        if (!std::isnan(s_) && sb != fref::sf_add(a, b)) bad++;
        if (!std::isnan(p_) && pb != fref::sf_mpy(a, b)) bad++;
#if defined(__F16C__)
        const u16 h = (u16) random_lane(HF, rng);
        const float hv = _cvtsh_ss(h);
        u32         hb;
        std::memcpy(&hb, &hv, 4);
        if (!std::isnan(hv) && hb != fref::sf_from_hf(h)) bad++;
        if (!std::isnan(fa) && _cvtss_sh(fa, 0) != fref::hf_from_sf(a)) bad++;
#endif
    }
    if (bad) {
        std::printf("reference self-check: %ld disagreements with the host's IEEE arithmetic\n", bad);
    }
    return bad;
}

}  // namespace

#define EMU1(F) [](const Buf * o, Buf & r) { put(r, F(getv(o[0]))); }
#define EMU2(F) [](const Buf * o, Buf & r) { put(r, F(getv(o[0]), getv(o[1]))); }
#define EMU3(F) [](const Buf * o, Buf & r) { put(r, F(getv(o[0]), getv(o[1]), getv(o[2]))); }
#define EMU3W(F) [](const Buf * o, Buf & r) { put(r, F(getw(o[0]), getv(o[1]), getv(o[2]))); }

int main() {
    std::vector<Test> tests;
    (void) tests;
#if defined(FREF_HAVE_Q6_Vsf_vadd_VsfVsf)
    tests.push_back({"Q6_Vsf_vadd_VsfVsf", {SF, SF}, 128, EMU2(Q6_Vsf_vadd_VsfVsf),
                     [](const Buf * o, Buf & r) { map2<u32, u32>(o, r, 32, fref::sf_add); }});
#endif
#if defined(FREF_HAVE_Q6_Vsf_vsub_VsfVsf)
    tests.push_back({"Q6_Vsf_vsub_VsfVsf", {SF, SF}, 128, EMU2(Q6_Vsf_vsub_VsfVsf),
                     [](const Buf * o, Buf & r) { map2<u32, u32>(o, r, 32, fref::sf_sub); }});
#endif
#if defined(FREF_HAVE_Q6_Vsf_vmpy_VsfVsf)
    tests.push_back({"Q6_Vsf_vmpy_VsfVsf", {SF, SF}, 128, EMU2(Q6_Vsf_vmpy_VsfVsf),
                     [](const Buf * o, Buf & r) { map2<u32, u32>(o, r, 32, fref::sf_mpy); }});
#endif
#if defined(FREF_HAVE_Q6_Vhf_vadd_VhfVhf)
    tests.push_back({"Q6_Vhf_vadd_VhfVhf", {HF, HF}, 128, EMU2(Q6_Vhf_vadd_VhfVhf),
                     [](const Buf * o, Buf & r) { map2<u16, u16>(o, r, 64, fref::hf_add); }});
#endif
#if defined(FREF_HAVE_Q6_Vhf_vsub_VhfVhf)
    tests.push_back({"Q6_Vhf_vsub_VhfVhf", {HF, HF}, 128, EMU2(Q6_Vhf_vsub_VhfVhf),
                     [](const Buf * o, Buf & r) { map2<u16, u16>(o, r, 64, fref::hf_sub); }});
#endif
#if defined(FREF_HAVE_Q6_Vhf_vmpy_VhfVhf)
    tests.push_back({"Q6_Vhf_vmpy_VhfVhf", {HF, HF}, 128, EMU2(Q6_Vhf_vmpy_VhfVhf),
                     [](const Buf * o, Buf & r) { map2<u16, u16>(o, r, 64, fref::hf_mpy); }});
#endif
#if defined(FREF_HAVE_Q6_Vhf_vmpyacc_VhfVhfVhf)
    tests.push_back({"Q6_Vhf_vmpyacc_VhfVhfVhf", {HF, HF, HF}, 128, EMU3(Q6_Vhf_vmpyacc_VhfVhfVhf),
                     [](const Buf * o, Buf & r) {
                         for (int i = 0; i < 64; i++)
                             st<u16>(r, i, fref::hf_mpyacc(ld<u16>(o[0], i), ld<u16>(o[1], i), ld<u16>(o[2], i)));
                     }});
#endif
#if defined(FREF_HAVE_Q6_Wsf_vadd_VhfVhf)
    tests.push_back({"Q6_Wsf_vadd_VhfVhf", {HF, HF}, 256, EMU2(Q6_Wsf_vadd_VhfVhf),
                     [](const Buf * o, Buf & r) { widen2(o, r, fref::sf_add_hf); }});
#endif
#if defined(FREF_HAVE_Q6_Wsf_vsub_VhfVhf)
    tests.push_back({"Q6_Wsf_vsub_VhfVhf", {HF, HF}, 256, EMU2(Q6_Wsf_vsub_VhfVhf),
                     [](const Buf * o, Buf & r) { widen2(o, r, fref::sf_sub_hf); }});
#endif
#if defined(FREF_HAVE_Q6_Wsf_vmpy_VhfVhf)
    tests.push_back({"Q6_Wsf_vmpy_VhfVhf", {HF, HF}, 256, EMU2(Q6_Wsf_vmpy_VhfVhf),
                     [](const Buf * o, Buf & r) { widen2(o, r, fref::sf_mpy_hf); }});
#endif
#if defined(FREF_HAVE_Q6_Wsf_vmpyacc_WsfVhfVhf)
    tests.push_back({"Q6_Wsf_vmpyacc_WsfVhfVhf", {WSF, HF, HF}, 256, EMU3W(Q6_Wsf_vmpyacc_WsfVhfVhf),
                     [](const Buf * o, Buf & r) {
                         for (int i = 0; i < 32; i++) {
                             st<u32>(r, i, fref::sf_mpyacc_hf(ld<u32>(o[0], i), ld<u16>(o[1], 2 * i), ld<u16>(o[2], 2 * i)));
                             st<u32>(r, 32 + i, fref::sf_mpyacc_hf(ld<u32>(o[0], 32 + i), ld<u16>(o[1], 2 * i + 1),
                                                                   ld<u16>(o[2], 2 * i + 1)));
                         }
                     }});
#endif
#if defined(FREF_HAVE_Q6_Vsf_vdmpy_VhfVhf)
    tests.push_back({"Q6_Vsf_vdmpy_VhfVhf", {HF, HF}, 128, EMU2(Q6_Vsf_vdmpy_VhfVhf),
                     [](const Buf * o, Buf & r) {
                         for (int i = 0; i < 32; i++)
                             st<u32>(r, i, fref::sf_dmpy_hf(ld<u16>(o[0], 2 * i), ld<u16>(o[0], 2 * i + 1),
                                                            ld<u16>(o[1], 2 * i), ld<u16>(o[1], 2 * i + 1)));
                     }});
#endif
#if defined(FREF_HAVE_Q6_Vsf_vdmpyacc_VsfVhfVhf)
    tests.push_back({"Q6_Vsf_vdmpyacc_VsfVhfVhf", {SF, HF, HF}, 128, EMU3(Q6_Vsf_vdmpyacc_VsfVhfVhf),
                     [](const Buf * o, Buf & r) {
                         for (int i = 0; i < 32; i++)
                             st<u32>(r, i, fref::sf_dmpyacc_hf(ld<u32>(o[0], i), ld<u16>(o[1], 2 * i), ld<u16>(o[1], 2 * i + 1),
                                                               ld<u16>(o[2], 2 * i), ld<u16>(o[2], 2 * i + 1)));
                     }});
#endif
#define MINMAX(NAME, T, K, N, FN)                                                             \
    tests.push_back({#NAME, {K, K}, 128, EMU2(NAME),                                          \
                     [](const Buf * o, Buf & r) { map2<T, T>(o, r, N, fref::FN); }})
#if defined(FREF_HAVE_Q6_Vsf_vfmax_VsfVsf)
    MINMAX(Q6_Vsf_vfmax_VsfVsf, u32, SF, 32, sf_fmax);
#endif
#if defined(FREF_HAVE_Q6_Vsf_vfmin_VsfVsf)
    MINMAX(Q6_Vsf_vfmin_VsfVsf, u32, SF, 32, sf_fmin);
#endif
#if defined(FREF_HAVE_Q6_Vsf_vmax_VsfVsf)
    MINMAX(Q6_Vsf_vmax_VsfVsf, u32, SF, 32, sf_max);
#endif
#if defined(FREF_HAVE_Q6_Vsf_vmin_VsfVsf)
    MINMAX(Q6_Vsf_vmin_VsfVsf, u32, SF, 32, sf_min);
#endif
#if defined(FREF_HAVE_Q6_Vhf_vfmax_VhfVhf)
    MINMAX(Q6_Vhf_vfmax_VhfVhf, u16, HF, 64, hf_fmax);
#endif
#if defined(FREF_HAVE_Q6_Vhf_vfmin_VhfVhf)
    MINMAX(Q6_Vhf_vfmin_VhfVhf, u16, HF, 64, hf_fmin);
#endif
#if defined(FREF_HAVE_Q6_Vhf_vmax_VhfVhf)
    MINMAX(Q6_Vhf_vmax_VhfVhf, u16, HF, 64, hf_max);
#endif
#if defined(FREF_HAVE_Q6_Vhf_vmin_VhfVhf)
    MINMAX(Q6_Vhf_vmin_VhfVhf, u16, HF, 64, hf_min);
#endif
#define UNARY(NAME, R, A, K, N, FN)                                                           \
    tests.push_back({#NAME, {K}, 128, EMU1(NAME),                                             \
                     [](const Buf * o, Buf & r) { map1<R, A>(o, r, N, FN); }})
#if defined(FREF_HAVE_Q6_Vsf_vabs_Vsf)
    UNARY(Q6_Vsf_vabs_Vsf, u32, u32, SF, 32, fref::sf_abs);
#endif
#if defined(FREF_HAVE_Q6_Vsf_vfneg_Vsf)
    UNARY(Q6_Vsf_vfneg_Vsf, u32, u32, SF, 32, fref::sf_neg);
#endif
#if defined(FREF_HAVE_Q6_Vhf_vabs_Vhf)
    UNARY(Q6_Vhf_vabs_Vhf, u16, u16, HF, 64, fref::hf_abs);
#endif
#if defined(FREF_HAVE_Q6_Vhf_vfneg_Vhf)
    UNARY(Q6_Vhf_vfneg_Vhf, u16, u16, HF, 64, fref::hf_neg);
#endif
#if defined(FREF_HAVE_Q6_Vsf_equals_Vw)
    UNARY(Q6_Vsf_equals_Vw, u32, int32_t, W32, 32, fref::sf_from_w);
#endif
#if defined(FREF_HAVE_Q6_Vhf_vcvt_Vh)
    UNARY(Q6_Vhf_vcvt_Vh, u16, int16_t, H16, 64, fref::hf_from_int);
#endif
#if defined(FREF_HAVE_Q6_Vhf_vcvt_Vuh)
    UNARY(Q6_Vhf_vcvt_Vuh, u16, uint16_t, UH16, 64, fref::hf_from_int);
#endif
#if defined(FREF_HAVE_Q6_Vh_vcvt_Vhf)
    UNARY(Q6_Vh_vcvt_Vhf, int16_t, u16, HF, 64, [](u16 a) { return fref::int_from_hf(a, INT16_MIN, INT16_MAX); });
#endif
#if defined(FREF_HAVE_Q6_Vuh_vcvt_Vhf)
    UNARY(Q6_Vuh_vcvt_Vhf, u16, u16, HF, 64, [](u16 a) { return fref::int_from_hf(a, 0, UINT16_MAX); });
#endif
#if defined(FREF_HAVE_Q6_Wsf_vcvt_Vhf)
    // Vdd.sf = vcvt(Vu.hf): even hf lanes to the low register, odd to the high one
    tests.push_back({"Q6_Wsf_vcvt_Vhf", {HF}, 256, EMU1(Q6_Wsf_vcvt_Vhf), [](const Buf * o, Buf & r) {
                         for (int i = 0; i < 32; i++) {
                             st<u32>(r, i, fref::sf_from_hf(ld<u16>(o[0], 2 * i)));
                             st<u32>(r, 32 + i, fref::sf_from_hf(ld<u16>(o[0], 2 * i + 1)));
                         }
                     }});
#endif
#if defined(FREF_HAVE_Q6_Vhf_vcvt_VsfVsf)
    // Vd.hf = vcvt(Vu.sf, Vv.sf): Vu's lanes to the even hf lanes, Vv's to the odd ones
    tests.push_back({"Q6_Vhf_vcvt_VsfVsf", {SF, SF}, 128, EMU2(Q6_Vhf_vcvt_VsfVsf), [](const Buf * o, Buf & r) {
                         for (int i = 0; i < 32; i++) {
                             st<u16>(r, 2 * i, fref::hf_from_sf(ld<u32>(o[0], i)));
                             st<u16>(r, 2 * i + 1, fref::hf_from_sf(ld<u32>(o[1], i)));
                         }
                     }});
#endif
#define NARROW_B(NAME, T, LO, HI)                                                                          \
    tests.push_back({#NAME, {HF, HF}, 128, EMU2(NAME), [](const Buf * o, Buf & r) {                        \
                         for (int i = 0; i < 32; i++) {                                                    \
                             st<T>(r, 4 * i, (T) fref::int_from_hf(ld<u16>(o[0], 2 * i), LO, HI));         \
                             st<T>(r, 4 * i + 1, (T) fref::int_from_hf(ld<u16>(o[0], 2 * i + 1), LO, HI)); \
                             st<T>(r, 4 * i + 2, (T) fref::int_from_hf(ld<u16>(o[1], 2 * i), LO, HI));     \
                             st<T>(r, 4 * i + 3, (T) fref::int_from_hf(ld<u16>(o[1], 2 * i + 1), LO, HI)); \
                         }                                                                                 \
                     }})
#if defined(FREF_HAVE_Q6_Vb_vcvt_VhfVhf)
    NARROW_B(Q6_Vb_vcvt_VhfVhf, int8_t, INT8_MIN, INT8_MAX);
#endif
#if defined(FREF_HAVE_Q6_Vub_vcvt_VhfVhf)
    NARROW_B(Q6_Vub_vcvt_VhfVhf, uint8_t, 0, UINT8_MAX);
#endif
#define WIDEN_B(NAME, K, T)                                                                          \
    tests.push_back({#NAME, {K}, 256, EMU1(NAME), [](const Buf * o, Buf & r) {                       \
                         for (int i = 0; i < 32; i++) {                                              \
                             st<u16>(r, 2 * i, fref::hf_from_int(ld<T>(o[0], 4 * i)));               \
                             st<u16>(r, 2 * i + 1, fref::hf_from_int(ld<T>(o[0], 4 * i + 1)));       \
                             st<u16>(r, 64 + 2 * i, fref::hf_from_int(ld<T>(o[0], 4 * i + 2)));      \
                             st<u16>(r, 64 + 2 * i + 1, fref::hf_from_int(ld<T>(o[0], 4 * i + 3)));  \
                         }                                                                           \
                     }})
#if defined(FREF_HAVE_Q6_Whf_vcvt_Vb)
    WIDEN_B(Q6_Whf_vcvt_Vb, B8, int8_t);
#endif
#if defined(FREF_HAVE_Q6_Whf_vcvt_Vub)
    WIDEN_B(Q6_Whf_vcvt_Vub, UB8, uint8_t);
#endif

    const long ref_bad = self_check();
    Totals     tot;
    for (const Test & t : tests) {
        run(t, tot);
    }
    std::printf("%d intrinsics, %ld cases, %ld mismatches\n", tot.intrinsics, tot.cases, tot.mismatches);
    return (tot.mismatches || ref_bad) ? 1 : 0;
}
