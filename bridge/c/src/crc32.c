/* CRC-32 as zlib computes it (ISO-HDLC: reflected polynomial 0xEDB88320, init and final XOR
 * 0xFFFFFFFF). Table built at compile time so the data path never initialises anything. */
#include "xcc.h"

#define XCC_CRC_POLY 0xEDB88320u
#define R1(c) (((c) >> 1) ^ (XCC_CRC_POLY & (0u - ((c) & 1u))))
#define R8(c) R1(R1(R1(R1(R1(R1(R1(R1(c))))))))
#define T4(n) R8((uint32_t)(n)), R8((uint32_t)(n) + 1), R8((uint32_t)(n) + 2), R8((uint32_t)(n) + 3)
#define T16(n) T4(n), T4((n) + 4), T4((n) + 8), T4((n) + 12)
#define T64(n) T16(n), T16((n) + 16), T16((n) + 32), T16((n) + 48)

static const uint32_t crc_table[256] = {T64(0), T64(64), T64(128), T64(192)};

uint32_t xcc_crc32_update(uint32_t crc, const void *data, size_t n)
{
    const uint8_t *p = data;
    crc = ~crc;
    while (n--)
        crc = crc_table[(crc ^ *p++) & 0xFFu] ^ (crc >> 8);
    return ~crc;
}

uint32_t xcc_crc32(const void *data, size_t n) { return xcc_crc32_update(0, data, n); }
