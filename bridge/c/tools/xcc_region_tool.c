/* xcc_region_tool: format, validate and show the counters of a region file.
 *   xcc_region_tool format   --path P --rings R --slots S --slot-bytes B
 *   xcc_region_tool validate --path P
 *   xcc_region_tool stats    --path P      (one JSON line per peer state, then per ring) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xcc.h"

/* A JSON string of the bytes of s: quote, backslash and control characters escaped, the rest as is
 * (a path is bytes; the tool's callers pass UTF-8 ones). */
static void print_json_string(const char *s)
{
    putchar('"');
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\') printf("\\%c", *c);
        else if (*c < 0x20) printf("\\u%04x", *c);
        else putchar(*c);
    }
    putchar('"');
}

static int usage(void)
{
    fprintf(stderr, "usage: xcc_region_tool format --path P --rings R --slots S --slot-bytes B\n"
                    "       xcc_region_tool validate --path P\n"
                    "       xcc_region_tool stats --path P\n");
    return 2;
}

static int parse_u32(const char *name, const char *s, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *s == '\0' || *end != '\0' || s[0] == '-' || v > UINT32_MAX) {
        fprintf(stderr, "xcc_region_tool: %s '%s' is not an unsigned 32-bit number\n", name, s);
        return 0;
    }
    *out = (uint32_t)v;
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) return usage();
    const char *cmd = argv[1], *path = NULL;
    uint32_t rings = 3, slots = 64, slot_bytes = XCC_DEFAULT_SLOT_BYTES;
    for (int i = 2; i < argc; i += 2) {
        if (i + 1 >= argc) {
            fprintf(stderr, "xcc_region_tool: option %s needs a value\n", argv[i]);
            return 2;
        }
        const char *k = argv[i], *v = argv[i + 1];
        if (strcmp(k, "--path") == 0) path = v;
        else if (strcmp(k, "--rings") == 0) { if (!parse_u32(k, v, &rings)) return 2; }
        else if (strcmp(k, "--slots") == 0) { if (!parse_u32(k, v, &slots)) return 2; }
        else if (strcmp(k, "--slot-bytes") == 0) { if (!parse_u32(k, v, &slot_bytes)) return 2; }
        else {
            fprintf(stderr, "xcc_region_tool: unknown option %s\n", k);
            return 2;
        }
    }
    if (!path) {
        fprintf(stderr, "xcc_region_tool: --path is required\n");
        return 2;
    }
    char err[XCC_ERR_BYTES];
    xcc_region r;
    xcc_geometry g;
    if (strcmp(cmd, "format") == 0) {
        if (xcc_layout(rings, slots, slot_bytes, &g, err, sizeof err) != XCC_OK ||
            xcc_map_shm(&r, path, g.region_bytes, err, sizeof err) != XCC_OK ||
            xcc_format(r.base, r.mapped_bytes, &g, err, sizeof err) != XCC_OK) {
            fprintf(stderr, "xcc_region_tool: %s\n", err);
            return 1;
        }
        fputs("{\"path\":", stdout);
        print_json_string(path);
        printf(",\"region_bytes\":%u,\"rings_per_peer\":%u,\"slots_per_ring\":%u,\"slot_bytes\":%u}\n",
               g.region_bytes, g.rings_per_peer, g.slots_per_ring, g.slot_bytes);
        xcc_unmap(&r);
        return 0;
    }
    if (strcmp(cmd, "validate") != 0 && strcmp(cmd, "stats") != 0) return usage();
    if (xcc_map_shm(&r, path, 0, err, sizeof err) != XCC_OK ||
        xcc_validate_header(r.base, r.mapped_bytes, &g, err, sizeof err) != XCC_OK) {
        fprintf(stderr, "xcc_region_tool: %s: %s\n", path, err);
        return 1;
    }
    if (strcmp(cmd, "validate") == 0) {
        printf("%s: valid, %u rings x %u slots x %u bytes per peer, %u bytes\n", path, g.rings_per_peer,
               g.slots_per_ring, g.slot_bytes, g.region_bytes);
    } else {
        /* every counter through the generic view: one line per state line, one per ring (its
         * producer's ring header and the other peer's consumer line reading it) */
        for (uint32_t p = 0; p < XCC_PEER_COUNT; p++) {
            printf("{\"peer\":%u", p);
            for (uint32_t id = XCC_STATE_LINE_FIRST_COUNTER; id < XCC_STATE_LINE_END_COUNTER; id++)
                printf(",\"%s\":%llu", xcc_counter_table[id].label,
                       (unsigned long long)xcc_counter_read(&r, &g, id, p, 0));
            printf("}\n");
        }
        for (uint32_t p = 0; p < XCC_PEER_COUNT; p++)
            for (uint32_t ring = 0; ring < g.rings_per_peer; ring++) {
                printf("{\"producer\":%u,\"ring\":%u", p, ring);
                for (uint32_t id = XCC_RING_HEADER_FIRST_COUNTER; id < XCC_CONSUMER_LINE_END_COUNTER; id++) {
                    uint32_t owner = xcc_counter_table[id].line == XCC_IN_CONSUMER_LINE ? 1u - p : p;
                    printf(",\"%s\":%llu", xcc_counter_table[id].label,
                           (unsigned long long)xcc_counter_read(&r, &g, id, owner, ring));
                }
                printf("}\n");
            }
    }
    xcc_unmap(&r);
    return 0;
}
