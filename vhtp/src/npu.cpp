// Physical NPUs: the registry of NPU objects, the VTCM pool and the HVX contexts.
#include "npu.h"

#include <string>

#include "error.h"
#include "window.h"

namespace vhtp {

namespace {

std::mutex g_mu;                      // the registry and every NPU's vtcm_held
npu *      g_npus[VHTP_MAX_NPUS] = {};

// "8 MiB", "512 KiB", "0 KiB" or "100 bytes": sizes as a reader of the error message thinks of them.
std::string size_str(uint64_t bytes) {
    if (bytes != 0 && bytes % (1u << 20) == 0) {
        return std::to_string(bytes >> 20) + " MiB";
    }
    if (bytes % (1u << 10) == 0) {
        return std::to_string(bytes >> 10) + " KiB";
    }
    return std::to_string(bytes) + " bytes";
}

}  // namespace

void hvx_contexts::acquire(uint32_t n) {
    std::unique_lock<std::mutex> lk(mu_);
    const uint64_t ticket = next_ticket_++;
    cv_.wait(lk, [&] { return serving_ == ticket && free_ >= n; });
    free_ -= n;
    serving_++;
    lk.unlock();
    cv_.notify_all();  // the next ticket may fit in what is left
}

void hvx_contexts::release(uint32_t n) {
    {
        std::lock_guard<std::mutex> lk(mu_);
        free_ += n;
    }
    cv_.notify_all();
}

npu * npu_attach(const struct vhtp_device_info & info, uint32_t device, uint32_t session, uint32_t vtcm_request,
                 char * err, size_t err_len) {
    if (device >= VHTP_MAX_NPUS) {
        set_error(err, err_len, "NPU %u: no such NPU (the vHTP has NPUs 0..%u)", device, VHTP_MAX_NPUS - 1);
        return nullptr;
    }
    if (vtcm_request == 0 || vtcm_request % VHTP_VTCM_GRANULE != 0) {
        set_error(err, err_len, "NPU %u: session %u asks for %s of VTCM, not a positive multiple of %s", device,
                  session, size_str(vtcm_request).c_str(), size_str(VHTP_VTCM_GRANULE).c_str());
        return nullptr;
    }
    std::lock_guard<std::mutex> lk(g_mu);
    npu * n = g_npus[device];
    if (n && n->arch != info.arch) {
        set_error(err, err_len, "NPU %u is a v%u: session %u cannot open it as a v%u", device, n->arch, session,
                  info.arch);
        return nullptr;
    }
    if (n && n->vtcm_held.count(session)) {
        set_error(err, err_len, "NPU %u: session %u is already open", device, session);
        return nullptr;
    }
    const uint32_t pool = n ? n->vtcm_size : Window::kVtcmSize;  // the profile's VTCM
    uint64_t       used = 0;
    std::string    holders;
    if (n) {
        for (const auto & [s, bytes] : n->vtcm_held) {
            used += bytes;
            holders += (holders.empty() ? " (" : ", ") + ("session " + std::to_string(s)) + " holds " + size_str(bytes);
        }
    }
    if (vtcm_request > pool - used) {
        set_error(err, err_len, "NPU %u: session %u asks for %s of VTCM, %s left%s%s", device, session,
                  size_str(vtcm_request).c_str(), size_str(pool - used).c_str(), holders.c_str(),
                  holders.empty() ? "" : ")");
        return nullptr;
    }
    if (!n) {
        n = g_npus[device] = new npu(device, info.arch, pool, info.n_hvx_hw);
    }
    n->vtcm_held[session] = vtcm_request;
    return n;
}

void npu_detach(npu * n, uint32_t session) {
    if (!n) {
        return;
    }
    std::lock_guard<std::mutex> lk(g_mu);
    n->vtcm_held.erase(session);
    if (n->vtcm_held.empty()) {
        g_npus[n->index] = nullptr;
        delete n;
    }
}

}  // namespace vhtp
