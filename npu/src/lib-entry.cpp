// The entry points the runtime calls (device-api/include/htp/session.h). One library file per
// Hexagon version: HTP_ARCH is set by the build (73, 75, 79, 81).
#include <stdlib.h>

#include "dispatcher.h"

#ifndef HTP_ARCH
#    error "HTP_ARCH must be defined by the build (73, 75, 79 or 81)"
#endif

HTP_LIB_EXPORT uint32_t htp_lib_arch(void) {
    return HTP_ARCH;
}

// One dispatcher per session: the same library may serve several sessions in one process.
HTP_LIB_EXPORT int htp_lib_open(const struct htp_session_info * info, void ** lib_ctx) {
    struct htp_dispatcher * d = (struct htp_dispatcher *) malloc(sizeof(struct htp_dispatcher));
    if (!d) {
        return HTP_STATUS_NO_MEMORY;
    }
    htp_dispatcher_init(d, info);
    *lib_ctx = d;
    return HTP_STATUS_OK;
}

HTP_LIB_EXPORT int htp_lib_handle(void * lib_ctx, const void * msg, uint32_t msg_len, void * resp, uint32_t resp_cap,
                                  uint32_t * resp_len) {
    *resp_len = htp_dispatcher_handle((struct htp_dispatcher *) lib_ctx, (const uint8_t *) msg, msg_len,
                                      (uint8_t *) resp, resp_cap);
    return *resp_len ? HTP_STATUS_OK : HTP_STATUS_BAD_MESSAGE;
}

HTP_LIB_EXPORT void htp_lib_close(void * lib_ctx) {
    struct htp_dispatcher * d = (struct htp_dispatcher *) lib_ctx;
    htp_dispatcher_release(d);
    free(d);
}
