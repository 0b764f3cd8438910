// A freestanding runtime for small test programs on qemu-hexagon (linux-user): no libc, just
// _start, write/exit through Linux syscalls (trap0), and a buffered hex printer.
// Build: clang-16 --target=hexagon -mv73 -mhvx -mhvx-length=128b -ffreestanding -nostdlib
//        -c start.c; ld.lld-16 -static -e _start start.o your.o
#pragma once
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// The program's entry point, called by _start; its return value is the exit status.
int hexagon_main(void);

long hexagon_write(int fd, const void * buf, size_t len);
__attribute__((noreturn)) void hexagon_exit(int status);

// Buffered output to stdout; flushed by hexagon_flush() and at exit.
void rt_puts(const char * s);
void rt_putc(char c);
void rt_put_hex(const void * bytes, size_t n);  // bytes in memory order, two hex digits each
void rt_put_u32(uint32_t v);                     // decimal
void rt_flush(void);

// The compiler may emit calls to these for struct copies and zeroing.
void * memcpy(void * dst, const void * src, size_t n);
void * memset(void * dst, int c, size_t n);

#ifdef __cplusplus
}
#endif
