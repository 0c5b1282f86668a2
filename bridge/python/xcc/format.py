"""Formatting a region: the board's job (region-spec.md, "Who formats the region"), never a peer's."""

from __future__ import annotations

import os
import struct
import zlib

from .layout import (HEADER_BYTES, HEADER_CRC32_OFFSET, HEADER_STRUCT, LAYOUT_VERSION, MAGIC, PEER_COUNT,
                     RING_CLASS_OFFSET, STATE_TABLE_OFFSET, RegionError, RegionLayout)


def header_bytes(layout: RegionLayout) -> bytes:
    """The header a region of this geometry carries: bytes 0..HEADER_BYTES-1, CRC included."""
    fields = struct.pack(HEADER_STRUCT[:-1], MAGIC, LAYOUT_VERSION, HEADER_BYTES, layout.region_bytes,
                         PEER_COUNT, layout.rings, layout.slots, layout.slot_bytes, STATE_TABLE_OFFSET,
                         layout.section_offset(0), layout.section_offset(1), layout.section_bytes)
    assert len(fields) == HEADER_CRC32_OFFSET
    crc = struct.pack("<I", zlib.crc32(fields))
    return fields + crc + bytes(HEADER_BYTES - HEADER_CRC32_OFFSET - 4)


def format_buffer(buf, layout: RegionLayout) -> None:
    """Format ``buf`` (at least region_bytes long): header, zero state table and sections, ring classes."""
    mv = memoryview(buf).cast("B")
    if len(mv) < layout.region_bytes:
        raise RegionError("region_bytes", layout.region_bytes, f"needs a mapping of at least that; "
                                                               f"the mapping has {len(mv)} bytes")
    mv[0:layout.region_bytes] = bytes(layout.region_bytes)
    mv[0:HEADER_BYTES] = header_bytes(layout)
    for peer in range(PEER_COUNT):
        for ring in range(layout.rings):
            struct.pack_into("<I", mv, layout.ring_header(peer, ring) + RING_CLASS_OFFSET, ring)


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
