// Shared-memory rings of the session message queue (see msg-queue.h).
// A slot is a uint32 length, 4 bytes of padding and slot_size bytes of payload. The memfd is
// sparse: a 4 MiB request slot costs memory only for the pages messages actually touch.
#include "msg-queue.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <cstring>
#include <new>

#include "error.h"
#include "futex.h"

namespace vhtp {

namespace {
constexpr uint32_t kMagic = 0x51485456;  // "VTHQ"

bool closed(const queue_header * h) {
    return h->closed.load(std::memory_order_acquire) != 0;
}
}  // namespace

bool msg_queue::create(uint32_t max_msg, uint32_t max_resp, char * err, size_t err_len) {
    const uint64_t req_off  = 4096;
    const uint64_t resp_off = req_off + uint64_t(kReqSlots) * (max_msg + 8);
    size_              = resp_off + uint64_t(kRespSlots) * (max_resp + 8);
    fd_                = memfd_create("vhtp-msg-queue", MFD_CLOEXEC);
    if (fd_ < 0 || ftruncate(fd_, static_cast<off_t>(size_)) != 0) {
        set_error(err, err_len, "cannot create the session message queue: %s", strerror(errno));
        return false;
    }
    void * p = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
    if (p == MAP_FAILED) {
        set_error(err, err_len, "cannot map the session message queue: %s", strerror(errno));
        return false;
    }
    mem_ = static_cast<uint8_t *>(p);
    hdr_ = new (mem_) queue_header{};
    hdr_->magic          = kMagic;
    hdr_->req.n_slots    = kReqSlots;
    hdr_->req.slot_size  = max_msg;
    hdr_->req.offset     = req_off;
    hdr_->resp.n_slots   = kRespSlots;
    hdr_->resp.slot_size = max_resp;
    hdr_->resp.offset    = resp_off;
    return true;
}

bool msg_queue::attach(int fd, size_t size, char * err, size_t err_len) {
    void * p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        set_error(err, err_len, "cannot map the session message queue: %s", strerror(errno));
        ::close(fd);
        return false;
    }
    fd_   = fd;
    size_ = size;
    mem_  = static_cast<uint8_t *>(p);
    hdr_  = reinterpret_cast<queue_header *>(mem_);
    if (hdr_->magic != kMagic) {
        set_error(err, err_len, "the session message queue is not one (magic %08x)", hdr_->magic);
        return false;
    }
    return true;
}

msg_queue::~msg_queue() {
    if (mem_) {
        munmap(mem_, size_);
    }
    if (fd_ >= 0) {
        ::close(fd_);
    }
}

void msg_queue::close() {
    hdr_->closed.store(1, std::memory_order_release);
    notify(hdr_->req.head, hdr_->req.head_waiters, true);
    notify(hdr_->req.tail, hdr_->req.tail_waiters, true);
    notify(hdr_->resp.head, hdr_->resp.head_waiters, true);
    notify(hdr_->resp.tail, hdr_->resp.tail_waiters, true);
}

bool msg_queue::send(const void * msg, uint32_t len) {
    ring_header &  r    = hdr_->req;
    const uint32_t head = r.head.load(std::memory_order_relaxed);
    auto has_room = [&] { return head - r.tail.load(std::memory_order_acquire) < r.n_slots || closed(hdr_); };
    wait_until(r.tail, r.tail_waiters, has_room, true);
    if (closed(hdr_)) {
        return false;
    }
    uint8_t * s = slot(r, head);
    memcpy(s, &len, sizeof(len));
    memcpy(s + 8, msg, len);
    // Unlike notify(): head is itself the consumer's futex word, so storing it is the change.
    r.head.store(head + 1, std::memory_order_seq_cst);
    wake(r.head, r.head_waiters, true);
    return true;
}

bool msg_queue::next_request(const void ** data, uint32_t * len) {
    ring_header &  r    = hdr_->req;
    const uint32_t tail = r.tail.load(std::memory_order_relaxed);
    auto ready = [&] { return r.head.load(std::memory_order_acquire) != tail || closed(hdr_); };
    wait_until(r.head, r.head_waiters, ready, true);
    if (closed(hdr_)) {
        return false;
    }
    const uint8_t * s = slot(r, tail);
    memcpy(len, s, sizeof(*len));
    *data = s + 8;
    return true;
}

void msg_queue::pop_request() {
    ring_header & r = hdr_->req;
    r.tail.store(r.tail.load(std::memory_order_relaxed) + 1, std::memory_order_seq_cst);
    wake(r.tail, r.tail_waiters, true);
}

bool msg_queue::response_slot(void ** data, uint32_t * cap) {
    ring_header &  r    = hdr_->resp;
    const uint32_t head = r.head.load(std::memory_order_relaxed);
    auto has_room = [&] { return head - r.tail.load(std::memory_order_acquire) < r.n_slots || closed(hdr_); };
    wait_until(r.tail, r.tail_waiters, has_room, true);
    if (closed(hdr_)) {
        return false;
    }
    *data = slot(r, head) + 8;
    *cap  = r.slot_size;
    return true;
}

void msg_queue::push_response(uint32_t len) {
    ring_header &  r    = hdr_->resp;
    const uint32_t head = r.head.load(std::memory_order_relaxed);
    memcpy(slot(r, head), &len, sizeof(len));
    r.head.store(head + 1, std::memory_order_seq_cst);
    wake(r.head, r.head_waiters, true);
}

bool msg_queue::peek_response(const void ** data, uint32_t * len, bool poll) {
    ring_header &  r    = hdr_->resp;
    const uint32_t tail = r.tail.load(std::memory_order_relaxed);
    auto ready = [&] { return r.head.load(std::memory_order_acquire) != tail || closed(hdr_); };
    if (poll) {
        spin_until(ready);  // never a sleeper: push_response's wake() finds no waiter, no syscall
    } else {
        wait_until(r.head, r.head_waiters, ready, true);
    }
    if (r.head.load(std::memory_order_acquire) == tail) {
        return false;  // closed with nothing left
    }
    const uint8_t * s = slot(r, tail);
    memcpy(len, s, sizeof(*len));
    *data = s + 8;
    return true;
}

int msg_queue::peek_response_for(const void ** data, uint32_t * len, bool poll, uint32_t timeout_ms) {
    ring_header &  r    = hdr_->resp;
    const uint32_t tail = r.tail.load(std::memory_order_relaxed);
    auto ready = [&] { return r.head.load(std::memory_order_acquire) != tail || closed(hdr_); };
    if (poll) {
        timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (int i = 1; !ready(); ++i) {
            if (i % kYieldIters == 0) {
                sched_yield();
                clock_gettime(CLOCK_MONOTONIC, &t);
                if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 >= (long) timeout_ms) {
                    return 0;
                }
            } else {
                cpu_relax();
            }
        }
    } else if (!wait_until_for(r.head, r.head_waiters, ready, true, timeout_ms)) {
        return 0;
    }
    if (r.head.load(std::memory_order_acquire) == tail) {
        return -1;  // closed with nothing left
    }
    const uint8_t * s = slot(r, tail);
    memcpy(len, s, sizeof(*len));
    *data = s + 8;
    return 1;
}

void msg_queue::pop_response() {
    ring_header & r = hdr_->resp;
    r.tail.store(r.tail.load(std::memory_order_relaxed) + 1, std::memory_order_seq_cst);
    wake(r.tail, r.tail_waiters, true);
}

}  // namespace vhtp
