// TEST DOUBLE of what host/ops needs from host/src: the kernel tests link the encoders without
// the backend's buffers, so no weight is tiled by set_tensor here (tests that want tiled
// weights build the htp_tiled_weight themselves and call the path hooks directly).
#include "mul-mat-paths.h"

bool htp_weight_tiled(const ggml_tensor *, htp_tiled_weight &) {
    return false;
}
