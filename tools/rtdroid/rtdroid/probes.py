"""The characterisation probes a cell carries (rt-cell/probes, bench's RTJPerf), for one CPU
architecture: build/probes/<arch>/ holds rtdroid-probe (built by `make c`) and rtjperf.jar (the
bench module's jar, copied here). The RT cell agent runs them on request (`--probes DIR`); the QEMU
and Xen images carry the directory as /rt/probes; `rtdroid characterise` runs the native probe in
the Android cell from here too."""
from __future__ import annotations

import platform
import shutil
from pathlib import Path

from . import paths

NATIVE = "rtdroid-probe"
JVM_JAR = "rtjperf.jar"
GUEST_DIR = "probes"  # under the guest's root (/rt)


def host_arch() -> str:
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(platform.machine(), platform.machine())


def bench_jar() -> Path:
    return paths.repo_root() / "bench" / "target" / "rtdroid-bench-0.1.0-SNAPSHOT.jar"


def cell_dir(arch: str) -> Path:
    """build/probes/<arch>, with the JVM probe's jar refreshed from the bench module's build, and
    beside it the bench's libraries the RT cell agent does not carry (HdrHistogram, the examples:
    what `rtjperf bench reflection` runs on; the agent puts them on the probe's class path after
    its own). Whatever is missing (a tree not yet built) is simply absent: the agent answers
    PROBE_UNAVAILABLE naming it, and a board still comes up."""
    d = paths.build_dir() / "probes" / arch
    d.mkdir(parents=True, exist_ok=True)
    jar = bench_jar()
    wanted = {JVM_JAR: jar} if jar.is_file() else {}
    carried = {j.name for j in paths.rt_agent_lib_dir().glob("*.jar")}
    for lib in sorted((jar.parent / "lib").glob("*.jar")):
        if lib.name not in carried:
            wanted[lib.name] = lib
    for old in d.glob("*.jar"):
        if old.name not in wanted:
            old.unlink()
    for name, src in wanted.items():
        dest = d / name
        if not dest.is_file() or dest.read_bytes() != src.read_bytes():
            shutil.copy2(src, dest)
    return d


def native(arch: str | None = None) -> Path:
    return cell_dir(arch or host_arch()) / NATIVE


def files(arch: str) -> list[Path]:
    """The probe files present for an image (sorted, for stable image keys)."""
    d = cell_dir(arch)
    return [p for p in (d / NATIVE, d / JVM_JAR) if p.is_file()] + sorted(p for p in d.glob("*.jar") if p.name != JVM_JAR)
