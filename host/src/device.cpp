// A ggml backend device per HTP session: name, description, memory, op support.
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "context.h"
#include "backend.h"
#include "device.h"
#include "support.h"
#include "log.h"

static htp_device & dev_of(ggml_backend_dev_t dev) {
    return *(htp_device *) dev->context;
}

static const char * htp_dev_get_name(ggml_backend_dev_t dev) {
    return dev_of(dev).spec.name.c_str();
}

static const char * htp_dev_get_description(ggml_backend_dev_t dev) {
    return dev_of(dev).description.c_str();
}

// Device buffers are shared DDR: the NPU and the CPU share the memory (unified memory on a
// phone, the host's RAM on the vHTP), and weights slide through the session window, so a model
// larger than the window fits as long as the memory holds it. Total: the memory; free: what
// the system reports available (llama.cpp's fitting of layers to devices reads this).
static void htp_dev_get_memory(ggml_backend_dev_t, size_t * free, size_t * total) {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long avail = sysconf(_SC_AVPHYS_PAGES);
    const long page  = sysconf(_SC_PAGESIZE);
    *total = pages > 0 && page > 0 ? (size_t) pages * (size_t) page : 0;
    *free  = avail > 0 && page > 0 ? (size_t) avail * (size_t) page : 0;
    uint64_t mem_available = 0;  // MemAvailable counts reclaimable page cache, _AVPHYS_ does not
    if (FILE * f = fopen("/proc/meminfo", "r")) {
        char line[128];
        while (fgets(line, sizeof(line), f)) {
            unsigned long long kb = 0;
            if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
                mem_available = kb * 1024ull;
                break;
            }
        }
        fclose(f);
    }
    if (mem_available > 0 && mem_available <= *total) {
        *free = (size_t) mem_available;
    }
}

static enum ggml_backend_dev_type htp_dev_get_type(ggml_backend_dev_t) {
    return GGML_BACKEND_DEVICE_TYPE_GPU;
}

static void htp_dev_get_props(ggml_backend_dev_t dev, ggml_backend_dev_props * props) {
    props->name        = htp_dev_get_name(dev);
    props->description = htp_dev_get_description(dev);
    props->type        = htp_dev_get_type(dev);
    props->device_id   = nullptr;
    htp_dev_get_memory(dev, &props->memory_free, &props->memory_total);
    props->caps.async                = true;  // graph_compute in a pipeline (context.h: htp_device::stream)
    props->caps.host_buffer          = dev_of(dev).reg->cfg.hostbuf;
    props->caps.buffer_from_host_ptr = false;
    props->caps.events               = true;
    props->caps.mmap_support         = false;
}

static ggml_backend_t htp_dev_init_backend(ggml_backend_dev_t dev, const char *) {
    return htp_backend_init(dev_of(dev));
}

static ggml_backend_buffer_type_t htp_dev_get_buffer_type(ggml_backend_dev_t dev) {
    return &dev_of(dev).buft;
}

static ggml_backend_buffer_type_t htp_dev_get_host_buffer_type(ggml_backend_dev_t dev) {
    htp_registry & reg = *dev_of(dev).reg;
    return reg.cfg.hostbuf ? &reg.host_buft : nullptr;
}

static bool htp_dev_supports_op(ggml_backend_dev_t dev, const ggml_tensor * op) {
    return htp_device_supports_op(*dev_of(dev).reg, dev_of(dev), op);
}

// The device's own buffers and the host buffer type. Any session could map any HTP buffer
// (all are shared DDR), but accepting another device's would let llama's scheduler run that
// device's layers here: the backend that sees a weight's buffer first takes its ops, so a
// layer split would put every layer on the first device.
static bool htp_dev_supports_buft(ggml_backend_dev_t dev, ggml_backend_buffer_type_t buft) {
    return buft == &dev_of(dev).buft || buft == &dev_of(dev).reg->host_buft;
}

static bool htp_dev_offload_op(ggml_backend_dev_t, const ggml_tensor *) {
    return false;
}

// An event is a point in a device's stream: the ticket of the last work queued when it was
// recorded (backend.cpp). While any exists, the device's graph_compute runs asynchronously.
static ggml_backend_event_t htp_dev_event_new(ggml_backend_dev_t dev) {
    dev_of(dev).n_events++;
    return new ggml_backend_event{ dev, new htp_event{} };
}

static void htp_dev_event_free(ggml_backend_dev_t dev, ggml_backend_event_t event) {
    delete (htp_event *) event->context;
    delete event;
    dev_of(dev).n_events--;
}

static void htp_dev_event_synchronize(ggml_backend_dev_t, ggml_backend_event_t event) {
    const auto * e = (const htp_event *) event->context;
    if (e->stream) {
        e->stream->wait(e->ticket);
    }
}

static const ggml_backend_device_i htp_device_iface = {
    /* .get_name             = */ htp_dev_get_name,
    /* .get_description      = */ htp_dev_get_description,
    /* .get_memory           = */ htp_dev_get_memory,
    /* .get_type             = */ htp_dev_get_type,
    /* .get_props            = */ htp_dev_get_props,
    /* .init_backend         = */ htp_dev_init_backend,
    /* .get_buffer_type      = */ htp_dev_get_buffer_type,
    /* .get_host_buffer_type = */ htp_dev_get_host_buffer_type,
    /* .buffer_from_host_ptr = */ nullptr,
    /* .supports_op          = */ htp_dev_supports_op,
    /* .supports_buft        = */ htp_dev_supports_buft,
    /* .offload_op           = */ htp_dev_offload_op,
    /* .event_new            = */ htp_dev_event_new,
    /* .event_free           = */ htp_dev_event_free,
    /* .event_synchronize    = */ htp_dev_event_synchronize,
};

void htp_device_init_iface(htp_registry & reg, htp_device & d) {
    d.dev = { htp_device_iface, &reg.reg, &d };
}
