"""Reading what the benchmarks wrote: a result JSON and the raw-sample CSVs its rows name."""
from __future__ import annotations

import csv
import json
from pathlib import Path


class Result:
    """One benchmark's JSON (build/.../<bench>.json) and the directory its sample paths are relative to."""

    def __init__(self, path: Path):
        self.path = path
        self.doc = json.loads(path.read_text())
        self.rows: list[dict] = self.doc.get("rows", [])

    @property
    def host(self) -> dict:
        return self.doc.get("host", {})

    @property
    def command(self) -> str:
        return self.doc.get("command", "")

    def select(self, run: int | None = 1, **case) -> list[dict]:
        """Rows of one run (None: every run) whose fields equal the given ones."""
        return [r for r in self.rows
                if (run is None or r.get("run", 1) == run) and all(r.get(k) == v for k, v in case.items())]

    def one(self, run: int | None = 1, **case) -> dict | None:
        rows = self.select(run, **case)
        return rows[0] if rows else None

    def samples(self, row: dict) -> dict[str, list[int]]:
        """The row's raw samples, column name -> values ({} when it kept none)."""
        rel = row.get("samples")
        if not rel:
            return {}
        return read_csv(self.path.parent / rel)

    def worst_case(self, **case) -> list[dict]:
        return [w for w in self.doc.get("worst_case", []) if all(w.get(k) == v for k, v in case.items())]


def read_csv(path: Path) -> dict[str, list[int]]:
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        cols: list[list[int]] = [[] for _ in header]
        for line in reader:
            for i, v in enumerate(line):
                cols[i].append(int(v))
    return dict(zip(header, cols))


def load(data_dir: Path, bench: str) -> Result | None:
    path = data_dir / f"{bench}.json"
    return Result(path) if path.is_file() else None


def platform(result: Result) -> str:
    """The board a host benchmark ran on, in one line."""
    h = result.host
    rt = "PREEMPT_RT" if h.get("preempt_rt") else "no PREEMPT_RT"
    fifo = "SCHED_FIFO" if h.get("sched_fifo_permitted") else "no SCHED_FIFO (not real-time figures)"
    return f"board host: {h.get('cpus', '?')} CPUs, Linux {h.get('kernel', '?')} ({rt}), {fifo}, Java {h.get('java', '?')}, {h.get('gc', '?')}"
