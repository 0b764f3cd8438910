// Shared helpers for the HVX emulation tests: deterministic random vectors seeded with the
// edge values of each lane type, and lane accessors that go through memory (not through the
// emulation) so the scalar references stay independent of the code under test.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "htp/hvx.h"

namespace hvx_test {

// An independent binary16 model (not the emulation's bit-level code): half_value decodes
// exactly; half_nearest encodes by picking the nearest finite half (ties to even mantissa) by
// binary search, NaN -> nan_bits (HVX's conversions give 0x7e00, HMX's output 0x7fff).
inline double half_value(uint16_t h) {
    const int e = (h >> 10) & 31, m = h & 1023;
    if (e == 31) {
        return m ? NAN : ((h & 0x8000) ? -INFINITY : INFINITY);
    }
    const double v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
    return (h & 0x8000) ? -v : v;
}

inline uint16_t half_nearest(float f, uint16_t nan_bits = 0x7e00) {
    if (std::isnan(f)) {
        return nan_bits;
    }
    const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
    const double   a    = std::fabs((double) f);
    if (a >= 65520.0) {
        return sign | 0x7c00;
    }
    uint16_t lo = 0, hi = 0x7bff;  // largest finite
    while (lo < hi) {              // first h with value >= a
        const uint16_t mid = (uint16_t) ((lo + hi) / 2);
        if (half_value(mid) >= a) {
            hi = mid;
        } else {
            lo = (uint16_t) (mid + 1);
        }
    }
    uint16_t h = lo;
    if (h > 0) {
        const double up = half_value(h) - a, down = a - half_value((uint16_t) (h - 1));
        if (down < up || (down == up && ((h - 1) & 1) == 0)) {
            h = (uint16_t) (h - 1);
        }
    }
    return sign | h;
}

template <typename T> inline T lane(const HVX_Vector & v, int i) {
    T x;
    std::memcpy(&x, reinterpret_cast<const char *>(&v) + i * sizeof(T), sizeof(T));
    return x;
}

template <typename T> inline T lane(const HVX_VectorPair & v, int i) {
    T x;
    std::memcpy(&x, reinterpret_cast<const char *>(&v) + i * sizeof(T), sizeof(T));
    return x;
}

template <typename T> inline void set_lane(HVX_Vector & v, int i, T x) {
    std::memcpy(reinterpret_cast<char *>(&v) + i * sizeof(T), &x, sizeof(T));
}

// std::vector drops HVX_Vector's alignment attribute; box it in an over-aligned struct.
struct VecBox {
    HVX_Vector v;
    operator HVX_Vector &() { return v; }
    operator const HVX_Vector &() const { return v; }
};

// Vectors of T: random values, each also tried with edge values in some lanes.
template <typename T> std::vector<VecBox> vectors(uint32_t seed, const std::vector<T> & edges, int n = 64) {
    std::mt19937                       rng(seed);
    std::vector<VecBox>                out;
    const int                          lanes = 128 / sizeof(T);
    std::uniform_int_distribution<int> pick(0, (int) edges.size() - 1);
    for (int k = 0; k < n; k++) {
        HVX_Vector v;
        for (int i = 0; i < lanes; i++) {
            uint64_t bits = ((uint64_t) rng() << 32) | rng();
            T        x;
            std::memcpy(&x, &bits, sizeof(T));
            if (!edges.empty() && (k % 2 == 0 || (rng() & 3) == 0)) {
                x = edges[pick(rng)];
            }
            set_lane<T>(v, i, x);
        }
        out.push_back(VecBox{ v });
    }
    return out;
}

inline HVX_VectorPred random_pred(std::mt19937 & rng) {
    HVX_VectorPred q;
    q.q[0] = ((uint64_t) rng() << 32) | rng();
    q.q[1] = ((uint64_t) rng() << 32) | rng();
    return q;
}

}  // namespace hvx_test
