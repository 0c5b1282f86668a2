/*
 * libxcc: the native (C11, POSIX) peer of the cross-context region.
 *
 * The contract is bridge/docs/region-spec.md (layout version 1). Nothing on the data path
 * allocates: every structure below lives in caller-provided (static or stack) memory, every
 * offset into the region comes from the validated header kept privately at attach time.
 */
#ifndef XCC_H
#define XCC_H

#include <stddef.h>
#include <stdint.h>

#include "xcc.pb.h" /* nanopb-generated from bridge/proto/xcc.proto (+ xcc.options) */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- layout constants --------------------------------------------------------------------- */
/* Every size, offset, bound, peer id, state and counter of region-spec.md, generated from
 * bridge/layout/region-layout.toml (make rule in this folder's Makefile): XCC_<NAME> constants,
 * XCC_<STRUCT>_<FIELD> offsets, enum xcc_counter and xcc_counter_table. */
#include "xcc_layout.h"
#define XCC_MAX_FRAME_BYTES (XCC_MAX_SLOT_BYTES - XCC_SLOT_HEADER_BYTES)

/* Results. Negative values are errors; XCC_OK is 0. */
enum xcc_result {
    XCC_OK = 0,
    XCC_EMPTY = 1,       /* poll: nothing to read */
    XCC_FULL = 2,        /* offer: ring full (or consumer index not credible), counted */
    XCC_CORRUPT = 3,     /* poll: slot failed a check, counted and skipped */
    XCC_RESYNC = 4,      /* poll: write index out of range / backwards past the producer's heal, reader skipped to it */
    XCC_EINVAL = -1,     /* bad argument (size, peer id, ...) with an error string */
    XCC_EHEADER = -2,    /* header validation failed */
    XCC_EIO = -3,        /* open/mmap/fstat failed */
    XCC_EFRAME = -4      /* frame encode/decode failed */
};

/* How the region's memory may be touched. */
enum xcc_access {
    XCC_ACCESS_ATOMIC = 0,  /* ordinary cacheable memory (/dev/shm, ivshmem BAR): C11 acquire/release */
    XCC_ACCESS_ALIGNED = 1  /* /dev/mem physical range: aligned volatile loads/stores + fences only,
                               no read-modify-write atomics (may be uncached) */
};

#define XCC_ERR_BYTES 160 /* size for error buffers; messages are truncated to fit */

/* Geometry derived from (and checked against) a header; kept privately after attach. */
typedef struct xcc_geometry {
    uint32_t region_bytes;
    uint32_t rings_per_peer;
    uint32_t slots_per_ring;
    uint32_t slot_bytes;
    uint32_t section_bytes;
    uint32_t section_offset[XCC_PEER_COUNT];
} xcc_geometry;

/* A mapping of the region. */
typedef struct xcc_region {
    uint8_t *base;          /* start of the region (header) */
    size_t mapped_bytes;    /* bytes addressable from base */
    int access;             /* enum xcc_access */
    void *map_addr;         /* what munmap needs (may differ from base for /dev/mem) */
    size_t map_len;
    int fd;                 /* -1 when the memory is not a mapping (tests) */
} xcc_region;

/* ---- CRC-32 (zlib / ISO-HDLC polynomial, reflected 0xEDB88320) ---------------------------- */
uint32_t xcc_crc32(const void *data, size_t n);
uint32_t xcc_crc32_update(uint32_t crc, const void *data, size_t n); /* start with 0 */

/* ---- layout, format, validation ----------------------------------------------------------- */
/* Compute the geometry for R rings, S slots, slot_bytes; checks every rule of the header. */
int xcc_layout(uint32_t rings_per_peer, uint32_t slots_per_ring, uint32_t slot_bytes,
               xcc_geometry *out, char *err, size_t err_bytes);
/* Write header, zeroed state table and sections, ring classes. mapped_bytes >= region_bytes. */
int xcc_format(void *mem, size_t mapped_bytes, const xcc_geometry *geo, char *err, size_t err_bytes);
/* Validate a header read from mem (mapped_bytes addressable). The error names the field,
 * its value and the rule. */
int xcc_validate_header(const void *mem, size_t mapped_bytes, xcc_geometry *out, char *err,
                        size_t err_bytes);

/* ---- region backends ----------------------------------------------------------------------- */
/* /dev/shm file (host board). create_bytes > 0 creates/truncates the file to that size. */
int xcc_map_shm(xcc_region *r, const char *path, size_t create_bytes, char *err, size_t err_bytes);
/* ivshmem BAR 2: /sys/bus/pci/devices/<bdf>/resource2; maps the file's exact size. */
int xcc_map_ivshmem(xcc_region *r, const char *resource_path, char *err, size_t err_bytes);
/* Physical range through /dev/mem (Xen reserved region). phys and bytes need not be page aligned;
 * access is XCC_ACCESS_ALIGNED (the path may be overridden for tests: dev_path NULL = /dev/mem). */
int xcc_map_devmem(xcc_region *r, const char *dev_path, uint64_t phys, size_t bytes, char *err,
                   size_t err_bytes);
/* Wrap memory the caller owns (tests, fuzzing). */
void xcc_region_wrap(xcc_region *r, void *mem, size_t bytes, int access);
void xcc_unmap(xcc_region *r);

/* ---- rings --------------------------------------------------------------------------------- */
/* The private copies below are the truth of every field the ring side owns (region-spec.md,
 * "A peer's own fields"): operations update the copy, then store it; xcc_heal puts the shared
 * field back from it when another cell changed it. */
typedef struct xcc_tx {          /* producer side of one ring in our own section */
    uint8_t *ring;               /* ring header */
    uint8_t *slots;
    uint8_t *consumer_line;      /* the consumer's line (in the other peer's section) */
    uint64_t counter[XCC_COUNTERS]; /* private copies of the ring header, by enum xcc_counter
                                       (write_index, frames_written, ...; ring_class = the ring's
                                       number, as the formatter writes it); other ids unused */
    uint32_t slots_per_ring;
    uint32_t slot_bytes;
    int access;
} xcc_tx;

typedef struct xcc_rx {          /* consumer side of one ring in the other peer's section */
    uint8_t *ring;
    uint8_t *slots;
    uint8_t *consumer_line;      /* our consumer line (in our own section) */
    uint64_t counter[XCC_COUNTERS]; /* private copies of the consumer line, by enum xcc_counter
                                       (read_index, frames_accepted, ...); other ids unused */
    const uint8_t *producer_heartbeat; /* the producer's state line heartbeat; NULL: the management
                                          agent's ring 0 of peer 1 (the agent never beats) */
    uint64_t fault_heartbeat;    /* the producer's heartbeat when the open fault was first seen */
    int fault_open;              /* the write index is not credible: waiting for the producer's heal */
    uint32_t slots_per_ring;
    uint32_t slot_bytes;
    int access;
} xcc_rx;

/* Bind one ring side WITHOUT the attach protocol: addresses from the validated geometry g,
 * private copies taken from the region as found (ring_class = ring). For the shared vectors,
 * fuzzing and diagnosis of a stopped region; a running peer uses xcc_attach. XCC_EINVAL for a
 * peer or ring outside g. */
int xcc_tx_open(xcc_tx *tx, const xcc_region *r, const xcc_geometry *g, uint32_t producer,
                uint32_t ring);
int xcc_rx_open(xcc_rx *rx, const xcc_region *r, const xcc_geometry *g, uint32_t consumer,
                uint32_t ring);

/* Producer: place one frame (n bytes, 1 <= n <= slot_bytes-16). XCC_OK, XCC_FULL (counted in
 * frames_dropped_full; the caller applies the ring's flow-control policy) or XCC_EINVAL (size,
 * refused before the ring is touched). */
int xcc_offer(xcc_tx *tx, const void *frame, uint32_t n);
/* Producer: frames written but not yet consumed (W - Rd, Rd loaded with acquire); S or more
 * means an offer now would be FULL (an index that is not credible also reports S). */
uint64_t xcc_tx_backlog(const xcc_tx *tx);
/* Consumer: take one frame into buf (capacity cap >= slot_bytes-16). XCC_OK with *n set,
 * XCC_EMPTY (nothing to read, or a write index that is not credible while the producer's heal is
 * awaited: counted once in write_index_faults, the read index kept), XCC_CORRUPT (slot skipped,
 * counted), XCC_RESYNC (the heal is overdue, the reader skipped to the write index, counted),
 * XCC_EINVAL (cap). See region-spec.md, "Reading a frame". */
int xcc_poll(xcc_rx *rx, void *buf, uint32_t cap, uint32_t *n);
/* Count a frame dropped above the ring (undecodable, unknown kind, undeclared channel, ...). */
void xcc_rx_count_undeliverable(xcc_rx *rx);

/* Counters of one ring pair as the shared memory shows them: every counter of its ring header and
 * of the consumer line reading it, by enum xcc_counter (state-line ids stay 0). */
typedef struct xcc_ring_stats {
    uint64_t counter[XCC_COUNTERS];
} xcc_ring_stats;
/* Counter NAME (XCC_COUNTER_<NAME>) of a snapshot or of a ring side's private copies:
 * XCC_COUNTER_OF(stats, FRAMES_CORRUPT), XCC_COUNTER_OF(*rx, READ_INDEX). */
#define XCC_COUNTER_OF(x, NAME) ((x).counter[XCC_COUNTER_##NAME])
/* Stats of ring `ring` produced by peer `producer` (read from both sections), through the
 * counter table: a counter added to bridge/layout/region-layout.toml is read with no change. */
int xcc_ring_stats_read(const xcc_region *r, const xcc_geometry *geo, uint32_t producer,
                        uint32_t ring, xcc_ring_stats *out);
/* The generic counters view (as AeronStat reads Aeron's): counter `id` (enum xcc_counter, described
 * by xcc_counter_table) as it stands for `peer` (the state line's owner, the ring's producer, or
 * the consumer line's owner) and `ring` (ignored for a state-line counter). A counter added to
 * bridge/layout/region-layout.toml is read here with no change. Unsigned; 0 for an id, peer or
 * ring outside the region. */
uint64_t xcc_counter_read(const xcc_region *r, const xcc_geometry *geo, uint32_t id, uint32_t peer,
                          uint32_t ring);

/* ---- peers: attach, state, epoch, heartbeat ------------------------------------------------ */
enum xcc_attach_mode {
    XCC_ATTACH_CELL = 0,       /* the spec's attach: every ring and consumer line of the peer,
                                  and its state line (state, epoch, a first heartbeat) */
    XCC_ATTACH_MANAGEMENT = 1  /* peer 1's management agent (rtdroid CLI, holding flock
                                  <region>.lock): ring 0 and consumer line 0 only, no state line */
};

typedef struct xcc_peer {
    xcc_region *region;
    xcc_geometry geo;            /* private copy of the validated header */
    uint32_t self, other;
    int mode;
    uint32_t first_ring, last_ring;  /* rings this attachment owns (inclusive) */
    xcc_tx tx[XCC_MAX_RINGS];
    xcc_rx rx[XCC_MAX_RINGS];
    uint8_t *own_state, *other_state;
    uint32_t epoch;              /* our epoch after attach */
    uint32_t other_epoch_seen;
    uint64_t peer_restarts;      /* other peer's epoch changes seen by xcc_peer_check */
    uint64_t other_heartbeat_seen;
    uint64_t other_heartbeat_change_nanos;
    uint64_t heartbeat;          /* our heartbeat as we last wrote it */
    uint32_t state;              /* our state as we last set it (xcc_set_state; __atomic access) */
    uint64_t repairs;            /* fields xcc_heal has put back since attach */
    uint32_t header[XCC_HEADER_BYTES / 4]; /* the header as attach validated it (healed back) */
    uint64_t header_repairs;     /* header words healed, our state line's header_repairs */
} xcc_peer;

/* Validate the header, then run the attach procedure of region-spec.md for `mode`. */
int xcc_attach(xcc_peer *p, xcc_region *r, uint32_t self, int mode, char *err, size_t err_bytes);
/* Store our state (release), after our private copy. Cell mode only; no-op in management mode. */
void xcc_set_state(xcc_peer *p, uint32_t state);
/* Self-healing (region-spec.md, "A peer's own fields"): put back, from the private copies, every
 * field this attachment owns whose shared copy another cell changed: the state line (state,
 * epoch, heartbeat, header_repairs; cell mode), the region header (cell mode: every word that
 * differs from the header attach validated, the CRC last, counted in header_repairs) and, for
 * each owned ring from first_ring on, its ring header
 * (write_index, frames_written, frames_dropped_full, ring_class) and its consumer line
 * (read_index and its five counters). A state change in flight (xcc_set_state from another
 * thread) is left to its owner. Call it from the thread that runs the rings and the heartbeat,
 * at least every heartbeat; the Android cell passes 1 (ring 0 is the management agent's).
 * Returns the fields repaired, also added to p->repairs. No allocation, no locks. */
int xcc_heal(xcc_peer *p, uint32_t first_ring);
/* Advance our heartbeat (call at least every 100 ms while READY). */
void xcc_heartbeat(xcc_peer *p);
/* The other peer's state line (acquire). */
uint32_t xcc_other_state(const xcc_peer *p);
uint32_t xcc_other_epoch(const xcc_peer *p);
uint64_t xcc_other_heartbeat(const xcc_peer *p);
/* Watch the other peer: returns 1 if its epoch changed since the last call (a restart, counted
 * in peer_restarts), 0 otherwise. *unresponsive is set when its heartbeat has not moved for
 * timeout_nanos (measured with now_nanos, CLOCK_MONOTONIC). */
int xcc_peer_check(xcc_peer *p, uint64_t now_nanos, uint64_t timeout_nanos, int *unresponsive);
/* Data ring for an intent's sender priority (0..99): 1 + floor((99-p)(R-1)/100). */
uint32_t xcc_ring_for_priority(uint32_t rings_per_peer, uint32_t sender_priority);

/* ---- waiting ------------------------------------------------------------------------------- */
typedef struct xcc_backoff {
    uint32_t spin;               /* empty polls spent spinning */
    uint32_t yield;              /* then sched_yield polls */
    uint64_t min_sleep_nanos;    /* then nanosleep doubling from min to max */
    uint64_t max_sleep_nanos;
    uint32_t idle;               /* empty polls since the last frame */
    uint64_t sleep_nanos;        /* current sleep */
} xcc_backoff;
void xcc_backoff_init(xcc_backoff *b, uint32_t spin, uint32_t yield, uint64_t min_sleep_nanos,
                      uint64_t max_sleep_nanos);
void xcc_backoff_reset(xcc_backoff *b);  /* after any frame */
/* Wait once after an empty poll; returns 0 spun, 1 yielded, 2 slept. */
int xcc_backoff_idle(xcc_backoff *b);

uint64_t xcc_now_nanos(void); /* CLOCK_MONOTONIC */

/* ---- frames (nanopb, static bounds, no heap) ------------------------------------------------ */
typedef rtdroid_xcc_v1_Frame xcc_frame;
#define XCC_FRAME_ENCODE_BUFFER_BYTES rtdroid_xcc_v1_Frame_size
#define XCC_FRAME_CAP_BYTES 496u /* a frame in the default 512-byte slot; the codec's cap */
#define XCC_MAX_SENDER_PRIORITY 99u

/* Encode f (canonical form) into buf (cap bytes). Refuses a frame without body, a string that is
 * not valid UTF-8 or over its bound, or an encoding longer than min(cap, 496).
 * Errors start with the class of bridge/vectors/README.md (OVERSIZE, OVER_BOUND, ...). */
int xcc_frame_encode(const xcc_frame *f, uint8_t *buf, size_t cap, size_t *out_len, char *err,
                     size_t err_bytes);
/* Decode n bytes. The error string starts with the first defect's class (bridge/vectors/README.md):
 * OVERSIZE (> 496), TRUNCATED, BAD_VARINT, BAD_TAG, WRONG_WIRE_TYPE, DUPLICATE_FIELD, OVER_BOUND,
 * INVALID_UTF8 (also NUL, which nanopb's C strings cannot carry), NO_BODY (none or unknown kind).
 * Unknown fields (wire types 0, 1, 2, 5) are skipped; Control.kind values outside the enum and
 * sender_priority over 99 pass: the layer above decides. */
int xcc_frame_decode(const uint8_t *buf, size_t n, xcc_frame *f, char *err, size_t err_bytes);

#ifdef __cplusplus
}
#endif
#endif /* XCC_H */
