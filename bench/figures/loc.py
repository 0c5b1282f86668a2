#!/usr/bin/env python3
"""Table 4.3's code metrics, counted by a tool: for each application, the lines of code common to
its versions (the application logic), specific to the RTDroid version (its components, plus its
manifest) and specific to the RTSJ-style version (its threads and shared buffers). `cloc` counts
the source lines (neither blank nor comment) and the manifest's lines; `Syn` counts the
`synchronized` methods and blocks and the explicit locks created, in the code lines.
    loc.py [--out DIR]    -> DIR/loc.json
Exit status 2 when cloc is missing (tools/setup.sh installs it).
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

APP_LOGIC = "app-logic/src/main/java/org/rtdroid/logic"
EXAMPLES = "rtdroid-runtime/examples/src/main"
RTSJ = "bench/src/main/java/org/rtdroid/bench/tasks"

# (application, type of code) -> (Java sources: files or folders, manifest or None)
SETS = {
    ("cochlear", "common"): ([f"{APP_LOGIC}/cochlear"], None),
    ("cochlear", "rtsj"): ([f"{RTSJ}/CochlearRtsj.java"], None),
    ("cochlear", "rtdroid"): ([f"{EXAMPLES}/java/org/rtdroid/examples/cochlear"], f"{EXAMPLES}/manifests/cochlear/manifest.xml"),
    ("papabench", "common"): ([f"{APP_LOGIC}/papabench"], None),
    ("papabench", "rtsj"): ([f"{RTSJ}/PapabenchRtsj.java"], None),
    ("papabench", "rtdroid"): ([f"{EXAMPLES}/java/org/rtdroid/examples/autopilot"],
                               f"{EXAMPLES}/manifests/autopilot/manifest.xml"),
}

# The synchronisation a programmer writes by hand (the dissertation's "Syn" column): synchronized
# methods and blocks, and explicit locks or semaphores created.
SYNC = re.compile(r"\bsynchronized\b|\bnew\s+(ReentrantLock|ReentrantReadWriteLock|StampedLock|Semaphore)\b")
COMMENT_OR_STRING = re.compile(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\])*\"", re.S)


def java_files(paths: list[str]) -> list[Path]:
    files: list[Path] = []
    for p in paths:
        path = ROOT / p
        if path.is_dir():
            files += sorted(path.rglob("*.java"))
        elif path.is_file():
            files.append(path)
    return files


def cloc(files: list[Path]) -> dict[Path, dict]:
    """cloc's count of each file (one cloc run for all): path -> {'code', 'comment', 'blank'}."""
    if not files:
        return {}
    out = subprocess.run(["cloc", "--json", "--quiet", "--by-file", "--skip-uniqueness", *map(str, files)],
                         capture_output=True, text=True, check=True)
    return {Path(k): v for k, v in json.loads(out.stdout).items() if k not in ("header", "SUM")}


def total(counts: dict[Path, dict], files: list[Path], key: str) -> int:
    return sum(counts[f][key] for f in files if f in counts)


def sync_points(files: list[Path]) -> int:
    return sum(len(SYNC.findall(COMMENT_OR_STRING.sub("", f.read_text()))) for f in files)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "bench")
    args = ap.parse_args(argv)
    if shutil.which("cloc") is None:
        print("loc: cloc is not installed (tools/setup.sh installs it)", file=sys.stderr)
        return 2
    version = subprocess.run(["cloc", "--version"], capture_output=True, text=True).stdout.strip()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    rows = []
    sets = {key: (java_files(sources), [ROOT / m for m in [manifest] if m and (ROOT / m).is_file()])
            for key, (sources, manifest) in SETS.items()}
    counts = cloc([f for files, manifests in sets.values() for f in files + manifests])
    for (app, kind), (files, manifests) in sets.items():
        row = {"app": app, "code": kind, "files": [str(f.relative_to(ROOT)) for f in files],
               "sloc": total(counts, files, "code"), "comment_lines": total(counts, files, "comment"),
               "blank_lines": total(counts, files, "blank"), "syn": sync_points(files),
               "manifest": total(counts, manifests, "code"), "written": bool(files)}
        rows.append(row)
        print(f"loc: {app} {kind}: {len(files)} files, {row['sloc']} SLoC, {row['syn']} sync, {row['manifest']} manifest")
    args.out.mkdir(parents=True, exist_ok=True)
    doc = {"bench": "loc", "command": "bench/figures/loc.py", "tool": f"cloc {version}", "commit": commit, "rows": rows}
    (args.out / "loc.json").write_text(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
