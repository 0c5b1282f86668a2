"""Numbered progress lines of `board up`, each with its stage's and the total's time."""
from __future__ import annotations

import time
from typing import Callable


class Progress:
    def __init__(self, total: int, out: Callable[[str], None]):
        self.total, self.n, self.out = total, 0, out
        self.t0 = time.monotonic()
        self.last = self.t0

    def stage(self, text: str) -> None:
        self.n += 1
        now = time.monotonic()
        self.out(f"[{self.n}/{self.total}] {text} {now - self.last:.2f} s (total {now - self.t0:.2f} s)")
        self.last = now

    def note(self, text: str) -> None:
        """A milestone inside a stage (not counted)."""
        self.out(f"      {text} (total {time.monotonic() - self.t0:.2f} s)")

    def elapsed(self) -> float:
        return time.monotonic() - self.t0
