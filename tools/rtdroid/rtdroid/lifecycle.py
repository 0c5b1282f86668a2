"""Board lifecycle: up, down, restart, status. The CLI plays the hypervisor's part: it formats
the shared region, starts each cell pinned to its CPUs, waits for each to report ready, and on any
failure, Ctrl-C or SIGTERM during `up` tears down everything it started.

Generic over hypervisors: everything about the RT cell that depends on how it runs (its image,
start, ready file, console, stop) is asked of the board's hypervisor module
(hypervisors/<name>.py, interface in hypervisors/base.py). Process control is procs.py, the run
state, lock and signals runstate.py.

State lives in build/run/<board>/state.json (pids, paths, ports); logs beside it
(rt.log, android.log, console.log for an RT cell with a serial console).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Callable

from . import adb, aotcache, hypervisors, keys, paths
from .boardconfig import MIB, Board, check_host_cpus, load_board
from .errors import BoardError
from .hypervisors.base import Launch
from .procs import TAIL_LINES, port_holder, port_in_use, machine_log, process_alive, processes_mapping, start_ticks, stop_process, tail
from .progress import Progress
from .render import ANDROID_TMP_DIR, render, resolve_argv
from .runstate import (Interrupted, load_state, running_boards, save_state, signals_raise, state_path,
                       up_lock)

__all__ = ["BoardError", "up", "down", "restart", "status", "current_state", "load_state",
           "running_boards", "process_alive", "tail"]


# ------------------------------------------------------------------ up

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
                         f"already in use{port_holder(board.control_port)}")
    if "android" in cells and port_in_use(board.adb_port):
        raise BoardError(f"port {board.adb_port} on 127.0.0.1 (the Android cell's adb port, the board "
                         f"file's adb_port) is already in use{port_holder(board.adb_port)}")
    if "android" in cells:
        adb.binary()
    if not Path("/dev/shm").is_dir():
        raise BoardError("/dev/shm does not exist")
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
    state["cells"][name] = {"name": name, "pid": p.pid, "start_ticks": start_ticks(p.pid),
                            "argv": argv, "log": str(log), "ready": False}
    save_state(state)
    return p


def _region_peer_state(region_path: Path, peer: int) -> int | None:
    try:
        from xcc import region as xr
        with xr.open_region(str(region_path), 1) as r:
            return r.peer_state(peer)
    except Exception:
        return None


def _wait_ready(board: Board, state: dict, pending: dict, progress: Progress) -> None:
    """pending: cell name -> (Popen, ready file, ready regex, timeout). What the RT cell's console
    says before its agent speaks (boot milestones, the kernel's boot) is its hypervisor's to read."""
    hv = hypervisors.get(board.hypervisor)
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
                # When each boot milestone first showed up (seconds since `up` began): the
                # hypervisor's own (its boot, the guest kernel's /init), the agent's runtime
                # started and awaiting the region, attached to it, serving.
                ms = cell.setdefault("milestones", {})
                for key, rx in (*hv.boot_milestones,
                                ("agent_awaiting_region", r"rtcell: runtime started; awaiting the region"),
                                ("agent_jvm_started", r"rtcell: region"),
                                ("agent_ready", pattern)):
                    if key not in ms and re.search(rx, text):
                        ms[key] = round(progress.elapsed(), 3)
            if role == "rt" and name not in booted:
                kernel = hv.kernel_booted(text)
                if kernel:  # the kernel is up: the rest is the JVM and agent
                    booted.add(name)
                    cell["kernel_booted_seconds"] = round(progress.elapsed(), 3)
                    progress.note(f"{name} cell: kernel booted ({kernel}), RT cell agent starting")
            if m and (role != "rt" or _region_peer_state(board.region_path, 0) == 2):
                cell["ready"] = True
                cell["ready_seconds"] = round(progress.elapsed(), 3)
                detail = m.group(0).strip()
                if role == "rt":
                    realtime = hv.kernel_realtime(text)
                    state["rt_kernel_realtime"] = realtime
                    cell["kernel"] = hv.kernel_release(text)
                    detail += f", region peer 0 READY, kernel realtime={realtime}"
                else:
                    pm = re.search(r"port=(\d+)", m.group(0))
                    if pm and int(pm.group(1)) != board.control_port:
                        raise BoardError(f"Android cell reports port {pm.group(1)}, board says "
                                         f"{board.control_port}")
                    am = re.search(r" adb=(\d+)", m.group(0))
                    if am and int(am.group(1)) != board.adb_port:
                        raise BoardError(f"Android cell reports adb port {am.group(1)}, board says "
                                         f"{board.adb_port}")
                    cell["adb"] = bool(am)
                    cell["kernel"] = os.uname().release  # a process on the root side: its kernel
                    refused = aotcache.refusal(text)
                    if refused:
                        cell["aot_refused"] = refused
                        detail += f"; its JVM refused the AOT cache and started without it: {refused}"
                save_state(state)
                progress.stage(f"{name} cell ready: {detail}")
                del pending[name]
                continue
            machine, shown = machine_log(Path(cell["log"]), ready_file)
            refused = hv.start_refused(machine) if role == "rt" and machine else None
            rc = proc.poll()
            why = (f"the {name} cell exited with status {rc} before it was ready" if rc is not None
                   else f"the {name} cell cannot get to ready: {refused}"
                   if refused
                   else f"the {name} cell did not report ready within {timeout:g} s"
                   if time.monotonic() > deadlines[name] else None)
            if why:
                raise BoardError(f"{why}; last {TAIL_LINES} lines of {ready_file}:\n{tail(ready_file)}{shown}")
        time.sleep(0.05)


def up(board_name: str, cells: list[str] | None = None, boot_timeout: float | None = None,
       out: Callable[[str], None] = print, cold: bool = False, images: Path | None = None) -> dict:
    cells = cells or ["rt", "android"]
    board = load_board(board_name)
    hv = hypervisors.get(board.hypervisor)
    if hv.cannot_run_here(board):
        raise BoardError(hv.cannot_run_here(board))
    total = 3 + 2 * len(cells) + hv.prepare_stages
    progress = Progress(total, out)
    with up_lock():
        running = running_boards()
        if running:
            names = ", ".join(n for n, _ in running)
            raise BoardError(f"board {names} is already up; run `rtdroid board down` first "
                             "(one board at a time: they share CPUs and the control port)")
        progress.stage(f"board file {board.source} validated ({board.name}, hypervisor {board.hypervisor})")
        _prerequisites(board, cells)
        key_pub = keys.ensure_keys(out=lambda s: None)
        # images: the RT cell boots copies of the build's images from there (a lab deployed them)
        values = (hv.prepare_from(board, images, progress) if images and "rt" in cells
                  else hv.prepare(board, "rt" in cells, progress))
        progress.stage(f"prerequisites checked (CPUs, ports, region file free, deploy key {key_pub.name})")

        run = paths.run_dir(board.name)
        run.mkdir(parents=True, exist_ok=True)
        _remove_run_files(run, "rt.log", "android.log", *hv.run_files)
        state = {"board": board.name, "hypervisor": board.hypervisor, "phase": "starting",
                 "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "cells": {},
                 "region": {"path": str(board.region_path), "lock": str(board.region_path) + ".lock",
                            "file_bytes": board.region["size_bytes"]},
                 "control_port": board.control_port, "adb_port": board.adb_port, "run_dir": str(run)}
        if "android" in cells:
            adb.authorise(run)
        save_state(state)
        try:
            with signals_raise():
                _up_started(board, cells, state, progress, run, values, boot_timeout, cold)
        except BaseException as e:
            out(f"board up failed ({_describe(e)}); tearing down what was started")
            try:
                _teardown(state, out=lambda s: out("  " + s))
            finally:
                state_path(board.name).unlink(missing_ok=True)
            if isinstance(e, (KeyboardInterrupt, Interrupted)):
                raise BoardError(f"interrupted ({_describe(e)}); everything started was torn down") from None
            raise
        if any(c.get("adb") for c in state["cells"].values()):
            _adb_connect(state, out)
        state["phase"] = "ready"
        state["up_seconds"] = round(progress.elapsed(), 3)
        save_state(state)
        out(f"board {board.name} up in {progress.elapsed():.2f} s (state {state_path(board.name)})")
        return state


def _adb_connect(state: dict, out: Callable[[str], None]) -> None:
    """The user's adb server connects to the Android cell, as to an emulator (`adb devices` lists
    it); `board down` disconnects it, and stops the adb server if this started it."""
    client = adb.Adb(state["adb_port"])
    started = client.connect()
    state["adb_server_started"] = state.get("adb_server_started") or started
    out(f"adb: {client.serial} connected (adb -s {client.serial} shell ...)")


def _describe(e: BaseException) -> str:
    if isinstance(e, KeyboardInterrupt):
        return "Ctrl-C"
    if isinstance(e, Interrupted):
        return str(e)
    return str(e).splitlines()[0].rstrip(":;") if str(e) else type(e).__name__


def _up_started(board, cells, state, progress, run, hv_values, boot_timeout, cold=False):
    from xcc import region as xr
    hv = hypervisors.get(board.hypervisor)
    r = board.region
    path = board.region_path
    region_after_start = "rt" in cells and hv.region_after_start(board, cold)
    # Claim the file exclusively first: a concurrent creator makes this fail instead of sharing it.
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o660)
    except FileExistsError:
        raise BoardError(f"shared-memory file {path} already exists") from None
    os.close(fd)
    state["region"]["created"] = True
    save_state(state)

    def format_region(in_place: bool) -> None:
        fmt = xr.format_in_place if in_place else xr.format
        layout = fmt(str(path), rings=r["rings"], slots=r["slots"], slot_bytes=r["slot_bytes"])
        # The file is the shared memory's backing: its size is the board's (a power of two) and
        # the formatted region_bytes may be smaller.
        if os.path.getsize(path) != r["size_bytes"]:
            os.truncate(path, r["size_bytes"])
        progress.stage(f"region formatted at {path} ({r['size_bytes'] / MIB:g} MiB file, "
                       f"{layout.region_bytes} bytes formatted, R={r['rings']} S={r['slots']} "
                       f"slot {r['slot_bytes']} B)")

    if region_after_start:
        os.truncate(path, r["size_bytes"])   # zero until the RT cell runs
    else:
        format_region(in_place=False)

    rendered = render(board)
    values = {"RTDROID_HOME": str(paths.repo_root()), "RUN_DIR": str(run), "CHECKOUT": paths.checkout_id(),
              "JAVA_HOME": str(paths.java_home()), "RT_KERNEL": "",
              "RT_AGENT_LIB": str(paths.rt_agent_lib_dir()),
              "ANDROID_CELL_DIST": str(paths.android_cell_dist_dir()), **hv_values}
    pending = {}
    state["rt_clock"] = hv.clock(board)  # the hypervisor's start() may correct it
    # The Android cell first: its JVM's start is the longest and needs nothing of the RT cell (its
    # proxy attaches once the region is formatted), while starting the RT cell can block here (a
    # qemu board restores its boot snapshot before start() returns). The two run on disjoint CPUs.
    for cell_name, cell in sorted(rendered["cells"].items(), key=lambda c: c[1]["role"] != "android"):
        role = cell["role"]
        if role not in cells:
            continue
        timeout = boot_timeout or board.cell(role).get("boot_timeout_seconds", 60)
        if role == "rt":
            launch = Launch(board=board, name=cell_name, argv=cell["argv"], values=dict(values), run=run,
                            timeout=timeout, cold=cold, progress=progress, state=state,
                            start_process=lambda argv, log, n=cell_name: _start_cell(state, n, argv, log),
                            stop_process=lambda n=cell_name: stop_process(state["cells"][n]),
                            format_region=lambda: format_region(in_place=True))
            p, how = hv.start(launch)
            state["cells"][cell_name].update(role=role, **hv.cell_entry(run))
            ready_file = hv.ready_file(run, cell)
        else:
            log = run / cell["log"]
            argv = aotcache.with_cache(resolve_argv(cell["argv"], values))
            p = _start_cell(state, cell_name, argv, log)
            state["cells"][cell_name]["role"] = role
            how = (f"Android cell host, pid {p.pid}, CPUs {board.cell(role)['cpus']}, "
                   + ("AOT cache" if any(a.startswith("-XX:AOTCache=") for a in argv)
                      else "no AOT cache" if not aotcache.enabled()
                      else "no AOT cache (make build makes one)"))
            ready_file = log
        progress.stage(f"{cell_name} cell started: {how}")
        pending[cell_name] = (p, ready_file, _ready_pattern(role, hv.console_line_prefix if role == "rt" else ""),
                              timeout)
        save_state(state)
    _wait_ready(board, state, pending, progress)


def _ready_pattern(role: str, console_line_prefix: str = "") -> str:
    """The cell's ready marker, only as the start of a line (after the console's own prefix)."""
    marker = "RTCELL READY" if role == "rt" else "ANDROID CELL READY"
    return rf"(?m)^(?:{console_line_prefix})?{marker}[^\r\n]*"


def _remove_run_files(run: Path, *names: str) -> None:
    for name in names:
        (run / name).unlink(missing_ok=True)


# ------------------------------------------------------------------ restart

def restart(cell_name: str, board_name: str | None = None, boot_timeout: float | None = None,
            out: Callable[[str], None] = print) -> dict:
    """Stops one cell of the board that is up (if it still runs) and starts it again with the
    argv it was started with, waiting until it reports ready. The region and the other cell are
    left alone: this is how a crashed Android cell comes back while the RT cell keeps running."""
    with up_lock():
        state = current_state(board_name)
        board = load_board(state["board"])
        cell = state["cells"].get(cell_name)
        if cell is None:
            raise BoardError(f"board {state['board']} has no cell {cell_name!r} "
                             f"(cells: {', '.join(state['cells'])})")
        hv = hypervisors.get(board.hypervisor)
        if cell.get("role") == "rt" and not hv.restartable:
            raise BoardError(f"restarting the RT cell of a {board.hypervisor} board is not supported; "
                             "use `rtdroid board down` and `board up`")
        if process_alive(cell):
            _stop(state, cell)
            out(f"stopped {cell_name} cell (pid {cell['pid']})")
        log = Path(cell["log"])
        if log.exists():
            # The ready line of the previous incarnation must not satisfy the wait below.
            log.replace(log.with_name(log.name + ".previous"))
        progress = Progress(2, out)
        p = _start_cell(state, cell_name, cell["argv"], log)
        state["cells"][cell_name]["role"] = cell["role"]
        progress.stage(f"{cell_name} cell restarted, pid {p.pid}")
        pattern = _ready_pattern(cell["role"], hv.console_line_prefix if cell["role"] == "rt" else "")
        timeout = boot_timeout or board.cell(cell["role"]).get("boot_timeout_seconds", 60)
        _wait_ready(board, state, {cell_name: (p, log, pattern, timeout)}, progress)
        if state["cells"][cell_name].get("adb"):
            _adb_connect(state, out)  # the adb server's connection went with the old process
            save_state(state)
        return state


# ------------------------------------------------------------------ down

def _hypervisor_of(state: dict):
    name = state.get("hypervisor")
    return hypervisors.get(name) if name in hypervisors.names() else None


def _stop(state: dict, cell: dict) -> None:
    """The RT cell stops the way its hypervisor says; the Android cell is a host process."""
    hv = _hypervisor_of(state)
    if cell.get("role") == "rt" and hv is not None:
        hv.stop(cell)
    else:
        stop_process(cell)


def _teardown(state: dict, out: Callable[[str], None]) -> list[str]:
    problems = []
    for name, cell in state.get("cells", {}).items():
        if process_alive(cell):
            try:
                _stop(state, cell)
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
    hv = _hypervisor_of(state)
    # The sockets a VM leaves (its console log stays for reading after `down`).
    _remove_run_files(run, *(f for f in (hv.run_files if hv else ()) if f.endswith(".sock")))
    if any(c.get("adb") for c in state.get("cells", {}).values()):
        try:
            adb.Adb(state["adb_port"], timeout=15).disconnect(stop_server=bool(state.get("adb_server_started")))
        except BoardError as e:
            problems.append(str(e))
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
    with up_lock():
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
                     **({"console": c["console"]} if c.get("console") else {}),
                     **({"kernel": c["kernel"]} if c.get("kernel") else {}),
                     **({"snapshot_cold_boot_seconds": c["snapshot_cold_boot_seconds"]}
                        if "snapshot_cold_boot_seconds" in c else {})}
                 for n, c in state["cells"].items()}
        peers = {}
        link: list[str] = []
        try:
            from xcc import region as xr
            d = xr.dump(state["region"]["path"])
            for p in d["peers"]:
                peers[p["cell"]] = {k: p[k] for k in p if k in ("state", "epoch", "heartbeat")}
            link = link_problems(d, {c["role"] for c in cells.values() if c["alive"]})
        except Exception as e:
            peers = {"error": str(e)}
            link = [f"region not readable: {e}"]
        result[name] = {"up": all(c["alive"] for c in cells.values()), "phase": state.get("phase"),
                        "condition": worst_condition(cells, state.get("phase"), link),
                        "link": "ok" if not link else "degraded: " + "; ".join(link),
                        "hypervisor": state.get("hypervisor"), "accel": state.get("accel"),
                        "cells": cells, "region": state["region"]["path"], "peers": peers,
                        "control_port": state.get("control_port"), "adb_port": state.get("adb_port"),
                        "adb": any(c.get("adb") for c in state["cells"].values()),
                        "rt_kernel_realtime": state.get("rt_kernel_realtime"),
                        "rt_clock": state.get("rt_clock", {"kind": "host"}),
                        "up_seconds": state.get("up_seconds")}
    return result


def worst_condition(cells: dict, phase: str | None, link: list[str]) -> str:
    """The board's state in a few words, its worst condition first: cells not running (DOWN when
    none runs), then a link that does not heal, then a board still starting; "up" only when none
    of these holds. `board status` leads with it."""
    stopped = [n for n, c in cells.items() if not c["alive"]]
    if stopped:
        return ("DOWN" if len(stopped) == len(cells) else "DEGRADED") + \
            f": cell {', '.join(stopped)} not running"
    if link:
        return "DEGRADED: link " + "; ".join(link)
    if phase != "ready":
        return f"NOT READY: phase {phase}"
    return "up"


def link_problems(dump: dict, running: set[str]) -> list[str]:
    """What a snapshot of the region shows wrong with the link between running cells: a cell not
    READY, a ring whose write index and its consumer's read index are not credible together
    (read <= write <= read + slots), a ring class that is not its ring. Each cell puts back its own
    fields within a heartbeat (Region.heal); a problem that stays is a link that does not heal."""
    slots = dump["header"]["slots_per_ring"]
    problems = []
    for p in dump["peers"]:
        if p["cell"] not in running:
            continue
        if p["state"] != "READY":
            problems.append(f"{p['cell']} cell is {p['state']}")
        other = "android" if p["cell"] == "rt" else "rt"
        for r in p["rings"]:
            w, rd = r["producer"]["write_index"], r["consumer"]["read_index"]
            if other in running and not rd <= w <= rd + slots:
                problems.append(f"{p['cell']} ring {r['ring']}: write index {w} and read index {rd} "
                                f"are not credible together")
            if r["producer"]["ring_class"] != r["ring"]:
                problems.append(f"{p['cell']} ring {r['ring']}: ring class {r['producer']['ring_class']}")
    return problems


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
