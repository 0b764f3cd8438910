// Weight repacking in HTP device buffers: records of which tensors hold tiled bytes, the
// set/get paths that (un)repack, in-place un-repack for every other user, and the lookup the
// MUL_MAT encoders use (mul-mat-paths.h). Rules in docs/tiled-formats.md, "In the backend".
#include "weight-repack.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <vector>

#include "context.h"
#include "log.h"
#include "mul-mat/mul-mat-paths.h"
#include "htp-repack/repack.h"

namespace {

// One tensor whose bytes are tiled: n_mat matrices [ne0, ne1], matrix i's tiles at
// start + i * mat_tiled.
struct record {
    const ggml_tensor * owner;
    ggml_type type;
    int64_t   ne[4];
    size_t    flat;       // ggml_nbytes of the flat tensor
    size_t    tiled;      // bytes of all its tiled matrices
    size_t    row_bytes;  // flat row size
    // Rows written only in part so far keep their exact flat bytes here (a lossy format's
    // tile cannot hold a half-written block: its scale products would be made from garbage).
    std::map<int64_t, std::vector<uint8_t>> partial;
};

}  // namespace

struct htp_tiling_state {
    int        mode;  // GGML_HEXAGON_REPACK, as the buffer type had it when the buffer was made
    std::mutex mu;
    std::map<size_t, record> recs;  // by offset of the tensor in the buffer; extents never overlap
};

htp_tiling_state * htp_tiling_state_new(int repack_mode) {
    auto * s = new htp_tiling_state;
    s->mode  = repack_mode;
    return s;
}

void htp_tiling_state_free(htp_tiling_state * s) {
    delete s;
}

namespace {

int64_t n_mat(const ggml_tensor * t) {
    return t->ne[2] * t->ne[3];
}

// The type has a tiled format and t's shape takes it (static properties only).
bool tileable(const ggml_tensor * t) {
    const htp_type ty = (htp_type) t->type;
    return htp_repack_supported(ty) && !t->view_src && ggml_is_contiguous(t) && ggml_nelements(t) > 0 &&
           t->ne[0] % htp_tile_k_cols(ty) == 0 && htp_repack_flat_row_size(ty, t->ne[0]) == t->nb[1];
}

size_t tiled_size(const ggml_tensor * t) {
    return (size_t) htp_tiled_matrix_size((htp_type) t->type, t->ne[0], t->ne[1]) * (size_t) n_mat(t);
}

bool same_tensor(const record & r, const ggml_tensor * t) {
    return r.owner == t && r.type == t->type && r.ne[0] == t->ne[0] && r.ne[1] == t->ne[1] && r.ne[2] == t->ne[2] &&
           r.ne[3] == t->ne[3];
}

// Whether set_tensor repacks t (a tensor with no view_src) in this buffer.
bool eligible(ggml_backend_buffer_t buffer, const htp_buffer * b, const ggml_tensor * t) {
    const int mode = b->repack->mode;
    if (mode == 0 || ggml_backend_buffer_is_host(buffer) || !tileable(t)) {
        return false;
    }
    if (mode == 1 && buffer->usage != GGML_BACKEND_BUFFER_USAGE_WEIGHTS) {
        return false;
    }
    const uint8_t * p = (const uint8_t *) t->data;
    return p >= b->base && p + tiled_size(t) <= b->base + b->size;
}

using rec_it = std::map<size_t, record>::iterator;

// Records whose tiled extent overlaps [lo, hi).
std::vector<rec_it> overlapping(htp_tiling_state & s, size_t lo, size_t hi) {
    std::vector<rec_it> out;
    auto it = s.recs.upper_bound(lo);
    if (it != s.recs.begin()) {
        --it;
    }
    for (; it != s.recs.end() && it->first < hi; ++it) {
        if (it->first + it->second.tiled > lo) {
            out.push_back(it);
        }
    }
    return out;
}

// Un-repacks flat rows [r0, r1) of the record at base + start into dst.
void unrepack(const htp_buffer * b, size_t start, const record & r, int64_t r0, int64_t r1, void * dst) {
    htp_unrepack_rows_stacked((htp_type) r.type, dst, b->base + start, r.ne[0], r.ne[1], r0, r1);
}

// Repacks flat rows [r0, r1) from src into the record.
void repack(htp_buffer * b, size_t start, const record & r, int64_t r0, int64_t r1, const void * src) {
    htp_repack_rows_stacked((htp_type) r.type, b->base + start, src, r.ne[0], r.ne[1], r0, r1);
}

// Flat rows [r0, r1) of the record into dst: un-repacked, then the partial rows' own bytes.
void read_rows(const htp_buffer * b, size_t start, const record & r, int64_t r0, int64_t r1, uint8_t * dst) {
    unrepack(b, start, r, r0, r1, dst);
    for (auto it = r.partial.lower_bound(r0); it != r.partial.end() && it->first < r1; ++it) {
        memcpy(dst + (size_t) (it->first - r0) * r.row_bytes, it->second.data(), r.row_bytes);
    }
}

// Turns the record flat in place and forgets it.
void flatten_locked(htp_buffer * b, htp_tiling_state & s, rec_it it) {
    const record & r = it->second;
    std::vector<uint8_t> flat(r.flat);
    read_rows(b, it->first, r, 0, r.ne[1] * r.ne[2] * r.ne[3], flat.data());
    memcpy(b->base + it->first, flat.data(), r.flat);
    HTP_LOG_DEBUG("repack: tensor at +%zu (%s) turned flat", it->first, ggml_type_name(r.type));
    s.recs.erase(it);
}

// Writes the flat bytes [off, off + size) of the record's tensor (off from its start). Whole
// rows are repacked straight from data; a partly written row is patched in its staging copy
// (made from the tiles on first use) and repacked from it.
void write_locked(htp_buffer * b, size_t start, record & r, size_t off, const void * data, size_t size) {
    const size_t    R   = r.row_bytes;
    const uint8_t * src = (const uint8_t *) data;
    size_t          pos = off, end = off + size;
    while (pos < end) {
        const int64_t row = (int64_t) (pos / R);
        const size_t  a   = pos - (size_t) row * R;
        if (a == 0 && end - pos >= R) {
            const int64_t n = (int64_t) ((end - pos) / R);
            repack(b, start, r, row, row + n, src + (pos - off));
            r.partial.erase(r.partial.lower_bound(row), r.partial.lower_bound(row + n));
            pos += (size_t) n * R;
            continue;
        }
        const size_t len = std::min(R - a, end - pos);
        auto         it  = r.partial.find(row);
        if (it == r.partial.end()) {
            it = r.partial.emplace(row, std::vector<uint8_t>(R)).first;
            unrepack(b, start, r, row, row + 1, it->second.data());
        }
        memcpy(it->second.data() + a, src + (pos - off), len);
        repack(b, start, r, row, row + 1, it->second.data());
        pos += len;
    }
}

htp_buffer * buf_of(ggml_backend_buffer_t buffer) {
    return (htp_buffer *) buffer->context;
}

// Where a set_tensor / get_tensor of t's bytes [offset, offset + size) lands in its buffer:
// [lo, hi) and the start of the tensor t views (bstart). b is null when the buffer keeps no
// tiling records or nothing moves.
struct access {
    htp_buffer *        b;
    const ggml_tensor * base;
    size_t              lo, hi, bstart;
};

access access_of(ggml_backend_buffer_t buffer, const ggml_tensor * t, size_t offset, size_t size) {
    htp_buffer * b = buf_of(buffer);
    if (!b->repack || size == 0) {
        return { nullptr, nullptr, 0, 0, 0 };
    }
    const ggml_tensor * base = t->view_src ? t->view_src : t;
    const size_t        lo   = (size_t) ((const uint8_t *) t->data + offset - b->base);
    return { b, base, lo, lo + size, (size_t) ((const uint8_t *) base->data - b->base) };
}

// set_tensor / get_tensor of t's bytes [offset, offset + size): fn(access, state) under the
// buffer's tiling lock; false (fn not run) when they are not in a tiling buffer.
template <typename F>
bool with_tiling_locked(ggml_backend_buffer_t buffer, const ggml_tensor * t, size_t offset, size_t size, F && fn) {
    const access a = access_of(buffer, t, offset, size);
    if (!a.b) {
        return false;
    }
    htp_tiling_state &          s = *a.b->repack;
    std::lock_guard<std::mutex> lock(s.mu);
    return fn(a, s);
}

bool set_locked(ggml_backend_buffer_t buffer, const access & a, htp_tiling_state & s, const void * data, size_t size) {
    const auto [b, base, lo, hi, bstart] = a;
    rec_it mine = s.recs.end();
    for (rec_it it : overlapping(s, lo, hi)) {
        if (it->first == bstart && same_tensor(it->second, base) && hi <= bstart + it->second.flat) {
            mine = it;
        } else {
            flatten_locked(b, s, it);
        }
    }
    if (mine == s.recs.end()) {
        if (!eligible(buffer, b, base) || hi > bstart + ggml_nbytes(base)) {
            return false;
        }
        record r = { base, base->type, { base->ne[0], base->ne[1], base->ne[2], base->ne[3] }, ggml_nbytes(base),
                     tiled_size(base), base->nb[1], {} };
        for (rec_it it : overlapping(s, bstart, bstart + r.tiled)) {
            flatten_locked(b, s, it);
        }
        // The tensor's bytes so far were flat: keep them unless this write replaces them all.
        std::vector<uint8_t> old;
        if (lo != bstart || hi != bstart + r.flat) {
            old.assign(b->base + bstart, b->base + bstart + r.flat);
        }
        mine = s.recs.emplace(bstart, r).first;
        for (int64_t i = 0; i < n_mat(base); i++) {
            htp_repack_fill_padding((htp_type) r.type, b->base + bstart + i * (r.tiled / n_mat(base)), r.ne[0],
                                    r.ne[1]);
        }
        if (!old.empty()) {
            repack(b, bstart, r, 0, r.ne[1] * r.ne[2] * r.ne[3], old.data());
        }
    }
    write_locked(b, bstart, mine->second, lo - bstart, data, size);
    return true;
}

bool get_locked(const access & a, htp_tiling_state & s, void * data, size_t size) {
    const auto [b, base, lo, hi, bstart] = a;
    std::vector<rec_it> ov = overlapping(s, lo, hi);
    if (ov.empty()) {
        return false;
    }
    if (ov.size() == 1 && ov[0]->first == bstart && same_tensor(ov[0]->second, base) &&
        hi <= bstart + ov[0]->second.flat) {
        const record & r  = ov[0]->second;
        const size_t   R  = r.row_bytes, off = lo - bstart;
        const int64_t  r0 = (int64_t) (off / R), r1 = (int64_t) ((off + size + R - 1) / R);
        if (off % R == 0 && (off + size) % R == 0) {
            read_rows(b, bstart, r, r0, r1, (uint8_t *) data);
        } else {
            std::vector<uint8_t> rows((size_t) (r1 - r0) * R);
            read_rows(b, bstart, r, r0, r1, rows.data());
            memcpy(data, rows.data() + (off - (size_t) r0 * R), size);
        }
        return true;
    }
    for (rec_it it : ov) {
        flatten_locked(b, s, it);
    }
    return false;
}

}  // namespace

size_t htp_tiling_alloc_size(const ggml_tensor * t, int repack_mode) {
    const size_t n = ggml_nbytes(t);
    if (repack_mode == 0 || !tileable(t)) {
        return n;
    }
    return std::max(n, tiled_size(t));
}

bool htp_tiling_set(ggml_backend_buffer_t buffer, ggml_tensor * t, const void * data, size_t offset, size_t size) {
    return with_tiling_locked(buffer, t, offset, size, [&](const access & a, htp_tiling_state & s) {
        return set_locked(buffer, a, s, data, size);
    });
}

bool htp_tiling_get(ggml_backend_buffer_t buffer, const ggml_tensor * t, void * data, size_t offset, size_t size) {
    return with_tiling_locked(buffer, t, offset, size,
                              [&](const access & a, htp_tiling_state & s) { return get_locked(a, s, data, size); });
}

void htp_tiling_flatten(htp_buffer * b, const uint8_t * p, size_t size) {
    if (!b->repack) {
        return;
    }
    htp_tiling_state & s = *b->repack;
    std::lock_guard<std::mutex> lock(s.mu);
    const size_t lo = (size_t) (p - b->base);
    for (rec_it it : overlapping(s, lo, lo + size)) {
        flatten_locked(b, s, it);
    }
}

void htp_tiling_forget_all(htp_buffer * b) {
    if (b->repack) {
        std::lock_guard<std::mutex> lock(b->repack->mu);
        b->repack->recs.clear();
    }
}

bool htp_tiling_empty(const htp_buffer * b) {
    return !b->repack || b->repack->recs.empty();
}

bool htp_tiling_lookup(const htp_buffer * b, const ggml_tensor * w, htp_tiled_weight & tw) {
    if (!b->repack) {
        return false;
    }
    htp_tiling_state & s    = *b->repack;
    const ggml_tensor * base = w->view_src ? w->view_src : w;
    const size_t bstart = (size_t) ((const uint8_t *) base->data - b->base);
    std::lock_guard<std::mutex> lock(s.mu);
    auto it = s.recs.find(bstart);
    if (it == s.recs.end() || !same_tensor(it->second, base)) {
        return false;
    }
    const record & r     = it->second;
    const htp_type ty    = (htp_type) r.type;
    const uint64_t pflat = (uint64_t) r.row_bytes * (uint64_t) r.ne[1];  // flat bytes per matrix
    const uint64_t ptile = htp_tiled_matrix_size(ty, r.ne[0], r.ne[1]);
    const int64_t  voff  = (const uint8_t *) w->data - (const uint8_t *) base->data;
    // w must see whole matrices of base with base's row layout.
    if (w->type != base->type || w->ne[0] != r.ne[0] || w->ne[1] != r.ne[1] || w->nb[0] != base->nb[0] ||
        w->nb[1] != base->nb[1] || voff < 0 || (uint64_t) voff % pflat != 0 ||
        (w->ne[2] > 1 && w->nb[2] % pflat != 0) || (w->ne[3] > 1 && w->nb[3] % pflat != 0)) {
        return false;
    }
    tw.format      = (uint32_t) r.type;
    tw.k_cols      = htp_tile_k_cols(ty);
    tw.n_k_tiles   = (uint32_t) htp_tile_n_k_tiles(ty, r.ne[0]);
    tw.n_col_tiles = (uint32_t) htp_tile_n_col_tiles(r.ne[1]);
    tw.tile_bytes  = htp_tile_size(ty);
    tw.plane_bytes = ptile;
    tw.nb2         = w->ne[2] > 1 ? w->nb[2] / pflat * ptile : ptile;
    tw.nb3         = w->ne[3] > 1 ? w->nb[3] / pflat * ptile : ptile * (uint64_t) w->ne[2];
    tw.data_offset = (int64_t) ((uint64_t) voff / pflat * ptile) - voff;
    return true;
}
