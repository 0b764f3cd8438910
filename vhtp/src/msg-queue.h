// The session message queue: a request ring (host -> session) and a response ring (session ->
// host) in one memfd, with 32-bit atomic indices and process-shared futexes, so that the
// session side could run in another process that maps the same fd. Each ring has one producer
// and one consumer (vhtp_session serializes host callers).
//
// Messages are handled in place: the session thread passes the request slot to htp_lib_handle
// and lets it write the response straight into the response slot.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace vhtp {

struct ring_header {
    std::atomic<uint32_t> head;  // produced (futex word for the consumer)
    std::atomic<uint32_t> tail;  // consumed (futex word for the producer)
    std::atomic<uint32_t> head_waiters;
    std::atomic<uint32_t> tail_waiters;
    uint32_t              n_slots;
    uint32_t              slot_size;  // bytes of payload per slot
    uint64_t              offset;     // of slot 0 from the start of the shared memory
};

struct queue_header {
    uint32_t              magic;
    std::atomic<uint32_t> closed;  // set once; both rings' waiters give up
    ring_header           req;
    ring_header           resp;
};

class msg_queue {
  public:
    static constexpr uint32_t kReqSlots  = 4;
    static constexpr uint32_t kRespSlots = 4;

    msg_queue() = default;
    ~msg_queue();
    msg_queue(const msg_queue &) = delete;
    msg_queue & operator=(const msg_queue &) = delete;

    bool create(uint32_t max_msg, uint32_t max_resp, char * err, size_t err_len);
    // The session side in another process: maps the memfd the host created (takes the fd).
    bool attach(int fd, size_t size, char * err, size_t err_len);
    int    fd() const { return fd_; }
    size_t size() const { return size_; }

    // Host side. send blocks while the request ring is full; recv while no response is ready.
    // Both return false once the queue is closed.
    bool send(const void * msg, uint32_t len);
    // Blocks (sleeping, or with poll spinning: spin_until) for the next response; the slot stays
    // owned by the ring until pop_response.
    bool peek_response(const void ** data, uint32_t * len, bool poll = false);
    // As peek_response, but gives up after about timeout_ms: 1 got one, 0 not yet, -1 closed.
    int peek_response_for(const void ** data, uint32_t * len, bool poll, uint32_t timeout_ms);
    void pop_response();

    // Session side.
    bool next_request(const void ** data, uint32_t * len);  // blocks; false when closed
    void pop_request();
    bool response_slot(void ** data, uint32_t * cap);        // blocks for a free slot
    void push_response(uint32_t len);

    void close();

  private:
    uint8_t * slot(const ring_header & r, uint32_t i) const { return mem_ + r.offset + uint64_t(i % r.n_slots) * (r.slot_size + 8); }

    int            fd_   = -1;
    uint8_t *      mem_  = nullptr;
    size_t         size_ = 0;
    queue_header * hdr_  = nullptr;
};

}  // namespace vhtp
