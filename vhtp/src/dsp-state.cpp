// Where this process's sessions keep their shared state (dsp.h): the DSP process's page from
// the host, or a private one here.
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "dsp.h"

namespace vhtp {
namespace {
dsp_shared * g_state = nullptr;
}  // namespace

dsp_shared * dsp_state() {
    if (!g_state) {
        static dsp_shared own{};  // sessions in this process (GGML_HEXAGON_INPROC=1, unit tests)
        own.magic = kDspMagic;
        g_state   = &own;
    }
    return g_state;
}

void dsp_set_state(dsp_shared * shared) {
    g_state = shared;
}

bool dsp_is_this_process() {
    static const bool dsp = [] {
        char         path[4096];
        const ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
        if (n <= 0) {
            return false;
        }
        path[n]            = 0;
        const char * slash = strrchr(path, '/');
        return strcmp(slash ? slash + 1 : path, "ggml-vhtp-dsp") == 0;
    }();
    return dsp;
}

bool dsp_remote() {
    static const bool remote = [] {
        const char * v = std::getenv("GGML_HEXAGON_INPROC");
        return !(v && std::strcmp(v, "1") == 0);
    }();
    return remote;
}

}  // namespace vhtp
