"""Run every fuzz target (C libFuzzer, Java Jazzer, Python atheris) for N seconds each.

Each target starts from its seeds (the shared vectors, the example manifests, the shipped board
files) and its kept corpus (fuzz/corpus/<input>/), grows a working corpus under build/fuzz/, and
reports executions and coverage. A crash stops nothing else; it is copied to
build/fuzz/crashes/<target>/ and the run exits 1 naming it (to keep it: fix the cause, then add
the input to fuzz/corpus/<input>/ and, for frames and regions, as a shared vector). Inputs left
there by earlier runs are not findings of this run unless this run hits them again.

    build/venv/bin/python fuzz/run.py [--seconds 60] [--only NAME ...] [--json OUT] [--java-built]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "build" / "fuzz"
CORPUS = ROOT / "fuzz" / "corpus"
PY = sys.executable
JAVA_HOME = os.environ.get("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64")
MAX_REGION = 70000


@dataclass
class Target:
    name: str            # language-input, e.g. java-frame
    lang: str            # c | java | python
    input: str           # the fuzz/corpus/<input> folder it keeps
    seeds: list[Path] = field(default_factory=list)
    module: str = ""     # java: Maven module
    test: str = ""       # java: test class
    method: str = ""     # java: fuzz test method
    script: str = ""     # python: fuzz/python/<script>; c: binary name


VECTORS = ROOT / "bridge" / "vectors"
TARGETS = [
    Target("c-frame", "c", "frame", [VECTORS / "frames"], script="fuzz_frame"),
    Target("c-region", "c", "region", [VECTORS / "regions"], script="fuzz_ring"),
    Target("java-frame", "java", "frame", [VECTORS / "frames"], "bridge/java",
           "org.rtdroid.bridge.codec.FrameCodecFuzzTest", "decode"),
    Target("java-region", "java", "region", [VECTORS / "regions"], "bridge/java",
           "org.rtdroid.bridge.ConsumerRingFuzzTest", "consume"),
    Target("java-manifest", "java", "manifest", [ROOT / "rtdroid-runtime/examples/src/main/manifests"],
           "rtdroid-runtime", "org.rtdroid.runtime.manifest.ManifestParserFuzzTest", "parse"),
    Target("java-bundle", "java", "bundle", [BUILD / "seeds" / "bundle"], "rt-cell/agent",
           "org.rtdroid.rtcell.agent.BundleFuzzTest", "verify"),
    Target("python-frame", "python", "frame", [VECTORS / "frames"], script="fuzz_frame.py"),
    Target("python-region", "python", "region", [VECTORS / "regions"], script="fuzz_region.py"),
    Target("python-board", "python", "board", [ROOT / "board-configs"], script="fuzz_board.py"),
    Target("python-manifest", "python", "manifest", [ROOT / "rtdroid-runtime/examples/src/main/manifests"],
           script="fuzz_manifest.py"),
    Target("python-bundle", "python", "bundle", [BUILD / "seeds" / "bundle"], script="fuzz_bundle.py"),
]


def bundle_seeds() -> None:
    """build/fuzz/seeds/bundle: the shared vectors' bundle zips (well-formed and crafted), as files."""
    out = BUILD / "seeds" / "bundle"
    out.mkdir(parents=True, exist_ok=True)
    for line in (VECTORS / "bundles" / "index.txt").read_text().splitlines():
        v = line.split()
        if v and v[0] == "zip":
            (out / f"{v[1]}.rtb").write_bytes(bytes.fromhex(v[3]))

_DONE = re.compile(r"Done (\d+) runs in (\d+) second")
_COV = re.compile(r"#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+) corp: (\d+)/")


def say(text: str) -> None:
    print(f"[fuzz {time.strftime('%H:%M:%S')}] {text}", flush=True)


def seed_files(t: Target) -> list[Path]:
    dirs = [*t.seeds, CORPUS / t.input]
    return [p for d in dirs if d.is_dir() for p in sorted(d.rglob("*"))
            if p.is_file() and p.name != "README.md" and (d != VECTORS / "frames" and d != VECTORS / "regions"
                                                        or p.suffix == ".bin")]


def working_corpus(t: Target) -> Path:
    """build/fuzz/<target>/corpus: the seeds copied in (libFuzzer reads one flat folder)."""
    work = BUILD / t.name / "corpus"
    work.mkdir(parents=True, exist_ok=True)
    for i, p in enumerate(seed_files(t)):
        dst = work / f"seed-{i:03d}-{p.name}"
        if not dst.exists():
            shutil.copyfile(p, dst)
    return work


def command(t: Target, seconds: int, work: Path, crashes: Path, java_built: bool = False) -> list[str]:
    libfuzzer = [f"-max_total_time={seconds}", f"-artifact_prefix={crashes}/"]
    if t.input == "region":
        libfuzzer.append(f"-max_len={MAX_REGION}")
    if t.lang == "c":
        return [str(ROOT / "build/bridge/c/fuzz" / t.script), *libfuzzer, str(work)]
    if t.lang == "python":
        return [PY, str(ROOT / "fuzz/python" / t.script), *libfuzzer, str(work)]
    # Jazzer: fuzzing mode of the JUnit fuzz test; its own corpus goes under build/fuzz/<target>.
    args = f"--enable-native-access=ALL-UNNAMED -Djazzer.internal.basedir={BUILD / t.name}"
    # Built: surefire alone on the module's compiled tests, the modules it needs from the local
    # repository (`mvn install` put them there); otherwise the module and those it needs are
    # built first (each build of them regenerates and recompiles the bridge's sources).
    goals = ["surefire:test"] if java_built else ["-am", "test"]
    return ["mvn", "-B", "-q", "-o", "-pl", t.module, *goals, f"-Dtest={t.test}#{t.method}",
            "-Dsurefire.failIfNoSpecifiedTests=false", f"-Drt.jvm.args={args}"]


def run_target(t: Target, seconds: int, java_built: bool = False) -> dict:
    crashes = BUILD / "crashes" / t.name
    crashes.mkdir(parents=True, exist_ok=True)
    # Inputs of earlier runs stay where they are for the user to keep, but are not this run's
    # findings: a fixed cause must not fail every later run.
    earlier = {c.name for c in crashes.iterdir()}
    since = time.time()
    work = working_corpus(t)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "bridge/python"), str(ROOT / "tools/rtdroid")]))
    if t.lang == "java":
        env.update(JAZZER_FUZZ="1", JAZZER_MAX_DURATION=f"{seconds}s", JAVA_HOME=JAVA_HOME,
                   PATH=f"{JAVA_HOME}/bin:{env.get('PATH', '')}")
        # Jazzer reads the kept corpus from the test class path and writes what it finds here:
        jazzer_corpus = BUILD / t.name / ".cifuzz-corpus" / t.test / t.method
        jazzer_corpus.mkdir(parents=True, exist_ok=True)
        for p in work.iterdir():
            if not (jazzer_corpus / p.name).exists():
                shutil.copyfile(p, jazzer_corpus / p.name)
        work = jazzer_corpus
    log = BUILD / t.name / "fuzz.log"
    started = time.monotonic()
    with open(log, "w") as out:
        p = subprocess.run(command(t, seconds, work, crashes, java_built), cwd=ROOT, env=env, stdout=out,
                           stderr=subprocess.STDOUT, timeout=seconds + 600)
    text = log.read_text(errors="replace")
    done = _DONE.findall(text)
    cov = _COV.findall(text)
    # libFuzzer writes to -artifact_prefix; Jazzer's JUnit mode under its base dir
    for c in (BUILD / t.name).rglob("crash-*"):
        if c.stat().st_mtime >= since and crashes not in c.parents and not (crashes / c.name).exists():
            shutil.copyfile(c, crashes / c.name)
    found = sorted(str(c.relative_to(ROOT)) for c in crashes.iterdir()
                   if c.name not in earlier or c.stat().st_mtime >= since)
    result = {
        "target": t.name, "language": t.lang, "input": t.input, "seconds": seconds,
        "wall_seconds": round(time.monotonic() - started, 1),
        "executions": int(done[-1][0]) if done else (int(cov[-1][0]) if cov else 0),
        "coverage": int(cov[-1][1]) if cov else None, "features": int(cov[-1][2]) if cov else None,
        "corpus_files": sum(1 for _ in work.iterdir()),
        "exit": p.returncode, "crashes": found, "log": str(log.relative_to(ROOT)),
    }
    if p.returncode != 0 and not found:
        result["crashes"] = [f"exit {p.returncode} without a saved input: see {result['log']}"]
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=int, default=60, help="per target (default 60)")
    ap.add_argument("--only", nargs="*", default=[], metavar="NAME",
                    help="targets to run: " + ", ".join(t.name for t in TARGETS))
    ap.add_argument("--json", type=Path, default=BUILD / "summary.json", help="summary (default build/fuzz/summary.json)")
    ap.add_argument("--java-built", action="store_true",
                    help="the Java modules are built and installed (`mvn install` just ran, as in make test): "
                         "run the Java targets without building them again")
    a = ap.parse_args()
    if a.seconds < 1:
        ap.error("--seconds must be at least 1")
    unknown = set(a.only) - {t.name for t in TARGETS}
    if unknown:
        ap.error(f"unknown target(s) {', '.join(sorted(unknown))}; known: {', '.join(t.name for t in TARGETS)}")
    targets = [t for t in TARGETS if not a.only or t.name in a.only]
    bundle_seeds()
    if any(t.lang == "c" for t in targets):
        say("building the C fuzzers (clang, libFuzzer, ASan, UBSan)")
        subprocess.run(["make", "-s", "-C", "bridge/c", "fuzz-bin"], cwd=ROOT, check=True)
    results = []
    for t in targets:
        say(f"{t.name}: {a.seconds} s")
        r = run_target(t, a.seconds, a.java_built)
        results.append(r)
        say(f"{t.name}: {r['executions']:,} executions, coverage {r['coverage']}, corpus {r['corpus_files']}"
            + (f", CRASHES: {', '.join(r['crashes'])}" if r["crashes"] else ""))
    a.json.parent.mkdir(parents=True, exist_ok=True)
    a.json.write_text(json.dumps({"seconds_per_target": a.seconds, "targets": results}, indent=2) + "\n")
    say(f"summary: {a.json}")
    failed = [r["target"] for r in results if r["crashes"]]
    if failed:
        say(f"findings in {', '.join(failed)}: inputs under build/fuzz/crashes/ (fuzz/README.md says what to do)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
