// kernel_params of the sequence / convolution ops: IM2COL, IM2COL_3D, CONV_2D, CONV_2D_DW, CONV_3D,
// CONV_TRANSPOSE_1D, COL2IM_1D, SSM_CONV, SOLVE_TRI, GATED_DELTA_NET, SSM_SCAN, RWKV_WKV6,
// RWKV_WKV7, GATED_LINEAR_ATTN.
// Each struct starts with struct htp_split_params `split`; list every struct of this family
// in HTP_KERNEL_PARAMS_MEMBERS_SEQUENCE so it joins union htp_kernel_params.
#pragma once
#include <stdint.h>

// Largest kernel width IM2COL accepts (the kernel keeps per-kw bounds on its stack).
#define HTP_IM2COL_MAX_KW 64u

enum htp_im2col_mode {
    HTP_IM2COL_GATHER_OW = 0,  // one DMA descriptor per (ic, kh, kw): the chunk's dst rows (ow)
    HTP_IM2COL_GATHER_IC = 1,  // one DMA descriptor per (dst row, kh, kw): all ic at once
};

// IM2COL (1-D and 2-D) and IM2COL_3D, F32 image -> F32 / F16 dst. A dst row is (ow = i1, i2,
// i3) of K = IC * KD * KH * KW elements, column ((ic * KD + kd) * KH + kh) * KW + kw; 2-D and
// 3-D: oh = i2, i3 = image * OD + od; 1-D: oh = 0, image = i2 (IH = KH = 1). 1-D and 2-D have
// KD = ID = OD = 1 (od = kd = id = 0).
// Per chunk (rows_per_chunk consecutive ow of one (oh, image)), HVX zeroes an F32 staging
// slot, DMA descriptors gather the image elements into it (padding stays zero), then HVX
// copies / converts it into the dst slot that one 2-D descriptor writes back.
struct htp_im2col_params {
    struct htp_split_params split;
    uint32_t dst_type;               // HTP_TYPE_F32 / HTP_TYPE_F16
    uint32_t mode;                   // enum htp_im2col_mode
    uint32_t is_2d;
    uint32_t IC, IH, IW, KH, KW;
    int32_t  s0, s1, p0, p1, d0, d1;
    struct htp_fastdiv div_s0;       // the kernel's ow bounds per kw: x / s0 for x in [0, 2^31)
    uint32_t nb_img, nb_ic, nb_ih;   // image strides (bytes) of src1
    struct htp_rows_shape shape;     // dst rows
    struct htp_rows_strides dst;
    uint32_t dst_row_bytes;          // elements per dst row (IC * KH * KW) * dst element size
    struct htp_vtcm_stream vstage;   // F32 rows, row_pitch a multiple of 256
    struct htp_vtcm_stream vdst;     // dst-typed rows (F16: vstage.row_pitch / 2)
    uint32_t KD, ID;                 // IM2COL_3D's depth (1 otherwise)
    int32_t  s2, p2, d2;
    struct htp_fastdiv div_od;       // i3 -> (image = i3 / OD, od = i3 % OD)
    uint32_t nb_id;                  // image stride (bytes) between depth planes
};

// Widest kernel CONV_2D_DW and CONV_2D accept (the kernel keeps per-kx bounds on its stack).
#define HTP_CONV_MAX_KW 64u

// CONV_2D_DW F32 image, F32 / F16 kernel [KW, KH, 1, C] -> F32 dst [OW, OH, C, N], CONV_2D
// (the same with IC input channels: kernel [KW, KH, IC, OC], dst [OW, OH, OC, N]) and CONV_3D
// (below: a depth loop), any layout
// whose element strides the host passes (WHCN and CWHN). A dst row is (oy = i1, c = i2, n = i3)
// of OW values; a chunk is rows of one (c, n). Per chunk DMA gathers, for each dst row and tap
// (ic, ky, kx), the image elements every dst value of the row multiplies with that tap into a
// "plane" of OW floats (zeroed first where padding covers it), the channel's taps into a weight
// slot; HVX sums the planes times the splat weights, tap by tap (ic, ky, kx order: ggml-cpu's
// for CONV_2D_DW), into the dst row.
struct htp_conv_2d_dw_params {
    struct htp_split_params split;
    uint32_t w_type;                 // HTP_TYPE_F32 / HTP_TYPE_F16 (kernel)
    uint32_t IW, IH, KW, KH, OW;
    int32_t  s0, s1, p0, p1, d0, d1;
    struct htp_fastdiv div_s0;       // the ox bounds per kx: x / s0 for x in [0, 2^31)
    uint32_t zero_planes;            // 1: padding: planes are zeroed before their gathers
    struct htp_rows_shape shape;     // dst rows
    uint32_t src_nb0;                // image strides: x (bytes), then y, channel, batch
    struct htp_rows_strides src;
    uint32_t w_nb0, w_nb1, w_nb3;    // kernel strides: kx, ky, dst channel
    uint32_t dst_nb0;                // dst strides: x, then oy, channel, batch
    struct htp_rows_strides dst;
    uint32_t plane_pitch;            // align(OW * 4, 128)
    struct htp_vtcm_stream vplanes;  // per row IC * KH * KW planes of plane_pitch
    struct htp_vtcm_stream vdst;     // per row plane_pitch
    struct htp_vtcm_stream vw;       // per chunk: the raw taps (w_pitch bytes), then as F32 (w_pitch)
    uint32_t IC;                     // input channels summed per dst value (CONV_2D_DW: 1)
    uint32_t img_c_nb;               // image bytes per dst channel (CONV_2D_DW: src.nb2; CONV_2D: 0)
    uint32_t w_pitch;                // align(IC * KD * KH * KW * 4, 256)
    uint32_t w_packed;               // 1: a channel's weights are one run (one descriptor)
    // CONV_3D (is_3d = 1): taps (ic, kz, ky, kx), a dst row (oy, oz, n * OC + oc); the others
    // have KD = ID = 1 (oz = kz = 0) and a dst row (oy, c, n).
    uint32_t is_3d;
    uint32_t KD, ID;
    int32_t  s2, p2, d2;
    struct htp_fastdiv div_oc;       // CONV_3D: i3 -> (n = i3 / OC, oc = i3 % OC)
    uint32_t ic_nb, img_nb, z_nb;    // image bytes between input channels, images, depth planes
};

// CONV_TRANSPOSE_1D F32: input [L, Cin], kernel [K, Cout, Cin] -> dst [OL = (L - 1) * s0 + K,
// Cout]. A dst row is one output channel oc (one row per chunk). The input is fetched once per
// thread (Cin rows of in_pitch at v_in), a chunk's kernel slice [K, Cin] in one 2-D descriptor;
// per input position il, HVX sums over ic the kernel rows times the splat input value (a
// vector over k) and adds that to the dst row at il * s0 (unaligned), in ggml-cpu's order.
// CONV_TRANSPOSE_2D (H > 1 or KH > 1 possible) is the same with a loop over input rows: input
// [L, H, Cin, N], kernel [K, KH, Cout, Cin] -> dst [OL, OH = (H - 1) * s0 + KH, Cout, N]; a dst
// row (oy, oc, n) is the sum over the input rows iy with ky = oy - iy * s0 in [0, KH) (at most
// in_rows of them, iy ascending as ggml-cpu adds them) of the 1-D convolution of input row iy
// with kernel row ky; per row each such iy's input rows (Cin of in_pitch, slot stream vin) and
// kernel slice (Cin rows of k_pitch) are fetched. An F16 kernel (round_f16) is widened into
// v_wide and the input rounded to F16 in VTCM first, as ggml-cpu converts it.
// COL2IM_1D (col2im = 1) runs on the same kernel: columns [K * Cout, L] of `type` (F32, F16,
// BF16) -> dst [OL = (L - 1) * s0 + K - 2 * crop, Cout] of that type. The "kernel slice" of
// row oc is then the L column pieces [K] of oc (w_nb1 = K * es between oc, w_nb2 = the columns'
// row stride), each widened to F32 and added at il * s0 as it is; the sums (in il order, as
// ggml-cpu's) are narrowed into vout and written from value `crop` on.
// The 1-D ops' dst rows are (0, oc, 0) of `shape` (ne1 = 1, ne2 = Cout), H = KH = 1.
struct htp_conv_transpose_1d_params {
    struct htp_split_params split;
    uint32_t L, Cin, K, s0, OL;
    uint32_t H, KH;                  // input rows, kernel rows (1 for the 1-D ops)
    struct htp_fastdiv div_s0;       // dst row oy -> its input rows iy (oy - iy * s0 in [0, KH))
    struct htp_rows_shape shape;     // dst rows (oy, oc, n)
    struct htp_rows_strides dst;     // dst bytes between rows oy, channels oc, images n
    uint32_t in_nb1;                 // input bytes between channels
    uint32_t in_nb_row, in_nb_img;   // input bytes between rows iy, images n
    uint32_t w_nb1, w_nb2;           // kernel bytes between output channels, input channels
    uint32_t w_nb_ky;                // kernel bytes between kernel rows ky
    uint32_t k_pitch;                // align(K * es, 128): a kernel row (column piece) in VTCM
    uint32_t in_pitch;               // align(L * 4, 128) (256 when round_f16): an input row in VTCM
    uint32_t in_rows;                // 0: the input once per thread at v_in; else up to in_rows per dst row in vin
    uint32_t v_in;                   // Cin rows of in_pitch (the thread's copy of the input)
    struct htp_vtcm_stream vin;      // per row in_rows x Cin rows of in_pitch (in_rows > 0)
    struct htp_vtcm_stream vw;       // per row max(in_rows, 1) x Cin (COL2IM_1D: L) rows of k_pitch (tails kept zero)
    struct htp_vtcm_stream vdst;     // per row the F32 sums: multiple of 256, (L - 1) * s0 * 4 + a row's F32 vectors
    uint32_t col2im;                 // 1: COL2IM_1D
    uint32_t type;                   // HTP_TYPE_F32 / F16 / BF16 (COL2IM_1D's columns and dst; the kernel's)
    uint32_t round_f16;              // 1: F16 kernel (CONV_TRANSPOSE_2D): input rounded to F16, kernel widened
    uint32_t crop;                   // COL2IM_1D's p0: dst value t is sum t + crop
    uint32_t v_wide;                 // 2 * k_pitch bytes (COL2IM_1D's piece widened), Cin times (round_f16)
    struct htp_vtcm_stream vout;     // F16 / BF16: the dst row narrowed (vdst.row_pitch / 2)
};

// SSM_CONV F32: dst[ch, t, s] = sum_k sx[t + k, ch, s] * c[k, ch]. A dst row is (t = i1,
// s = i2) of d_inner channels. The kernel taps c are gathered once per thread, transposed, into
// d_conv VTCM rows (vc at `vc_offset`); each chunk of n tokens gathers the n + d_conv - 1 sx
// columns it needs, transposed into rows over channels (one 2-D descriptor per column), and
// HVX sums d_conv products per vector of channels.
struct htp_ssm_conv_params {
    struct htp_split_params split;
    uint32_t d_conv, d_inner;
    uint32_t nb_sx1, nb_sx2;         // sx strides: channel, sequence (element stride is 4)
    uint32_t nb_c1;                  // c stride between channels
    struct htp_rows_shape shape;     // dst rows
    struct htp_rows_strides dst;
    uint32_t pitch;                  // VTCM bytes per channel row (align 128 of d_inner * 4)
    struct htp_vtcm_stream vsrc;     // per slot: rows_per_chunk + d_conv - 1 rows of `pitch`
    struct htp_vtcm_stream vdst;
    uint32_t vc_offset;              // d_conv rows of `pitch`
};

// SOLVE_TRI F32 (left, lower, non-unit): A X = B per batch (i2, i3); A is n x n, B and X are
// n x k. A chunk is one batch: A and B fetched with one 2-D descriptor each, X solved row by
// row in VTCM (vectors over the k columns), written back with one descriptor.
struct htp_solve_tri_params {
    struct htp_split_params split;
    uint32_t n, k;
    struct htp_rows_shape shape;     // batches: ne1 = ne2 of the tensors, ne2 = their ne3
    struct htp_rows_strides a, b, x; // nb1 (row), nb2, nb3 (batch)
    struct htp_vtcm_stream va;       // n rows of align(n * 4, 128)
    struct htp_vtcm_stream vb, vx;   // n rows of align(k * 4, 128)
};

// GATED_DELTA_NET F32. A "row" is one (head iv1, sequence iv3) pair: r = iv1 + H * iv3.
// Per pair the S_v x S_v state is gathered transposed into VTCM (row i holds S[i][:], the
// vector over j) and tokens are processed in blocks of tok_block: q, k, v, g, beta of a block
// are fetched with one 2-D descriptor each (two slots, so the next block loads during the
// compute), the attention rows are written with one descriptor per block, and the state (the
// final one, or the last K snapshots) is scattered back transposed.
struct htp_gdn_params {
    struct htp_split_params split;
    uint32_t S_v, H, T;
    uint32_t K;                      // snapshot slots
    uint32_t kda;                    // 1: g has S_v gates per token, 0: one
    float scale;                     // 1 / sqrt(S_v)
    struct htp_fastdiv div_H;        // pair -> (h = pair % H, s = pair / H)
    struct htp_fastdiv mod_neq1, mod_nek1;  // iq1 = iv1 % neq1, ik1 = iv1 % nek1
    struct htp_fastdiv div_rq3, div_rk3;    // iq3 = iv3 / rq3, ik3 = iv3 / rk3
    struct htp_rows_strides q, k, v; // nb1 (head), nb2 (token), nb3 (sequence)
    struct htp_rows_strides g, beta;
    uint32_t state_nb3;              // src state bytes between sequences
    uint32_t attn_elems;             // dst floats before the states
    uint32_t snap_elems;             // dst floats per snapshot slot
    uint32_t tok_block;              // tokens per block (per slot)
    uint32_t n_blocks;               // ceil(T / tok_block)
    uint32_t pitch;                  // align(S_v * 4, 128)
    // VTCM offsets in the thread's region; slot s of a per-block stream at off + s * size.
    uint32_t v_state[2];             // working state of pairs of even / odd parity
    uint32_t v_q, v_k, v_v, v_g, v_beta, v_attn, v_snap;
    uint32_t q_size, k_size, v_size, g_size, beta_size, attn_size, snap_size;
    uint32_t g_pitch;                // KDA: pitch; else 4 (packed scalars)
};

// SSM_SCAN F32 (Mamba-1: A has d_state decays per head; Mamba-2: one), K = 1. The heads' rows
// ii = h * nr + i1 (nr = head_dim) are taken 32 at a time, "lanes": a row of work is one (lane
// vector lv, sequence i3) pair, r = lv + n_lanes * i3, and its state (nc = d_state values per
// lane) is kept in VTCM transposed, row k holding state k of the 32 lanes, so that the per-token
// update and the readout y = sum_k state_k * C[k] are vector operations over lanes with B[k] and
// C[k] splat. The 32 lanes of a vector lie in one group of B / C (host: nr * heads per group is
// a multiple of 32). dt and A are laid out per lane by DMA (heads with nr > 1 replicated with a
// zero source stride). Tokens come in blocks of tok_block (x, dt, B, C: two slots).
struct htp_ssm_scan_params {
    struct htp_split_params split;
    uint32_t nc;                     // d_state
    uint32_t nr;                     // head_dim (1: Mamba-1)
    uint32_t na;                     // A->ne0: 1 (a decay per head) or nc (per state)
    uint32_t nt;                     // tokens per sequence
    uint32_t lanes_total;            // nr * n_head (floats of one token's y row)
    uint32_t s_seqs;                 // sequences in the src state (ids must be below)
    struct htp_fastdiv div_lanes;    // pair -> (lv = pair % n_lanes, i3 = pair / n_lanes)
    struct htp_fastdiv div_nr;       // row ii -> head
    struct htp_fastdiv div_group;    // head -> group (heads per group)
    uint32_t n_lanes;                // lane vectors per sequence (lanes_total / 32)
    struct htp_rows_strides x, b, c; // nb1 (head / group), nb2 (token), nb3 (sequence)
    uint32_t dt_nb1, dt_nb2;         // dt strides: token, sequence (heads 4 bytes apart)
    uint32_t s_nb3;                  // state bytes between sequences (src0 and the dst states)
    uint32_t y_bytes;                // dst bytes before the states
    uint32_t tok_block;              // tokens per block (per slot)
    uint32_t n_blocks;               // ceil(nt / tok_block)
    uint32_t c_pitch;                // align(nc * 4, 128): a B / C row in VTCM
    // VTCM offsets in the thread's region; slot s of a per-block stream at off + s * size.
    uint32_t v_state[2], v_a[2];     // state and A rows of pairs of even / odd parity
    uint32_t v_x, v_dt, v_b, v_c, v_y;
    uint32_t lane_size, bc_size;     // tok_block * 128, tok_block * c_pitch
    // Rollback snapshots (op param K > 1, ggml_ssm_scan): dst holds after the final state (slot
    // 0) K - 1 more, slot j = the state after token nt - 1 - j (written when that token
    // exists), at y_bytes + (j * n_seqs + i3) * s_nb3. Per pair parity VTCM keeps n_snap
    // copies of the state (nc rows of 128 bytes each), taken after those tokens and scattered
    // with the final state.
    uint32_t n_snap;                 // K - 1 (0: the final state only)
    uint32_t n_seqs;                 // sequences of x (the snapshots' slot stride)
    uint32_t v_snap[2];
};

// RWKV_WKV6, RWKV_WKV7, GATED_LINEAR_ATTN F32 (linear attention with an S x S state per head;
// one struct for the three). Every per-token input is a contiguous [S, H, n_tokens] tensor, the
// state [S * S * H, n_seqs]; a sequence's tokens are n_tokens / n_seqs consecutive ones. A
// "row" is one (head h, sequence s) pair, r = h + H * s. The pair's state is kept in VTCM, S
// rows of `pitch` bytes: WKV6 / GLA row i = S[i][:] (as stored), WKV7 row j = S[:][j] (gathered
// transposed, so that its per-row dot products become vector sums over rows). Tokens come in
// blocks of tok_block: each input stream one 2-D descriptor per block (two slots), the output
// rows one descriptor per block; the final state goes back after the pair's last block.
struct htp_wkv_params {
    struct htp_split_params split;
    uint32_t S, H;                   // head size, heads
    uint32_t T;                      // tokens per sequence
    float scale;                     // GLA: q's scale (op param 0); RWKV: 1
    struct htp_fastdiv div_H;        // pair -> (h = pair % H, s = pair / H)
    uint32_t tok_nb;                 // bytes between tokens of an input / output row (H * S * 4)
    uint32_t state_nb;               // bytes between sequences of the state (H * S * S * 4)
    uint32_t out_bytes;              // dst bytes before the states
    uint32_t tok_block;              // tokens per block (per slot)
    uint32_t n_blocks;               // ceil(T / tok_block)
    uint32_t pitch;                  // align(S * 4, 128): a state / token row in VTCM
    // VTCM offsets in the thread's region; slot s of input stream i at v_in + (2 i + s) * blk_size.
    uint32_t v_state[2];             // state of pairs of even / odd parity
    uint32_t v_u[2];                 // WKV6: the head's time_faaaa row, per parity
    uint32_t v_in, v_out;            // input streams (4 or 6), output rows (slot s at v_out + s * blk_size)
    uint32_t blk_size;               // tok_block * pitch
};

#define HTP_KERNEL_PARAMS_MEMBERS_SEQUENCE                 \
    struct htp_im2col_params    im2col;                    \
    struct htp_conv_2d_dw_params conv_2d_dw;               \
    struct htp_conv_transpose_1d_params conv_transpose_1d; \
    struct htp_ssm_conv_params  ssm_conv;                  \
    struct htp_solve_tri_params solve_tri;                 \
    struct htp_gdn_params       gdn;                       \
    struct htp_ssm_scan_params  ssm_scan;                  \
    struct htp_wkv_params       wkv;
