// _start, syscalls and output for freestanding Hexagon test programs (see hexagon-rt.h).
#include "hexagon-rt.h"

// Linux syscall ABI on Hexagon: number in r6, arguments in r0-r5, trap0(#1), result in r0.
// Numbers are the asm-generic ones.
enum { SYS_write = 64, SYS_exit_group = 94 };

static long syscall3(long nr, long a, long b, long c) {
    register long r0 __asm__("r0") = a;
    register long r1 __asm__("r1") = b;
    register long r2 __asm__("r2") = c;
    register long r6 __asm__("r6") = nr;
    __asm__ volatile("trap0(#1)" : "+r"(r0) : "r"(r1), "r"(r2), "r"(r6) : "memory");
    return r0;
}

long hexagon_write(int fd, const void * buf, size_t len) {
    return syscall3(SYS_write, fd, (long) buf, (long) len);
}

void hexagon_exit(int status) {
    rt_flush();
    syscall3(SYS_exit_group, status, 0, 0);
    for (;;) {
    }
}

static char   out_buf[1 << 16];
static size_t out_len;

void rt_flush(void) {
    size_t off = 0;
    while (off < out_len) {
        long n = hexagon_write(1, out_buf + off, out_len - off);
        if (n <= 0) {
            break;
        }
        off += (size_t) n;
    }
    out_len = 0;
}

void rt_putc(char c) {
    if (out_len == sizeof(out_buf)) {
        rt_flush();
    }
    out_buf[out_len++] = c;
}

void rt_puts(const char * s) {
    while (*s) {
        rt_putc(*s++);
    }
}

void rt_put_hex(const void * bytes, size_t n) {
    static const char digits[] = "0123456789abcdef";
    const uint8_t * p = (const uint8_t *) bytes;
    for (size_t i = 0; i < n; i++) {
        rt_putc(digits[p[i] >> 4]);
        rt_putc(digits[p[i] & 15]);
    }
}

void rt_put_u32(uint32_t v) {
    char   tmp[10];
    size_t n = 0;
    do {
        tmp[n++] = (char) ('0' + v % 10);
        v /= 10;
    } while (v);
    while (n) {
        rt_putc(tmp[--n]);
    }
}

void * memcpy(void * dst, const void * src, size_t n) {
    uint8_t *       d = (uint8_t *) dst;
    const uint8_t * s = (const uint8_t *) src;
    while (n--) {
        *d++ = *s++;
    }
    return dst;
}

void * memset(void * dst, int c, size_t n) {
    uint8_t * d = (uint8_t *) dst;
    while (n--) {
        *d++ = (uint8_t) c;
    }
    return dst;
}

__attribute__((noreturn, used)) void hexagon_start_c(void) {
    hexagon_exit(hexagon_main());
}

// The kernel leaves sp (r29) pointing at argc; HVX spills want 128-byte alignment.
__asm__(".text\n"
        ".globl _start\n"
        ".type _start,@function\n"
        "_start:\n"
        "  r29 = and(r29, #-128)\n"
        "  call hexagon_start_c\n");
