/* Memory accessors for the shared region. Every multi-byte field is little-endian and naturally
 * aligned (the layout guarantees it), so on little-endian hosts a plain aligned load is the
 * field; XCC_ACCESS_ALIGNED regions (/dev/mem) get volatile accesses and fences only. */
#ifndef XCC_INTERNAL_H
#define XCC_INTERNAL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "xcc.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "libxcc assumes a little-endian host; add byte swaps in xcc_internal.h for big-endian ports"
#endif

static inline uint32_t xcc_ld32(const uint8_t *p) { return *(const volatile uint32_t *)(const void *)p; }
static inline void xcc_st32(uint8_t *p, uint32_t v) { *(volatile uint32_t *)(void *)p = v; }
static inline uint64_t xcc_ld64(const uint8_t *p) { return *(const volatile uint64_t *)(const void *)p; }
static inline void xcc_st64(uint8_t *p, uint64_t v) { *(volatile uint64_t *)(void *)p = v; }
static inline uint16_t xcc_ld16(const uint8_t *p) { return *(const volatile uint16_t *)(const void *)p; }

/* Acquire/release on indices and states. */
static inline uint64_t xcc_ld64_acquire(const uint8_t *p, int access)
{
    if (access == XCC_ACCESS_ATOMIC)
        return __atomic_load_n((const uint64_t *)(const void *)p, __ATOMIC_ACQUIRE);
    uint64_t v = xcc_ld64(p);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return v;
}
static inline void xcc_st64_release(uint8_t *p, uint64_t v, int access)
{
    if (access == XCC_ACCESS_ATOMIC) {
        __atomic_store_n((uint64_t *)(void *)p, v, __ATOMIC_RELEASE);
        return;
    }
    __atomic_thread_fence(__ATOMIC_RELEASE);
    xcc_st64(p, v);
}
static inline uint32_t xcc_ld32_acquire(const uint8_t *p, int access)
{
    if (access == XCC_ACCESS_ATOMIC)
        return __atomic_load_n((const uint32_t *)(const void *)p, __ATOMIC_ACQUIRE);
    uint32_t v = xcc_ld32(p);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return v;
}
static inline void xcc_st32_release(uint8_t *p, uint32_t v, int access)
{
    if (access == XCC_ACCESS_ATOMIC) {
        __atomic_store_n((uint32_t *)(void *)p, v, __ATOMIC_RELEASE);
        return;
    }
    __atomic_thread_fence(__ATOMIC_RELEASE);
    xcc_st32(p, v);
}
/* Counters have one writer, which keeps the truth privately: it adds to its copy and stores
 * that (a plain store, no read-modify-write atomics, none on /dev/mem). */
static inline void xcc_count(uint8_t *p, uint64_t *own, uint64_t add)
{
    *own += add;
    xcc_st64(p, *own);
}

/* Self-healing: store the owner's value where the shared copy differs; 1 if it was repaired. */
static inline int xcc_republish64(uint8_t *p, uint64_t own, int access)
{
    if (xcc_ld64_acquire(p, access) == own)
        return 0;
    xcc_st64_release(p, own, access);
    return 1;
}
static inline int xcc_republish32(uint8_t *p, uint32_t own, int access)
{
    if (xcc_ld32_acquire(p, access) == own)
        return 0;
    xcc_st32_release(p, own, access);
    return 1;
}

/* Copies between private memory and the region. The region side is 8-byte aligned; copies move
 * whole aligned 64-bit words (the slot's frame area is a multiple of 8), so /dev/mem never sees
 * an unaligned or byte access, and no copy strays outside the slot. */
void xcc_copy_from_region(void *dst, const uint8_t *src, uint32_t n, int access);
void xcc_copy_to_region(uint8_t *dst, const void *src, uint32_t n, int access);

static inline void xcc_errf(char *err, size_t err_bytes, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline void xcc_errf(char *err, size_t err_bytes, const char *fmt, ...)
{
    if (!err || err_bytes == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_bytes, fmt, ap);
    va_end(ap);
}

#endif
