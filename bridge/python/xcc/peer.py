"""A peer of the region: its attachment, the state line it owns, and its rings (region-spec.md,
"Writing a frame", "Reading a frame", "Attach, restart and resynchronisation", "A peer's own fields").

A region is mapped from a file (a /dev/shm file on the host board, the ivshmem BAR
``/sys/bus/pci/devices/<bdf>/resource2`` in a QEMU guest, or a physical range of /dev/mem) or
wrapped around a bytearray (tests, vectors). Peers attach (``attach_cell``, ``attach_management``)
and then offer and poll frames. The producer writes the slot (frame bytes, then its header)
*before* the single 8-byte store of ``write_index`` that publishes it; the consumer loads
``write_index`` before it reads the slot, copies the slot into private memory and checks the CRC
over that copy, so a torn or concurrently rewritten slot is detected and counted, never delivered
(memory ordering: see ``xcc.memory``).

Every field a side owns is kept privately, by its label in the descriptor's counter table: each
operation updates the private copy, then stores it; ``heal`` puts back, field by field from that
table, whatever another cell changed.
"""

from __future__ import annotations

import struct
import time
import zlib

from .dump import dump
from .layout import (ANDROID_PEER, COUNTERS, FRAME_BYTES_OFFSET, FRAME_CRC32_OFFSET, HEADER_BYTES,
                     HEADER_CRC32_OFFSET, MANAGEMENT_RING,
                     PEER_TIMEOUT_MS, RT_PEER, SLOT_HEADER_BYTES, SLOT_INDEX_OFFSET, STATE_INITIALISING,
                     STATE_NAMES, STATE_READY, U64_MAX, RegionLayout, validate_header)
from .memory import Mapping, Words, as_mapping

POLL_FRAME, POLL_EMPTY, POLL_CORRUPT, POLL_RESYNC = "frame", "empty", "corrupt", "resync"

_LINE_COUNTERS = {line: tuple(c for c in COUNTERS if c.line == line)
                  for line in ("state_line", "ring_header", "consumer_line")}
_OFFSET = {c.label: c.offset for c in COUNTERS}
_WIDTH = {c.label: c.width for c in COUNTERS}


class _Line:
    """The private truth of one line a side owns: every counter of it, by label."""

    def __init__(self, words: Words, base: int, line: str):
        self._w = words
        self._where = {c.label: (base + c.offset, c.width) for c in _LINE_COUNTERS[line]}
        self.own = {label: words.get(off, width) for label, (off, width) in self._where.items()}

    def store(self, label: str, value: int) -> None:
        self.own[label] = value
        off, width = self._where[label]
        if width == 8:
            self._w.set_u64(off, value)
        else:
            self._w.set_u32(off, value)

    def count(self, label: str, delta: int = 1) -> None:
        self.store(label, (self.own[label] + delta) & U64_MAX)

    def heal(self) -> int:
        """Put back every field whose shared copy differs from the private one; the fields repaired."""
        return sum(self._w.republish(off, width, self.own[label]) for label, (off, width) in self._where.items())


class Producer:
    """Writes ring ``ring`` of ``peer``'s own section (single producer); owns its ring header."""

    def __init__(self, region: "Region", ring: int):
        lay = region.layout
        self._w = region.words
        self._raw = region.words.raw
        self.layout = lay
        self.peer = region.peer_id
        self.ring = ring
        self._consumer_read = lay.consumer_line(1 - self.peer, ring) + _OFFSET["read_index"]
        # kept privately from here on; the ring class is the ring's number, whatever is found
        self._line = _Line(self._w, lay.ring_header(self.peer, ring), "ring_header")
        self._line.own["ring_class"] = ring

    @property
    def write_index(self) -> int:
        return self._line.own["write_index"]

    def counters(self) -> dict:
        """This producer's own values of its ring header (what ``heal`` puts back)."""
        return dict(self._line.own)

    def space(self) -> int:
        """Free slots, or 0 when the consumer's read index is not credible."""
        rd = self._w.u64(self._consumer_read)
        w = self.write_index
        if rd > w or w - rd > self.layout.slots:
            return 0
        return self.layout.slots - (w - rd)

    def offer(self, frame: bytes) -> bool:
        """Place one encoded frame; False (and frames_dropped_full += 1) when the ring is full."""
        n = len(frame)
        if not 1 <= n <= self.layout.max_frame_bytes:
            raise ValueError(f"frame of {n} bytes does not fit a slot: 1..{self.layout.max_frame_bytes} "
                             f"(slot_bytes - 16)")
        if self.space() == 0:
            self._line.count("frames_dropped_full")
            return False
        w = self.write_index
        slot = self.layout.slot(self.peer, self.ring, w)
        self._raw[slot + SLOT_HEADER_BYTES:slot + SLOT_HEADER_BYTES + n] = frame
        self._w.set_u32(slot + FRAME_BYTES_OFFSET, n)
        self._w.set_u32(slot + FRAME_CRC32_OFFSET, zlib.crc32(frame))
        self._w.set_u64(slot + SLOT_INDEX_OFFSET, w)
        # The publishing store: one aligned 8-byte store after everything it announces (TSO).
        self._line.store("write_index", (w + 1) & U64_MAX)
        self._line.count("frames_written")
        return True

    def heal(self) -> int:
        """Put back every field of the ring header whose shared copy differs from this producer's
        (write index, its counters, ring class = the ring's number). A moved write index would
        otherwise make the consumer resynchronise to it and this producer refuse every offer as
        "not credible". Returns the fields repaired."""
        return self._line.heal()


class Consumer:
    """Reads ring ``ring`` of the OTHER peer's section, treating everything in it as hostile.

    Its consumer line (read index and counters) is kept privately, stored after each change and
    put back by ``heal`` where another cell changed it.
    """

    def __init__(self, region: "Region", ring: int, read_index: int | None = None):
        lay = region.layout
        self._w = region.words
        self._raw = region.words.raw
        self.layout = lay
        self.peer = region.peer_id
        self.producer_peer = 1 - region.peer_id
        self.ring = ring
        self._producer_write = lay.ring_header(self.producer_peer, ring) + _OFFSET["write_index"]
        # Ring 0 of the Android peer's section is the management agent's, which has no heartbeat.
        self._producer_beat = (None if self.producer_peer == ANDROID_PEER and ring == MANAGEMENT_RING
                               else lay.state_line(self.producer_peer) + _OFFSET["heartbeat"])
        self._fault_beat: int | None = None  # the producer's heartbeat when an open write-index fault was seen
        self._line = _Line(self._w, lay.consumer_line(self.peer, ring), "consumer_line")
        if read_index is not None:
            self._line.own["read_index"] = read_index
        self.last_result = POLL_EMPTY

    @property
    def read_index(self) -> int:
        return self._line.own["read_index"]

    @read_index.setter
    def read_index(self, value: int) -> None:
        self._line.own["read_index"] = value

    def pending(self) -> int:
        w = self._w.u64(self._producer_write)
        return w - self.read_index if self.read_index <= w <= self.read_index + self.layout.slots else 0

    def _advance(self, to: int) -> None:
        self._line.store("read_index", to & U64_MAX)

    def _incredible(self, w: int) -> bool:
        rd = self.read_index
        return w < rd or w - rd > self.layout.slots

    def _heal_due(self) -> bool:
        """An incredible write index was just read: opens the fault (counted once) and says whether
        the producer's heal is overdue: it has beaten twice since the fault was seen (it heals in
        every pass that beats, so a whole heal has run between them), or it has no heartbeat to wait on. A producer that
        does not beat (stopped, or dead) is waited for: it sends nothing meanwhile, a restart beats."""
        beat = 0 if self._producer_beat is None else self._w.u64(self._producer_beat)
        if self._fault_beat is None:
            self._fault_beat = beat
            self._line.count("write_index_faults")
        return self._producer_beat is None or (beat - self._fault_beat) & U64_MAX >= 2

    def poll_result(self) -> tuple[str, bytes | None]:
        """One step of the spec's reader: (POLL_FRAME, bytes) or (POLL_EMPTY|POLL_CORRUPT|POLL_RESYNC,
        None). An incredible write index is a fault: POLL_EMPTY, nothing read, the read index kept
        until the producer heals it, or POLL_RESYNC once that heal is overdue (region-spec.md)."""
        w = self._w.u64(self._producer_write)
        if self._incredible(w):
            if not self._heal_due():
                self.last_result = POLL_EMPTY
                return POLL_EMPTY, None
            w = self._w.u64(self._producer_write)  # read after the beats: a heal shows
            if self._incredible(w):
                self._fault_beat = None
                self._line.count("resyncs")
                self._advance(w)
                self.last_result = POLL_RESYNC
                return POLL_RESYNC, None
        self._fault_beat = None
        rd = self.read_index
        if w == rd:
            self.last_result = POLL_EMPTY
            return POLL_EMPTY, None
        slot = self.layout.slot(self.producer_peer, self.ring, rd)
        n, crc, slot_index = struct.unpack("<IIQ", bytes(self._raw[slot:slot + SLOT_HEADER_BYTES]))
        frame = None
        if 1 <= n <= self.layout.max_frame_bytes and slot_index == rd:
            copy = bytes(self._raw[slot + SLOT_HEADER_BYTES:slot + SLOT_HEADER_BYTES + n])  # private copy
            if zlib.crc32(copy) == crc:
                frame = copy
        self._advance(rd + 1)
        if frame is None:
            self._line.count("frames_corrupt")
            self.last_result = POLL_CORRUPT
            return POLL_CORRUPT, None
        self._line.count("frames_accepted")
        self.last_result = POLL_FRAME
        return POLL_FRAME, frame

    def poll(self) -> bytes | None:
        """The next valid frame, or None (empty, or a corrupt slot / resync, both counted)."""
        return self.poll_result()[1]

    def count_undeliverable(self) -> None:
        """A frame the ring accepted but the layer above dropped (undecodable, unknown kind, ...)."""
        self._line.count("frames_undeliverable")

    def skip_stale(self) -> None:
        """Attach step 4: frames sent to the previous incarnation are skipped (counted when the
        indices are credible), not delivered late."""
        w_other = self._w.u64(self._producer_write)
        rd = self.read_index
        if rd <= w_other <= rd + self.layout.slots:
            self._line.count("stale_skipped", w_other - rd)
        self._advance(w_other)

    def counters(self) -> dict:
        """This consumer's own values of its line (what ``heal`` puts back)."""
        return dict(self._line.own)

    def heal(self) -> int:
        """Put back every field of the consumer line whose shared copy differs from this consumer's.
        A moved read index would otherwise make the producer treat the ring as full. Returns the
        fields repaired."""
        return self._line.heal()


class Region:
    """A validated region seen by one peer. Build with attach_cell, attach_management or open_region.

    What the peer owns (region-spec.md, "A peer's own fields") is kept privately: its state line
    (attach_cell only) and the producer and consumer of each ring it attached for. ``heal`` puts
    back every shared copy another cell changed and counts it in ``repairs``.
    """

    def __init__(self, mapping: Mapping, layout: RegionLayout, peer_id: int, owns_mapping: bool):
        if peer_id not in (RT_PEER, ANDROID_PEER):
            raise ValueError(f"peer id {peer_id} is not 0 (RT cell) or 1 (Android cell)")
        self.mapping = mapping
        self.layout = layout
        self.peer_id = peer_id
        self.words = Words(mapping.buf)
        self._owns_mapping = owns_mapping
        self.peer_restarts = 0
        self.repairs = 0
        # the state line's private truth; owned (healed) once attach_cell has run its protocol
        self._owns_state_line = False
        self._state_line = _Line(self.words, layout.state_line(peer_id), "state_line")
        # the header as validated: a cell heals it word by word (it never changes while attached)
        self._header = [self.words.get(4 * w, 4) for w in range(HEADER_BYTES // 4)]
        self._producers: dict[int, Producer] = {}
        self._consumers: dict[int, Consumer] = {}
        self._owned_rings = range(0)
        self._peer_epoch_seen = self.peer_epoch(1 - peer_id)
        self._peer_heartbeat_seen = self.peer_heartbeat(1 - peer_id)
        self._peer_heartbeat_at = time.monotonic()

    # state table
    def _peer_field(self, peer: int, label: str) -> int:
        return self.words.get(self.layout.state_line(peer) + _OFFSET[label], _WIDTH[label])

    def peer_state(self, peer: int) -> int:
        return self._peer_field(peer, "state")

    def peer_epoch(self, peer: int) -> int:
        return self._peer_field(peer, "epoch")

    def peer_heartbeat(self, peer: int) -> int:
        return self._peer_field(peer, "heartbeat")

    def set_state(self, state: int) -> None:
        if state not in STATE_NAMES:
            raise ValueError(f"state {state} is not one of {STATE_NAMES}")
        self._state_line.store("state", state)  # the private copy first, as in Java and C

    def heartbeat(self) -> None:
        self._state_line.count("heartbeat")

    def _new_epoch(self) -> None:
        self._state_line.store("epoch", (self._state_line.own["epoch"] + 1) & 0xFFFFFFFF)

    def _own(self, rings: range, state_line: bool) -> None:
        """Take ownership (for heal) of the producer and consumer of ``rings`` and of the state line."""
        self._owned_rings = rings
        self._owns_state_line = state_line
        for ring in rings:
            self.producer(ring)
            self.consumer(ring)

    def heal(self, first_ring: int) -> int:
        """Self-healing (region-spec.md, "A peer's own fields"): put back, from the private copies,
        every field this peer owns whose shared copy another cell changed: its state line
        (attach_cell only) and, for each owned ring from ``first_ring`` on, the producer's ring
        header and the consumer's line. Call it from the thread that runs those rings, at least
        every heartbeat (heal first, then beat: a scribbled heartbeat is counted). Returns the
        fields repaired, also added to ``repairs``; the caller logs a repair. (Python sets the state
        from the healing thread only, so no state change can be in flight while it looks.)"""
        n = 0
        if self._owns_state_line:
            header = self._heal_header()
            if header:
                self._state_line.count("header_repairs", header)
            n += header + self._state_line.heal()
        for ring in self._owned_rings:
            if ring >= first_ring:
                n += self._producers[ring].heal() + self._consumers[ring].heal()
        self.repairs += n
        return n

    def _heal_header(self) -> int:
        """Put back every header word that differs from the one validated at attach, the CRC last
        (region-spec.md, "Healing the header"); the words repaired."""
        crc_word = HEADER_CRC32_OFFSET // 4
        order = [w for w in range(len(self._header)) if w != crc_word] + [crc_word]
        return sum(self.words.republish(4 * w, 4, self._header[w]) for w in order)

    @property
    def header_repairs(self) -> int:
        """Header words this cell has put back, in all its attachments (its state line's count)."""
        return self._state_line.own["header_repairs"]

    def observe_peer(self) -> bool:
        """True once per epoch change of the other peer (a restart); counted in peer_restarts."""
        epoch = self.peer_epoch(1 - self.peer_id)
        if epoch != self._peer_epoch_seen:
            self._peer_epoch_seen = epoch
            self.peer_restarts += 1
            return True
        return False

    def peer_responsive(self, timeout_s: float = PEER_TIMEOUT_MS / 1000) -> bool:
        """False when the other peer's heartbeat has not moved for timeout_s (spec: peer_timeout)."""
        hb = self.peer_heartbeat(1 - self.peer_id)
        now = time.monotonic()
        if hb != self._peer_heartbeat_seen:
            self._peer_heartbeat_seen = hb
            self._peer_heartbeat_at = now
        return now - self._peer_heartbeat_at < timeout_s

    def producer(self, ring: int) -> Producer:
        """The producer of ``ring`` (this peer's own section); the same instance each call."""
        self._check_ring(ring)
        if ring not in self._producers:
            self._producers[ring] = Producer(self, ring)
        return self._producers[ring]

    def consumer(self, ring: int, read_index: int | None = None) -> Consumer:
        """The consumer of the other peer's ``ring``; the same instance each call, unless
        ``read_index`` is given: then a new one starting there replaces it."""
        self._check_ring(ring)
        if ring not in self._consumers or read_index is not None:
            self._consumers[ring] = Consumer(self, ring, read_index)
        return self._consumers[ring]

    def _check_ring(self, ring: int) -> None:
        if not 0 <= ring < self.layout.rings:
            raise ValueError(f"ring {ring} does not exist: this region has rings 0..{self.layout.rings - 1}")

    def dump(self) -> dict:
        return dump(self.mapping.buf)

    def close(self) -> None:
        self.words.release()
        if self._owns_mapping:
            self.mapping.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def data_ring_for(sender_priority: int, rings: int) -> int:
    """Data ring of an intent: 1 + floor((99 - p)(R - 1)/100); priorities outside 0..99 are refused."""
    if not 0 <= sender_priority <= 99:
        raise ValueError(f"sender_priority {sender_priority} is outside 0..99")
    return 1 + (99 - sender_priority) * (rings - 1) // 100


def open_region(target, peer_id: int) -> Region:
    """Map and validate without the attach protocol (tools, vectors): no state or index is written."""
    mapping, owned = as_mapping(target)
    try:
        layout = validate_header(mapping.buf)
    except Exception:
        if owned:
            mapping.close()
        raise
    return Region(mapping, layout, peer_id, owned)


def attach_cell(target, peer_id: int, owns_management_ring: bool = True) -> Region:
    """The spec's attach: validate, INITIALISING, epoch += 1, skip stale frames, READY, heartbeat += 1.

    With ``owns_management_ring=False`` (the Android proxy service on peer 1) consumer line 0 is
    left to the management agent.
    """
    region = open_region(target, peer_id)
    rings = range(0 if owns_management_ring else 1, region.layout.rings)
    region.set_state(STATE_INITIALISING)
    region._new_epoch()
    for ring in rings:
        region.consumer(ring).skip_stale()
    region._own(rings, state_line=True)
    region.set_state(STATE_READY)
    region.heartbeat()  # the first heartbeat: the cell is visibly alive from the moment it is READY
    return region


def attach_management(target, peer_id: int = ANDROID_PEER) -> Region:
    """The management agent's attach: owns ring 0 and consumer line 0 only; never touches state/epoch.

    Answers addressed to an earlier agent (e.g. one that timed out) are skipped and counted in
    stale_skipped. The caller holds flock(<region>.lock) for the whole exchange (xcc.mgmt does).
    """
    region = open_region(target, peer_id)
    region.consumer(MANAGEMENT_RING).skip_stale()
    region._own(range(MANAGEMENT_RING, MANAGEMENT_RING + 1), state_line=False)
    return region
