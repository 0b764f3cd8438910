// Planted kernels for the VTCM check (test_vtcm_check.cpp): compiled with the VTCM check
// build's hooks (tests/CMakeLists.txt), as npu/CMakeLists.txt compiles the check libraries.
#include "vtcm-check-planted.h"

#include "htp/hvx.h"

void planted_worker(unsigned n, unsigned ith, void * data) {
    (void) n;
    auto * j = static_cast<planted_job *>(data);
    if (ith != 0) {
        return;
    }
    auto * vtcm = static_cast<uint8_t *>(htp_va(j->vtcm));
    auto * ddr  = static_cast<float *>(htp_va(j->ddr));
    switch (j->which) {
        case PLANTED_HVX_COPY: {
            // What kernels do: HVX loads and stores in VTCM, scalars in DDR.
            HVX_Vector * v = reinterpret_cast<HVX_Vector *>(vtcm);
            v[1]           = Q6_Vsf_vadd_VsfVsf(v[0], Q6_V_vsplat_R(0x3f800000));
            j->result      = ddr[3] + ddr[5];
            ddr[7]         = j->result;
            break;
        }
        case PLANTED_SCALAR_LOAD:
            j->result = reinterpret_cast<float *>(vtcm)[33];  // the planted read
            break;
        case PLANTED_SCALAR_STORE:
            reinterpret_cast<float *>(vtcm)[34] = 2.0f;  // the planted write
            break;
    }
    j->done = 1;
}
