/* Single-producer/single-consumer rings ("Writing a frame", "Reading a frame" of region-spec.md).
 * No allocation, no locks; every address comes from the private geometry and index mod S. */
#include "xcc_internal.h"

/* Counter `id` of the line at `line` (xcc_counter_table: its offset and width), load-acquire. */
static uint64_t line_read(const uint8_t *line, uint32_t id, int access)
{
    const xcc_counter_desc *c = &xcc_counter_table[id];
    return c->width == 8 ? xcc_ld64_acquire(line + c->offset, access)
                         : xcc_ld32_acquire(line + c->offset, access);
}

/* The private copies of counters first..end-1 of `line`, as the region shows them. */
static void line_load(uint64_t *counter, const uint8_t *line, uint32_t first, uint32_t end, int access)
{
    for (uint32_t id = first; id < end; id++)
        counter[id] = line_read(line, id, access);
}

/* Self-healing of one line: every counter first..end-1, put back from its private copy. */
static int line_heal(const uint64_t *counter, uint8_t *line, uint32_t first, uint32_t end, int access)
{
    int n = 0;
    for (uint32_t id = first; id < end; id++) {
        const xcc_counter_desc *c = &xcc_counter_table[id];
        n += c->width == 8 ? xcc_republish64(line + c->offset, counter[id], access)
                           : xcc_republish32(line + c->offset, (uint32_t)counter[id], access);
    }
    return n;
}

/* `add` more of u64 counter `id` of `line`: the private copy, then the shared one. */
static inline void line_count(uint64_t *counter, uint8_t *line, uint32_t id, uint64_t add)
{
    xcc_count(line + xcc_counter_table[id].offset, &counter[id], add);
}

int xcc_offer(xcc_tx *tx, const void *frame, uint32_t n)
{
    if (n < 1 || n > tx->slot_bytes - XCC_SLOT_HEADER_BYTES)
        return XCC_EINVAL; /* refused before the ring is touched */
    uint64_t w = XCC_COUNTER_OF(*tx, WRITE_INDEX);
    uint64_t rd = xcc_ld64_acquire(tx->consumer_line + XCC_CONS_READ_INDEX, tx->access);
    /* rd > w or w - rd > S: the consumer's index is not credible; treat the ring as full. */
    if (rd > w || w - rd >= tx->slots_per_ring) {
        line_count(tx->counter, tx->ring, XCC_COUNTER_FRAMES_DROPPED_FULL, 1);
        return XCC_FULL;
    }
    uint8_t *slot = tx->slots + (size_t)(w & (tx->slots_per_ring - 1u)) * tx->slot_bytes;
    xcc_copy_to_region(slot + XCC_SLOT_HEADER_BYTES, frame, n, tx->access);
    xcc_st32(slot + XCC_SLOT_FRAME_BYTES, n);
    xcc_st32(slot + XCC_SLOT_FRAME_CRC32, xcc_crc32(frame, n));
    xcc_st64(slot + XCC_SLOT_INDEX, w);
    /* Everything in the slot is written before the index that publishes it. */
    xcc_st64_release(tx->ring + XCC_RING_WRITE_INDEX, w + 1, tx->access);
    XCC_COUNTER_OF(*tx, WRITE_INDEX) = w + 1;
    line_count(tx->counter, tx->ring, XCC_COUNTER_FRAMES_WRITTEN, 1);
    return XCC_OK;
}

uint64_t xcc_tx_backlog(const xcc_tx *tx)
{
    uint64_t rd = xcc_ld64_acquire(tx->consumer_line + XCC_CONS_READ_INDEX, tx->access);
    uint64_t w = XCC_COUNTER_OF(*tx, WRITE_INDEX);
    if (rd > w || w - rd > tx->slots_per_ring)
        return tx->slots_per_ring;
    return w - rd;
}

static void publish_read(xcc_rx *rx, uint64_t rd)
{
    XCC_COUNTER_OF(*rx, READ_INDEX) = rd;
    xcc_st64_release(rx->consumer_line + XCC_CONS_READ_INDEX, rd, rx->access);
}

static int incredible(const xcc_rx *rx, uint64_t w)
{
    uint64_t rd = XCC_COUNTER_OF(*rx, READ_INDEX);
    return w < rd || w - rd > rx->slots_per_ring;
}

/* An incredible write index was just read: opens the fault (counted once) and says whether the
 * producer's heal is overdue: it has beaten twice since the fault was seen (it heals in every
 * pass that beats, so a whole heal has run between them), or it has no heartbeat to wait on. A producer that does not
 * beat (stopped, or dead) is waited for: it sends nothing meanwhile, and a restart beats. */
static int heal_due(xcc_rx *rx)
{
    uint64_t beat = rx->producer_heartbeat ? xcc_ld64_acquire(rx->producer_heartbeat, rx->access) : 0;
    if (!rx->fault_open) {
        rx->fault_open = 1;
        rx->fault_heartbeat = beat;
        line_count(rx->counter, rx->consumer_line, XCC_COUNTER_WRITE_INDEX_FAULTS, 1);
    }
    return !rx->producer_heartbeat || beat - rx->fault_heartbeat >= 2;
}

int xcc_poll(xcc_rx *rx, void *buf, uint32_t cap, uint32_t *n)
{
    uint32_t max_frame = rx->slot_bytes - XCC_SLOT_HEADER_BYTES;
    if (cap < max_frame)
        return XCC_EINVAL;
    uint64_t w = xcc_ld64_acquire(rx->ring + XCC_RING_WRITE_INDEX, rx->access);
    if (incredible(rx, w)) {
        /* Moved backwards or too far ahead: a fault; the frames written before it are read once
         * the producer puts its index back. Only an overdue heal is resynchronised to. */
        if (!heal_due(rx))
            return XCC_EMPTY;
        w = xcc_ld64_acquire(rx->ring + XCC_RING_WRITE_INDEX, rx->access); /* after the beats */
        if (incredible(rx, w)) {
            rx->fault_open = 0;
            line_count(rx->counter, rx->consumer_line, XCC_COUNTER_RESYNCS, 1);
            publish_read(rx, w);
            return XCC_RESYNC;
        }
    }
    rx->fault_open = 0;
    uint64_t rd = XCC_COUNTER_OF(*rx, READ_INDEX);
    if (w == rd)
        return XCC_EMPTY;
    const uint8_t *slot = rx->slots + (size_t)(rd & (rx->slots_per_ring - 1u)) * rx->slot_bytes;
    uint8_t hdr[XCC_SLOT_HEADER_BYTES];
    xcc_copy_from_region(hdr, slot, XCC_SLOT_HEADER_BYTES, rx->access);
    uint32_t frame_bytes, crc;
    uint64_t slot_index;
    memcpy(&frame_bytes, hdr + XCC_SLOT_FRAME_BYTES, 4);
    memcpy(&crc, hdr + XCC_SLOT_FRAME_CRC32, 4);
    memcpy(&slot_index, hdr + XCC_SLOT_INDEX, 8);
    int ok = frame_bytes >= 1 && frame_bytes <= max_frame && slot_index == rd;
    if (ok) {
        /* Copy first, then check the CRC over the private copy: the producer cannot change
         * what was validated. */
        xcc_copy_from_region(buf, slot + XCC_SLOT_HEADER_BYTES, frame_bytes, rx->access);
        ok = xcc_crc32(buf, frame_bytes) == crc;
    }
    publish_read(rx, rd + 1);
    if (!ok) {
        line_count(rx->counter, rx->consumer_line, XCC_COUNTER_FRAMES_CORRUPT, 1);
        return XCC_CORRUPT;
    }
    line_count(rx->counter, rx->consumer_line, XCC_COUNTER_FRAMES_ACCEPTED, 1);
    *n = frame_bytes;
    return XCC_OK;
}

void xcc_rx_count_undeliverable(xcc_rx *rx)
{
    line_count(rx->counter, rx->consumer_line, XCC_COUNTER_FRAMES_UNDELIVERABLE, 1);
}

/* Self-healing of one ring side: every field it owns, put back from its private copy. */
static int heal_tx(xcc_tx *tx)
{
    return line_heal(tx->counter, tx->ring, XCC_RING_HEADER_FIRST_COUNTER, XCC_RING_HEADER_END_COUNTER,
                     tx->access);
}

static int heal_rx(xcc_rx *rx)
{
    return line_heal(rx->counter, rx->consumer_line, XCC_CONSUMER_LINE_FIRST_COUNTER,
                     XCC_CONSUMER_LINE_END_COUNTER, rx->access);
}

static uint8_t *consumer_line(uint8_t *base, const xcc_geometry *g, uint32_t peer, uint32_t ring)
{
    return base + g->section_offset[peer] + (size_t)ring * XCC_LINE_BYTES;
}

static uint8_t *ring_header(uint8_t *base, const xcc_geometry *g, uint32_t peer, uint32_t ring)
{
    return base + g->section_offset[peer] + (size_t)XCC_LINE_BYTES * g->rings_per_peer +
           (size_t)ring * (XCC_LINE_BYTES + (size_t)g->slots_per_ring * g->slot_bytes);
}

/* Bind without attach: addresses from the geometry, private copies from the region as found. */
int xcc_tx_open(xcc_tx *tx, const xcc_region *r, const xcc_geometry *g, uint32_t producer,
                uint32_t ring)
{
    if (producer >= XCC_PEER_COUNT || ring >= g->rings_per_peer)
        return XCC_EINVAL;
    tx->ring = ring_header(r->base, g, producer, ring);
    tx->slots = tx->ring + XCC_LINE_BYTES;
    tx->consumer_line = consumer_line(r->base, g, 1u - producer, ring);
    tx->slots_per_ring = g->slots_per_ring;
    tx->slot_bytes = g->slot_bytes;
    tx->access = r->access;
    line_load(tx->counter, tx->ring, XCC_RING_HEADER_FIRST_COUNTER, XCC_RING_HEADER_END_COUNTER, r->access);
    XCC_COUNTER_OF(*tx, RING_CLASS) = ring;
    return XCC_OK;
}

int xcc_rx_open(xcc_rx *rx, const xcc_region *r, const xcc_geometry *g, uint32_t consumer,
                uint32_t ring)
{
    if (consumer >= XCC_PEER_COUNT || ring >= g->rings_per_peer)
        return XCC_EINVAL;
    rx->ring = ring_header(r->base, g, 1u - consumer, ring);
    rx->slots = rx->ring + XCC_LINE_BYTES;
    rx->consumer_line = consumer_line(r->base, g, consumer, ring);
    rx->slots_per_ring = g->slots_per_ring;
    rx->slot_bytes = g->slot_bytes;
    rx->access = r->access;
    line_load(rx->counter, rx->consumer_line, XCC_CONSUMER_LINE_FIRST_COUNTER, XCC_CONSUMER_LINE_END_COUNTER,
              r->access);
    /* Ring 0 of peer 1's section is the management agent's, which has no heartbeat. */
    rx->producer_heartbeat = consumer == 0u && ring == 0u ? NULL
        : r->base + XCC_STATE_TABLE_OFFSET + (size_t)(1u - consumer) * XCC_LINE_BYTES + XCC_STATE_OFF_HEARTBEAT;
    rx->fault_open = 0;
    rx->fault_heartbeat = 0;
    return XCC_OK;
}

uint64_t xcc_counter_read(const xcc_region *r, const xcc_geometry *g, uint32_t id, uint32_t peer,
                          uint32_t ring)
{
    if (id >= XCC_COUNTERS || peer >= XCC_PEER_COUNT || ring >= g->rings_per_peer)
        return 0;
    const xcc_counter_desc *c = &xcc_counter_table[id];
    const uint8_t *line;
    if (c->line == XCC_IN_STATE_LINE)
        line = r->base + XCC_STATE_TABLE_OFFSET + (size_t)peer * XCC_LINE_BYTES;
    else if (c->line == XCC_IN_RING_HEADER)
        line = ring_header(r->base, g, peer, ring);
    else
        line = consumer_line(r->base, g, peer, ring);
    return line_read(line, id, r->access);
}

int xcc_ring_stats_read(const xcc_region *r, const xcc_geometry *g, uint32_t producer,
                        uint32_t ring, xcc_ring_stats *s)
{
    if (producer >= XCC_PEER_COUNT || ring >= g->rings_per_peer)
        return XCC_EINVAL;
    const uint8_t *rh = ring_header(r->base, g, producer, ring);
    const uint8_t *cl = consumer_line(r->base, g, 1u - producer, ring);
    memset(s, 0, sizeof *s);
    line_load(s->counter, rh, XCC_RING_HEADER_FIRST_COUNTER, XCC_RING_HEADER_END_COUNTER, r->access);
    line_load(s->counter, cl, XCC_CONSUMER_LINE_FIRST_COUNTER, XCC_CONSUMER_LINE_END_COUNTER, r->access);
    return XCC_OK;
}

/* ---- attach (region-spec.md, "Attach, restart and resynchronisation") -------------------- */

int xcc_attach(xcc_peer *p, xcc_region *r, uint32_t self, int mode, char *err, size_t eb)
{
    if (self >= XCC_PEER_COUNT) {
        xcc_errf(err, eb, "peer id %u violates rule peer id is 0 or 1", self);
        return XCC_EINVAL;
    }
    if (mode != XCC_ATTACH_CELL && mode != XCC_ATTACH_MANAGEMENT) {
        xcc_errf(err, eb, "attach mode %d is neither cell (0) nor management (1)", mode);
        return XCC_EINVAL;
    }
    if (mode == XCC_ATTACH_MANAGEMENT && self != 1) {
        xcc_errf(err, eb, "management attach needs peer 1 (the root cell), got peer %u", self);
        return XCC_EINVAL;
    }
    memset(p, 0, sizeof *p);
    int rc = xcc_validate_header(r->base, r->mapped_bytes, &p->geo, err, eb);
    if (rc != XCC_OK)
        return rc;
    const xcc_geometry *g = &p->geo;
    p->region = r;
    p->self = self;
    p->other = 1u - self;
    p->mode = mode;
    if (mode == XCC_ATTACH_MANAGEMENT) {
        p->first_ring = p->last_ring = XCC_MANAGEMENT_RING;
    } else {
        /* the spec's attach touches every consumer line, also peer 1's line 0 that the management
         * agent uses between exchanges (it re-attaches under its flock for each exchange) */
        p->first_ring = 0;
        p->last_ring = g->rings_per_peer - 1u;
    }
    p->own_state = r->base + XCC_STATE_TABLE_OFFSET + (size_t)self * XCC_LINE_BYTES;
    p->other_state = r->base + XCC_STATE_TABLE_OFFSET + (size_t)p->other * XCC_LINE_BYTES;

    if (mode == XCC_ATTACH_CELL) {
        xcc_set_state(p, XCC_STATE_INITIALISING);
        p->epoch = xcc_ld32(p->own_state + XCC_STATE_OFF_EPOCH) + 1u;
        xcc_st32(p->own_state + XCC_STATE_OFF_EPOCH, p->epoch);
        p->heartbeat = xcc_ld64(p->own_state + XCC_STATE_OFF_HEARTBEAT);
        p->header_repairs = xcc_ld64(p->own_state + XCC_STATE_OFF_HEADER_REPAIRS);
        for (uint32_t word = 0; word < XCC_HEADER_BYTES / 4u; word++)
            p->header[word] = xcc_ld32(r->base + 4u * word);
    }
    for (uint32_t ring = 0; ring < g->rings_per_peer; ring++) {
        /* our own section: the previous incarnation's indices and counters carry on (step 3) */
        xcc_tx_open(&p->tx[ring], r, g, self, ring);
        xcc_rx_open(&p->rx[ring], r, g, self, ring);
        if (ring < p->first_ring || ring > p->last_ring)
            continue; /* not ours: leave it to its owner */
        /* skip frames sent to our previous incarnation */
        xcc_rx *rx = &p->rx[ring];
        uint64_t w_other = xcc_ld64_acquire(rx->ring + XCC_RING_WRITE_INDEX, r->access);
        uint64_t rd = XCC_COUNTER_OF(*rx, READ_INDEX);
        if (w_other >= rd && w_other - rd <= g->slots_per_ring)
            line_count(rx->counter, rx->consumer_line, XCC_COUNTER_STALE_SKIPPED, w_other - rd);
        XCC_COUNTER_OF(*rx, READ_INDEX) = w_other;
        xcc_st64_release(rx->consumer_line + XCC_CONS_READ_INDEX, w_other, r->access);
    }
    p->other_epoch_seen = xcc_other_epoch(p);
    p->other_heartbeat_seen = xcc_other_heartbeat(p);
    p->other_heartbeat_change_nanos = xcc_now_nanos();
    if (mode == XCC_ATTACH_CELL) {
        xcc_heartbeat(p); /* the first beat, so a watcher sees a live peer at once */
        xcc_set_state(p, XCC_STATE_READY);
    }
    return XCC_OK;
}

void xcc_set_state(xcc_peer *p, uint32_t state)
{
    if (p->mode != XCC_ATTACH_CELL)
        return;
    /* the private copy first: a heal that sees the shared copy differ then sees the new state
     * here and leaves the change in flight to us */
    __atomic_store_n(&p->state, state, __ATOMIC_RELEASE);
    xcc_st32_release(p->own_state + XCC_STATE_OFF_STATE, state, p->region->access);
}

/* The header is derived from the board file and never changes while a cell is attached: every
 * word that differs from the one attach validated is put back, the CRC last with release, so a
 * reader that sees the CRC right sees the words it covers (region-spec.md, "Healing the header"). */
static int heal_header(xcc_peer *p)
{
    int access = p->region->access, n = 0;
    const uint32_t crc_word = XCC_HDR_HEADER_CRC32 / 4u;
    for (uint32_t word = 0; word < XCC_HEADER_BYTES / 4u; word++)
        if (word != crc_word)
            n += xcc_republish32(p->region->base + 4u * word, p->header[word], access);
    return n + xcc_republish32(p->region->base + XCC_HDR_HEADER_CRC32, p->header[crc_word], access);
}

int xcc_heal(xcc_peer *p, uint32_t first_ring)
{
    int access = p->region->access, n = 0;
    if (p->mode == XCC_ATTACH_CELL) {
        uint8_t *line = p->own_state;
        uint32_t own = __atomic_load_n(&p->state, __ATOMIC_ACQUIRE);
        /* differs, and our copy did not move while we looked: a scribble, not our own write in
         * flight (if we set the state between this check and the repair, the next heal puts the
         * new state back) */
        if (xcc_ld32_acquire(line + XCC_STATE_OFF_STATE, access) != own &&
            __atomic_load_n(&p->state, __ATOMIC_ACQUIRE) == own)
            n += xcc_republish32(line + XCC_STATE_OFF_STATE, own, access);
        n += xcc_republish32(line + XCC_STATE_OFF_EPOCH, p->epoch, access);
        n += xcc_republish64(line + XCC_STATE_OFF_HEARTBEAT, p->heartbeat, access);
        n += xcc_republish64(line + XCC_STATE_OFF_HEADER_REPAIRS, p->header_repairs, access);
        int words = heal_header(p);
        if (words > 0) {
            p->header_repairs += (uint64_t)words;
            xcc_st64_release(line + XCC_STATE_OFF_HEADER_REPAIRS, p->header_repairs, access);
            n += words;
        }
    }
    for (uint32_t ring = first_ring > p->first_ring ? first_ring : p->first_ring; ring <= p->last_ring;
         ring++)
        n += heal_tx(&p->tx[ring]) + heal_rx(&p->rx[ring]);
    p->repairs += (uint64_t)n;
    return n;
}

void xcc_heartbeat(xcc_peer *p)
{
    if (p->mode != XCC_ATTACH_CELL)
        return;
    p->heartbeat++;
    xcc_st64_release(p->own_state + XCC_STATE_OFF_HEARTBEAT, p->heartbeat, p->region->access);
}

uint32_t xcc_other_state(const xcc_peer *p)
{
    return xcc_ld32_acquire(p->other_state + XCC_STATE_OFF_STATE, p->region->access);
}

uint32_t xcc_other_epoch(const xcc_peer *p)
{
    return xcc_ld32_acquire(p->other_state + XCC_STATE_OFF_EPOCH, p->region->access);
}

uint64_t xcc_other_heartbeat(const xcc_peer *p)
{
    return xcc_ld64_acquire(p->other_state + XCC_STATE_OFF_HEARTBEAT, p->region->access);
}

int xcc_peer_check(xcc_peer *p, uint64_t now, uint64_t timeout_nanos, int *unresponsive)
{
    int restarted = 0;
    uint32_t e = xcc_other_epoch(p);
    if (e != p->other_epoch_seen) {
        p->other_epoch_seen = e;
        p->peer_restarts++;
        restarted = 1;
    }
    uint64_t hb = xcc_other_heartbeat(p);
    if (hb != p->other_heartbeat_seen || restarted) {
        p->other_heartbeat_seen = hb;
        p->other_heartbeat_change_nanos = now;
    }
    if (unresponsive)
        *unresponsive = now > p->other_heartbeat_change_nanos &&
                        now - p->other_heartbeat_change_nanos >= timeout_nanos;
    return restarted;
}

uint32_t xcc_ring_for_priority(uint32_t rings_per_peer, uint32_t sender_priority)
{
    if (sender_priority > XCC_MAX_SENDER_PRIORITY)
        sender_priority = XCC_MAX_SENDER_PRIORITY;
    return 1u + ((XCC_MAX_SENDER_PRIORITY - sender_priority) * (rings_per_peer - 1u)) / 100u;
}
