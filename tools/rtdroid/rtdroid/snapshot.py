"""The boot snapshot of an emulated RT cell (the qemu VM, the Xen machine), the same idea as the
Android emulator's Quick Boot.

Under TCG a cold boot of the RT cell takes 25-35 s, most of it the JVM starting under emulation
(the translation of the JVM's own code, interpreted class loading, FFM linking). So the first
`board up` of an image boots the cell cold once, lets the agent start its runtime and wait for the
region (`--await-region`), then stops the machine and saves it with QEMU's migration
(`migrate exec:zstd`) under build/. Later `board up`s restore that state (`-incoming exec:zstd
-dc`) and format the region only after the restore (the restore writes the snapshot's zero region
into the shared file), so the waiting agent attaches to the fresh region and reports ready.

The snapshot is keyed by everything that shapes the machine: the resolved QEMU argv, the files it
boots (kernel, initramfs; for Xen also the hypervisor, the device tree and the board file), and
QEMU's version. Any change invalidates it; a restore that fails is deleted and the board boots
cold. `board up --cold` (or `boot: cold` in the board file) skips it.
"""
from __future__ import annotations

import json
import socket
import subprocess
import time
from pathlib import Path

from . import hypervisors, paths
from .errors import BoardError
from .digest import file_key
from .procs import TAIL_LINES, machine_log, tail

AWAITING_LINE = "rtcell: runtime started; awaiting the region"


class SnapshotError(Exception):
    pass


class Qmp:
    """A minimal QMP client (JSON lines over the VM's unix socket)."""

    def __init__(self, path: Path, timeout: float = 10.0):
        deadline = time.monotonic() + timeout
        while True:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.connect(str(path))
                break
            except OSError as e:
                s.close()
                if time.monotonic() > deadline:
                    raise SnapshotError(f"cannot connect to QMP at {path}: {e.strerror}") from None
                time.sleep(0.05)
        s.settimeout(timeout)
        self._sock = s
        self._file = s.makefile("rw", encoding="utf-8")
        self._read()                     # the greeting
        self.execute("qmp_capabilities")

    def _read(self) -> dict:
        line = self._file.readline()
        if not line:
            raise SnapshotError("QMP connection closed by QEMU")
        return json.loads(line)

    def execute(self, command: str, **arguments) -> dict:
        msg = {"execute": command}
        if arguments:
            msg["arguments"] = arguments
        self._file.write(json.dumps(msg) + "\n")
        self._file.flush()
        while True:
            r = self._read()
            if "return" in r:
                return r["return"]
            if "error" in r:
                raise SnapshotError(f"QMP {command}: {r['error'].get('desc', r['error'])}")
            # an asynchronous event: skip it

    def close(self) -> None:
        try:
            self._file.close()
            self._sock.close()
        except OSError:
            pass


def snapshot_file(board_name: str, accel: str, directory: Path | None = None) -> Path:
    return (directory or paths.rt_cell_build_dir()) / f"snapshot-{board_name}-{accel}.zst"


def _key_file(snap: Path) -> Path:
    return snap.with_suffix(".json")


def _qemu_version(binary: str) -> str:
    try:
        return subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30).stdout.splitlines()[0]
    except (OSError, IndexError, subprocess.SubprocessError):
        return "unknown"


def key_for(argv: list[str], kernel: Path, initrd: Path, **more) -> dict:
    """The snapshot's key: argv, kernel, initramfs, QEMU's version and `more` (name -> a value
    that identifies another input)."""
    qemu = next((a for a in argv if a.startswith("qemu-system")), "qemu-system-x86_64")
    # The image builder rewrites a file whenever its inputs change, so its stamp identifies it;
    # hashing the ~100 MiB initramfs on every `board up` would only repeat that.
    return {"argv": argv, "kernel": file_key(kernel), "initrd": file_key(initrd), "qemu": _qemu_version(qemu),
            **more}


def usable(snap: Path, key: dict) -> bool:
    try:
        return snap.is_file() and json.loads(_key_file(snap).read_text()) == key
    except (OSError, ValueError):
        return False


def discard(snap: Path) -> None:
    snap.unlink(missing_ok=True)
    _key_file(snap).unlink(missing_ok=True)


def restore_argv(argv: list[str], snap: Path) -> list[str]:
    return argv + ["-incoming", f"exec:zstd -dc -q {snap}"]


def cold_argv(argv: list[str]) -> list[str]:
    """The argv without a restore (-incoming ...): what a restart of the cell boots."""
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
            continue
        if a == "-incoming":
            skip = True
            continue
        out.append(a)
    return out


def save(qmp_path: Path, snap: Path, key: dict, timeout: float = 120.0) -> int:
    """Stops the VM behind qmp_path and saves it to snap (zstd); returns the file's size."""
    tmp = snap.with_suffix(".partial")
    tmp.unlink(missing_ok=True)
    q = Qmp(qmp_path)
    try:
        q.execute("stop")
        q.execute("migrate", uri=f"exec:zstd -1 -q -o {tmp}")
        deadline = time.monotonic() + timeout
        while True:
            info = q.execute("query-migrate")
            status = info.get("status")
            if status == "completed":
                break
            if status in ("failed", "cancelled"):
                raise SnapshotError(f"saving the boot snapshot failed: {info.get('error-desc', status)}")
            if time.monotonic() > deadline:
                raise SnapshotError(f"saving the boot snapshot took more than {timeout:g} s")
            time.sleep(0.1)
        q.execute("quit")
    finally:
        q.close()
    # zstd writes until QEMU closes the pipe; wait for the file to stop growing.
    deadline = time.monotonic() + 30
    last = -1
    while time.monotonic() < deadline:
        size = tmp.stat().st_size if tmp.exists() else 0
        if size == last and size > 0:
            break
        last = size
        time.sleep(0.2)
    tmp.replace(snap)
    _key_file(snap).write_text(json.dumps(key, indent=1))
    return snap.stat().st_size


def wait_restored(qmp_path: Path, proc: subprocess.Popen, timeout: float) -> None:
    """Waits until the incoming migration has been loaded and the VM runs."""
    deadline = time.monotonic() + timeout
    q = None
    try:
        while True:
            if proc.poll() is not None:
                raise SnapshotError(f"QEMU exited with status {proc.returncode} while restoring the snapshot")
            if q is None:
                try:
                    q = Qmp(qmp_path, timeout=max(0.1, deadline - time.monotonic()))
                except SnapshotError:
                    if proc.poll() is not None:
                        continue
                    raise
            status = q.execute("query-status").get("status")
            if status == "running":
                return
            migration = q.execute("query-migrate").get("status")
            if migration == "failed":
                raise SnapshotError("QEMU could not load the snapshot")
            if status == "paused" and migration == "completed":
                # The snapshot was taken of a stopped VM, so it loads stopped: resume it.
                q.execute("cont")
                continue
            if status not in ("inmigrate", "prelaunch", "restore-vm", "paused", "postmigrate"):
                raise SnapshotError(f"the restored VM is in state {status}")
            if time.monotonic() > deadline:
                raise SnapshotError(f"restoring the snapshot took more than {timeout:g} s")
            time.sleep(0.05)
    finally:
        if q is not None:
            q.close()


# ------------------------------------------------------------------ taking and restoring

def boot_restored(launch, argv: list[str], snap: Path, key: dict, run_files: tuple[str, ...], label: str,
                  cold_cost: str):
    """Starts the RT cell's machine (argv, which has a QMP socket at ${RUN_DIR}/qmp.sock) from its
    boot snapshot `snap`, first taking the snapshot with one cold boot when there is none for
    `key`; a snapshot that does not restore is discarded and the cell boots cold. `launch` is the
    hypervisor's Launch; run_files are what the machine leaves in the run directory (removed
    between the snapshot's boot and the restore); label names the machine in the progress line,
    cold_cost says what the one-time cold boot costs. Returns (process, how it started)."""
    board, name, run, timeout, progress = launch.board, launch.name, launch.run, launch.timeout, launch.progress
    snap.parent.mkdir(parents=True, exist_ok=True)
    if not usable(snap, key):
        discard(snap)
        progress.note(f"{name} cell: no boot snapshot for this image yet: booting it cold once to take one "
                      f"({cold_cost})")
        t0 = time.monotonic()
        p = launch.start_process(argv, run / "rt-snapshot.log")
        _wait_console(p, run / "console.log", AWAITING_LINE, timeout, name, run / "rt-snapshot.log",
                      hypervisors.get(board.hypervisor))
        booted = time.monotonic() - t0
        try:
            size = save(run / "qmp.sock", snap, key)
        except SnapshotError as e:
            raise BoardError(f"{name} cell: {e}") from None
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            launch.stop_process()
        progress.note(f"{name} cell: boot snapshot taken after a {booted:.1f} s cold boot "
                      f"({size / 2**20:.0f} MiB, {snap.name})")
        _remove(run, run_files)
    else:
        booted = None
    t0 = time.monotonic()
    p = launch.start_process(restore_argv(argv, snap), run / "rt.log")
    if booted is not None:
        # The first `board up` of a new image pays this once (emulation timing); it is kept apart
        # so that what every later `board up` costs can be told from it (`board status`). Set on
        # the cell's entry of the process that runs (starting a process makes a new entry).
        launch.state["cells"][name]["snapshot_cold_boot_seconds"] = round(booted, 3)
    try:
        wait_restored(run / "qmp.sock", p, timeout)
    except SnapshotError as e:
        launch.stop_process()
        discard(snap)
        progress.note(f"{name} cell: the boot snapshot did not restore ({e}); discarded, booting cold")
        _remove(run, run_files)
        return launch.start_process(argv, run / "rt.log"), f"{label}, cold boot"
    launch.state["cells"][name]["restored_seconds"] = round(time.monotonic() - t0, 3)
    return p, f"{label}, restored from the boot snapshot in {time.monotonic() - t0:.2f} s"


def _remove(run: Path, names: tuple[str, ...]) -> None:
    for n in names:
        (run / n).unlink(missing_ok=True)


def _wait_console(proc, console: Path, line: str, timeout: float, name: str, log: Path, hv) -> None:
    """Waits for the ready line on the console; a failure shows the machine's own log of this
    start (QEMU's stderr) too, which the hypervisor `hv` reads for why the guest cannot go on
    (a guest stopped by KVM prints nothing on its console)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if line in console.read_text(errors="replace"):
                return
        except OSError:
            pass
        machine, shown = machine_log(log, console)
        refused = hv.start_refused(machine) if machine else None
        why = None
        if proc.poll() is not None:
            why = f"the {name} cell exited with status {proc.returncode} during its first boot"
        elif refused:
            why = f"the {name} cell cannot finish its first boot: {refused}"
        elif time.monotonic() > deadline:
            why = (f"the {name} cell did not report ready within {timeout:g} s (its first, cold boot, for the "
                   f"boot snapshot: no '{line}' line)")
        if why:
            raise BoardError(f"{why}; last {TAIL_LINES} lines of {console}:\n{tail(console)}{shown}")
        time.sleep(0.1)
