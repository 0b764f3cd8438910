// The host's one boundary to the NPU runtime: what FastRPC + dspqueue are on a phone and the
// vHTP (vhtp/include/vhtp/vhtp.h) is here. Everything the backend asks of an NPU goes through
// this file: the device profile, shared DDR buffers (named by fd) and sessions with their
// message exchange (htp-abi messages in, responses out). No other host file sees the runtime's
// headers (the build compiles only transport.cpp against them); the sessions themselves run in
// the runtime's DSP process (docs/vhtp.md "The DSP processes"), and moving onto real FastRPC
// replaces transport.cpp alone.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

// What one NPU session offers (the vHTP's profile for the selected GGML_HEXAGON_ARCH).
struct htp_device_profile {
    uint32_t arch;            // 73, 75, 79, 81
    uint32_t vtcm_size;       // bytes of VTCM per session
    uint32_t n_hvx_hw;        // HVX hardware threads of the arch
    uint32_t n_hvx;           // threads a session runs (GGML_HEXAGON_NHVX, else min(n_hvx_hw, host cores))
    uint32_t n_hmx;           // HMX units per session
    uint32_t dma_field_bits;  // width of 2-D DMA descriptor fields: 16 (v73) or 24
    uint64_t window_size;     // bytes of the session's address window for DDR
    uint64_t vmem_budget;     // bytes that may be mapped at once (GGML_HEXAGON_VMEM)
    bool     dma64_capable;   // the arch has 64-bit DMA bases (v81)
    bool     dma64;           // of a session: it has them (its DDR lies above 4 GiB; window_size and
                              // vmem_budget are the DMA64 window's); of the pre-open profile: false
    uint32_t clock_mhz;       // the arch's NPU clock: profile lines turn nanoseconds into cycles with it
};

// The profile sessions will have, before any is opened. False with a one-line reason (for
// example a malformed GGML_HEXAGON_ARCH).
bool htp_transport_profile(htp_device_profile & profile, std::string & error);

// Shared DDR: memory the host maps and every session can map by fd.
struct htp_shared_mem {
    int       fd       = -1;
    uint8_t * host_ptr = nullptr;
    uint64_t  size     = 0;
};
bool htp_shared_alloc(uint64_t size, const std::string & name, htp_shared_mem & mem, std::string & error);
void htp_shared_free(htp_shared_mem & mem);

// One session on one NPU: a loaded NPU library with its own window, VTCM and HVX threads.
class htp_session {
  public:
    // Opens session `session` on NPU `npu`, loading the NPU library at lib_path. vtcm_size:
    // bytes of the NPU's VTCM this session takes (0: all of it; sessions of one NPU share it).
    // poll (GGML_HEXAGON_OPPOLL=1): waiting for an answer polls instead of sleeping.
    // dma64 (GGML_HEXAGON_DMA64, dma64_capable archs only): 64-bit DMA bases.
    static std::unique_ptr<htp_session> open(uint32_t npu, uint32_t session, uint32_t n_hvx, uint32_t vtcm_size,
                                             bool poll, bool dma64, const std::string & lib_path, std::string & error);
    ~htp_session();

    // Sends one message and waits for its response (one exchange at a time per session).
    bool exchange(const std::vector<uint8_t> & msg, std::vector<uint8_t> & resp, std::string & error);

    // What ended an exchange whose messages were lost: the sessions' process died or one of its
    // ops outran the watchdog (GGML_HEXAGON_WATCHDOG); the runtime has already restarted it and
    // reopened the sessions, so the messages may be sent again (docs/vhtp.md "The DSP processes").
    struct loss {
        bool     lost     = false;
        int      signal   = 0;   // the signal the process died of, if it did
        uint32_t hung_ms  = 0;   // how long the stuck op ran, if one did
        int32_t  op_index = -1;  // the op of this exchange's batch that was running, if any
    };

    // The members of a device group: sends msgs[i] to sessions[i], all of them before waiting
    // for any answer (the members synchronize among themselves), then collects every answer.
    // A lost exchange returns false with *lost filled.
    static bool exchange_all(const std::vector<htp_session *> & sessions, const std::vector<std::vector<uint8_t>> & msgs,
                             std::vector<std::vector<uint8_t>> & resps, std::string & error, loss * lost = nullptr);

    // Restarts the session after a fault, as a phone restarts a protection domain: its
    // mappings, VTCM and queues start afresh; shared DDR buffers are untouched.
    bool reset(std::string & error);

    const htp_device_profile & profile() const { return profile_; }

  private:
    htp_session(void * handle, const htp_device_profile & p) : handle_(handle), profile_(p) {}
    void *             handle_;  // the runtime's session (opaque outside transport.cpp)
    htp_device_profile profile_;
    std::mutex         mu_;
};
