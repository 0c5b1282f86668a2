"""The cross-context region of bridge/docs/region-spec.md (layout version 1), for host tooling.

A region is mapped from a file (a /dev/shm file on the host board, the ivshmem BAR
``/sys/bus/pci/devices/<bdf>/resource2`` in a QEMU guest, or a physical range of /dev/mem) or
wrapped around a bytearray (tests, vectors). The board tooling formats it (``format``); peers
attach (``attach_cell``, ``attach_management``) and then offer and poll frames.

Memory ordering, honestly: Python has no acquire/release operations. This module relies on
x86-64's total store order, under which stores become visible to other CPUs in program order and
loads are not reordered with older loads. Every field is written with one aligned store of its
natural width through a ``memoryview`` cast to ``'Q'`` (u64) or ``'I'`` (u32), so an index is never
seen half-written; and the producer writes the slot (frame bytes, then its header) *before* the
single 8-byte store of ``write_index`` that publishes it. The consumer loads ``write_index`` before
it reads the slot, copies the slot into private memory and checks the CRC over that copy, so a
torn or concurrently rewritten slot is detected and counted, never delivered. On a weakly ordered
CPU (arm64) this module is NOT a correct peer under concurrency; there the Java and C
implementations (which use real acquire/release) are the peers, and this module is for tooling
and tests. The /dev/mem backend performs only aligned accesses of 4 and 8 bytes for fields; slot
contents are copied with memcpy-like slice copies.

Private geometry: every offset is computed from the validated header kept privately at attach
(``RegionLayout``) and ``index mod S``; nothing read from a slot or index is used as an offset.
"""

from __future__ import annotations

import mmap
import os
import struct
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

MAGIC = 0x31434358  # b"XCC1" little-endian
# ivshmem-v2 protocol type of a device carrying this layout (region-spec.md, "On Jailhouse").
IVSHMEM_PROTOCOL = 0x5843
LAYOUT_VERSION = 1
HEADER_BYTES = 128
STATE_TABLE_OFFSET = 128
SECTIONS_OFFSET = 256
PEER_COUNT = 2
LINE_BYTES = 64
SLOT_HEADER_BYTES = 16

RT_PEER = 0
ANDROID_PEER = 1
MANAGEMENT_RING = 0

STATE_RESET, STATE_INITIALISING, STATE_READY, STATE_STOPPING, STATE_FAILED = range(5)
STATE_NAMES = {0: "RESET", 1: "INITIALISING", 2: "READY", 3: "STOPPING", 4: "FAILED"}

# header field offsets
H_MAGIC, H_VERSION, H_HEADER_BYTES, H_REGION_BYTES, H_PEER_COUNT = 0, 4, 6, 8, 12
H_RINGS, H_SLOTS, H_SLOT_BYTES, H_STATE_TABLE, H_SECTION0, H_SECTION1 = 16, 20, 24, 28, 32, 36
H_SECTION_BYTES, H_CRC = 40, 44
# state line
S_STATE, S_EPOCH, S_HEARTBEAT = 0, 4, 8
# consumer line
C_READ_INDEX, C_ACCEPTED, C_CORRUPT, C_RESYNCS, C_UNDELIVERABLE, C_STALE = 0, 8, 16, 24, 32, 40
CONSUMER_FIELDS = ("read_index", "frames_accepted", "frames_corrupt", "resyncs",
                   "frames_undeliverable", "stale_skipped")
# ring header
R_WRITE_INDEX, R_WRITTEN, R_DROPPED_FULL, R_CLASS = 0, 8, 16, 24
PRODUCER_FIELDS = ("write_index", "frames_written", "frames_dropped_full", "ring_class")

U64_MAX = (1 << 64) - 1


class RegionError(ValueError):
    """The region cannot be used: ``field``, ``value`` and ``rule`` say why."""

    def __init__(self, field: str, value, rule: str):
        super().__init__(f"region header field {field} = {value}: {rule}")
        self.field = field
        self.value = value
        self.rule = rule


@dataclass(frozen=True)
class RegionLayout:
    rings: int
    slots: int
    slot_bytes: int

    def __post_init__(self):
        if not 2 <= self.rings <= 8:
            raise RegionError("rings_per_peer", self.rings, "must be 2..8 (ring 0 management, 1.. data)")
        if not (4 <= self.slots <= 4096 and self.slots & (self.slots - 1) == 0):
            raise RegionError("slots_per_ring", self.slots, "must be a power of two in 4..4096")
        if not (128 <= self.slot_bytes <= 4096 and self.slot_bytes % 64 == 0):
            raise RegionError("slot_bytes", self.slot_bytes, "must be a multiple of 64 in 128..4096")

    @property
    def ring_bytes(self) -> int:
        return LINE_BYTES + self.slots * self.slot_bytes

    @property
    def section_bytes(self) -> int:
        return LINE_BYTES * self.rings + self.rings * self.ring_bytes

    @property
    def region_bytes(self) -> int:
        return SECTIONS_OFFSET + PEER_COUNT * self.section_bytes

    @property
    def max_frame_bytes(self) -> int:
        return self.slot_bytes - SLOT_HEADER_BYTES

    def section_offset(self, peer: int) -> int:
        return SECTIONS_OFFSET + peer * self.section_bytes

    def state_line(self, peer: int) -> int:
        return STATE_TABLE_OFFSET + peer * LINE_BYTES

    def consumer_line(self, consumer_peer: int, ring: int) -> int:
        """Consumer line of ``consumer_peer`` for the OTHER peer's ring ``ring``."""
        return self.section_offset(consumer_peer) + ring * LINE_BYTES

    def ring_header(self, producer_peer: int, ring: int) -> int:
        return self.section_offset(producer_peer) + LINE_BYTES * self.rings + ring * self.ring_bytes

    def slot(self, producer_peer: int, ring: int, index: int) -> int:
        return self.ring_header(producer_peer, ring) + LINE_BYTES + (index % self.slots) * self.slot_bytes


# --- raw access -----------------------------------------------------------------------------

class _Words:
    """Aligned u32/u64 access to a buffer: each access is one store or load of its width."""

    def __init__(self, buf):
        whole = memoryview(buf).cast("B")
        # a validated region_bytes is a multiple of 64; a ragged tail of the mapping is never used
        self.raw = whole[:len(whole) - len(whole) % 8]
        whole.release()
        self.q = self.raw.cast("Q")
        self.i = self.raw.cast("I")

    def u64(self, off: int) -> int:
        return self.q[off >> 3]

    def set_u64(self, off: int, value: int) -> None:
        self.q[off >> 3] = value & U64_MAX

    def add_u64(self, off: int, delta: int = 1) -> None:
        self.q[off >> 3] = (self.q[off >> 3] + delta) & U64_MAX

    def u32(self, off: int) -> int:
        return self.i[off >> 2]

    def set_u32(self, off: int, value: int) -> None:
        self.i[off >> 2] = value & 0xFFFFFFFF

    def republish_u64(self, off: int, own: int) -> int:
        """Self-healing: store ``own`` where the shared copy differs; 1 if it was repaired."""
        if self.q[off >> 3] == own:
            return 0
        self.q[off >> 3] = own
        return 1

    def republish_u32(self, off: int, own: int) -> int:
        if self.i[off >> 2] == own:
            return 0
        self.i[off >> 2] = own
        return 1

    def release(self) -> None:
        self.q.release()
        self.i.release()
        self.raw.release()


def header_crc(buf) -> int:
    return zlib.crc32(bytes(memoryview(buf)[0:H_CRC]))


def _write_header(buf, layout: RegionLayout) -> None:
    header = struct.pack("<IHHIIIIIIIII", MAGIC, LAYOUT_VERSION, HEADER_BYTES, layout.region_bytes,
                         PEER_COUNT, layout.rings, layout.slots, layout.slot_bytes, STATE_TABLE_OFFSET,
                         layout.section_offset(0), layout.section_offset(1), layout.section_bytes)
    buf[0:H_CRC] = header
    struct.pack_into("<I", buf, H_CRC, zlib.crc32(header))


def format_buffer(buf, layout: RegionLayout) -> None:
    """Format ``buf`` (at least region_bytes long): header, zero state table and sections, ring classes."""
    mv = memoryview(buf).cast("B")
    if len(mv) < layout.region_bytes:
        raise RegionError("region_bytes", layout.region_bytes, f"needs a mapping of at least that; "
                                                               f"the mapping has {len(mv)} bytes")
    mv[0:layout.region_bytes] = bytes(layout.region_bytes)
    _write_header(mv, layout)
    for peer in range(PEER_COUNT):
        for ring in range(layout.rings):
            struct.pack_into("<I", mv, layout.ring_header(peer, ring) + R_CLASS, ring)


def format_image(rings: int, slots: int, slot_bytes: int) -> bytearray:
    layout = RegionLayout(rings, slots, slot_bytes)
    buf = bytearray(layout.region_bytes)
    format_buffer(buf, layout)
    return buf


def format_in_place(path, rings: int = 3, slots: int = 64, slot_bytes: int = 512) -> RegionLayout:
    """Format the region at the start of an existing file that a peer may already map (a running
    VM's ivshmem backing): the file is neither truncated nor resized, and the header, whose CRC
    makes a half-written one invalid, is written last, so a peer polling for it never attaches
    to a region still being formatted."""
    layout = RegionLayout(rings, slots, slot_bytes)
    image = format_image(rings, slots, slot_bytes)
    fd = os.open(path, os.O_RDWR)
    try:
        size = os.fstat(fd).st_size
        if size < layout.region_bytes:
            raise RegionError("region_bytes", layout.region_bytes, f"does not fit the file {path} ({size} bytes)")
        os.pwrite(fd, bytes(image[HEADER_BYTES:]), HEADER_BYTES)
        os.pwrite(fd, bytes(image[:HEADER_BYTES]), 0)
    finally:
        os.close(fd)
    return layout


def format(path, rings: int = 3, slots: int = 64, slot_bytes: int = 512) -> RegionLayout:  # noqa: A001
    """Create (or truncate) the file ``path`` and format a region in it (the board's job)."""
    layout = RegionLayout(rings, slots, slot_bytes)
    image = format_image(rings, slots, slot_bytes)
    with open(path, "wb") as f:  # O_TRUNC: a stale region of another geometry never survives
        f.write(image)
    os.chmod(path, 0o660)
    return layout


def validate_header(buf) -> RegionLayout:
    """Validate the header at offset 0 of ``buf``; return the private geometry or raise RegionError.

    Every view of ``buf`` taken here is released before returning or raising: a RegionError's
    traceback keeps this frame alive, and an mmap with a view still exported cannot be closed
    (``BufferError: cannot close exported pointers exist`` would replace the RegionError)."""
    with memoryview(buf) as whole, whole.cast("B") as mv:
        return _validate_header(mv)


def _validate_header(mv: memoryview) -> RegionLayout:
    mapped = len(mv)
    if mapped < HEADER_BYTES:
        raise RegionError("region_bytes", mapped, f"the mapping is smaller than the {HEADER_BYTES}-byte header")
    (magic, version, header_bytes, region_bytes, peer_count, rings, slots, slot_bytes, state_table,
     section0, section1, section_bytes, crc) = struct.unpack_from("<IHHIIIIIIIIII", mv, 0)
    if magic != MAGIC:
        raise RegionError("magic", f"0x{magic:08x}", f"must be 0x{MAGIC:08x} ('XCC1')")
    if version != LAYOUT_VERSION:
        raise RegionError("layout_version", version, f"this peer implements layout version {LAYOUT_VERSION}")
    if header_bytes != HEADER_BYTES:
        raise RegionError("header_bytes", header_bytes, f"must be {HEADER_BYTES}")
    expected_crc = zlib.crc32(bytes(mv[0:H_CRC]))
    if crc != expected_crc:
        raise RegionError("header_crc32", f"0x{crc:08x}", f"must be the CRC-32 of bytes 0..43 (0x{expected_crc:08x})")
    if peer_count != PEER_COUNT:
        raise RegionError("peer_count", peer_count, f"must be {PEER_COUNT}")
    layout = RegionLayout(rings, slots, slot_bytes)  # raises naming rings_per_peer/slots_per_ring/slot_bytes
    if state_table != STATE_TABLE_OFFSET:
        raise RegionError("state_table_offset", state_table, f"must be {STATE_TABLE_OFFSET}")
    if section_bytes != layout.section_bytes:
        raise RegionError("section_bytes", section_bytes, f"must be 64*R + R*(64 + S*slot_bytes) = {layout.section_bytes}")
    if section0 != layout.section_offset(0):
        raise RegionError("section_offset[0]", section0, f"must be {layout.section_offset(0)}")
    if section1 != layout.section_offset(1):
        raise RegionError("section_offset[1]", section1, f"must be 256 + section_bytes = {layout.section_offset(1)}")
    if region_bytes < layout.region_bytes:
        raise RegionError("region_bytes", region_bytes, f"must be >= 256 + 2*section_bytes = {layout.region_bytes}")
    if region_bytes > mapped:
        raise RegionError("region_bytes", region_bytes, f"must be <= the mapped size ({mapped} bytes)")
    return layout


# --- mapping ---------------------------------------------------------------------------------

class Mapping:
    """A mapped region: a whole file (/dev/shm file, PCI BAR resource2), a /dev/mem range, or a buffer."""

    def __init__(self, buf, closer=None, name: str = "<buffer>"):
        self.buf = buf
        self.name = name
        self._closer = closer

    @classmethod
    def file(cls, path, writable: bool = True) -> "Mapping":
        path = str(path)
        fd = os.open(path, os.O_RDWR if writable else os.O_RDONLY)
        try:
            size = os.fstat(fd).st_size
            if size == 0:  # sysfs resource files report their size; /dev/shm files must be formatted
                raise RegionError("region_bytes", 0, f"{path} is empty; was the region formatted?")
            mm = mmap.mmap(fd, size, mmap.MAP_SHARED,
                           mmap.PROT_READ | (mmap.PROT_WRITE if writable else 0))
        finally:
            os.close(fd)
        return cls(mm, mm.close, path)

    @classmethod
    def physical(cls, phys_addr: int, size_bytes: int, dev_mem: str = "/dev/mem") -> "Mapping":
        """A physical range (Xen reserved region); phys_addr must be page aligned."""
        if phys_addr % mmap.ALLOCATIONGRANULARITY:
            raise ValueError(f"physical address 0x{phys_addr:x} is not aligned to {mmap.ALLOCATIONGRANULARITY}")
        fd = os.open(dev_mem, os.O_RDWR | os.O_SYNC)
        try:
            mm = mmap.mmap(fd, size_bytes, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE, offset=phys_addr)
        finally:
            os.close(fd)
        return cls(mm, mm.close, f"{dev_mem}@0x{phys_addr:x}")

    def close(self) -> None:
        if self._closer is not None:
            self._closer()
            self._closer = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _as_mapping(target, writable: bool = True) -> tuple[Mapping, bool]:
    if isinstance(target, Mapping):
        return target, False
    if isinstance(target, (str, Path)):
        return Mapping.file(target, writable), True
    return Mapping(target), False


# --- rings -----------------------------------------------------------------------------------

POLL_FRAME, POLL_EMPTY, POLL_CORRUPT, POLL_RESYNC = "frame", "empty", "corrupt", "resync"


class Producer:
    """Writes ring ``ring`` of ``peer``'s own section (single producer).

    The truth of the ring header is kept privately (region-spec.md, "A peer's own fields"): each
    operation updates the private copy, then stores it; ``heal`` puts back what another cell changed.
    """

    def __init__(self, region: "Region", ring: int):
        lay = region.layout
        self._w = region.words
        self._raw = region.words.raw
        self.layout = lay
        self.peer = region.peer_id
        self.ring = ring
        self._header = lay.ring_header(self.peer, ring)
        self._consumer_read = lay.consumer_line(1 - self.peer, ring) + C_READ_INDEX
        # kept privately from here on
        self.write_index = self._w.u64(self._header + R_WRITE_INDEX)
        self.frames_written = self._w.u64(self._header + R_WRITTEN)
        self.frames_dropped_full = self._w.u64(self._header + R_DROPPED_FULL)

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
            self.frames_dropped_full = (self.frames_dropped_full + 1) & U64_MAX
            self._w.set_u64(self._header + R_DROPPED_FULL, self.frames_dropped_full)
            return False
        w = self.write_index
        slot = self.layout.slot(self.peer, self.ring, w)
        self._raw[slot + SLOT_HEADER_BYTES:slot + SLOT_HEADER_BYTES + n] = frame
        self._w.set_u32(slot + 0, n)
        self._w.set_u32(slot + 4, zlib.crc32(frame))
        self._w.set_u64(slot + 8, w)
        # The publishing store: one aligned 8-byte store after everything it announces (TSO).
        self.write_index = (w + 1) & U64_MAX
        self._w.set_u64(self._header + R_WRITE_INDEX, self.write_index)
        self.frames_written = (self.frames_written + 1) & U64_MAX
        self._w.set_u64(self._header + R_WRITTEN, self.frames_written)
        return True

    def heal(self) -> int:
        """Put back every field of the ring header whose shared copy differs from this producer's
        (write index, frames written, frames dropped full, ring class = the ring's number). A moved
        write index would otherwise make the consumer resynchronise to it and this producer refuse
        every offer as "not credible". Returns the fields repaired."""
        w, h = self._w, self._header
        return (w.republish_u64(h + R_WRITE_INDEX, self.write_index)
                + w.republish_u64(h + R_WRITTEN, self.frames_written)
                + w.republish_u64(h + R_DROPPED_FULL, self.frames_dropped_full)
                + w.republish_u32(h + R_CLASS, self.ring))


class Consumer:
    """Reads ring ``ring`` of the OTHER peer's section, treating everything in it as hostile.

    Its consumer line (read index and five counters) is kept privately, stored after each change
    and put back by ``heal`` where another cell changed it.
    """

    def __init__(self, region: "Region", ring: int, read_index: int | None = None):
        lay = region.layout
        self._region = region
        self._w = region.words
        self._raw = region.words.raw
        self.layout = lay
        self.peer = region.peer_id
        self.producer_peer = 1 - region.peer_id
        self.ring = ring
        self._line = lay.consumer_line(self.peer, ring)
        self._producer_write = lay.ring_header(self.producer_peer, ring) + R_WRITE_INDEX
        self.read_index = self._w.u64(self._line + C_READ_INDEX) if read_index is None else read_index
        # private copies of the line's counters, in CONSUMER_FIELDS order after read_index
        self._counts = [self._w.u64(self._line + 8 * i) for i in range(1, len(CONSUMER_FIELDS))]
        self.last_result = POLL_EMPTY

    def pending(self) -> int:
        w = self._w.u64(self._producer_write)
        return w - self.read_index if self.read_index <= w <= self.read_index + self.layout.slots else 0

    def _advance(self, to: int) -> None:
        self.read_index = to & U64_MAX
        self._w.set_u64(self._line + C_READ_INDEX, self.read_index)

    def _count(self, offset: int) -> None:
        i = offset // 8 - 1
        self._counts[i] = (self._counts[i] + 1) & U64_MAX
        self._w.set_u64(self._line + offset, self._counts[i])

    def poll_result(self) -> tuple[str, bytes | None]:
        """One step of the spec's reader: (POLL_FRAME, bytes) or (POLL_EMPTY|POLL_CORRUPT|POLL_RESYNC, None)."""
        w = self._w.u64(self._producer_write)
        rd = self.read_index
        if w == rd:
            self.last_result = POLL_EMPTY
            return POLL_EMPTY, None
        if w < rd or w - rd > self.layout.slots:
            self._count(C_RESYNCS)
            self._advance(w)
            self.last_result = POLL_RESYNC
            return POLL_RESYNC, None
        slot = self.layout.slot(self.producer_peer, self.ring, rd)
        n, crc, slot_index = struct.unpack("<IIQ", bytes(self._raw[slot:slot + SLOT_HEADER_BYTES]))
        frame = None
        if 1 <= n <= self.layout.max_frame_bytes and slot_index == rd:
            copy = bytes(self._raw[slot + SLOT_HEADER_BYTES:slot + SLOT_HEADER_BYTES + n])  # private copy
            if zlib.crc32(copy) == crc:
                frame = copy
        self._advance(rd + 1)
        if frame is None:
            self._count(C_CORRUPT)
            self.last_result = POLL_CORRUPT
            return POLL_CORRUPT, None
        self._count(C_ACCEPTED)
        self.last_result = POLL_FRAME
        return POLL_FRAME, frame

    def poll(self) -> bytes | None:
        """The next valid frame, or None (empty, or a corrupt slot / resync, both counted)."""
        return self.poll_result()[1]

    def count_undeliverable(self) -> None:
        """A frame the ring accepted but the layer above dropped (undecodable, unknown kind, ...)."""
        self._count(C_UNDELIVERABLE)

    def counters(self) -> dict:
        """This consumer's own values of its line (what ``heal`` puts back)."""
        return dict(zip(CONSUMER_FIELDS, [self.read_index, *self._counts]))

    def heal(self) -> int:
        """Put back every field of the consumer line whose shared copy differs from this consumer's.
        A moved read index would otherwise make the producer treat the ring as full. Returns the
        fields repaired."""
        n = self._w.republish_u64(self._line + C_READ_INDEX, self.read_index)
        for i, own in enumerate(self._counts, start=1):
            n += self._w.republish_u64(self._line + 8 * i, own)
        return n


# --- region ----------------------------------------------------------------------------------

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
        self.words = _Words(mapping.buf)
        self._owns_mapping = owns_mapping
        self.peer_restarts = 0
        self.repairs = 0
        line = layout.state_line(peer_id)
        # the state line's private truth; owned (healed) once attach_cell has run its protocol
        self._owns_state_line = False
        self._state = self.words.u32(line + S_STATE)
        self._epoch = self.words.u32(line + S_EPOCH)
        self._heartbeat = self.words.u64(line + S_HEARTBEAT)
        self._producers: dict[int, Producer] = {}
        self._consumers: dict[int, Consumer] = {}
        self._owned_rings = range(0)
        self._peer_epoch_seen = self.peer_epoch(1 - peer_id)
        self._peer_heartbeat_seen = self.peer_heartbeat(1 - peer_id)
        self._peer_heartbeat_at = time.monotonic()

    # state table
    def peer_state(self, peer: int) -> int:
        return self.words.u32(self.layout.state_line(peer) + S_STATE)

    def peer_epoch(self, peer: int) -> int:
        return self.words.u32(self.layout.state_line(peer) + S_EPOCH)

    def peer_heartbeat(self, peer: int) -> int:
        return self.words.u64(self.layout.state_line(peer) + S_HEARTBEAT)

    def set_state(self, state: int) -> None:
        if state not in STATE_NAMES:
            raise ValueError(f"state {state} is not one of {STATE_NAMES}")
        self._state = state  # the private copy first, as in Java and C
        self.words.set_u32(self.layout.state_line(self.peer_id) + S_STATE, state)

    def heartbeat(self) -> None:
        self._heartbeat = (self._heartbeat + 1) & U64_MAX
        self.words.set_u64(self.layout.state_line(self.peer_id) + S_HEARTBEAT, self._heartbeat)

    def _new_epoch(self) -> None:
        self._epoch = (self._epoch + 1) & 0xFFFFFFFF
        self.words.set_u32(self.layout.state_line(self.peer_id) + S_EPOCH, self._epoch)

    def _own(self, rings: range, state_line: bool) -> None:
        """Take ownership (for heal) of the producer and consumer of ``rings`` and of the state line."""
        self._owned_rings = rings
        self._owns_state_line = state_line
        for ring in rings:
            self.producer(ring)
            self.consumer(ring)

    def heal(self, first_ring: int) -> int:
        """Self-healing (region-spec.md, "A peer's own fields"): put back, from the private copies,
        every field this peer owns whose shared copy another cell changed: its state line (state,
        epoch, heartbeat; attach_cell only) and, for each owned ring from ``first_ring`` on, the
        producer's ring header and the consumer's line. Call it from the thread that runs those
        rings, at least every heartbeat (heal first, then beat: a scribbled heartbeat is counted).
        Returns the fields repaired, also added to ``repairs``; the caller logs a repair."""
        n = 0
        if self._owns_state_line:
            line = self.layout.state_line(self.peer_id)
            own = self._state
            # a state that changed while this looked is the owner's own write in flight
            if self.words.u32(line + S_STATE) != own and self._state == own:
                n += self.words.republish_u32(line + S_STATE, own)
            n += self.words.republish_u32(line + S_EPOCH, self._epoch)
            n += self.words.republish_u64(line + S_HEARTBEAT, self._heartbeat)
        for ring in self._owned_rings:
            if ring >= first_ring:
                n += self._producers[ring].heal() + self._consumers[ring].heal()
        self.repairs += n
        return n

    def observe_peer(self) -> bool:
        """True once per epoch change of the other peer (a restart); counted in peer_restarts."""
        epoch = self.peer_epoch(1 - self.peer_id)
        if epoch != self._peer_epoch_seen:
            self._peer_epoch_seen = epoch
            self.peer_restarts += 1
            return True
        return False

    def peer_responsive(self, timeout_s: float = 1.0) -> bool:
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
    mapping, owned = _as_mapping(target)
    try:
        layout = validate_header(mapping.buf)
    except Exception:
        if owned:
            mapping.close()
        raise
    return Region(mapping, layout, peer_id, owned)


def _skip_stale(region: Region, ring: int) -> None:
    lay, w = region.layout, region.words
    line = lay.consumer_line(region.peer_id, ring)
    w_other = w.u64(lay.ring_header(1 - region.peer_id, ring) + R_WRITE_INDEX)
    rd = w.u64(line + C_READ_INDEX)
    if rd <= w_other <= rd + lay.slots:
        w.add_u64(line + C_STALE, w_other - rd)
    w.set_u64(line + C_READ_INDEX, w_other)


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
        _skip_stale(region, ring)
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
    _skip_stale(region, MANAGEMENT_RING)
    region._own(range(MANAGEMENT_RING, MANAGEMENT_RING + 1), state_line=False)
    return region


def dump(target) -> dict:
    """Every header field, both state lines and every ring's and consumer line's counters.

    A path is mapped read-only: dumping never writes to the region.
    """
    mapping, owned = _as_mapping(target, writable=False)
    try:
        buf = mapping.buf
        layout = validate_header(buf)
        words = _Words(buf)
        try:
            return _dump(buf, layout, words)
        finally:
            words.release()
    finally:
        if owned:
            mapping.close()


def _dump(buf, layout: RegionLayout, words: _Words) -> dict:
    fields = struct.unpack_from("<IHHIIIIIIIIII", buf, 0)
    names = ("magic", "layout_version", "header_bytes", "region_bytes", "peer_count", "rings_per_peer",
             "slots_per_ring", "slot_bytes", "state_table_offset", "section_offset[0]",
             "section_offset[1]", "section_bytes", "header_crc32")
    out = {"header": dict(zip(names, fields)), "peers": []}
    for peer in range(PEER_COUNT):
        line = layout.state_line(peer)
        state = words.u32(line + S_STATE)
        entry = {
            "peer": peer,
            "cell": "rt" if peer == RT_PEER else "android",
            "state": STATE_NAMES.get(state, f"INVALID({state})"),
            "epoch": words.u32(line + S_EPOCH),
            "heartbeat": words.u64(line + S_HEARTBEAT),
            "rings": [],
        }
        for ring in range(layout.rings):
            hdr = layout.ring_header(peer, ring)
            cons = layout.consumer_line(1 - peer, ring)
            entry["rings"].append({
                "ring": ring,
                "producer": {
                    "write_index": words.u64(hdr + R_WRITE_INDEX),
                    "frames_written": words.u64(hdr + R_WRITTEN),
                    "frames_dropped_full": words.u64(hdr + R_DROPPED_FULL),
                    "ring_class": words.u32(hdr + R_CLASS),
                },
                "consumer": {name: words.u64(cons + 8 * i) for i, name in enumerate(CONSUMER_FIELDS)},
            })
        out["peers"].append(entry)
    return out
