/* Region geometry, format and header validation (region-spec.md, "Region header"). */
#include "xcc_internal.h"

static int is_pow2(uint32_t v) { return v != 0 && (v & (v - 1)) == 0; }

/* Checks shared by xcc_layout (building) and xcc_validate_header (attaching), so both speak
 * the same error: field, value, rule. */
static int check_shape(uint32_t rings, uint32_t slots, uint32_t slot_bytes, char *err, size_t eb)
{
    if (rings < XCC_MIN_RINGS || rings > XCC_MAX_RINGS) {
        xcc_errf(err, eb, "header field rings_per_peer = %u violates rule 2 <= R <= 8", rings);
        return XCC_EHEADER;
    }
    if (!is_pow2(slots) || slots < XCC_MIN_SLOTS || slots > XCC_MAX_SLOTS) {
        xcc_errf(err, eb,
                 "header field slots_per_ring = %u violates rule power of two, 4 <= S <= 4096",
                 slots);
        return XCC_EHEADER;
    }
    if (slot_bytes % XCC_SLOT_BYTES_MULTIPLE_OF != 0 || slot_bytes < XCC_MIN_SLOT_BYTES || slot_bytes > XCC_MAX_SLOT_BYTES) {
        xcc_errf(err, eb,
                 "header field slot_bytes = %u violates rule multiple of 64, 128 <= slot_bytes <= 4096",
                 slot_bytes);
        return XCC_EHEADER;
    }
    return XCC_OK;
}

static uint32_t section_bytes_for(uint32_t rings, uint32_t slots, uint32_t slot_bytes)
{
    /* bounded by the shape rules: 8*64 + 8*(64 + 4096*4096) < 2^31 */
    return XCC_LINE_BYTES * rings + rings * (XCC_LINE_BYTES + slots * slot_bytes);
}

int xcc_layout(uint32_t rings, uint32_t slots, uint32_t slot_bytes, xcc_geometry *out, char *err,
               size_t eb)
{
    int rc = check_shape(rings, slots, slot_bytes, err, eb);
    if (rc != XCC_OK)
        return rc;
    out->rings_per_peer = rings;
    out->slots_per_ring = slots;
    out->slot_bytes = slot_bytes;
    out->section_bytes = section_bytes_for(rings, slots, slot_bytes);
    out->section_offset[0] = XCC_FIRST_SECTION_OFFSET;
    out->section_offset[1] = XCC_FIRST_SECTION_OFFSET + out->section_bytes;
    out->region_bytes = XCC_FIRST_SECTION_OFFSET + 2u * out->section_bytes;
    return XCC_OK;
}

static void st32le(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void st16le(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static uint32_t ld32le(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint16_t ld16le(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }

int xcc_format(void *mem, size_t mapped_bytes, const xcc_geometry *geo, char *err, size_t eb)
{
    xcc_geometry g;
    int rc = xcc_layout(geo->rings_per_peer, geo->slots_per_ring, geo->slot_bytes, &g, err, eb);
    if (rc != XCC_OK)
        return rc;
    uint32_t region_bytes = geo->region_bytes > g.region_bytes ? geo->region_bytes : g.region_bytes;
    if (mapped_bytes < region_bytes) {
        xcc_errf(err, eb, "mapped size %zu is smaller than region_bytes %u", mapped_bytes,
                 region_bytes);
        return XCC_EINVAL;
    }
    uint8_t *b = mem;
    memset(b, 0, region_bytes);
    st32le(b + XCC_HDR_MAGIC, XCC_MAGIC);
    st16le(b + XCC_HDR_LAYOUT_VERSION, XCC_LAYOUT_VERSION);
    st16le(b + XCC_HDR_HEADER_BYTES, XCC_HEADER_BYTES);
    st32le(b + XCC_HDR_REGION_BYTES, region_bytes);
    st32le(b + XCC_HDR_PEER_COUNT, XCC_PEER_COUNT);
    st32le(b + XCC_HDR_RINGS_PER_PEER, g.rings_per_peer);
    st32le(b + XCC_HDR_SLOTS_PER_RING, g.slots_per_ring);
    st32le(b + XCC_HDR_SLOT_BYTES, g.slot_bytes);
    st32le(b + XCC_HDR_STATE_TABLE_OFFSET, XCC_STATE_TABLE_OFFSET);
    st32le(b + XCC_HDR_SECTION_OFFSET0, g.section_offset[0]);
    st32le(b + XCC_HDR_SECTION_OFFSET1, g.section_offset[1]);
    st32le(b + XCC_HDR_SECTION_BYTES, g.section_bytes);
    st32le(b + XCC_HDR_HEADER_CRC32, xcc_crc32(b, XCC_HEADER_CRC_COVERED_BYTES));
    uint32_t ring_stride = XCC_LINE_BYTES + g.slots_per_ring * g.slot_bytes;
    for (uint32_t p = 0; p < XCC_PEER_COUNT; p++)
        for (uint32_t r = 0; r < g.rings_per_peer; r++)
            st32le(b + g.section_offset[p] + XCC_LINE_BYTES * g.rings_per_peer + r * ring_stride +
                       XCC_RING_CLASS,
                   r);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return XCC_OK;
}

/* A header field that must hold one value: XCC_OK, or XCC_EHEADER with the field, its value and the rule. */
static int header_field_is(const char *field, uint32_t value, uint32_t want, const char *rule, char *err, size_t eb)
{
    if (value == want)
        return XCC_OK;
    xcc_errf(err, eb, "header field %s = %u violates rule %s", field, value, rule);
    return XCC_EHEADER;
}

int xcc_validate_header(const void *mem, size_t mapped_bytes, xcc_geometry *out, char *err,
                        size_t eb)
{
    const uint8_t *b = mem;
    /* The header is copied once: later changes by the other side cannot affect what we checked. */
    uint8_t h[XCC_HEADER_BYTES];
    if (mapped_bytes < XCC_FIRST_SECTION_OFFSET) {
        xcc_errf(err, eb, "mapped size %zu violates rule mapped size >= 256 (header + state table)",
                 mapped_bytes);
        return XCC_EHEADER;
    }
    memcpy(h, b, sizeof h);
    uint32_t magic = ld32le(h + XCC_HDR_MAGIC);
    if (magic != XCC_MAGIC) {
        xcc_errf(err, eb, "header field magic = 0x%08x violates rule magic == 0x31434358 (\"XCC1\")",
                 magic);
        return XCC_EHEADER;
    }
    uint16_t version = ld16le(h + XCC_HDR_LAYOUT_VERSION);
    if (header_field_is("layout_version", version, XCC_LAYOUT_VERSION, "layout_version == 1", err, eb) != XCC_OK)
        return XCC_EHEADER;
    uint16_t header_bytes = ld16le(h + XCC_HDR_HEADER_BYTES);
    if (header_field_is("header_bytes", header_bytes, XCC_HEADER_BYTES, "header_bytes == 128", err, eb) != XCC_OK)
        return XCC_EHEADER;
    uint32_t crc = ld32le(h + XCC_HDR_HEADER_CRC32), want = xcc_crc32(h, XCC_HEADER_CRC_COVERED_BYTES);
    if (crc != want) {
        xcc_errf(err, eb,
                 "header field header_crc32 = 0x%08x violates rule CRC-32 of bytes 0..43 (= 0x%08x)",
                 crc, want);
        return XCC_EHEADER;
    }
    uint32_t peer_count = ld32le(h + XCC_HDR_PEER_COUNT);
    if (header_field_is("peer_count", peer_count, XCC_PEER_COUNT, "peer_count == 2", err, eb) != XCC_OK)
        return XCC_EHEADER;
    uint32_t rings = ld32le(h + XCC_HDR_RINGS_PER_PEER), slots = ld32le(h + XCC_HDR_SLOTS_PER_RING),
             slot_bytes = ld32le(h + XCC_HDR_SLOT_BYTES);
    int rc = check_shape(rings, slots, slot_bytes, err, eb);
    if (rc != XCC_OK)
        return rc;
    uint32_t sto = ld32le(h + XCC_HDR_STATE_TABLE_OFFSET);
    if (header_field_is("state_table_offset", sto, XCC_STATE_TABLE_OFFSET, "state_table_offset == 128", err, eb) != XCC_OK)
        return XCC_EHEADER;
    uint32_t section_bytes = ld32le(h + XCC_HDR_SECTION_BYTES);
    uint32_t want_section = section_bytes_for(rings, slots, slot_bytes);
    if (section_bytes != want_section) {
        xcc_errf(err, eb,
                 "header field section_bytes = %u violates rule 64*R + R*(64 + S*slot_bytes) = %u",
                 section_bytes, want_section);
        return XCC_EHEADER;
    }
    uint32_t s0 = ld32le(h + XCC_HDR_SECTION_OFFSET0), s1 = ld32le(h + XCC_HDR_SECTION_OFFSET1);
    if (s0 != XCC_FIRST_SECTION_OFFSET) {
        xcc_errf(err, eb, "header field section_offset[0] = %u violates rule section_offset[0] == 256",
                 s0);
        return XCC_EHEADER;
    }
    if (s1 != XCC_FIRST_SECTION_OFFSET + section_bytes) {
        xcc_errf(err, eb,
                 "header field section_offset[1] = %u violates rule 256 + section_bytes = %u", s1,
                 XCC_FIRST_SECTION_OFFSET + section_bytes);
        return XCC_EHEADER;
    }
    uint32_t region_bytes = ld32le(h + XCC_HDR_REGION_BYTES);
    uint64_t need = (uint64_t)XCC_FIRST_SECTION_OFFSET + 2u * (uint64_t)section_bytes;
    if (region_bytes < need) {
        xcc_errf(err, eb,
                 "header field region_bytes = %u violates rule region_bytes >= 256 + 2*section_bytes = %llu",
                 region_bytes, (unsigned long long)need);
        return XCC_EHEADER;
    }
    if (region_bytes > mapped_bytes) {
        xcc_errf(err, eb, "header field region_bytes = %u violates rule region_bytes <= mapped size %zu",
                 region_bytes, mapped_bytes);
        return XCC_EHEADER;
    }
    for (uint32_t i = XCC_HDR_HEADER_CRC32 + 4u; i < XCC_HEADER_BYTES; i++)
        if (h[i] != 0) {
            xcc_errf(err, eb, "header byte %u (reserved) = 0x%02x violates rule reserved bytes 48..127 are zero",
                     i, h[i]);
            return XCC_EHEADER;
        }
    if (out) {
        out->region_bytes = region_bytes;
        out->rings_per_peer = rings;
        out->slots_per_ring = slots;
        out->slot_bytes = slot_bytes;
        out->section_bytes = section_bytes;
        out->section_offset[0] = s0;
        out->section_offset[1] = s1;
    }
    return XCC_OK;
}

void xcc_copy_from_region(void *dst, const uint8_t *src, uint32_t n, int access)
{
    if (access == XCC_ACCESS_ATOMIC) {
        memcpy(dst, src, n);
        return;
    }
    uint8_t *d = dst;
    uint32_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w = xcc_ld64(src + i);
        memcpy(d + i, &w, 8);
    }
    if (i < n) { /* last partial word: read it whole (still inside the slot), keep what we need */
        uint64_t w = xcc_ld64(src + i);
        memcpy(d + i, &w, n - i);
    }
}

void xcc_copy_to_region(uint8_t *dst, const void *src, uint32_t n, int access)
{
    if (access == XCC_ACCESS_ATOMIC) {
        memcpy(dst, src, n);
        return;
    }
    const uint8_t *s = src;
    uint32_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        xcc_st64(dst + i, w);
    }
    if (i < n) { /* pad the last word with zeros */
        uint64_t w = 0;
        memcpy(&w, s + i, n - i);
        xcc_st64(dst + i, w);
    }
}
