/* libFuzzer target: attach and ring reader over a hostile region image. The input is the region
 * (mapped size = input size). Its header CRC is recomputed so the fuzzer reaches geometry checks;
 * if the header is still invalid, a small valid header (R=2, S=4, 128-byte slots) replaces it so
 * the hostile state table, indices and slots are exercised, then each peer heals its own fields.
 * ASan reports any access outside. */
#include <stdlib.h>
#include <string.h>

#include "xcc.h"

#define MAX_IMAGE (1u << 20)
static uint8_t image[MAX_IMAGE] __attribute__((aligned(64)));
static uint8_t *region; /* exactly `size` bytes allocated so ASan sees the end */
static xcc_peer peers[2];
static uint8_t buf[XCC_MAX_FRAME_BYTES];
static xcc_frame frame;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[XCC_ERR_BYTES];
    if (size < 256 || size > MAX_IMAGE)
        return 0;
    region = aligned_alloc(64, (size + 63) & ~(size_t)63);
    if (!region) return 0;
    memcpy(region, data, size);
    uint32_t crc = xcc_crc32(region, XCC_HEADER_CRC_COVERED_BYTES);
    memcpy(region + XCC_HDR_HEADER_CRC32, &crc, 4);
    xcc_geometry g;
    if (xcc_validate_header(region, size, &g, err, sizeof err) != XCC_OK) {
        if (xcc_layout(2, 4, 128, &g, err, sizeof err) != XCC_OK || size < g.region_bytes) {
            free(region);
            return 0;
        }
        memcpy(image, region, size); /* keep the hostile body, put a valid header in front */
        xcc_format(region, size, &g, err, sizeof err);
        memcpy(region + 128, image + 128, size - 128);
    }
    xcc_region r;
    /* the last input byte picks the access path: atomics (shm, ivshmem) or aligned-only (/dev/mem) */
    xcc_region_wrap(&r, region, size, (data[size - 1] & 1u) ? XCC_ACCESS_ALIGNED : XCC_ACCESS_ATOMIC);
    /* round 0: readers/writers that trust the indices as found (no attach): attach once to get
     * the private geometry, then put the hostile state table and sections back.
     * round 1: the spec's attach, then the same. */
    memcpy(image, region, size);
    for (int round = 0; round < 2; round++) {
        for (uint32_t p = 0; p < 2; p++)
            if (xcc_attach(&peers[p], &r, p, XCC_ATTACH_CELL, err, sizeof err) != XCC_OK)
                abort(); /* the header validated: attach cannot fail */
        if (round == 0)
            memcpy(region + 128, image + 128, size - 128);
        for (uint32_t p = 0; p < 2; p++)
            for (uint32_t ring = 0; ring < g.rings_per_peer; ring++) {
                xcc_rx rx = peers[p].rx[ring];
                if (round == 0)
                    memcpy(&XCC_COUNTER_OF(rx, READ_INDEX), rx.consumer_line, 8); /* hostile starting point */
                for (int k = 0; k < 3 * 4096 + 8; k++) {
                    uint32_t n = 0;
                    int rc = xcc_poll(&rx, buf, sizeof buf, &n);
                    if (rc == XCC_EMPTY) break;
                    if (rc == XCC_OK && xcc_frame_decode(buf, n, &frame, err, sizeof err) != XCC_OK)
                        xcc_rx_count_undeliverable(&rx);
                }
                xcc_tx tx = peers[p].tx[ring];
                if (round == 0)
                    memcpy(&XCC_COUNTER_OF(tx, WRITE_INDEX), tx.ring, 8);
                (void)xcc_offer(&tx, "fuzz", 4);
            }
        /* self-healing over the hostile state table and sections: only its own fields, in bounds */
        for (uint32_t p = 0; p < 2; p++)
            (void)xcc_heal(&peers[p], 0);
    }
    free(region);
    return 0;
}
