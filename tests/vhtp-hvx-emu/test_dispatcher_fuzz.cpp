// A bounded random fuzzer of the real NPU library's message handling (npu/src/dispatcher.cpp):
// thousands of malformed batches (a header field, the length, a buffer-table entry or a tensor
// descriptor changed at random, or random bytes) each get one well-formed error answer, never
// a crash, a hang or a success, and the session answers a good batch afterwards. The ops'
// opcodes are out of range, so no kernel runs on the zeroed params: what is fuzzed is the
// structure every batch passes before a kernel sees it (a kernel's own params are its
// check_params'). The sanitizer builds run it too (scripts/sanitize.sh).
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "fixture-session-util.h"
#include "htp-abi/htp-abi.h"
#include "htp-abi/htp-fastdiv.h"

using vhtp_test::ddr_buffer;
using vhtp_test::session_env;

namespace {

constexpr uint32_t kIterations = 4000;
constexpr uint32_t kBadOpcode  = 0x7fff;  // no kernel: HTP_STATUS_UNSUPPORTED_OP if all else holds

class DispatcherFuzz : public ::testing::Test {
  protected:
    void SetUp() override {
        std::string why;
        s = vhtp_test::open_session(0, 0, vhtp_test::bin_path("libggml-htp-v79.so"), &why);
        ASSERT_NE(s, nullptr) << why;
    }
    void TearDown() override { vhtp_session_close(s); }

    // A well-formed batch of n_ops ops (f32 [64, 4] tensors in a and b) with kBadOpcode.
    std::vector<uint8_t> good_batch(uint32_t n_ops, uint32_t opcode = kBadOpcode) {
        htp_msg_header h{};
        h.magic          = HTP_MSG_MAGIC;
        h.abi_version    = HTP_ABI_VERSION;
        h.kind           = HTP_MSG_OPS;
        h.n_bufs         = 2;
        h.n_ops          = n_ops;
        h.seq            = ++seq;
        h.trace_buf      = HTP_NO_BUF;
        h.mdev_count     = 1;
        h.mdev_count_div = htp_fastdiv_init(1);
        h.fence_buf      = HTP_NO_BUF;
        std::vector<uint8_t> msg(htp_msg_size(h.n_bufs, n_ops));
        memcpy(msg.data(), &h, sizeof(h));
        const htp_buf_desc bufs[2] = { { a.fd, 0, a.size }, { b.fd, HTP_BUF_PINNED, b.size } };
        memcpy(msg.data() + sizeof(h), bufs, sizeof(bufs));
        for (uint32_t i = 0; i < n_ops; i++) {
            htp_op_desc op{};
            op.opcode = opcode;
            op.n_src  = 1;
            op.dst    = tensor(1, 0);
            op.src[0] = tensor(0, 1024 * i);
            for (uint32_t k = 1; k < HTP_MAX_SRC; k++) {
                op.src[k].buf = HTP_NO_BUF;
            }
            memcpy(msg.data() + sizeof(h) + sizeof(bufs) + i * sizeof(op), &op, sizeof(op));
        }
        return msg;
    }

    static htp_tensor_desc tensor(uint32_t buf, uint64_t offset) {
        htp_tensor_desc t{};
        t.buf    = buf;
        t.type   = 0;  // F32
        t.offset = offset;
        t.ne[0] = 64, t.ne[1] = 4, t.ne[2] = 1, t.ne[3] = 1;
        t.nb[0] = 4, t.nb[1] = 256, t.nb[2] = 1024, t.nb[3] = 1024;
        return t;
    }

    // Sends msg; returns the answer's header (its magic checked by the caller) and length.
    htp_batch_response exchange(const std::vector<uint8_t> & msg, uint32_t * len) {
        char err[256] = "";
        EXPECT_EQ(vhtp_session_send(s, msg.data(), uint32_t(msg.size()), err, sizeof(err)), 0) << err;
        std::vector<uint8_t> resp(VHTP_MAX_RESP_SIZE);
        EXPECT_EQ(vhtp_session_recv(s, resp.data(), uint32_t(resp.size()), len, err, sizeof(err)), 0) << err;
        htp_batch_response r{};
        if (*len >= sizeof(r)) {
            memcpy(&r, resp.data(), sizeof(r));
        }
        return r;
    }

    session_env    env;
    ddr_buffer     a{ 64 * 1024 }, b{ 64 * 1024 };
    vhtp_session * s   = nullptr;
    uint64_t       seq = 0;
};

// Overwrites a random field-sized piece of x with a random value or an edge case.
template <class T> void mutate(T & x, std::mt19937_64 & rng) {
    const uint64_t picks[] = { 0, 1, ~0ull, 0x7fffffffull, 0x80000000ull, 1ull << 32, rng() };
    const uint64_t v       = picks[rng() % 7] ^ (rng() % 3 == 0 ? rng() % 256 : 0);
    memcpy(&x, &v, sizeof(T));
}

}  // namespace

TEST_F(DispatcherFuzz, MalformedBatchesGetAnErrorAnswerNeverACrash) {
    std::mt19937_64 rng(20261202);
    uint32_t        by_status[64] = {};
    for (uint32_t it = 0; it < kIterations; it++) {
        std::vector<uint8_t> msg   = good_batch(1 + uint32_t(rng() % 3));
        auto *               h     = reinterpret_cast<htp_msg_header *>(msg.data());
        auto *               bufs  = reinterpret_cast<htp_buf_desc *>(msg.data() + sizeof(*h));
        auto *               ops   = reinterpret_cast<htp_op_desc *>(bufs + h->n_bufs);
        const uint32_t       n_ops = h->n_ops;
        const int            n_mut = 1 + int(rng() % 3);
        bool                 resize = false;
        for (int m = 0; m < n_mut; m++) {
            switch (rng() % 9) {
                case 0: mutate(h->magic, rng); break;
                case 1: mutate(h->abi_version, rng); break;
                case 2: mutate(h->kind, rng); break;
                case 3: mutate(rng() % 2 ? h->n_bufs : h->n_ops, rng); break;
                case 4: {  // a trace buffer, a group (its fastdiv left stale: never a real group)
                    h->flags |= HTP_MSG_FLAG_TRACE;
                    rng() % 2 ? mutate(h->trace_buf, rng) : mutate(h->trace_offset, rng);
                    if (rng() % 2) {
                        mutate(h->mdev_count, rng);
                        mutate(h->fence_buf, rng);
                    }
                    break;
                }
                case 5:  // the length: cut or grown, after the other changes
                    resize = true;
                    break;
                case 6: {  // a buffer-table entry
                    htp_buf_desc & d = bufs[rng() % 2];
                    rng() % 2 ? mutate(d.fd, rng) : mutate(d.size, rng);
                    break;
                }
                case 7: {  // a tensor descriptor
                    htp_op_desc &     op = ops[rng() % n_ops];
                    htp_tensor_desc & t  = rng() % 2 ? op.dst : op.src[rng() % HTP_MAX_SRC];
                    switch (rng() % 5) {
                        case 0: mutate(t.buf, rng); break;
                        case 1: mutate(t.offset, rng); break;
                        case 2: mutate(t.ne[rng() % 4], rng); break;
                        case 3: mutate(t.nb[rng() % 4], rng); break;
                        default: mutate(t.type, rng); break;
                    }
                    if (rng() % 4 == 0) {
                        mutate(op.n_src, rng);
                    }
                    break;
                }
                default:  // random bytes anywhere
                    msg[rng() % msg.size()] = uint8_t(rng());
                    break;
            }
        }
        // No kernel may run on the zeroed params, whatever the mutations left of the opcodes.
        for (uint32_t i = 0; i < n_ops; i++) {
            ops[i].opcode = kBadOpcode;
        }
        if (resize) {
            const size_t n = msg.size();
            msg.resize(rng() % 2 ? n - 1 - rng() % (n - 1) : n + 1 + rng() % 4096, 0xa5);
        }
        uint32_t                 len = 0;
        const htp_batch_response r   = exchange(msg, &len);
        ASSERT_GE(len, sizeof(r)) << "iteration " << it;
        ASSERT_EQ(r.magic, HTP_RESP_MAGIC) << "iteration " << it;
        ASSERT_NE(r.status, HTP_STATUS_OK) << "iteration " << it << ": a malformed batch succeeded";
        ASSERT_LE(len, htp_response_size(n_ops + 3)) << "iteration " << it;
        by_status[uint32_t(r.status) % 64]++;
    }
    // The session still runs a good batch (no op) afterwards.
    uint32_t                 len = 0;
    const htp_batch_response r   = exchange(good_batch(0), &len);
    EXPECT_EQ(r.status, HTP_STATUS_OK);
    EXPECT_EQ(r.seq, seq);
    // The structural checks answered most, not the opcode lookup alone.
    EXPECT_GT(by_status[HTP_STATUS_BAD_MESSAGE], kIterations / 2);
    EXPECT_GT(by_status[HTP_STATUS_UNSUPPORTED_OP], 0u);
}

// The checks the fuzzer leans on, one by one: a descriptor past its buffer's end (by offset,
// by shape, by stride, by a partial block) is refused before any kernel runs.
TEST_F(DispatcherFuzz, TensorDescriptorsMustLieInsideTheirBuffers) {
    auto status_with = [&](void (*change)(htp_op_desc &)) {
        std::vector<uint8_t> msg = good_batch(1);
        auto * op = reinterpret_cast<htp_op_desc *>(msg.data() + sizeof(htp_msg_header) + 2 * sizeof(htp_buf_desc));
        change(*op);
        uint32_t len = 0;
        return exchange(msg, &len).status;
    };
    EXPECT_EQ(status_with([](htp_op_desc &) {}), HTP_STATUS_UNSUPPORTED_OP);  // the template is valid
    EXPECT_EQ(status_with([](htp_op_desc & o) { o.dst.offset = 64 * 1024 - 512; }), HTP_STATUS_BAD_MESSAGE);
    EXPECT_EQ(status_with([](htp_op_desc & o) { o.src[0].ne[1] = 1000; }), HTP_STATUS_BAD_MESSAGE);
    EXPECT_EQ(status_with([](htp_op_desc & o) { o.src[0].nb[1] = 1u << 20; }), HTP_STATUS_BAD_MESSAGE);
    EXPECT_EQ(status_with([](htp_op_desc & o) { o.dst.type = 8, o.dst.ne[0] = 48; }), HTP_STATUS_BAD_MESSAGE);
    EXPECT_EQ(status_with([](htp_op_desc & o) { o.dst.buf = 2; }), HTP_STATUS_BAD_MESSAGE);
    EXPECT_EQ(status_with([](htp_op_desc & o) { o.n_src = HTP_MAX_SRC + 1; }), HTP_STATUS_BAD_MESSAGE);
    // An empty tensor touches nothing: any offset inside the buffer will do.
    EXPECT_EQ(status_with([](htp_op_desc & o) { o.dst.ne[2] = 0, o.dst.offset = 64 * 1024 - 4; }),
              HTP_STATUS_UNSUPPORTED_OP);
}
