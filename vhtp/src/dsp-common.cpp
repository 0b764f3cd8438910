// The pages every DSP process of this host process shares (dsp-common.h).
#include "dsp-common.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

#include "error.h"
#include "mdev-board.h"
#include "npu.h"

namespace vhtp {

bool dsp_common::init(char * err, size_t err_len) {
    std::lock_guard<std::mutex> lock(mu_);
    if (shared) {
        return true;
    }
    if (board_fd < 0 && !mdev_board_create(&board_fd, err, err_len)) {
        return false;
    }
    state_fd = memfd_create("vhtp-dsp-state", MFD_CLOEXEC);
    if (state_fd < 0 || ftruncate(state_fd, sizeof(dsp_shared)) != 0) {
        set_error(err, err_len, "cannot create the DSP state page: %s", strerror(errno));
        return false;
    }
    void * p = mmap(nullptr, sizeof(dsp_shared), PROT_READ | PROT_WRITE, MAP_SHARED, state_fd, 0);
    if (p == MAP_FAILED) {
        set_error(err, err_len, "cannot map the DSP state page: %s", strerror(errno));
        return false;
    }
    auto * st = new (p) dsp_shared{};
    st->magic = kDspMagic;
    for (uint32_t i = 0; i < kDspMaxProcs; i++) {
        st->crash_slot[i].store(-1);
    }
    shared = st;
    return true;
}

int dsp_common::npu_page_fd(uint32_t npu, char * err, size_t err_len) {
    std::lock_guard<std::mutex> lock(mu_);
    if (npu >= VHTP_MAX_NPUS) {
        return -1;
    }
    if (!pages_[npu]) {
        const int fd = memfd_create("vhtp-npu", MFD_CLOEXEC);
        if (fd < 0 || ftruncate(fd, sizeof(npu_page)) != 0) {
            set_error(err, err_len, "cannot create NPU %u's page: %s", npu, strerror(errno));
            if (fd >= 0) {
                ::close(fd);
            }
            return -2;
        }
        void * p = mmap(nullptr, sizeof(npu_page), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED) {
            set_error(err, err_len, "cannot map NPU %u's page: %s", npu, strerror(errno));
            ::close(fd);
            return -2;
        }
        pages_[npu]    = npu_page_init(p);
        page_fds_[npu] = fd;
    }
    return page_fds_[npu];
}

npu_page * dsp_common::page(uint32_t npu) {
    std::lock_guard<std::mutex> lock(mu_);
    return npu < VHTP_MAX_NPUS ? pages_[npu] : nullptr;
}

int dsp_common::take_slot() {
    std::lock_guard<std::mutex> lock(mu_);
    for (uint32_t i = 0; i < kDspMaxSessions; i++) {
        if (!used_[i]) {
            used_[i] = true;
            return (int) i;
        }
    }
    return -1;
}

void dsp_common::give_slot(uint32_t slot) {
    std::lock_guard<std::mutex> lock(mu_);
    used_[slot] = false;
}

dsp_common & dsp_common_get() {
    static dsp_common * c = new dsp_common;  // never destroyed, as the links (dsp-client.cpp)
    return *c;
}

}  // namespace vhtp
