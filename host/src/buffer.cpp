// Buffer types: the device type (shared DDR the NPU maps by fd) and, with
// GGML_HEXAGON_HOSTBUF=1, a host type (the same shared DDR, flagged is_host so the CPU uses it
// directly for staging). Both hand the NPU an fd + offset per tensor.
#include <algorithm>
#include <cstring>
#include <vector>

#include "context.h"
#include "buffer.h"
#include "log.h"
#include "weight-repack.h"

static constexpr size_t HTP_BUFFER_ALIGNMENT = 128;  // HVX vector and L2 line size

// The device a buffer type belongs to: its own for a device type, the first device for the
// host type (htp_buffer_types_init); its registry holds the settings buffers read.
static htp_device & buft_device(ggml_backend_buffer_type_t buft) {
    return *(htp_device *) buft->device->context;
}

static void htp_buffer_free(ggml_backend_buffer_t buffer) {
    auto * b = (htp_buffer *) buffer->context;
    htp_unmap_everywhere(*buft_device(buffer->buft).reg, b->fd, b->size);
    htp_shared_mem mem = { b->fd, b->base, b->size };
    htp_shared_free(mem);
    htp_tiling_state_free(b->repack);
    if (b->device) {
        b->device->allocated -= b->size;
    }
    delete b;
}

static void * htp_buffer_get_base(ggml_backend_buffer_t buffer) {
    return ((htp_buffer *) buffer->context)->base;
}

static void htp_buffer_memset_tensor(ggml_backend_buffer_t buffer, ggml_tensor * tensor, uint8_t value, size_t offset,
                                     size_t size) {
    htp_tiling_flatten((htp_buffer *) buffer->context, (const uint8_t *) tensor->data + offset, size);
    memset((uint8_t *) tensor->data + offset, value, size);
}

// Weight types with a tiled format are repacked here (weight-repack.h, GGML_HEXAGON_REPACK).
static void htp_buffer_set_tensor(ggml_backend_buffer_t buffer, ggml_tensor * tensor, const void * data,
                                  size_t offset, size_t size) {
    if (!htp_tiling_set(buffer, tensor, data, offset, size)) {
        memcpy((uint8_t *) tensor->data + offset, data, size);
    }
}

static void htp_buffer_get_tensor(ggml_backend_buffer_t buffer, const ggml_tensor * tensor, void * data,
                                  size_t offset, size_t size) {
    if (!htp_tiling_get(buffer, tensor, data, offset, size)) {
        memcpy(data, (const uint8_t *) tensor->data + offset, size);
    }
}

// Raw copies see flat bytes: a tiled source is read through get_tensor, and the
// destination is written through set_tensor (which may repack it).
static bool htp_buffer_cpy_tensor(ggml_backend_buffer_t buffer, const ggml_tensor * src, ggml_tensor * dst) {
    if (!src->buffer || !(ggml_backend_buffer_is_host(src->buffer) || htp_tensor_buffer(src))) {
        return false;
    }
    const size_t n = ggml_nbytes(src);
    if (ggml_backend_buffer_is_host(src->buffer) && !htp_tensor_buffer(src)) {
        htp_buffer_set_tensor(buffer, dst, src->data, 0, n);
        return true;
    }
    std::vector<uint8_t> tmp(n);
    ggml_backend_buffer_t sb = src->view_src ? src->view_src->buffer : src->buffer;
    htp_buffer_get_tensor(sb, src, tmp.data(), 0, n);
    htp_buffer_set_tensor(buffer, dst, tmp.data(), 0, n);
    return true;
}

static void htp_buffer_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    auto * b = (htp_buffer *) buffer->context;
    htp_tiling_forget_all(b);
    memset(b->base, value, b->size);
}

static const ggml_backend_buffer_i htp_buffer_iface = {
    /* .free_buffer   = */ htp_buffer_free,
    /* .get_base      = */ htp_buffer_get_base,
    /* .init_tensor   = */ nullptr,
    /* .memset_tensor = */ htp_buffer_memset_tensor,
    /* .set_tensor    = */ htp_buffer_set_tensor,
    /* .get_tensor    = */ htp_buffer_get_tensor,
    /* .set_tensor_2d = */ nullptr,
    /* .get_tensor_2d = */ nullptr,
    /* .cpy_tensor    = */ htp_buffer_cpy_tensor,
    /* .clear         = */ htp_buffer_clear,
    /* .reset         = */ nullptr,
};

static const char * htp_buft_get_name(ggml_backend_buffer_type_t buft) {
    auto * d = (htp_device *) buft->context;
    return d ? d->buft_name.c_str() : "HTP_Host";
}

// The largest single buffer (GGML_HEXAGON_MBUF for device buffers, SBUF for host ones).
static uint64_t htp_buft_max_buffer(const htp_config & cfg, const htp_device * d, const char ** variable) {
    *variable = d ? "GGML_HEXAGON_MBUF" : "GGML_HEXAGON_SBUF";
    return d ? cfg.mbuf : cfg.sbuf;
}

static ggml_backend_buffer_t htp_buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    auto * d = (htp_device *) buft->context;
    size = size ? size : 1;
    const std::string name = d ? d->spec.name : "HTP_Host";
    const char *      variable = nullptr;
    const uint64_t    max_size = htp_buft_max_buffer(buft_device(buft).reg->cfg, d, &variable);
    if (size > max_size) {  // as upstream: a larger buffer fails, the caller says what it was for
        HTP_LOG_ERROR("%s: a buffer of %.1f MiB is larger than %s (%llu MiB)", name.c_str(), size / 1048576.0,
                      variable, (unsigned long long) (max_size >> 20));
        return nullptr;
    }
    htp_shared_mem mem;
    std::string error;
    if (!htp_shared_alloc(size, name, mem, error)) {
        HTP_LOG_ERROR("%s: cannot allocate %zu bytes of shared DDR: %s", name.c_str(), size, error.c_str());
        return nullptr;
    }
    auto * b = new htp_buffer{ d, mem.fd, mem.host_ptr, size, d ? htp_tiling_state_new(d->reg->cfg.repack) : nullptr };
    if (d) {
        d->allocated += size;
    }
    return ggml_backend_buffer_init(buft, htp_buffer_iface, b, size);
}

static size_t htp_buft_get_alignment(ggml_backend_buffer_type_t) {
    return HTP_BUFFER_ALIGNMENT;
}

static size_t htp_buft_get_max_size(ggml_backend_buffer_type_t buft) {
    // Weights slide through the session window one buffer at a time, so llama's loader is
    // asked for buffers of at most a quarter of the budget (and 256 MiB): a model larger than
    // the window becomes many buffers, of which a batch maps only the ones it needs. A single
    // tensor larger than this still gets a buffer of its own (ggml-alloc does that).
    // GGML_HEXAGON_MBUF / SBUF bound it too.
    auto * d = (htp_device *) buft->context;
    const char *   variable = nullptr;
    const uint64_t max_buffer = htp_buft_max_buffer(buft_device(buft).reg->cfg, d, &variable);
    if (!d) {
        d = &buft_device(buft);
    }
    const uint64_t quarter = d->profile.vmem_budget / 4 / HTP_BUFFER_ALIGNMENT * HTP_BUFFER_ALIGNMENT;
    return (size_t) std::min<uint64_t>({ quarter, 256ull << 20, max_buffer });
}

// A weight's tiled size (weight-repack.h), or a node's bytes and the DDR its kernel uses after
// them (htp_op_dst_scratch: a long ARGSORT row's merge; htp_batch::add checks the room is there).
// ggml lets an ARGSORT node grow so (ggml_op_alloc_size_may_expand, ggml-backend.cpp: "fleeting
// data on certain backends"), and ggml-rpc's client asks the server for such a node's size.
static size_t htp_buft_get_alloc_size(ggml_backend_buffer_type_t buft, const ggml_tensor * tensor) {
    const htp_device & d = buft_device(buft);
    return std::max(htp_tiling_alloc_size(tensor, d.reg->cfg.repack),
                    ggml_nbytes(tensor) + (size_t) htp_op_dst_scratch(d.caps, tensor));
}

static bool htp_buft_is_host_false(ggml_backend_buffer_type_t) {
    return false;
}

static bool htp_buft_is_host_true(ggml_backend_buffer_type_t) {
    return true;
}

static const ggml_backend_buffer_type_i htp_device_buft_iface = {
    /* .get_name       = */ htp_buft_get_name,
    /* .alloc_buffer   = */ htp_buft_alloc_buffer,
    /* .get_alignment  = */ htp_buft_get_alignment,
    /* .get_max_size   = */ htp_buft_get_max_size,
    /* .get_alloc_size = */ htp_buft_get_alloc_size,
    /* .is_host        = */ htp_buft_is_host_false,
};

static const ggml_backend_buffer_type_i htp_host_buft_iface = {
    /* .get_name       = */ htp_buft_get_name,
    /* .alloc_buffer   = */ htp_buft_alloc_buffer,
    /* .get_alignment  = */ htp_buft_get_alignment,
    /* .get_max_size   = */ htp_buft_get_max_size,
    /* .get_alloc_size = */ nullptr,
    /* .is_host        = */ htp_buft_is_host_true,
};

void htp_buffer_types_init(htp_registry & reg) {
    for (auto & d : reg.devices) {
        d->reg       = &reg;
        d->buft_name = d->spec.name;
        d->buft      = { htp_device_buft_iface, &d->dev, d.get() };
    }
    reg.host_buft = { htp_host_buft_iface, &reg.devices.front()->dev, nullptr };
}

const htp_buffer * htp_tensor_buffer(const ggml_tensor * t) {
    ggml_backend_buffer_t b = t->view_src ? t->view_src->buffer : t->buffer;
    if (!b || b->iface.free_buffer != htp_buffer_free) {
        return nullptr;
    }
    return (const htp_buffer *) b->context;
}

void htp_unmap_everywhere(htp_registry & reg, int fd, uint64_t size) {
    for (auto & d : reg.devices) {
        d->stream->synchronize();  // queued batches may still name the buffer
        auto it = d->resident_pinned.find(fd);
        if (it != d->resident_pinned.end()) {
            d->resident_pinned_bytes -= it->second;
            d->resident_pinned.erase(it);
        }
        std::vector<uint8_t> msg(htp_msg_size(1, 0));
        htp_msg_header h = {};
        h.magic       = HTP_MSG_MAGIC;
        h.abi_version = HTP_ABI_VERSION;
        h.kind        = HTP_MSG_UNMAP;
        h.n_bufs      = 1;
        h.seq         = ++d->seq;
        h.trace_buf   = HTP_NO_BUF;
        const htp_buf_desc b = { fd, 0, size };
        memcpy(msg.data(), &h, sizeof(h));
        memcpy(msg.data() + sizeof(h), &b, sizeof(b));
        for (auto & s : d->sessions) {
            std::vector<uint8_t> resp;
            std::string error;
            if (!s->exchange(msg, resp, error)) {
                HTP_LOG_ERROR("%s: cannot unmap buffer fd %d: %s", d->spec.name.c_str(), fd, error.c_str());
            }
        }
    }
}
