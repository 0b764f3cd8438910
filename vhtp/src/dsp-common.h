// What every DSP process of this host process shares, on the host's side (dsp.h): the state
// page, the session slots in it, and the device groups' board (mdev-board.h), created with the
// first process; and each NPU's page (npu.h), created with the first process of one of its
// sessions and kept (a restarted session's process gets the same one). One for the host
// process (dsp_common_get), never destroyed; dsp-client.cpp's links use it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "dsp.h"

namespace vhtp {

struct npu_page;

class dsp_common {
  public:
    dsp_shared * shared   = nullptr;
    int          state_fd = -1;
    int          board_fd = -1;

    // Creates the state page and the board, once; false with a reason.
    bool init(char * err, size_t err_len);

    // NPU npu's page and its descriptor; -1 (no page) for an index past the NPUs, which the
    // DSP refuses to open with its reason; -2 with a reason when it cannot be made.
    int npu_page_fd(uint32_t npu, char * err, size_t err_len);

    npu_page * page(uint32_t npu);

    // A free session slot (an index into dsp_shared::progress), -1 when all are taken.
    int  take_slot();
    void give_slot(uint32_t slot);

  private:
    std::mutex mu_;
    bool       used_[kDspMaxSessions]   = {};
    npu_page * pages_[VHTP_MAX_NPUS]    = {};
    int        page_fds_[VHTP_MAX_NPUS] = {};
};

dsp_common & dsp_common_get();

}  // namespace vhtp
