"""`rtdroid`: boot, inspect and tear down partitioned boards; deploy to their cells.

Exit status: 0 success, 1 refused or failed (the message says why), 2 bad command line.
Every error is one line on stderr; ``--debug`` (anywhere on the command line) adds the trace.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import select
import socket
import sys
import time
import traceback
from pathlib import Path

from . import adb, keys, lifecycle, paths, render, validate
from .boardconfig import BoardConfigError, BoardNotFound, available_boards, load_board, resolve_board_file
from .servicerows import cost_overrun_text, wcrt_exceeded_text

DEFAULT_BOARD = "qemu-x86_64"


class CliError(Exception):
    pass


def _err(msg: str) -> None:
    print(f"rtdroid: {msg}", file=sys.stderr)


# ------------------------------------------------------------------ argument types

def _number(convert, lowest, highest=None, what="a number", above=False):
    """An argparse type: a finite number >= lowest (> lowest if ``above``) and <= highest, or
    exit 2 naming the rule."""
    rule = (f"{lowest}..{highest}" if highest is not None else f"> {lowest}" if above else f">= {lowest}")

    def parse(text: str):
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if not (math.isfinite(value) and (value > lowest if above else value >= lowest)
                and (highest is None or value <= highest)):
            raise argparse.ArgumentTypeError(f"{text}: must be {what} {rule}")
        return value
    return parse


_seconds = _number(float, 0, what="seconds", above=True)
_count = _number(int, 1, what="a whole number")
_lines = _number(int, 0, what="a whole number of lines")
_priority = _number(int, 0, 99, what="a priority")


def _existing_file(what: str, p: Path, hint: str = "") -> Path:
    if p.is_dir():
        raise CliError(f"{what} {p} is a directory, not a file")
    if not p.is_file():
        raise CliError(f"{what} {p} does not exist{hint}")
    if not os.access(p, os.R_OK):
        raise CliError(f"{what} {p} is not readable")
    return p


# ------------------------------------------------------------------ board

def cmd_board_up(a) -> int:
    cells = [c.strip() for c in a.cells.split(",")] if a.cells else None
    if cells and (not set(cells) <= {"rt", "android"} or not cells):
        raise CliError(f"--cells {a.cells!r}: name cells among rt, android")
    lifecycle.up(a.board, cells=cells, boot_timeout=a.timeout, cold=a.cold)
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
        print(f"board {name}: {'up' if b['up'] else 'DEGRADED'} (phase {b['phase']}, {b['hypervisor']}"
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
              f"{b.get('rt_kernel_realtime')}; up in {b.get('up_seconds')} s")
        for line in _app_lines(b):
            print("  " + line)
        if not b["up"] or b.get("link", "ok") != "ok":
            code = 1
    return code


def _app_lines(b: dict) -> list[str]:
    """The Android cell's apps: uid, state and, for a crashed one, why (as `adb shell dumpsys`)."""
    if not any(c.get("role") == "android" and c.get("alive") for c in b.get("cells", {}).values()):
        return []
    from .control import AndroidControl
    try:
        apps = AndroidControl.for_board(b, timeout=5).call("GET", "/apps")
    except lifecycle.BoardError as e:
        return [f"apps: unknown ({str(e).splitlines()[0]})"]
    lines = []
    for app in apps:
        why = f", last crash: {app['lastCrash'].splitlines()[0]}" if app.get("lastCrash") else ""
        lines.append(f"app {app['package']}: uid {app.get('uid')}, {app['state']}"
                     f"{' (system)' if app.get('system') else ''}, crashes {app.get('crashes', 0)}{why}")
    return lines


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


def cmd_validate(a) -> int:
    board = load_board(a.board or DEFAULT_BOARD)
    code, report, errors = validate.run(board, a.manifests, json_out=a.json, cheddar=a.cheddar)
    print(report, end="")
    for line in errors.splitlines():
        if line.strip():
            _err(line)
    if a.cheddar and code != 2:
        print(f"wrote {a.cheddar}", file=sys.stderr)
    return code


# ------------------------------------------------------------------ RT cell management

def _mgmt():
    try:
        from xcc import mgmt
    except ImportError as e:
        raise CliError(f"the bridge's Python package xcc.mgmt is not available ({e}); "
                       "run tools/setup.sh") from None
    return mgmt


def _region_of(a) -> str:
    state = lifecycle.current_state(a.board)
    if "rt" not in {c.get("role") for c in state["cells"].values()}:
        raise CliError(f"board {state['board']} has no RT cell running")
    return state["region"]["path"]


def _result_ok(res) -> tuple[bool, str]:
    """xcc.mgmt.Result: code (0 = OK), name (BAD_SIGNATURE, ...), text (the agent's reason)."""
    if res.code == 0:
        return True, res.text or "OK"
    return False, f"{res.name} ({res.code}): {res.text}"


def cmd_deploy_rt(a) -> int:
    bundle = _existing_file("bundle", Path(a.bundle))
    mgmt = _mgmt()
    t0 = time.monotonic()
    res = mgmt.deploy(_region_of(a), str(bundle), timeout=a.timeout)
    print(f"deploy answered in {time.monotonic() - t0:.2f} s", file=sys.stderr)
    ok, text = _result_ok(res)
    print(f"deploy {bundle.name}: {'OK' if ok else 'REFUSED'}: {text}")
    return 0 if ok else 1


def cmd_undeploy_rt(a) -> int:
    res = _mgmt().undeploy(_region_of(a), a.name, timeout=a.timeout)
    ok, text = _result_ok(res)
    print(f"undeploy {a.name}: {'OK' if ok else 'REFUSED'}: {text}")
    return 0 if ok else 1


def _as_dict(x):
    if isinstance(x, dict):
        return x
    if hasattr(x, "_asdict"):
        return x._asdict()
    if hasattr(x, "__dataclass_fields__"):
        import dataclasses
        return dataclasses.asdict(x)
    try:
        from xcc.frames import to_dict
        return to_dict(x)
    except Exception:
        return vars(x)


def cmd_rt_services(a) -> int:
    region = _region_of(a)
    clock = _clock_of(a)
    mgmt = _mgmt()
    services = [_as_dict(s) for s in mgmt.list_services(region, timeout=a.timeout)]
    if a.json:
        # each row says which clock its releases, misses and lateness were judged by
        print(json.dumps([{**s, "clock": clock} for s in services], indent=2, sort_keys=True))
        return 0
    print(render_services(services, clock) if services else "no RT services deployed\n", end="")
    try:
        print(_sensors_line(mgmt.sensor_status(region, timeout=a.timeout)))
    except mgmt.MgmtError as e:  # the services above stand; say why the sensors' line is missing
        print(f"sensors: no answer ({e})")
    return 0


def _sensors_line(res) -> str:
    """The agent's one line on the cell's sensors: its text when they are there
    ("sensors: ..."), and "sensors unavailable: <reason>" when they are not."""
    return res.text if res.code == 0 or res.text.startswith("sensors unavailable") else \
        f"sensors: {res.name} ({res.code}): {res.text}"


def cmd_rt_sensors_status(a) -> int:
    res = _mgmt().sensor_status(_region_of(a), timeout=a.timeout)
    print(_sensors_line(res))
    return 0 if res.code == 0 else 1


def cmd_rt_sensors_replay(a) -> int:
    """Sends a motion trace to the RT cell, which replays it into its sensors (the agent checks
    the trace whole first and names the line of a problem)."""
    mgmt = _mgmt()
    trace = _existing_file("trace", Path(a.trace))
    size = trace.stat().st_size
    if not 0 < size <= mgmt.MAX_TRACE_BYTES:
        raise CliError(f"trace {trace} is {size} bytes; a trace has 1..{mgmt.MAX_TRACE_BYTES}")
    if not _TRACE_NAME.fullmatch(trace.name):
        raise CliError(f"trace {trace}: its file name must be 1-63 characters of [A-Za-z0-9._-] "
                       "(the RT cell names the replay by it)")
    res = mgmt.replay_trace(_region_of(a), trace, timeout=a.timeout)
    ok, text = _result_ok(res)
    print(f"replay {trace.name}: {'OK' if ok else 'REFUSED'}: {text}")
    return 0 if ok else 1


_TRACE_NAME = re.compile(r"[A-Za-z0-9._-]{1,63}")


def _clock_of(a) -> dict:
    try:
        return lifecycle.current_state(a.board).get("rt_clock", {"kind": "host"})
    except lifecycle.BoardError:
        return {"kind": "host"}


def clock_label(clock: dict) -> str:
    """What the RT cell's deadlines and lateness are measured in (the board's rt_clock)."""
    return clock.get("label") or ("virtual time" if clock.get("kind") == "virtual" else "host clock")


def wcrt_text(analysed_nanos) -> str:
    """An analysed worst-case response time as `rt services` and the run report show it."""
    return f"{int(analysed_nanos) / 1000:.1f} us" if analysed_nanos else "not analysed"


def render_services(services: list[dict], clock: dict | None = None) -> str:
    """The table of `rt services`: the CPU the RT cell's partition pins each row's threads to ("-"
    when not pinned: a cell of one CPU, or a component the analysis has no task for); each row's
    measured worst response beside the worst-case response time the RT cell's admission analysis
    gives it ("not analysed" for a component that declares no cost); the most CPU time one release
    or callback used beside the cost the analysis assumed for one ("-": none declared), with a line
    under a row that used more, and one under a row whose worst response exceeds its WCRT; a failed component's cause under its row (once for the component
    and its tasks, which carry the same cause); the clock the figures are in; what a component's
    releases and lateness are, when the table has a component row."""
    from xcc.mgmt import describe_failure
    w = max([24] + [len(s.get("name", "")) for s in services])  # the columns stay aligned
    lines = [f"{'service':<{w}} {'state':<10} {'cpu':>4} {'releases':>10} {'misses':>8} {'worst lateness':>16} "
             f"{'worst response':>16} {'analysed WCRT':>16} {'worst exec':>13} {'cost':>13}"]
    shown = None
    for s in services:
        worst = int(s.get("worst_lateness_nanos", 0))
        response = int(s.get("worst_response_nanos", 0))
        execution = int(s.get("worst_execution_nanos") or 0)
        cost = f"{int(s['analysed_cost_nanos']) / 1000:.1f} us" if s.get("analysed_cost_nanos") else "-"
        cpu = "-" if s.get("cpu") is None else str(s["cpu"])
        lines.append(f"{s.get('name', ''):<{w}} {s.get('state', ''):<10} {cpu:>4} {int(s.get('releases', 0)):>10} "
                     f"{int(s.get('deadline_misses', 0)):>8} {worst / 1000:>13.1f} us {response / 1000:>13.1f} us "
                     f"{wcrt_text(s.get('analysed_wcrt_nanos')):>16} {execution / 1000:>10.1f} us {cost:>13}")
        over = cost_overrun_text(s)
        if over:
            lines.append(f"  over its cost: {over}")
        exceeded = wcrt_exceeded_text(s)
        if exceeded:
            lines.append(f"  over its WCRT: {exceeded}")
        cause = s.get("failure")
        if cause and cause != shown:
            lines.append(f"  failed: {describe_failure(cause)}")
            lines += [f"    at {frame}" for frame in cause.get("frames", [])[1:]]
        shown = cause
    lines.append(f"(releases, misses, lateness and execution in the RT cell's {clock_label(clock or {'kind': 'host'})})")
    if any(s.get("name", "").count("/") == 1 for s in services):
        lines.append("(a component's releases are its callbacks: intents, alarms and its sensor listeners'; its lateness "
                     "is a callback's delay from the send, or from the frame's time stamp, to its start)")
    return "\n".join(lines) + "\n"


def cmd_rt_ping(a) -> int:
    state = lifecycle.current_state(a.board)
    roles = {c.get("role") for c in state["cells"].values()}
    if "android" in roles:
        raise CliError("the Android cell owns peer 1's data rings; `rt ping` needs a board brought up "
                       "with --cells rt")
    if "rt" not in roles:
        raise CliError(f"board {state['board']} has no RT cell running")
    from .echo import EchoError, EchoPeer
    payload = a.payload.encode()
    with EchoPeer(state["region"]["path"], a.priority) as peer:
        for i in range(a.count):
            try:
                r = peer.ping(payload, correlation_id=i + 1, timeout=a.timeout)
            except EchoError as e:
                raise CliError(str(e)) from None
            ok = "" if r.payload == payload else " PAYLOAD MISMATCH"
            print(f"PONG {r.correlation_id}: {len(r.payload)} bytes, round trip {r.round_trip_s * 1e6:.0f} us, "
                  f"RT cell share {r.rt_share_nanos / 1000:.0f} us{ok}")
            if ok:
                return 1
    return 0


def cmd_stats(a) -> int:
    state = lifecycle.current_state(a.board)
    from xcc import region as xr
    out = {"region": xr.dump(state["region"]["path"])}
    if "rt" in {c.get("role") for c in state["cells"].values()} and not a.region_only:
        try:
            out["rt_agent"] = _as_dict(_mgmt().stats(state["region"]["path"], timeout=a.timeout))
        except Exception as e:  # the region counters are still worth showing
            out["rt_agent"] = {"error": str(e)}
    print(json.dumps(out, indent=2, sort_keys=True, default=str))
    return 0


# ------------------------------------------------------------------ bundles, keys, Android

def cmd_bundle(a) -> int:
    try:
        from xcc import bundle as xb
    except ImportError as e:
        raise CliError(f"xcc.bundle not available ({e}); run tools/setup.sh") from None
    key = Path(a.key) if a.key else paths.keys_dir() / "deploy.key"
    for what, p in (("--jar", Path(a.jar)), ("--manifest", Path(a.manifest)), ("--key", key)):
        _existing_file(what, p, " (run: rtdroid keys)" if what == "--key" else "")
    out = Path(a.output)
    if out.is_dir():
        raise CliError(f"-o {out} is a directory; name the bundle file (e.g. {out / 'app.rtb'})")
    if not out.parent.is_dir():
        raise CliError(f"-o {out}: directory {out.parent} does not exist")
    info = xb.build_bundle(a.jar, a.manifest, key, a.output, allow_downgrade=a.allow_downgrade)
    how = "signed as a downgrade (may replace a newer version)" if info.downgrade else "signed"
    print(f"wrote {a.output}: application {info.name} version {info.version}, {info.bundle_bytes} bytes, "
          f"{how} with {key}")
    return 0


def cmd_keys(a) -> int:
    keys.ensure_keys(Path(a.dir) if a.dir else None)
    return 0


def cmd_deploy_android(a) -> int:
    app = Path(a.app).resolve()
    if not app.exists():
        raise CliError(f"app {app} does not exist")
    if app.is_dir():
        raise CliError(f"app {app} is a folder (an unsigned app bundle): the Android cell installs signed APKs "
                       f"only; pack and sign it with android-cell/apk/cell-apk.sh {app} {app}.apk")
    state = lifecycle.current_state(a.board)
    if "android" not in {c.get("role") for c in state["cells"].values()}:
        raise CliError(f"board {state['board']} has no Android cell running")
    device = adb.Adb(state["adb_port"], a.timeout)
    pkg = device.install(app)
    print(f"installed {app.name} as {pkg} (adb -s {device.serial} install)")
    if not a.no_launch:
        print(f"launched {pkg} (adb shell am start -W):\n{device.start(app).rstrip()}")
    return 0


# ------------------------------------------------------------------ parser

def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rtdroid", description=__doc__.splitlines()[0])
    p.add_argument("--debug", action="store_true", help="print the Python trace of an error")
    sub = p.add_subparsers(dest="command", required=True)

    def board_opt(sp, default=None):
        sp.add_argument("--board", default=default, metavar="NAME",
                        help=f"board name in board-configs/ or a YAML path (default {default or 'the board that is up'})")

    def timeout_opt(sp, default=30.0):
        sp.add_argument("--timeout", type=_seconds, default=default, metavar="S", help=f"seconds (default {default:g})")

    board = sub.add_parser("board", help="boot, inspect, tear down a board").add_subparsers(dest="action", required=True)
    sp = board.add_parser("up", help="format the region, start both cells, wait until ready")
    board_opt(sp, DEFAULT_BOARD)
    sp.add_argument("--cells", metavar="LIST", help="start only these cells (rt,android); default both")
    sp.add_argument("--cold", action="store_true",
                    help="boot a qemu RT cell cold even when its board restores it from a boot snapshot")
    sp.add_argument("--timeout", type=_seconds, metavar="S", help="boot timeout per cell (default: the board's)")
    sp.set_defaults(func=cmd_board_up)
    sp = board.add_parser("down", help="stop every cell, remove the region file")
    board_opt(sp)
    sp.set_defaults(func=cmd_board_down)
    sp = board.add_parser("restart", help="stop and start one cell of the board that is up")
    sp.add_argument("cell", choices=["rt", "android"])
    board_opt(sp)
    sp.add_argument("--timeout", type=_seconds, metavar="S", help="boot timeout (default: the board's)")
    sp.set_defaults(func=cmd_board_restart)

    sp = board.add_parser("status", help="cells, peers and region of the board that is up")
    board_opt(sp)
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(func=cmd_board_status)
    sp = board.add_parser("console", help="attach to a cell's serial console (or follow its log)")
    sp.add_argument("cell", choices=["rt"])
    board_opt(sp)
    sp.add_argument("--tail", action="store_true", help="follow the console log instead of attaching")
    sp.add_argument("-n", "--lines", type=_lines, default=30)
    sp.set_defaults(func=cmd_board_console)
    sp = board.add_parser("logs", help="show the cells' logs")
    sp.add_argument("which", nargs="?", default="all", choices=["rt", "android", "console", "all"])
    board_opt(sp)
    sp.add_argument("-n", "--lines", type=_lines, default=50)
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

    deploy = sub.add_parser("deploy", help="deploy to a cell").add_subparsers(dest="cell", required=True)
    sp = deploy.add_parser("rt", help="send a signed bundle (.rtb) to the RT cell agent")
    sp.add_argument("bundle")
    board_opt(sp)
    timeout_opt(sp, 60.0)
    sp.set_defaults(func=cmd_deploy_rt)
    sp = deploy.add_parser("android", help="install (and launch) an app in the Android cell from its signed APK")
    sp.add_argument("app", help="the app's signed APK (android-cell/apk/cell-apk.sh makes one of a bundle folder)")
    board_opt(sp)
    timeout_opt(sp, 60.0)
    sp.add_argument("--no-launch", action="store_true")
    sp.set_defaults(func=cmd_deploy_android)

    undeploy = sub.add_parser("undeploy", help="remove an application from a cell").add_subparsers(dest="cell", required=True)
    sp = undeploy.add_parser("rt")
    sp.add_argument("name")
    board_opt(sp)
    timeout_opt(sp)
    sp.set_defaults(func=cmd_undeploy_rt)

    rt = sub.add_parser("rt", help="RT cell queries").add_subparsers(dest="action", required=True)
    sp = rt.add_parser("services", help="deployed services: releases, deadline misses, worst lateness")
    board_opt(sp)
    timeout_opt(sp)
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(func=cmd_rt_services)

    sensors = rt.add_parser("sensors", help="the RT cell's sensors: their state, replaying a motion trace") \
        .add_subparsers(dest="sensors_action", required=True)
    sp = sensors.add_parser("status", help="the sensors' input devices and replay, or why there are none")
    board_opt(sp)
    timeout_opt(sp)
    sp.set_defaults(func=cmd_rt_sensors_status)
    sp = sensors.add_parser("replay", help="replay a motion trace into the RT cell's accelerometer and gyroscope")
    sp.add_argument("trace", help="a motion trace file (the format of org.rtdroid.runtime.sensor.sim), at most 1 MiB")
    board_opt(sp)
    timeout_opt(sp)
    sp.set_defaults(func=cmd_rt_sensors_replay)

    sp = rt.add_parser("ping", help="echo PING/PONG through the region as peer 1 (board up with --cells rt)")
    board_opt(sp)
    timeout_opt(sp, 10.0)
    sp.add_argument("--count", type=_count, default=1)
    sp.add_argument("--payload", default="ping")
    sp.add_argument("--priority", type=_priority, default=60, help="sender priority 0..99 (default 60: ring 1)")
    sp.set_defaults(func=cmd_rt_ping)

    sp = sub.add_parser("stats", help="region counters, peer states and the RT agent's counters (JSON)")
    board_opt(sp)
    timeout_opt(sp, 10.0)
    sp.add_argument("--region-only", action="store_true", help="only what the region itself says")
    sp.set_defaults(func=cmd_stats)

    sp = sub.add_parser("bundle", help="build and sign an RT bundle from a jar and its manifest")
    sp.add_argument("--jar", required=True)
    sp.add_argument("--manifest", required=True)
    sp.add_argument("--key", help="Ed25519 private key, PEM PKCS#8 (default build/keys/deploy.key)")
    sp.add_argument("-o", "--output", required=True)
    sp.add_argument("--allow-downgrade", action="store_true",
                    help="sign it to be deployed even over a newer version of the application (signed over a "
                         "distinct prefix: an ordinary bundle cannot be passed off as one)")
    sp.set_defaults(func=cmd_bundle)

    sp = sub.add_parser("validate", help="static validation of RT apps for a board: memory, channels, "
                        "schedulability (exit 0 holds, 1 fails, 2 malformed manifest)")
    sp.add_argument("manifests", nargs="+", metavar="MANIFEST", help="a manifest.xml or a directory holding one")
    board_opt(sp, DEFAULT_BOARD)
    sp.add_argument("--json", action="store_true", help="the report as JSON")
    sp.add_argument("--cheddar", metavar="OUT.xml", help="also write the task set as Cheddar ADL XML")
    sp.set_defaults(func=cmd_validate)

    sp = sub.add_parser("keys", help="create build/keys/deploy.{key,pub} if missing")
    sp.add_argument("--dir", help="another directory for the pair")
    sp.set_defaults(func=cmd_keys)
    return p


def _xcc_errors() -> tuple:
    errs = []
    try:
        from xcc.bundle import BundleError
        errs.append(BundleError)
    except ImportError:
        pass
    try:
        from xcc.region import RegionError
        errs.append(RegionError)
    except ImportError:
        pass
    return tuple(errs)


def _check_board_name(a) -> None:
    """A --board that names no board file and no board that ran is a typo, not a board that is down.
    `board down` stays idempotent: it also clears what a board left behind."""
    name = getattr(a, "board", None)
    if not name or a.func is cmd_board_down or resolve_board_file(name).is_file() or (paths.run_dir(name) / "state.json").is_file():
        return
    load_board(name)  # raises BoardNotFound naming the boards there are


def _one_line(e: BaseException) -> str:
    """An unexpected error as one line: what failed, without the trace."""
    if isinstance(e, OSError) and e.strerror:
        where = f" {e.filename}" if e.filename else ""
        return f"{e.strerror}:{where}" + (f" -> {e.filename2}" if e.filename2 else "")
    text = " ".join(str(e).split())
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv  # accepted anywhere, not only before the command
    args = build_parser().parse_args([x for x in argv if x != "--debug"])
    try:
        _check_board_name(args)
        return args.func(args)
    except (CliError, lifecycle.BoardError, BoardConfigError, RuntimeError, *_xcc_errors()) as e:
        if debug:
            traceback.print_exc()
        _err(str(e))
        return 1
    except KeyboardInterrupt:
        _err("interrupted")
        return 130
    except BrokenPipeError:  # `rtdroid stats | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as e:  # no trace reaches a user: one line, the trace only with --debug
        if debug:
            traceback.print_exc()
        command = " ".join(x for x in (args.command, getattr(args, "action", None) or getattr(args, "cell", None)) if x)
        _err(f"{command}: {_one_line(e)}" + ("" if debug else " (--debug shows the trace)"))
        return 1


if __name__ == "__main__":
    sys.exit(main())
