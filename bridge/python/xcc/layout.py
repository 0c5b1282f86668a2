"""The region's layout (bridge/docs/region-spec.md, layout version 1): its numbers and its geometry.

Every size, offset, bound, peer id, state and counter comes from the layout descriptor
(``bridge/layout/region-layout.toml``) through the generated module ``xcc._layout``: written by
``bridge/layout/generate.py`` on first import into ``build/python-gen/`` (keyed by the
descriptor's and the generator's SHA-256, like the protobuf module of ``xcc.gen``), never
committed. Its names: ``MAGIC``, ``HEADER_BYTES``, ``<FIELD>_OFFSET`` for every field
(``READ_INDEX_OFFSET``, ``HEADER_CRC32_OFFSET``, ``SECTION_OFFSET0_OFFSET``), ``RT_PEER``,
``STATE_READY``, ``STATE_NAMES``, ``PEER_NAMES``, ``HEADER_FIELDS`` and ``COUNTERS`` (the
counters view's table: id, label, line, offset, width, kind, meaning).

Private geometry: every offset a peer uses is computed from the validated header kept privately
at attach (``RegionLayout``) and ``index mod S``; nothing read from a slot or index is used as an
offset.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import struct
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path

from .generated import cache_root, import_generated

_MODULE = "xcc._layout"


def descriptor_path() -> Path:
    """``$XCC_LAYOUT`` or the repository's bridge/layout/region-layout.toml."""
    env = os.environ.get("XCC_LAYOUT")
    path = Path(env) if env else Path(__file__).resolve().parent.parent.parent / "layout" / "region-layout.toml"
    if not path.is_file():
        raise FileNotFoundError(f"the region layout descriptor is not at {path}; install the package editable "
                                f"from the repository (pip install -e bridge/python) or set XCC_LAYOUT")
    return path


def generate() -> Path:
    """The generated module's path for the current descriptor, generating it if needed."""
    descriptor = descriptor_path()
    generator = descriptor.with_name("generate.py")
    digest = hashlib.sha256(descriptor.read_bytes() + generator.read_bytes()).hexdigest()[:16]
    target = cache_root() / f"layout-{digest}" / "region_layout.py"
    if not target.is_file():
        spec = importlib.util.spec_from_file_location("xcc_layout_generate", generator)
        gen = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = gen  # dataclasses look their module up while it executes
        try:
            spec.loader.exec_module(gen)
        finally:
            del sys.modules[spec.name]
        gen.write_if_changed(target, gen.python(gen.load(descriptor)))
    return target


import_generated(_MODULE, generate)
from ._layout import *  # noqa: E402,F401,F403  the descriptor's constants and counter table
from ._layout import (COUNTERS, FIRST_SECTION_OFFSET, HEADER_BYTES, HEADER_CRC32_OFFSET,  # noqa: E402
                      HEADER_CRC_COVERED_BYTES, HEADER_FIELDS, LAYOUT_VERSION, LINE_BYTES, MAGIC, MAX_RINGS,
                      MAX_SLOT_BYTES, MAX_SLOTS, MIN_RINGS, MIN_SLOT_BYTES, MIN_SLOTS, PEER_COUNT,
                      RING_HEADER_BYTES, SLOT_BYTES_MULTIPLE_OF, SLOT_HEADER_BYTES, STATE_LINE_BYTES,
                      STATE_TABLE_OFFSET)

U64_MAX = (1 << 64) - 1
# struct format of the header fields, in order ("<IHHIIIIIIIIII")
HEADER_STRUCT = "<" + "".join({"u16": "H", "u32": "I", "u64": "Q"}[t] for _, _, t in HEADER_FIELDS)

# The fields each side keeps privately, in line order (the counters of its line).
PRODUCER_FIELDS = tuple(c.label for c in COUNTERS if c.line == "ring_header")
CONSUMER_FIELDS = tuple(c.label for c in COUNTERS if c.line == "consumer_line")
STATE_FIELDS = tuple(c.label for c in COUNTERS if c.line == "state_line")
# The counters of frames lost on the way (kind "drop", wherever they are kept): what the soak and
# the fault suite sum.
DROP_FIELDS = tuple(c.label for c in COUNTERS if c.kind == "drop")


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
        if not MIN_RINGS <= self.rings <= MAX_RINGS:
            raise RegionError("rings_per_peer", self.rings,
                              f"must be {MIN_RINGS}..{MAX_RINGS} (ring 0 management, 1.. data)")
        if not (MIN_SLOTS <= self.slots <= MAX_SLOTS and self.slots & (self.slots - 1) == 0):
            raise RegionError("slots_per_ring", self.slots, f"must be a power of two in {MIN_SLOTS}..{MAX_SLOTS}")
        if not (MIN_SLOT_BYTES <= self.slot_bytes <= MAX_SLOT_BYTES and self.slot_bytes % SLOT_BYTES_MULTIPLE_OF == 0):
            raise RegionError("slot_bytes", self.slot_bytes, f"must be a multiple of {SLOT_BYTES_MULTIPLE_OF} in "
                                                             f"{MIN_SLOT_BYTES}..{MAX_SLOT_BYTES}")

    @property
    def ring_bytes(self) -> int:
        return RING_HEADER_BYTES + self.slots * self.slot_bytes

    @property
    def section_bytes(self) -> int:
        return LINE_BYTES * self.rings + self.rings * self.ring_bytes

    @property
    def region_bytes(self) -> int:
        return FIRST_SECTION_OFFSET + PEER_COUNT * self.section_bytes

    @property
    def max_frame_bytes(self) -> int:
        return self.slot_bytes - SLOT_HEADER_BYTES

    def section_offset(self, peer: int) -> int:
        return FIRST_SECTION_OFFSET + peer * self.section_bytes

    def state_line(self, peer: int) -> int:
        return STATE_TABLE_OFFSET + peer * STATE_LINE_BYTES

    def consumer_line(self, consumer_peer: int, ring: int) -> int:
        """Consumer line of ``consumer_peer`` for the OTHER peer's ring ``ring``."""
        return self.section_offset(consumer_peer) + ring * LINE_BYTES

    def ring_header(self, producer_peer: int, ring: int) -> int:
        return self.section_offset(producer_peer) + LINE_BYTES * self.rings + ring * self.ring_bytes

    def slot(self, producer_peer: int, ring: int, index: int) -> int:
        return self.ring_header(producer_peer, ring) + RING_HEADER_BYTES + (index % self.slots) * self.slot_bytes

    def line(self, line: str, peer: int, ring: int = 0) -> int:
        """Where a counter's line is: the state line of ``peer``, the ring header ``peer`` produces,
        or the consumer line ``peer`` reads with."""
        if line == "state_line":
            return self.state_line(peer)
        if line == "ring_header":
            return self.ring_header(peer, ring)
        return self.consumer_line(peer, ring)


def header_crc(buf) -> int:
    return zlib.crc32(bytes(memoryview(buf)[0:HEADER_CRC_COVERED_BYTES]))


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
     section0, section1, section_bytes, crc) = struct.unpack_from(HEADER_STRUCT, mv, 0)
    if magic != MAGIC:
        raise RegionError("magic", f"0x{magic:08x}", f"must be 0x{MAGIC:08x} ('XCC1')")
    if version != LAYOUT_VERSION:
        raise RegionError("layout_version", version, f"this peer implements layout version {LAYOUT_VERSION}")
    if header_bytes != HEADER_BYTES:
        raise RegionError("header_bytes", header_bytes, f"must be {HEADER_BYTES}")
    expected_crc = zlib.crc32(bytes(mv[0:HEADER_CRC_COVERED_BYTES]))
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
