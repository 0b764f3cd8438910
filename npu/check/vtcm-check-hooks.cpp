// The load/store hooks of the VTCM check build (libggml-htp-vNN-vtcmcheck.so,
// npu/CMakeLists.txt): clang calls __sanitizer_cov_loadN / __sanitizer_cov_storeN before every
// load or store of N = 1, 2, 4, 8 or 16 bytes in the instrumented kernels; each hook hands the
// address to the vHTP (htp/core-check.h). This file itself is compiled without the hooks.
// Hidden: the library's calls bind to these hooks, never to the weak ones a sanitizer runtime
// in the host program defines.
#include "htp/core-check.h"

#define HTP_CHECK_HOOK(kind, n, store)                                                          \
    extern "C" __attribute__((visibility("hidden"))) void __sanitizer_cov_##kind##n(void * p) { \
        htp_core_access(p, n, store, __builtin_return_address(0));                              \
    }

HTP_CHECK_HOOK(load, 1, 0)
HTP_CHECK_HOOK(load, 2, 0)
HTP_CHECK_HOOK(load, 4, 0)
HTP_CHECK_HOOK(load, 8, 0)
HTP_CHECK_HOOK(load, 16, 0)
HTP_CHECK_HOOK(store, 1, 1)
HTP_CHECK_HOOK(store, 2, 1)
HTP_CHECK_HOOK(store, 4, 1)
HTP_CHECK_HOOK(store, 8, 1)
HTP_CHECK_HOOK(store, 16, 1)
