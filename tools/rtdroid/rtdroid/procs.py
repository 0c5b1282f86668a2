"""Host processes seen through /proc: is a recorded cell still the same process, stop it, who maps
a file, is a port free, the tail of a log."""
from __future__ import annotations

import errno
import os
import re
import signal
import socket
import time
from pathlib import Path

from .errors import BoardError

TAIL_LINES = 30

# Each start of a cell appends "--- <time> rtdroid: <argv>" to its log (lifecycle._start_cell).
START_LINE = re.compile(r"^--- \S+ rtdroid: ", re.M)


def start_ticks(pid: int) -> int | None:
    """The process's start time in clock ticks since boot (None if it is gone or a zombie)."""
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
    ticks = start_ticks(pid)
    return ticks is not None and ticks == entry.get("start_ticks")


def stop_process(entry: dict, grace_s: float = 5.0) -> None:
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


def port_holder(port: int) -> str:
    """Who listens on 127.0.0.1:`port`, said after "already in use": a board's cell names its board
    and checkout (a cell runs in its board's run directory, <checkout>/build/run/<board>); another
    process its pid and command; "" when /proc does not tell."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            if len(f) > 9 and f[3] == "0A" and int(f[1].rsplit(":", 1)[1], 16) == port:  # 0A: LISTEN
                inodes.add(f"socket:[{f[9]}]")
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            if not any(os.readlink(fd) in inodes for fd in (d / "fd").iterdir()):
                continue
            cwd = Path(os.readlink(d / "cwd"))
            command = (d / "comm").read_text().strip()
        except OSError:
            continue
        if cwd.parent.name == "run" and cwd.parent.parent.name == "build":
            return (f": pid {d.name} holds it, a cell of board {cwd.name} of the checkout {cwd.parents[2]} "
                    f"(`rtdroid board down` there frees it)")
        return f": pid {d.name} holds it ({command}, working directory {cwd})"
    return ""


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


def this_start(log: Path) -> str:
    """What a cell's log holds since the cell's latest start (the log keeps earlier starts)."""
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return ""
    starts = [m.start() for m in START_LINE.finditer(text)]
    return text[starts[-1]:] if starts else text


def machine_log(log: Path, ready_file: Path) -> tuple[str, str]:
    """(what the cell's own log holds since its latest start; its tail for an error, or "").
    Only for a cell whose ready line comes elsewhere (a QEMU console): its log is then the
    machine's own (QEMU's stderr), which a failing guest may never echo on the console; the
    hypervisor reads the text (Hypervisor.start_refused)."""
    if log == ready_file:
        return "", ""
    text = this_start(log)
    lines = text.strip().splitlines()
    shown = f"\nlast {TAIL_LINES} lines of {log} (this start):\n" + "\n".join(lines[-TAIL_LINES:]) if lines else ""
    return text, shown
