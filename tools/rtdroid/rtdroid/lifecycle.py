"""Board lifecycle: up, down, status. The CLI plays the hypervisor's part: it formats the shared
region, starts each cell pinned to its CPUs, waits for each to report ready, and on any failure,
Ctrl-C or SIGTERM during `up` tears down everything it started.

State lives in build/run/<board>/state.json (pids, paths, ports); logs beside it
(rt.log, android.log, console.log for a qemu RT cell's serial console).
"""
from __future__ import annotations

import errno
import fcntl
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

from . import keys, paths
from .boardconfig import MIB, Board, check_host_cpus, load_board
from .render import ANDROID_TMP_DIR, render, resolve_argv

TAIL_LINES = 30


class BoardError(Exception):
    """A refusal or failure with a message meant for the user."""


# ------------------------------------------------------------------ processes

def _proc_start_ticks(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read().decode(errors="replace")
    except OSError:
        return None
    # comm may contain spaces and parentheses: fields start after the last ')'.
    fields = data[data.rfind(")") + 2:].split()
    state = fields[0]
    if state in ("Z", "X"):
        return None
    return int(fields[19])


def process_alive(entry: dict) -> bool:
    """The recorded process still runs and is the same process (pid reuse is checked)."""
    pid = entry.get("pid")
    if not pid:
        return False
    ticks = _proc_start_ticks(pid)
    return ticks is not None and ticks == entry.get("start_ticks")


def _stop_process(entry: dict, grace_s: float = 5.0) -> None:
    if not process_alive(entry):
        return
    pid = entry["pid"]
    for sig, wait in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pid, sig)  # each cell runs in its own session: pid == pgid
        except ProcessLookupError:
            return
        except PermissionError:
            os.kill(pid, sig)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:  # reap if it is our child
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
            if not process_alive(entry):
                return
            time.sleep(0.05)
    if process_alive(entry):
        raise BoardError(f"process {pid} ({entry.get('name')}) did not stop")


def processes_mapping(path: Path) -> list[int]:
    """Pids that have `path` open or mapped (a /dev/shm region)."""
    target = str(path)
    pids = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit() or int(d.name) == os.getpid():
            continue
        try:
            if target in (d / "maps").read_text(errors="replace"):
                pids.append(int(d.name))
                continue
            for fd in (d / "fd").iterdir():
                if os.readlink(fd) == target:
                    pids.append(int(d.name))
                    break
        except OSError:
            continue
    return pids


def port_in_use(port: int) -> bool:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # The cell's server binds with SO_REUSEADDR (the JDK's default on Linux), so connections of
    # a previous run lingering in TIME_WAIT do not make the port busy; probe the same way.
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(("127.0.0.1", port))
        return False
    except OSError as e:
        return e.errno in (errno.EADDRINUSE, errno.EACCES)
    finally:
        s.close()


def tail(path: Path, n: int = TAIL_LINES) -> str:
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return f"({path} does not exist)"
    return "\n".join(lines[-n:]) if lines else f"({path} is empty)"


# ------------------------------------------------------------------ state

def state_path(board: str) -> Path:
    return paths.run_dir(board) / "state.json"


def load_state(board: str) -> dict | None:
    try:
        return json.loads(state_path(board).read_text())
    except FileNotFoundError:
        return None
    except ValueError as e:
        raise BoardError(f"{state_path(board)} is corrupt ({e}); remove it after checking no cell runs")


def _save_state(state: dict) -> None:
    p = state_path(state["board"])
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=2, sort_keys=True))
    tmp.replace(p)


def running_boards() -> list[tuple[str, dict]]:
    out = []
    root = paths.run_root()
    if not root.is_dir():
        return out
    for d in sorted(root.iterdir()):
        st = d / "state.json"
        if st.is_file():
            try:
                state = json.loads(st.read_text())
            except ValueError:
                continue
            if any(process_alive(c) for c in state.get("cells", {}).values()):
                out.append((d.name, state))
    return out


@contextmanager
def _up_lock():
    """Only one `board up`/`down` at a time on this machine."""
    root = paths.run_root()
    root.mkdir(parents=True, exist_ok=True)
    f = open(root / ".lifecycle.lock", "w")
    try:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BoardError("another `rtdroid board up/down` is in progress on this machine") from None
        yield
    finally:
        f.close()


class _Interrupted(BaseException):
    pass


@contextmanager
def _signals_raise():
    """SIGTERM/SIGHUP during `up` unwind like Ctrl-C, so the teardown runs."""
    def handler(signum, frame):
        raise _Interrupted(signal.Signals(signum).name)
    old = {s: signal.signal(s, handler) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


# ------------------------------------------------------------------ accel

def probe_kvm() -> tuple[bool, str]:
    """KVM counts as usable only if a `-cpu host` VM starts and keeps running for a moment
    (here `-cpu host` aborts on MSR 0x10a). Cached per boot under build/run/kvm-probe.json."""
    cache = paths.run_root() / "kvm-probe.json"
    boot_id = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    try:
        c = json.loads(cache.read_text())
        if c.get("boot_id") == boot_id:
            return c["usable"], c["reason"]
    except (OSError, ValueError, KeyError):
        pass
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        usable, reason = False, "/dev/kvm not accessible"
    else:
        p = subprocess.Popen(["qemu-system-x86_64", "-accel", "kvm", "-cpu", "host", "-nodefaults",
                              "-display", "none", "-machine", "pc", "-m", "16", "-no-reboot"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        try:
            _, err = p.communicate(timeout=1.5)
            first = (err.decode(errors="replace").strip().splitlines() or ["no message"])[0]
            usable, reason = False, "qemu -accel kvm -cpu host exits: " + first[:160]
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            usable, reason = True, "qemu -accel kvm -cpu host runs"
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps({"boot_id": boot_id, "usable": usable, "reason": reason}))
    return usable, reason


def choose_accel(board: Board) -> tuple[str, str, str]:
    """(accel, qemu cpu model, why)."""
    want = board.rt.get("accel", "auto")
    if want == "tcg":
        return "tcg", board.rt.get("cpu_model", "max"), "board asks for tcg"
    usable, reason = probe_kvm()
    if usable:
        return "kvm", "host", reason
    if want == "kvm":
        raise BoardError(f"board {board.name} asks for KVM but it is not usable here: {reason}")
    return "tcg", board.rt.get("cpu_model", "max"), f"KVM not usable ({reason})"


# ------------------------------------------------------------------ up

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


def _prerequisites(board: Board, cells: list[str]) -> None:
    """Everything checked before anything starts, so a refusal leaves nothing behind."""
    check_host_cpus(board)
    region = board.region_path
    if region.exists():
        users = processes_mapping(region)
        who = f" and is mapped by pid(s) {users}" if users else " (left over: `rtdroid board down --board " \
              f"{board.name}` removes it)"
        raise BoardError(f"shared-memory file {region} already exists{who}")
    if "android" in cells and port_in_use(board.control_port):
        raise BoardError(f"port {board.control_port} on 127.0.0.1 (the Android cell's control port) is "
                         "already in use")
    if not Path("/dev/shm").is_dir():
        raise BoardError("/dev/shm does not exist")
    if "rt" in cells and board.hypervisor == "process":
        lib = paths.rt_agent_lib_dir()
        if not any(lib.glob("*.jar")):
            raise BoardError(f"RT cell agent not built: no jars in {lib} "
                             "(run `mvn -B -q install` from the repository root, JAVA_HOME=temurin-25)")
    if "android" in cells:
        lib = paths.android_cell_dist_dir() / "lib"
        if not any(lib.glob("*.jar")):
            raise BoardError(f"Android cell host not built: no jars in {lib} "
                             "(run `mvn -B -q install` from the repository root, JAVA_HOME=temurin-25)")
    java = paths.java_home() / "bin" / "java"
    if not java.is_file():
        raise BoardError(f"Java 25 not found at {java} (set RTDROID_JAVA_HOME)")


def _fresh_tmpdir(argv: list[str]) -> None:
    """Empties the temp dir a cell's argv gives its JVM (-Djava.io.tmpdir=...): what the previous
    incarnation left there (a killed JVM deletes nothing) must not pile up."""
    for a in argv:
        if a.startswith("-Djava.io.tmpdir="):
            d = Path(a.split("=", 1)[1])
            if d.name == ANDROID_TMP_DIR:  # only the directory the board owns, never /tmp itself
                shutil.rmtree(d, ignore_errors=True)
                d.mkdir(parents=True, exist_ok=True)


def _start_cell(state: dict, name: str, argv: list[str], log: Path) -> subprocess.Popen:
    log.parent.mkdir(parents=True, exist_ok=True)
    _fresh_tmpdir(argv)
    with open(log, "ab") as f:
        f.write(f"--- {time.strftime('%Y-%m-%dT%H:%M:%S')} rtdroid: {' '.join(argv)}\n".encode())
        f.flush()
        try:
            p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT,
                                 start_new_session=True, cwd=str(log.parent))
        except OSError as e:
            raise BoardError(f"cannot start the {name} cell ({argv[0]}): {e.strerror}") from None
    state["cells"][name] = {"name": name, "pid": p.pid, "start_ticks": _proc_start_ticks(p.pid),
                            "argv": argv, "log": str(log), "ready": False}
    _save_state(state)
    return p


def _region_peer_state(region_path: Path, peer: int) -> int | None:
    try:
        from xcc import region as xr
        with xr.open_region(str(region_path), 1) as r:
            return r.peer_state(peer)
    except Exception:
        return None


def _wait_ready(board: Board, state: dict, pending: dict, progress: Progress) -> None:
    """pending: cell name -> (Popen, ready file, ready regex, timeout)."""
    deadlines = {n: time.monotonic() + t for n, (_, _, _, t) in pending.items()}
    booted: set[str] = set()
    while pending:
        for name in list(pending):
            proc, ready_file, pattern, timeout = pending[name]
            cell = state["cells"][name]
            text = ""
            try:
                text = ready_file.read_text(errors="replace")
            except OSError:
                pass
            m = re.search(pattern, text)
            role = cell["role"]
            if role == "rt":
                # When each boot milestone first showed up (seconds since `up` began): kernel and
                # /init, the agent's JVM running (its first line), the agent serving.
                ms = cell.setdefault("milestones", {})
                for key, rx in (("kernel_init", r"RTCELL realtime="), ("agent_jvm_started", r"rtcell: region"),
                                ("agent_ready", r"RTCELL READY")):
                    if key not in ms and re.search(rx, text):
                        ms[key] = round(progress.elapsed(), 3)
            if role == "rt" and name not in booted:
                km = re.search(r"RTCELL realtime=(\d)[^\n]*uptime=([\d.]+)", text)
                if km:  # the kernel is up and /init found the region: the rest is the JVM and agent
                    booted.add(name)
                    cell["kernel_booted_seconds"] = round(progress.elapsed(), 3)
                    progress.note(f"{name} cell: kernel booted (realtime={km.group(1)}, guest uptime "
                                  f"{km.group(2)} s), RT cell agent starting")
            if m and (role != "rt" or _region_peer_state(board.region_path, 0) == 2):
                cell["ready"] = True
                cell["ready_seconds"] = round(progress.elapsed(), 3)
                detail = m.group(0).strip()
                if role == "rt":
                    # /init prints it on a cold boot; the agent prints it after attaching (a
                    # cell restored from its snapshot has no boot lines on this console).
                    rtm = re.search(r"RTCELL realtime=(\d)", text) or re.search(r"rtcell: kernel realtime=(\d)", text)
                    realtime = rtm.group(1) if rtm else _host_realtime()
                    state["rt_kernel_realtime"] = int(realtime)
                    detail += f", region peer 0 READY, kernel realtime={realtime}"
                else:
                    pm = re.search(r"port=(\d+)", m.group(0))
                    if pm and int(pm.group(1)) != board.control_port:
                        raise BoardError(f"Android cell reports port {pm.group(1)}, board says "
                                         f"{board.control_port}")
                _save_state(state)
                progress.stage(f"{name} cell ready: {detail}")
                del pending[name]
                continue
            rc = proc.poll()
            if rc is not None:
                raise BoardError(f"the {name} cell exited with status {rc} before it was ready; last "
                                 f"{TAIL_LINES} lines of {ready_file}:\n{tail(ready_file)}")
            if time.monotonic() > deadlines[name]:
                raise BoardError(f"the {name} cell did not report ready within {timeout:g} s; last "
                                 f"{TAIL_LINES} lines of {ready_file}:\n{tail(ready_file)}")
        time.sleep(0.05)


def _host_realtime() -> str:
    try:
        return Path("/sys/kernel/realtime").read_text().strip()
    except OSError:
        return "0"


def up(board_name: str, cells: list[str] | None = None, boot_timeout: float | None = None,
       out: Callable[[str], None] = print, cold: bool = False) -> dict:
    cells = cells or ["rt", "android"]
    board = load_board(board_name)
    qemu = board.hypervisor == "qemu"
    total = 3 + 2 * len(cells) + (1 if qemu else 0)
    progress = Progress(total, out)
    with _up_lock():
        running = running_boards()
        if running:
            names = ", ".join(n for n, _ in running)
            raise BoardError(f"board {names} is already up; run `rtdroid board down` first "
                             "(one board at a time: they share CPUs and the control port)")
        progress.stage(f"board file {board.source} validated ({board.name}, hypervisor {board.hypervisor})")
        _prerequisites(board, cells)
        key_pub = keys.ensure_keys(out=lambda s: None)
        progress.stage(f"prerequisites checked (CPUs, ports, region file free, deploy key {key_pub.name})")
        rt_kernel = None
        if qemu and "rt" in cells:
            from . import image
            try:
                rt_kernel = image.ensure_kernel()
                image.ensure_root_tree()
                image.ensure_initramfs(board)
            except image.ImageError as e:
                raise BoardError(str(e)) from None
            kind = "PVH ELF vmlinux" if rt_kernel.name == "vmlinux" else "bzImage"
            progress.stage(f"RT cell image ready (kernel {image.kernel_version()} as {kind}, initramfs with "
                           f"the Java runtime and agent)")
        elif qemu:
            progress.stage("RT cell image not needed (RT cell not started)")

        run = paths.run_dir(board.name)
        run.mkdir(parents=True, exist_ok=True)
        _remove_run_files(run, "rt.log", "android.log", *_VM_RUN_FILES)
        state = {"board": board.name, "hypervisor": board.hypervisor, "phase": "starting",
                 "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "cells": {},
                 "region": {"path": str(board.region_path), "lock": str(board.region_path) + ".lock",
                            "file_bytes": board.region["size_bytes"]},
                 "control_port": board.control_port, "run_dir": str(run)}
        _save_state(state)
        try:
            with _signals_raise():
                _up_started(board, cells, state, progress, run, rt_kernel, boot_timeout, cold)
        except BaseException as e:
            out(f"board up failed ({_describe(e)}); tearing down what was started")
            try:
                _teardown(state, out=lambda s: out("  " + s))
            finally:
                state_path(board.name).unlink(missing_ok=True)
            if isinstance(e, (KeyboardInterrupt, _Interrupted)):
                raise BoardError(f"interrupted ({_describe(e)}); everything started was torn down") from None
            raise
        state["phase"] = "ready"
        state["up_seconds"] = round(progress.elapsed(), 3)
        _save_state(state)
        out(f"board {board.name} up in {progress.elapsed():.2f} s (state {state_path(board.name)})")
        return state


def _describe(e: BaseException) -> str:
    if isinstance(e, KeyboardInterrupt):
        return "Ctrl-C"
    if isinstance(e, _Interrupted):
        return str(e)
    return str(e).splitlines()[0].rstrip(":;") if str(e) else type(e).__name__


def _up_started(board, cells, state, progress, run, rt_kernel, boot_timeout, cold=False):
    from xcc import region as xr
    r = board.region
    path = board.region_path
    # A qemu RT cell restored from its boot snapshot overwrites the region with the snapshot's
    # (zero) contents while it loads, so then the region is formatted after the restore, and
    # the other cells start after that.
    restore = (board.hypervisor == "qemu" and "rt" in cells and not cold
               and board.rt.get("boot", "cold") == "snapshot")
    # Claim the file exclusively first: a concurrent creator makes this fail instead of sharing it.
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o660)
    except FileExistsError:
        raise BoardError(f"shared-memory file {path} already exists") from None
    os.close(fd)
    state["region"]["created"] = True
    _save_state(state)

    def format_region(in_place: bool) -> None:
        fmt = xr.format_in_place if in_place else xr.format
        layout = fmt(str(path), rings=r["rings"], slots=r["slots"], slot_bytes=r["slot_bytes"])
        # The file is the ivshmem BAR's backing: its size is the board's (a power of two) and the
        # formatted region_bytes may be smaller.
        if os.path.getsize(path) != r["size_bytes"]:
            os.truncate(path, r["size_bytes"])
        progress.stage(f"region formatted at {path} ({r['size_bytes'] / MIB:g} MiB file, "
                       f"{layout.region_bytes} bytes formatted, R={r['rings']} S={r['slots']} "
                       f"slot {r['slot_bytes']} B)")

    if restore:
        os.truncate(path, r["size_bytes"])   # zero until the restored cell runs
    else:
        format_region(in_place=False)

    rendered = render(board)
    values = {"RTDROID_HOME": str(paths.repo_root()), "RUN_DIR": str(run),
              "JAVA_HOME": str(paths.java_home()), "RT_KERNEL": str(rt_kernel or ""),
              "RT_AGENT_LIB": str(paths.rt_agent_lib_dir()),
              "ANDROID_CELL_DIST": str(paths.android_cell_dist_dir())}
    pending = {}
    for cell_name, cell in rendered["cells"].items():
        role = cell["role"]
        if role not in cells:
            continue
        timeout = boot_timeout or board.cell(role).get("boot_timeout_seconds", 60)
        if role == "rt" and board.hypervisor == "qemu":
            accel, cpu, why = choose_accel(board)
            state["accel"] = accel
            values.update(ACCEL=accel, QEMU_CPU=cpu)
            argv = resolve_argv(cell["argv"], values)
            how = f"QEMU {accel.upper()} ({why})"
            if restore:
                p, how = _restore_rt_cell(board, state, cell_name, argv, run, rt_kernel, accel, timeout, progress)
                format_region(in_place=True)
            else:
                p = _start_cell(state, cell_name, argv, run / "rt.log")
            state["cells"][cell_name]["role"] = role
            state["cells"][cell_name]["console"] = str(run / "console.log")
            state["cells"][cell_name]["console_socket"] = str(run / "console.sock")
            state["cells"][cell_name]["qmp_socket"] = str(run / "qmp.sock")
            progress.stage(f"{cell_name} cell started: {how}, pid {p.pid}, host CPUs {board.cell(role)['cpus']}")
            pending[cell_name] = (p, run / "console.log", r"RTCELL READY[^\n]*", timeout)
        else:
            argv = resolve_argv(cell["argv"], values)
            log = run / cell["log"]
            p = _start_cell(state, cell_name, argv, log)
            state["cells"][cell_name]["role"] = role
            what = "RT cell agent" if role == "rt" else "Android cell host"
            progress.stage(f"{cell_name} cell started: {what}, pid {p.pid}, CPUs {board.cell(role)['cpus']}")
            pattern = r"RTCELL READY[^\n]*" if role == "rt" else r"ANDROID CELL READY[^\n]*"
            pending[cell_name] = (p, log, pattern, timeout)
        _save_state(state)
    _wait_ready(board, state, pending, progress)


# What a QEMU process leaves in the run directory: a later QEMU must not find them.
_VM_RUN_FILES = ("console.log", "console.sock", "qmp.sock")


def _remove_run_files(run: Path, *names: str) -> None:
    for name in names:
        (run / name).unlink(missing_ok=True)


def _restore_rt_cell(board, state, name, argv, run, rt_kernel, accel, timeout, progress):
    """Starts the qemu RT cell from its boot snapshot, creating the snapshot first if there is
    none for this image; a snapshot that does not restore is discarded and the cell boots cold.
    Returns (process, how it started)."""
    from . import snapshot
    snap = snapshot.snapshot_file(board.name, accel)
    key = snapshot.key_for(argv, Path(rt_kernel), paths.rt_cell_build_dir() / "initrd.cpio")
    if not snapshot.usable(snap, key):
        snapshot.discard(snap)
        progress.note(f"{name} cell: no boot snapshot for this image yet: booting it cold once to take one "
                      f"(~30 s under TCG)")
        t0 = time.monotonic()
        p = _start_cell(state, name, argv, run / "rt-snapshot.log")
        _wait_console(p, run / "console.log", snapshot.AWAITING_LINE, timeout, name)
        booted = time.monotonic() - t0
        try:
            size = snapshot.save(run / "qmp.sock", snap, key)
        except snapshot.SnapshotError as e:
            raise BoardError(f"{name} cell: {e}") from None
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            _stop_process(state["cells"][name])
        progress.note(f"{name} cell: boot snapshot taken after a {booted:.1f} s cold boot "
                      f"({size / MIB:.0f} MiB, {snap.name})")
        _remove_run_files(run, *_VM_RUN_FILES)
    t0 = time.monotonic()
    p = _start_cell(state, name, snapshot.restore_argv(argv, snap), run / "rt.log")
    try:
        snapshot.wait_restored(run / "qmp.sock", p, timeout)
    except snapshot.SnapshotError as e:
        _stop_process(state["cells"][name])
        snapshot.discard(snap)
        progress.note(f"{name} cell: the boot snapshot did not restore ({e}); discarded, booting cold")
        _remove_run_files(run, *_VM_RUN_FILES)
        return _start_cell(state, name, argv, run / "rt.log"), f"QEMU {accel.upper()}, cold boot"
    state["cells"][name]["restored_seconds"] = round(time.monotonic() - t0, 3)
    return p, f"QEMU {accel.upper()}, restored from the boot snapshot in {time.monotonic() - t0:.2f} s"


def _wait_console(proc, console: Path, line: str, timeout: float, name: str) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if line in console.read_text(errors="replace"):
                return
        except OSError:
            pass
        if proc.poll() is not None:
            raise BoardError(f"the {name} cell exited with status {proc.returncode} during its first boot; last "
                             f"{TAIL_LINES} lines of {console}:\n{tail(console)}")
        if time.monotonic() > deadline:
            raise BoardError(f"the {name} cell did not report ready within {timeout:g} s (its first, cold "
                             f"boot, for the boot snapshot: no '{line}' line); last "
                             f"{TAIL_LINES} lines of {console}:\n{tail(console)}")
        time.sleep(0.1)


# ------------------------------------------------------------------ restart

def restart(cell_name: str, board_name: str | None = None, boot_timeout: float | None = None,
            out: Callable[[str], None] = print) -> dict:
    """Stops one cell of the board that is up (if it still runs) and starts it again with the
    argv it was started with, waiting until it reports ready. The region and the other cell are
    left alone: this is how a crashed Android cell comes back while the RT cell keeps running."""
    with _up_lock():
        state = current_state(board_name)
        board = load_board(state["board"])
        cell = state["cells"].get(cell_name)
        if cell is None:
            raise BoardError(f"board {state['board']} has no cell {cell_name!r} "
                             f"(cells: {', '.join(state['cells'])})")
        if board.hypervisor == "qemu" and cell.get("role") == "rt":
            raise BoardError("restarting the RT cell of a QEMU board is not supported; "
                             "use `rtdroid board down` and `board up`")
        if process_alive(cell):
            _stop_process(cell)
            out(f"stopped {cell_name} cell (pid {cell['pid']})")
        log = Path(cell["log"])
        if log.exists():
            # The ready line of the previous incarnation must not satisfy the wait below.
            log.replace(log.with_name(log.name + ".previous"))
        progress = Progress(2, out)
        p = _start_cell(state, cell_name, cell["argv"], log)
        state["cells"][cell_name]["role"] = cell["role"]
        progress.stage(f"{cell_name} cell restarted, pid {p.pid}")
        pattern = r"RTCELL READY[^\n]*" if cell["role"] == "rt" else r"ANDROID CELL READY[^\n]*"
        timeout = boot_timeout or board.cell(cell["role"]).get("boot_timeout_seconds", 60)
        _wait_ready(board, state, {cell_name: (p, log, pattern, timeout)}, progress)
        return state


# ------------------------------------------------------------------ down

def _teardown(state: dict, out: Callable[[str], None]) -> list[str]:
    problems = []
    for name, cell in state.get("cells", {}).items():
        if process_alive(cell):
            try:
                _stop_process(cell)
                out(f"stopped {name} cell (pid {cell['pid']})")
            except BoardError as e:
                problems.append(str(e))
    region = state.get("region", {})
    for key in ("path", "lock"):
        p = region.get(key)
        if p and (region.get("created") or key == "lock") and Path(p).exists():
            Path(p).unlink()
            out(f"removed {p}")
    run = Path(state.get("run_dir", "/nonexistent"))
    (run / "console.sock").unlink(missing_ok=True)
    tmp = run / ANDROID_TMP_DIR
    if tmp.exists():
        shutil.rmtree(tmp, ignore_errors=True)
        out(f"removed {tmp}")
    return problems


def board_name_of(arg: str | None) -> str | None:
    """A board is named by its name or by the path of its YAML file."""
    if arg and (arg.endswith((".yaml", ".yml")) or os.sep in arg):
        return load_board(arg).name
    return arg


def down(board_name: str | None = None, out: Callable[[str], None] = print) -> int:
    """Stop the named board (or whichever is up). Returns how many boards were brought down."""
    board_name = board_name_of(board_name)
    with _up_lock():
        names = [board_name] if board_name else [d.name for d in sorted(paths.run_root().glob("*"))
                                                  if (d / "state.json").is_file()]
        done = 0
        for name in names:
            state = load_state(name)
            if state is None:
                _remove_leftovers(name, out)
                continue
            problems = _teardown(state, out)
            if problems:
                raise BoardError("; ".join(problems))
            state_path(name).unlink(missing_ok=True)
            out(f"board {name} down")
            done += 1
        if not names or (board_name and done == 0):
            out(f"board {board_name or ''} is not up".replace("  ", " "))
        return done


def _remove_leftovers(name: str, out) -> None:
    """No state but a region file of this board left behind (a killed `up`): remove it when no
    process maps it."""
    try:
        board = load_board(name)
    except Exception:
        return
    for p in (board.region_path, Path(str(board.region_path) + ".lock")):
        if p.exists():
            users = processes_mapping(p)
            if users:
                raise BoardError(f"{p} is left over and still mapped by pid(s) {users}; stop them first")
            p.unlink()
            out(f"removed leftover {p}")


# ------------------------------------------------------------------ status

STATE_NAMES = {0: "RESET", 1: "INITIALISING", 2: "READY", 3: "STOPPING", 4: "FAILED"}


def status(board_name: str | None = None) -> dict:
    board_name = board_name_of(board_name)
    boards = [board_name] if board_name else [n for n, _ in running_boards()]
    result = {}
    for name in boards:
        state = load_state(name)
        if state is None:
            result[name] = {"up": False}
            continue
        cells = {n: {"pid": c["pid"], "alive": process_alive(c), "ready": c.get("ready", False),
                     "role": c.get("role"), "log": c.get("log"),
                     **({"control_port": state.get("control_port")} if c.get("role") == "android" else {}),
                     **({"console": c["console"]} if c.get("console") else {})}
                 for n, c in state["cells"].items()}
        peers = {}
        try:
            from xcc import region as xr
            d = xr.dump(state["region"]["path"])
            for p in d["peers"]:
                peers[p["cell"]] = {k: p[k] for k in p if k in ("state", "epoch", "heartbeat")}
        except Exception as e:
            peers = {"error": str(e)}
        result[name] = {"up": all(c["alive"] for c in cells.values()), "phase": state.get("phase"),
                        "hypervisor": state.get("hypervisor"), "accel": state.get("accel"),
                        "cells": cells, "region": state["region"]["path"], "peers": peers,
                        "control_port": state.get("control_port"),
                        "rt_kernel_realtime": state.get("rt_kernel_realtime"),
                        "up_seconds": state.get("up_seconds")}
    return result


def current_state(board_name: str | None) -> dict:
    """The state of the named board, or of the one board that is up."""
    board_name = board_name_of(board_name)
    if board_name:
        state = load_state(board_name)
        if state is None:
            raise BoardError(f"board {board_name} is not up (rtdroid board up --board {board_name})")
        return state
    running = running_boards()
    if not running:
        raise BoardError("no board is up (rtdroid board up)")
    return running[0][1]
