// Planted kernels for test_vtcm_check.cpp (vtcm-check-planted.cpp, compiled as the VTCM check
// build compiles an NPU library: every load and store of at most 16 bytes hooked).
#pragma once
#include <stdint.h>

#include "htp/memory.h"

struct planted_job {
    dma_addr_t vtcm;    // VTCM base of the session
    dma_addr_t ddr;     // a mapped DDR buffer (at least 256 bytes)
    int        which;   // the planted access (below)
    int        done;    // set by the kernel when it ran to its end
    float      result;
};

enum {
    PLANTED_HVX_COPY = 0,      // HVX load and store in VTCM, scalar reads of DDR: allowed
    PLANTED_SCALAR_LOAD = 1,   // a scalar read of VTCM: faults
    PLANTED_SCALAR_STORE = 2,  // a scalar write to VTCM: faults
};

// A work_queue_run worker (n, ith, planted_job *): only worker 0 acts.
void planted_worker(unsigned n, unsigned ith, void * data);
