/* libxcc unit tests: every hostile case of issue 3 plus the shared vectors (vectors.c).
 * Prints "N passed, M failed"; exits non-zero on any failure or when no vectors are found. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "xcc.h"

int h_failed_checks;
const char *h_tmp_dir = "/tmp";
static int passed, failed;

void h_record(const char *name)
{
    if (h_failed_checks) {
        failed++;
        printf("FAIL %s\n", name);
    } else {
        passed++;
        printf("ok   %s\n", name);
    }
    fflush(stdout);
    h_failed_checks = 0;
}

#define RUN(fn) do { fn(); h_record(#fn); } while (0)

/* ---- helpers -------------------------------------------------------------------------------- */
static _Alignas(64) uint8_t mem_a[1 << 20];

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

static void rehash(uint8_t *b) { put32(b + XCC_HDR_HEADER_CRC32, xcc_crc32(b, XCC_HEADER_CRC_COVERED_BYTES)); }

static xcc_geometry fmt(uint8_t *mem, size_t bytes, uint32_t r, uint32_t s, uint32_t sb)
{
    xcc_geometry g;
    char err[XCC_ERR_BYTES];
    int rc = xcc_layout(r, s, sb, &g, err, sizeof err);
    CHECK_MSG(rc == XCC_OK, "%s", err);
    rc = xcc_format(mem, bytes, &g, err, sizeof err);
    CHECK_MSG(rc == XCC_OK, "%s", err);
    return g;
}

/* two attached peers over mem_a */
static xcc_region reg;
static xcc_peer p0, p1;
static xcc_geometry setup_access(uint32_t r, uint32_t s, uint32_t sb, int access)
{
    char err[XCC_ERR_BYTES];
    xcc_geometry g = fmt(mem_a, sizeof mem_a, r, s, sb);
    xcc_region_wrap(&reg, mem_a, sizeof mem_a, access);
    CHECK_MSG(xcc_attach(&p0, &reg, 0, XCC_ATTACH_CELL, err, sizeof err) == XCC_OK, "%s", err);
    CHECK_MSG(xcc_attach(&p1, &reg, 1, XCC_ATTACH_CELL, err, sizeof err) == XCC_OK, "%s", err);
    return g;
}
static xcc_geometry setup(uint32_t r, uint32_t s, uint32_t sb) { return setup_access(r, s, sb, XCC_ACCESS_ATOMIC); }

static void fill(uint8_t *b, uint32_t n, uint32_t seed)
{
    for (uint32_t i = 0; i < n; i++)
        b[i] = (uint8_t)(seed * 131u + i * 7u);
}

static uint8_t *slot_of(xcc_tx *tx, uint64_t index)
{
    return tx->slots + (index & (tx->slots_per_ring - 1u)) * tx->slot_bytes;
}

/* ---- CRC, layout, header ------------------------------------------------------------------ */
static void test_crc32_known_values(void)
{
    CHECK(xcc_crc32("123456789", 9) == 0xCBF43926u);
    CHECK(xcc_crc32("", 0) == 0);
    CHECK(xcc_crc32("The quick brown fox jumps over the lazy dog", 43) == 0x414FA339u);
    uint32_t c = xcc_crc32_update(0, "1234", 4);
    CHECK(xcc_crc32_update(c, "56789", 5) == 0xCBF43926u);
    CHECK(xcc_crc32_update(0x12345678u, NULL, 0) == 0x12345678u);
}

/* the definition, one bit at a time: the reference the fast paths are held to */
static uint32_t crc32_bitwise(const uint8_t *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    while (n--) {
        c ^= *p++;
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

/* every length 0..1100 (below, at and across the 16- and 64-byte folding steps) at every
 * alignment, whole and split in two at a point that is not a block boundary */
static void test_crc32_matches_definition(void)
{
    static uint8_t buf[1100 + 16];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 151u + (i >> 5) * 7u + 1u);
    int bad = 0;
    for (size_t align = 0; align < 16; align++)
        for (size_t n = 0; n <= 1100; n++) {
            const uint8_t *p = buf + align;
            uint32_t want = crc32_bitwise(p, n);
            size_t cut = n / 3;
            if (xcc_crc32(p, n) != want || xcc_crc32_update(xcc_crc32(p, cut), p + cut, n - cut) != want)
                bad++;
        }
    CHECK_MSG(bad == 0, "%d (alignment, length) cases differ from the bitwise CRC-32", bad);
}

static void test_layout_rules(void)
{
    xcc_geometry g;
    char err[XCC_ERR_BYTES];
    CHECK(xcc_layout(3, 64, 512, &g, err, sizeof err) == XCC_OK);
    CHECK(g.section_bytes == 64u * 3 + 3u * (64 + 64u * 512));
    CHECK(g.section_offset[0] == 256 && g.section_offset[1] == 256 + g.section_bytes);
    CHECK(g.region_bytes == 256 + 2 * g.section_bytes);
    CHECK(xcc_layout(1, 64, 512, &g, err, sizeof err) == XCC_EHEADER && strstr(err, "rings_per_peer = 1"));
    CHECK(xcc_layout(9, 64, 512, &g, err, sizeof err) == XCC_EHEADER && strstr(err, "rings_per_peer = 9"));
    CHECK(xcc_layout(3, 48, 512, &g, err, sizeof err) == XCC_EHEADER && strstr(err, "slots_per_ring = 48"));
    CHECK(xcc_layout(3, 2, 512, &g, err, sizeof err) == XCC_EHEADER);
    CHECK(xcc_layout(3, 8192, 512, &g, err, sizeof err) == XCC_EHEADER);
    CHECK(xcc_layout(3, 64, 500, &g, err, sizeof err) == XCC_EHEADER && strstr(err, "slot_bytes = 500"));
    CHECK(xcc_layout(3, 64, 64, &g, err, sizeof err) == XCC_EHEADER);
    CHECK(xcc_layout(3, 64, 8192, &g, err, sizeof err) == XCC_EHEADER);
    CHECK(xcc_layout(8, 4096, 4096, &g, err, sizeof err) == XCC_OK); /* the largest fits u32 */
}

static void test_format_then_validate(void)
{
    char err[XCC_ERR_BYTES];
    xcc_geometry g = fmt(mem_a, sizeof mem_a, 3, 16, 512), v;
    CHECK_MSG(xcc_validate_header(mem_a, sizeof mem_a, &v, err, sizeof err) == XCC_OK, "%s", err);
    CHECK(memcmp(&g, &v, sizeof g) == 0);
    CHECK(get32(mem_a) == 0x31434358u && memcmp(mem_a, "XCC1", 4) == 0);
    /* ring classes: ring r has class r in both sections */
    for (uint32_t p = 0; p < 2; p++)
        for (uint32_t r = 0; r < 3; r++)
            CHECK(get32(mem_a + g.section_offset[p] + 64 * 3 + r * (64 + 16 * 512) + XCC_RING_CLASS) == r);
    /* mapped smaller than the formatted size */
    CHECK(xcc_validate_header(mem_a, g.region_bytes - 1, &v, err, sizeof err) == XCC_EHEADER &&
          strstr(err, "region_bytes"));
    CHECK(xcc_validate_header(mem_a, 100, &v, err, sizeof err) == XCC_EHEADER);
}

typedef struct hdr_case { const char *field; uint32_t off; uint32_t width; uint32_t value; int fix_crc; } hdr_case;

static void test_header_hostile_fields(void)
{
    const hdr_case cases[] = {
        {"magic", 0, 4, 0x31434359u, 1},
        {"layout_version", 4, 2, 2, 1},
        {"header_bytes", 6, 2, 64, 1},
        {"header_crc32", 8, 4, 12345, 0}, /* change region_bytes without fixing the CRC */
        {"peer_count", 12, 4, 3, 1},
        {"rings_per_peer", 16, 4, 9, 1},
        {"rings_per_peer", 16, 4, 4, 1}, /* plausible value: caught by section_bytes? no: by rule set */
        {"slots_per_ring", 20, 4, 12, 1},
        {"slot_bytes", 24, 4, 520, 1},
        {"state_table_offset", 28, 4, 192, 1},
        {"section_offset[0]", 32, 4, 320, 1},
        {"section_offset[1]", 36, 4, 4096, 1},
        {"section_bytes", 40, 4, 999, 1},
        {"region_bytes", 8, 4, 1000, 1},
        {"region_bytes", 8, 4, 0x7fffffffu, 1},
        {"reserved", 100, 4, 1, 0},
    };
    char err[XCC_ERR_BYTES];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const hdr_case *c = &cases[i];
        fmt(mem_a, sizeof mem_a, 3, 16, 512);
        if (c->width == 2) { uint16_t v = (uint16_t)c->value; memcpy(mem_a + c->off, &v, 2); }
        else put32(mem_a + c->off, c->value);
        if (c->fix_crc) rehash(mem_a);
        int rc = xcc_validate_header(mem_a, sizeof mem_a, NULL, err, sizeof err);
        const char *want = strcmp(c->field, "rings_per_peer") == 0 && c->value == 4 ? "section_bytes" : c->field;
        CHECK_MSG(rc == XCC_EHEADER && strstr(err, want) && strstr(err, "violates rule"),
                  "case %zu (%s): rc=%d err=%s", i, c->field, rc, err);
        /* an attach refuses the same region with the same error */
        xcc_region r;
        xcc_peer p;
        xcc_region_wrap(&r, mem_a, sizeof mem_a, XCC_ACCESS_ATOMIC);
        CHECK(xcc_attach(&p, &r, 0, XCC_ATTACH_CELL, err, sizeof err) == XCC_EHEADER);
    }
    /* the error names field, value and rule */
    fmt(mem_a, sizeof mem_a, 3, 16, 512);
    put32(mem_a + 16, 9);
    rehash(mem_a);
    xcc_validate_header(mem_a, sizeof mem_a, NULL, err, sizeof err);
    CHECK_MSG(strcmp(err, "header field rings_per_peer = 9 violates rule 2 <= R <= 8") == 0, "%s", err);
}

/* ---- rings ---------------------------------------------------------------------------------- */
static void test_offer_poll_roundtrip_and_counters(void)
{
    xcc_geometry g = setup(3, 8, 512);
    uint8_t out[496], in[496];
    uint32_t n = 0;
    for (uint32_t i = 0; i < 20; i++) {
        uint32_t len = 1 + (i * 37) % 496;
        fill(out, len, i);
        CHECK(xcc_offer(&p1.tx[1], out, len) == XCC_OK);
        CHECK(xcc_poll(&p0.rx[1], in, sizeof in, &n) == XCC_OK);
        CHECK(n == len && memcmp(in, out, len) == 0);
    }
    CHECK(xcc_poll(&p0.rx[1], in, sizeof in, &n) == XCC_EMPTY);
    xcc_ring_stats s;
    CHECK(xcc_ring_stats_read(&reg, &g, 1, 1, &s) == XCC_OK);
    CHECK(XCC_COUNTER_OF(s, WRITE_INDEX) == 20 && XCC_COUNTER_OF(s, FRAMES_WRITTEN) == 20 && XCC_COUNTER_OF(s, READ_INDEX) == 20 && XCC_COUNTER_OF(s, FRAMES_ACCEPTED) == 20);
    CHECK(XCC_COUNTER_OF(s, FRAMES_CORRUPT) == 0 && XCC_COUNTER_OF(s, RESYNCS) == 0 && XCC_COUNTER_OF(s, FRAMES_DROPPED_FULL) == 0 && XCC_COUNTER_OF(s, RING_CLASS) == 1);
    /* slot header as the spec lays it out */
    uint8_t *slot = slot_of(&p1.tx[1], 19);
    CHECK(get32(slot) == 1 + (19 * 37) % 496 && get64(slot + 8) == 19);
    CHECK(get32(slot + 4) == xcc_crc32(slot + 16, get32(slot)));
    /* the other direction and the management ring */
    CHECK(xcc_offer(&p0.tx[0], "hello", 5) == XCC_OK);
    xcc_peer mgmt;
    char err[XCC_ERR_BYTES];
    CHECK(xcc_attach(&mgmt, &reg, 1, XCC_ATTACH_MANAGEMENT, err, sizeof err) == XCC_OK);
    CHECK(xcc_ring_stats_read(&reg, &g, 0, 0, &s) == XCC_OK && XCC_COUNTER_OF(s, STALE_SKIPPED) == 1); /* sent before it attached */
    CHECK(xcc_offer(&p0.tx[0], "hello", 5) == XCC_OK);
    CHECK(xcc_poll(&mgmt.rx[0], in, sizeof in, &n) == XCC_OK && n == 5 && memcmp(in, "hello", 5) == 0);
}

static void test_offer_refuses_bad_length(void)
{
    setup(2, 4, 128);
    uint8_t big[200] = {0}, in[496];
    uint32_t n;
    CHECK(xcc_offer(&p0.tx[1], big, 0) == XCC_EINVAL);
    CHECK(xcc_offer(&p0.tx[1], big, 113) == XCC_EINVAL); /* 128 - 16 = 112 */
    CHECK(get64(p0.tx[1].ring) == 0 && get64(p0.tx[1].ring + XCC_RING_FRAMES_DROPPED_FULL) == 0);
    CHECK(xcc_offer(&p0.tx[1], big, 112) == XCC_OK);
    CHECK(xcc_poll(&p1.rx[1], in, 100, &n) == XCC_EINVAL); /* reader buffer too small: refused */
    CHECK(xcc_poll(&p1.rx[1], in, sizeof in, &n) == XCC_OK && n == 112);
}

static void test_full_ring_drops_counted(void)
{
    xcc_geometry g = setup(2, 4, 128);
    uint8_t b[8] = {1}, in[496];
    uint32_t n;
    for (int i = 0; i < 4; i++)
        CHECK(xcc_offer(&p0.tx[1], b, 8) == XCC_OK);
    CHECK(xcc_tx_backlog(&p0.tx[1]) == 4);
    CHECK(xcc_offer(&p0.tx[1], b, 8) == XCC_FULL);
    CHECK(xcc_offer(&p0.tx[1], b, 8) == XCC_FULL);
    xcc_ring_stats s;
    xcc_ring_stats_read(&reg, &g, 0, 1, &s);
    CHECK(XCC_COUNTER_OF(s, FRAMES_DROPPED_FULL) == 2 && XCC_COUNTER_OF(s, FRAMES_WRITTEN) == 4 && XCC_COUNTER_OF(s, WRITE_INDEX) == 4);
    CHECK(xcc_poll(&p1.rx[1], in, sizeof in, &n) == XCC_OK);
    CHECK(xcc_tx_backlog(&p0.tx[1]) == 3);
    CHECK(xcc_offer(&p0.tx[1], b, 8) == XCC_OK);
    put64(p0.tx[1].consumer_line, 99); /* not credible: reported as full */
    CHECK(xcc_tx_backlog(&p0.tx[1]) == 4);
}

static void test_reader_rejects_bad_slot_length_index_crc(void)
{
    xcc_geometry g = setup(2, 8, 128);
    uint8_t b[32], in[496];
    uint32_t n;
    for (uint32_t i = 0; i < 6; i++) {
        fill(b, 32, i);
        CHECK(xcc_offer(&p1.tx[1], b, 32) == XCC_OK);
    }
    xcc_tx *tx = &p1.tx[1];
    put32(slot_of(tx, 0), 0);                    /* frame_bytes 0 */
    put32(slot_of(tx, 1), 113);                  /* frame_bytes > slot_bytes - 16 */
    put32(slot_of(tx, 2), 0xFFFFFFFFu);          /* absurd length */
    put64(slot_of(tx, 3) + 8, 11);               /* slot_index from another lap */
    slot_of(tx, 4)[16 + 5] ^= 0x40;              /* torn write: bytes changed after the CRC */
    int want[] = {XCC_CORRUPT, XCC_CORRUPT, XCC_CORRUPT, XCC_CORRUPT, XCC_CORRUPT, XCC_OK};
    for (int i = 0; i < 6; i++)
        CHECK_MSG(xcc_poll(&p0.rx[1], in, sizeof in, &n) == want[i], "slot %d", i);
    fill(b, 32, 5);
    CHECK(n == 32 && memcmp(in, b, 32) == 0);
    xcc_ring_stats s;
    xcc_ring_stats_read(&reg, &g, 1, 1, &s);
    CHECK(XCC_COUNTER_OF(s, FRAMES_CORRUPT) == 5 && XCC_COUNTER_OF(s, FRAMES_ACCEPTED) == 1 && XCC_COUNTER_OF(s, READ_INDEX) == 6);
}

static void test_torn_write_unpublished_slot_is_invisible(void)
{
    setup(2, 4, 128);
    uint8_t in[496];
    uint32_t n;
    /* a producer that wrote the slot but has not published the index: nothing to read */
    uint8_t *slot = slot_of(&p1.tx[1], 0);
    memset(slot + 16, 0xAB, 20);
    put32(slot, 20);
    CHECK(xcc_poll(&p0.rx[1], in, sizeof in, &n) == XCC_EMPTY);
    /* published index with a half-written slot (header from the previous lap): corrupt */
    put64(slot + 8, 4);
    put64(p1.tx[1].ring, 1);
    CHECK(xcc_poll(&p0.rx[1], in, sizeof in, &n) == XCC_CORRUPT);
}

static void test_indices_outside_ring_or_backwards(void)
{
    xcc_geometry g = setup(2, 4, 128);
    uint8_t b[16] = {0}, in[496];
    uint32_t n;
    xcc_ring_stats s;
    for (int i = 0; i < 3; i++) xcc_offer(&p1.tx[1], b, 16);
    for (int i = 0; i < 3; i++) CHECK(xcc_poll(&p0.rx[1], in, sizeof in, &n) == XCC_OK);
    /* hostile producer: write index moves backwards: a fault, the reader waits for the heal */
    put64(p1.tx[1].ring, 1);
    CHECK(xcc_poll(&p0.rx[1], in, sizeof in, &n) == XCC_EMPTY);
    CHECK(xcc_poll(&p0.rx[1], in, sizeof in, &n) == XCC_EMPTY);
    CHECK(XCC_COUNTER_OF(p0.rx[1], READ_INDEX) == 3 && XCC_COUNTER_OF(p0.rx[1], WRITE_INDEX_FAULTS) == 1 && XCC_COUNTER_OF(p0.rx[1], RESYNCS) == 0);
    xcc_heartbeat(&p1); /* one beat: its heal may still be under way */
    CHECK(xcc_poll(&p0.rx[1], in, sizeof in, &n) == XCC_EMPTY);
    xcc_heartbeat(&p1); /* two beats and no heal: it stands by it */
    CHECK(xcc_poll(&p0.rx[1], in, sizeof in, &n) == XCC_RESYNC);
    CHECK(XCC_COUNTER_OF(p0.rx[1], READ_INDEX) == 1 && get64(p0.rx[1].consumer_line) == 1);
    /* far ahead of the ring (more than S unread) */
    put64(p1.tx[1].ring, 1u + 5u);
    CHECK(xcc_poll(&p0.rx[1], in, sizeof in, &n) == XCC_EMPTY);
    xcc_heartbeat(&p1);
    xcc_heartbeat(&p1);
    CHECK(xcc_poll(&p0.rx[1], in, sizeof in, &n) == XCC_RESYNC);
    put64(p1.tx[1].ring, UINT64_MAX);
    CHECK(xcc_poll(&p0.rx[1], in, sizeof in, &n) == XCC_EMPTY);
    xcc_heartbeat(&p1);
    xcc_heartbeat(&p1);
    CHECK(xcc_poll(&p0.rx[1], in, sizeof in, &n) == XCC_RESYNC);
    CHECK(xcc_poll(&p0.rx[1], in, sizeof in, &n) == XCC_EMPTY);
    xcc_ring_stats_read(&reg, &g, 1, 1, &s);
    CHECK(XCC_COUNTER_OF(s, RESYNCS) == 3 && XCC_COUNTER_OF(s, WRITE_INDEX_FAULTS) == 3);
    /* hostile consumer: read index ahead of our write index, or far behind: treated as full */
    put64(p0.tx[1].consumer_line, 1000);
    CHECK(xcc_offer(&p0.tx[1], b, 16) == XCC_FULL);
    put64(p0.tx[1].consumer_line, 0);
    XCC_COUNTER_OF(p0.tx[1], WRITE_INDEX) = 100; /* as if we had written 100 */
    CHECK(xcc_offer(&p0.tx[1], b, 16) == XCC_FULL);
    xcc_ring_stats_read(&reg, &g, 0, 1, &s);
    CHECK(XCC_COUNTER_OF(s, FRAMES_DROPPED_FULL) == 2 && XCC_COUNTER_OF(s, WRITE_INDEX) == 0);
}

/* Frames written before a scribble over the producer's write index are read once it heals it:
 * the reader counts the fault and waits, it never skips them (region-spec.md, "Reading a frame"). */
static void test_frames_unread_at_a_scribbled_write_index_survive_the_heal(void)
{
    xcc_geometry g = setup(2, 4, 128);
    uint8_t b[16] = {0}, in[496];
    uint32_t n;
    for (uint8_t i = 1; i <= 4; i++) {
        b[0] = i;
        CHECK(xcc_offer(&p1.tx[1], b, 16) == XCC_OK);
    }
    CHECK(xcc_poll(&p0.rx[1], in, sizeof in, &n) == XCC_OK && in[0] == 1);
    const uint64_t scribbles[] = {0, 1u + 4u + 3u, UINT64_MAX}; /* backwards, too far ahead, huge */
    for (int k = 0; k < 3; k++) {
        put64(p1.tx[1].ring, scribbles[k]);
        CHECK(xcc_poll(&p0.rx[1], in, sizeof in, &n) == XCC_EMPTY);
        CHECK(XCC_COUNTER_OF(p0.rx[1], READ_INDEX) == (uint64_t)k + 1);
        CHECK(xcc_heal(&p1, 1) == 1); /* the producer puts its write index back, then beats */
        xcc_heartbeat(&p1);
        xcc_heartbeat(&p1);
        CHECK(xcc_poll(&p0.rx[1], in, sizeof in, &n) == XCC_OK && in[0] == k + 2);
    }
    CHECK(xcc_poll(&p0.rx[1], in, sizeof in, &n) == XCC_EMPTY);
    xcc_ring_stats s;
    xcc_ring_stats_read(&reg, &g, 1, 1, &s);
    CHECK(XCC_COUNTER_OF(s, WRITE_INDEX_FAULTS) == 3 && XCC_COUNTER_OF(s, RESYNCS) == 0 && XCC_COUNTER_OF(s, FRAMES_CORRUPT) == 0 && XCC_COUNTER_OF(s, FRAMES_ACCEPTED) == 4);
}

/* The management agent's ring 0 (peer 1's section) has no heartbeat to wait on: resync at once. */
static void test_management_agent_ring_resyncs_at_once(void)
{
    setup(2, 4, 128);
    uint8_t in[496];
    uint32_t n;
    put64(p1.tx[0].ring, 9);
    CHECK(xcc_poll(&p0.rx[0], in, sizeof in, &n) == XCC_RESYNC);
    CHECK(XCC_COUNTER_OF(p0.rx[0], WRITE_INDEX_FAULTS) == 1 && XCC_COUNTER_OF(p0.rx[0], RESYNCS) == 1 && XCC_COUNTER_OF(p0.rx[0], READ_INDEX) == 9);
}

static void test_peer_restart_epoch_and_stale_skip(void)
{
    xcc_geometry g = setup(3, 8, 128);
    char err[XCC_ERR_BYTES];
    uint8_t b[16] = {7}, in[496];
    uint32_t n;
    CHECK(get32(mem_a + 128 + 4) == 1 && get32(mem_a + 192 + 4) == 1);
    CHECK(xcc_other_state(&p0) == XCC_STATE_READY && xcc_other_state(&p1) == XCC_STATE_READY);
    /* peer 0 sends three frames; peer 1 dies before reading them and restarts */
    for (int i = 0; i < 3; i++) CHECK(xcc_offer(&p0.tx[2], b, 16) == XCC_OK);
    CHECK(xcc_offer(&p0.tx[2], b, 16) == XCC_OK);
    CHECK(xcc_poll(&p1.rx[2], in, sizeof in, &n) == XCC_OK); /* read one */
    CHECK(xcc_attach(&p1, &reg, 1, XCC_ATTACH_CELL, err, sizeof err) == XCC_OK);
    CHECK(p1.epoch == 2 && get32(mem_a + 192 + 4) == 2);
    xcc_ring_stats s;
    xcc_ring_stats_read(&reg, &g, 0, 2, &s);
    CHECK(XCC_COUNTER_OF(s, STALE_SKIPPED) == 3 && XCC_COUNTER_OF(s, READ_INDEX) == 4);
    CHECK(xcc_poll(&p1.rx[2], in, sizeof in, &n) == XCC_EMPTY); /* not delivered late */
    /* peer 0 sees the epoch change once */
    int unresponsive = -1;
    uint64_t now = xcc_now_nanos();
    CHECK(xcc_peer_check(&p0, now, 1000000000u, &unresponsive) == 1 && p0.peer_restarts == 1);
    CHECK(unresponsive == 0);
    CHECK(xcc_peer_check(&p0, now, 1000000000u, &unresponsive) == 0 && p0.peer_restarts == 1);
    /* heartbeat that does not move for the timeout: unresponsive; a beat clears it */
    CHECK(xcc_peer_check(&p0, now + 2000000000u, 1000000000u, &unresponsive) == 0 && unresponsive == 1);
    xcc_heartbeat(&p1);
    CHECK(xcc_peer_check(&p0, now + 2000000001u, 1000000000u, &unresponsive) == 0 && unresponsive == 0);
    /* the restarted peer's producers carry on from their indices */
    CHECK(xcc_offer(&p1.tx[1], b, 16) == XCC_OK);
    CHECK(xcc_poll(&p0.rx[1], in, sizeof in, &n) == XCC_OK);
    /* mid-stream restart of a peer that (wrongly) resets its write index: reader resyncs */
    for (int i = 0; i < 3; i++) CHECK(xcc_offer(&p1.tx[1], b, 16) == XCC_OK);
    for (int i = 0; i < 3; i++) CHECK(xcc_poll(&p0.rx[1], in, sizeof in, &n) == XCC_OK);
    put64(p1.tx[1].ring, 0);
    CHECK(xcc_attach(&p1, &reg, 1, XCC_ATTACH_CELL, err, sizeof err) == XCC_OK);
    CHECK(xcc_offer(&p1.tx[1], b, 16) == XCC_FULL); /* consumer's read index 4 > our 0: not credible */
    CHECK(xcc_poll(&p0.rx[1], in, sizeof in, &n) == XCC_EMPTY); /* a fault: it may still heal */
    xcc_heartbeat(&p1);
    xcc_heartbeat(&p1); /* it beat twice and stands by index 0 */
    CHECK(xcc_poll(&p0.rx[1], in, sizeof in, &n) == XCC_RESYNC);
    CHECK(xcc_offer(&p1.tx[1], b, 16) == XCC_OK);
    CHECK(xcc_poll(&p0.rx[1], in, sizeof in, &n) == XCC_OK);
    CHECK(xcc_peer_check(&p0, now, 1000000000u, NULL) == 1 && p0.peer_restarts == 2);
    /* state changes are visible */
    xcc_set_state(&p1, XCC_STATE_STOPPING);
    CHECK(xcc_other_state(&p0) == XCC_STATE_STOPPING);
}

static void test_management_attach_touches_only_ring0(void)
{
    xcc_geometry g = setup(3, 8, 128);
    char err[XCC_ERR_BYTES];
    uint8_t b[16] = {3};
    for (int i = 0; i < 2; i++) {
        xcc_offer(&p0.tx[0], b, 16);
        xcc_offer(&p0.tx[1], b, 16);
    }
    uint8_t state_before[64];
    memcpy(state_before, mem_a + 192, 64);
    xcc_peer m;
    CHECK(xcc_attach(&m, &reg, 1, XCC_ATTACH_MANAGEMENT, err, sizeof err) == XCC_OK);
    CHECK(memcmp(state_before, mem_a + 192, 64) == 0); /* peer 1's state line belongs to the proxy */
    xcc_ring_stats s;
    xcc_ring_stats_read(&reg, &g, 0, 0, &s);
    CHECK(XCC_COUNTER_OF(s, STALE_SKIPPED) == 2 && XCC_COUNTER_OF(s, READ_INDEX) == 2);
    xcc_ring_stats_read(&reg, &g, 0, 1, &s);
    CHECK(XCC_COUNTER_OF(s, STALE_SKIPPED) == 0 && XCC_COUNTER_OF(s, READ_INDEX) == 0); /* data ring untouched */
    CHECK(xcc_attach(&m, &reg, 0, XCC_ATTACH_MANAGEMENT, err, sizeof err) == XCC_EINVAL && strstr(err, "peer 1"));
    CHECK(xcc_attach(&m, &reg, 2, XCC_ATTACH_CELL, err, sizeof err) == XCC_EINVAL && strstr(err, "peer id 2"));
}

static void test_flood_bounded_counted_drops(void)
{
    xcc_geometry g = setup(3, 16, 128);
    uint8_t b[64], in[496];
    uint32_t n;
    uint64_t offered = 0, sent = 0, full = 0, got = 0;
    /* Android side writes 100000 frames; RT side drains one frame every 7 attempts */
    for (uint32_t i = 0; i < 100000; i++) {
        memcpy(b, &i, 4);
        offered++;
        int rc = xcc_offer(&p1.tx[1], b, 64);
        if (rc == XCC_OK) sent++;
        else if (rc == XCC_FULL) full++;
        if (i % 7 == 0 && xcc_poll(&p0.rx[1], in, sizeof in, &n) == XCC_OK) got++;
    }
    while (xcc_poll(&p0.rx[1], in, sizeof in, &n) == XCC_OK) got++;
    xcc_ring_stats s;
    xcc_ring_stats_read(&reg, &g, 1, 1, &s);
    CHECK(sent + full == offered && full > 0);
    CHECK(XCC_COUNTER_OF(s, FRAMES_DROPPED_FULL) == full && XCC_COUNTER_OF(s, FRAMES_WRITTEN) == sent && XCC_COUNTER_OF(s, FRAMES_ACCEPTED) == got);
    CHECK(got == sent && XCC_COUNTER_OF(s, FRAMES_CORRUPT) == 0 && XCC_COUNTER_OF(s, RESYNCS) == 0);
    /* the flood never touched the RT side's own rings */
    xcc_ring_stats_read(&reg, &g, 0, 1, &s);
    CHECK(XCC_COUNTER_OF(s, WRITE_INDEX) == 0 && XCC_COUNTER_OF(s, FRAMES_DROPPED_FULL) == 0);
}

static void test_ring_for_priority(void)
{
    CHECK(xcc_ring_for_priority(3, 99) == 1 && xcc_ring_for_priority(3, 50) == 1);
    CHECK(xcc_ring_for_priority(3, 49) == 2 && xcc_ring_for_priority(3, 0) == 2);
    CHECK(xcc_ring_for_priority(2, 0) == 1 && xcc_ring_for_priority(2, 99) == 1);
    CHECK(xcc_ring_for_priority(8, 0) == 7 && xcc_ring_for_priority(8, 99) == 1);
}

static void test_backoff_sequence(void)
{
    xcc_backoff b;
    xcc_backoff_init(&b, 3, 2, 1000, 4000);
    int seq[8];
    for (int i = 0; i < 8; i++) seq[i] = xcc_backoff_idle(&b);
    int want[8] = {0, 0, 0, 1, 1, 2, 2, 2};
    CHECK(memcmp(seq, want, sizeof seq) == 0);
    CHECK(b.sleep_nanos == 4000); /* 1000, 2000, 4000, capped */
    xcc_backoff_reset(&b);
    CHECK(xcc_backoff_idle(&b) == 0 && b.sleep_nanos == 1000);
}

/* ---- backends ------------------------------------------------------------------------------- */
static void tmp_path(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s.%d", h_tmp_dir, name, (int)getpid());
}

/* A region file for the backend tests: path[256] set from `name`, the geometry of 2 rings of
 * `slots` slots of `slot_bytes`, the file mapped as shm (map_bytes; 0: the region's size) and
 * formatted. */
static void formatted_file(xcc_region *r, xcc_geometry *g, char *path, const char *name, uint32_t slots,
                           uint32_t slot_bytes, size_t map_bytes)
{
    char err[XCC_ERR_BYTES];
    tmp_path(path, 256, name);
    xcc_layout(2, slots, slot_bytes, g, err, sizeof err);
    CHECK_MSG(xcc_map_shm(r, path, map_bytes ? map_bytes : g->region_bytes, err, sizeof err) == XCC_OK, "%s", err);
    CHECK(xcc_format(r->base, r->mapped_bytes, g, err, sizeof err) == XCC_OK);
}

static void exchange(xcc_region *ra, xcc_region *rb)
{
    char err[XCC_ERR_BYTES];
    xcc_peer a, b;
    uint8_t in[496];
    uint32_t n = 0;
    CHECK_MSG(xcc_attach(&a, ra, 0, XCC_ATTACH_CELL, err, sizeof err) == XCC_OK, "%s", err);
    CHECK_MSG(xcc_attach(&b, rb, 1, XCC_ATTACH_CELL, err, sizeof err) == XCC_OK, "%s", err);
    for (uint32_t i = 1; i <= 40; i++) {
        uint8_t f[123];
        fill(f, i % 123 + 1, i);
        CHECK(xcc_offer(&a.tx[1], f, i % 123 + 1) == XCC_OK);
        CHECK(xcc_poll(&b.rx[1], in, sizeof in, &n) == XCC_OK && n == i % 123 + 1 && memcmp(in, f, n) == 0);
        CHECK(xcc_offer(&b.tx[1], f, 7) == XCC_OK);
        CHECK(xcc_poll(&a.rx[1], in, sizeof in, &n) == XCC_OK && n == 7);
    }
}

static void test_backend_shm_two_mappings(void)
{
    char path[256], err[XCC_ERR_BYTES];
    xcc_geometry g;
    xcc_region ra, rb;
    formatted_file(&ra, &g, path, "xcc-shm", 8, 256, 0);
    CHECK_MSG(xcc_map_shm(&rb, path, 0, err, sizeof err) == XCC_OK, "%s", err);
    CHECK(rb.mapped_bytes == g.region_bytes && rb.access == XCC_ACCESS_ATOMIC);
    exchange(&ra, &rb);
    xcc_unmap(&ra);
    xcc_unmap(&rb);
    unlink(path);
    CHECK(xcc_map_shm(&ra, "/nonexistent/dir/region", 0, err, sizeof err) == XCC_EIO && strstr(err, "/nonexistent"));
}

static void test_backend_ivshmem_exact_size(void)
{
    /* a sysfs resource2 file stands in for the BAR: the mapping is the file's exact size */
    char path[256], err[XCC_ERR_BYTES];
    xcc_geometry g;
    xcc_region ra, rb;
    formatted_file(&ra, &g, path, "xcc-resource2", 8, 256, 1u << 16);
    CHECK_MSG(xcc_map_ivshmem(&rb, path, err, sizeof err) == XCC_OK, "%s", err);
    CHECK(rb.mapped_bytes == (1u << 16));
    exchange(&ra, &rb);
    xcc_unmap(&ra);
    xcc_unmap(&rb);
    unlink(path);
}

static void test_backend_devmem_aligned_access(void)
{
    /* a regular file stands in for /dev/mem; the region starts 4 KiB + 192 B into it, not page
     * aligned, and every access goes through the aligned (no atomics) path */
    char path[256], err[XCC_ERR_BYTES];
    tmp_path(path, sizeof path, "xcc-devmem");
    xcc_geometry g;
    xcc_layout(2, 8, 256, &g, err, sizeof err);
    xcc_region shm, dm;
    CHECK(xcc_map_shm(&shm, path, 4096u * 4 + g.region_bytes, err, sizeof err) == XCC_OK);
    CHECK(xcc_format(shm.base + 4096 + 192, g.region_bytes, &g, err, sizeof err) == XCC_OK);
    xcc_region view;
    xcc_region_wrap(&view, shm.base + 4096 + 192, g.region_bytes, XCC_ACCESS_ATOMIC);
    CHECK_MSG(xcc_map_devmem(&dm, path, 4096 + 192, g.region_bytes, err, sizeof err) == XCC_OK, "%s", err);
    CHECK(dm.access == XCC_ACCESS_ALIGNED && ((uintptr_t)dm.base & 63u) == 0);
    exchange(&view, &dm);
    exchange(&dm, &view);
    CHECK(xcc_map_devmem(&dm, path, 4096 + 1, 100, err, sizeof err) == XCC_EINVAL && strstr(err, "aligned"));
    xcc_unmap(&dm);
    xcc_unmap(&shm);
    unlink(path);
}

static void test_cross_process_shm(void)
{
    /* writer and reader in different processes through a /dev/shm-style file */
    char path[256], err[XCC_ERR_BYTES];
    xcc_geometry g;
    xcc_region r;
    formatted_file(&r, &g, path, "xcc-xproc", 16, 512, 0);
    xcc_peer rd;
    CHECK(xcc_attach(&rd, &r, 0, XCC_ATTACH_CELL, err, sizeof err) == XCC_OK);
    enum { FRAMES = 20000 };
    pid_t pid = fork();
    if (pid == 0) {
        xcc_region cr;
        xcc_peer w;
        if (xcc_map_shm(&cr, path, 0, err, sizeof err) != XCC_OK ||
            xcc_attach(&w, &cr, 1, XCC_ATTACH_CELL, err, sizeof err) != XCC_OK)
            _exit(2);
        uint8_t f[300];
        for (uint32_t i = 0; i < FRAMES;) {
            uint32_t len = 8 + i % 280;
            fill(f, len, i);
            memcpy(f, &i, 4);
            if (xcc_offer(&w.tx[1], f, len) == XCC_OK) i++;
        }
        _exit(0);
    }
    uint8_t in[496], want[300];
    uint32_t n, next = 0, bad = 0;
    uint64_t deadline = xcc_now_nanos() + 20000000000ull;
    while (next < FRAMES && xcc_now_nanos() < deadline) {
        int rc = xcc_poll(&rd.rx[1], in, sizeof in, &n);
        if (rc == XCC_EMPTY) continue;
        if (rc != XCC_OK) { bad++; continue; }
        uint32_t len = 8 + next % 280;
        fill(want, len, next);
        memcpy(want, &next, 4);
        if (n != len || memcmp(in, want, len) != 0) bad++;
        next++;
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_MSG(next == FRAMES && bad == 0, "next=%u bad=%u", next, bad);
    xcc_unmap(&r);
    unlink(path);
}

/* ---- frames --------------------------------------------------------------------------------- */
static xcc_frame fr, fr2;
static uint8_t enc[XCC_FRAME_ENCODE_BUFFER_BYTES];

static void make_intent(xcc_frame *f)
{
    memset(f, 0, sizeof *f);
    f->seq = 42;
    f->send_time_nanos = 123456789012345ull;
    f->which_body = rtdroid_xcc_v1_Frame_intent_tag;
    strcpy(f->body.intent.action, "org.rtdroid.echo.PING");
    strcpy(f->body.intent.channel, "echo");
    f->body.intent.sender_priority = 60;
    f->body.intent.payload.size = 5;
    memcpy(f->body.intent.payload.bytes, "hello", 5);
    f->body.intent.correlation_id = 7;
    strcpy(f->body.intent.sender, "org.rtdroid.echo.app");
}

static void test_frame_roundtrip_all_kinds(void)
{
    char err[XCC_ERR_BYTES];
    size_t len;
    make_intent(&fr);
    CHECK_MSG(xcc_frame_encode(&fr, enc, 496, &len, err, sizeof err) == XCC_OK, "%s", err);
    CHECK(xcc_frame_decode(enc, len, &fr2, err, sizeof err) == XCC_OK);
    CHECK(fr2.seq == 42 && fr2.which_body == rtdroid_xcc_v1_Frame_intent_tag);
    CHECK(strcmp(fr2.body.intent.channel, "echo") == 0 && fr2.body.intent.payload.size == 5);
    /* canonical bytes, checked by hand: seq (08 2a) first */
    CHECK(enc[0] == 0x08 && enc[1] == 0x2a && enc[2] == 0x10);

    memset(&fr, 0, sizeof fr);
    fr.which_body = rtdroid_xcc_v1_Frame_message_tag;
    strcpy(fr.body.message.channel, "cochlear.config");
    fr.body.message.what = -3;
    fr.body.message.payload.size = 256;
    CHECK(xcc_frame_encode(&fr, enc, 496, &len, err, sizeof err) == XCC_OK);
    CHECK(xcc_frame_decode(enc, len, &fr2, err, sizeof err) == XCC_OK && fr2.body.message.what == -3);

    memset(&fr, 0, sizeof fr);
    fr.which_body = rtdroid_xcc_v1_Frame_control_tag; /* empty control: still written */
    CHECK(xcc_frame_encode(&fr, enc, 496, &len, err, sizeof err) == XCC_OK && len == 2 && enc[0] == 0x62 && enc[1] == 0);
    CHECK(xcc_frame_decode(enc, len, &fr2, err, sizeof err) == XCC_OK && fr2.which_body == rtdroid_xcc_v1_Frame_control_tag);
    fr.body.control.kind = rtdroid_xcc_v1_Control_Kind_STATS;
    fr.body.control.has_stats = true;
    fr.body.control.stats.frames_in = 99;
    fr.body.control.has_service = true;
    strcpy(fr.body.control.service.name, "cochlear");
    strcpy(fr.body.control.service.state, "RUNNING");
    CHECK(xcc_frame_encode(&fr, enc, 496, &len, err, sizeof err) == XCC_OK);
    CHECK(xcc_frame_decode(enc, len, &fr2, err, sizeof err) == XCC_OK && fr2.body.control.stats.frames_in == 99 &&
          strcmp(fr2.body.control.service.state, "RUNNING") == 0);

    memset(&fr, 0, sizeof fr);
    fr.which_body = rtdroid_xcc_v1_Frame_deploy_chunk_tag;
    strcpy(fr.body.deploy_chunk.bundle, "cochlear");
    fr.body.deploy_chunk.count = 3;
    fr.body.deploy_chunk.data.size = 384;
    CHECK(xcc_frame_encode(&fr, enc, 496, &len, err, sizeof err) == XCC_OK);
    CHECK(xcc_frame_decode(enc, len, &fr2, err, sizeof err) == XCC_OK && fr2.body.deploy_chunk.data.size == 384);
}

static void test_frame_largest_intent_fits_slot(void)
{
    char err[XCC_ERR_BYTES];
    size_t len;
    make_intent(&fr);
    fr.seq = fr.send_time_nanos = UINT64_MAX;
    memset(fr.body.intent.action, 'a', 63); fr.body.intent.action[63] = 0;
    memset(fr.body.intent.channel, 'c', 63); fr.body.intent.channel[63] = 0;
    memset(fr.body.intent.sender, 's', 47); fr.body.intent.sender[47] = 0;
    fr.body.intent.sender_priority = 99;
    fr.body.intent.payload.size = 224;
    fr.body.intent.correlation_id = fr.body.intent.rt_receive_nanos = fr.body.intent.rt_reply_nanos = UINT64_MAX;
    CHECK_MSG(xcc_frame_encode(&fr, enc, 496, &len, err, sizeof err) == XCC_OK, "%s", err);
    CHECK_MSG(len <= 469, "largest valid intent frame is %zu bytes", len);
}

static void test_frame_through_ring(void)
{
    /* encode -> offer -> poll -> decode, and an undecodable frame counted above the ring */
    char err[XCC_ERR_BYTES];
    size_t len;
    uint32_t n;
    uint8_t in[496];
    xcc_geometry g = setup(3, 8, 512);
    make_intent(&fr);
    CHECK(xcc_frame_encode(&fr, enc, g.slot_bytes - 16, &len, err, sizeof err) == XCC_OK);
    uint32_t ring = xcc_ring_for_priority(g.rings_per_peer, fr.body.intent.sender_priority);
    CHECK(ring == 1);
    CHECK(xcc_offer(&p1.tx[ring], enc, (uint32_t)len) == XCC_OK);
    CHECK(xcc_offer(&p1.tx[ring], "\xff\xff", 2) == XCC_OK);
    CHECK(xcc_poll(&p0.rx[ring], in, sizeof in, &n) == XCC_OK && n == len);
    CHECK(xcc_frame_decode(in, n, &fr2, err, sizeof err) == XCC_OK && fr2.body.intent.correlation_id == 7);
    CHECK(xcc_poll(&p0.rx[ring], in, sizeof in, &n) == XCC_OK);
    if (xcc_frame_decode(in, n, &fr2, err, sizeof err) != XCC_OK)
        xcc_rx_count_undeliverable(&p0.rx[ring]);
    xcc_ring_stats s;
    xcc_ring_stats_read(&reg, &g, 1, ring, &s);
    CHECK(XCC_COUNTER_OF(s, FRAMES_ACCEPTED) == 2 && XCC_COUNTER_OF(s, FRAMES_UNDELIVERABLE) == 1);
}

static void test_frame_encode_refusals(void)
{
    char err[XCC_ERR_BYTES];
    size_t len;
    memset(&fr, 0, sizeof fr);
    CHECK(xcc_frame_encode(&fr, enc, 496, &len, err, sizeof err) == XCC_EFRAME && strstr(err, "no body"));
    make_intent(&fr);
    fr.body.intent.sender_priority = 100; /* not a codec bound: whoever maps it to a ring checks it */
    CHECK(xcc_frame_encode(&fr, enc, 496, &len, err, sizeof err) == XCC_OK);
    make_intent(&fr);
    memset(fr.body.intent.channel, 'x', 64); /* unterminated: over the 63-byte bound */
    CHECK(xcc_frame_encode(&fr, enc, 496, &len, err, sizeof err) == XCC_EFRAME && strstr(err, "Intent.channel"));
    make_intent(&fr);
    strcpy(fr.body.intent.action, "bad\xC3(utf8");
    CHECK(xcc_frame_encode(&fr, enc, 496, &len, err, sizeof err) == XCC_EFRAME && strstr(err, "UTF-8"));
    /* a control frame with maximal text and subject does not fit a 512-byte slot: refused */
    memset(&fr, 0, sizeof fr);
    fr.which_body = rtdroid_xcc_v1_Frame_control_tag;
    memset(fr.body.control.text, 't', 255);
    memset(fr.body.control.subject, 's', 63);
    fr.body.control.has_stats = true;
    fr.body.control.stats.frames_in = fr.body.control.stats.frames_out = UINT64_MAX;
    fr.body.control.has_service = true;
    memset(fr.body.control.service.name, 'n', 63);
    memset(fr.body.control.service.state, 'r', 15);
    fr.body.control.service.releases = fr.body.control.service.deadline_misses = UINT64_MAX;
    fr.body.control.code = UINT32_MAX;
    fr.body.control.stats.dropped_corrupt = fr.body.control.stats.dropped_full = fr.body.control.stats.resyncs = UINT64_MAX;
    fr.body.control.service.worst_lateness_nanos = UINT64_MAX;
    fr.body.control.service.index = fr.body.control.service.count = UINT32_MAX;
    fr.seq = fr.send_time_nanos = UINT64_MAX;
    int rc_big = xcc_frame_encode(&fr, enc, 496, &len, err, sizeof err);
    CHECK_MSG(rc_big == XCC_EFRAME && strstr(err, "more than the 496"), "%d %s", rc_big, err);
    CHECK(xcc_frame_encode(&fr, enc, sizeof enc, &len, err, sizeof err) == XCC_EFRAME && strstr(err, "OVERSIZE"));
}

static int decodes(const uint8_t *b, size_t n, char *err, size_t eb) { return xcc_frame_decode(b, n, &fr2, err, eb) == XCC_OK; }

static void test_frame_decode_hostile(void)
{
    char err[XCC_ERR_BYTES];
    size_t len;
    make_intent(&fr);
    CHECK(xcc_frame_encode(&fr, enc, 496, &len, err, sizeof err) == XCC_OK);
    /* every strict prefix is truncated or has no body */
    for (size_t k = 0; k < len; k++)
        CHECK_MSG(!decodes(enc, k, err, sizeof err), "prefix %zu decoded", k);
    /* bad length */
    CHECK(!decodes(enc, 0, err, sizeof err) && strstr(err, "NO_BODY"));
    CHECK(!decodes(enc, 497, err, sizeof err) && strstr(err, "OVERSIZE"));
    /* invalid protobuf */
    const uint8_t overlong_varint[] = {0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    CHECK(!decodes(overlong_varint, sizeof overlong_varint, err, sizeof err));
    const uint8_t group[] = {0x0b, 0x0c, 0x62, 0x00};
    CHECK(!decodes(group, sizeof group, err, sizeof err) && strstr(err, "wire type"));
    const uint8_t field0[] = {0x00, 0x01, 0x62, 0x00};
    CHECK(!decodes(field0, sizeof field0, err, sizeof err));
    const uint8_t len_past_end[] = {0x62, 0x05, 0x08, 0x01};
    CHECK(!decodes(len_past_end, sizeof len_past_end, err, sizeof err) && strstr(err, "TRUNCATED"));
    const uint8_t wrong_wt[] = {0x0a, 0x01, 0x00, 0x62, 0x00}; /* seq as length-delimited */
    CHECK(!decodes(wrong_wt, sizeof wrong_wt, err, sizeof err) && strstr(err, "Frame.seq"));
    /* unknown frame kind: only an unknown field 14 */
    const uint8_t unknown_kind[] = {0x08, 0x01, 0x72, 0x02, 0x08, 0x01};
    CHECK(!decodes(unknown_kind, sizeof unknown_kind, err, sizeof err) && strstr(err, "no body"));
    const uint8_t no_body[] = {0x08, 0x01, 0x10, 0x02};
    CHECK(!decodes(no_body, sizeof no_body, err, sizeof err) && strstr(err, "no body"));
    /* unknown fields beside a body are skipped (proto3) */
    const uint8_t extra[] = {0x08, 0x01, 0x62, 0x00, 0x78, 0x05};
    CHECK(decodes(extra, sizeof extra, err, sizeof err));
    /* oversize: a 64-byte channel, a 225-byte payload */
    uint8_t b[400];
    size_t k = 0;
    b[k++] = 0x52; b[k++] = 66; b[k++] = 0x12; b[k++] = 64;
    memset(b + k, 'c', 64); k += 64;
    CHECK(!decodes(b, k, err, sizeof err));
    k = 0;
    b[k++] = 0x52; b[k++] = 0xe4; b[k++] = 0x01; /* 228 */
    b[k++] = 0x22; b[k++] = 0xe1; b[k++] = 0x01; /* 225 */
    memset(b + k, 1, 225); k += 225;
    CHECK(!decodes(b, k, err, sizeof err));
    b[2] = 0x01; b[4] = 0xe0; /* 224 is fine: 0xe3 0x01 = 227 */
    b[1] = 0xe3;
    CHECK_MSG(decodes(b, k - 1, err, sizeof err), "%s", err);
    /* invalid UTF-8 in a string, embedded NUL, overlong encoding, surrogate */
    const char *bad[] = {"ab\xff", "a\0b", "\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xE2\x82"};
    const size_t bad_len[] = {3, 3, 2, 3, 4, 2};
    for (int i = 0; i < 6; i++) {
        k = 0;
        b[k++] = 0x52; b[k++] = (uint8_t)(2 + bad_len[i]); b[k++] = 0x0a; b[k++] = (uint8_t)bad_len[i];
        memcpy(b + k, bad[i], bad_len[i]); k += bad_len[i];
        CHECK_MSG(!decodes(b, k, err, sizeof err) && strstr(err, "UTF-8"), "bad utf8 %d", i);
    }
    const uint8_t good_utf8[] = {0x52, 0x08, 0x0a, 0x06, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 'x'};
    CHECK(decodes(good_utf8, sizeof good_utf8, err, sizeof err));
    /* the checker steps eight ASCII bytes at a time: a NUL, a stray byte 0xFF or a valid 'é' at
     * every position of a 24-byte action, inside and across those steps */
    for (size_t at = 0; at < 23; at++) {
        const char *what[] = {"\0", "\xff", "\xc3\xa9"};
        for (int w = 0; w < 3; w++) {
            k = 0;
            b[k++] = 0x52; b[k++] = 26; b[k++] = 0x0a; b[k++] = 24;
            memset(b + k, 'a', 24);
            memcpy(b + k + at, what[w], w == 2 ? 2 : 1);
            k += 24;
            int ok = decodes(b, k, err, sizeof err);
            CHECK_MSG(w == 2 ? ok : !ok && strstr(err, "UTF-8") != NULL, "byte %d at %zu: %s", w, at, err);
        }
    }
    /* sender_priority over 99 decodes (the proxy checks it); over uint32 does not */
    const uint8_t prio[] = {0x52, 0x02, 0x18, 0x64};
    CHECK(decodes(prio, sizeof prio, err, sizeof err));
    const uint8_t prio_big[] = {0x52, 0x06, 0x18, 0x80, 0x80, 0x80, 0x80, 0x10};
    CHECK(!decodes(prio_big, sizeof prio_big, err, sizeof err) && strstr(err, "OVER_BOUND"));
    /* duplicates: a field twice, two body members */
    const uint8_t dup[] = {0x08, 0x01, 0x08, 0x02, 0x62, 0x00};
    CHECK(!decodes(dup, sizeof dup, err, sizeof err) && strstr(err, "DUPLICATE_FIELD"));
    const uint8_t two_bodies[] = {0x52, 0x00, 0x62, 0x00};
    CHECK(!decodes(two_bodies, sizeof two_bodies, err, sizeof err) && strstr(err, "DUPLICATE_FIELD"));
}

/* ---- self-healing (region-spec.md, "A peer's own fields"; Java's SelfHealingTest) ---------- */
#define HEAL_RINGS 3u
#define HEAL_SLOTS 8u
#define HEAL_FIELDS (2u * (4u + 11u * (HEAL_RINGS - 1u)))

/* A field: whose it is, where it lies, its width, and a hostile value to write there. */
typedef struct owned_field {
    char name[40];
    uint32_t owner;
    size_t offset;
    int u32;
    uint64_t hostile;
    int index; /* 1 write_index, 2 read_index, 0 any other */
    uint32_t ring;
} owned_field;
static owned_field owned[HEAL_FIELDS];

static void add_field(uint32_t *k, uint32_t owner, const char *name, uint32_t ring, const uint8_t *at,
                      int u32, uint64_t hostile, int index)
{
    owned_field *f = &owned[(*k)++];
    snprintf(f->name, sizeof f->name, "%s %s", owner == 0 ? "rt" : "android", name);
    f->owner = owner;
    f->offset = (size_t)(at - mem_a);
    f->u32 = u32;
    f->hostile = hostile;
    f->index = index;
    f->ring = ring;
}

/* Every field a cell owns on its data rings, both peers: state line, ring headers, consumer lines. */
static void owned_fields(void)
{
    setup(HEAL_RINGS, HEAL_SLOTS, 256);
    uint32_t k = 0;
    char name[32];
    for (uint32_t peer = 0; peer < 2; peer++) {
        xcc_peer *p = peer == 0 ? &p0 : &p1;
        add_field(&k, peer, "state", 0, p->own_state + XCC_STATE_OFF_STATE, 1, XCC_STATE_STOPPING, 0);
        add_field(&k, peer, "epoch", 0, p->own_state + XCC_STATE_OFF_EPOCH, 1, 77, 0);
        add_field(&k, peer, "heartbeat", 0, p->own_state + XCC_STATE_OFF_HEARTBEAT, 0, 0, 0);
        add_field(&k, peer, "header_repairs", 0, p->own_state + XCC_STATE_OFF_HEADER_REPAIRS, 0, 999, 0);
        for (uint32_t ring = 1; ring < HEAL_RINGS; ring++) {
            const uint8_t *h = p->tx[ring].ring, *l = p->rx[ring].consumer_line;
            static const struct { const char *name; uint32_t off; int u32, index; uint64_t hostile; } header[] = {
                {"write_index", XCC_RING_WRITE_INDEX, 0, 1, 1ull << 40},
                {"frames_written", XCC_RING_FRAMES_WRITTEN, 0, 0, 999},
                {"frames_dropped_full", XCC_RING_FRAMES_DROPPED_FULL, 0, 0, 999},
                {"ring_class", XCC_RING_CLASS, 1, 0, 7},
            }, line[] = {
                {"read_index", XCC_CONS_READ_INDEX, 0, 2, 1ull << 40},
                {"frames_accepted", XCC_CONS_FRAMES_ACCEPTED, 0, 0, 999},
                {"frames_corrupt", XCC_CONS_FRAMES_CORRUPT, 0, 0, 999},
                {"resyncs", XCC_CONS_RESYNCS, 0, 0, 999},
                {"frames_undeliverable", XCC_CONS_FRAMES_UNDELIVERABLE, 0, 0, 999},
                {"stale_skipped", XCC_CONS_STALE_SKIPPED, 0, 0, 999},
                {"write_index_faults", XCC_CONS_WRITE_INDEX_FAULTS, 0, 0, 999},
            };
            for (size_t i = 0; i < sizeof header / sizeof header[0]; i++) {
                snprintf(name, sizeof name, "ring %u %s", ring, header[i].name);
                add_field(&k, peer, name, ring, h + header[i].off, header[i].u32, header[i].hostile, header[i].index);
            }
            for (size_t i = 0; i < sizeof line / sizeof line[0]; i++) {
                snprintf(name, sizeof name, "line %u %s", ring, line[i].name);
                add_field(&k, peer, name, ring, l + line[i].off, line[i].u32, line[i].hostile, line[i].index);
            }
        }
    }
    CHECK(k == HEAL_FIELDS);
}

static uint64_t field_value(const owned_field *f)
{
    return f->u32 ? get32(mem_a + f->offset) : get64(mem_a + f->offset);
}

static void scribble(const owned_field *f)
{
    if (f->u32)
        put32(mem_a + f->offset, (uint32_t)f->hostile);
    else
        put64(mem_a + f->offset, f->hostile);
}

/* One pass of a peer's loop with nothing to send: it polls every data ring it reads. */
static void heal_pass(xcc_peer *p, const char *field)
{
    uint8_t in[496];
    uint32_t n;
    for (uint32_t ring = 1; ring < HEAL_RINGS; ring++)
        for (uint32_t k = 0; k < 2 * HEAL_SLOTS; k++) {
            int rc = xcc_poll(&p->rx[ring], in, sizeof in, &n);
            CHECK_MSG(rc != XCC_OK, "%s: ring %u delivered a frame nobody sent", field, ring);
            if (rc == XCC_EMPTY)
                break;
        }
}

/* `rounds` rounds of `per_round` frames each way on every data ring, all received in order. */
static void heal_exchange(uint32_t rounds, uint32_t per_round, const char *field)
{
    uint8_t out[24] = {0}, in[496];
    uint32_t n = 0;
    xcc_peer *pairs[2][2] = {{&p0, &p1}, {&p1, &p0}};
    for (uint32_t round = 0; round < rounds; round++)
        for (uint32_t ring = 1; ring < HEAL_RINGS; ring++)
            for (int d = 0; d < 2; d++) {
                xcc_tx *tx = &pairs[d][0]->tx[ring];
                xcc_rx *rx = &pairs[d][1]->rx[ring];
                for (uint32_t i = 0; i < per_round; i++) {
                    uint64_t seq = XCC_COUNTER_OF(*tx, FRAMES_WRITTEN);
                    memcpy(out, &seq, 8);
                    CHECK_MSG(xcc_offer(tx, out, sizeof out) == XCC_OK, "%s: ring %u accepts frame %llu", field,
                              ring, (unsigned long long)seq);
                    int rc = xcc_poll(rx, in, sizeof in, &n);
                    CHECK_MSG(rc == XCC_OK && n == sizeof out && memcmp(in, out, n) == 0,
                              "%s: ring %u delivers frame %llu (rc %d)", field, ring, (unsigned long long)seq, rc);
                }
            }
}

static void test_heal_puts_back_every_owned_field_and_traffic_flows(void)
{
    owned_fields();
    for (int access = XCC_ACCESS_ATOMIC; access <= XCC_ACCESS_ALIGNED; access++)
        for (uint32_t i = 0; i < HEAL_FIELDS; i++) {
            const owned_field *f = &owned[i];
            setup_access(HEAL_RINGS, HEAL_SLOTS, 256, access);
            xcc_peer *owner = f->owner == 0 ? &p0 : &p1, *other = f->owner == 0 ? &p1 : &p0;
            heal_exchange(1, 3, f->name);
            uint64_t before = field_value(f);
            CHECK_MSG(before != f->hostile, "%s: the hostile value must differ", f->name);
            /* the other cell scribbles and reads it first; the owner's next heal puts it back */
            scribble(f);
            heal_pass(other, f->name);
            int repaired = xcc_heal(owner, 1);
            CHECK_MSG(repaired == 1, "%s (access %d): repaired %d fields, want 1", f->name, access, repaired);
            CHECK_MSG(field_value(f) == before, "%s: back to the owner's value", f->name);
            CHECK_MSG(owner->repairs == 1, "%s: repairs %llu", f->name, (unsigned long long)owner->repairs);
            CHECK_MSG(xcc_heal(owner, 1) == 0, "%s: nothing left to repair", f->name);
            CHECK_MSG(xcc_heal(other, 1) == 0, "%s: the other peer owns nothing of it", f->name);
            /* after one more pass of the other side the link works both ways, every ring */
            heal_pass(other, f->name);
            heal_exchange(10, 2 * HEAL_SLOTS, f->name);
        }
}

static void test_without_heal_a_moved_index_stops_the_link(void)
{
    owned_fields();
    uint32_t shown = 0;
    for (uint32_t i = 0; i < HEAL_FIELDS; i++) {
        const owned_field *f = &owned[i];
        if (!f->index)
            continue; /* the failure healing exists for: a moved read index stops traffic; a moved
                       * write index does not (the reader waits, the producer's next frame heals it) */
        setup(HEAL_RINGS, HEAL_SLOTS, 256);
        xcc_peer *owner = f->owner == 0 ? &p0 : &p1, *other = f->owner == 0 ? &p1 : &p0;
        xcc_peer *producer = f->index == 1 ? owner : other, *consumer = producer == &p0 ? &p1 : &p0;
        heal_exchange(1, 3, f->name);
        scribble(f);
        heal_pass(consumer, f->name); /* it reads the moved index first (a moved write index: a fault, it waits) */
        uint8_t out[32] = {0}, in[496];
        uint32_t n, delivered = 0;
        for (uint32_t k = 0; k < 2 * HEAL_SLOTS; k++) {
            xcc_offer(&producer->tx[f->ring], out, sizeof out);
            delivered += xcc_poll(&consumer->rx[f->ring], in, sizeof in, &n) == XCC_OK;
        }
        if (f->index == 1) /* the reader kept its index: the producer's next frame publishes its own again */
            CHECK_MSG(delivered == 2 * HEAL_SLOTS && XCC_COUNTER_OF(consumer->rx[f->ring], RESYNCS) == 0 &&
                          XCC_COUNTER_OF(consumer->rx[f->ring], WRITE_INDEX_FAULTS) == 1,
                      "%s moved: %u frames delivered, want all, none lost", f->name, delivered);
        else
            CHECK_MSG(delivered == 0, "%s moved: %u frames got through without a heal", f->name, delivered);
        shown++;
    }
    CHECK(shown == 2u * 2u * (HEAL_RINGS - 1u));
}

static void test_heal_leaves_own_changes_and_other_owners_alone(void)
{
    setup(HEAL_RINGS, HEAL_SLOTS, 256);
    /* the owner's own state change is the truth, not a scribble */
    xcc_set_state(&p1, XCC_STATE_STOPPING);
    CHECK(xcc_heal(&p1, 1) == 0 && xcc_other_state(&p0) == XCC_STATE_STOPPING);
    /* the Android cell heals from ring 1: ring 0 and consumer line 0 are the management agent's */
    put64(p1.tx[0].ring + XCC_RING_WRITE_INDEX, 5);
    put64(p1.rx[0].consumer_line + XCC_CONS_READ_INDEX, 5);
    CHECK(xcc_heal(&p1, 1) == 0 && get64(p1.tx[0].ring) == 5);
    /* the management agent heals ring 0 and consumer line 0 only, never the state line */
    xcc_peer m;
    char err[XCC_ERR_BYTES];
    put64(p1.tx[0].ring + XCC_RING_WRITE_INDEX, 0);
    CHECK(xcc_attach(&m, &reg, 1, XCC_ATTACH_MANAGEMENT, err, sizeof err) == XCC_OK);
    put64(m.tx[0].ring + XCC_RING_WRITE_INDEX, 9);
    put64(m.rx[0].consumer_line + XCC_CONS_STALE_SKIPPED, 9);
    put32(p1.own_state + XCC_STATE_OFF_STATE, XCC_STATE_FAILED);
    put64(p1.tx[1].ring + XCC_RING_WRITE_INDEX, 9);
    CHECK(xcc_heal(&m, 0) == 2 && m.repairs == 2);
    CHECK(get64(m.tx[0].ring) == 0 && get64(m.rx[0].consumer_line + XCC_CONS_STALE_SKIPPED) == 0);
    CHECK(get32(p1.own_state) == XCC_STATE_FAILED && get64(p1.tx[1].ring) == 9);
    /* which the Android cell's own heal puts back */
    CHECK(xcc_heal(&p1, 1) == 2 && get32(p1.own_state) == XCC_STATE_STOPPING && get64(p1.tx[1].ring) == 0);
    CHECK(p1.repairs == 2);
}

/* issue 38, defect 5: garbage over the header blinded every tool while the cells ran on */
static void test_heal_puts_back_a_scribbled_header_and_counts_it(void)
{
    xcc_geometry g = setup(HEAL_RINGS, HEAL_SLOTS, 256), v;
    char err[XCC_ERR_BYTES];
    uint8_t formatted[XCC_HEADER_BYTES];
    memcpy(formatted, mem_a, sizeof formatted);
    for (uint32_t off = 0; off < 48; off += 4)
        put32(mem_a + off, 0xdeadbeefu);
    put32(mem_a + 100, 1); /* and a reserved word */
    CHECK(xcc_validate_header(mem_a, sizeof mem_a, &v, err, sizeof err) == XCC_EHEADER);
    int repaired = xcc_heal(&p0, 1);
    CHECK_MSG(repaired == 13, "repaired %d, want 12 words of garbage and one reserved word", repaired);
    CHECK(memcmp(formatted, mem_a, sizeof formatted) == 0);
    CHECK_MSG(xcc_validate_header(mem_a, sizeof mem_a, &v, err, sizeof err) == XCC_OK, "%s", err);
    CHECK(v.section_bytes == g.section_bytes);
    CHECK(p0.header_repairs == 13 && get64(p0.own_state + XCC_STATE_OFF_HEADER_REPAIRS) == 13);
    CHECK(xcc_heal(&p1, 1) == 0 && p1.header_repairs == 0);
    /* either cell heals it; a restarted cell carries its count on */
    put32(mem_a + XCC_HDR_SLOT_BYTES, 64);
    CHECK(xcc_heal(&p1, 1) == 1 && xcc_heal(&p0, 1) == 0);
    CHECK(xcc_attach(&p0, &reg, 0, XCC_ATTACH_CELL, err, sizeof err) == XCC_OK && p0.header_repairs == 13);
    /* the generic counters view reads it, and agrees with the per-ring snapshot on every ring counter */
    CHECK(xcc_counter_read(&reg, &g, XCC_COUNTER_HEADER_REPAIRS, 0, 0) == 13);
    CHECK(xcc_counter_read(&reg, &g, XCC_COUNTER_EPOCH, 0, 0) == 2);
    uint8_t out[16] = {1}, in[496];
    uint32_t n;
    CHECK(xcc_offer(&p1.tx[2], out, sizeof out) == XCC_OK && xcc_poll(&p0.rx[2], in, sizeof in, &n) == XCC_OK);
    xcc_ring_stats s;
    CHECK(xcc_ring_stats_read(&reg, &g, 1, 2, &s) == XCC_OK);
    CHECK(xcc_counter_read(&reg, &g, XCC_COUNTER_FRAMES_WRITTEN, 1, 2) == XCC_COUNTER_OF(s, FRAMES_WRITTEN) && XCC_COUNTER_OF(s, FRAMES_WRITTEN) > 0);
    CHECK(xcc_counter_read(&reg, &g, XCC_COUNTER_RING_CLASS, 1, 2) == 2);
    CHECK(xcc_counter_read(&reg, &g, XCC_COUNTER_FRAMES_ACCEPTED, 0, 2) == XCC_COUNTER_OF(s, FRAMES_ACCEPTED));
    CHECK(xcc_counter_read(&reg, &g, XCC_COUNTERS, 0, 0) == 0 && xcc_counter_read(&reg, &g, 0, 2, 0) == 0);
}

/* ---- main ----------------------------------------------------------------------------------- */
int main(int argc, char **argv)
{
    const char *vectors = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--vectors") == 0) vectors = argv[i + 1];
        else if (strcmp(argv[i], "--tmp") == 0) h_tmp_dir = argv[i + 1];
    }
    mkdir(h_tmp_dir, 0755);
    RUN(test_crc32_known_values);
    RUN(test_crc32_matches_definition);
    RUN(test_layout_rules);
    RUN(test_format_then_validate);
    RUN(test_header_hostile_fields);
    RUN(test_offer_poll_roundtrip_and_counters);
    RUN(test_offer_refuses_bad_length);
    RUN(test_full_ring_drops_counted);
    RUN(test_reader_rejects_bad_slot_length_index_crc);
    RUN(test_torn_write_unpublished_slot_is_invisible);
    RUN(test_indices_outside_ring_or_backwards);
    RUN(test_frames_unread_at_a_scribbled_write_index_survive_the_heal);
    RUN(test_management_agent_ring_resyncs_at_once);
    RUN(test_peer_restart_epoch_and_stale_skip);
    RUN(test_management_attach_touches_only_ring0);
    RUN(test_flood_bounded_counted_drops);
    RUN(test_ring_for_priority);
    RUN(test_backoff_sequence);
    RUN(test_heal_puts_back_every_owned_field_and_traffic_flows);
    RUN(test_without_heal_a_moved_index_stops_the_link);
    RUN(test_heal_leaves_own_changes_and_other_owners_alone);
    RUN(test_heal_puts_back_a_scribbled_header_and_counts_it);
    RUN(test_backend_shm_two_mappings);
    RUN(test_backend_ivshmem_exact_size);
    RUN(test_backend_devmem_aligned_access);
    RUN(test_cross_process_shm);
    RUN(test_frame_roundtrip_all_kinds);
    RUN(test_frame_largest_intent_fits_slot);
    RUN(test_frame_through_ring);
    RUN(test_frame_encode_refusals);
    RUN(test_frame_decode_hostile);
    if (!vectors || run_vectors(vectors) < 0) {
        printf("FAIL shared vectors: none found in %s\n", vectors ? vectors : "(no --vectors)");
        failed++;
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
