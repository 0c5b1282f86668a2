"""`rtdroid rt ...`: the RT cell's services, sensors and an echo through the region."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from .. import lifecycle
from ..servicerows import cost_overrun_text, wcrt_exceeded_text
from .common import CliError, answer, as_dict, board_opt, count, existing_file, priority, result_ok, timeout_opt


def cmd_rt_services(a) -> int:
    region = a.reach.region_of(a)
    clock = a.reach.clock_of(a)
    mgmt = a.reach.mgmt()
    services = [as_dict(s) for s in mgmt.list_services(region, timeout=a.timeout)]
    if a.json:
        # each row says which clock its releases, misses and lateness were judged by
        print(json.dumps([{**s, "clock": clock} for s in services], indent=2, sort_keys=True))
        return 0
    print(render_services(services, clock) if services else "no RT services deployed\n", end="")
    try:
        res = mgmt.sensor_status(region, timeout=a.timeout)
        answer(_sensors_line(res), res.code == 0)  # the services above stand either way
    except mgmt.MgmtError as e:  # say why the sensors' line is missing
        print(f"sensors: no answer ({e})", file=sys.stderr)
    return 0


def _sensors_line(res) -> str:
    """The agent's one line on the cell's sensors: its text when they are there
    ("sensors: ..."), and "sensors unavailable: <reason>" when they are not."""
    return res.text if res.code == 0 or res.text.startswith("sensors unavailable") else \
        f"sensors: {res.name} ({res.code}): {res.text}"


def cmd_rt_sensors_status(a) -> int:
    res = a.reach.mgmt().sensor_status(a.reach.region_of(a), timeout=a.timeout)
    return answer(_sensors_line(res), res.code == 0)


def cmd_rt_sensors_replay(a) -> int:
    """Sends a motion trace to the RT cell, which replays it into its sensors (the agent checks
    the trace whole first and names the line of a problem)."""
    mgmt = a.reach.mgmt()
    trace = existing_file("trace", Path(a.trace))
    size = trace.stat().st_size
    if not 0 < size <= mgmt.MAX_TRACE_BYTES:
        raise CliError(f"trace {trace} is {size} bytes; a trace has 1..{mgmt.MAX_TRACE_BYTES}")
    if not _TRACE_NAME.fullmatch(trace.name):
        raise CliError(f"trace {trace}: its file name must be 1-63 characters of [A-Za-z0-9._-] "
                       "(the RT cell names the replay by it)")
    res = mgmt.replay_trace(a.reach.region_of(a), trace, timeout=a.timeout)
    ok, text = result_ok(res)
    return answer(f"replay {trace.name}: {'OK' if ok else 'REFUSED'}: {text}", ok)


_TRACE_NAME = re.compile(r"[A-Za-z0-9._-]{1,63}")


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
    from ..echo import EchoError, EchoPeer
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


def register(commands) -> None:
    rt = commands.group("rt", help="RT cell queries")
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
    sp.add_argument("--count", type=count, default=1)
    sp.add_argument("--payload", default="ping")
    sp.add_argument("--priority", type=priority, default=60, help="sender priority 0..99 (default 60: ring 1)")
    sp.set_defaults(func=cmd_rt_ping)
