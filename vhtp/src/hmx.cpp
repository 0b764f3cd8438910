// HMX unit model: exclusive ownership, 32x32 fp16 tile pairs accumulated in fp32, stores with
// per-column scale and bias, and the decoded weight tiles kept while their bytes are unchanged.
// Two arithmetic models (documented in htp/hmx.h, chosen by GGML_HEXAGON_HMX_MODEL; the sums
// themselves are in hmx-arith.h): fp32 (the default) sums each tile pair's 32 exact products in
// fp32 in k order, one rounding per addition, 8 columns per AVX2 FMA; exact sums them exactly
// with one fp32 rounding per tile pair, in doubles or 128-bit fixed point. Both add the tile
// pair's sum to the fp32 accumulator (one rounding); store is fused, then fp16.
#include "hmx.h"

#include <immintrin.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core.h"
#include "hmx-arith.h"
#include "futex.h"
#include "htp-abi/htp-status.h"

using namespace vhtp::hmx_arith;

namespace vhtp {

// Tile t of an mma call keeps slot t (one column tile's weights: slot t meets the same tile at
// every activation block). A slot is used again only when the tile's address and all of its
// 2 KiB are unchanged since it was decoded; anything else decodes afresh.
struct hmx_weight_cache {
    static constexpr uint32_t kMaxTiles = 128;  // K up to 4096 cached (~1.3 MiB); tiles past it decode each call
    std::vector<weight_tile>   slots;
    weight_tile                scratch;  // tiles past kMaxTiles
    std::vector<weight_tile_f> slots_f;  // the same for the fp32 model
    weight_tile_f              scratch_f;

    // decoded: the tile was decoded now, so rw holds its rows (a kept tile leaves rw alone).
    const weight_tile & get(uint32_t t, dma_addr_t addr, const uint16_t * b, fp16_row * rw, bool & decoded) {
        return keep(slots, scratch, t, addr, b, decoded, [&](weight_tile & d) { decode_weight_tile(b, rw, d); });
    }

    const weight_tile_f & get_f(uint32_t t, dma_addr_t addr, const uint16_t * b) {
        bool decoded;
        return keep(slots_f, scratch_f, t, addr, b, decoded, [&](weight_tile_f & d) { decode_weight_tile_f(b, d); });
    }

  private:
    // Tile t of either model: the kept slot while its bytes at addr are unchanged, else decoded
    // again (tiles past kMaxTiles decode into the scratch tile every call).
    template <class Tile, class Decode>
    static const Tile & keep(std::vector<Tile> & kept, Tile & spare, uint32_t t, dma_addr_t addr, const uint16_t * b,
                             bool & decoded, Decode decode) {
        decoded = true;
        if (t >= kMaxTiles) {
            decode(spare);
            return spare;
        }
        if (t >= kept.size()) {
            kept.resize(t + 1);  // value-initialized: not valid
        }
        Tile & s = kept[t];
        if (s.valid && s.addr == addr && std::memcmp(s.raw, b, sizeof s.raw) == 0) {
            decoded = false;
            return s;
        }
        decode(s);
        std::memcpy(s.raw, b, sizeof s.raw);
        s.addr  = addr;
        s.valid = true;
        return s;
    }
};

hmx_model hmx_default_model() {
    static std::atomic<int> warned{ 0 };
    const char *            v = std::getenv("GGML_HEXAGON_HMX_MODEL");
    if (!v || !*v || std::strcmp(v, "fp32") == 0) {
        return hmx_model::fp32;
    }
    if (std::strcmp(v, "exact") == 0) {
        return hmx_model::exact;
    }
    if (warned.exchange(1) == 0) {
        std::fprintf(stderr, "vhtp: GGML_HEXAGON_HMX_MODEL=%s: expected fp32 or exact; ignored, using fp32\n", v);
    }
    return hmx_model::fp32;
}

}  // namespace vhtp

namespace {

int check(htp_hmx * h, dma_addr_t addr, uint32_t bytes, uint32_t align) {
    if (addr % align || addr < h->vtcm_base || addr - h->vtcm_base > h->vtcm_size ||
        bytes > h->vtcm_size - (addr - h->vtcm_base)) {
        return HTP_STATUS_BAD_PARAMS;
    }
    return HTP_STATUS_OK;
}

uint32_t this_tid() {
    static thread_local const uint32_t tid = (uint32_t) syscall(SYS_gettid);
    return tid;
}

bool owned(htp_hmx * h) {
    return h->lock->word.load(std::memory_order_acquire) == this_tid() &&
           h->lock->holder.load(std::memory_order_relaxed) == reinterpret_cast<uintptr_t>(h);
}

}  // namespace

namespace vhtp {

htp_hmx * hmx_create(uint8_t * window_base, dma_addr_t vtcm_base, uint32_t vtcm_size, hmx_lock * lock) {
    htp_hmx * h     = new htp_hmx;
    h->window_base  = window_base;
    h->vtcm_base    = vtcm_base;
    h->vtcm_size    = vtcm_size;
    h->lock         = lock ? lock : &h->own_lock;
    h->model        = hmx_default_model();
    h->wcache.reset(new hmx_weight_cache);
    std::memset(h->acc, 0, sizeof h->acc);
    return h;
}

void hmx_destroy(htp_hmx * hmx) {
    delete hmx;
}

}  // namespace vhtp

htp_hmx::~htp_hmx() = default;  // here, where hmx_weight_cache is complete

extern "C" {

HTP_DEVICE_API int htp_hmx_acquire(htp_hmx * h) {
    vhtp::hmx_lock & u   = *h->lock;
    const uint32_t   tid = this_tid();
    if (u.word.load(std::memory_order_relaxed) == tid) {
        return HTP_STATUS_INTERNAL;  // it already owns the NPU's unit (through any session): waiting would hang
    }
    for (;;) {
        uint32_t expected = 0;
        if (u.word.compare_exchange_strong(expected, tid, std::memory_order_acq_rel)) {
            break;
        }
        vhtp::wait_until(u.word, u.waiters, [&u] { return u.word.load(std::memory_order_acquire) == 0; }, true);
    }
    u.pid.store((int32_t) getpid(), std::memory_order_relaxed);
    u.holder.store(reinterpret_cast<uintptr_t>(h), std::memory_order_relaxed);
    std::memset(h->acc, 0, sizeof h->acc);
    return HTP_STATUS_OK;
}

HTP_DEVICE_API int htp_hmx_release(htp_hmx * h) {
    vhtp::hmx_lock & u = *h->lock;
    if (!owned(h)) {
        return HTP_STATUS_INTERNAL;
    }
    u.holder.store(0, std::memory_order_relaxed);
    u.pid.store(0, std::memory_order_relaxed);
    u.word.store(0, std::memory_order_release);
    vhtp::wake(u.word, u.waiters, true);
    return HTP_STATUS_OK;
}

HTP_DEVICE_API int htp_hmx_clear(htp_hmx * h) {
    if (!owned(h)) {
        return HTP_STATUS_INTERNAL;
    }
    std::memset(h->acc, 0, sizeof h->acc);
    return HTP_STATUS_OK;
}

HTP_DEVICE_API int htp_hmx_mma_entry(htp_hmx * h, uint32_t n_k, dma_addr_t act, dma_addr_t w) {
    if (!owned(h)) {
        return HTP_STATUS_INTERNAL;
    }
    const uint64_t bytes = (uint64_t) n_k * HTP_HMX_TILE_BYTES;
    if (bytes > UINT32_MAX || check(h, act, (uint32_t) bytes, HTP_HMX_TILE_ALIGN) ||
        check(h, w, (uint32_t) bytes, HTP_HMX_TILE_ALIGN)) {
        return HTP_STATUS_BAD_PARAMS;
    }
    vhtp::count(HTP_CNT_HMX_TILES, n_k);
    vhtp::hmx_weight_cache & cache = *h->wcache;
    if (h->model == vhtp::hmx_model::fp32) {
        alignas(32) float af[D][D];  // the activation tile as floats
        for (uint32_t t = 0; t < n_k; t++) {
            const uint16_t * a = reinterpret_cast<const uint16_t *>(h->window_base + act + t * HTP_HMX_TILE_BYTES);
            const uint16_t * b = reinterpret_cast<const uint16_t *>(h->window_base + w + t * HTP_HMX_TILE_BYTES);
            halves_to_floats(a, &af[0][0], D * D);
            const weight_tile_f & wtile = cache.get_f(t, w + t * HTP_HMX_TILE_BYTES, b);
            int                   m     = 0;
            for (; m + 3 <= D; m += 3) {
                const float * ar[3]  = { af[m], af[m + 1], af[m + 2] };
                float *       out[3] = { h->acc[m], h->acc[m + 1], h->acc[m + 2] };
                rows_f32<3>(ar, wtile, out);
            }
            for (; m < D; m++) {
                const float * ar[1]  = { af[m] };
                float *       out[1] = { h->acc[m] };
                rows_f32<1>(ar, wtile, out);
            }
        }
        return HTP_STATUS_OK;
    }
    fp16_row                 ra[D], rw[D];  // the tile pair's operands, decoded once (not once per product row)
    for (uint32_t t = 0; t < n_k; t++) {
        const uint16_t * a = reinterpret_cast<const uint16_t *>(h->window_base + act + t * HTP_HMX_TILE_BYTES);
        const uint16_t * b = reinterpret_cast<const uint16_t *>(h->window_base + w + t * HTP_HMX_TILE_BYTES);
        for (int i = 0; i < D; i++) {
            decode_row(a + i * D, ra[i]);
        }
        bool                rw_full;  // rw holds this tile's rows
        const weight_tile & wtile = cache.get(t, w + t * HTP_HMX_TILE_BYTES, b, rw, rw_full);
        int vec_rows[D], n_vec = 0;  // rows whose every pair is on tile_dot's exact double path
        for (int m = 0; m < D; m++) {
            if (!wtile.special && !ra[m].special && (ra[m].smax - ra[m].smin) + wtile.spread <= 26) {
                vec_rows[n_vec++] = m;
                continue;
            }
            if (!rw_full) {  // a tile taken from the cache: its rows are decoded again for tile_dot
                for (int i = 0; i < D; i++) {
                    decode_row(b + i * D, rw[i]);
                }
                rw_full = true;
            }
            for (int n = 0; n < D; n++) {
                h->acc[m][n] += tile_dot(ra[m], rw[n], a + m * D, b + n * D);
            }
        }
        int i = 0;
        for (; i + 3 <= n_vec; i += 3) {
            rows3_side_by_side(ra[vec_rows[i]], ra[vec_rows[i + 1]], ra[vec_rows[i + 2]], wtile, h->acc[vec_rows[i]],
                               h->acc[vec_rows[i + 1]], h->acc[vec_rows[i + 2]]);
        }
        for (; i < n_vec; i++) {
            row_side_by_side(ra[vec_rows[i]], wtile, h->acc[vec_rows[i]]);
        }
    }
    return HTP_STATUS_OK;
}

HTP_DEVICE_API int htp_hmx_store_entry(htp_hmx * h, uint32_t flags, dma_addr_t out, dma_addr_t col_params) {
    if (!owned(h)) {
        return HTP_STATUS_INTERNAL;
    }
    const bool f32 = flags & HTP_HMX_OUT_F32;
    if (flags > HTP_HMX_OUT_F32 || check(h, out, f32 ? 2 * HTP_HMX_TILE_BYTES : HTP_HMX_TILE_BYTES, 128) ||
        check(h, col_params, HTP_HMX_COLPARAM_BYTES, 128)) {
        return HTP_STATUS_BAD_PARAMS;
    }
    vhtp::count(HTP_CNT_HMX_STORES, 1);
    float scale[D], bias[D];
    std::memcpy(scale, h->window_base + col_params, sizeof scale);
    std::memcpy(bias, h->window_base + col_params + sizeof scale, sizeof bias);
    uint8_t * dst = h->window_base + out;
    for (int m = 0; m < D; m++) {
        for (int n = 0; n < D; n++) {
            const float y = std::fma(h->acc[m][n], scale[n], bias[n]);  // one rounding
            if (f32) {
                std::memcpy(dst + (m * D + n) * 4, &y, 4);
            } else {
                const uint16_t v = f32_to_f16(y);
                std::memcpy(dst + (m * D + n) * 2, &v, 2);
            }
        }
    }
    return HTP_STATUS_OK;
}

}  // extern "C"
