// Linkage macros for the device API: the functions an NPU library may call and the vHTP
// (or, on Hexagon, the SDK shim) implements.
#pragma once

#ifdef __cplusplus
#    define HTP_DEVICE_API_BEGIN extern "C" {
#    define HTP_DEVICE_API_END   }
#else
#    define HTP_DEVICE_API_BEGIN
#    define HTP_DEVICE_API_END
#endif

#if defined(__hexagon__)
#    define HTP_DEVICE_API
#else
#    define HTP_DEVICE_API __attribute__((visibility("default")))
#endif

// What an NPU library exports for the runtime that loads it.
#define HTP_LIB_EXPORT extern "C" __attribute__((visibility("default")))
