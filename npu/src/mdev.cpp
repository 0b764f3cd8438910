// The device group's barrier and flush (see mdev.h for the protocol).
#include "mdev.h"

#include <stddef.h>

#include "htp/counters.h"

static volatile struct htp_fence_slot * fence_slot(const struct htp_mdev * m, uint32_t i) {
    return (volatile struct htp_fence_slot *) htp_va(m->fence_base + i * HTP_FENCE_SLOT_SIZE);
}

// seq and status travel as one 64-bit word (seq the low half: Hexagon and the vHTP's hosts are
// little-endian), so a reader never pairs a barrier's seq with another barrier's status. (Two
// stores let a peer read the old seq with the new error: it returned that error one barrier
// early, without signalling the barrier it left, and a member waiting there for it waited on.)
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "fence slot word: seq in the low half");
static_assert(offsetof(struct htp_fence_slot, seq) == 0 && offsetof(struct htp_fence_slot, status) == 4,
               "fence slot word: seq then status");

static void fence_write(volatile struct htp_fence_slot * f, uint32_t seq, int status) {
    const uint64_t w = (uint64_t) seq | ((uint64_t) (uint32_t) status << 32);
    __atomic_store_n((volatile uint64_t *) (volatile void *) f, w, __ATOMIC_RELEASE);
    htp_sync_ht();
    htp_dcache_clean_invalidate((const void *) f, HTP_FENCE_SLOT_SIZE);
    htp_fence_wake(&f->seq);
}

static void fence_read(volatile struct htp_fence_slot * f, uint32_t * seq, int * status) {
    htp_dcache_clean_invalidate((const void *) f, HTP_FENCE_SLOT_SIZE);
    htp_sync_ht();
    const uint64_t w = __atomic_load_n((volatile uint64_t *) (volatile void *) f, __ATOMIC_ACQUIRE);
    *seq             = (uint32_t) w;
    *status          = (int) (uint32_t) (w >> 32);
}

int htp_mdev_begin_batch(struct htp_mdev * m, const struct htp_msg_header * h, dma_addr_t fence_buf_addr) {
    m->peer_written.addr  = 0;
    m->peer_written.bytes = 0;
    m->idx   = h->mdev_count > 1 ? h->mdev_idx : 0;
    m->count = h->mdev_count > 1 ? h->mdev_count : 1;
    if (m->count == 1) {
        return HTP_STATUS_OK;
    }
    if (h->mdev_count > HTP_MDEV_MAX || h->mdev_idx >= h->mdev_count || h->mdev_count_div.d != h->mdev_count ||
        (h->fence_offset % HTP_FENCE_SLOT_SIZE) != 0) {
        return HTP_STATUS_BAD_MESSAGE;
    }
    m->count_div  = h->mdev_count_div;
    m->fence_base = fence_buf_addr + (dma_addr_t) h->fence_offset;
    m->fence_seq  = h->fence_seq;
    m->batch_seq  = h->fence_seq + 1;
    htp_fence_register((const void *) fence_slot(m, m->idx), m->idx, m->count);
    return HTP_STATUS_OK;
}

int htp_mdev_barrier(struct htp_mdev * m, struct htp_trace * tr, int status, uint16_t info) {
    const uint32_t seq = ++m->fence_seq;
    htp_trace_event_start(tr, HTP_TRACE_EVT_FENCE, info);
    fence_write(fence_slot(m, m->idx), seq, status);
    if (status != HTP_STATUS_OK) {
        htp_trace_event_stop(tr, HTP_TRACE_EVT_FENCE, info);
        return status;  // the peers see it and stop waiting for us
    }
    const uint64_t t0       = htp_cycles();
    const uint64_t deadline = t0 + HTP_FENCE_TIMEOUT_CYCLES;
    int            result   = HTP_STATUS_OK;
    // Every peer not yet arrived is read on each round, so that an error of any of them ends
    // the wait at once, even while another peer (which may have stopped on that error) is
    // still missing.
    uint32_t arrived = 1u << m->idx;
    const uint32_t all = m->count >= 32 ? ~0u : (1u << m->count) - 1;
    for (uint32_t spins = 0; arrived != all && result == HTP_STATUS_OK; spins++) {
        uint32_t missing = m->count, missing_seq = 0;
        for (uint32_t i = 0; i < m->count; i++) {
            if (arrived & (1u << i)) {
                continue;
            }
            uint32_t peer_seq;
            int      peer_status;
            fence_read(fence_slot(m, i), &peer_seq, &peer_status);
            const int32_t ahead = (int32_t) (peer_seq - seq);
            if (ahead > 0) {
                arrived |= 1u << i;  // the peer passed this barrier (whatever happened to it later)
            } else if (peer_status != HTP_STATUS_OK && (int32_t) (peer_seq - m->batch_seq) >= 0) {
                result = peer_status;  // the peer failed in this batch, at or before this barrier
                break;
            } else if (ahead == 0) {
                arrived |= 1u << i;
            } else if (missing == m->count) {
                missing     = i;
                missing_seq = peer_seq;
            }
        }
        if (arrived == all || result != HTP_STATUS_OK) {
            break;
        }
        if (htp_cycles() > deadline) {
            result = HTP_STATUS_FENCE_ERROR;
            break;
        }
        if (spins >= 16) {  // a short spin, then sleep until the first missing peer's slot changes
            htp_fence_wait(&fence_slot(m, missing)->seq, missing_seq, 10ull * 1000 * 1000);
        }
    }
    htp_trace_event_stop(tr, HTP_TRACE_EVT_FENCE, info);
    HTP_COUNT(HTP_CNT_FENCE_WAIT_NS, htp_cycles() - t0);
    return result;
}

void htp_mdev_flush(const struct htp_dirty_range * r, uint32_t n, struct htp_trace * tr) {
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        total += r[i].bytes;
    }
    const uint64_t kib   = (total + 1023) >> 10;
    const int      whole = total > HTP_DCACHE_FLUSH_ALL_BYTES;
    const uint16_t info  = (uint16_t) ((whole ? HTP_L2FLUSH_INFO_ALL : 0) | (kib < 0x7fff ? kib : 0x7fff));
    htp_trace_event_start(tr, HTP_TRACE_EVT_L2FLUSH, info);
    if (whole) {
        htp_dcache_flush_all();
    } else {
        for (uint32_t i = 0; i < n; i++) {
            htp_dcache_clean(htp_va(r[i].addr), r[i].bytes);
        }
    }
    htp_trace_event_stop(tr, HTP_TRACE_EVT_L2FLUSH, info);
}

void htp_mdev_invalidate(const struct htp_dirty_range * r, uint32_t n) {
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        total += r[i].bytes;
    }
    if (total > HTP_DCACHE_FLUSH_ALL_BYTES) {
        htp_dcache_flush_all();
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        htp_dcache_invalidate(htp_va(r[i].addr), r[i].bytes);
    }
}

void htp_mdev_share_trace(const struct htp_mdev * m, void * trace_buf) {
    if (m->count > 1 && trace_buf) {
        htp_fence_coherent(trace_buf);
    }
}

int htp_mdev_before_op(struct htp_mdev * m, struct htp_trace * tr, int status, uint32_t i,
                       struct htp_dirty_range dst, uint32_t * failed) {
    if (m->count == 1) {
        return status;
    }
    int st = htp_mdev_barrier(m, tr, status, (uint16_t) i);
    const int fault = st == HTP_STATUS_OK ? htp_fault_take() : HTP_STATUS_OK;
    if (fault != HTP_STATUS_OK) {
        st      = fault;
        *failed = i ? i - 1 : 0;
    }
    if (m->peer_written.bytes) {
        htp_mdev_invalidate(&m->peer_written, 1);
    }
    m->peer_written.addr  = dst.addr;
    m->peer_written.bytes = st == HTP_STATUS_OK ? dst.bytes : 0;
    return st;
}

void htp_mdev_after_op(struct htp_mdev * m, struct htp_trace * tr, int status, struct htp_dirty_range dst) {
    if (m->count > 1 && status == HTP_STATUS_OK) {
        htp_mdev_flush(&dst, 1, tr);
    }
}

void htp_mdev_fail(struct htp_mdev * m, struct htp_trace * tr, int status, uint16_t info, int after_op) {
    if (m->count == 1) {
        return;
    }
    htp_mdev_barrier(m, tr, status, info);
    if (after_op) {
        htp_dcache_flush_all();
    }
}

int htp_mdev_end_batch(struct htp_mdev * m, struct htp_trace * tr, uint32_t n_ops) {
    if (m->count == 1) {
        return HTP_STATUS_OK;
    }
    int st = htp_mdev_barrier(m, tr, HTP_STATUS_OK, (uint16_t) n_ops);
    if (st == HTP_STATUS_OK) {
        st = htp_fault_take();
    }
    if (m->peer_written.bytes) {
        htp_mdev_invalidate(&m->peer_written, 1);
    }
    return st;
}
