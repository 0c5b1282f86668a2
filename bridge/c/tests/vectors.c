/* Shared test vectors (bridge/vectors/, written by bridge/python's generator): every frame and
 * region image is checked against what the index says every implementation must do.
 * Index: vectors/index.txt, the line-based twin of the JSON index (see REQUESTS-from-C.txt). */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "xcc.h"

#define MAX_FILE (1u << 24)
static uint8_t file_buf[MAX_FILE] __attribute__((aligned(64)));
static uint8_t region_buf[MAX_FILE] __attribute__((aligned(64)));
static size_t region_len;
static char region_name[128];

static long load(const char *dir, const char *rel, uint8_t *dst)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "    cannot open vector file %s\n", path);
        return -1;
    }
    size_t n = fread(dst, 1, MAX_FILE, f);
    fclose(f);
    return (long)n;
}

static const char *body_name(pb_size_t which)
{
    switch (which) {
    case rtdroid_xcc_v1_Frame_intent_tag: return "intent";
    case rtdroid_xcc_v1_Frame_message_tag: return "message";
    case rtdroid_xcc_v1_Frame_control_tag: return "control";
    case rtdroid_xcc_v1_Frame_deploy_chunk_tag: return "deploy_chunk";
    default: return "none";
    }
}

static xcc_frame vf;
static uint8_t reenc[XCC_FRAME_ENCODE_BUFFER_BYTES];

static void frame_case(const char *dir, char **tok, int nt)
{
    if (nt < 5) { CHECK_MSG(0, "malformed frame line"); return; }
    long n = load(dir, tok[2], file_buf);
    CHECK(n >= 0);
    if (n < 0) return;
    char err[XCC_ERR_BYTES] = "";
    int rc = xcc_frame_decode(file_buf, (size_t)n, &vf, err, sizeof err);
    if (strcmp(tok[3], "ok") == 0 || strcmp(tok[3], "accept") == 0) {
        CHECK_MSG(rc == XCC_OK, "%s: %s", tok[1], err);
        if (rc != XCC_OK) return;
        CHECK_MSG(strcmp(body_name(vf.which_body), tok[4]) == 0, "%s: body %s, index says %s", tok[1],
                  body_name(vf.which_body), tok[4]);
        size_t len = 0;
        rc = xcc_frame_encode(&vf, reenc, sizeof reenc, &len, err, sizeof err);
        CHECK_MSG(rc == XCC_OK, "%s: re-encoding failed: %s", tok[1], err);
        if (strcmp(tok[3], "ok") == 0) /* canonical: byte for byte */
            CHECK_MSG(rc == XCC_OK && len == (size_t)n && memcmp(reenc, file_buf, len) == 0,
                      "%s: re-encoding is not byte-identical (%zu vs %ld bytes)", tok[1], len, n);
    } else if (strcmp(tok[3], "reject") == 0) {
        char cls[64];
        size_t k = 0;
        for (; tok[4][k] && k + 1 < sizeof cls; k++)
            cls[k] = (char)(tok[4][k] >= 'a' && tok[4][k] <= 'z' ? tok[4][k] - 32 : tok[4][k]);
        cls[k] = 0;
        CHECK_MSG(rc != XCC_OK, "%s: decoded, index says reject (%s)", tok[1], tok[4]);
        CHECK_MSG(rc == XCC_OK || (strncmp(err, cls, k) == 0 && err[k] == ':'),
                  "%s: error class of '%s' is not %s", tok[1], err, cls);
    } else {
        CHECK_MSG(0, "%s: unknown expectation %s", tok[1], tok[3]);
    }
}

static int unhex(const char *h, uint8_t *out, size_t max)
{
    size_t n = strlen(h);
    if (n % 2 || n / 2 > max) return -1;
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(h + 2 * i, "%2x", &v) != 1) return -1;
        out[i] = (uint8_t)v;
    }
    return (int)(n / 2);
}

static void region_case(const char *dir, char **tok, int nt)
{
    if (nt < 4) { CHECK_MSG(0, "malformed region line"); return; }
    long n = load(dir, tok[2], region_buf);
    CHECK(n >= 0);
    if (n < 0) return;
    region_len = (size_t)n;
    snprintf(region_name, sizeof region_name, "%s", tok[1]);
    char err[XCC_ERR_BYTES] = "";
    xcc_geometry g;
    int rc = xcc_validate_header(region_buf, region_len, &g, err, sizeof err);
    if (strcmp(tok[3], "ok") == 0) {
        CHECK_MSG(rc == XCC_OK, "%s: %s", tok[1], err);
        return;
    }
    /* reject <field> header=<hex of the first 48 bytes> (patched into the image) */
    const char *field = nt >= 5 ? tok[4] : "?";
    for (int i = 5; i < nt; i++)
        if (strncmp(tok[i], "header=", 7) == 0 && unhex(tok[i] + 7, region_buf, 128) < 0)
            CHECK_MSG(0, "%s: bad header hex", tok[1]);
    rc = xcc_validate_header(region_buf, region_len, &g, err, sizeof err);
    char want[96];
    snprintf(want, sizeof want, "field %s = ", field);
    CHECK_MSG(rc == XCC_EHEADER, "%s: accepted, index says reject (%s)", tok[1], field);
    CHECK_MSG(rc == XCC_OK || strstr(err, want) != NULL, "%s: error '%s' does not name %s", tok[1], err, field);
}

static uint8_t after_buf[MAX_FILE] __attribute__((aligned(64)));

/* compare the image after an operation with regions/<name>.after.bin */
static void compare_after(const char *dir, const char *name)
{
    char rel[300];
    snprintf(rel, sizeof rel, "regions/%s.after.bin", name);
    long n = load(dir, rel, after_buf);
    CHECK_MSG(n == (long)region_len, "%s: after image has %ld bytes, want %zu", name, n, region_len);
    if (n != (long)region_len) return;
    for (size_t i = 0; i < region_len; i++)
        if (region_buf[i] != after_buf[i]) {
            CHECK_MSG(0, "%s: image differs from %s at byte %zu (0x%02x, want 0x%02x)", name, rel, i, region_buf[i],
                      after_buf[i]);
            return;
        }
}

/* attach <name> <peer>: the spec's attach on the image of the region line before */
static void attach_case(const char *dir, char **tok, int nt)
{
    if (nt < 3 || strcmp(tok[1], region_name) != 0) { CHECK_MSG(0, "malformed attach line"); return; }
    xcc_region r;
    static xcc_peer p;
    char err[XCC_ERR_BYTES];
    xcc_region_wrap(&r, region_buf, region_len, XCC_ACCESS_ATOMIC);
    CHECK_MSG(xcc_attach(&p, &r, (uint32_t)atoi(tok[2]), XCC_ATTACH_CELL, err, sizeof err) == XCC_OK, "%s", err);
    compare_after(dir, tok[1]);
}

static uint8_t offer_buf[XCC_MAX_FRAME_BYTES];

/* The common start of a produce and a read line (<what> <name> <peer> <ring> <steps>): the region
 * of the line before, its geometry and the peer and ring named; 0 (and a failed check) when the
 * line is malformed. */
static int ring_case(const char *what, char **tok, int nt, xcc_geometry *g, xcc_region *r, uint32_t *peer,
                     uint32_t *ring)
{
    if (nt < 5 || strcmp(tok[1], region_name) != 0) {
        CHECK_MSG(0, "%s %s: malformed, or not the region of the line before", what, nt > 1 ? tok[1] : "");
        return 0;
    }
    char err[XCC_ERR_BYTES];
    if (xcc_validate_header(region_buf, region_len, g, err, sizeof err) != XCC_OK) {
        CHECK_MSG(0, "%s %s: %s", what, tok[1], err);
        return 0;
    }
    *peer = (uint32_t)atoi(tok[2]);
    *ring = (uint32_t)atoi(tok[3]);
    if (*peer > 1 || *ring >= g->rings_per_peer) {
        CHECK_MSG(0, "%s %s: bad peer/ring", what, tok[1]);
        return 0;
    }
    xcc_region_wrap(r, region_buf, region_len, XCC_ACCESS_ATOMIC);
    return 1;
}

/* produce <name> <peer> <ring> <frame hex>:<1|0>,... : offers without attach */
static void produce_case(const char *dir, char **tok, int nt)
{
    xcc_geometry g;
    xcc_region r;
    uint32_t producer, ring;
    if (!ring_case("produce", tok, nt, &g, &r, &producer, &ring))
        return;
    xcc_tx tx;
    xcc_tx_open(&tx, &r, &g, producer, ring);
    char *save = NULL;
    int step = 0;
    for (char *o = strtok_r(tok[4], ",", &save); o; o = strtok_r(NULL, ",", &save), step++) {
        char *colon = strchr(o, ':');
        if (!colon) { CHECK_MSG(0, "produce %s: malformed offer %d", tok[1], step); return; }
        *colon = 0;
        int n = unhex(o, offer_buf, sizeof offer_buf);
        int want = atoi(colon + 1);
        int rc = n < 0 ? XCC_EINVAL : xcc_offer(&tx, offer_buf, (uint32_t)n);
        CHECK_MSG((rc == XCC_OK) == (want == 1), "produce %s offer %d: rc=%d, want accepted=%d", tok[1], step, rc, want);
    }
    compare_after(dir, tok[1]);
}

static uint8_t frame_out[XCC_MAX_FRAME_BYTES];

static void read_case(const char *dir, char **tok, int nt)
{
    (void)dir;
    xcc_geometry g;
    xcc_region r;
    uint32_t consumer, ring;
    if (!ring_case("read", tok, nt, &g, &r, &consumer, &ring))
        return;
    /* a reader without attach: its private index starts at the one in its consumer line */
    xcc_rx rx;
    xcc_rx_open(&rx, &r, &g, consumer, ring);
    char *save = NULL;
    int step = 0;
    for (char *r = strtok_r(tok[4], ",", &save); r; r = strtok_r(NULL, ",", &save), step++) {
        uint32_t n = 0;
        int rc = xcc_poll(&rx, frame_out, sizeof frame_out, &n);
        if (strncmp(r, "ok:", 3) == 0) {
            unsigned len = 0, crc = 0;
            sscanf(r + 3, "%u:%x", &len, &crc);
            CHECK_MSG(rc == XCC_OK && n == len && xcc_crc32(frame_out, n) == crc,
                      "read %s step %d: want %s, got rc=%d n=%u", tok[1], step, r, rc, n);
        } else {
            int want = strcmp(r, "corrupt") == 0 ? XCC_CORRUPT
                       : strcmp(r, "resync") == 0 ? XCC_RESYNC
                       : strcmp(r, "empty") == 0  ? XCC_EMPTY
                                                  : 99;
            CHECK_MSG(rc == want, "read %s step %d: want %s, got rc=%d", tok[1], step, r, rc);
        }
        if (step > 100000) break;
    }
    uint64_t cnt[7];
    memcpy(cnt, rx.consumer_line, sizeof cnt);
    for (int i = 5; i < nt; i++) {
        unsigned long long v = 0;
        if (sscanf(tok[i], "accepted=%llu", &v) == 1) CHECK_MSG(cnt[1] == v, "read %s accepted %llu", tok[1], (unsigned long long)cnt[1]);
        else if (sscanf(tok[i], "corrupt=%llu", &v) == 1) CHECK_MSG(cnt[2] == v, "read %s corrupt %llu", tok[1], (unsigned long long)cnt[2]);
        else if (sscanf(tok[i], "resyncs=%llu", &v) == 1) CHECK_MSG(cnt[3] == v, "read %s resyncs %llu", tok[1], (unsigned long long)cnt[3]);
        else if (sscanf(tok[i], "faults=%llu", &v) == 1) CHECK_MSG(cnt[6] == v, "read %s write_index_faults %llu", tok[1], (unsigned long long)cnt[6]);
    }
}

int run_vectors(const char *dir)
{
    char path[1024], line[4096];
    snprintf(path, sizeof path, "%s/index.txt", dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "    no vector index %s\n", path);
        return -1;
    }
    int cases = 0;
    while (fgets(line, sizeof line, f)) {
        char *tok[16];
        int nt = 0;
        char *save = NULL;
        for (char *t = strtok_r(line, " \t\r\n", &save); t && nt < 16; t = strtok_r(NULL, " \t\r\n", &save))
            tok[nt++] = t;
        if (nt == 0 || tok[0][0] == '#')
            continue;
        char name[300];
        snprintf(name, sizeof name, "vector %s %s", tok[0], nt > 1 ? tok[1] : "?");
        if (strcmp(tok[0], "frame") == 0) frame_case(dir, tok, nt);
        else if (strcmp(tok[0], "region") == 0) region_case(dir, tok, nt);
        else if (strcmp(tok[0], "read") == 0) read_case(dir, tok, nt);
        else if (strcmp(tok[0], "attach") == 0) attach_case(dir, tok, nt);
        else if (strcmp(tok[0], "produce") == 0) produce_case(dir, tok, nt);
        else { CHECK_MSG(0, "unknown index record %s", tok[0]); }
        h_record(name);
        cases++;
    }
    fclose(f);
    return cases > 0 ? cases : -1;
}
