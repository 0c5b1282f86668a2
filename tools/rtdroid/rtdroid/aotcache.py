"""The Android cell's ahead-of-time cache (JDK 25 `-XX:AOTCache`, JEP 483/514/515).

Most of the Android cell's start is class loading, linking and early profiling of the AOSP
framework host, Robolectric and their libraries (the framework's classes too: JDK 25 caches
classes of custom class loaders such as Robolectric's sandbox). A training run records what the
cell loads into `android-cell/target/dist/android-cell.aot`; every later start maps that cache
instead of loading those classes again. The training run does what a board's cell does first: it
starts the cell on a scratch region until it is ready (the widget warm-up included), installs and
launches the ConfigurationUI (the first app launch after READY), then stops the cell. `board up`
uses the cache only while the cell's jars and JVM arguments hold the bytes it was trained with
(their digests are kept beside it in android-cell.aot.key: `make build` rewrites unchanged jars,
which must not cost a new training run); `make build` and `make test` refresh it.

The JVM itself refuses a cache whose class-path jars changed size or modification time since
training ("timestamp has changed ... Unable to map shared spaces") and then starts without it.
So the key also keeps each jar's training-time mtime, and a jar rewritten with the same bytes gets
that mtime back before the cache is used (its content is what the cache was made from). Should the
JVM still refuse the cache, `board up` says so on the Android cell's ready line (`refusal`).

    build/venv/bin/python -m rtdroid.aotcache     # train if missing or stale
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import entry, paths
from .digest import file_digest
from .control import AndroidControl, ControlError
from .render import ANDROID_CELL_MAIN

CACHE_NAME = "android-cell.aot"
# The app the training run installs and launches after READY (built with the cell).
TRAINING_APP = "configuration-ui.apk"


def cache_path() -> Path:
    return paths.android_cell_dist_dir() / CACHE_NAME


def _inputs() -> list[Path]:
    dist = paths.android_cell_dist_dir()
    return sorted((dist / "lib").glob("*.jar")) + [dist / "jvm.args"]


def _key_path() -> Path:
    return cache_path().with_name(CACHE_NAME + ".key")


def _inputs_key() -> dict:
    """What a training run is made from: each input's digest, and the mtime the JVM will check."""
    inputs = _inputs()
    return {"digests": {p.name: file_digest(p) for p in inputs},
            "mtimes_ns": {p.name: p.stat().st_mtime_ns for p in inputs}}


def _trained_key() -> dict | None:
    try:
        key = json.loads(_key_path().read_text())
    except (OSError, ValueError):
        return None
    ok = isinstance(key, dict) and isinstance(key.get("digests"), dict) and isinstance(key.get("mtimes_ns"), dict)
    return key if ok else None  # a key of an older format: train again


def _fresh_key() -> dict | None:
    """The training run's key, while the cache exists and was trained on the cell's jars and JVM
    arguments as they are now (else None)."""
    inputs = _inputs()
    if not cache_path().is_file() or not inputs or not all(p.exists() for p in inputs):
        return None
    key = _trained_key()
    return key if key is not None and key["digests"] == {p.name: file_digest(p) for p in inputs} else None


def fresh() -> bool:
    """The cache exists and was trained on the cell's jars and JVM arguments as they are now."""
    return _fresh_key() is not None


def _restore_training_mtimes(key: dict) -> None:
    """Gives jars that `make build` rewrote with unchanged bytes their training-time mtime back,
    so that the JVM's own check (size and mtime of each class-path entry) accepts the cache."""
    for p in _inputs():
        trained = key["mtimes_ns"].get(p.name)
        st = p.stat()
        if isinstance(trained, int) and st.st_mtime_ns != trained:
            os.utime(p, ns=(st.st_atime_ns, trained))


def refusal(log_text: str) -> str | None:
    """The JVM's first complaint about the cache in a cell's log (it then ran without it)."""
    for line in log_text.splitlines():
        if "[aot]" in line and ("[error" in line or "[warning" in line):
            return line.split("[aot]", 1)[1].strip()
    return None


def enabled() -> bool:
    """RTDROID_ANDROID_AOT=off starts the cell without its cache (the boot benchmark's baseline)."""
    return os.environ.get("RTDROID_ANDROID_AOT", "on") != "off"


def jvm_flags() -> list[str]:
    """What the Android cell's JVM is started with: the cache, while it is fresh and enabled."""
    key = _fresh_key() if enabled() else None
    if key is None:
        return []
    _restore_training_mtimes(key)
    return [f"-XX:AOTCache={cache_path()}"]


def with_cache(argv: list[str]) -> list[str]:
    """The Android cell's resolved argv with the cache flags after the java executable."""
    for i, arg in enumerate(argv):
        if arg.endswith("/bin/java"):
            return argv[:i + 1] + jvm_flags() + argv[i + 1:]
    return argv


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _first_launch(port: int, apk: Path, timeout_s: float) -> None:
    """What a board's first deploy does after READY: install the app and launch it."""
    android = AndroidControl(port, timeout_s)
    pkg = android.install_apk(apk).get("package")
    android.call("POST", f"/apps/{pkg}/launch", {})


def train(timeout_s: float = 180.0, say=print) -> Path:
    """Starts the Android cell on a scratch region and port with -XX:AOTCacheOutput, waits for
    ANDROID CELL READY, installs and launches the training app, stops the cell (the JVM writes
    the cache as it exits) and installs the cache."""
    from xcc import region as xr
    dist = paths.android_cell_dist_dir()
    if not (dist / "lib").is_dir():
        raise SystemExit(f"aotcache: the Android cell is not built ({dist}/lib missing): run make build")
    apk = dist.parent / "apps" / TRAINING_APP
    if not apk.is_file():
        raise SystemExit(f"aotcache: the training app {apk} is not built: run make build")
    cache = cache_path()
    partial = cache.with_suffix(".aot.partial")
    partial.unlink(missing_ok=True)
    _key_path().unlink(missing_ok=True)
    key = _inputs_key()  # what this run trains on
    # Scratch region and temp dir of the training run's own, under build/ (nothing in /dev/shm).
    paths.build_dir().mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="aot-training-", dir=paths.build_dir()))
    region = work / "training.region"
    xr.format(str(region))
    log = work / "android.log"
    port = _free_port()
    argv = [str(paths.java_home() / "bin" / "java"), f"@{dist / 'jvm.args'}",
            f"-XX:AOTCacheOutput={partial}", f"-Djava.io.tmpdir={work}",
            "-cp", f"{dist / 'lib'}/*", ANDROID_CELL_MAIN,
            "--region", str(region), "--control-port", str(port)]
    say("aotcache: training run of the Android cell (started until ready, first app launch, then stopped)")
    started = time.monotonic()
    try:
        with open(log, "w") as out:
            p = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        while "ANDROID CELL READY" not in log.read_text(errors="replace"):
            if p.poll() is not None:
                raise SystemExit(f"aotcache: the Android cell exited with status {p.returncode} before it was "
                                 f"ready; its log: {log}")
            if time.monotonic() - started > timeout_s:
                p.kill()
                raise SystemExit(f"aotcache: the Android cell was not ready within {timeout_s:g} s; its log: {log}")
            time.sleep(0.1)
        ready_s = time.monotonic() - started
        try:
            _first_launch(port, apk, timeout_s)
        except ControlError as e:
            p.kill()
            raise SystemExit(f"aotcache: the training app's first launch failed: {e}; the cell's log: {log}") from None
        p.terminate()  # the JVM assembles the cache on its way out
        p.wait(timeout=timeout_s)
        if not partial.is_file():
            raise SystemExit(f"aotcache: the JVM wrote no cache; its log: {log}")
        partial.replace(cache)
        _key_path().write_text(json.dumps(key, indent=1, sort_keys=True))
        shutil.rmtree(work, ignore_errors=True)
    finally:
        region.unlink(missing_ok=True)
        partial.unlink(missing_ok=True)
    say(f"aotcache: {cache} ({cache.stat().st_size / 2**20:.0f} MiB; training run ready in {ready_s:.1f} s, "
        f"{time.monotonic() - started:.1f} s in all)")
    return cache


def main() -> int:
    key = _fresh_key()
    if key is not None:
        _restore_training_mtimes(key)
        print(f"aotcache: {cache_path()} is up to date")
        return 0
    train()
    return 0


if __name__ == "__main__":
    sys.exit(entry.run(main, "rtdroid.aotcache"))
