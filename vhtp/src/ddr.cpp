// Shared DDR buffers: memfds, so that a buffer is named by an fd that any session (or, later, a
// session process) can map, exactly like rpcmem buffers handed to FastRPC on a phone.
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "dsp-client.h"
#include "error.h"
#include "vhtp/vhtp.h"

extern "C" VHTP_API int vhtp_ddr_alloc(uint64_t size, const char * name, void ** host_ptr, char * err,
                                       size_t err_len) {
    if (size == 0) {
        vhtp::set_error(err, err_len, "cannot allocate an empty DDR buffer");
        return -1;
    }
    const int fd = memfd_create(name && *name ? name : "vhtp-ddr", MFD_CLOEXEC);
    if (fd < 0) {
        vhtp::set_error(err, err_len, "memfd_create failed: %s", strerror(errno));
        return -1;
    }
    if (ftruncate(fd, static_cast<off_t>(size)) != 0) {
        vhtp::set_error(err, err_len, "cannot size a DDR buffer to %llu bytes: %s",
                        static_cast<unsigned long long>(size), strerror(errno));
        close(fd);
        return -1;
    }
    void * p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        vhtp::set_error(err, err_len, "cannot map a DDR buffer of %llu bytes: %s",
                        static_cast<unsigned long long>(size), strerror(errno));
        close(fd);
        return -1;
    }
    *host_ptr = p;
    return fd;
}

extern "C" VHTP_API void vhtp_ddr_free(int fd, void * host_ptr, uint64_t size) {
    if (fd >= 0) {
        vhtp::dsp_client_forget_fd(fd);  // the DSP process's copy goes too (dsp-client.h)
    }
    if (host_ptr) {
        munmap(host_ptr, size);
    }
    if (fd >= 0) {
        close(fd);
    }
}
