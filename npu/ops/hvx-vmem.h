// Vector loads and stores (vmem) the level-2 counters can see. A kernel's `*(HVX_Vector *) p`
// is a plain dereference of a GCC vector type on the vHTP (hvx-emu/include/hvx-emu/types.h),
// which no emulated intrinsic sees; these helpers are that same access, and in the counting
// build of the NPU library (libggml-htp-vNN-counters.so, HTP_COUNTERS=1, npu/CMakeLists.txt)
// they add one to hvx_ldst (HTP_CNT_HVX_LDST) while the session counts, a store also one to
// hvx_st (HTP_CNT_HVX_ST). On a real Hexagon build and in the plain library they are the bare
// access, nothing else (level 0 pays nothing). The cost model (docs/profiling.md "Estimated
// device time") gives loads and stores a slot each: a packet has one vector load and one vector
// store slot.
#pragma once
#include "htp/counters.h"
#include "htp/hvx.h"

#if !defined(__hexagon__) && HTP_COUNTERS
#    define HVX_VMEM_COUNT()       HTP_COUNT(HTP_CNT_HVX_LDST, 1)
#    define HVX_VMEM_COUNT_STORE()        \
        do {                              \
            HVX_VMEM_COUNT();             \
            HTP_COUNT(HTP_CNT_HVX_ST, 1); \
        } while (0)
#else
#    define HVX_VMEM_COUNT()       ((void) 0)
#    define HVX_VMEM_COUNT_STORE() ((void) 0)
#endif

// Aligned vector load: *p.
static inline HVX_Vector hvx_vmem_load(const HVX_Vector * p) {
    HVX_VMEM_COUNT();
    return *p;
}

// Aligned vector store: *p = v.
static inline void hvx_vmem_store(HVX_Vector * p, HVX_Vector v) {
    HVX_VMEM_COUNT_STORE();
    *p = v;
}

// Aligned vector load from an untyped address (vector aligned).
static inline HVX_Vector hvx_vmem_load_at(const void * p) {
    return hvx_vmem_load((const HVX_Vector *) p);
}

// Unaligned vector load (vmemu): *(const HVX_UVector *) p.
static inline HVX_Vector hvx_vmemu_load(const void * p) {
    HVX_VMEM_COUNT();
    return *(const HVX_UVector *) p;
}

// Unaligned vector store (vmemu): *(HVX_UVector *) p = v.
static inline void hvx_vmemu_store(void * p, HVX_Vector v) {
    HVX_VMEM_COUNT_STORE();
    *(HVX_UVector *) p = v;
}
