// Shared helpers for the HVX emulation tests: deterministic random vectors seeded with the
// edge values of each lane type, and lane accessors that go through memory (not through the
// emulation) so the scalar references stay independent of the code under test.
#pragma once
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "htp/hvx.h"

namespace hvx_test {

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
