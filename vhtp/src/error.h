// One-line error reporting into the caller's (err, err_len) buffer, as vhtp.h promises.
#pragma once
#include <cstdarg>
#include <cstddef>
#include <cstdio>

namespace vhtp {

__attribute__((format(printf, 3, 4))) inline void set_error(char * err, size_t err_len, const char * fmt, ...) {
    if (!err || err_len == 0) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
}

}  // namespace vhtp
