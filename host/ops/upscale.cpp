// Host side of UPSCALE (F32; npu/ops/upscale.cpp): each axis as exact rationals, checked index
// by index against ggml-cpu's float formulas (ggml_compute_forward_upscale_f32 in
// ggml/src/ggml-cpu/ops.cpp of the pinned llama.cpp) before the op is accepted, and the row
// streaming plan.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "encode-util.h"
#include "htp-abi/htp-upscale.h"

using namespace htp_enc;

namespace {

struct upscale_plan {
    uint32_t         mode;
    htp_upscale_axis ax[4];
};

// ggml-cpu's index formulas for output i of an axis of n outputs from m sources, in its float
// arithmetic: lo is the (first) index, hi antialias' window end.
struct cpu_axis {
    float sf, po;
};

static cpu_axis cpu_of(int64_t n, int64_t m, bool align) {
    cpu_axis c = { (float) n / m, 0.5f };
    if (align) {
        c.po = 0.0f;
        c.sf = n > 1 && m > 1 ? (float) (n - 1) / (m - 1) : c.sf;
    }
    return c;
}

static void cpu_index(const cpu_axis & c, uint32_t mode, int64_t i, int64_t m, int64_t & lo, int64_t & hi) {
    hi = 0;
    switch (mode) {
        case HTP_UPSCALE_NEAREST:
            lo = (int64_t) ((float) i / c.sf);
            break;
        case HTP_UPSCALE_BILINEAR_AA: {
            const float x       = ((float) i + c.po) / c.sf;
            const float support = std::max(1.0f, 1.0f / c.sf);
            lo                  = std::max<int64_t>((int64_t) (x - support + c.po), 0);
            hi                  = std::min<int64_t>((int64_t) (x + support + c.po), m);
            break;
        }
        default: {  // bilinear, bicubic: floor of the position
            const float x = ((float) i + c.po) / c.sf - c.po;
            lo            = (int64_t) floorf(x);
            break;
        }
    }
}

// The axis of n outputs from m sources; false when its rationals leave the 31-bit range or
// give any index other than ggml-cpu's.
static bool make_axis(htp_upscale_axis & ax, uint32_t mode, int64_t n, int64_t m, bool align) {
    std::memset(&ax, 0, sizeof(ax));
    if (n <= 0 || m <= 0) {
        return false;
    }
    const cpu_axis c      = cpu_of(n, m, align);
    const bool     half   = c.po != 0.0f;
    const bool     corner = align && n > 1 && m > 1;
    const int64_t  mm = corner ? m - 1 : m, nn = corner ? n - 1 : n;
    int64_t        a = mm, d = nn, b_pos = 0, b_lo = 0, b_hi = 0, cc = 0;
    if (mode == HTP_UPSCALE_BILINEAR || mode == HTP_UPSCALE_BICUBIC) {
        if (half) {  // x = (i + 1/2) m / n - 1/2
            a = 2 * mm, d = 2 * nn, b_pos = b_lo = mm - nn;
        }
    } else if (mode == HTP_UPSCALE_BILINEAR_AA) {
        if (half) {  // centre (i + 1/2) m / n
            a = 2 * mm, d = 2 * nn, b_pos = mm, cc = nn;
        }
        const float   support = std::max(1.0f, 1.0f / c.sf);
        const int64_t s       = support == 1.0f ? d : (half ? 2 * mm : mm);  // d * support
        b_lo                  = b_pos - s + cc;
        b_hi                  = b_pos + s + cc;
        ax.invscale           = 1.0f / support;
    }
    const int64_t k = std::max<int64_t>(0, (-std::min(b_lo, b_hi) + d - 1) / d);
    const int64_t lim = (int64_t) 1 << 31;
    if (a * (n - 1) + std::max({ b_lo, b_hi, b_pos, (int64_t) 0 }) + k * d >= lim || d * (m + 2) + a * n >= lim ||
        -b_pos >= lim) {
        return false;
    }
    ax.a      = (uint32_t) a;
    ax.b_pos  = (int32_t) b_pos;
    ax.b_lo   = (int32_t) b_lo;
    ax.b_hi   = (int32_t) b_hi;
    ax.k      = (uint32_t) k;
    ax.d      = htp_fastdiv_init((uint32_t) d);
    ax.inv_d  = 1.0f / (float) d;
    ax.c      = (int32_t) cc;
    ax.n_src  = (uint32_t) m;
    ax.taps   = mode == HTP_UPSCALE_NEAREST ? 1 : mode == HTP_UPSCALE_BILINEAR ? 2 : mode == HTP_UPSCALE_BICUBIC ? 4 : 1;
    for (int64_t i = 0; i < n; i++) {
        int64_t lo, hi;
        cpu_index(c, mode, i, m, lo, hi);
        const int32_t f = htp_upscale_floor(&ax, (uint32_t) i, ax.b_lo);
        if (mode == HTP_UPSCALE_BILINEAR_AA) {
            const int32_t g = std::min<int32_t>(htp_upscale_floor(&ax, (uint32_t) i, ax.b_hi), (int32_t) m);
            if (std::max(f, 0) != lo || g != hi) {
                return false;
            }
            ax.taps = std::max<uint32_t>(ax.taps, (uint32_t) std::max<int64_t>(hi - lo, 1));
        } else if (f != lo) {
            return false;
        }
    }
    return ax.taps <= HTP_UPSCALE_MAX_TAPS;
}

static bool make_plan(const ggml_tensor * op, upscale_plan & pl) {
    const ggml_tensor * a     = op->src[0];
    const int32_t       flags = op->op_params[0];
    const int32_t       base  = flags & 0xFF;
    const bool          align = (flags & GGML_SCALE_FLAG_ALIGN_CORNERS) != 0;
    const bool          aa    = (flags & GGML_SCALE_FLAG_ANTIALIAS) != 0;
    if ((flags & ~(0xFF | GGML_SCALE_FLAG_ALIGN_CORNERS | GGML_SCALE_FLAG_ANTIALIAS)) != 0) {
        return false;
    }
    switch (base) {
        case GGML_SCALE_MODE_NEAREST:
            pl.mode = HTP_UPSCALE_NEAREST;
            break;
        case GGML_SCALE_MODE_BILINEAR:
            pl.mode = aa ? HTP_UPSCALE_BILINEAR_AA : HTP_UPSCALE_BILINEAR;
            break;
        case GGML_SCALE_MODE_BICUBIC:
            pl.mode = HTP_UPSCALE_BICUBIC;
            break;
        default:
            return false;
    }
    if (aa && base != GGML_SCALE_MODE_BILINEAR) {
        return false;  // ggml_interpolate asserts it
    }
    return make_axis(pl.ax[0], pl.mode, op->ne[0], a->ne[0], align) && make_axis(pl.ax[1], pl.mode, op->ne[1], a->ne[1], align) &&
           make_axis(pl.ax[2], HTP_UPSCALE_NEAREST, op->ne[2], a->ne[2], false) &&
           make_axis(pl.ax[3], HTP_UPSCALE_NEAREST, op->ne[3], a->ne[3], false);
}

static uint32_t n_dvec_of(const ggml_tensor * op) {
    return (uint32_t) ((op->ne[0] + 31) / 32);
}

static uint32_t src_pitch_of(const ggml_tensor * op) {
    return (uint32_t) ((op->src[0]->ne[0] + 31) / 32 + 1) * 128;  // one more vector: a window may read past the row
}

// Every tap window of 32 outputs spans at most two source vectors (the kernel's vlut32 gather):
// every tap's indices of the dst vector lie within [32 base, 32 base + 64), base the vector of
// htp_upscale_first (checked here to be no more than any of them).
static bool windows_ok(const ggml_tensor * op, const upscale_plan & pl) {
    const htp_upscale_axis & x   = pl.ax[0];
    const uint32_t           ne0 = (uint32_t) op->ne[0];
    for (uint32_t k = 0; k < n_dvec_of(op); k++) {
        const uint32_t base = htp_upscale_first(&x, pl.mode, 32 * k) / 32;
        for (uint32_t t = 0; t < x.taps; t++) {
            for (uint32_t l = 0; l < 32; l++) {
                float          w;
                const uint32_t s = htp_upscale_tap(&x, pl.mode, std::min(32 * k + l, ne0 - 1), t, &w);
                if (s < 32 * base || s >= 32 * base + 64) {
                    return false;
                }
            }
        }
    }
    return true;
}

static stream_need upscale_need(const htp_device_caps & caps, const ggml_tensor * op, const upscale_plan & pl) {
    const uint32_t t0 = pl.ax[0].taps, t1 = pl.ax[1].taps;
    stream_need    need = {};
    need.total_rows     = (uint32_t) ggml_nrows(op);
    need.chunk_divides  = (uint32_t) op->ne[1];
    need.bytes_per_row  = t1 * (src_pitch_of(op) + 128) + align_up((uint32_t) op->ne[0] * 4, 128);
    need.bytes_fixed    = n_dvec_of(op) * 3 * t0 * 128;
    need.desc_per_chunk = 1;   // the write-back
    need.desc_per_row   = t1;  // a fetch per source row
    need.multi_row_ok   = dma_fields_ok(caps, { op->nb[1], (uint64_t) align_up((uint32_t) op->ne[0] * 4, 128),
                                                (uint64_t) op->ne[0] * 4, (uint64_t) op->ne[1] });
    return need;
}

bool upscale_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const ggml_tensor * a = op->src[0];
    if (a->type != GGML_TYPE_F32 || op->type != GGML_TYPE_F32 || op->nb[0] != 4 || !ggml_is_contiguous_rows(op) ||
        !fits_u32(a) || !fits_u32(op) || ggml_nelements(op) == 0 || ggml_nelements(a) == 0 || a->nb[0] % 4 != 0 ||
        !dma_1d_ok((uint64_t) op->ne[0] * 4)) {
        return false;
    }
    // A source row: one 1-D DMA, or (elements apart: a transposed view) a 2-D one of 4-byte rows.
    if (a->nb[0] == 4 ? !dma_1d_ok((uint64_t) a->ne[0] * 4) : !dma_fields_ok(caps, { a->nb[0], (uint64_t) a->ne[0] })) {
        return false;
    }
    upscale_plan pl;
    if (!make_plan(op, pl) || !windows_ok(op, pl)) {
        return false;
    }
    return rows_plan_ok(caps, upscale_need(caps, op, pl));
}

void upscale_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    const ggml_tensor * a = op->src[0];
    htp_upscale_params & p = desc.params.upscale;
    upscale_plan         pl;
    make_plan(op, pl);
    desc.opcode = HTP_OP_UPSCALE;
    plan_rows(caps, upscale_need(caps, op, pl), p.split);
    p.mode      = pl.mode;
    p.ne0       = (uint32_t) op->ne[0];
    p.n_dvec    = n_dvec_of(op);
    p.src_nb0   = (uint32_t) a->nb[0];
    p.src_pitch = src_pitch_of(op);
    p.x         = pl.ax[0];
    p.y         = pl.ax[1];
    p.z2        = pl.ax[2];
    p.z3        = pl.ax[3];
    p.shape     = rows_shape((uint32_t) op->ne[1], (uint32_t) op->ne[2]);
    p.src0      = rows_strides(a->nb[1], a->nb[2], a->nb[3]);
    p.dst       = rows_strides(op->nb[1], op->nb[2], op->nb[3]);
    uint32_t off = 0;
    p.vtab       = off;
    off += p.n_dvec * 3 * p.x.taps * 128;
    p.vsrc = stream_at(off, p.split, p.y.taps * (p.src_pitch + 128), p.split.rows_per_chunk);
    p.vdst = stream_at(off, p.split, align_up(p.ne0 * 4, 128), p.split.rows_per_chunk);
}

}  // namespace

extern const htp_op_encoder htp_upscale_encoder = { upscale_supports, upscale_encode };
