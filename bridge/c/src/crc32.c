/* CRC-32 as zlib computes it (ISO-HDLC: reflected polynomial 0xEDB88320, init and final XOR
 * 0xFFFFFFFF). Every slot's frame is checked on both sides of a ring, so this is on the hot path.
 *
 * Portable path: zlib's crc32_z (braided, several bytes per step; any port that carries zlib,
 * RTEMS included, gets it). x86-64 with PCLMULQDQ: carry-less multiplication folds 16 bytes per
 * step, as the JVM's CRC32 intrinsic does, so the C peer is not slower than the Java peer (the
 * braided table walk costs ~0.5 ns per byte here, folding ~0.05). The CPU is asked once per call
 * (__builtin_cpu_supports reads a word libgcc filled in before main); nothing is initialised on
 * the data path. */
#include <zlib.h>

#include "xcc.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/* Folding constants for the reflected polynomial, each x^k mod P bit-reflected and shifted left
 * by one (V. Gopal et al., "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ
 * Instruction", Intel, 2009): k1/k2 fold a lane 512 bits ahead (k = 4*128+32, 4*128-32), k3/k4
 * 128 bits ahead (128+32, 128-32), k5 folds 64 bits to 32 (x^64); then Barrett reduction by
 * P (0x1DB710641, bit-reflected with x^32) and mu = floor(x^64 / P) (reflected). The unit test
 * holds the result to zlib at every length 0..1100 and every alignment. */
#define K1 0x154442bd4ull
#define K2 0x1c6e41596ull
#define K3 0x1751997d0ull
#define K4 0x0ccaa009eull
#define K5 0x163cd6124ull
#define POLY 0x1db710641ull
#define MU 0x1f7011641ull

/* acc * k (low or high 64 bits of acc by the constant of the same half), xor next */
__attribute__((target("pclmul,sse4.1"))) static inline __m128i fold(__m128i acc, __m128i k, __m128i next)
{
    __m128i lo = _mm_clmulepi64_si128(acc, k, 0x00);
    __m128i hi = _mm_clmulepi64_si128(acc, k, 0x11);
    return _mm_xor_si128(_mm_xor_si128(lo, hi), next);
}

static inline __m128i load16(const uint8_t *p) { return _mm_loadu_si128((const __m128i *)(const void *)p); }

/* reg is the CRC register (already inverted); n >= 16. Consumes n rounded down to 16 bytes and
 * returns the register after them; *done says how many. */
__attribute__((target("pclmul,sse4.1")))
static uint32_t fold_blocks(uint32_t reg, const uint8_t *p, size_t n, size_t *done)
{
    const __m128i k12 = _mm_set_epi64x((long long)K2, (long long)K1);
    const __m128i k34 = _mm_set_epi64x((long long)K4, (long long)K3);
    const uint8_t *start = p;
    __m128i x = _mm_xor_si128(load16(p), _mm_cvtsi32_si128((int)reg));
    p += 16;
    n -= 16;
    if (n >= 48) { /* four independent lanes, 64 bytes per step, while the data lasts */
        __m128i x1 = x, x2 = load16(p), x3 = load16(p + 16), x4 = load16(p + 32);
        p += 48;
        n -= 48;
        for (; n >= 64; p += 64, n -= 64) {
            x1 = fold(x1, k12, load16(p));
            x2 = fold(x2, k12, load16(p + 16));
            x3 = fold(x3, k12, load16(p + 32));
            x4 = fold(x4, k12, load16(p + 48));
        }
        x = fold(fold(fold(x1, k34, x2), k34, x3), k34, x4);
    }
    for (; n >= 16; p += 16, n -= 16)
        x = fold(x, k34, load16(p));

    /* 128 -> 64 bits: the low half times k4 into the high half */
    const __m128i low32 = _mm_setr_epi32(-1, 0, -1, 0);
    x = _mm_xor_si128(_mm_srli_si128(x, 8), _mm_clmulepi64_si128(x, k34, 0x10));
    /* 64 -> 32 bits (+32 carried): the low 32 bits times k5 */
    const __m128i k5 = _mm_set_epi64x(0, (long long)K5);
    x = _mm_xor_si128(_mm_srli_si128(x, 4), _mm_clmulepi64_si128(_mm_and_si128(x, low32), k5, 0x00));
    /* Barrett reduction to the 32-bit remainder */
    const __m128i pmu = _mm_set_epi64x((long long)MU, (long long)POLY);
    __m128i t = _mm_clmulepi64_si128(_mm_and_si128(x, low32), pmu, 0x10);
    t = _mm_clmulepi64_si128(_mm_and_si128(t, low32), pmu, 0x00);
    *done = (size_t)(p - start);
    return (uint32_t)_mm_extract_epi32(_mm_xor_si128(x, t), 1);
}

uint32_t xcc_crc32_update(uint32_t crc, const void *data, size_t n)
{
    const uint8_t *p = data;
    if (n == 0)
        return crc; /* zlib answers 0 for a NULL buffer whatever the CRC so far */
    if (n >= 16 && __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1")) {
        size_t done;
        crc = ~fold_blocks(~crc, p, n, &done);
        p += done;
        n -= done;
    }
    return (uint32_t)crc32_z(crc, p, n); /* the rest (< 16 bytes), or everything without PCLMULQDQ */
}
#else
uint32_t xcc_crc32_update(uint32_t crc, const void *data, size_t n)
{
    return (uint32_t)crc32_z(crc, data, n);
}
#endif

uint32_t xcc_crc32(const void *data, size_t n) { return xcc_crc32_update(0, data, n); }
