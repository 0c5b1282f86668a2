"""Content digests of build inputs, for the stamps that decide whether a cached product (the
Android cell's AOT cache, the RT cell's image, a boot snapshot) is still the one its inputs make.

Stamps hold what a file contains, not when it was written: `make build` rewrites jars whose bytes
did not change (Maven copies them into the dists again), and a stamp keyed on times would throw
away a cache that is still right. Hashing every input at every `board up` would cost seconds (the
Android cell's dist holds ~200 MiB), so each file's digest is remembered with the size and time it
was computed for, in build/digests.json, and computed again only when either changed.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from . import paths


def _memo_path() -> Path:
    return paths.build_dir() / "digests.json"


def _load() -> dict:
    try:
        memo = json.loads(_memo_path().read_text())
        return memo if isinstance(memo, dict) else {}
    except (OSError, ValueError):
        return {}


def _save(memo: dict) -> None:
    memo = {name: seen for name, seen in memo.items() if os.path.exists(name)}  # forget removed files
    path = _memo_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(memo, sort_keys=True))
        tmp.replace(path)  # concurrent writers lose entries at worst, never corrupt the file
    except OSError:
        pass  # a memo that cannot be written only costs hashing again


def file_digest(p: Path) -> str:
    """The SHA-256 of p's bytes (hex)."""
    st = p.stat()
    name = str(p.resolve())
    memo = _load()
    seen = memo.get(name)
    if isinstance(seen, list) and len(seen) == 3 and seen[:2] == [st.st_size, st.st_mtime_ns]:
        return seen[2]
    h = hashlib.sha256()
    with open(p, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    memo[name] = [st.st_size, st.st_mtime_ns, h.hexdigest()]
    _save(memo)
    return h.hexdigest()


def file_key(p: Path) -> list:
    """What a stamp records of an input file: its path, size and content digest."""
    return [str(p), p.stat().st_size, file_digest(p)]
