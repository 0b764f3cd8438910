// The fusers the graph walker tries at each node, in order (each defined beside its family's
// encoders).
#include "fusions.h"

#include <cstring>

bool htp_fuse_rms_norm_mul(const htp_device_caps &, const ggml_cgraph *, int, htp_fused_op &,
                           const htp_encode_context &);  // norm-scale.cpp
bool htp_fuse_mul_mat_add(const htp_device_caps &, const ggml_cgraph *, int, htp_fused_op &,
                          const htp_encode_context &);   // mul-mat-fusions.cpp

bool htp_find_fusion(const htp_device_caps & caps, const ggml_cgraph * graph, int i, htp_fused_op & f,
                     const htp_encode_context & ctx) {
    static const htp_fuser_fn fusers[] = { htp_fuse_rms_norm_mul, htp_fuse_mul_mat_add };
    for (htp_fuser_fn fuse : fusers) {
        memset(&f, 0, sizeof(f));
        if (fuse(caps, graph, i, f, ctx)) {
            return true;
        }
    }
    return false;
}
