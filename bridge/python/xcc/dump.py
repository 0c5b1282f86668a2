"""The region as the tools see it: every counter through one generic view, and the dump.

The counters are the descriptor's table (``xcc.layout.COUNTERS``: every field of a state line, a
ring header and a consumer line), read for each place they stand: each peer's state line, each
ring header a peer produces, each consumer line a peer reads with. ``counters`` lists them as
AeronStat lists Aeron's (id, label, where, value); ``dump`` arranges the same values by peer and
ring: the JSON ``rtdroid stats`` prints. A counter added to the descriptor appears in both with no
change here.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from .layout import COUNTERS, HEADER_FIELDS, HEADER_STRUCT, PEER_COUNT, PEER_NAMES, STATE_NAMES, RegionLayout, \
    validate_header
from .memory import Words, as_mapping


@dataclass(frozen=True)
class CounterValue:
    id: int
    label: str
    kind: str  # state, index, count, drop, setting
    line: str  # state_line, ring_header, consumer_line
    peer: int  # the peer that writes it (the consumer, for a consumer line)
    ring: int | None  # None on a state line
    value: int

    @property
    def name(self) -> str:
        return f"{self.label} (peer {self.peer}{'' if self.ring is None else f', ring {self.ring}'})"


def read_counters(words: Words, layout: RegionLayout) -> list[CounterValue]:
    out = []
    for peer in range(PEER_COUNT):
        for c in COUNTERS:
            rings = [None] if c.line == "state_line" else range(layout.rings)
            for ring in rings:
                off = layout.line(c.line, peer, ring or 0) + c.offset
                out.append(CounterValue(c.id, c.label, c.kind, c.line, peer, ring, words.get(off, c.width)))
    return out


def _with_region(target, read):
    """Map ``target`` read-only (dumping never writes to the region), validate it, read it."""
    mapping, owned = as_mapping(target, writable=False)
    try:
        buf = mapping.buf
        layout = validate_header(buf)
        words = Words(buf)
        try:
            return read(buf, layout, words)
        finally:
            words.release()
    finally:
        if owned:
            mapping.close()


def counters(target) -> list[CounterValue]:
    """Every counter of the region (a path, a Mapping or a buffer), by peer, counter and ring."""
    return _with_region(target, lambda buf, layout, words: read_counters(words, layout))


def dump(target) -> dict:
    """Every header field, both state lines and, per peer and ring, the ring header it produces and
    the other peer's consumer line that reads it. A path is mapped read-only."""
    return _with_region(target, _dump)


def _dump(buf, layout: RegionLayout, words: Words) -> dict:
    header = dict(zip((name for name, _, _ in HEADER_FIELDS), struct.unpack_from(HEADER_STRUCT, buf, 0)))
    peers = [{"peer": p, "cell": PEER_NAMES[p], "rings": [{"ring": r, "producer": {}, "consumer": {}}
                                                          for r in range(layout.rings)]}
             for p in range(PEER_COUNT)]
    for c in read_counters(words, layout):
        if c.line == "state_line":
            peers[c.peer][c.label] = STATE_NAMES.get(c.value, f"INVALID({c.value})") if c.kind == "state" else c.value
        elif c.line == "ring_header":
            peers[c.peer]["rings"][c.ring]["producer"][c.label] = c.value
        else:  # listed under the ring it reads: the other peer's
            peers[1 - c.peer]["rings"][c.ring]["consumer"][c.label] = c.value
    for entry in peers:  # the rings last, as they always came
        entry["rings"] = entry.pop("rings")
    return {"header": header, "peers": peers}
