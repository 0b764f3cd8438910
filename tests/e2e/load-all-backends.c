// Preloaded into llama.cpp's test-llama-archs, which never calls ggml_backend_load_all(): with
// dynamically loaded backends (GGML_BACKEND_DL) it would otherwise see no device at all, not
// even the CPU. This runs the loader before main(), so `-b HTP0` finds our device.
#include "ggml-backend.h"

__attribute__((constructor)) static void load_all_backends(void) {
    ggml_backend_load_all();
}
