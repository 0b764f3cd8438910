// Host side of SSM_SCAN (F32, Mamba-1 and Mamba-2 decays, K >= 1 states: the final one and
// K - 1 rollback snapshots), as
// ggml_compute_forward_ssm_scan_f32: lanes of 32 head rows per work row, the state kept
// transposed in VTCM (abi/include/htp-abi/params/sequence.h, htp_ssm_scan_params).
#include <algorithm>

#include "encode-util.h"

using namespace htp_enc;

namespace {

constexpr uint32_t kBufs     = 2;    // slots per block stream (split.n_bufs): the kernel's double buffer
constexpr uint32_t kMaxState = 256;  // d_state: state rows per lane vector in VTCM
constexpr int32_t  kMaxK     = 16;   // states written (op param K): the snapshots' VTCM grows with K

struct scan_layout {
    uint32_t tb;                     // tokens per block
    uint32_t c_pitch, lane_size, bc_size, state_size, a_size, snap_size;
    uint32_t total;                  // VTCM bytes per thread
};

static scan_layout layout_for(const ggml_tensor * op, uint32_t tb) {
    const uint32_t nc = (uint32_t) op->src[0]->ne[0];
    const uint32_t na = (uint32_t) op->src[3]->ne[0];
    scan_layout    l;
    l.tb         = tb;
    l.c_pitch    = align_up(nc * 4, 128);
    l.lane_size  = tb * 128;
    l.bc_size    = tb * l.c_pitch;
    l.state_size = nc * 128;
    l.a_size     = na * 128;
    l.snap_size  = (uint32_t) (op->op_params[0] - 1) * l.state_size;  // K - 1 snapshots
    // 2 state, A and snapshot regions + 2 slots of (x, dt, y, B, C)
    l.total = 2 * (l.state_size + l.a_size + l.snap_size) + kBufs * (3 * l.lane_size + 2 * l.bc_size);
    return l;
}

static bool choose_layout(const htp_device_caps & caps, const ggml_tensor * op, scan_layout & l) {
    const uint32_t tb0 = (uint32_t) std::min<int64_t>(op->src[1]->ne[2], 256);
    return fit_token_block(caps, tb0, [op](uint32_t tb) { return layout_for(op, tb); }, l);
}

static bool scan_supports(const htp_device_caps & caps, const ggml_tensor * op, const htp_encode_context &) {
    const auto [s, x, dt, A, B, C, ids] = op_srcs<7>(op);
    if (op->type != GGML_TYPE_F32 || !ggml_is_contiguous(op) || !fits_u32(op) || !ids ||
        ids->type != GGML_TYPE_I32 || !ggml_is_contiguous(ids) || op->op_params[0] < 1 || op->op_params[0] > kMaxK) {
        return false;
    }
    for (int i = 0; i < 6; i++) {
        const ggml_tensor * t = op->src[i];
        if (t->type != GGML_TYPE_F32 || t->nb[0] != 4 || !fits_u32(t)) {
            return false;
        }
    }
    const int64_t nc = s->ne[0], nr = x->ne[0], nh = x->ne[1], nt = x->ne[2], ns = x->ne[3];
    const int64_t ng = B->ne[1], na = A->ne[0];
    if (!ggml_is_contiguous(s) || !ggml_is_contiguous(dt) || !ggml_is_contiguous(A) || x->nb[1] != (size_t) nr * 4 ||
        B->nb[1] != (size_t) nc * 4 || C->nb[1] != (size_t) nc * 4 || !ggml_are_same_shape(B, C)) {
        return false;
    }
    if (nc < 1 || nc > kMaxState || nt < 1 || ns < 1 || ng < 1 || nh % ng != 0 || (na != 1 && na != nc) ||
        A->ne[1] != nh || s->ne[1] != nr || s->ne[2] != nh || s->ne[3] < 1 || dt->ne[0] != nh || ids->ne[0] != ns ||
        B->ne[2] != nt || B->ne[3] != ns) {
        return false;
    }
    // dst: y, then K states of the src state's shape (ggml_ssm_scan), the state contiguous.
    if (ggml_nelements(op) != ggml_nelements(x) + op->op_params[0] * nc * nr * nh * ns) {
        return false;
    }
    // Every lane vector inside one group of B / C (and so the rows a whole number of vectors).
    if ((nr * (nh / ng)) % 32 != 0) {
        return false;
    }
    scan_layout l;
    if (!choose_layout(caps, op, l)) {
        return false;
    }
    // 2-D descriptors: token blocks (x, dt, B, C, y rows), the transposed state (32 or nc
    // one-element rows, nc * 4 bytes apart) and A rows (na * 4 apart).
    return dma_fields_ok(caps, { (uint64_t) nc, (uint64_t) nc * 4, (uint64_t) na * 4, l.c_pitch, l.tb, 128,
                                x->nb[2], B->nb[2], C->nb[2], dt->nb[1], (uint64_t) nr * nh * 4 });
}

static void scan_encode(const htp_device_caps & caps, const ggml_tensor * op, htp_op_desc & desc, const htp_encode_context &) {
    const auto [s, x, dt, A, B, C] = op_srcs<6>(op);
    htp_ssm_scan_params &  p  = desc.params.ssm_scan;
    desc.opcode               = HTP_OP_SSM_SCAN;
    scan_layout l;
    choose_layout(caps, op, l);

    const uint32_t nh = (uint32_t) x->ne[1], ng = (uint32_t) B->ne[1], ns = (uint32_t) x->ne[3];
    p.nc          = (uint32_t) s->ne[0];
    p.nr          = (uint32_t) x->ne[0];
    p.na          = (uint32_t) A->ne[0];
    p.nt          = (uint32_t) x->ne[2];
    p.lanes_total = p.nr * nh;
    p.s_seqs      = (uint32_t) s->ne[3];
    p.n_lanes     = p.lanes_total / 32;
    p.div_lanes   = htp_fastdiv_init(p.n_lanes);
    p.div_nr      = htp_fastdiv_init(p.nr);
    p.div_group   = htp_fastdiv_init(nh / ng);
    p.x           = rows_strides(x->nb[1], x->nb[2], x->nb[3]);
    p.b           = rows_strides(B->nb[1], B->nb[2], B->nb[3]);
    p.c           = rows_strides(C->nb[1], C->nb[2], C->nb[3]);
    p.dt_nb1      = (uint32_t) dt->nb[1];
    p.dt_nb2      = (uint32_t) dt->nb[2];
    p.s_nb3       = (uint32_t) s->nb[3];
    p.y_bytes     = (uint32_t) (ggml_nelements(x) * 4);
    p.tok_block   = l.tb;
    p.n_blocks    = (p.nt + l.tb - 1) / l.tb;
    p.c_pitch     = l.c_pitch;

    // Rows are (lane vector, sequence) pairs; one pair at a time per thread, token blocks pipelined.
    const uint32_t pairs = p.n_lanes * ns;
    split_units(caps, pairs, kBufs, vtcm_budget(caps), p.split);

    p.n_snap           = (uint32_t) op->op_params[0] - 1;
    p.n_seqs           = ns;
    const uint32_t off = place_regions(0, 1, { { &p.v_state[0], l.state_size }, { &p.v_state[1], l.state_size },
                                               { &p.v_a[0], l.a_size }, { &p.v_a[1], l.a_size },
                                               { &p.v_snap[0], l.snap_size }, { &p.v_snap[1], l.snap_size } });
    p.lane_size        = l.lane_size;
    p.bc_size          = l.bc_size;
    place_regions(off, kBufs, { { &p.v_x, l.lane_size }, { &p.v_dt, l.lane_size }, { &p.v_y, l.lane_size },
                                { &p.v_b, l.bc_size }, { &p.v_c, l.bc_size } });
}

}  // namespace

extern const htp_op_encoder htp_ssm_scan_encoder = { scan_supports, scan_encode };
