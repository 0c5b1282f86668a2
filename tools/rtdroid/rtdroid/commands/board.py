"""`rtdroid board ...`: boot, inspect and tear down a board; render and validate board files."""
from __future__ import annotations

import json
import os
import select
import socket
import sys
import time
from pathlib import Path

from .. import lifecycle, paths, render
from ..boardconfig import available_boards, load_board
from .common import DEFAULT_BOARD, CliError, board_opt, lines, seconds


def cmd_board_up(a) -> int:
    cells = [c.strip() for c in a.cells.split(",")] if a.cells else None
    if cells and (not set(cells) <= {"rt", "android"} or not cells):
        raise CliError(f"--cells {a.cells!r}: name cells among rt, android")
    lifecycle.up(a.board, cells=cells, boot_timeout=a.timeout, cold=a.cold, images=a.images)
    return 0


def cmd_board_down(a) -> int:
    lifecycle.down(a.board)
    return 0


def cmd_board_restart(a) -> int:
    lifecycle.restart(a.cell, a.board, boot_timeout=a.timeout)
    return 0


def cmd_board_status(a) -> int:
    st = lifecycle.status(a.board)
    if a.json:
        # One board is up at a time: its status as one flat object ({"board": null} when none).
        name, b = next(iter(st.items())) if st else (a.board, {"up": False})
        print(json.dumps({"board": name, **b}, indent=2, sort_keys=True))
        return 0 if b.get("up") else 1
    if not st:
        print("no board is up")
        return 1
    code = 0
    for name, b in st.items():
        if not b.get("phase"):
            print(f"board {name}: not up")
            code = 1
            continue
        # the first line states the worst condition (a cell down, the link degraded), never "up" then
        print(f"board {name}: {b['condition']} (phase {b['phase']}, {b['hypervisor']}"
              + (f", {b['accel']}" if b.get("accel") else "") + ")")
        for cn, c in b["cells"].items():
            print(f"  cell {cn}: pid {c['pid']} {'running' if c['alive'] else 'NOT RUNNING'}"
                  f"{', ready' if c['ready'] else ''}")
        print(f"  region {b['region']}: link {b.get('link', 'unknown')}")
        for pn, p in b["peers"].items():
            if isinstance(p, dict):
                print(f"  peer {pn}: state {p.get('state')} epoch {p.get('epoch')} heartbeat {p.get('heartbeat')}")
            else:
                print(f"  peers: {p}")
        print(f"  Android control port 127.0.0.1:{b['control_port']}, adb 127.0.0.1:{b.get('adb_port')}; RT kernel realtime="
              f"{b.get('rt_kernel_realtime')}; up in {_seconds_text(b.get('up_seconds'))}")
        for line in _app_lines(b):
            print("  " + line)
        if b["condition"] != "up":
            code = 1
    return code


def _seconds_text(s) -> str:
    return "unknown" if s is None else f"{s:.1f} s"


def _app_lines(b: dict) -> list[str]:
    """The Android cell's apps: uid, state and, for a crashed one, why (as `adb shell dumpsys`)."""
    if not any(c.get("role") == "android" and c.get("alive") for c in b.get("cells", {}).values()):
        return []
    from ..control import AndroidControl
    try:
        apps = AndroidControl.for_board(b, timeout=5).call("GET", "/apps")
    except lifecycle.BoardError as e:
        return [f"apps: unknown ({str(e).splitlines()[0]})"]
    lines = []
    for app in apps:
        why = f", last crash: {app['lastCrash'].splitlines()[0]}" if app.get("lastCrash") else ""
        lines.append(f"app {app['package']}: uid {app.get('uid')}, {app['state']}"
                     f"{' (system)' if app.get('system') else ''}, crashes {app.get('crashes', 0)}{why}"
                     f"{_process_text(app.get('process'))}")
    return lines


def _process_text(p) -> str:
    """Where an app runs: its own process (pid, state, starts, why the last one ended), or the
    system server's."""
    if not isinstance(p, dict):
        return ", in the system server's process" if p == "system_server" else ""
    if "pid" not in p:
        return ", own process: not started yet"
    death = f", last death: {p['lastDeath']}" if p.get("lastDeath") else ""
    return f", own process pid {p['pid']} {p['state']} (starts {p['starts']}{death})"


def _follow(path: Path, start_lines: int) -> None:
    print(lifecycle.tail(path, start_lines))
    with open(path, "rb") as f:
        f.seek(0, os.SEEK_END)
        while True:
            chunk = f.read()
            if chunk:
                sys.stdout.write(chunk.decode(errors="replace"))
                sys.stdout.flush()
            else:
                time.sleep(0.2)


def cmd_board_console(a) -> int:
    state = lifecycle.current_state(a.board)
    cell = next((c for c in state["cells"].values() if c.get("role") == a.cell), None)
    if cell is None:
        raise CliError(f"board {state['board']} has no running {a.cell} cell")
    sock_path = cell.get("console_socket")
    if sock_path and Path(sock_path).exists() and not a.tail:
        # An interactive serial console: bytes both ways until Ctrl-] (0x1d) or EOF.
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(sock_path)
        print(f"connected to {a.cell} cell's serial console ({sock_path}); Ctrl-] leaves", file=sys.stderr)
        import termios
        import tty
        fd = sys.stdin.fileno()
        old = termios.tcgetattr(fd) if os.isatty(fd) else None
        try:
            if old:
                tty.setraw(fd)
            while True:
                r, _, _ = select.select([s, fd], [], [])
                if s in r:
                    data = s.recv(4096)
                    if not data:
                        break
                    os.write(sys.stdout.fileno(), data)
                if fd in r:
                    data = os.read(fd, 1024)
                    if not data or b"\x1d" in data:
                        break
                    s.sendall(data)
        finally:
            if old:
                termios.tcsetattr(fd, termios.TCSADRAIN, old)
            s.close()
        return 0
    log = Path(cell.get("console") or cell["log"])
    try:
        _follow(log, a.lines)
    except KeyboardInterrupt:
        pass
    return 0


def cmd_board_logs(a) -> int:
    run = paths.run_dir(a.board) if a.board else None
    if run is None:
        running = lifecycle.running_boards()
        if running:
            run = paths.run_dir(running[0][0])
        else:  # logs survive `down`: show the last board's
            dirs = sorted(paths.run_root().glob("*/"), key=lambda d: d.stat().st_mtime) \
                if paths.run_root().is_dir() else []
            if not dirs:
                raise CliError("no board has run yet")
            run = dirs[-1]
    names = {"rt": ["rt.log"], "android": ["android.log"], "console": ["console.log"],
             "all": ["rt.log", "console.log", "android.log"]}[a.which]
    if a.which == "rt" and (run / "console.log").exists():
        names = ["console.log", "rt.log"]
    if a.follow:
        if len(names) != 1 and a.which == "all":
            raise CliError("--follow needs one log: rt, android or console")
        try:
            _follow(run / names[0], a.lines)
        except KeyboardInterrupt:
            pass
        return 0
    for n in names:
        p = run / n
        if p.exists():
            print(f"==> {p} <==")
            print(lifecycle.tail(p, a.lines))
    return 0


def cmd_board_render(a) -> int:
    boards = available_boards() if a.all else [a.board or DEFAULT_BOARD]
    code = 0
    for name in boards:
        board = load_board(name)
        if a.update_golden or a.write:
            for p in (render.write_golden(board) if a.update_golden
                      else render.write_rendered(board, render.rendered_dir(board))):
                print(f"wrote {p}")
        elif a.check:
            bad = render.compare_with_golden(board)
            if bad:
                print(f"{name}: rendering differs from golden: {', '.join(bad)}")
                code = 1
            else:
                print(f"{name}: rendering matches golden")
        else:
            for fname, text in render.rendered_files(board).items():
                if len(boards) > 1 or fname != f"{name}.json":   # name every file after the JSON
                    print(f"# {fname}")
                print(text, end="")
    return code


def cmd_board_validate(a) -> int:
    for f in a.files:
        b = load_board(f)
        print(f"{b.source}: valid ({b.name}, hypervisor {b.hypervisor})")
    return 0



def register(commands) -> None:
    board = commands.group("board", help="boot, inspect, tear down a board")
    sp = board.add_parser("up", help="format the region, start both cells, wait until ready")
    board_opt(sp, DEFAULT_BOARD)
    sp.add_argument("--cells", metavar="LIST", help="start only these cells (rt,android); default both")
    sp.add_argument("--cold", action="store_true",
                    help="boot a qemu RT cell cold even when its board restores it from a boot snapshot")
    sp.add_argument("--timeout", type=seconds, metavar="S", help="boot timeout per cell (default: the board's)")
    sp.add_argument("--images", type=Path, metavar="DIR",
                    help="boot the RT cell from the images in DIR (copies of the build's a lab deployed: "
                         "vmlinux or bzImage, initrd.cpio) instead of building and booting the build's")
    sp.set_defaults(func=cmd_board_up)
    sp = board.add_parser("down", help="stop every cell, remove the region file")
    board_opt(sp)
    sp.set_defaults(func=cmd_board_down, clears_leftovers=True)  # `down` of a board that is gone is no typo
    sp = board.add_parser("restart", help="stop and start one cell of the board that is up")
    sp.add_argument("cell", choices=["rt", "android"])
    board_opt(sp)
    sp.add_argument("--timeout", type=seconds, metavar="S", help="boot timeout (default: the board's)")
    sp.set_defaults(func=cmd_board_restart)

    sp = board.add_parser("status", help="cells, peers and region of the board that is up")
    board_opt(sp)
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(func=cmd_board_status)
    sp = board.add_parser("console", help="attach to a cell's serial console (or follow its log)")
    sp.add_argument("cell", choices=["rt"])
    board_opt(sp)
    sp.add_argument("--tail", action="store_true", help="follow the console log instead of attaching")
    sp.add_argument("-n", "--lines", type=lines, default=30)
    sp.set_defaults(func=cmd_board_console)
    sp = board.add_parser("logs", help="show the cells' logs")
    sp.add_argument("which", nargs="?", default="all", choices=["rt", "android", "console", "all"])
    board_opt(sp)
    sp.add_argument("-n", "--lines", type=lines, default=50)
    sp.add_argument("-f", "--follow", action="store_true")
    sp.set_defaults(func=cmd_board_logs)
    sp = board.add_parser("render", help="render a board to its hypervisor's command lines")
    board_opt(sp, DEFAULT_BOARD)
    sp.add_argument("--all", action="store_true", help="every board in board-configs/")
    g = sp.add_mutually_exclusive_group()
    g.add_argument("--check", action="store_true", help="compare with hypervisor-cells/<hv>/golden/")
    g.add_argument("--update-golden", action="store_true", help="rewrite the golden files")
    g.add_argument("--write", action="store_true", help="write the rendered files to build/render/<board>/")
    sp.set_defaults(func=cmd_board_render)
    sp = board.add_parser("validate", help="validate board files")
    sp.add_argument("files", nargs="+")
    sp.set_defaults(func=cmd_board_validate)
