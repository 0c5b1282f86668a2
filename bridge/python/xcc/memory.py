"""Access to the region's memory: a mapping (file, PCI BAR, /dev/mem range or buffer) and aligned
u32/u64 loads and stores on it.

Memory ordering, honestly: Python has no acquire/release operations. This package relies on
x86-64's total store order, under which stores become visible to other CPUs in program order and
loads are not reordered with older loads. Every field is written with one aligned store of its
natural width through a ``memoryview`` cast to ``'Q'`` (u64) or ``'I'`` (u32), so an index is never
seen half-written. On a weakly ordered CPU (arm64) the Python peer is NOT correct under
concurrency; there the Java and C implementations (which use real acquire/release) are the peers,
and Python is for tooling and tests. The /dev/mem backend performs only aligned accesses of 4 and
8 bytes for fields; slot contents are copied with memcpy-like slice copies.
"""

from __future__ import annotations

import mmap
import os
from pathlib import Path

from .layout import U64_MAX, RegionError


class Words:
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

    def get(self, off: int, width: int) -> int:
        """A field of ``width`` bytes (4 or 8), as the descriptor's counter table gives it."""
        return self.q[off >> 3] if width == 8 else self.i[off >> 2]

    def republish(self, off: int, width: int, own: int) -> int:
        """Self-healing: store ``own`` where the shared copy differs; 1 if it was repaired."""
        return self.republish_u64(off, own) if width == 8 else self.republish_u32(off, own)

    def republish_u64(self, off: int, own: int) -> int:
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


def as_mapping(target, writable: bool = True) -> tuple[Mapping, bool]:
    """A Mapping for a path, a Mapping or a buffer, and whether the caller must close it."""
    if isinstance(target, Mapping):
        return target, False
    if isinstance(target, (str, Path)):
        return Mapping.file(target, writable), True
    return Mapping(target), False
